/**
 * primary_network_address_activity and validator_activity webhooks on the dev network (`--feed dev`), on both store
 * backends: webhooks made through the real HTTP API with a dev key, then ticks of the dev network released by its
 * clock (P and X transfers, a delegation to a genesis validator at tick 5, the L1's conversion at 30, a balance
 * increase at 40 and a disable at 50): receivers on 127.0.0.1 get every P (or X) transaction that consumes or creates
 * a UTXO of their address, once, with the transaction as the /v1 endpoint serves it, signed so that chainkit's
 * validateWebhook accepts the signature (its schema knows address_activity only); a balance threshold fires once
 * when crossed and never when not (the fold writes no message for a transaction that did not cross); the validator webhooks get the delegation and the L1 events of their nodes only.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Avalanche} from "@avalanche-sdk/chainkit";
import {formatAddress} from "../../src/dataApi/server/names.js";
import {signature} from "../../src/dataApi/webhooks/post.js";
import {DEV_SCHEDULE, LOCAL_VALIDATORS, devKeys} from "../../src/dev/primaryNetwork.js";
import {canonicalJson} from "../../src/util/canonicalJson.js";
import {STORE_BACKENDS} from "../helpers/sql.js";
import {until} from "../helpers/devNode.js";
import {startReceiver, type Receiver} from "../helpers/webhookReceiver.js";
import {startHeldDevNode} from "../helpers/webhooks.js";

const ck = new Avalanche({enableTelemetry: false});
const keys = devKeys();
const addr = (chain: "P" | "X", k: number): string => `${chain}-${formatAddress(keys[k]!.address, "local")}`;
/** Ticks released after the webhooks are made: past the L1's disable (tick 50) and the delegation at 53. */
const LAST_TICK = 56;

describe.each(STORE_BACKENDS)("primary-network and validator webhooks ($name)", (backend) => {
  let held: Awaited<ReturnType<typeof startHeldDevNode>>;
  const receivers: Receiver[] = [];
  const call = (method: string, p: string, body?: unknown) => held.call(method, p, body);
  const receiver = async (): Promise<Receiver> => {
    const r = await startReceiver("ok");
    receivers.push(r);
    return r;
  };
  const hook = async (url: string, body: Record<string, unknown>): Promise<string> => {
    const made = await call("POST", "/v1/webhooks", {url, network: "local", ...body});
    expect(made.id, JSON.stringify(made)).toBeTypeOf("string");
    return made.id as string;
  };
  const sql = () => held.node.node.dataApi!.sql;
  const pHeight = () => held.pHeight();
  /** The folded P transactions of `types` (or any) touching `k`'s address from `fromHeight` on. */
  const touching = async (chain: "P" | "X", k: number, from: {height?: number; seq?: number}): Promise<string[]> =>
    (
      await sql().query<{tx_id: string}>(
        `SELECT DISTINCT t.tx_id FROM tx_addresses ta JOIN txs t ON t.chain = ta.chain AND t.seq = ta.seq
         WHERE ta.chain = $1 AND ta.address = $2 AND t.block_height >= $3 AND t.seq >= $4`,
        [chain, keys[k]!.address, from.height ?? 0, from.seq ?? 0],
      )
    ).map((r) => r.tx_id);

  beforeAll(async () => {
    // The dev network's clock stands still until the test lets its ticks come (2 s of chain time each).
    held = await startHeldDevNode(await backend.db(), "10m", 2, 60_000);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await held?.node.close();
  });

  it("delivers the P and X activity of watched addresses, thresholds crossed, and validator events, once each", async () => {
    const [pAll, xAll, stranger, crossed, notCrossed, delegations, otherSub, l1] = await Promise.all(
      Array.from({length: 8}, receiver),
    );
    const balance = async (k: number): Promise<bigint> => {
      const b = await call("GET", `/v1/networks/local/blockchains/p-chain/balances?addresses=${addr("P", k)}`);
      return BigInt(
        ((b.balances?.unlockedUnstaked ?? []) as Array<{amount: string}>).reduce((a, x) => a + BigInt(x.amount), 0n),
      );
    };
    // Key 4 is paid on P at every third tick (src/dev/primaryNetwork.ts pTransfer) and spends nothing there.
    const b4 = await balance(4);
    const pn = (url: string, chainId: string, keyList: string[], subs: string[], extra: Record<string, unknown> = {}) =>
      hook(url, {
        eventType: "primary_network_address_activity",
        chainId,
        metadata: {keyType: "addresses", keys: keyList, subEvents: {addressActivitySubEvents: subs}, ...extra},
      });
    const ids = {
      pAll: await pn(pAll.url, "p-chain", [addr("P", 4)], ["balance_change"]),
      xAll: await pn(xAll.url, "x-chain", [addr("X", 2)], ["balance_change"]),
      // Key 6 is only paid rewards (days away): nothing in these ticks.
      stranger: await pn(stranger.url, "p-chain", [addr("P", 6)], ["balance_change", "balance_threshold"], {
        balanceThresholdFilter: {balanceType: "unlockedUnstaked", balanceThreshold: "1"},
      }),
      crossed: await pn(crossed.url, "p-chain", [addr("P", 4)], ["balance_threshold"], {
        balanceThresholdFilter: {balanceType: "unlockedUnstaked", balanceThreshold: String(b4 + 1n)},
      }),
      notCrossed: await pn(notCrossed.url, "p-chain", [addr("P", 4)], ["balance_threshold"], {
        balanceThresholdFilter: {balanceType: "unlockedUnstaked", balanceThreshold: String(b4 + 10n ** 18n)},
      }),
    };
    const va = (url: string, keyList: string[], subs: string[]) =>
      hook(url, {
        eventType: "validator_activity",
        metadata: {keyType: "nodeId", keys: keyList, subEvents: {validatorActivitySubEvents: subs}},
      });
    // Tick 5 delegates to LOCAL_VALIDATORS[0] (5 % 5), tick 53 to LOCAL_VALIDATORS[3]: only the first is watched.
    const vIds = {
      delegations: await va(delegations.url, [LOCAL_VALIDATORS[0]!], ["delegator_stake", "validator_stake"]),
      otherSub: await va(otherSub.url, [LOCAL_VALIDATORS[0]!], ["validator_stake"]),
      l1: await va(
        l1.url,
        [...LOCAL_VALIDATORS],
        ["l1_validator_balance_increased", "l1_validator_disabled", "l1_validator_removed"],
      ),
    };
    // Bad bodies are refused, naming the field.
    expect(
      (
        await call("POST", "/v1/webhooks", {
          eventType: "primary_network_address_activity",
          url: pAll.url,
          network: "local",
          chainId: "p-chain",
          metadata: {
            keyType: "addresses",
            keys: ["P-avax1xyz"],
            subEvents: {addressActivitySubEvents: ["balance_change"]},
          },
        })
      ).message,
    ).toMatch(/^metadata\.keys\[0\]: /);
    expect(
      (
        await call("POST", "/v1/webhooks", {
          eventType: "primary_network_address_activity",
          url: pAll.url,
          network: "local",
          chainId: "x-chain",
          metadata: {
            keyType: "addresses",
            keys: [addr("X", 2)],
            subEvents: {addressActivitySubEvents: ["balance_threshold"]},
            balanceThresholdFilter: {balanceType: "lockedStaked", balanceThreshold: "1"},
          },
        })
      ).message,
    ).toMatch(/^metadata\.balanceThresholdFilter\.balanceType: /);
    const hooks = await Promise.all(
      [...Object.values(ids), ...Object.values(vIds)].map((id) => call("GET", `/v1/webhooks/${id}`)),
    );
    const from = Number(
      (await sql().query<{f: string}>("SELECT from_block::text AS f FROM webhooks WHERE id = $1", [ids.pAll]))[0]!.f,
    );
    expect(from).toBe((await pHeight()) + 1);
    const xFrom = Number(
      (await sql().query<{f: string}>("SELECT from_block::text AS f FROM webhooks WHERE id = $1", [ids.xAll]))[0]!.f,
    );
    expect(hooks.map((h) => h.status)).toEqual(Array(8).fill("active"));
    const {secret} = await call("GET", "/v1/webhooks:getSharedSecret");

    // Let the ticks come: 2 s of chain time each, from the last one folded.
    held.release(LAST_TICK * 2_000);
    await until(
      () => "the view did not fold the released ticks",
      async () =>
        held.node.node.dataApi!.view!.lag() === 0n &&
        Number(
          (
            await sql().query<{n: string}>(
              "SELECT count(*)::text AS n FROM txs WHERE chain = 'P' AND tx_type = 'DisableL1ValidatorTx'",
            )
          )[0]!.n,
        ) > 0,
      90_000,
    );

    const pExpected = await touching("P", 4, {height: from});
    const xExpected = await touching("X", 2, {seq: xFrom});
    expect(pExpected.length).toBeGreaterThan(5);
    expect(xExpected.length).toBeGreaterThan(5);
    await pAll.waitFor(pExpected.length, 60_000);
    await xAll.waitFor(xExpected.length, 60_000);
    await crossed.waitFor(1, 60_000);
    await delegations.waitFor(1, 60_000);
    await l1.waitFor(2, 60_000);
    // Anything else due would have come by now.
    await new Promise((r) => setTimeout(r, 1_500));

    for (const r of [pAll, xAll, crossed, delegations, l1]) {
      for (const d of r.deliveries) {
        expect(d.headers["x-signature"]).toBe(signature(d.body, secret));
        expect(d.body).toBe(canonicalJson(JSON.parse(d.body)));
        // chainkit checks the signature first: a valid one gets as far as its schema (address_activity only)...
        await expect(
          ck.validateWebhook({request: {body: d.body, headers: d.headers, url: r.url, method: "POST"}, secret}),
        ).rejects.toThrow(/No matching schema/);
      }
    }
    // ...and a forged body never does.
    const d0 = pAll.deliveries[0]!;
    await expect(
      ck.validateWebhook({
        request: {
          body: d0.body.replace("balance_change", "balance_chang3"),
          headers: d0.headers,
          url: pAll.url,
          method: "POST",
        },
        secret,
      }),
    ).rejects.not.toThrow(/No matching schema/);

    // Each touching transaction once (a repeat would be the same messageId: none here), and nothing else.
    const pGot = pAll.accepted();
    expect(pGot.map((p) => p.event.txHash).sort()).toEqual([...pExpected].sort());
    expect(new Set(pGot.map((p) => p.messageId)).size).toBe(pGot.length);
    for (const p of pGot) {
      expect(p).toMatchObject({
        webhookId: ids.pAll,
        eventType: "primary_network_address_activity",
        event: {subEvent: "balance_change", network: "local", addresses: [addr("P", 4)]},
      });
      const served = await call("GET", `/v1/networks/local/blockchains/p-chain/transactions/${p.event.txHash}`);
      expect(p.event.transaction).toEqual(served);
    }
    const xGot = xAll.accepted();
    expect(xGot.map((p) => p.event.txHash).sort()).toEqual([...xExpected].sort());
    const xServed = await call("GET", `/v1/networks/local/blockchains/x-chain/transactions/${xGot[0]!.event.txHash}`);
    expect(xGot[0]!.event.transaction).toEqual(xServed);

    expect(stranger.deliveries).toEqual([]);
    expect(notCrossed.deliveries).toEqual([]);
    expect(crossed.accepted()).toHaveLength(1);
    const c = crossed.accepted()[0]!.event;
    expect(c).toMatchObject({
      subEvent: "balance_threshold",
      address: addr("P", 4),
      balanceType: "unlockedUnstaked",
      balanceThreshold: String(b4 + 1n),
      previousBalance: String(b4),
      direction: "above",
    });
    expect(BigInt(c.balance)).toBeGreaterThan(b4);
    // The fold wrote the crossing only: no message for the transactions that did not cross, none to skip.
    const log = await call("GET", `/v1/webhooks/${ids.crossed}/messages?pageSize=100`);
    expect(log.messages.map((m: {state: string}) => m.state)).toEqual(["delivered"]);
    expect((await call("GET", `/v1/webhooks/${ids.notCrossed}/messages?pageSize=100`)).messages).toEqual([]);

    const del = delegations.accepted();
    expect(del).toHaveLength(1);
    expect(del[0]).toMatchObject({
      webhookId: vIds.delegations,
      eventType: "validator_activity",
      event: {subEvent: "delegator_stake", nodeId: LOCAL_VALIDATORS[0], weight: String(25n * 10n ** 9n)},
    });
    expect(del[0]!.event.transaction.txType).toMatch(/DelegatorTx$/);
    expect(otherSub.deliveries).toEqual([]);

    const l1Got = l1.accepted();
    expect(l1Got.map((p) => p.event.subEvent).sort()).toEqual([
      "l1_validator_balance_increased",
      "l1_validator_disabled",
    ]);
    const stored = await sql().query<{tx_id: string; tx_type: string}>(
      "SELECT tx_id, tx_type FROM txs WHERE chain = 'P' AND tx_type IN ('IncreaseL1ValidatorBalanceTx', 'DisableL1ValidatorTx') ORDER BY seq",
    );
    expect(l1Got.map((p) => p.event.txHash).sort()).toEqual(stored.map((s) => s.tx_id).sort());
    for (const p of l1Got) {
      expect(p.event.validationId).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
      expect(p.event.transaction.txHash).toBe(p.event.txHash);
    }
    expect(DEV_SCHEDULE.l1Disable).toBeLessThan(LAST_TICK);
  }, 240_000);
});
