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
import type {SqlClient} from "./store/sql.js";
import {asWriter} from "./store/lock.js";
import {dropDataApiTables, restore, setAside, tableExists, webhooksFromHere} from "./store/keptTables.js";
import {migrate} from "./store/migrations.js";
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

/** Drops the store's tables and makes them again by the migrations, the kept tables' rows copied across. */
export async function remakeTables(sql: SqlClient, logger: Logger): Promise<void> {
  const kept = await sql.transaction(async (tx) => {
    // The blocks' rows of the outbox become their messages, which are kept: a refold would meet a kept block's row
    // with its own and keep only one (views/evm/webhookOutbox.ts).
    if (await tableExists(tx, "webhook_outbox_blocks")) while ((await expandOutboxBlocks(tx, 1_000)).blocks > 0);
    await webhooksFromHere(tx);
    const kept = await setAside(tx);
    await dropDataApiTables(tx);
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
