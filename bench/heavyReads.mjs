// The heaviest requests one anonymous client can send (issue 49, "work that grows without bound"), on a PGlite store
// of 1,000,000 X-chain transactions, 1,000,000 EVM transactions and 1,000,000 ICM messages: each heavy request's
// time alone, and the p99 of an ordinary read (an address's X transactions, 8 connections) alone and while one
// client sends the heavy request in a loop. PGlite is the hard case: one session serves every read and the fold,
// and it cannot interrupt a statement, so a request's work is bounded only by what its queries read
// (src/dataApi/queries/sql.ts). `node bench/run.js heavyreads`; BENCH_HEAVY_DIR keeps the store between runs
// (built once: the X history folded by a real avaext as `npm run bench dataapi` does, then bench/evmLists.mjs's
// synthetic EVM chain and bench/icm.mjs's messages written into the same store); BENCH_RUNS runs of BENCH_SECONDS.
import {existsSync, mkdirSync, readFileSync, writeFileSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {LoggerRegistry} from "../dist/src/logger/index.js";
import {openSqlClient} from "../dist/src/dataApi/store/client.js";
import {formatAddress} from "../dist/src/dataApi/server/names.js";
import {Anvil} from "../dist/src/dev/evm/anvil.js";
import {RUNS, SECONDS, fmt, latency, median, startAvaext} from "./lib.mjs";
import {buildIndex, foldOnce} from "./dataApi.mjs";
import {CHAIN_ID, fill as fillEvm} from "./evmLists.mjs";
import {fill as fillIcm} from "./icm.mjs";

const DIR = path.resolve(process.env.BENCH_HEAVY_DIR ?? path.join(os.tmpdir(), "avaext-bench-heavy"));
const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";
const CONNECTIONS = 8;
const hex = (b) => Buffer.from(b).toString("hex");

/** Runs `step` unless DIR holds its marker; the marker holds what it returned. */
async function once(name, step) {
  const marker = path.join(DIR, `${name}.json`);
  if (existsSync(marker)) return JSON.parse(readFileSync(marker, "utf8"));
  const out = (await step()) ?? {};
  writeFileSync(marker, JSON.stringify(out));
  return out;
}

/** The store under DIR, built step by step where absent; returns what the requests ask about. */
async function store() {
  mkdirSync(DIR, {recursive: true});
  const indexDir = path.join(DIR, "index");
  const dataDir = path.join(DIR, "pglite", "data-api");
  await once("index", async () => {
    const built = await buildIndex(indexDir);
    await built.db.close();
  });
  await once("folded", async () => {
    mkdirSync(path.dirname(dataDir), {recursive: true});
    const fold = await foldOnce(indexDir, "embedded", dataDir);
    console.error(`X history folded: ${fmt(fold.rate)} tx/s`);
    return {rate: fold.rate};
  });
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const sql = await openSqlClient({url: "embedded", dataDir}, {logger: loggers.get("bench")});
  try {
    const evm = await once("evm", async () => {
      const {seconds, heavy} = await fillEvm(sql);
      console.error(`EVM chain written: ${fmt(seconds)} s`);
      return {address: hex(heavy.address), factory: hex(heavy.factory)};
    });
    const icm = await once("icm", async () => {
      const {seconds, hot, chain, otherChain} = await fillIcm(sql);
      console.error(`ICM messages written: ${fmt(seconds)} s`);
      await sql.query("ANALYZE");
      return {hot, chain, otherChain};
    });
    // The X history's 64 busiest owners (random spends make them about as busy as any other).
    const x = await once("x", async () => {
      const rows = await sql.query(
        "SELECT address FROM tx_addresses WHERE chain = 'X' GROUP BY address ORDER BY count(*) DESC, address LIMIT 64",
      );
      return {addresses: rows.map((r) => hex(r.address))};
    });
    return {xAddresses: x.addresses, evm, icm};
  } finally {
    await sql.close();
    await loggers.close();
  }
}

/** One request, timed: {ms, status, bytes, more} (more: the answer carries a nextPageToken). */
async function timed(url) {
  const t0 = performance.now();
  const res = await fetch(url);
  const text = await res.text();
  const ms = performance.now() - t0;
  let more = false;
  try {
    more = typeof JSON.parse(text).nextPageToken === "string";
  } catch {}
  return {ms, status: res.status, bytes: Buffer.byteLength(text), more};
}

/** The heavy requests, by name, against the server at `url`. */
function heavyRequests(url, facts) {
  const x = `${url}/v1/networks/local/blockchains/x-chain`;
  const a64 = facts.xAddresses.map((h) => formatAddress(Buffer.from(h, "hex"), "local")).join(",");
  const a1 = formatAddress(Buffer.from(facts.xAddresses[0], "hex"), "local");
  const evm = `${url}/v1/chains/${CHAIN_ID}/addresses/0x${facts.evm.address}`;
  const icm = facts.icm;
  return {
    "X transactions of 64 addresses": `${x}/transactions?pageSize=100&addresses=${a64}`,
    "X transactions of 64 addresses, txTypes=CreateAssetTx (none)": `${x}/transactions?pageSize=100&addresses=${a64}&txTypes=CreateAssetTx`,
    "X transactions of an address, endTimestamp=1 (none)": `${x}/transactions?pageSize=100&addresses=${a1}&endTimestamp=1`,
    "asset transactions of AVAX, txTypes=UNKNOWN (none)": `${x}/assets/${AVAX}/transactions?pageSize=100&txTypes=UNKNOWN`,
    "asset transactions of AVAX, endTimestamp=1 (none)": `${x}/assets/${AVAX}/transactions?pageSize=100&endTimestamp=1`,
    "X balances of 64 addresses": `${x}/balances?addresses=${a64}`,
    // listErc1155: listErc20 also asks the chain's RPC for the native balance at the block, which the bench's
    // anvil (not the chain the store holds) does not have; the token sums are the same query.
    "EVM balances:listErc1155 of the busiest address at block 25,000": `${evm}/balances:listErc1155?blockNumber=25000`,
    "EVM balances:listErc1155 of the busiest address at block 49,000": `${evm}/balances:listErc1155?blockNumber=49000`,
    "EVM transactions:listNative of the busiest address": `${evm}/transactions:listNative?pageSize=100`,
    "ICM messages of the busiest sender, source = destination (none)": `${url}/v1/icm/messages?pageSize=100&from=${icm.hot}&sourceBlockchainId=${icm.otherChain}&destinationBlockchainId=${icm.otherChain}`,
    "ICM messages of the busiest sender and a chain at either end": `${url}/v1/icm/messages?pageSize=100&from=${icm.hot}&blockchainId=${icm.otherChain}`,
  };
}

/**
 * Each heavy request against a serve process of checkout `root` on the store: its time alone (median of 5, and the
 * worst), and an ordinary read's p99 at 8 connections alone and while one client repeats the heavy request.
 */
async function measure(label, root, facts, anvilUrl) {
  const empty = path.join(os.tmpdir(), "avaext-bench-empty-feed.ndjson");
  writeFileSync(empty, "");
  const node = await startAvaext(
    [
      "--data-api-enabled",
      "--data-api-role=serve",
      "--data-api-rate-limit=0",
      "--network-id=local",
      `--feed=file:${empty}`,
      `--evm-rpc=${CHAIN_ID}=${anvilUrl}`,
    ],
    {dataDir: path.join(DIR, "pglite"), root},
  );
  const rows = [];
  try {
    const a1 = formatAddress(Buffer.from(facts.xAddresses[1], "hex"), "local");
    const ordinary = `${node.url}/v1/networks/local/blockchains/x-chain/transactions?pageSize=10&addresses=${a1}`;
    await latency(ordinary, {connections: CONNECTIONS}); // warm-up
    const alone = [];
    for (let r = 0; r < RUNS; r++) alone.push((await latency(ordinary, {connections: CONNECTIONS})).p99);
    const aloneP99 = median(alone);
    console.error(`${label}: ordinary read alone p99 ${fmt(aloneP99, 1)} ms`);
    rows.push({
      name: `${label}: an address's X transactions (page 1, pageSize 10), ${CONNECTIONS} connections, alone`,
      value: `p99 ${fmt(aloneP99, 1)} ms`,
      reference: "-",
    });
    for (const [name, url] of Object.entries(heavyRequests(node.url, facts))) {
      const once = [];
      for (let i = 0; i < 5; i++) once.push(await timed(url));
      const ms = once.map((o) => o.ms);
      const first = once[0];
      // One client repeats the heavy request while the ordinary read is measured.
      let stop = false;
      let repeats = 0;
      let worst = 0;
      const loop = (async () => {
        while (!stop) {
          const o = await timed(url);
          repeats++;
          worst = Math.max(worst, o.ms);
        }
      })();
      const during = [];
      for (let r = 0; r < RUNS; r++) during.push(await latency(ordinary, {connections: CONNECTIONS}));
      stop = true;
      await loop;
      // A run in which no ordinary read was answered has no p99 (autocannon gives 0): say so.
      const starved = during.filter((d) => d.rps === 0).length;
      const duringP99 =
        starved > 0
          ? `no answer in ${starved} of ${RUNS} runs of ${SECONDS} s`
          : `p99 ${fmt(median(during.map((d) => d.p99)), 1)} ms`;
      const row = {
        name: `${label}: ${name}`,
        value: `${first.status}, ${fmt(first.bytes / 1024, 1)} KiB${first.more ? ", nextPageToken" : ""}: median ${fmt(median(ms), 1)} ms, worst ${fmt(Math.max(...ms, worst), 1)} ms`,
        reference: `ordinary read ${duringP99} while repeated (${repeats} times), p99 ${fmt(aloneP99, 1)} ms alone`,
      };
      console.error(`${row.name}: ${row.value}; ${row.reference}`);
      rows.push(row);
    }
  } finally {
    await node.stop();
  }
  return rows;
}

/** `node bench/run.js heavyreads`: this checkout, and BENCH_BASELINE (another built checkout) on the same store. */
export async function benchHeavyReads() {
  const facts = await store();
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const anvil = await Anvil.start(
    {chainId: Number(CHAIN_ID), genesisTimestamp: 1_700_000_000, mining: "auto"},
    {logger: loggers.get("bench")},
  );
  try {
    // The baseline first: this build may migrate the store to a schema the baseline does not know.
    const rows = process.env.BENCH_BASELINE
      ? await measure("baseline", path.resolve(process.env.BENCH_BASELINE), facts, anvil.url)
      : [];
    rows.push(...(await measure("this build", undefined, facts, anvil.url)));
    return rows;
  } finally {
    await anvil.stop();
    await loggers.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === "build") console.log(await store());
  else for (const r of await benchHeavyReads()) console.log(`| ${r.name} | ${r.value} | ${r.reference} |`);
}
