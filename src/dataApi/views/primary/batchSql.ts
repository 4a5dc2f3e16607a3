/**
 * The primary view's batch writer: the statements that write a batch's rows (batch.ts), its position and the view's
 * state, and the reads of the owners a batch's spends need and of the view's state at start. The view (view.ts)
 * runs them in the batch's transaction.
 */
import {arrayParam, insertSql, type BulkColumn, type BulkInsertOptions} from "../../store/bulk.js";
import type {SqlClient, SqlTx} from "../../store/sql.js";
import type {Batch, SpentOwned} from "./batch.js";
import {HOOKS_CHANGED, POSITION_MOVED} from "./foldError.js";
import {
  BLOCK_COLUMNS,
  TX_ADDRESS_COLUMNS,
  TX_COLUMNS,
  UTXO_ADDRESS_COLUMNS,
  UTXO_CONSUME_COLUMNS,
  UTXO_CREATE_COLUMNS,
  VERTEX_COLUMNS,
} from "./rows.js";

/**
 * The INSERTs of a batch's rows, their column arrays appended to `params`. A real chain never repeats a height, a
 * transaction or a UTXO, and plain INSERTs are what the fold can afford: ON CONFLICT DO NOTHING checks every unique
 * index before each row and inserts it speculatively, which took a third of a PostgreSQL server's CPU. An index
 * that does repeat one (a dev database from an older schedule) raises a unique violation, and that batch is
 * written again with `repeats`, keeping the first, rather than stopping the view.
 */
export function batchStatements(b: Batch, params: unknown[], repeats: boolean): string[] {
  // UTXOs and spends are keyed by hash indexes, which cannot be unique (migration 11): their repeats are skipped by ID.
  const skip = repeats ? {onConflict: "DO NOTHING"} : {};
  const skipById = repeats ? {absentKey: "utxo_id"} : {};
  const tables: Array<[string, readonly BulkColumn[], unknown[][], BulkInsertOptions]> = [
    ["blocks", BLOCK_COLUMNS, b.blocks, skip],
    ["vertices", VERTEX_COLUMNS, b.vertices, skip],
    ["txs", TX_COLUMNS, b.txs, skip],
    ["tx_addresses", TX_ADDRESS_COLUMNS, b.txAddresses, skip],
    ["asset_txs", ASSET_TX_COLUMNS, b.assetTxs, skip],
    ["assets", ASSET_COLUMNS, b.assets, skip],
    ["utxos", UTXO_CREATE_COLUMNS, b.utxoCreates, skipById],
    ["utxo_spends", UTXO_CONSUME_COLUMNS, [...b.utxoConsumes.values()], skipById],
    ["utxo_addresses", UTXO_ADDRESS_COLUMNS, b.utxoAddresses, skip],
  ];
  const statements = tables
    .filter(([, , rows]) => rows.length > 0)
    .map(([table, columns, rows, opts]) => insertSql(table, columns, rows, opts, params));
  const unspent = b.unspentOwned.filter((r) => !b.utxoConsumes.has(r[1]));
  if (unspent.length > 0) statements.push(unspentOwnedSql(unspent, params, repeats));
  if (b.supply.size > 0) statements.push(b.supply.upsertSql(params, repeats));
  if (b.webhooks.size > 0) statements.push(...b.webhooks.statements(params));
  return statements;
}

const ASSET_TX_COLUMNS: BulkColumn[] = [
  {name: "asset_id", type: "text"},
  {name: "seq", type: "int8"},
];
const META_COLUMNS: BulkColumn[] = [
  {name: "key", type: "text"},
  {name: "value", type: "text"},
];

/** The upsert of the view's state entries into `data_api_meta`. */
export function stateSql(entries: Array<[string, string]>, params: unknown[]): string {
  return insertSql(
    "data_api_meta",
    META_COLUMNS,
    entries,
    {onConflict: "(key) DO UPDATE SET value = EXCLUDED.value"},
    params,
  );
}

const ASSET_COLUMNS: BulkColumn[] = [
  {name: "asset_id", type: "text"},
  {name: "name", type: "text"},
  {name: "symbol", type: "text"},
  {name: "denomination", type: "int4"},
  {name: "asset_type", type: "text"},
  {name: "created_tx", type: "text"},
  {name: "created_ts", type: "int8"},
  {name: "cap", type: "numeric"},
];

/**
 * The `unspent_owned` rows (schema 25) of a batch's new UTXOs that it does not spend itself: [address, UTXO ID,
 * exported]. An exported UTXO may have been imported already (an import folded ahead of its export): it is left
 * out if so. With `repeats`, a UTXO the store holds already is left out too (its spend may have removed its rows;
 * the statement's snapshot does not see the UTXOs it writes itself). The spends remove their UTXOs' rows by key
 * (spentStatements).
 */
function unspentOwnedSql(
  rows: ReadonlyArray<readonly [Uint8Array, string, boolean]>,
  params: unknown[],
  repeats: boolean,
): string {
  const n = params.length;
  params.push(
    arrayParam(
      "bytea",
      rows.map((r) => r[0]),
    ),
    arrayParam(
      "text",
      rows.map((r) => r[1]),
    ),
    arrayParam(
      "bool",
      rows.map((r) => r[2]),
    ),
  );
  return `INSERT INTO unspent_owned (address, utxo_id)
    SELECT u.a, u.id FROM unnest($${n + 1}::bytea[], $${n + 2}::text[], $${n + 3}::bool[]) AS u(a, id, exported)
    WHERE NOT (u.exported AND EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.id))${
      repeats ? "\n      AND NOT EXISTS (SELECT 1 FROM utxos x WHERE x.utxo_id = u.id) ON CONFLICT DO NOTHING" : ""
    }`;
}

/**
 * The DELETE of unspent_owned `rows` by key (schema 27): one index probe a row. The view knows each spent UTXO's
 * owners (completeOwners), where a trigger on utxo_spends would read the UTXO's row and parse its owners again.
 */
export function spentOwnedSql(rows: readonly SpentOwned[], params: unknown[]): string {
  const n = params.length;
  params.push(
    arrayParam(
      "bytea",
      rows.map((r) => r[0]),
    ),
    arrayParam(
      "text",
      rows.map((r) => r[1]),
    ),
  );
  return `DELETE FROM unspent_owned o USING unnest($${n + 1}::bytea[], $${n + 2}::text[]) AS g(a, id)
    WHERE o.address = g.a AND o.utxo_id = g.id COLLATE "C"`;
}

/**
 * The owners of `utxoIds` from the store. A join with the IDs rather than `utxo_id = ANY($1)`: planned while the
 * table's statistics still say it is nearly empty (a store being filled: a cached plan, or before the first
 * ANALYZE), the ANY became a sequential scan testing every row against every ID, up to 250 ms a read (and
 * 10 of the 60-75 s of folding 300,000 transactions into a PostgreSQL server); the join hashes one side instead
 * when it does not look the IDs up in the index.
 */
export async function readOwners(tx: SqlTx, utxoIds: string[], out: Map<string, Uint8Array[]>): Promise<void> {
  if (utxoIds.length === 0) return;
  const rows = await tx.query<{utxo_id: string; addresses: string[] | string | null}>(
    "SELECT u.utxo_id, u.addresses FROM unnest($1::text[]) AS k(id) JOIN utxos u ON u.utxo_id = k.id WHERE u.addresses IS NOT NULL",
    [utxoIds],
  );
  for (const r of rows) {
    const list = typeof r.addresses === "string" ? (JSON.parse(r.addresses) as string[]) : (r.addresses ?? []);
    out.set(
      r.utxo_id,
      list.map((h) => Uint8Array.from(Buffer.from(h, "hex"))),
    );
  }
}

/** Each folded endpoint's position: the index of the next container it folds. */
export async function readPositions(sql: SqlClient): Promise<Array<{endpoint: string; nextIndex: bigint}>> {
  const rows = await sql.query<{endpoint: string; next_index: bigint | string}>(
    "SELECT endpoint, next_index FROM view_positions",
  );
  return rows.map((r) => ({endpoint: r.endpoint, nextIndex: BigInt(r.next_index)}));
}

/** A new store's positions, at the start of each endpoint. */
export async function insertPositions(tx: SqlTx, endpoints: readonly string[]): Promise<void> {
  for (const e of endpoints) await tx.query("INSERT INTO view_positions (endpoint, next_index) VALUES ($1, 0)", [e]);
}

/**
 * A batch's move of its endpoint's position, the first statement of its batch ($1 the endpoint, $2 the batch's
 * start, $3 its end, $4 the count of webhook changes it was built with, null on C). The condition is checked first
 * against the statement's snapshot, in which the position is at most the batch's start while the batches ahead are
 * in flight: the row matches, the update waits for their lock, and then checks the condition and computes the
 * position again on the committed row. A position past the start (the batch was folded already) matches no row; one
 * before it (the statement ahead rolled back or has not reached the row yet) is kept, and is not the batch's end:
 * POSITION_CHECK_SQL raises for both. So it does for a count of webhook changes other than $4, checked on the
 * committed row too: a webhook made meanwhile (schema 26).
 */
export const POSITION_MOVE_SQL =
  "UPDATE view_positions SET next_index = CASE WHEN next_index = $2::int8 AND ($4::int8 IS NULL OR webhooks = $4::int8) THEN $3::int8 ELSE next_index END " +
  "WHERE endpoint = $1::text AND next_index <= $2::int8 RETURNING next_index, webhooks";

/**
 * The main query of a batch's statement (bulk.ts runTogether): it reads POSITION_MOVE_SQL's CTE (w0), so
 * PostgreSQL runs that before the others, and fails the statement, writing nothing, unless the position moved to the
 * batch's end. The ELSE branch names a column, so that it is not folded (and raised) when the statement is planned.
 */
export const POSITION_CHECK_SQL =
  `SELECT CASE WHEN moved.n = 1 THEN 1 WHEN moved.h > 0 THEN ('${HOOKS_CHANGED}: ' || moved.h)::int4 ELSE ('${POSITION_MOVED}: ' || moved.n)::int4 END ` +
  `FROM (SELECT count(*) FILTER (WHERE next_index = $3::int8) AS n, ` +
  `count(*) FILTER (WHERE next_index = $2::int8 AND webhooks IS DISTINCT FROM $4::int8 AND $4::int8 IS NOT NULL) AS h FROM w0) AS moved`;

export async function hasMeta(sql: SqlClient, key: string): Promise<boolean> {
  return (await sql.query("SELECT 1 FROM data_api_meta WHERE key = $1", [key])).length > 0;
}

/** The view's state entries (`view.*`: counters, staking state, late spends), by key. */
export async function readViewMeta(sql: SqlClient): Promise<Map<string, string>> {
  const meta = await sql.query<{key: string; value: string}>(
    "SELECT key, value FROM data_api_meta WHERE key LIKE 'view.%'",
  );
  return new Map(meta.map((r) => [r.key, r.value]));
}

export async function setMeta(tx: SqlTx, key: string, value: string): Promise<void> {
  await tx.query(
    "INSERT INTO data_api_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
    [key, value],
  );
}
