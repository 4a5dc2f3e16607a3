/**
 * `avaext data-api rebuild`: everything the data API stores is derived, so it can be dropped and folded again from
 * the container index without touching the feed (after a schema change, or to recover from a bad store). Takes
 * the writer lock first: a running ingest process makes it refuse.
 */
import path from "node:path";
import type {NetworkInfo} from "../chains/index.js";
import type {IndexStore} from "../index/store.js";
import type {Logger} from "../logger/index.js";
import {openSqlClient} from "./store/client.js";
import {acquireWriterLock} from "./store/lock.js";
import {MIGRATIONS_TABLE, migrate} from "./store/migrations.js";
import {MIGRATIONS} from "./store/schema.js";
import {checkStoreNetwork} from "./store/network.js";
import type {GenesisState} from "./views/primary/model.js";
import {PrimaryView, defaultPrimaryViewOptions} from "./views/primary/view.js";

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

/** The tables the migrations create, to drop before folding again. */
export function dataApiTables(): string[] {
  const names = MIGRATIONS.flatMap((m) => [...m.sql.matchAll(/CREATE TABLE (\w+)/g)].map((x) => x[1]!));
  return [...names, MIGRATIONS_TABLE];
}

export async function rebuildDataApi(opts: RebuildOptions, modules: RebuildModules): Promise<{containers: number; seconds: number}> {
  const started = Date.now();
  const dataDir = opts.db === "embedded" ? path.join(opts.dataDir, "data-api") : null;
  const sql = await openSqlClient({url: opts.db, dataDir, pgliteSharedBuffersMb: opts.pgliteSharedBuffersMb}, {logger: modules.logger});
  try {
    const lock = await acquireWriterLock(sql, {dataDir});
    try {
      // A store of another network is refused, not dropped.
      await checkStoreNetwork(sql, modules.network, {record: false});
      await sql.transaction(async (tx) => {
        for (const t of dataApiTables()) await tx.query(`DROP TABLE IF EXISTS ${t} CASCADE`);
      });
      await migrate(sql, MIGRATIONS, {logger: modules.logger});
      await checkStoreNetwork(sql, modules.network, {record: true});
      const view = new PrimaryView(defaultPrimaryViewOptions, {...modules, sql, metrics: null});
      await view.load();
      const containers = await view.catchUp();
      await view.close();
      return {containers, seconds: (Date.now() - started) / 1000};
    } finally {
      await lock.release();
    }
  } finally {
    await sql.close();
  }
}
