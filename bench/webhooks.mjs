// Figures for webhooks (issue 47's targets: >= 2,000 events/s delivered to a local receiver; p99 from a block's
// fold to its delivery < 1 s at 500 active webhooks watching 10,000 addresses; the fold's rate within 10 % of its
// rate without webhooks, measured in the same run).
//
// A fresh anvil gets BENCH_WEBHOOK_BLOCKS (default 300) blocks of 20 transactions (bench/evmHistory.mjs: 200
// trading addresses); one fold warms up, uncounted. Each of BENCH_RUNS runs, the EvmFollower folds them into fresh
// PGlite stores: without webhooks (the reference) and with 500 active address_activity webhooks watching 10,000
// addresses (the 200 trading ones spread over them, the rest random) but no delivery (the outbox's own cost), and
// with webhooks watching BENCH_WEBHOOK_WATCHED_SHARE of the trading addresses, twice each in ABCCBA order; the
// store's own insert of the outbox fold's rows again (their floor) and delivery making them messages; and one while
// WebhookDelivery POSTs every event, signed, to a local receiver (node:http on 127.0.0.1, 200 at once), then
// BENCH_WEBHOOK_LIVE_BLOCKS live blocks
// (one every BENCH_WEBHOOK_LIVE_EVERY_MS). Reported: the fold rates and each run's ratios, the fold → delivery
// latency of every event (outbox row written → 2xx received) in the backlog and live, and the delivery rate of the
// whole backlog made due again at once (after a check of the store's maintenance).
import http from "node:http";
import {mkdtempSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {randomBytes, randomUUID} from "node:crypto";
import {EvmRpc, defaultEvmRpcOptions} from "../dist/src/evm/rpc.js";
import {LoggerRegistry} from "../dist/src/logger/index.js";
import {openSqlClient} from "../dist/src/dataApi/store/client.js";
import {migrate} from "../dist/src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../dist/src/dataApi/store/schema.js";
import {EvmFollower, defaultEvmFollowerOptions} from "../dist/src/dataApi/views/evm/follower.js";
import {insertWebhook} from "../dist/src/dataApi/queries/webhooks.js";
import {EXPAND_BLOCKS, WebhookDelivery, defaultWebhookDeliveryOptions} from "../dist/src/dataApi/webhooks/delivery.js";
import {expandOutboxBlocks} from "../dist/src/dataApi/views/evm/webhookOutbox.js";
import {StoreMaintenance, defaultStoreMaintenanceOptions} from "../dist/src/dataApi/store/maintenance.js";
import {RUNS, median, fmt, rpcResult} from "./lib.mjs";
import {buildHistory} from "./evmHistory.mjs";
import {startAnvil} from "./evm.mjs";

const BLOCKS = Number(process.env.BENCH_WEBHOOK_BLOCKS ?? 300);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 500);
const ADDRESSES = Number(process.env.BENCH_WEBHOOK_ADDRESSES ?? 10_000);
const CHAIN_ID = "43112";
const LIVE_BLOCKS = Number(process.env.BENCH_WEBHOOK_LIVE_BLOCKS ?? 30);
const LIVE_EVERY_MS = Number(process.env.BENCH_WEBHOOK_LIVE_EVERY_MS ?? 500);
// The share of the trading addresses that the webhooks of the share fold watch (the outbox fold's watch all of them,
// so nearly every transaction is an event): a chain where most transactions touch no watched address.
const WATCHED_SHARE = Number(process.env.BENCH_WEBHOOK_WATCHED_SHARE ?? 0.1);

/** Ratios as "median % (min-max)". */
const range = (xs) => `${fmt(median(xs) * 100)} % (${fmt(Math.min(...xs) * 100)}-${fmt(Math.max(...xs) * 100)})`;

/** Every block's row made messages, in delivery's steps; returns the messages made. */
async function expandAll(sql) {
  let made = 0;
  for (let r; (r = await expandOutboxBlocks(sql, EXPAND_BLOCKS)).blocks > 0; ) made += r.messages;
  return made;
}

/** What delivery has yet to send: messages pending, and blocks' rows not made messages yet (each holds one or more). */
const backlog = async (sql) =>
  Number(
    (
      await sql.query(
        "SELECT (SELECT count(*) FROM webhook_outbox WHERE state = 'pending') + (SELECT count(*) FROM webhook_outbox_blocks) AS n",
      )
    )[0].n,
  );

const p99 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? NaN;
};

async function receiver() {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      n++;
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    count: () => n,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

/** Live blocks: `n` blocks of 20 native transfers among `traders`, one every `everyMs`, each waited for. */
async function liveBlocks(rpcUrl, follower, traders, from, n, everyMs) {
  const hex = (b) => "0x" + Buffer.from(b).toString("hex");
  const call = (method, params) => rpcResult(rpcUrl, method, params);
  let head = from;
  for (let b = 0; b < n; b++) {
    const t0 = performance.now();
    for (let k = 0; k < 20; k++) {
      const a = traders[(b * 20 + k) % traders.length];
      const c = traders[(b * 20 + k + 7) % traders.length];
      await call("eth_sendTransaction", [
        {
          from: hex(a),
          to: hex(c),
          value: "0x1",
          gas: "0x5208",
          maxFeePerGas: "0x174876e800",
          maxPriorityFeePerGas: "0x3b9aca00",
        },
      ]);
    }
    await call("evm_mine", []);
    head++;
    await follower.waitFor(BigInt(head), 60_000);
    const rest = everyMs - (performance.now() - t0);
    if (rest > 0) await new Promise((r) => setTimeout(r, rest));
  }
  return head;
}

async function fold({rpcUrl, dataDir, head, setup, live}) {
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const logger = loggers.get("bench");
  const sql = await openSqlClient({url: "embedded", dataDir}, {logger});
  await migrate(sql, MIGRATIONS, {logger});
  const extra = setup ? await setup(sql, logger) : null;
  const rpc = new EvmRpc({...defaultEvmRpcOptions, url: rpcUrl}, {logger});
  const follower = new EvmFollower(
    {...defaultEvmFollowerOptions, chainId: CHAIN_ID, blockchainId: null},
    {sql, rpc, logger, tokenInfo: async (_a, erc) => ({erc, name: "T", symbol: "T", decimals: 18})},
  );
  const t0 = performance.now();
  follower.start();
  await follower.waitFor(BigInt(head), 3_600_000);
  const seconds = (performance.now() - t0) / 1000;
  if (live) await live(follower);
  await follower.close();
  const out = {blocksPerS: (head + 1) / seconds, seconds, sql, extra};
  out.close = async () => {
    await extra?.close?.();
    await sql.close();
    await loggers.close();
  };
  return out;
}

export async function benchWebhooks() {
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-bench-webhooks-"));
  const rows = [];
  let anvil = null;
  try {
    // Every state a fold traces stays in anvil: the history and a run's live blocks.
    anvil = await startAnvil(BLOCKS + LIVE_BLOCKS + 100);
    const built = await buildHistory({
      url: anvil.url,
      blocks: BLOCKS,
      txsPerBlock: 20,
      genesisTimestamp: 1_700_000_000,
      icmShare: 0,
    });
    console.error(`history: ${BLOCKS} blocks, ${built.txs} txs in ${fmt(built.seconds, 1)} s`);
    const ref = [];
    const outboxOnly = [];
    const rawInsert = [];
    const expands = [];
    const sharePart = [];
    const liveP99 = [];
    const hooked = [];
    const latencies = [];
    const drains = [];
    let events = 0;
    let liveEvents = 0;
    let traders = null;
    const b0 = {sql: null, logger: null};
    const hooks = async (sql, url, share = 1) => {
      const per = Math.ceil(ADDRESSES / WEBHOOKS);
      const watched = Math.round(traders.length * share);
      for (let w = 0; w < WEBHOOKS; w++) {
        const addresses = Array.from({length: per}, (_, k) => {
          const i = w * per + k;
          return i < watched ? traders[i] : Uint8Array.from(randomBytes(20));
        });
        await insertWebhook(sql, {
          id: randomUUID(),
          owner: "bench",
          eventType: "address_activity",
          url,
          name: "",
          description: "",
          chainId: CHAIN_ID,
          network: null,
          metadata: {},
          includeInternalTxs: false,
          includeLogs: true,
          secret: "bench-secret-0123456789",
          createdAt: Date.now(),
          addresses,
        });
      }
      // The store's maintenance analyses tables past autovacuum's threshold within its first check
      // (store/maintenance.ts): a server with these webhooks plans the fold's match with their statistics.
      await sql.query("ANALYZE webhooks, webhook_addresses");
    };
    // A first fold warms anvil, V8 and the file cache, and finds the trading addresses; it is not counted.
    {
      const w = await fold({rpcUrl: anvil.url, dataDir: path.join(root, "warm"), head: BLOCKS});
      traders = (await w.sql.query("SELECT DISTINCT from_addr AS a FROM evm_txs")).map((x) => x.a);
      await w.close();
    }
    for (let r = 0; r < RUNS; r++) {
      const recv = await receiver();
      const lat = [];
      // The fold without webhooks (the reference), with their outbox but no delivery (the outbox's own cost), and
      // with webhooks watching WATCHED_SHARE of the traders: twice each, in an order and its reverse (ABCCBA, then
      // CBAABC the next run). A fold right after other work (the last run's delivery, a store closing) is slower,
      // whatever it writes, and one kind always first would carry that.
      const seconds = {ref: 0, outbox: 0, share: 0};
      const setups = {
        ref: undefined,
        outbox: (sql) => hooks(sql, recv.url),
        share: (sql) => hooks(sql, recv.url, WATCHED_SHARE),
      };
      const kinds = r % 2 === 0 ? ["ref", "outbox", "share"] : ["share", "outbox", "ref"];
      let c = null;
      let shareEvents = 0;
      for (const [k, kind] of [...kinds, ...[...kinds].reverse()].entries()) {
        const f = await fold({
          rpcUrl: anvil.url,
          dataDir: path.join(root, `${kind}-${r}-${k}`),
          head: BLOCKS,
          setup: setups[kind],
        });
        seconds[kind] += f.seconds;
        if (kind === "share") {
          await expandAll(f.sql);
          shareEvents = Number((await f.sql.query("SELECT count(*)::int8 AS n FROM webhook_outbox"))[0].n);
        }
        if (kind === "outbox") {
          await c?.close();
          c = f;
        } else await f.close();
      }
      const a = {seconds: seconds.ref / 2, blocksPerS: (BLOCKS + 1) / (seconds.ref / 2)};
      ref.push(a.blocksPerS);
      outboxOnly.push((BLOCKS + 1) / (seconds.outbox / 2));
      sharePart.push({rate: (BLOCKS + 1) / (seconds.share / 2), events: shareEvents});
      // The store's own cost of those rows: the same blocks' outbox rows written again from a copy, in transactions
      // of the fold's batch of blocks (no matching or documents to make: the floor of what the outbox can cost it).
      {
        // The copy stores as the table does (uncompressed), so the insert writes the fold's bytes, not pglz's.
        await c.sql.query("CREATE TABLE outbox_copy (LIKE webhook_outbox_blocks INCLUDING STORAGE)");
        await c.sql.query("INSERT INTO outbox_copy SELECT * FROM webhook_outbox_blocks");
        await c.sql.query("DELETE FROM webhook_outbox_blocks");
        await c.sql.query("VACUUM webhook_outbox_blocks");
        const step = defaultEvmFollowerOptions.batchBlocks;
        const t0 = performance.now();
        for (let lo = 0; lo <= BLOCKS; lo += step)
          await c.sql.transaction((tx) =>
            tx.query(
              "INSERT INTO webhook_outbox_blocks SELECT * FROM outbox_copy WHERE block_number >= $1 AND block_number < $2",
              [lo, lo + step],
            ),
          );
        rawInsert.push((performance.now() - t0) / 1000 / a.seconds);
        // Delivery's part of the same work: those rows made messages, in its steps of blocks.
        const t1 = performance.now();
        const made = await expandAll(c.sql);
        expands.push(made / ((performance.now() - t1) / 1000));
      }
      await c.close();
      let liveFrom = 0;
      let snapshot = null;
      const b = await fold({
        rpcUrl: anvil.url,
        dataDir: path.join(root, `hooked-${r}`),
        head: BLOCKS,
        live: async (follower) => {
          // Backlog delivered first; then blocks as a live chain makes them, their events' latency apart.
          for (const until = Date.now() + 300_000; Date.now() < until; ) {
            if ((await backlog(b0.sql)) === 0) break;
            await new Promise((res) => setTimeout(res, 50));
          }
          liveFrom = lat.length;
          // Taken back after the run: every run's folds see the same BLOCKS blocks (a follower folds to the tip).
          snapshot = await rpcResult(anvil.url, "evm_snapshot", []);
          await liveBlocks(anvil.url, follower, traders, BLOCKS, LIVE_BLOCKS, LIVE_EVERY_MS);
          for (const until = Date.now() + 60_000; Date.now() < until; ) {
            if ((await backlog(b0.sql)) === 0) break;
            await new Promise((res) => setTimeout(res, 50));
          }
        },
        setup: async (sql, logger) => {
          b0.sql = sql;
          b0.logger = logger;
          await hooks(sql, recv.url);
          const delivery = new WebhookDelivery(
            {...defaultWebhookDeliveryOptions, allowPrivateUrls: true, pollMs: 20},
            {
              sql,
              logger,
              now: Date.now,
              networkToken: () => ({name: "Avalanche", symbol: "AVAX", decimals: 18}),
              onAttempt: (x) => x.ok && lat.push(Date.now() - x.createdAt),
            },
          );
          delivery.start();
          return {delivery, close: () => delivery.close()};
        },
      });
      hooked.push(b.blocksPerS);
      await expandAll(b.sql);
      const [{n}] = await b.sql.query("SELECT count(*)::int8 AS n FROM webhook_outbox");
      events = Number(n);
      for (const until = Date.now() + 300_000; lat.length < events && Date.now() < until; )
        await new Promise((res) => setTimeout(res, 50));
      latencies.push(p99(lat.slice(0, liveFrom)));
      liveP99.push(p99(lat.slice(liveFrom)));
      liveEvents = lat.length - liveFrom;
      // The whole backlog due again at once: the delivery rate alone, after a check of the store's maintenance, as
      // the process runs one a minute (store/maintenance.ts): without a vacuum, each message's dead versions from
      // its first delivery made delivery's updates three to five times slower.
      await new StoreMaintenance(defaultStoreMaintenanceOptions, {sql: b.sql, logger: b0.logger}).runOnce();
      const before = recv.count();
      const t0 = performance.now();
      await b.sql.query("UPDATE webhook_outbox SET state = 'pending', next_attempt_at = 0, attempt_base = attempts");
      for (const until = Date.now() + 300_000; recv.count() - before < events && Date.now() < until; )
        await new Promise((res) => setTimeout(res, 20));
      drains.push((recv.count() - before) / ((performance.now() - t0) / 1000));
      console.error(
        `run ${r + 1}: fold ${fmt(a.blocksPerS)} blocks/s without webhooks, ${fmt(outboxOnly.at(-1))} with the outbox (its rows alone written again: ${fmt(rawInsert.at(-1) * 100, 1)} % of the fold's time), ${fmt(sharePart.at(-1).rate)} with ${fmt(WATCHED_SHARE * 100)} % of the traders watched (${sharePart.at(-1).events} events), ${fmt(b.blocksPerS)} with delivery too; ${events} events, p99 fold→delivery ${fmt(latencies.at(-1))} ms in the backlog, ${fmt(liveP99.at(-1))} ms live (${liveEvents} events); backlog ${fmt(drains.at(-1))} events/s`,
      );
      await b.close();
      await recv.close();
      if (snapshot !== null && !(await rpcResult(anvil.url, "evm_revert", [snapshot])))
        throw new Error("anvil did not take the live blocks back");
    }
    const r0 = median(ref);
    const r1 = median(hooked);
    const r2 = median(outboxOnly);
    rows.push({
      name: `EVM fold writing the outbox of ${WEBHOOKS} webhooks / ${ADDRESSES} watched addresses vs without webhooks (PGlite, ${BLOCKS} blocks × 20 txs)`,
      value: `${fmt(r2)} blocks/s`,
      reference: `${fmt(r0)} blocks/s`,
      // Each run's ratio (its two folds ran back to back), their median and range: the machine's noise moves both
      // folds of a run together more than it moves runs apart.
      ratio: range(outboxOnly.map((x, i) => x / ref[i])),
    });
    rows.push({
      name: `The same fold, the webhooks watching ${fmt(WATCHED_SHARE * 100)} % of the trading addresses (${median(sharePart.map((x) => x.events))} events for ${BLOCKS * 20} transactions) vs without webhooks`,
      value: `${fmt(median(sharePart.map((x) => x.rate)))} blocks/s`,
      reference: `${fmt(r0)} blocks/s`,
      ratio: range(sharePart.map((x, i) => x.rate / ref[i])),
    });
    rows.push({
      name: `The store's own insert of the same blocks' outbox rows, in the fold's batches (the floor of the outbox's cost), as a share of the fold's time without webhooks`,
      value: `${fmt(median(rawInsert) * 100, 1)} %`,
    });
    rows.push({
      name: `Delivery making those rows messages (${EXPAND_BLOCKS} blocks a statement), before it sends them`,
      value: `${fmt(median(expands))} events/s`,
    });
    rows.push({
      name: `The same fold with delivery running beside it (same process, same store)`,
      value: `${fmt(r1)} blocks/s`,
      reference: `${fmt(r0)} blocks/s`,
      ratio: `${fmt((r1 / r0) * 100)} %`,
    });
    rows.push({
      name: `Webhook fold → delivery latency, live blocks (${LIVE_BLOCKS} blocks of 20 transfers, one every ${LIVE_EVERY_MS} ms; ${liveEvents} events)`,
      value: `p99 ${fmt(median(liveP99))} ms`,
    });
    rows.push({
      name: `Webhook fold → delivery latency while folding the ${BLOCKS}-block backlog (${events - liveEvents} events)`,
      value: `p99 ${fmt(median(latencies))} ms`,
    });
    rows.push({
      name: `Webhook delivery rate, ${events} events due at once (signed POSTs to a local receiver, 64 in flight)`,
      value: `${fmt(median(drains))} events/s`,
    });
  } finally {
    if (anvil) await anvil.stop();
    rmSync(root, {recursive: true, force: true});
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchWebhooks())
    console.log(`| ${r.name} | ${r.value} | ${r.reference ?? "-"} | ${r.ratio ?? "-"} | ${r.p99 ?? "-"} |`);
}
