#!/usr/bin/env node
// Interchain messages and signature aggregation (issue 20), two parts; `node bench/run.js icm`, or directly
// (`node bench/icm.mjs`; `npm run build` first, it imports the compiled modules):
//
// 1. Endpoint 1 on the dev network: avaext with its dev network (five local validators, the L1's EVM, the relayer)
//    after 6 hours of backfilled ticks; autocannon POSTs one message the dev L1 sent (its validators: local nodes
//    1-2) and one the C-chain sent (all five) to /v1/signatureAggregator/local/aggregateSignatures at 4 connections
//    (BENCH_RUNS runs of BENCH_SECONDS, medians). Each answer is a full aggregation: canonical set from the P-chain
//    view, each validator's signing rule checked in the store, every signature verified, the aggregate built (the
//    signatures themselves are cached per validator and message, as a validator's are).
// 2. Endpoint 17 on a large store: BENCH_ICM_MESSAGES (default 1,000,000) messages written into PostgreSQL's
//    icm_messages (bulk inserts of records as the fold writes them, not through the fold: the fold's cost is the EVM
//    follower's figure), senders and receivers drawn with a Zipf skew (s = 1) from 5,000 addresses, ends from 4
//    chains, random (incompressible) IDs, hashes and payloads of 32-256 bytes; ANALYZE; then the real server
//    (`--data-api-role serve`) answers each list at page 1 and at page 1,000 (pageSize 10, reached by nextPageToken),
//    8 connections. Target: p99 < 50 ms.
import os from "node:os";
import path from "node:path";
import {mkdtempSync, chmodSync, rmSync} from "node:fs";
import {fileURLToPath} from "node:url";
import {LoggerRegistry} from "../dist/src/logger/index.js";
import {openSqlClient} from "../dist/src/dataApi/store/client.js";
import {migrate} from "../dist/src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../dist/src/dataApi/store/schema.js";
import {bulkInsert} from "../dist/src/dataApi/store/bulk.js";
import {cb58Encode} from "../dist/src/util/cb58.js";
import {mulberry32 as prng} from "../dist/src/util/prng.js";
import {
  RUNS,
  SECONDS,
  deepPage,
  fmt,
  getJson,
  latency,
  median,
  randomBytes,
  rpcResult,
  startAvaext,
  zipf,
} from "./lib.mjs";
import {startPostgres} from "./evm.mjs";

const MESSAGES = Number(process.env.BENCH_ICM_MESSAGES ?? 1_000_000);
const BATCH = 5_000;
const DEEP = 1000;
const MESSENGER = "253b2784c75e510dd0ff1da844684a1ac0aa5fcf";

const hex = (b) => Buffer.from(b).toString("hex");

/** Part 1: endpoint 1 on the dev network, 4 connections. */
async function benchEndpoint1() {
  const rows = [];
  const node = await startAvaext([
    "--network-id=local",
    "--feed=dev",
    "--index-enabled",
    "--data-api-enabled",
    "--dev-backfill=6h",
    "--data-api-rate-limit=0",
  ]);
  try {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const {messages} = await getJson(`${node.url}/v1/icm/messages?pageSize=100`);
      const chains = new Set(messages.filter((m) => m.status === "delivered").map((m) => m.sourceEvmChainId));
      if (chains.has("43112") && chains.has("99999") && (await fetch(`${node.url}/ext/health`)).status === 200) break;
      if (Date.now() > deadline) throw new Error("the dev network had no delivered messages both ways after 300 s");
      await new Promise((r) => setTimeout(r, 1000));
    }
    const {messages} = await getJson(`${node.url}/v1/icm/messages?pageSize=100`);
    const {platformChainId: l1} = await getJson(`${node.url}/v1/chains/99999`);
    const url = `${node.url}/v1/signatureAggregator/local/aggregateSignatures`;
    const headers = {"content-type": "application/json"};
    for (const [label, evmChainId, rpcPath] of [
      ["an L1 message (2 validators)", "99999", `/ext/bc/${l1}/rpc`],
      ["a C-chain message (5 validators)", "43112", "/ext/bc/C/rpc"],
    ]) {
      // The unsigned warp messages the chain sent (its SendWarpMessage logs).
      const unsigned = [];
      for (const m of messages.filter((x) => x.sourceEvmChainId === evmChainId && x.sourceTransaction)) {
        const receipt = await rpcResult(`${node.url}${rpcPath}`, "eth_getTransactionReceipt", [
          m.sourceTransaction.txHash,
        ]);
        const data = receipt.logs.find((l) => l.address === "0x0200000000000000000000000000000000000005").data.slice(2);
        unsigned.push("0x" + data.slice(128, 128 + Number.parseInt(data.slice(64, 128), 16) * 2));
      }
      // First: each message asked for once, one at a time (nothing cached: every validator signs, every
      // signature is verified). Then one message again and again at 4 connections (a relayer's retries).
      const cold = [];
      for (const message of unsigned) {
        const t0 = performance.now();
        await getJson(url, {method: "POST", headers, body: JSON.stringify({message})});
        cold.push(performance.now() - t0);
      }
      cold.sort((a, b) => a - b);
      const coldRow = {
        name: `endpoint 1 on the dev network, ${label}, each of ${cold.length} messages asked once, 1 connection`,
        value: `${fmt(1000 / median(cold))} aggregations/s`,
        reference: "-",
        ratio: median(cold) < 15 ? "p50 < 15 ms" : "MISSES p50 15 ms",
        p99: `p50 ${fmt(median(cold), 1)} ms, max ${fmt(cold.at(-1), 1)} ms`,
      };
      console.error(`${coldRow.name}: ${coldRow.value}, ${coldRow.p99}`);
      rows.push(coldRow);
      const message = unsigned[0];
      const req = {connections: 4, method: "POST", body: JSON.stringify({message}), headers};
      await latency(url, req); // warm-up
      const xs = [];
      for (let r = 0; r < RUNS; r++) xs.push(await latency(url, req));
      const p50 = median(xs.map((x) => x.p50));
      const rps = median(xs.map((x) => x.rps));
      const row = {
        name: `endpoint 1 (POST aggregateSignatures) on the dev network, ${label}, the same message repeated, 4 connections`,
        value: `${fmt(rps)} aggregations/s`,
        reference: "target p50 < 15 ms, >= 100/s",
        ratio: p50 < 15 && rps >= 100 ? "meets" : "MISSES",
        p99: `p50 ${fmt(p50, 1)} ms, p99 ${fmt(median(xs.map((x) => x.p99)), 1)} ms`,
      };
      console.error(`${row.name}: ${row.value}, ${row.p99}`);
      rows.push(row);
    }
  } finally {
    await node.stop();
  }
  return rows;
}

const COLUMNS = [
  {name: "message_id", type: "text"},
  {name: "messenger", type: "bytea"},
  {name: "source_blockchain_id", type: "text"},
  {name: "destination_blockchain_id", type: "text"},
  {name: "from_addr", type: "bytea"},
  {name: "to_addr", type: "bytea"},
  {name: "status", type: "text"},
  {name: "sort_ts", type: "int8"},
  {name: "record", type: "jsonb"},
];

/** Writes MESSAGES messages; returns the hot address and chain, and the seconds taken. */
export async function fill(sql) {
  const rand = prng(17);
  const addresses = Array.from({length: 5000}, () => randomBytes(20));
  const chains = Array.from({length: 4}, () => cb58Encode(randomBytes(32)));
  const pickAddress = zipf(
    addresses.map((_, i) => i),
    rand,
  );
  const pickChain = zipf(
    chains.map((_, i) => i),
    rand,
  );
  const t0 = performance.now();
  const start = 1_700_000_000;
  for (let i = 0; i < MESSAGES; i += BATCH) {
    const rows = [];
    for (let j = i; j < Math.min(MESSAGES, i + BATCH); j++) {
      const id = hex(randomBytes(32));
      const s = pickChain();
      const d = (s + 1 + Math.floor(rand() * 3)) % chains.length;
      const from = addresses[pickAddress()];
      const to = addresses[pickAddress()];
      const status = rand() < 0.9 ? "delivered" : rand() < 0.5 ? "pending" : "delivered_source_not_indexed";
      const ts = start + j * 2;
      const tx = (t) => ({
        txHash: "0x" + hex(randomBytes(32)),
        timestamp: t,
        gasSpent: String(90_000 + Math.floor(rand() * 150_000)),
      });
      const record = {
        messageId: id,
        icmContractAddress: "0x" + MESSENGER,
        sourceBlockchainId: chains[s],
        destinationBlockchainId: chains[d],
        sourceChainId: null,
        destinationChainId: null,
        messageNonce: String(j + 1),
        from: "0x" + hex(from),
        to: "0x" + hex(to),
        data: "0x" + hex(randomBytes(32 + Math.floor(rand() * 224))),
        messageExecuted: status !== "pending" && rand() < 0.95,
        receipts: Array.from({length: Math.floor(rand() * 3)}, (_, k) => ({
          receivedMessageNonce: String(j - k),
          relayerRewardAddress: "0x" + hex(addresses[k]),
        })),
        receiptDelivered: status === "delivered" && rand() < 0.8,
        fee: {token: "0x" + hex(addresses[7]), amount: String(Math.floor(rand() * 1e6)) + "000000000000"},
        status,
      };
      if (status !== "delivered_source_not_indexed") record.sourceTransaction = tx(ts);
      if (status !== "pending")
        record.destinationTransaction = {
          ...tx(ts + 2),
          rewardRedeemer: "0x" + hex(addresses[3]),
          delivererAddress: "0x" + hex(addresses[4]),
        };
      rows.push([id, Buffer.from(MESSENGER, "hex"), chains[s], chains[d], from, to, status, ts, record]);
    }
    await sql.transaction((tx) => bulkInsert(tx, "icm_messages", COLUMNS, rows));
    if ((i / BATCH) % 40 === 0)
      console.error(
        `icm store: ${i + rows.length} messages, ${fmt((i + rows.length) / ((performance.now() - t0) / 1000))} a second`,
      );
  }
  await sql.query("ANALYZE icm_messages");
  return {
    seconds: (performance.now() - t0) / 1000,
    hot: "0x" + hex(addresses[0]),
    chain: chains[0],
    otherChain: chains[1],
  };
}

/** Part 2: endpoint 17 and the message lists on MESSAGES messages in PostgreSQL, 8 connections. */
async function benchLists() {
  const rows = [];
  if (MESSAGES <= 0) return rows;
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-icm-"));
  chmodSync(root, 0o755);
  const pgServer = await startPostgres(path.join(root, "pg"));
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const logger = loggers.get("bench");
  let node = null;
  try {
    const dbUrl = await pgServer.database();
    const sql = await openSqlClient({url: dbUrl, dataDir: null}, {logger});
    await migrate(sql, MIGRATIONS, {logger});
    const {seconds, hot, chain, otherChain} = await fill(sql);
    const [{size}] = await sql.query("SELECT pg_total_relation_size('icm_messages')::int8 AS size");
    const [{id}] = await sql.query("SELECT message_id AS id FROM icm_messages ORDER BY sort_ts LIMIT 1 OFFSET $1", [
      Math.floor(MESSAGES / 3),
    ]);
    await sql.close();
    rows.push({
      name: `ICM store: ${fmt(MESSAGES)} messages bulk-inserted into PostgreSQL`,
      value: `${fmt(seconds, 1)} s`,
      reference: `${fmt(Number(size) / 2 ** 30, 2)} GiB with indexes`,
    });
    node = await startAvaext([
      "--data-api-enabled",
      "--data-api-role=serve",
      `--data-api-db=${dbUrl}`,
      "--data-api-rate-limit=0",
    ]);
    const base = `${node.url}/v1/icm`;
    const lists = {
      messages: `${base}/messages?pageSize=10`,
      "messages by sourceBlockchainId": `${base}/messages?pageSize=10&sourceBlockchainId=${chain}`,
      "messages by blockchainId (either end)": `${base}/messages?pageSize=10&blockchainId=${otherChain}`,
      "messages by from (the busiest sender)": `${base}/messages?pageSize=10&from=${hot}`,
      "endpoint 17: an address's messages (the busiest)": `${base}/addresses/${hot}/messages?pageSize=10`,
    };
    const single = `${base}/messages/${id}`;
    await latency(single, {connections: 8});
    const one = [];
    for (let r = 0; r < RUNS; r++) one.push(await latency(single, {connections: 8}));
    const row1 = {
      name: "ICM message by ID, 8 connections",
      value: `p50 ${fmt(median(one.map((x) => x.p50)), 1)} ms, ${fmt(median(one.map((x) => x.rps)))} req/s`,
      reference: "-",
      ratio: median(one.map((x) => x.p99)) < 50 ? "< 50 ms" : "MISSES 50 ms",
      p99: `p99 ${fmt(median(one.map((x) => x.p99)), 1)} ms`,
    };
    console.error(`${row1.name}: ${row1.value}, ${row1.p99}`);
    rows.push(row1);
    for (const [name, first] of Object.entries(lists)) {
      const deep = await deepPage(first, DEEP);
      await latency(first, {connections: 8}); // warm-up
      const res = {first: [], deep: []};
      for (let r = 0; r < RUNS; r++) {
        res.first.push(await latency(first, {connections: 8}));
        res.deep.push(await latency(deep.url, {connections: 8}));
      }
      for (const [xs, label] of [
        [res.first, "page 1"],
        [res.deep, `page ${fmt(deep.page)}`],
      ]) {
        const p99 = median(xs.map((x) => x.p99));
        const row = {
          name: `ICM list ${name}, ${label}, 8 connections`,
          value: `p50 ${fmt(median(xs.map((x) => x.p50)), 1)} ms, ${fmt(median(xs.map((x) => x.rps)))} req/s`,
          reference: "-",
          ratio: p99 < 50 ? "< 50 ms" : "MISSES 50 ms",
          p99: `p99 ${fmt(p99, 1)} ms`,
        };
        console.error(`${row.name}: ${row.value}, ${row.p99}`);
        rows.push(row);
      }
    }
  } finally {
    if (node) await node.stop();
    await pgServer.stop();
    await loggers.close();
    rmSync(root, {recursive: true, force: true});
  }
  return rows;
}

export async function benchIcm() {
  const parts = (process.env.BENCH_ICM_PARTS ?? "endpoint1,lists").split(",");
  return [
    ...(parts.includes("endpoint1") ? await benchEndpoint1() : []),
    ...(parts.includes("lists") ? await benchLists() : []),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await benchIcm();
  console.log(
    `\nMachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}; median of ${RUNS} runs of ${SECONDS} s\n`,
  );
  console.log("| figure | value | reference | target | latency |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const r of rows)
    console.log(`| ${r.name} | ${r.value} | ${r.reference ?? "-"} | ${r.ratio ?? "-"} | ${r.p99 ?? "-"} |`);
}
