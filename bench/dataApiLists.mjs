// Latency of the primary-network list endpoints over HTTP on a store the view built (issue 17: p99 < 50 ms at
// 8 connections, first page and page 1,000 alike). Run by bench/dataApi.mjs on each backend's store after its
// ingest: a real avaext (`--data-api-role=serve`) answers on that store, autocannon asks each list's page 1 and its
// page 1,000 (reached by following nextPageToken), BENCH_RUNS runs of BENCH_SECONDS each, medians reported.
import {writeFileSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {RUNS, deepPage, fmt, latency, median, startAvaext} from "./lib.mjs";
import {formatAddress} from "../dist/src/dataApi/server/names.js";

const CONNECTIONS = 8;
const DEEP = 1000;

/**
 * `flags` open the store (`--data-api-db=...`, and `--data-dir` for PGlite); `address` is a history owner's
 * 20-byte short ID (random spends make every owner about as busy as another); `assetId` the history's asset.
 */
export async function benchLists({label, flags, dataDir, address, assetId}) {
  // No feed: the server only answers from the store.
  const empty = path.join(os.tmpdir(), "avaext-bench-empty-feed.ndjson");
  writeFileSync(empty, "");
  const node = await startAvaext(
    [
      "--data-api-enabled",
      "--data-api-role=serve",
      "--data-api-rate-limit=0",
      "--network-id=local",
      `--feed=file:${empty}`,
      ...flags,
    ],
    {dataDir},
  );
  const rows = [];
  try {
    const x = `${node.url}/v1/networks/local/blockchains/x-chain`;
    const a = formatAddress(address, "local");
    const lists = {
      "X blocks (16)": `${x}/blocks?pageSize=10`,
      "X transactions (5)": `${x}/transactions?pageSize=10`,
      "X transactions of an address (5)": `${x}/transactions?pageSize=10&addresses=${a}`,
      "asset transactions (4)": `${x}/assets/${assetId}/transactions?pageSize=10`,
      "UTXOs of an address, spent included": `${x}/utxos?pageSize=10&addresses=${a}&includeSpent=true`,
    };
    for (const [name, first] of Object.entries(lists)) {
      const deep = await deepPage(first, DEEP);
      await latency(first, {connections: CONNECTIONS}); // warm-up
      for (const [url, page] of [
        [first, 1],
        [deep.url, deep.page],
      ]) {
        const xs = [];
        for (let r = 0; r < RUNS; r++) xs.push(await latency(url, {connections: CONNECTIONS}));
        const p99 = median(xs.map((v) => v.p99));
        const row = {
          name: `${label}: list ${name}, page ${fmt(page)}, ${CONNECTIONS} connections`,
          value: `p50 ${fmt(median(xs.map((v) => v.p50)), 1)} ms, ${fmt(median(xs.map((v) => v.rps)))} req/s`,
          reference: "target p99 < 50 ms",
          ratio: p99 < 50 ? "< 50 ms" : "MISSES 50 ms",
          p99: `p99 ${fmt(p99, 1)} ms`,
        };
        console.error(`${row.name}: ${row.value}, ${row.p99}`);
        rows.push(row);
      }
    }
  } finally {
    await node.stop();
  }
  return rows;
}
