/** Endpoint 5 (latest transactions) and transaction by hash, P-chain model; keyset cursor = `seq`. */
import type {AssetInfo} from "../../models/primary/common.js";
import {type PChainTransaction, type TxRow, type UtxoRow, pChainTxFromRow} from "../../models/primary/pchain.js";
import {
  type CChainAtomicTransaction,
  type VertexRef,
  type XChainTransaction,
  type XUtxoRow,
  cChainTxFromRow,
  evmAssetIds,
  xChainTxFromRow,
} from "../../models/primary/xchain.js";
import {SCAN_BUDGET, scanBound} from "../sql.js";
import {type NetworkCtx, type Page, type PageArgs, Params, type SortOrder, type SqlClientLike} from "./common.js";
import {type TxUtxoColumns, type TxUtxos, loadAssets, loadTxUtxos} from "./utxos.js";

/** A page stops early once its transactions' UTXOs pass this many (docs/api/primary-network.md). */
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
  /** P only: the staking transactions of the stakers active at this time (Unix seconds): current and started. */
  activeAt?: number;
  /** Index entries a filtered page reads at most (queries/sql.ts); tests set a small one. */
  scanBudget?: number;
}

// The staker joined is the transaction's own (a staking transaction: estimate and reward transaction).
const TX_COLUMNS = "t.*, s.potential_reward, s.reward_tx_id";
const TX_STAKER_JOIN = "LEFT JOIN stakers s ON s.tx_id = t.tx_id";

/**
 * The transaction of each row of a keyset index `k` (walked in seq order), read by its primary key. A subquery
 * that cannot be flattened (OFFSET 0) keeps the plan a nested loop: joined plainly, a common asset's transactions
 * were merge-joined with `txs`, which walked every transaction above the cursor (10,000 rows at page 1,000).
 */
const txOfIndexRow = (chain: string): string =>
  `CROSS JOIN LATERAL (SELECT * FROM txs WHERE chain = ${chain} AND seq = k.seq OFFSET 0) t`;

/** The rows of a page, and where its walk stopped when the scan budget (queries/sql.ts) ended it. */
export interface TxRows {
  rows: TxRow[];
  /** The seq of the last index entry read, when the budget ended the page before pageSize + 1 rows matched. */
  scanEnd?: string;
}

/**
 * The rows of one page of a chain's transactions (`chain` `P`, `X` or `C`), pageSize + 1 at most. A filter checked
 * on the walked entries' transactions (types, timestamps, a staker's state, an L1 validation) reads at most
 * `scanBudget` entries of the walk (queries/sql.ts).
 */
export async function listTxRows(sql: SqlClientLike, chain: "P" | "X" | "C", args: ListTxsArgs): Promise<TxRows> {
  const budget = args.scanBudget ?? SCAN_BUDGET;
  const p = new Params();
  const desc = (args.sortOrder ?? "desc") === "desc";
  const dir = desc ? "DESC" : "ASC";
  const c = p.add(chain);
  const where = [`t.chain = ${c}`];
  if (args.startTimestamp !== undefined) where.push(`t.ts >= ${p.add(args.startTimestamp)}::int8`);
  if (args.endTimestamp !== undefined) where.push(`t.ts <= ${p.add(args.endTimestamp)}::int8`);
  if (args.txTypes !== undefined && args.txTypes.length > 0)
    where.push(`t.tx_type = ANY(${p.add(args.txTypes)}::text[])`);
  // A staker is active from its start until its reward transaction is folded, as the validators list has it.
  const active = (alias: string, at: string): string =>
    `${alias}.status = 'current' AND ${alias}.start_ts <= ${at}::int8`;
  const activeAt = args.activeAt === undefined ? undefined : p.add(args.activeAt);
  if (activeAt !== undefined) where.push(active("s", activeAt));
  // The L1 validation ID's index is the walk only when no address or staker walk is: otherwise it is a probe of it.
  const l1Walk = args.l1ValidationId !== undefined && args.addresses === undefined && activeAt === undefined;
  if (args.l1ValidationId !== undefined && !l1Walk) {
    where.push(
      `EXISTS (SELECT 1 FROM l1_validation_txs v WHERE v.validation_id = ${p.add(args.l1ValidationId)} AND v.seq = t.seq)`,
    );
  }
  const cursorOn = (alias: string): string =>
    args.cursor === undefined ? "" : ` AND ${alias}.seq ${desc ? "<" : ">"} ${p.add(args.cursor)}::int8`;
  const onlyAddresses = where.length === 1;
  const limit = p.add(args.pageSize + 1);
  // The seq source is the index of the filter that selects (tx_addresses, l1_validation_txs, or txs itself),
  // walked in seq order; the other filters are checked on the joined rows.
  let from: string;
  // The order is the walked index's: the planner does not see through the lateral subquery that t.seq is k.seq.
  let order = "k.seq";
  let scanEnd: string | undefined;
  if (args.addresses !== undefined && args.addresses.length > 0) {
    // Each address's entries are walked in seq order on their own and merged: as `= ANY` of the list, every entry
    // of every address was read and sorted at every page. Unfiltered, an address gives at most a page's worth.
    // Filtered, the walk ends at the scan bound: past it, some address would have given more than its share of
    // the budget (budget / addresses), so what lies before it is at most the budget.
    const addresses = p.add(args.addresses);
    let bound = "";
    if (!onlyAddresses) {
      const end = await addressesScanBound(
        sql,
        chain,
        args.addresses,
        desc,
        args.cursor,
        Math.ceil(budget / args.addresses.length),
      );
      if (end !== null) {
        scanEnd = end;
        bound = ` AND k.seq ${desc ? ">=" : "<="} ${p.add(end)}::int8`;
      }
    }
    from = `(SELECT DISTINCT x.seq FROM unnest(${addresses}::bytea[]) a(address) CROSS JOIN LATERAL
             (SELECT k.seq FROM tx_addresses k WHERE k.chain = ${c} AND k.address = a.address${cursorOn("k")}${bound}
              ORDER BY k.seq ${dir}${onlyAddresses ? ` LIMIT ${limit}` : ""}) x
             ${onlyAddresses ? `ORDER BY x.seq ${dir} LIMIT ${limit}` : ""}) k ${txOfIndexRow(c)}`;
  } else if (activeAt !== undefined) {
    // The current stakers (at most the network's staker set), not every P transaction, are the walk.
    from = `(SELECT k.seq FROM stakers s2 CROSS JOIN LATERAL (SELECT seq FROM txs WHERE chain = ${c} AND tx_id = s2.tx_id OFFSET 0) k
             WHERE ${active("s2", activeAt)}${cursorOn("k")}) k ${txOfIndexRow(c)}`;
  } else if (l1Walk) {
    // An L1 validation's transactions: a handful (its registration, weight changes, balance top-ups, removal).
    from = `l1_validation_txs k ${txOfIndexRow(c)}`;
    where.push(`k.validation_id = ${p.add(args.l1ValidationId)}${cursorOn("k")}`);
  } else {
    from = "txs t";
    order = "t.seq";
    if (args.cursor !== undefined) where.push(cursorOn("t").slice(5));
  }
  const rows = await sql.query<TxRow>(
    `SELECT ${TX_COLUMNS} FROM ${from} ${TX_STAKER_JOIN} WHERE ${where.join(" AND ")} ORDER BY ${order} ${dir} LIMIT ${limit}`,
    p.values,
  );
  return rows.length > args.pageSize || scanEnd === undefined ? {rows} : {rows, scanEnd};
}

/**
 * The seq where a filtered walk of the addresses' entries (below the cursor, in the page's order) ends: the latest
 * (desc; earliest asc) of each address's `share`-th entry, or null when no address has that many.
 */
async function addressesScanBound(
  sql: SqlClientLike,
  chain: string,
  addresses: Uint8Array[],
  desc: boolean,
  cursor: string | undefined,
  share: number,
): Promise<string | null> {
  const params: unknown[] = [chain, addresses];
  if (cursor !== undefined) params.push(cursor);
  const below = cursor === undefined ? "" : ` AND k.seq ${desc ? "<" : ">"} $3::int8`;
  const rows = await sql.query<{seq: string | null}>(
    `SELECT ${desc ? "max" : "min"}(b.seq)::text AS seq FROM unnest($2::bytea[]) a(address) CROSS JOIN LATERAL
     (SELECT k.seq FROM tx_addresses k WHERE k.chain = $1 AND k.address = a.address${below}
      ORDER BY k.seq ${desc ? "DESC" : "ASC"} OFFSET ${Math.max(0, share - 1)} LIMIT 1) b`,
    params,
  );
  return rows[0]?.seq ?? null;
}

/** A page of transaction rows with everything the models need, loaded with one query per kind. */
interface TxPage<U extends XUtxoRow = UtxoRow> extends TxUtxos<U> {
  rows: TxRow[];
  more: boolean;
  scanEnd?: string;
  assets: AssetInfo;
}

/** A page for the P model (every UTXO column) or, with `x`, for the X and C models (theirs only). */
async function loadTxPage(sql: SqlClientLike, net: NetworkCtx, found: TxRows, pageSize: number): Promise<TxPage>;
async function loadTxPage(
  sql: SqlClientLike,
  net: NetworkCtx,
  found: TxRows,
  pageSize: number,
  columns: "x",
): Promise<TxPage<XUtxoRow>>;
async function loadTxPage(
  sql: SqlClientLike,
  net: NetworkCtx,
  found: TxRows,
  pageSize: number,
  columns: TxUtxoColumns = "p",
): Promise<TxPage<XUtxoRow>> {
  const rows = found.rows;
  let more = rows.length > pageSize;
  let page = rows.slice(0, pageSize);
  let scanEnd = found.scanEnd;
  const {emitted, consumed} = await loadTxUtxos(sql, page, net.chainIds, columns);
  // Stop early once the UTXOs pass the cap (always keeping one transaction, so paging advances).
  let n = 0;
  for (let i = 0; i < page.length; i++) {
    n += (emitted.get(page[i].tx_id)?.length ?? 0) + (consumed.get(page[i].tx_id)?.length ?? 0);
    if (n > MAX_PAGE_UTXOS && i > 0) {
      page = page.slice(0, i);
      more = true;
      scanEnd = undefined;
      break;
    }
  }
  const assetIds: string[] = [];
  for (const m of [emitted, consumed]) {
    for (const us of m.values()) for (const u of us) if (u.asset_id !== null) assetIds.push(u.asset_id);
  }
  for (const r of page) {
    // An X asset's ID is its CreateAssetTx's ID.
    if (r.tx_type === "CreateAssetTx") assetIds.push(r.tx_id);
    assetIds.push(...evmAssetIds(r));
  }
  const assets = await loadAssets(sql, assetIds);
  return {rows: page, more, scanEnd, emitted, consumed, assets};
}

/** The page, its cursor the last row's seq, or where the scan budget ended its walk (a short page, maybe empty). */
function pageOf<T>(p: TxPage<XUtxoRow>, items: T[]): Page<T> {
  if (p.more) return {items, nextCursor: String(p.rows[p.rows.length - 1].seq)};
  return p.scanEnd === undefined ? {items} : {items, nextCursor: p.scanEnd};
}

async function getTxRow(sql: SqlClientLike, chain: "P" | "X" | "C", txHash: string): Promise<TxRow | null> {
  const rows = await sql.query<TxRow>(
    `SELECT ${TX_COLUMNS} FROM txs t ${TX_STAKER_JOIN} WHERE t.chain = $1 AND t.tx_id = $2`,
    [chain, txHash],
  );
  return rows.length > 0 ? rows[0] : null;
}

/** Latest P-chain transactions, each with its consumed and emitted UTXOs (one query each for the page). */
export async function listPChainTransactions(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: ListTxsArgs,
): Promise<Page<PChainTransaction>> {
  const p = await loadTxPage(sql, net, await listTxRows(sql, "P", args), args.pageSize);
  return pageOf(
    p,
    p.rows.map((r) => pChainTx(r, p, net)),
  );
}

function pChainTx(r: TxRow, p: TxPage, net: NetworkCtx): PChainTransaction {
  return pChainTxFromRow(r, p.consumed.get(r.tx_id) ?? [], p.emitted.get(r.tx_id) ?? [], net.hrp, p.assets);
}

/** One P-chain transaction by ID; null when unknown. */
export async function getPChainTransaction(
  sql: SqlClientLike,
  net: NetworkCtx,
  txHash: string,
): Promise<PChainTransaction | null> {
  const row = await getTxRow(sql, "P", txHash);
  if (row === null) return null;
  const p = await loadTxPage(sql, net, {rows: [row]}, 1);
  return pChainTx(row, p, net);
}

/** Which X containers (blocks, vertices) hold a page's transactions: one query for both. */
async function loadXContainers(
  sql: SqlClientLike,
  rows: TxRow[],
): Promise<{blocks: Set<string>; vertices: Map<string, VertexRef>}> {
  const ids = [...new Set(rows.map((r) => r.block_id))];
  const blocks = new Set<string>();
  const vertices = new Map<string, VertexRef>();
  if (ids.length === 0) return {blocks, vertices};
  const found = await sql.query<{
    kind: "b" | "v";
    id: string;
    height: VertexRef["height"] | null;
    ts: VertexRef["ts"] | null;
  }>(
    `SELECT 'b' AS kind, block_id AS id, NULL::int8 AS height, NULL::int8 AS ts FROM blocks WHERE chain = 'X' AND block_id = ANY($1::text[])
     UNION ALL SELECT 'v', vertex_id, height, ts FROM vertices WHERE vertex_id = ANY($1::text[])`,
    [ids],
  );
  for (const f of found) {
    if (f.kind === "b") blocks.add(f.id);
    else vertices.set(f.id, {vertex_id: f.id, height: f.height!, ts: f.ts!});
  }
  return {blocks, vertices};
}

async function xChainTxs(sql: SqlClientLike, net: NetworkCtx, p: TxPage<XUtxoRow>): Promise<XChainTransaction[]> {
  const c = await loadXContainers(sql, p.rows);
  return p.rows.map((r) =>
    xChainTxFromRow(
      r,
      p.consumed.get(r.tx_id) ?? [],
      p.emitted.get(r.tx_id) ?? [],
      {linear: c.blocks.has(r.block_id), vertex: c.vertices.get(r.block_id) ?? null},
      net.hrp,
      p.assets,
    ),
  );
}

/** Latest X-chain transactions (linear in blocks, non-linear in vertices). */
export async function listXChainTransactions(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: Omit<ListTxsArgs, "l1ValidationId">,
): Promise<Page<XChainTransaction>> {
  const p = await loadTxPage(sql, net, await listTxRows(sql, "X", args), args.pageSize, "x");
  return pageOf(p, await xChainTxs(sql, net, p));
}

/** One X-chain transaction by ID; null when unknown. */
export async function getXChainTransaction(
  sql: SqlClientLike,
  net: NetworkCtx,
  txHash: string,
): Promise<XChainTransaction | null> {
  const row = await getTxRow(sql, "X", txHash);
  if (row === null) return null;
  return (await xChainTxs(sql, net, await loadTxPage(sql, net, {rows: [row]}, 1, "x")))[0];
}

export interface ListAssetTxsArgs extends PageArgs {
  assetId: string;
  txTypes?: string[];
  startTimestamp?: number;
  endTimestamp?: number;
  scanBudget?: number;
}

/**
 * Endpoint 4: X transactions that create, consume or emit an asset, newest first; cursor = seq. Types and
 * timestamps are checked on the asset's walk, which reads at most `scanBudget` of its entries (queries/sql.ts).
 */
export async function listAssetTransactions(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: ListAssetTxsArgs,
): Promise<Page<XChainTransaction>> {
  const q = new Params();
  const where = [`k.asset_id = ${q.add(args.assetId)}`];
  if (args.cursor !== undefined) where.push(`k.seq < ${q.add(args.cursor)}::int8`);
  const walk = [...where];
  if (args.startTimestamp !== undefined) where.push(`t.ts >= ${q.add(args.startTimestamp)}::int8`);
  if (args.endTimestamp !== undefined) where.push(`t.ts <= ${q.add(args.endTimestamp)}::int8`);
  if (args.txTypes !== undefined && args.txTypes.length > 0)
    where.push(`t.tx_type = ANY(${q.add(args.txTypes)}::text[])`);
  let scanEnd: string | undefined;
  if (where.length > walk.length) {
    const end = await scanBound<{seq: string}>(
      sql,
      `SELECT k.seq::text AS seq FROM asset_txs k WHERE ${walk.join(" AND ")} ORDER BY k.seq DESC`,
      q.values.slice(0, walk.length),
      args.scanBudget,
    );
    if (end !== null) {
      scanEnd = end.seq;
      where.push(`k.seq >= ${q.add(end.seq)}::int8`);
    }
  }
  const rows = await sql.query<TxRow>(
    `SELECT ${TX_COLUMNS} FROM asset_txs k ${txOfIndexRow("'X'")} ${TX_STAKER_JOIN}
     WHERE ${where.join(" AND ")} ORDER BY k.seq DESC LIMIT ${q.add(args.pageSize + 1)}`,
    q.values,
  );
  const p = await loadTxPage(
    sql,
    net,
    rows.length > args.pageSize || scanEnd === undefined ? {rows} : {rows, scanEnd},
    args.pageSize,
    "x",
  );
  return pageOf(p, await xChainTxs(sql, net, p));
}

/** Latest C-chain atomic transactions (exports and imports). */
export async function listCChainTransactions(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: Omit<ListTxsArgs, "l1ValidationId">,
): Promise<Page<CChainAtomicTransaction>> {
  const p = await loadTxPage(sql, net, await listTxRows(sql, "C", args), args.pageSize, "x");
  return pageOf(
    p,
    p.rows.map((r) => cChainTx(r, p, net)),
  );
}

function cChainTx(r: TxRow, p: TxPage<XUtxoRow>, net: NetworkCtx): CChainAtomicTransaction {
  return cChainTxFromRow(
    r,
    p.consumed.get(r.tx_id) ?? [],
    p.emitted.get(r.tx_id) ?? [],
    net.chainIds.C,
    net.hrp,
    p.assets,
  );
}

/** One C-chain atomic transaction by ID; null when unknown. */
export async function getCChainTransaction(
  sql: SqlClientLike,
  net: NetworkCtx,
  txHash: string,
): Promise<CChainAtomicTransaction | null> {
  const row = await getTxRow(sql, "C", txHash);
  if (row === null) return null;
  return cChainTx(row, await loadTxPage(sql, net, {rows: [row]}, 1, "x"), net);
}
