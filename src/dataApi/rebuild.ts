/**
 * `avaext data-api rebuild`: everything the data API stores but the webhooks is derived, so it can be dropped and
 * folded again from the container index without touching the feed (after a schema change, or to recover from a bad
 * store). The webhooks (their addresses, secrets, outbox and delivery log) are users' data: they are copied aside,
 * the store made again, and copied back (the columns both versions have), so a rebuild keeps them; each webhook's
 * first event moves up to what was folded, so the refold sends none of the history again, and messages not yet
 * delivered are kept and go. Takes the writer lock first: a running ingest process makes it refuse.
 */
import path from "node:path";
import type {NetworkInfo} from "../chains/index.js";
import type {IndexStore} from "../containerIndex/store.js";
import type {Logger} from "../logger/index.js";
import {openSqlClient} from "./store/client.js";
import type {SqlClient, SqlTx} from "./store/sql.js";
import {asWriter} from "./store/lock.js";
import {MIGRATIONS_TABLE, migrate} from "./store/migrations.js";
import {MIGRATIONS, MOVE_WEBHOOK_KEYS} from "./store/schema.js";
import type {GenesisState} from "./views/primary/model.js";
import {PrimaryView, defaultPrimaryViewOptions} from "./views/primary/view.js";
import {expandOutboxBlocks} from "./views/evm/webhookOutbox.js";

export interface RebuildOptions {
  db: string;
  dataDir: string;
  /** PGlite's page cache, MiB (`--data-api-pglite-shared-buffers`); unused with a server. */
  pgliteSharedBuffersMb?: number;
}

export interface RebuildModules {
  index: IndexStore;
  network: NetworkInfo;
  /** Builds the network's genesis state (src/dataApi/genesis.ts), for a fresh store. */
  genesis: () => GenesisState;
  avaxAssetId: string;
  logger: Logger;
}

/** Kept across a rebuild: not derived from the chain (docs/operations/backups.md). Parents first. */
export const KEPT_TABLES: readonly string[] = [
  "webhooks",
  "webhook_addresses",
  "webhook_keys",
  "webhook_secrets",
  "webhook_outbox",
  "webhook_attempts",
];
const keptCopy = (t: string): string => `rebuild_kept_${t}`;

/** The tables the migrations create, to drop before folding again (the kept ones too: they are copied back). */
export function dataApiTables(): string[] {
  const names = MIGRATIONS.flatMap((m) => [...m.sql.matchAll(/CREATE TABLE (\w+)/g)].map((x) => x[1]!));
  return [...names, MIGRATIONS_TABLE];
}

/** Whether the store has the table (one made by a migration after the store's own may not be there yet). */
async function tableExists(tx: SqlTx, name: string): Promise<boolean> {
  const [r] = await tx.query<{t: string | null}>("SELECT to_regclass($1)::text AS t", [name]);
  return Boolean(r?.t);
}

/** Copies the kept tables aside (plain copies: no index or constraint whose name the migrations would reuse). */
async function setAside(tx: SqlTx): Promise<string[]> {
  const out: string[] = [];
  const exists = (name: string): Promise<boolean> => tableExists(tx, name);
  for (const t of KEPT_TABLES) {
    // A copy left by a rebuild that died before copying back is the data: kept as it is, copied back this time.
    if (await exists(keptCopy(t))) out.push(t);
    else if (await exists(t)) {
      await tx.query(`CREATE TABLE ${keptCopy(t)} AS SELECT * FROM ${t}`);
      out.push(t);
    }
  }
  return out;
}

/** Copies the kept tables back into the store made again, by the columns both have, and drops the copies. */
async function restore(tx: SqlTx, tables: readonly string[]): Promise<void> {
  for (const t of tables) {
    const cols = await tx.query<{c: string}>(
      `SELECT a.column_name AS c FROM information_schema.columns a
       JOIN information_schema.columns b ON b.column_name = a.column_name AND b.table_name = $2 AND b.table_schema = a.table_schema
       WHERE a.table_name = $1 AND a.table_schema = current_schema() ORDER BY a.ordinal_position`,
      [t, keptCopy(t)],
    );
    const list = cols.map((r) => `"${r.c}"`).join(", ");
    if (list) await tx.query(`INSERT INTO ${t} (${list}) SELECT ${list} FROM ${keptCopy(t)} ON CONFLICT DO NOTHING`);
    await tx.query(`DROP TABLE ${keptCopy(t)}`);
  }
}

/**
 * Each webhook's first event moves up to what the store had folded (EVM: the chain's head; P: its next height; X:
 * its next transaction in the view's order), so the refold sends it nothing it could have sent already. The kept
 * messages' IDs stopped a repeat too, but only while they are kept: past --webhooks-retention they are deleted, and
 * a refold would send those events again.
 */
async function webhooksFromHere(tx: SqlTx): Promise<void> {
  const [r] = await tx.query<{t: string | null}>("SELECT to_regclass('webhooks')::text AS t");
  if (!r?.t) return;
  await tx.query(`UPDATE webhooks h SET from_block = greatest(h.from_block, CASE
      WHEN h.event_type IN ('address_activity', 'icm_activity') THEN COALESCE((SELECT c.head_number + 1 FROM evm_chains c WHERE c.chain_id = h.chain_id), 0)
      WHEN h.chain_id = (SELECT value::jsonb ->> 'X' FROM data_api_meta WHERE key = 'network') THEN COALESCE((SELECT value::int8 + 1 FROM data_api_meta WHERE key = 'view.seq.X'), 0)
      ELSE COALESCE((SELECT max(height) + 1 FROM blocks WHERE chain = 'P'), 0) END)`);
}

/** Drops the store's tables and makes them again by the migrations, the kept tables' rows copied across. */
export async function remakeTables(sql: SqlClient, logger: Logger): Promise<void> {
  const kept = await sql.transaction(async (tx) => {
    // The blocks' rows of the outbox become their messages, which are kept: a refold would meet a kept block's row
    // with its own and keep only one (views/evm/webhookOutbox.ts).
    if (await tableExists(tx, "webhook_outbox_blocks")) while ((await expandOutboxBlocks(tx, 1_000)).blocks > 0);
    await webhooksFromHere(tx);
    const kept = await setAside(tx);
    for (const t of dataApiTables()) await tx.query(`DROP TABLE IF EXISTS ${t} CASCADE`);
    return kept;
  });
  await migrate(sql, MIGRATIONS, {logger});
  await sql.transaction(async (tx) => {
    await restore(tx, kept);
    // Webhooks kept from a store older than schema 23 still hold their keys in their metadata: the migration's move
    // ran on the emptied tables.
    for (const statement of MOVE_WEBHOOK_KEYS) await tx.query(statement);
  });
}

export async function rebuildDataApi(
  opts: RebuildOptions,
  modules: RebuildModules,
): Promise<{containers: number; seconds: number}> {
  const started = Date.now();
  const dataDir = opts.db === "embedded" ? path.join(opts.dataDir, "data-api") : null;
  const sql = await openSqlClient(
    {url: opts.db, dataDir, pgliteSharedBuffersMb: opts.pgliteSharedBuffersMb},
    {logger: modules.logger},
  );
  try {
    // A store of another network is refused, not dropped.
    return await asWriter(
      sql,
      {dataDir, network: modules.network},
      () => remakeTables(sql, modules.logger),
      async () => {
        const view = new PrimaryView(defaultPrimaryViewOptions, {...modules, sql, metrics: null});
        await view.load();
        const containers = await view.catchUp();
        await view.close();
        return {containers, seconds: (Date.now() - started) / 1000};
      },
    );
  } finally {
    await sql.close();
  }
}
