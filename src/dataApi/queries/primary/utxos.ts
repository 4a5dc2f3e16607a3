/** UTXO loading for transaction pages, and the UTXOs-of-addresses list (P-chain model). */
import type {AssetInfo, AssetRow, DbNum} from "../../models/primary/common.js";
import {
  type BalanceGroup,
  type CChainAtomicBalances,
  type PChainBalance,
  type XChainBalances,
  cChainAtomicBalances,
  pChainBalance,
  xChainBalances,
} from "../../models/primary/balances.js";
import {type PChainUtxo, type UtxoRow, pChainUtxoFromRow} from "../../models/primary/pchain.js";
import {type Utxo, type XUtxoRow, utxoFromRow} from "../../models/primary/xchain.js";
import {type ActivityRow, type LastActivityTimestamp, lastActivityFromRow} from "../../models/primary/activity.js";
import {type NetworkCtx, type Page, type PageArgs, Params, type SortOrder, type SqlClientLike} from "./common.js";

// A UTXO row is its creation (utxos) and its spend (utxo_spends), either of which may be folded first. A stake
// output carries its staker's start (utxoStartTimestamp); the join is on the staking transaction.
const SPEND_COLUMNS =
  "sp.consumed_chain, sp.consuming_tx, sp.consuming_block, sp.consuming_height, sp.consuming_ts, sp.credentials";
const CREATION_COLUMNS =
  "u.created_chain, u.created_seq, u.created_block, u.created_height, u.created_ts, u.asset_id, u.amount, u.addresses, u.threshold, " +
  "u.locktime, u.stakeable_locktime, u.staked, u.utxo_type, u.group_id, u.payload, u.exported_to, u.reward_type, u.staking_end";
const UTXO_COLUMNS = `u.utxo_id, u.tx_id, u.output_index, ${CREATION_COLUMNS}, ${SPEND_COLUMNS}, s.start_ts AS staker_start`;
const SPEND_JOIN = "LEFT JOIN utxo_spends sp ON sp.utxo_id = u.utxo_id";
// A lateral read gated on u.staked, kept a subquery (OFFSET 0): as a plain join condition, stakers' key was probed
// for every UTXO and what it found dropped for the unstaked ones (40 of a transaction page's 249 buffer reads).
const STAKER_JOIN =
  "LEFT JOIN LATERAL (SELECT start_ts FROM stakers WHERE u.staked AND tx_id = u.tx_id OFFSET 0) s ON true";
/** The UTXOs of the owners in `utxo_addresses ua`, with their spends and stakers: the address lists' source. */
const OWNED_UTXOS = `utxo_addresses ua JOIN utxos u ON u.utxo_id = ua.utxo_id ${SPEND_JOIN} ${STAKER_JOIN}`;

/** The columns of a transaction page's UTXOs: all of them for the P model, the X model's for X and C pages. */
export type TxUtxoColumns = "p" | "x";
// The X model's own columns (XUtxoRow): reading the P-only columns and the staker of every UTXO of an X page cost a
// quarter of its UTXO statement on PGlite, measured.
const X_SPEND_COLUMNS = "sp.consumed_chain, sp.consuming_tx, sp.consuming_ts, sp.credentials";
const X_CREATION_COLUMNS =
  "u.created_chain, u.created_ts, u.asset_id, u.amount, u.addresses, u.threshold, u.locktime, u.utxo_type, u.group_id, u.payload, u.exported_to";

// A transaction's UTXOs are found by its place (migration 12): those it emits at its chain and seq, those it
// consumes at its chain and block height, the transaction IDs telling apart the rows of the page's transactions
// from their neighbours'. Each key is a list (= ANY), so a block the page's transactions share is read once: a join
// on the page's (chain, seq, ID) triples was 15 % slower on PGlite, measured. A reward UTXO is listed under the
// staking transaction it is named after (its tx_id), though the reward transaction creates it: P pages look those
// up by ID, in an index of their own, and leave them out of the first branch (the page may hold both).
function txUtxosSql(columns: TxUtxoColumns): string {
  const [creation, spend, staker, join] =
    columns === "p"
      ? [CREATION_COLUMNS, SPEND_COLUMNS, ", s.start_ts", STAKER_JOIN]
      : [X_CREATION_COLUMNS, X_SPEND_COLUMNS, "", ""];
  const emitted = `SELECT 'e' AS side, u.tx_id AS grp, u.utxo_id, u.tx_id, u.output_index, ${creation}, ${spend}${staker && `${staker} AS staker_start`}
       FROM utxos u ${SPEND_JOIN} ${join}`;
  const rewards =
    columns === "p"
      ? `UNION ALL
     ${emitted} WHERE u.reward_type IS NOT NULL AND u.tx_id = ANY($3::text[])
     `
      : "";
  return `${emitted}
       WHERE u.created_chain = ANY($1::text[]) AND u.created_seq = ANY($2::int8[]) AND u.tx_id = ANY($3::text[]) AND u.reward_type IS NULL
     ${rewards}UNION ALL
     SELECT 'c', sp.consuming_tx, sp.utxo_id, sp.tx_id, sp.output_index, ${creation}, ${spend}${staker}
       FROM utxo_spends sp LEFT JOIN utxos u ON u.utxo_id = sp.utxo_id ${join}
       WHERE sp.consumed_chain = ANY($1::text[]) AND sp.consuming_height = ANY($4::int8[]) AND sp.consuming_tx = ANY($3::text[])
     ORDER BY side, grp, tx_id, output_index`;
}
const TX_UTXOS_SQL: Record<TxUtxoColumns, string> = {p: txUtxosSql("p"), x: txUtxosSql("x")};

/** Where a transaction of a page is: its `txs` row's chain alias, seq, block height and ID. */
export interface TxPlaceRow {
  chain: string;
  seq: DbNum;
  block_height: DbNum;
  tx_id: string;
}

/**
 * The UTXOs the given transactions emit and consume, in one query: a page's statements are what an embedded store
 * (PGlite, one thread) spends most of a list answer on.
 */
export async function loadTxUtxos(
  sql: SqlClientLike,
  txs: TxPlaceRow[],
  chainIds: NetworkCtx["chainIds"],
  columns?: "p",
): Promise<TxUtxos<UtxoRow>>;
export async function loadTxUtxos(
  sql: SqlClientLike,
  txs: TxPlaceRow[],
  chainIds: NetworkCtx["chainIds"],
  columns: TxUtxoColumns,
): Promise<TxUtxos<XUtxoRow>>;
export async function loadTxUtxos(
  sql: SqlClientLike,
  txs: TxPlaceRow[],
  chainIds: NetworkCtx["chainIds"],
  columns: TxUtxoColumns = "p",
): Promise<TxUtxos<XUtxoRow>> {
  const emitted = new Map<string, XUtxoRow[]>();
  const consumed = new Map<string, XUtxoRow[]>();
  if (txs.length === 0) return {emitted, consumed};
  const params = [
    txs.map((t) => chainIds[t.chain as keyof NetworkCtx["chainIds"]]),
    txs.map((t) => String(t.seq)),
    txs.map((t) => t.tx_id),
    txs.map((t) => String(t.block_height)),
  ];
  const rows = await sql.query<XUtxoRow & {side: "e" | "c"; grp: string}>(TX_UTXOS_SQL[columns], params);
  // The rows keep their two extra columns: copying each without them (an object rest) cost a tenth of a
  // transaction page's CPU on PGlite, measured; the models read only the UTXO's own fields.
  for (const r of rows) push(r.side === "e" ? emitted : consumed, r.grp, r);
  return {emitted, consumed};
}

/** A page's UTXOs by transaction ID: those its transactions emit and those they consume. */
export interface TxUtxos<U> {
  emitted: Map<string, U[]>;
  consumed: Map<string, U[]>;
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

/**
 * Asset rows already read, per store client. An asset's row never changes once its CreateAssetTx is folded (the
 * view only inserts them), and nearly every page names AVAX: without this, each page spent a statement on it.
 */
const knownAssets = new WeakMap<SqlClientLike, Map<string, AssetRow>>();
const KNOWN_ASSETS_MAX = 10_000;

/** Asset facts for the given asset IDs (one query for those not read before). */
export async function loadAssets(sql: SqlClientLike, assetIds: Iterable<string>): Promise<AssetInfo> {
  let known = knownAssets.get(sql);
  if (known === undefined) knownAssets.set(sql, (known = new Map()));
  const m: AssetInfo = new Map();
  const missing: string[] = [];
  for (const id of new Set(assetIds)) {
    const row = known.get(id);
    if (row !== undefined) m.set(id, row);
    else missing.push(id);
  }
  if (missing.length === 0) return m;
  for (const r of await sql.query<AssetRow>("SELECT * FROM assets WHERE asset_id = ANY($1::text[])", [missing])) {
    m.set(r.asset_id, r);
    if (known.size >= KNOWN_ASSETS_MAX) known.clear();
    known.set(r.asset_id, r);
  }
  return m;
}

export interface ListUtxosArgs extends PageArgs {
  /** CB58 ID of the chain the UTXOs can be spent on. */
  chainId: string;
  /** 20-byte short IDs. */
  addresses: Uint8Array[];
  assetId?: string;
  includeSpent?: boolean;
  /** Only UTXOs of at least this amount (`minUtxoAmount`). */
  minAmount?: bigint;
  sortBy?: "timestamp" | "amount";
  sortOrder?: SortOrder;
}

/** Cursor of the UTXO list: the sort key (creation time or amount) and the UTXO ID, `<key>:<utxoId>`. */
export async function listUtxoRows(sql: SqlClientLike, args: ListUtxosArgs): Promise<Page<UtxoRow>> {
  const p = new Params();
  const byTime = args.sortBy !== "amount";
  const desc = (args.sortOrder ?? "desc") === "desc";
  const dir = desc ? "DESC" : "ASC";
  const addresses = p.add(args.addresses);
  const chain = p.add(args.chainId);
  // A chain's UTXOs: created there (not exported), or imported into it. UTXOs exported to it and not yet imported
  // sit in its atomic memory: the balances show them, this list does not.
  const where = [
    `u.created_ts IS NOT NULL`,
    `((u.created_chain = ${chain} AND u.exported_to IS NULL) OR (u.exported_to = ${chain} AND sp.utxo_id IS NOT NULL))`,
  ];
  if (!args.includeSpent) where.push("sp.utxo_id IS NULL");
  if (args.assetId !== undefined) where.push(`u.asset_id = ${p.add(args.assetId)}`);
  if (args.minAmount !== undefined) where.push(`u.amount >= ${p.add(args.minAmount.toString())}::numeric`);
  let after: [string, string] | undefined;
  if (args.cursor !== undefined) {
    const i = args.cursor.indexOf(":");
    after = [p.add(args.cursor.slice(0, i)), p.add(args.cursor.slice(i + 1))];
  }
  const limit = p.add(args.pageSize + 1);
  const rows = byTime
    ? // Each address's UTXOs walked in time order (utxo_addresses' key) up to a page of those that pass the filters;
      // the page is the first of their union, a UTXO of several of the addresses once. Sorted and paged by the
      // entry's own time, the key walked: the UTXO's, unless a database that repeats a transaction gave an entry the
      // repeat's (the UTXO is then listed at both times, and none is skipped).
      await sql.query<UtxoRow & {listed_ts?: bigint}>(
        `SELECT DISTINCT ON (k.listed_ts, k.utxo_id) k.*
         FROM unnest(${addresses}::bytea[]) AS a(address)
         CROSS JOIN LATERAL (
           SELECT ${UTXO_COLUMNS}, ua.created_ts AS listed_ts
           FROM ${OWNED_UTXOS}
           WHERE ua.address = a.address AND ${where.join(" AND ")}${after ? ` AND (ua.created_ts, ua.utxo_id) ${desc ? "<" : ">"} (${after[0]}::int8, ${after[1]})` : ""}
           ORDER BY ua.created_ts ${dir}, ua.utxo_id ${dir} LIMIT ${limit}
         ) k
         ORDER BY k.listed_ts ${dir}, k.utxo_id ${dir} LIMIT ${limit}`,
        p.values,
      )
    : // By amount: every UTXO of the addresses that passes the filters, sorted.
      await sql.query<UtxoRow & {listed_ts?: bigint}>(
        `SELECT DISTINCT ON (u.amount, u.utxo_id) ${UTXO_COLUMNS}
         FROM ${OWNED_UTXOS}
         WHERE ua.address = ANY(${addresses}::bytea[]) AND ${where.join(" AND ")}${after ? ` AND (u.amount, u.utxo_id) ${desc ? "<" : ">"} (${after[0]}::numeric, ${after[1]})` : ""}
         ORDER BY u.amount ${dir}, u.utxo_id ${dir} LIMIT ${limit}`,
        p.values,
      );
  const more = rows.length > args.pageSize;
  const items = rows.slice(0, args.pageSize);
  if (!more) return {items};
  const last = items[items.length - 1];
  return {items, nextCursor: `${String(byTime ? last.listed_ts : last.amount)}:${last.utxo_id}`};
}

/** The P-chain UTXOs of addresses (Glacier `ListPChainUtxosResponse.utxos`). */
export async function listPChainUtxos(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: Omit<ListUtxosArgs, "chainId">,
): Promise<Page<PChainUtxo>> {
  const page = await listUtxoRows(sql, {...args, chainId: net.chainIds.P});
  const assets = await loadAssets(
    sql,
    page.items.flatMap((u) => (u.asset_id === null ? [] : [u.asset_id])),
  );
  const items = page.items.map((u) => pChainUtxoFromRow(u, net.hrp, assets));
  return page.nextCursor === undefined ? {items} : {items, nextCursor: page.nextCursor};
}

/**
 * The unspent UTXOs of the addresses on a chain or in its atomic memory (exported to it, not yet imported), summed
 * by asset, origin and what decides their kind at `now` (models/primary/balances.ts), in the order of each group's
 * first UTXO ID. A UTXO several of the addresses own counts once. The addresses' unspent UTXOs are found by
 * `unspent_owned` (schema 25), so the work is what they hold, not every UTXO they ever had; the answer holds a row
 * per group: an address with a million UTXOs of one asset answers a few rows.
 */
export async function balanceGroups(
  sql: SqlClientLike,
  chainId: string,
  addresses: Uint8Array[],
  now: number,
): Promise<BalanceGroup[]> {
  return groupsOf(
    sql,
    `u.utxo_id IN (SELECT o.utxo_id FROM unspent_owned o WHERE o.address = ANY($1::bytea[]))
     AND NOT EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.utxo_id) AND u.created_ts IS NOT NULL
     AND ((u.created_chain = $2 AND u.exported_to IS NULL) OR u.exported_to = $2)`,
    [addresses, chainId, now],
  );
}

/** The UTXOs that pass `where` (its last parameter is `now`), summed into BalanceGroups. */
async function groupsOf(sql: SqlClientLike, where: string, params: unknown[]): Promise<BalanceGroup[]> {
  const now = `$${params.length}::int8`;
  return sql.query<BalanceGroup>(
    `SELECT u.asset_id, u.created_chain, u.exported_to,
       COALESCE(u.staked AND u.staking_end > ${now}, false) AS staking, COALESCE(s.start_ts > ${now}, false) AS pending,
       COALESCE(u.locktime > ${now}, false) AS locked, COALESCE(u.stakeable_locktime > ${now}, false) AS stakeable_locked,
       sum(u.amount)::text AS amount, count(*)::int4 AS utxo_count
     FROM utxos u ${STAKER_JOIN}
     WHERE ${where}
     GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY min(u.utxo_id)`,
    params,
  );
}

async function balanceInputs(
  sql: SqlClientLike,
  chainId: string,
  args: {addresses: Uint8Array[]; now: number},
): Promise<{groups: BalanceGroup[]; assets: AssetInfo}> {
  const groups = await balanceGroups(sql, chainId, args.addresses, args.now);
  const assets = await loadAssets(
    sql,
    groups.flatMap((g) => (g.asset_id === null ? [] : [g.asset_id])),
  );
  return {groups, assets};
}

/** P-chain balances of addresses at `now` (Unix seconds). */
export async function getPChainBalances(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: {addresses: Uint8Array[]; now: number},
): Promise<PChainBalance> {
  const {groups, assets} = await balanceInputs(sql, net.chainIds.P, args);
  return pChainBalance(groups, net.chainIds.P, assets);
}

/** X-chain balances of addresses at `now`. */
export async function getXChainBalances(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: {addresses: Uint8Array[]; now: number},
): Promise<XChainBalances> {
  const {groups, assets} = await balanceInputs(sql, net.chainIds.X, args);
  return xChainBalances(groups, net.chainIds.X, assets);
}

/** C-chain atomic memory balances of addresses at `now`. */
export async function getCChainAtomicBalances(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: {addresses: Uint8Array[]; now: number},
): Promise<CChainAtomicBalances> {
  const {groups, assets} = await balanceInputs(sql, net.chainIds.C, args);
  return cChainAtomicBalances(groups, net.chainIds.C, assets);
}

/** The X-chain UTXOs of addresses (Glacier `ListUtxosResponse.utxos`); also the C-chain's imported ones. */
export async function listXChainUtxos(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: Omit<ListUtxosArgs, "chainId"> & {chain?: "X" | "C"},
): Promise<Page<Utxo>> {
  const page = await listUtxoRows(sql, {...args, chainId: net.chainIds[args.chain ?? "X"]});
  const assets = await loadAssets(
    sql,
    page.items.flatMap((u) => (u.asset_id === null ? [] : [u.asset_id])),
  );
  const items = page.items.map((u) => utxoFromRow(u, net.hrp, assets));
  return page.nextCursor === undefined ? {items} : {items, nextCursor: page.nextCursor};
}

/**
 * The last activity of the addresses on `chain` (Glacier `getLastActivityTimestampByAddresses`; chainkit's
 * `LastActivityTimestamp` names a transaction and a UTXO it created or consumed), or null. Bounded: each address's
 * ACTIVITY_SCAN newest transactions on the chain are looked at (tx_addresses' key (chain, address, seq), newest
 * first), never its whole history, and of those:
 * - the newest that emits or consumes a UTXO the address owns answers, with that UTXO (the one it emits when it
 *   does both);
 * - else (the address is named only as an owner a transaction sets, a reward or subnet owner, in all of them) the
 *   newest of them answers, with the first UTXO it emits, else the first it consumes.
 * On the C-chain every transaction is atomic and names an address as a UTXO's owner or as its EVM input or output
 * (rows.ts ownedAddresses): each one is the address's activity, an EVM address's included. The newest of the
 * addresses' answers wins.
 */
/** UTXO `u` is owned by address `a.address` (an entry of utxo_addresses' key). */
const OWNED_BY_A =
  "EXISTS (SELECT 1 FROM utxo_addresses ua" +
  " WHERE ua.address = a.address AND ua.created_ts = u.created_ts AND ua.utxo_id = u.utxo_id)";

/** How many of an address's newest transactions last activity looks at. */
export const ACTIVITY_SCAN = 32;

export async function lastActivity(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: {chain: "P" | "X" | "C"; addresses: Uint8Array[]},
): Promise<LastActivityTimestamp | null> {
  const created = "u.created_chain = $3 AND u.created_seq = t.seq AND (u.tx_id = t.tx_id OR u.reward_type IS NOT NULL)";
  const consumed = "sp.consumed_chain = $3 AND sp.consuming_height = t.block_height AND sp.consuming_tx = t.tx_id";
  const [row] = await sql.query<ActivityRow & {seq: bigint}>(
    `SELECT k.* FROM unnest($1::bytea[]) AS a(address)
     CROSS JOIN LATERAL (
       SELECT t.seq, t.tx_id, t.ts, t.block_height, x.utxo_id, x.consumed
       FROM (SELECT ta.seq FROM tx_addresses ta WHERE ta.chain = $2 AND ta.address = a.address
             ORDER BY ta.seq DESC LIMIT $5) ta
       JOIN txs t ON t.chain = $2 AND t.seq = ta.seq
       CROSS JOIN LATERAL (
         (SELECT u.utxo_id, false AS consumed, true AS owned FROM utxos u WHERE ${created} AND ${OWNED_BY_A}
          ORDER BY u.output_index LIMIT 1)
         UNION ALL
         (SELECT sp.utxo_id, true, true FROM utxo_spends sp JOIN utxos u ON u.utxo_id = sp.utxo_id
          WHERE ${consumed} AND ${OWNED_BY_A}
          ORDER BY sp.utxo_id LIMIT 1)
         UNION ALL
         (SELECT u.utxo_id, false, $4::bool FROM utxos u WHERE ${created} ORDER BY u.output_index LIMIT 1)
         UNION ALL
         (SELECT sp.utxo_id, true, $4::bool FROM utxo_spends sp WHERE ${consumed} ORDER BY sp.utxo_id LIMIT 1)
         LIMIT 1
       ) x
       ORDER BY x.owned DESC, ta.seq DESC LIMIT 1
     ) k
     ORDER BY k.seq DESC LIMIT 1`,
    [args.addresses, args.chain, net.chainIds[args.chain], args.chain === "C", ACTIVITY_SCAN],
  );
  if (row === undefined) return null;
  const chainName = args.chain === "P" ? "p-chain" : args.chain === "X" ? "x-chain" : "c-chain";
  return lastActivityFromRow(row, chainName, net.networkName);
}
