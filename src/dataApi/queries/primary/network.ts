/** X vertices, X asset details, subnets, blockchains and L1 validators. */
import type {AssetRow, DbNum} from "../../models/primary/common.js";
import {
  type Blockchain,
  type BlockchainRow,
  type L1ValidatorDetailsFull,
  type L1ValidatorRow,
  type Subnet,
  type SubnetRow,
  type VertexRow,
  type XChainVertex,
  blockchainFromRow,
  l1ValidatorFromRow,
  subnetFromRow,
  vertexFromRow,
} from "../../models/primary/network.js";
import {type XChainAssetDetails, assetDetailsFromRow} from "../../models/primary/xchain.js";
import {type NetworkCtx, type Page, type PageArgs, Params, type SortOrder, type SqlClientLike} from "./common.js";

function splitCursor(cursor: string): [string, string] {
  const i = cursor.indexOf(":");
  if (i < 0) throw new Error(`malformed cursor ${cursor}`);
  return [cursor.slice(0, i), cursor.slice(i + 1)];
}

/** Endpoint 12: the X vertices at a height, in index order (`sortOrder`, default desc); cursor = vertexIndex. */
export async function listVerticesByHeight(
  sql: SqlClientLike,
  args: PageArgs & {vertexHeight: number; sortOrder?: SortOrder},
): Promise<Page<XChainVertex>> {
  const desc = (args.sortOrder ?? "desc") === "desc";
  const p = new Params();
  const where = [`height = ${p.add(args.vertexHeight)}::int8`];
  if (args.cursor !== undefined) where.push(`seq ${desc ? "<" : ">"} ${p.add(args.cursor)}::int8`);
  const rows = await sql.query<VertexRow>(
    `SELECT * FROM vertices WHERE ${where.join(" AND ")} ORDER BY seq ${desc ? "DESC" : "ASC"} LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const items = rows.slice(0, args.pageSize).map(vertexFromRow);
  return more ? {items, nextCursor: String(items[items.length - 1].vertexIndex)} : {items};
}

/** The X-chain's latest vertices, newest first (index order); cursor = vertexIndex. */
export async function listLatestVertices(sql: SqlClientLike, args: PageArgs): Promise<Page<XChainVertex>> {
  const p = new Params();
  const where = args.cursor === undefined ? "" : `WHERE seq < ${p.add(args.cursor)}::int8`;
  const rows = await sql.query<VertexRow>(
    `SELECT * FROM vertices ${where} ORDER BY seq DESC LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const items = rows.slice(0, args.pageSize).map(vertexFromRow);
  return more ? {items, nextCursor: String(items[items.length - 1].vertexIndex)} : {items};
}

/** One X vertex by ID; null when unknown. */
export async function getVertex(sql: SqlClientLike, vertexId: string): Promise<XChainVertex | null> {
  const rows = await sql.query<VertexRow>("SELECT * FROM vertices WHERE vertex_id = $1", [vertexId]);
  return rows.length > 0 ? vertexFromRow(rows[0]) : null;
}

/** An X-chain asset; null when unknown. */
export async function getAssetDetails(sql: SqlClientLike, assetId: string): Promise<XChainAssetDetails | null> {
  const rows = await sql.query<AssetRow>("SELECT * FROM assets WHERE asset_id = $1", [assetId]);
  return rows.length > 0 ? assetDetailsFromRow(rows[0]) : null;
}

const SUBNET_SELECT = `SELECT s.*, t.block_height AS created_height FROM subnets s
  LEFT JOIN txs t ON t.chain = 'P' AND t.tx_id = s.created_tx`;

async function subnetsWithChains(sql: SqlClientLike, net: NetworkCtx, rows: SubnetRow[]): Promise<Subnet[]> {
  if (rows.length === 0) return [];
  const chains = await sql.query<BlockchainRow>(
    "SELECT * FROM blockchains WHERE subnet_id = ANY($1::text[]) ORDER BY created_height, blockchain_id",
    [rows.map((r) => r.subnet_id)],
  );
  return rows.map((r) =>
    subnetFromRow(
      r,
      net.hrp,
      chains.filter((c) => c.subnet_id === r.subnet_id),
    ),
  );
}

/** Subnets, newest first (`sortOrder`); cursor `createdTs:subnetId`. */
export async function listSubnets(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: PageArgs & {sortOrder?: SortOrder},
): Promise<Page<Subnet>> {
  const desc = (args.sortOrder ?? "desc") === "desc";
  const dir = desc ? "DESC" : "ASC";
  const p = new Params();
  let where = "";
  if (args.cursor !== undefined) {
    const [ts, id] = splitCursor(args.cursor);
    where = `WHERE (s.created_ts, s.subnet_id) ${desc ? "<" : ">"} (${p.add(ts)}::int8, ${p.add(id)})`;
  }
  const rows = await sql.query<SubnetRow>(
    `${SUBNET_SELECT} ${where} ORDER BY s.created_ts ${dir}, s.subnet_id ${dir} LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const page = rows.slice(0, args.pageSize);
  const items = await subnetsWithChains(sql, net, page);
  if (!more) return {items};
  const last = page[page.length - 1];
  return {items, nextCursor: `${String(last.created_ts)}:${last.subnet_id}`};
}

/** One subnet with its blockchains; null when unknown. */
export async function getSubnet(sql: SqlClientLike, net: NetworkCtx, subnetId: string): Promise<Subnet | null> {
  const rows = await sql.query<SubnetRow>(`${SUBNET_SELECT} WHERE s.subnet_id = $1`, [subnetId]);
  return (await subnetsWithChains(sql, net, rows))[0] ?? null;
}

/** Blockchains created on the P-chain, newest first (`sortOrder`); cursor `createdHeight:blockchainId`. */
export async function listBlockchains(
  sql: SqlClientLike,
  args: PageArgs & {sortOrder?: SortOrder},
): Promise<Page<Blockchain>> {
  const desc = (args.sortOrder ?? "desc") === "desc";
  const dir = desc ? "DESC" : "ASC";
  const p = new Params();
  let where = "";
  if (args.cursor !== undefined) {
    const [h, id] = splitCursor(args.cursor);
    where = `WHERE (created_height, blockchain_id) ${desc ? "<" : ">"} (${p.add(h)}::int8, ${p.add(id)})`;
  }
  const rows = await sql.query<BlockchainRow>(
    `SELECT * FROM blockchains ${where} ORDER BY created_height ${dir}, blockchain_id ${dir} LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const page = rows.slice(0, args.pageSize);
  const items = page.map(blockchainFromRow);
  if (!more) return {items};
  const last = page[page.length - 1];
  return {items, nextCursor: `${String(last.created_height)}:${last.blockchain_id}`};
}

/** One blockchain created on the P-chain, by ID; null when unknown. */
export async function getBlockchain(sql: SqlClientLike, blockchainId: string): Promise<Blockchain | null> {
  const rows = await sql.query<BlockchainRow>("SELECT * FROM blockchains WHERE blockchain_id = $1", [blockchainId]);
  return rows.length > 0 ? blockchainFromRow(rows[0]) : null;
}

/**
 * For each address (a 20-byte short ID), the primary-network chains (`P`, `X`, `C`) on which a transaction touched
 * it, in the order P, X, C: one probe of `tx_addresses`' key a chain and address.
 */
export async function chainsOfAddresses(
  sql: SqlClientLike,
  addresses: Uint8Array[],
): Promise<Array<Array<"P" | "X" | "C">>> {
  const rows = await sql.query<{i: number; chain: "P" | "X" | "C"}>(
    `SELECT a.i::int4 AS i, c.chain FROM unnest($1::bytea[]) WITH ORDINALITY a(address, i)
     CROSS JOIN (VALUES ('P', 1), ('X', 2), ('C', 3)) c(chain, n)
     WHERE EXISTS (SELECT 1 FROM tx_addresses k WHERE k.chain = c.chain AND k.address = a.address)
     ORDER BY a.i, c.n`,
    [addresses],
  );
  const out = addresses.map((): Array<"P" | "X" | "C"> => []);
  for (const r of rows) out[Number(r.i) - 1].push(r.chain);
  return out;
}

export interface ListL1ValidatorsArgs extends PageArgs {
  l1ValidationId?: string;
  subnetId?: string;
  nodeId?: string;
  /** Default false: only active validators. */
  includeInactive?: boolean;
}

/** L1 validators, newest first; cursor `createdTs:validationId`. */
export async function listL1Validators(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: ListL1ValidatorsArgs,
): Promise<Page<L1ValidatorDetailsFull> & {blockHeight: string}> {
  const p = new Params();
  const where: string[] = [];
  if (args.includeInactive !== true) where.push("active");
  if (args.l1ValidationId !== undefined) where.push(`validation_id = ${p.add(args.l1ValidationId)}`);
  if (args.subnetId !== undefined) where.push(`subnet_id = ${p.add(args.subnetId)}`);
  if (args.nodeId !== undefined) where.push(`node_id = ${p.add(args.nodeId)}`);
  if (args.cursor !== undefined) {
    const [ts, id] = splitCursor(args.cursor);
    where.push(`(created_ts, validation_id) < (${p.add(ts)}::int8, ${p.add(id)})`);
  }
  // One statement, so the balances and the height they are computed at come from one snapshot: the P-chain's
  // accrued fees and its last folded block are written in the same transaction. The outer row exists when no
  // validator matches, so the height is answered then too.
  const rows = await sql.query<Partial<L1ValidatorRow> & {accrued_fees: string | null; p_height: DbNum | null}>(
    `SELECT v.*, s.accrued_fees, s.p_height
     FROM (SELECT (SELECT value FROM data_api_meta WHERE key = 'view.l1.accruedFees') AS accrued_fees,
                  (SELECT max(height) FROM blocks WHERE chain = 'P') AS p_height) s
     LEFT JOIN LATERAL (
       SELECT * FROM l1_validators ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY created_ts DESC, validation_id DESC LIMIT ${p.add(args.pageSize + 1)}
     ) v ON true`,
    p.values,
  );
  const blockHeight = String(rows[0]?.p_height ?? 0);
  const found = rows.filter((r): r is L1ValidatorRow & {p_height: DbNum | null} => r.validation_id != null);
  const more = found.length > args.pageSize;
  const page = found.slice(0, args.pageSize);
  const items = page.map((r) => l1ValidatorFromRow(r, net.hrp));
  if (!more) return {items, blockHeight};
  const last = page[page.length - 1];
  return {items, blockHeight, nextCursor: `${String(last.created_ts)}:${last.validation_id}`};
}
