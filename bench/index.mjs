// Figures for the index (issue 4): file-feed ingest of 1 KiB containers (containers/s, RSS after N),
// index.getContainerByIndex against the bare reference, and getContainerRange(1024 × 1 KiB) p99 at 4 connections.
import {createHash} from "node:crypto";
import {createWriteStream, mkdtempSync, readFileSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {CONNECTIONS, RUNS, compare, load, median, rpcOnce, startAvaext, startBare} from "./lib.mjs";

const N = Number(process.env.BENCH_INGEST_N ?? 1_000_000);
const SIZE = 1024;

/** Writes N feed lines of SIZE-byte containers (X/tx), returns the path. */
async function writeFeed(dir, n) {
  const file = path.join(dir, "feed.ndjson");
  const out = createWriteStream(file);
  const seed = createHash("sha256").update("bench").digest();
  const body = Buffer.alloc(SIZE);
  for (let o = 0; o < SIZE; o += 32) seed.copy(body, o);
  for (let i = 0; i < n; i++) {
    // Distinct containers: the first 8 bytes carry the line number.
    body.writeBigUInt64BE(BigInt(i), 0);
    const ok = out.write(`{"chain":"X","kind":"tx","bytes":"0x${body.toString("hex")}"}\n`);
    if (!ok) await new Promise((r) => out.once("drain", r));
  }
  await new Promise((r) => out.end(r));
  return file;
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Containers held by X/tx: one small RPC (a /ext/metrics scrape 20 times a second cost the ingest ~10 %). */
async function indexed(url) {
  const body = JSON.stringify({jsonrpc: "2.0", id: 1, method: "index.getLastAccepted", params: {encoding: "hex"}});
  const res = await fetch(`${url}/ext/index/X/tx`, {method: "POST", headers: {"content-type": "application/json"}, body});
  const index = (await res.json()).result?.index;
  return index === undefined ? 0 : Number(index) + 1;
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

export async function benchIndex() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-index-"));
  const rows = [];
  try {
    console.error(`writing a feed of ${N} × ${SIZE} B containers...`);
    const feed = await writeFeed(dir, N);
    const rates = [];
    const rss = [];
    let keep = null;
    for (let i = 0; i < RUNS; i++) {
      const r = await ingestOnce(feed);
      rates.push(r.rate);
      rss.push(r.rss);
      console.error(`ingest run ${i + 1}: ${Math.round(r.rate)} containers/s, RSS ${r.rss.toFixed(0)} MB after ${r.count}`);
      // The last run's node serves the read benchmarks on its full index.
      if (i === RUNS - 1) keep = r.node;
      else await r.node.stop();
    }
    rows.push({name: `file-feed ingest, ${SIZE} B containers`, value: `${Math.round(median(rates)).toLocaleString("en-US")} containers/s`, reference: "target ≥ 50,000", ratio: "-"});
    rows.push({name: `RSS after indexing ${N.toLocaleString("en-US")} containers`, value: `${median(rss).toFixed(0)} MB`, reference: "target < 250 MB", ratio: "-"});

    const url = `${keep.url}/ext/index/X/tx`;
    try {
      const byIndex = JSON.stringify({jsonrpc: "2.0", id: 1, method: "index.getContainerByIndex", params: {index: 12345, encoding: "hex"}});
      const answer = await rpcOnce(url, "index.getContainerByIndex", {index: 12345, encoding: "hex"});
      const bare = await startBare(answer);
      try {
        rows.push(
          await compare(
            "index.getContainerByIndex (1 KiB, same index: cache hit)",
            {url, method: "POST", headers: {"content-type": "application/json"}, body: byIndex},
            {url: bare.url, method: "POST", headers: {"content-type": "application/json"}, body: byIndex},
          ),
        );
        // Uncached: a random index over the whole index on every request. The reference answers the same body and
        // is driven by the same generator (building a body per request costs autocannon CPU on the shared cores).
        const randomBody = () => JSON.stringify({jsonrpc: "2.0", id: 1, method: "index.getContainerByIndex", params: {index: Math.floor(Math.random() * N), encoding: "hex"}});
        const random = [{setupRequest: (req) => ({...req, body: randomBody()})}];
        rows.push(
          await compare(
            "index.getContainerByIndex (1 KiB, random index, uncached)",
            {url, method: "POST", headers: {"content-type": "application/json"}, requests: random},
            {url: bare.url, method: "POST", headers: {"content-type": "application/json"}, requests: random},
          ),
        );
      } finally {
        await bare.stop();
      }
      // getContainerRange of 1024 × 1 KiB at 4 connections: the p99 latency is the figure.
      const range = JSON.stringify({jsonrpc: "2.0", id: 1, method: "index.getContainerRange", params: {startIndex: 5000, numToFetch: 1024, encoding: "hex"}});
      const p99s = [];
      const rps = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await load({url, method: "POST", headers: {"content-type": "application/json"}, body: range, connections: 4});
        p99s.push(r.p99);
        rps.push(r.rps);
      }
      rows.push({name: "getContainerRange 1024 × 1 KiB, 4 connections, same range (cache hit)", value: `p99 ${median(p99s).toFixed(1)} ms (${Math.round(median(rps))} req/s)`, reference: "target p99 < 100 ms", ratio: "-"});
      const randomRange = () =>
        JSON.stringify({jsonrpc: "2.0", id: 1, method: "index.getContainerRange", params: {startIndex: Math.floor(Math.random() * (N - 1024)), numToFetch: 1024, encoding: "hex"}});
      const p99r = [];
      const rpsr = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await load({url, method: "POST", headers: {"content-type": "application/json"}, requests: [{setupRequest: (req) => ({...req, body: randomRange()})}], connections: 4});
        p99r.push(r.p99);
        rpsr.push(r.rps);
      }
      rows.push({name: "getContainerRange 1024 × 1 KiB, 4 connections, random ranges (uncached)", value: `p99 ${median(p99r).toFixed(1)} ms (${Math.round(median(rpsr))} req/s)`, reference: "target p99 < 100 ms", ratio: "-"});
    } finally {
      await keep.stop();
    }
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
  void CONNECTIONS;
  return rows;
}
