/** Endpoint 5 (latest transactions) and transaction by hash, P-chain model; keyset cursor = `seq`. */
import {type PChainTransaction, type TxRow, pChainTxFromRow} from "../../models/primary/pchain.js";
import {type NetworkCtx, type Page, type PageArgs, Params, type SortOrder, type SqlClientLike} from "./common.js";
import {loadAssets, loadTxUtxos} from "./utxos.js";

/** A page stops early once its transactions' UTXOs pass this many (contract §5, endpoint 5 rule 2). */
export const MAX_PAGE_UTXOS = 5_000;

export interface ListTxsArgs extends PageArgs {
  /** 20-byte short IDs (or 20-byte EVM addresses on C). */
  addresses?: Uint8Array[];
  txTypes?: string[];
  /** Inclusive; the router accepts them only with `addresses`. */
  startTimestamp?: number;
  endTimestamp?: number;
  sortOrder?: SortOrder;
  /** P only: transactions of one L1 validation ID. */
  l1ValidationId?: string;
}

// The staker joined is the transaction's own (a staking transaction: estimate and reward transaction).
const TX_COLUMNS = "t.*, s.potential_reward, s.reward_tx_id";
const TX_STAKER_JOIN = "LEFT JOIN stakers s ON s.tx_id = t.tx_id";

/** The rows of one page of a chain's transactions (`chain` `P`, `X` or `C`), pageSize + 1 at most. */
export async function listTxRows(sql: SqlClientLike, chain: "P" | "X" | "C", args: ListTxsArgs): Promise<TxRow[]> {
  const p = new Params();
  const desc = (args.sortOrder ?? "desc") === "desc";
  const dir = desc ? "DESC" : "ASC";
  const c = p.add(chain);
  const where = [`t.chain = ${c}`];
  if (args.startTimestamp !== undefined) where.push(`t.ts >= ${p.add(args.startTimestamp)}::int8`);
  if (args.endTimestamp !== undefined) where.push(`t.ts <= ${p.add(args.endTimestamp)}::int8`);
  if (args.txTypes !== undefined && args.txTypes.length > 0) where.push(`t.tx_type = ANY(${p.add(args.txTypes)}::text[])`);
  const cursor = args.cursor === undefined ? "" : `AND k.seq ${desc ? "<" : ">"} ${p.add(args.cursor)}::int8`;
  const limit = p.add(args.pageSize + 1);
  // The seq source is the index of the filter that selects (tx_addresses, l1_validation_txs, or txs itself),
  // walked in seq order; the other filters are checked on the joined rows.
  let from: string;
  if (args.addresses !== undefined && args.addresses.length > 0) {
    from = `(SELECT DISTINCT k.seq FROM tx_addresses k WHERE k.chain = ${c}
             AND k.address = ANY(${p.add(args.addresses)}::bytea[]) ${cursor}) k JOIN txs t ON t.chain = ${c} AND t.seq = k.seq`;
  } else if (args.l1ValidationId !== undefined) {
    from = `l1_validation_txs k JOIN txs t ON t.chain = ${c} AND t.seq = k.seq`;
    where.push(`k.validation_id = ${p.add(args.l1ValidationId)} ${cursor}`);
  } else {
    from = "txs k JOIN txs t ON t.chain = k.chain AND t.seq = k.seq";
    if (cursor !== "") where.push(cursor.slice(4));
  }
  return sql.query<TxRow>(
    `SELECT ${TX_COLUMNS} FROM ${from} ${TX_STAKER_JOIN} WHERE ${where.join(" AND ")} ORDER BY t.seq ${dir} LIMIT ${limit}`,
    p.values
  );
}

/** Latest P-chain transactions, each with its consumed and emitted UTXOs (one query each for the page). */
export async function listPChainTransactions(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: ListTxsArgs
): Promise<Page<PChainTransaction>> {
  const rows = await listTxRows(sql, "P", args);
  let more = rows.length > args.pageSize;
  let page = rows.slice(0, args.pageSize);
  const {emitted, consumed} = await loadTxUtxos(sql, page.map((r) => r.tx_id));
  // Stop early once the UTXOs pass the cap (always keeping one transaction, so paging advances).
  let n = 0;
  for (let i = 0; i < page.length; i++) {
    n += (emitted.get(page[i].tx_id)?.length ?? 0) + (consumed.get(page[i].tx_id)?.length ?? 0);
    if (n > MAX_PAGE_UTXOS && i > 0) {
      page = page.slice(0, i);
      more = true;
      break;
    }
  }
  const assetIds: string[] = [];
  for (const m of [emitted, consumed]) for (const us of m.values()) for (const u of us) if (u.asset_id) assetIds.push(u.asset_id);
  const assets = await loadAssets(sql, assetIds);
  const items = page.map((r) =>
    pChainTxFromRow(r, consumed.get(r.tx_id) ?? [], emitted.get(r.tx_id) ?? [], net.hrp, assets)
  );
  return more ? {items, nextCursor: String(page[page.length - 1].seq)} : {items};
}

/** One P-chain transaction by ID; null when unknown. */
export async function getPChainTransaction(
  sql: SqlClientLike,
  net: NetworkCtx,
  txHash: string
): Promise<PChainTransaction | null> {
  const rows = await sql.query<TxRow>(
    `SELECT ${TX_COLUMNS} FROM txs t ${TX_STAKER_JOIN} WHERE t.chain = 'P' AND t.tx_id = $1`,
    [txHash]
  );
  if (rows.length === 0) return null;
  const {emitted, consumed} = await loadTxUtxos(sql, [txHash]);
  const us = [...(emitted.get(txHash) ?? []), ...(consumed.get(txHash) ?? [])];
  const assets = await loadAssets(sql, us.flatMap((u) => (u.asset_id === null ? [] : [u.asset_id])));
  return pChainTxFromRow(rows[0], consumed.get(txHash) ?? [], emitted.get(txHash) ?? [], net.hrp, assets);
}
