/** Endpoint 16 and block by height or ID: the `blocks` table (chain `P`, `X`, `C`). */
import {type BlockRow, type PrimaryNetworkBlock, blockFromRow} from "../../models/primary/block.js";
import {type Page, type PageArgs, Params, type SqlClientLike} from "./common.js";

export interface ListBlocksArgs extends PageArgs {
  chain: "P" | "X" | "C";
  /** Inclusive bounds on the block time. */
  startTimestamp?: number;
  endTimestamp?: number;
}

/** Latest blocks, newest first; cursor = the last block's height. */
export async function listBlocks(sql: SqlClientLike, args: ListBlocksArgs): Promise<Page<PrimaryNetworkBlock>> {
  const p = new Params();
  const where = [`chain = ${p.add(args.chain)}`];
  if (args.cursor !== undefined) {
    // The cursor is a height; the row comparison on (ts, height) lets blocks_by_ts start right after it.
    const c = p.add(args.cursor);
    where.push(`(ts, height) < ((SELECT b.ts FROM blocks b WHERE b.chain = $1 AND b.height = ${c}::int8), ${c}::int8)`);
  }
  if (args.startTimestamp !== undefined) where.push(`ts >= ${p.add(args.startTimestamp)}::int8`);
  if (args.endTimestamp !== undefined) where.push(`ts <= ${p.add(args.endTimestamp)}::int8`);
  // A chain's block times never decrease with height, so (ts, height) order is height order, and blocks_by_ts
  // serves the range, the order and the cursor.
  const rows = await sql.query<BlockRow>(
    `SELECT * FROM blocks WHERE ${where.join(" AND ")} ORDER BY ts DESC, height DESC LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const items = rows.slice(0, args.pageSize).map(blockFromRow);
  return more ? {items, nextCursor: items[items.length - 1].blockNumber} : {items};
}

/**
 * The blocks a node proposed, newest first (listPrimaryNetworkBlocksByNodeId); cursor = the last block's height. A
 * block without a proposervm wrapper, or unsigned (no proposer), is no node's.
 */
export async function listBlocksByProposer(
  sql: SqlClientLike,
  args: ListBlocksArgs & {nodeId: string},
): Promise<Page<PrimaryNetworkBlock>> {
  const p = new Params();
  // The expression and the predicate are blocks_by_proposer's (schema 13), so that index serves the filter and order.
  const where = [
    `chain = ${p.add(args.chain)}`,
    `proposer IS NOT NULL`,
    `(proposer->>'proposerNodeId') = ${p.add(args.nodeId)}`,
  ];
  if (args.cursor !== undefined) where.push(`height < ${p.add(args.cursor)}::int8`);
  if (args.startTimestamp !== undefined) where.push(`ts >= ${p.add(args.startTimestamp)}::int8`);
  if (args.endTimestamp !== undefined) where.push(`ts <= ${p.add(args.endTimestamp)}::int8`);
  const rows = await sql.query<BlockRow>(
    `SELECT * FROM blocks WHERE ${where.join(" AND ")} ORDER BY height DESC LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const items = rows.slice(0, args.pageSize).map(blockFromRow);
  return more ? {items, nextCursor: items[items.length - 1].blockNumber} : {items};
}

/** One block by height (decimal digits) or by ID (`blockHash`: CB58, `0x` hex on C); null when unknown. */
export async function getBlock(
  sql: SqlClientLike,
  chain: "P" | "X" | "C",
  blockId: string,
): Promise<PrimaryNetworkBlock | null> {
  const byHeight = /^[0-9]{1,19}$/.test(blockId);
  const rows = await sql.query<BlockRow>(
    byHeight
      ? "SELECT * FROM blocks WHERE chain = $1 AND height = $2::int8"
      : "SELECT * FROM blocks WHERE chain = $1 AND block_id = $2",
    [chain, chain === "C" && !byHeight ? blockId.toLowerCase() : blockId],
  );
  return rows.length > 0 ? blockFromRow(rows[0]) : null;
}
