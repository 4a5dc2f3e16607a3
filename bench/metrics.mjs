// The metrics service's /v2 (issue 48) on a large store, and what its rollups cost the EVM fold:
// 0. Fold cost, the follower's: the EVM follower folds one anvil history (bench/evmHistory.mjs, BENCH_METRICS_FOLLOW_BLOCKS
//    blocks (default 1,000) of 20 transactions) from its RPC into fresh stores, with the rollups and without
//    (`rollups: false`), alternating, BENCH_RUNS times each on PGlite and on PostgreSQL: medians of the rates.
// 1. Fold cost, the write's: the first BENCH_METRICS_FOLD_TXS (default 200,000) synthetic transactions (bench/evmLists.mjs's
//    chain, blocks of 20) written through writeBlocks, 100 blocks a SQL transaction, into two fresh PostgreSQL
//    stores of one server: one without the rollups (`rollups: false`), one with them, the same blocks to both, the
//    two alternating batch by batch (which goes first alternating too) so the machine's load falls on both alike.
//    The figure is the write alone (no RPC, no decoding), so the rollups' share of a real fold is smaller.
// 2. Reads: the store with rollups filled to BENCH_METRICS_TXS (default 1,000,000) transactions over 90 days (a
//    block every 155.5 s), ANALYZE, then the real server (`avaext --data-api-role serve`) answers
//    /v2/chains/{id}/metrics/{metric}: every metric at every interval it allows, each with pageSize=2160 over the
//    whole history, timed one request at a time (median of 5); then a set of them under autocannon at 8
//    connections, BENCH_RUNS runs of BENCH_SECONDS, medians of p50 and p99.
import {chmodSync, mkdtempSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {LoggerRegistry} from "../dist/src/logger/index.js";
import {openSqlClient} from "../dist/src/dataApi/store/client.js";
import {migrate} from "../dist/src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../dist/src/dataApi/store/schema.js";
import {writeBlocks} from "../dist/src/dataApi/views/evm/write.js";
import {CHAIN_METRICS, dayOnly} from "../dist/src/dataApi/queries/metrics.js";
import {GRAINS} from "../dist/src/util/timeBuckets.js";
import {RUNS, fmt, latency, median, startAvaext} from "./lib.mjs";
import {syntheticChain} from "./evmLists.mjs";
import {GENESIS, followOnce, startAnvil, startPostgres} from "./evm.mjs";
import {buildHistory} from "./evmHistory.mjs";

const FOLLOW_BLOCKS = Number(process.env.BENCH_METRICS_FOLLOW_BLOCKS ?? 1000);

/** Part 0: the follower with and without the rollups, on one history, alternating. */
async function followerCost({root, pgServer}) {
  const rows = [];
  if (FOLLOW_BLOCKS <= 0) return rows;
  const anvil = await startAnvil(FOLLOW_BLOCKS + 100);
  try {
    const built = await buildHistory({
      url: anvil.url,
      blocks: FOLLOW_BLOCKS,
      txsPerBlock: TXS_PER_BLOCK,
      genesisTimestamp: GENESIS,
      icmShare: 0,
    });
    console.error(`history: ${FOLLOW_BLOCKS} blocks, ${built.txs} txs in ${fmt(built.seconds, 1)} s`);
    for (const backend of ["pglite", "postgres"]) {
      const rates = {with: [], without: []};
      for (let r = 0; r < RUNS; r++) {
        for (const rollups of r % 2 === 0 ? [false, true] : [true, false]) {
          const dbUrl = backend === "postgres" ? await pgServer.database() : "embedded";
          const dataDir = backend === "postgres" ? null : path.join(root, `pglite-${r}-${rollups}`);
          const x = await followOnce({rpcUrl: anvil.url, dbUrl, dataDir, head: FOLLOW_BLOCKS, rollups});
          rates[rollups ? "with" : "without"].push(x.txsPerS);
          console.error(
            `follower ${backend} ${rollups ? "with" : "without"} rollups, run ${r + 1}: ${fmt(x.txsPerS)} tx/s`,
          );
        }
      }
      const w = median(rates.with);
      const wo = median(rates.without);
      const cost = 1 - w / wo;
      rows.push({
        name: `EVM follower into ${backend === "pglite" ? "PGlite" : "PostgreSQL"} with the metrics rollups (${FOLLOW_BLOCKS} blocks × ${TXS_PER_BLOCK} txs from anvil), alternating with it without`,
        value: `${fmt(w)} tx/s`,
        reference: `${fmt(wo)} tx/s without rollups`,
        ratio: `${fmt(cost * 100, 1)} % slower (${cost < 0.1 ? "< 10 %" : "MISSES 10 %"})`,
      });
    }
  } finally {
    await anvil.stop();
  }
  return rows;
}

const TXS = Number(process.env.BENCH_METRICS_TXS ?? 1_000_000);
const FOLD_TXS = Math.min(TXS, Number(process.env.BENCH_METRICS_FOLD_TXS ?? 200_000));
const TXS_PER_BLOCK = 20;
const BLOCKS = Math.ceil(TXS / TXS_PER_BLOCK);
const WRITE_BATCH = 100;
const CHAIN_ID = "43112";
const CONNECTIONS = 8;
const DAYS = 90;
const START = Date.UTC(2026, 0, 1) / 1000;

/** The chain's blocks as the follower writes them: call traces are the trace lane's (writeBlocks refuses them). */
function headBlock(chain, n) {
  const b = chain.block(n);
  return {...b, internals: null};
}

async function openStore(pgServer, logger) {
  const url = await pgServer.database();
  const sql = await openSqlClient({url, dataDir: null}, {logger});
  await migrate(sql, MIGRATIONS, {logger});
  await sql.query("INSERT INTO evm_chains (chain_id, blockchain_id, updated_at, traces) VALUES ($1, NULL, 0, true)", [
    CHAIN_ID,
  ]);
  return {sql, url};
}

/** The section (`node bench/run.js metrics`): a PostgreSQL server of its own for the two stores. */
export async function benchMetrics() {
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-metrics-"));
  chmodSync(root, 0o755); // as root, the server runs as "postgres" and must reach its data directory
  let pgServer = null;
  try {
    pgServer = await startPostgres(path.join(root, "pg"));
    const rows = await followerCost({root, pgServer});
    if (process.env.BENCH_METRICS_ONLY_FOLLOWER) return rows;
    return [...rows, ...(await metricsFigures({pgServer}))];
  } finally {
    if (pgServer) await pgServer.stop();
    rmSync(root, {recursive: true, force: true});
  }
}

async function metricsFigures({pgServer}) {
  const rows = [];
  if (TXS <= 0) return rows;
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const logger = loggers.get("bench");
  const {sql: without} = await openStore(pgServer, logger);
  const {sql: withRollups, url} = await openStore(pgServer, logger);
  const chain = syntheticChain({secondsPerBlock: (DAYS * 86_400) / BLOCKS, start: START});
  const spent = {without: 0, with: 0};
  const cumulative = {without: 0n, with: 0n};
  const write = async (which, sql, blocks) => {
    const t0 = performance.now();
    cumulative[which] = await sql.transaction((tx) =>
      writeBlocks(tx, {chainId: CHAIN_ID, blockchainId: null, rollups: which === "with"}, blocks, cumulative[which]),
    );
    spent[which] += performance.now() - t0;
  };
  const foldBlocks = Math.ceil(FOLD_TXS / TXS_PER_BLOCK);
  const t0 = performance.now();
  for (let from = 0, i = 0; from < BLOCKS; from += WRITE_BATCH, i++) {
    const blocks = [];
    for (let n = from; n < Math.min(from + WRITE_BATCH, BLOCKS); n++) blocks.push(headBlock(chain, n));
    if (from < foldBlocks) {
      for (const which of i % 2 === 0 ? ["without", "with"] : ["with", "without"])
        await write(which, which === "with" ? withRollups : without, blocks);
    } else {
      await write("with", withRollups, blocks);
    }
    if (i % 50 === 0)
      console.error(
        `metrics store: ${from + blocks.length} of ${BLOCKS} blocks (${fmt((performance.now() - t0) / 1000)} s)`,
      );
    if (from + WRITE_BATCH >= foldBlocks && from < foldBlocks) {
      const rateWithout = FOLD_TXS / (spent.without / 1000);
      const rateWith = FOLD_TXS / (spent.with / 1000);
      const cost = 1 - rateWith / rateWithout;
      console.error(
        `fold: ${fmt(rateWith)} tx/s with rollups, ${fmt(rateWithout)} tx/s without: ${fmt(cost * 100, 1)} % slower`,
      );
      rows.push({
        name: `EVM fold (writeBlocks, PostgreSQL) with the metrics rollups, ${fmt(FOLD_TXS)} txs, alternating with the fold without`,
        value: `${fmt(rateWith)} tx/s`,
        reference: `${fmt(rateWithout)} tx/s without rollups`,
        ratio: `${fmt(cost * 100, 1)} % slower (${cost < 0.1 ? "< 10 %" : "MISSES 10 %"})`,
      });
    }
  }
  await without.close();
  await withRollups.query("ANALYZE");
  const [{size}] = await withRollups.query(
    "SELECT pg_total_relation_size('metrics_addr') + pg_total_relation_size('metrics_hours') + pg_total_relation_size('metrics_distinct') AS size",
  );
  await withRollups.close();
  rows.push({
    name: `Metrics rollups of ${fmt(TXS)} synthetic txs over ${DAYS} days`,
    value: `${fmt(Number(size) / 2 ** 20)} MiB`,
    reference: "tables metrics_*",
  });

  let node = null;
  try {
    node = await startAvaext([
      "--data-api-enabled",
      "--data-api-role=serve",
      `--data-api-db=${url}`,
      "--metrics-service-rate-limit=0",
    ]);
    const base = `${node.url}/v2/chains/${CHAIN_ID}/metrics`;
    const end = START + DAYS * 86_400;
    const path = (metric, grain) =>
      `${base}/${metric}?timeInterval=${grain}&pageSize=2160&startTimestamp=${START}&endTimestamp=${end}`;
    // Every series, one request at a time.
    const serial = [];
    for (const metric of CHAIN_METRICS) {
      for (const grain of GRAINS) {
        if (dayOnly(metric) && grain !== "day") continue;
        const times = [];
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          const res = await fetch(path(metric, grain));
          const body = await res.json();
          if (res.status !== 200 || !Array.isArray(body.results) || body.results.length === 0)
            throw new Error(`${metric} ${grain}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
          times.push(performance.now() - t);
        }
        serial.push({metric, grain, ms: median(times)});
      }
    }
    serial.sort((a, b) => b.ms - a.ms);
    const worst = serial[0];
    rows.push({
      name: `Metrics /v2 series, all ${serial.length} metric × interval pairs, pageSize 2160, one request at a time`,
      value: `median ${fmt(median(serial.map((s) => s.ms)), 1)} ms`,
      reference: `slowest ${worst.metric} by ${worst.grain}: ${fmt(worst.ms, 1)} ms`,
    });
    console.error(`serial: ${serial.map((s) => `${s.metric}/${s.grain} ${fmt(s.ms, 1)}`).join(", ")}`);
    const loaded = [
      ["txCount", "hour"],
      ["activeAddresses", "hour"],
      ["activeSenders", "hour"],
      ["activeAddresses", "day"],
      ["cumulativeAddresses", "day"],
      ["maxTps", "day"],
      ["activeAddresses", "week"],
      ["activeAddresses", "month"],
      [worst.metric, worst.grain],
    ];
    for (const [metric, grain] of loaded) {
      const url = path(metric, grain);
      await latency(url, {connections: CONNECTIONS}); // warm-up
      const xs = [];
      for (let r = 0; r < RUNS; r++) xs.push(await latency(url, {connections: CONNECTIONS}));
      const p99 = median(xs.map((x) => x.p99));
      const row = {
        name: `Metrics /v2 ${metric} by ${grain} (pageSize 2160), ${CONNECTIONS} connections`,
        value: `p50 ${fmt(median(xs.map((x) => x.p50)), 1)} ms, ${fmt(median(xs.map((x) => x.rps)))} req/s`,
        ratio: p99 < 50 ? "< 50 ms" : "MISSES 50 ms",
        p99: `p99 ${fmt(p99, 1)} ms`,
      };
      console.error(`${row.name}: ${row.value}, ${row.p99}`);
      rows.push(row);
    }
  } finally {
    if (node) await node.stop();
    await loggers.close();
  }
  return rows;
}
