/**
 * Webhook delivery survives kill -9 (issue 47): a real avaext process follows a real anvil carrying the dev
 * network's EVM traffic (transfers of every ERC kind, internal value calls, deployments) and delivers to two real
 * receivers on 127.0.0.1, one of which goes down around each crash; the process is killed with SIGKILL three times
 * while it folds and delivers. After a last clean run, every expected event (each transaction touching a watched
 * address, per webhook, as the fold's own participation index lists it) was received with a 2xx, none is missing,
 * none is for anything else, each transaction has exactly one message ID (a duplicate only repeats an ID already
 * seen), every delivery passes chainkit's validateWebhook, and the outbox holds nothing undelivered.
 */
import {writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, describe, expect, it} from "vitest";
import {Avalanche} from "@avalanche-sdk/chainkit";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {ANVIL_ACCOUNTS, DevEvmTraffic, runTick} from "../../src/dev/evm/traffic.js";
import {startChild, type Child} from "../helpers/child.js";
import {tempDir} from "../helpers/node.js";
import {quietLogger, withStore, STORE_BACKENDS} from "../helpers/sql.js";
import {startReceiver} from "../helpers/webhookReceiver.js";

const CHAIN = "99997";
const KEY = "crash-key-0123456789";
const WATCHED = [ANVIL_ACCOUNTS[1]!, ANVIL_ACCOUNTS[2]!, ANVIL_ACCOUNTS[3]!];
const ck = new Avalanche({enableTelemetry: false});
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
});

describe.each(STORE_BACKENDS)("kill -9 while webhooks deliver ($name)", (backend) => {
  it("loses no event and invents none: every delivery expected, each once by message ID", async () => {
    const anvil = await Anvil.start(
      // The test's own calls (traffic, mining) wait out a stall of anvil's while avaext restarts and traces
      // (foundry-rs/foundry#6036); twice a 30 s wait on evm_mine ran out here on a busy machine.
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "manual", callTimeoutMs: 180_000},
      {logger: quietLogger()},
    );
    cleanup.push(() => anvil.stop());
    const a = await startReceiver("ok");
    const b = await startReceiver("ok");
    cleanup.push(
      () => a.close(),
      () => b.close(),
    );
    const dir = tempDir();
    const keys = path.join(dir, "keys.json");
    writeFileSync(keys, JSON.stringify({[KEY]: {name: "crash", rateLimit: 0}}));
    const data = path.join(dir, "data");
    const url = await backend.db();
    const storeDir = url === "embedded" ? path.join(data, "data-api") : null;
    const flags = [
      `--data-dir=${data}`,
      "--network-id=local",
      "--index-enabled",
      "--feed=dev",
      "--dev-evm=false",
      "--dev-backfill=0",
      "--data-api-enabled",
      `--data-api-db=${url}`,
      `--evm-rpc=${CHAIN}=${anvil.url}`,
      `--data-api-keys-file=${keys}`,
      "--webhooks-allow-private-urls",
      "--log-level=WARN",
    ];
    let child: Child = await startChild(flags, 60_000);
    cleanup.push(async () => child.proc.kill("SIGKILL"));
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(child.url + p, {
        method,
        headers: {"content-type": "application/json", "x-glacier-api-key": KEY},
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as Record<string, any>;
    };
    // The chain is followed once its RPC answered: the webhooks are made before any traffic.
    let ids: string[] = [];
    for (const until = Date.now() + 30_000; ids.length < 2 && Date.now() < until; ) {
      for (const r of [a, b].slice(ids.length)) {
        const made = await api("POST", "/v1/webhooks", {
          eventType: "address_activity",
          url: r.url,
          chainId: CHAIN,
          includeLogs: true,
          includeInternalTxs: true,
          metadata: {addresses: WATCHED},
        });
        if (typeof made.id === "string") ids = [...ids, made.id];
        else await new Promise((res) => setTimeout(res, 200));
      }
    }
    expect(ids).toHaveLength(2);
    const {secret} = await api("GET", "/v1/webhooks:getSharedSecret");

    const traffic = new DevEvmTraffic({accounts: [...ANVIL_ACCOUNTS]});
    let tick = 0;
    const ticks = async (n: number): Promise<void> => {
      for (const end = tick + n; tick < end; tick++) await runTick(anvil, traffic, tick, 1_700_000_010 + tick * 2);
    };
    let s = Date.now() % 100000 || 1;
    const rand = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s / 2 ** 32);
    for (let round = 0; round < 3; round++) {
      await ticks(30);
      // Deliveries under way: a random moment, then receiver b goes down and avaext dies.
      await new Promise((r) => setTimeout(r, 100 + Math.floor(rand() * 800)));
      await b.down();
      child.proc.kill("SIGKILL");
      await child.exited;
      await ticks(5);
      child = await startChild(flags, 60_000);
      await new Promise((r) => setTimeout(r, 500));
      await b.up();
    }
    await ticks(10);
    const head = BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
    // Caught up (head and trace lane), then the deliveries settle: b's failed attempts come back after 10 s.
    type Lanes = Record<string, {covered: string | null}>;
    for (const until = Date.now() + 120_000; ; ) {
      const health = (await fetch(`${child.url}/ext/health`).then((x) => x.json())) as {
        checks: Record<string, {message?: {head?: string; lanes?: Lanes}}>;
      };
      const c = health.checks[`evm:${CHAIN}`]?.message;
      if (c?.head === String(head) && c.lanes?.traces?.covered === String(head)) break;
      if (Date.now() > until) throw new Error(`not caught up: ${JSON.stringify(c)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Then until the delivery log shows nothing pending (a message that failed twice waits a minute for attempt 3).
    let idle = 0;
    for (const until = Date.now() + 240_000; ; ) {
      const pending = await Promise.all(
        ids.map(
          async (id) => ((await api("GET", `/v1/webhooks/${id}/messages?state=pending`)).messages as unknown[]).length,
        ),
      );
      // Twice in a row, a second apart: a block folded last may still be its one row, not yet messages (delivery
      // makes them within a poll, views/evm/webhookOutbox.ts).
      if (pending.every((n) => n === 0)) {
        if (++idle >= 2) break;
      } else idle = 0;
      if (Date.now() > until) throw new Error(`still pending: ${pending.join(", ")}`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);

    const {expected, undelivered} = await withStore(url, storeDir, async (sql) => {
      const rows = await sql.query<{tx: string}>(
        "SELECT DISTINCT '0x' || encode(t.hash, 'hex') AS tx FROM evm_address_txs x JOIN evm_txs t USING (chain_id, block_number, tx_index) WHERE x.chain_id = $1 AND x.address = ANY($2::bytea[])",
        [CHAIN, WATCHED.map((w) => Buffer.from(w.slice(2), "hex"))],
      );
      const pending = await sql.query<{n: bigint}>(
        "SELECT (SELECT count(*) FROM webhook_outbox WHERE state <> 'delivered') + (SELECT count(*) FROM webhook_outbox_blocks) AS n",
      );
      return {expected: rows.map((r) => r.tx).sort(), undelivered: Number(pending[0]!.n)};
    });
    expect(expected.length).toBeGreaterThan(30);
    expect(undelivered).toBe(0);
    for (const [i, r] of [a, b].entries()) {
      const idOf = new Map<string, string>();
      for (const d of r.deliveries) {
        const p = (await ck.validateWebhook({
          request: {body: d.body, headers: d.headers, url: r.url, method: "POST"},
          secret,
        })) as {messageId: string; webhookId: string; event: {transaction: {txHash: string}}};
        expect(p.webhookId).toBe(ids[i]);
        const tx = p.event.transaction.txHash;
        // A duplicate carries the ID already seen for its transaction.
        expect(idOf.get(tx) ?? p.messageId, tx).toBe(p.messageId);
        idOf.set(tx, p.messageId);
      }
      const received = new Set(
        r.deliveries
          .filter((d) => d.answered === 200)
          .map((d) => JSON.parse(d.body).event.transaction.txHash as string),
      );
      expect([...received].sort(), `receiver ${i}`).toEqual(expected);
      expect([...idOf.keys()].sort()).toEqual(expected);
      console.log(
        `webhooks crash test (${backend.name}): receiver ${i}: ${r.deliveries.length} deliveries of ${expected.length} events`,
      );
    }
  }, 600_000);
});
