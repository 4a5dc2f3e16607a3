/**
 * Webhook delivery over the real wire, on both store backends, from a real anvil through the EVM fold's outbox to
 * real HTTP receivers on 127.0.0.1 (so `--webhooks-allow-private-urls`): every transaction touching a watched
 * address arrives, signed so that chainkit's `validateWebhook` accepts it, in RFC 8785 canonical JSON, with its
 * transfers, logs and internal transactions; a receiver that answers 500, slowly, or never is retried on the hosted
 * schedule (the node's webhook clock is moved, not waited for), gets the same message ID and bytes each time, and
 * a webhook whose receiver stays down past the schedule is deactivated with the reason in its GET.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Avalanche} from "@avalanche-sdk/chainkit";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {DevFactory, DevToken} from "../../src/dev/evm/artifacts.js";
import {contractAddress} from "../../src/dev/evm/traffic.js";
import {encodeAbi, encodeCall} from "../../src/evm/abi.js";
import {bytesToHex} from "../../src/evm/hex.js";
import {RETRY_DELAYS_MS} from "../../src/dataApi/webhooks/delivery.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {startNode, type TestNode} from "../helpers/node.js";
import {startReceiver, type Receiver} from "../helpers/webhookReceiver.js";
import {keysFile, validated, webhookNodeFlags} from "../helpers/webhooks.js";

const CHAIN = "99998";
const KEY = "key-a-0123456789";
const ME = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const YOU = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const THEM = "0x976EA74026E726554dB657fA54763abd0C3a0aa9";
const ck = new Avalanche({enableTelemetry: false});

describe.each(STORE_BACKENDS)("webhook delivery ($name)", (backend) => {
  let anvil: Anvil;
  let t: TestNode;
  let offset = 0;
  const receivers: Receiver[] = [];
  const rpc = (method: string, params: unknown[]): Promise<unknown> => anvil.rawCall(method, params);
  const sendTx = async (tx: Record<string, unknown>): Promise<string> => {
    const hash = (await rpc("eth_sendTransaction", [{gas: "0x7a1200", ...tx}])) as string;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      if (await rpc("eth_getTransactionReceipt", [hash])) return hash;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no receipt for ${hash}`);
  };
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(new URL(p, t.url), {
      method,
      headers: {"content-type": "application/json", "x-glacier-api-key": KEY},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };
  const receiver = async (mode: Parameters<typeof startReceiver>[0]): Promise<Receiver> => {
    const r = await startReceiver(mode);
    receivers.push(r);
    return r;
  };
  const hook = async (url: string, addresses: string[], extra: Record<string, unknown> = {}): Promise<string> => {
    const made = await call("POST", "/v1/webhooks", {
      eventType: "address_activity",
      url,
      chainId: CHAIN,
      metadata: {addresses},
      ...extra,
    });
    expect(made.id, JSON.stringify(made)).toBeTypeOf("string");
    return made.id as string;
  };
  /** Moves the webhooks' clock on, then waits until `r` has `n` deliveries. */
  const advance = async (ms: number, r: Receiver, n: number): Promise<void> => {
    offset += ms;
    t.node.dataApi!.webhooks!.poke();
    await r.waitFor(n, 30_000);
  };

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "auto"},
      {logger: quietLogger()},
    );
    t = await startNode(
      webhookNodeFlags(anvil.url, keysFile(), await backend.db(), {
        "webhooks-allow-private-urls": true,
        "webhooks-timeout": "2s",
      }),
      {overrides: {webhookClock: () => Date.now() + offset}},
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t?.close();
    await anvil?.stop();
  });

  it("delivers every transaction of a watched address, signed and canonical, with its transfers, logs and internal calls", async () => {
    const r = await receiver("ok");
    const id = await hook(r.url, [YOU], {includeLogs: true, includeInternalTxs: true});
    const {secret} = await call("GET", "/v1/webhooks:getSharedSecret");
    const nonce = Number(BigInt((await rpc("eth_getTransactionCount", [ME, "latest"])) as string));
    const token = contractAddress(ME, nonce);
    const factory = contractAddress(ME, nonce + 1);
    await sendTx({
      from: ME,
      data:
        DevToken.bytecode + bytesToHex(encodeAbi(["string", "string", "uint256"], ["Hook Token", "HT", 10n ** 24n])),
    });
    await sendTx({from: ME, data: DevFactory.bytecode});
    const plain = await sendTx({from: ME, to: YOU, value: "0x2710"});
    const transfer = await sendTx({
      from: ME,
      to: token,
      data: encodeCall("transfer(address,uint256)", ["address", "uint256"], [YOU, 1234n]),
    });
    const fanout = await sendTx({
      from: ME,
      to: factory,
      value: "0x3e8",
      data: encodeCall("fanout(address[])", ["address[]"], [[YOU, THEM]]),
    });
    await sendTx({from: ME, to: THEM, value: "0x1"}); // not watched
    await r.waitFor(3);
    await new Promise((res) => setTimeout(res, 1_000));
    expect(r.deliveries).toHaveLength(3);
    const got = await validated(r, secret);
    const byTx = new Map(got.map((g) => [g.event.transaction.txHash, g]));
    expect([...byTx.keys()].sort()).toEqual([plain, transfer, fanout].sort());
    expect(new Set(got.map((g) => g.messageId)).size).toBe(3);
    for (const g of got) expect(g).toMatchObject({webhookId: id, eventType: "address_activity"});
    expect(byTx.get(plain)!.event.transaction).toMatchObject({
      from: ME,
      to: YOU,
      value: "10000",
      chainId: CHAIN,
      txStatus: "1",
      erc20Transfers: [],
      networkToken: {tokenDecimals: 18},
    });
    const erc20 = byTx.get(transfer)!.event;
    expect(erc20.transaction.erc20Transfers).toEqual([
      expect.objectContaining({
        from: ME,
        to: YOU,
        value: "1234",
        type: "ERC20",
        erc20Token: expect.objectContaining({valueWithDecimals: expect.any(String)}),
      }),
    ]);
    expect(erc20.logs).toEqual([
      expect.objectContaining({
        topic0: "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
        removed: false,
        transactionIndex: 0,
      }),
    ]);
    expect(byTx.get(fanout)!.event.transaction.internalTransactions).toEqual(
      expect.arrayContaining([expect.objectContaining({to: YOU, value: expect.any(String)})]),
    );
    // The delivery log and the message's state, as the store has them.
    const states = async () =>
      (
        await t.node.dataApi!.sql.query<{state: string; attempts: number}>(
          "SELECT state, attempts FROM webhook_outbox WHERE webhook_id = $1",
          [id],
        )
      ).map((x) => `${x.state}:${x.attempts}`);
    await expect.poll(states, {timeout: 10_000}).toEqual(["delivered:1", "delivered:1", "delivered:1"]);
  });

  it("signs with a webhook's own secret when it has one", async () => {
    const r = await receiver("ok");
    const own = "my-own-secret-0123456789";
    await hook(r.url, [THEM], {secret: own});
    await sendTx({from: ME, to: THEM, value: "0x5"});
    await r.waitFor(1);
    const [g] = await validated(r, own);
    expect(g!.event.transaction.to).toBe(THEM);
    const {secret} = await call("GET", "/v1/webhooks:getSharedSecret");
    await expect(
      ck.validateWebhook({
        request: {body: r.deliveries[0]!.body, headers: r.deliveries[0]!.headers, url: r.url, method: "POST"},
        secret,
      }),
    ).rejects.toThrow(/Invalid signature/);
  });

  it("keeps a delivery log per webhook, and replays from a block height or a message", async () => {
    const r = await receiver("ok");
    const watched = "0x" + "9a".repeat(20);
    const id = await hook(r.url, [watched]);
    const first = await sendTx({from: ME, to: watched, value: "0x1"});
    const second = await sendTx({from: ME, to: watched, value: "0x2"});
    await r.waitFor(2);
    const delivered = async () => (await call("GET", `/v1/webhooks/${id}/messages?state=delivered`)).messages.length;
    await expect.poll(delivered, {timeout: 10_000}).toBe(2);
    const log = await call("GET", `/v1/webhooks/${id}/messages`);
    expect(log.messages).toHaveLength(2);
    expect(log.messages.map((x: {txHash: string}) => x.txHash).sort()).toEqual([first, second].sort());
    expect(
      log.messages.every((x: {state: string; attempts: number}) => x.state === "delivered" && x.attempts === 1),
    ).toBe(true);
    const later = log.messages.find((x: {txHash: string}) => x.txHash === second);
    const earlier = log.messages.find((x: {txHash: string}) => x.txHash === first);
    const one = await call("GET", `/v1/webhooks/${id}/messages/${later.messageId}`);
    expect(one.attemptLog).toEqual([
      expect.objectContaining({attempt: 1, statusCode: 200, latencyMs: expect.any(Number)}),
    ]);
    expect(one.body).toBe(r.deliveries.find((d) => JSON.parse(d.body).messageId === later.messageId)!.body);
    expect((await call("GET", `/v1/webhooks/${id}/messages?state=pending`)).messages).toEqual([]);

    expect(await call("POST", `/v1/webhooks/${id}/replay`, {fromBlock: Number(later.blockNumber)})).toEqual({
      replayed: 1,
    });
    await r.waitFor(3);
    expect(r.deliveries[2]!.body).toBe(one.body);
    expect(await call("POST", `/v1/webhooks/${id}/replay`, {fromMessageId: earlier.messageId})).toEqual({replayed: 2});
    await r.waitFor(5);
    expect(new Set(r.deliveries.map((d) => JSON.parse(d.body).messageId))).toEqual(
      new Set([earlier.messageId, later.messageId]),
    );
    // The receiver has it before avaext records the answer.
    await expect
      .poll(
        async () =>
          (await call("GET", `/v1/webhooks/${id}/messages/${later.messageId}`)).attemptLog.map(
            (x: {attempt: number}) => x.attempt,
          ),
        {timeout: 10_000},
      )
      .toEqual([1, 2, 3]);
    for (const [b, field] of [
      [{}, "fromBlock"],
      [{fromBlock: "x"}, "fromBlock"],
      [{fromBlock: "9999999999999999999"}, "fromBlock"],
      [{fromBlock: 1, fromMessageId: "a"}, "fromBlock"],
      [{fromMessageId: "nope"}, "fromMessageId"],
      [{since: 1}, "since"],
    ] as const) {
      expect((await call("POST", `/v1/webhooks/${id}/replay`, b)).message).toMatch(new RegExp(`^${field}: `));
    }
    expect((await call("GET", `/v1/webhooks/${id}/messages/nope`)).statusCode).toBe(404);
  });

  it("pauses an inactive webhook's pending messages and delivers them once it is active again", async () => {
    const r = await receiver("fail");
    const watched = "0x" + "bc".repeat(20);
    const id = await hook(r.url, [watched]);
    await sendTx({from: ME, to: watched, value: "0x3"});
    await r.waitFor(1);
    await call("DELETE", `/v1/webhooks/${id}`);
    expect((await call("GET", `/v1/webhooks/${id}/messages?state=paused`)).messages).toHaveLength(1);
    await sendTx({from: ME, to: watched, value: "0x4"}); // not enqueued: the webhook is inactive
    offset += RETRY_DELAYS_MS[0]!;
    t.node.dataApi!.webhooks!.poke();
    await new Promise((res) => setTimeout(res, 500));
    expect(r.deliveries).toHaveLength(1);
    r.mode = "ok";
    expect((await call("PATCH", `/v1/webhooks/${id}`, {status: "active"})).status).toBe("active");
    await advance(RETRY_DELAYS_MS[0]!, r, 2);
    await expect
      .poll(
        async () => (await call("GET", `/v1/webhooks/${id}/messages`)).messages.map((x: {state: string}) => x.state),
        {timeout: 10_000},
      )
      .toEqual(["delivered"]);
  });

  it("retries a receiver that is down for a simulated day on the hosted schedule, with the same message and bytes", async () => {
    const r = await receiver("fail");
    const watched = "0x" + "12".repeat(20);
    const id = await hook(r.url, [watched]);
    await sendTx({from: ME, to: watched, value: "0x7"});
    await r.waitFor(1);
    // Attempts 2..9 after 10 s, 1 m, 5 m, 10 m, 30 m, 2 h, 6 h, 12 h (about 20.8 h): each only once its wait passed.
    for (let n = 1; n <= 8; n++) {
      offset += RETRY_DELAYS_MS[n - 1]! - 2_000;
      t.node.dataApi!.webhooks!.poke();
      await new Promise((res) => setTimeout(res, 400));
      expect(r.deliveries, `attempt ${n + 1} before its time`).toHaveLength(n);
      await advance(2_000, r, n + 1);
    }
    r.mode = "ok";
    await advance(RETRY_DELAYS_MS[8]!, r, 10);
    expect(new Set(r.deliveries.map((d) => d.body)).size).toBe(1);
    expect(new Set(r.deliveries.map((d) => d.headers["x-signature"])).size).toBe(1);
    const {secret} = await call("GET", "/v1/webhooks:getSharedSecret");
    await validated(r, secret);
    expect((await call("GET", `/v1/webhooks/${id}`)).status).toBe("active");
    const codes = async () =>
      (
        await t.node.dataApi!.sql.query<{status_code: number}>(
          "SELECT a.status_code FROM webhook_attempts a JOIN webhook_outbox o USING (message_id) WHERE o.webhook_id = $1 ORDER BY a.attempt",
          [id],
        )
      ).map((a) => a.status_code);
    await expect.poll(codes, {timeout: 10_000}).toEqual([500, 500, 500, 500, 500, 500, 500, 500, 500, 200]);
  });

  it("deactivates a webhook whose receiver never answers past the schedule, with the reason in its GET", async () => {
    const r = await receiver("silent");
    const watched = "0x" + "34".repeat(20);
    const id = await hook(r.url, [watched]);
    await sendTx({from: ME, to: watched, value: "0x9"});
    await r.waitFor(1);
    // Each attempt waits out the deadline (2 s here) on real time; the schedule's waits pass on the moved clock.
    // The schedule's wait counts from the attempt's end: the clock moves once the attempt is recorded.
    const recorded = async (n: number) =>
      expect
        .poll(
          async () =>
            Number(
              (
                await t.node.dataApi!.sql.query<{n: bigint}>(
                  "SELECT count(*)::int8 AS n FROM webhook_attempts a JOIN webhook_outbox o USING (message_id) WHERE o.webhook_id = $1",
                  [id],
                )
              )[0]!.n,
            ),
          {timeout: 30_000},
        )
        .toBe(n);
    for (let n = 1; n <= 9; n++) {
      await recorded(n);
      await advance(RETRY_DELAYS_MS[n - 1]!, r, n + 1);
    }
    let got = await call("GET", `/v1/webhooks/${id}`);
    for (const until = Date.now() + 30_000; got.status === "active" && Date.now() < until; ) {
      await new Promise((res) => setTimeout(res, 200));
      got = await call("GET", `/v1/webhooks/${id}`);
    }
    expect(got.status).toBe("inactive");
    expect(got.deactivationReason).toMatch(/failed 10 attempts .*no answer within 2000 ms/);
    expect(new Set(r.deliveries.map((d) => JSON.parse(d.body).messageId)).size).toBe(1);
  }, 240_000);

  it("counts a slow answer and a refused connection as failures", async () => {
    const slow = await receiver("slow");
    const closed = await receiver("ok");
    await closed.close();
    const a = "0x" + "56".repeat(20);
    const b = "0x" + "78".repeat(20);
    const slowId = await hook(slow.url, [a]);
    const closedId = await hook(closed.url, [b]);
    await sendTx({from: ME, to: a, value: "0x1"});
    await sendTx({from: ME, to: b, value: "0x1"});
    await slow.waitFor(1);
    const attempt = async (id: string) => {
      for (const until = Date.now() + 30_000; Date.now() < until; ) {
        const rows = await t.node.dataApi!.sql.query<{
          status_code: number;
          error: string;
          state: string;
          at: bigint;
          latency_ms: number;
          next_attempt_at: bigint;
        }>(
          "SELECT a.status_code, a.error, o.state, a.at, a.latency_ms, o.next_attempt_at FROM webhook_attempts a JOIN webhook_outbox o USING (message_id) WHERE o.webhook_id = $1",
          [id],
        );
        if (rows.length > 0) return rows[0]!;
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error(`no attempt for ${id}`);
    };
    const slowly = await attempt(slowId);
    expect(slowly).toMatchObject({status_code: 0, error: "no answer within 2000 ms", state: "pending"});
    // The next attempt is the schedule's wait after the failure (the 2 s deadline), not after the claim.
    expect(Number(slowly.next_attempt_at)).toBeGreaterThanOrEqual(
      Number(slowly.at) + slowly.latency_ms + RETRY_DELAYS_MS[0]! - 5,
    );
    expect(await attempt(closedId)).toMatchObject({
      status_code: 0,
      state: "pending",
      error: expect.stringMatching(/ECONNREFUSED/),
    });
  }, 60_000);
});
