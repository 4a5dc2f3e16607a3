/**
 * The genesis thread (genesisThread.ts): opens the new store with PGlite on this thread, migrates it, records its
 * network and folds the genesis as the primary view folds it on a new store (its load()), then closes the store
 * and ends. A failure is thrown: the thread's error event carries it to the process. These are the first steps of
 * DataApiService.init for a writer on PGlite (service.ts; the writer epoch is a server's only): a step added there
 * that a new store needs before its genesis belongs here too.
 */
import {Writable} from "node:stream";
import {workerData} from "node:worker_threads";
import {buildGenesis} from "../genesis/build.js";
import {LoggerRegistry} from "../logger/index.js";
import {openSqlClient} from "./store/client.js";
import {asWriter} from "./store/lock.js";
import {migrate} from "./store/migrations.js";
import {MIGRATIONS} from "./store/schema.js";
import {PrimaryView, defaultPrimaryViewOptions} from "./views/primary/view.js";
import type {GenesisThreadInit} from "./genesisThread.js";

const init = workerData as GenesisThreadInit;
// The thread logs nothing of its own (the process's loggers and their settings are not here): the process logs the
// fold with its time, and a failure is the thread's error.
const silent = new Writable({write: (_chunk, _enc, cb): void => cb()});
const logger = new LoggerRegistry({logDir: null, logLevel: "OFF", displayLevel: "OFF", displayStream: silent}).get(
  "genesis",
);

const sql = await openSqlClient(
  {url: "embedded", dataDir: init.dataDir, pgliteThread: false, pgliteSharedBuffersMb: init.sharedBuffersMb},
  {logger},
);
try {
  await asWriter(
    sql,
    {dataDir: init.dataDir, network: init.network},
    () => migrate(sql, MIGRATIONS, {logger}),
    async () => {
      const config = init.config;
      const view = new PrimaryView(defaultPrimaryViewOptions, {
        index: null,
        sql,
        network: init.network,
        genesis: () => buildGenesis(config).state,
        avaxAssetId: init.avaxAssetId,
        logger,
        metrics: null,
      });
      await view.load();
      // The planner's statistics of the tables the fold filled, so the process's first reads are planned on them.
      await sql.query("ANALYZE");
    },
  );
} finally {
  await sql.close();
}
