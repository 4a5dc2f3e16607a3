// Figures for the index on a realistic workload: BENCH_INGEST_N incompressible 1 KiB containers (random bytes, as
// hashes, signatures and keys are: LevelDB's compression cannot shrink them) spread round robin over every index
// endpoint (P/block, C/block, X/block, X/tx, X/vtx). File-feed ingest (containers/s, RSS after N); then
// index.getContainerByIndex against the bare reference at 10 and 16 connections, a random endpoint and index per
// request (the headline: what a crawler or an explorer's history page costs) beside the same container again and
// again (cache hit); getContainerRange(1024 × 1 KiB) p99 at 4 connections, random and same range.
import {randomFillSync} from "node:crypto";
import {createWriteStream, mkdtempSync, readFileSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {CONNECTION_SET, RUNS, compare, load, median, rpcOnce, startAvaext, startBare} from "./lib.mjs";

const N = Number(process.env.BENCH_INGEST_N ?? 1_000_000);
const SIZE = 1024;
const ENDPOINTS = [
  ["P", "block"],
  ["C", "block"],
  ["X", "block"],
  ["X", "tx"],
  ["X", "vtx"],
];
/** Containers each endpoint holds after the feed (round robin: the first N % 5 endpoints hold one more). */
const perEndpoint = (e) => Math.floor(N / ENDPOINTS.length) + (e < N % ENDPOINTS.length ? 1 : 0);

/** Writes N feed lines of SIZE random bytes, endpoint after endpoint; returns the path. */
async function writeFeed(dir, n) {
  const file = path.join(dir, "feed.ndjson");
  const out = createWriteStream(file);
  const body = Buffer.alloc(SIZE);
  for (let i = 0; i < n; i++) {
    randomFillSync(body);
    const [chain, kind] = ENDPOINTS[i % ENDPOINTS.length];
    const ok = out.write(`{"chain":"${chain}","kind":"${kind}","bytes":"0x${body.toString("hex")}"}\n`);
    if (!ok) await new Promise((r) => out.once("drain", r));
  }
  await new Promise((r) => out.end(r));
  return file;
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Containers held by all endpoints: five small RPCs (a /ext/metrics scrape 20 times a second cost the ingest ~10 %). */
async function indexed(url) {
  const body = JSON.stringify({jsonrpc: "2.0", id: 1, method: "index.getLastAccepted", params: {encoding: "hex"}});
  const counts = await Promise.all(
    ENDPOINTS.map(async ([chain, kind]) => {
      const res = await fetch(`${url}/ext/index/${chain}/${kind}`, {
        method: "POST",
        headers: {"content-type": "application/json"},
        body,
      });
      const index = (await res.json()).result?.index;
      return index === undefined ? 0 : Number(index) + 1;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** One ingest run: start avaext on the feed, time from the first container to the N-th. */
async function ingestOnce(feed) {
  const node = await startAvaext(["--index-enabled", `--feed=file:${feed}`, "--health-check-frequency=5s"]);
  try {
    let t0 = null;
    let count = 0;
    const deadline = Date.now() + 15 * 60_000;
    while (count < N && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      count = await indexed(node.url);
      if (t0 === null && count > 0) t0 = {t: performance.now(), count};
    }
    const seconds = (performance.now() - t0.t) / 1000;
    return {rate: (count - t0.count) / seconds, rss: rssMb(node.child.pid), count, node};
  } catch (e) {
    await node.stop();
    throw e;
  }
}

const rpcBody = (method, params) => JSON.stringify({jsonrpc: "2.0", id: 1, method, params});
const JSON_POST = {method: "POST", headers: {"content-type": "application/json"}};

/** A request generator: a random endpoint, and a random index (or range start) within what it holds. */
function randomRequests(method, params) {
  return [
    {
      setupRequest: (req) => {
        const e = Math.floor(Math.random() * ENDPOINTS.length);
        const [chain, kind] = ENDPOINTS[e];
        return {...req, path: `/ext/index/${chain}/${kind}`, body: rpcBody(method, params(perEndpoint(e)))};
      },
    },
  ];
}

export async function benchIndex() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-index-"));
  const rows = [];
  try {
    console.error(`writing a feed of ${N} × ${SIZE} B random containers over ${ENDPOINTS.length} endpoints...`);
    const feed = await writeFeed(dir, N);
    const rates = [];
    const rss = [];
    let keep = null;
    for (let i = 0; i < RUNS; i++) {
      const r = await ingestOnce(feed);
      rates.push(r.rate);
      rss.push(r.rss);
      console.error(
        `ingest run ${i + 1}: ${Math.round(r.rate)} containers/s, RSS ${r.rss.toFixed(0)} MB after ${r.count}`,
      );
      // The last run's node serves the read benchmarks on its full index.
      if (i === RUNS - 1) keep = r.node;
      else await r.node.stop();
    }
    rows.push({
      name: `file-feed ingest, ${SIZE} B random containers over 5 endpoints`,
      value: `${Math.round(median(rates)).toLocaleString("en-US")} containers/s`,
      reference: "target ≥ 50,000",
      ratio: "-",
    });
    rows.push({
      name: `RSS after indexing ${N.toLocaleString("en-US")} containers`,
      value: `${median(rss).toFixed(0)} MB`,
      reference: "target < 250 MB",
      ratio: "-",
    });

    try {
      // The same container every time (cache hit): X/tx, an index it holds.
      const hot = Math.min(12345, perEndpoint(3) - 1);
      const hotUrl = `${keep.url}/ext/index/X/tx`;
      const byIndex = rpcBody("index.getContainerByIndex", {index: hot, encoding: "hex"});
      const answer = await rpcOnce(hotUrl, "index.getContainerByIndex", {index: hot, encoding: "hex"});
      const bare = await startBare(answer);
      try {
        for (const connections of CONNECTION_SET) {
          // The headline: a random endpoint and index per request, so nearly every read misses the cache. The
          // reference answers the same body and is driven by the same generator (building a body per request
          // costs autocannon CPU on the shared cores).
          const random = randomRequests("index.getContainerByIndex", (n) => ({
            index: Math.floor(Math.random() * n),
            encoding: "hex",
          }));
          rows.push(
            await compare(
              `index.getContainerByIndex, 1 KiB, random endpoint and index, ${connections} connections`,
              {url: keep.url, ...JSON_POST, requests: random, connections},
              {url: bare.url, ...JSON_POST, requests: random, connections},
            ),
          );
          rows.push(
            await compare(
              `index.getContainerByIndex, 1 KiB, same index (cache hit), ${connections} connections`,
              {url: hotUrl, ...JSON_POST, body: byIndex, connections},
              {url: bare.url, ...JSON_POST, body: byIndex, connections},
            ),
          );
        }
      } finally {
        await bare.stop();
      }
      // getContainerRange of 1024 × 1 KiB at 4 connections: the p99 latency is the figure.
      const rangeRow = async (name, opts) => {
        const p99s = [];
        const rps = [];
        for (let i = 0; i < RUNS; i++) {
          const r = await load({...JSON_POST, connections: 4, ...opts});
          p99s.push(r.p99);
          rps.push(r.rps);
        }
        rows.push({
          name,
          value: `p99 ${median(p99s).toFixed(1)} ms (${Math.round(median(rps))} req/s)`,
          reference: "target p99 < 100 ms",
          ratio: "-",
        });
      };
      await rangeRow("getContainerRange 1024 × 1 KiB, 4 connections, random endpoint and range", {
        url: keep.url,
        requests: randomRequests("index.getContainerRange", (n) => ({
          startIndex: Math.floor(Math.random() * Math.max(1, n - 1024)),
          numToFetch: 1024,
          encoding: "hex",
        })),
      });
      const start = Math.max(0, Math.min(5000, perEndpoint(3) - 1024));
      await rangeRow("getContainerRange 1024 × 1 KiB, 4 connections, same range (cache hit)", {
        url: hotUrl,
        body: rpcBody("index.getContainerRange", {startIndex: start, numToFetch: 1024, encoding: "hex"}),
      });
    } finally {
      await keep.stop();
    }
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
  return rows;
}
