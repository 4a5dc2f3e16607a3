/**
 * reward_distribution and l1_validator_balance_threshold webhooks on the dev network (`--feed dev`), on both store
 * backends. The backfill ends 5 minutes of chain time before the first staker the dev network added ends (the
 * delegation of tick 5 to LOCAL_VALIDATORS[0], a day long: src/dev/primaryNetwork.ts), with the dev L1 converted in
 * it; the webhooks are made, then the live ticks are released (2 s of chain time each) past that reward.
 * genesis_local's validators take a 100 % delegation fee, which from Cortina accrues on the validator until its own
 * end (AvalancheGo's rewardDelegatorTx): the reward pays nothing now, so its payee's and its node's
 * reward_distribution webhooks get nothing. An L1 validator whose remaining balance the fees took under the watched
 * threshold is reported once, and no other.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {formatAddress} from "../../src/dataApi/server/names.js";
import {signature} from "../../src/dataApi/webhooks/post.js";
import {LOCAL_VALIDATORS, devKeys} from "../../src/dev/primaryNetwork.js";
import {STORE_BACKENDS} from "../helpers/sql.js";
import {until} from "../helpers/devNode.js";
import {startReceiver, type Receiver} from "../helpers/webhookReceiver.js";
import {startHeldDevNode} from "../helpers/webhooks.js";

const keys = devKeys();
const addr = (chain: "P" | "X", k: number): string => `${chain}-${formatAddress(keys[k]!.address, "local")}`;
/** Live ticks released: the reward is due 150 ticks (5 minutes) after the backfill. */
const RELEASED_TICKS = 165;

describe.each(STORE_BACKENDS)("reward and L1 balance webhooks ($name)", (backend) => {
  let held: Awaited<ReturnType<typeof startHeldDevNode>>;
  const receivers: Receiver[] = [];
  const call = (method: string, p: string, body?: unknown) => held.call(method, p, body);
  const hook = async (body: Record<string, unknown>): Promise<{id: string; receiver: Receiver}> => {
    const receiver = await startReceiver("ok");
    receivers.push(receiver);
    const made = await call("POST", "/v1/webhooks", {url: receiver.url, network: "local", ...body});
    expect(made.id, JSON.stringify(made)).toBeTypeOf("string");
    return {id: made.id as string, receiver};
  };
  const sql = () => held.node.node.dataApi!.sql;
  const pHeight = () => held.pHeight();
  /** Each active L1 validator's remaining balance, as the fold holds it (l1.ts remainingBalance). */
  const remaining = async (): Promise<Map<string, {nodeId: string; balance: bigint}>> => {
    const rows = await sql().query<{validation_id: string; node_id: string; r: string}>(
      `SELECT validation_id, node_id,
              GREATEST(end_accumulated_fee - COALESCE((SELECT value FROM data_api_meta WHERE key = 'view.l1.accruedFees'), '0')::numeric, 0)::text AS r
       FROM l1_validators WHERE end_accumulated_fee <> 0`,
    );
    return new Map(rows.map((r) => [r.validation_id, {nodeId: r.node_id, balance: BigInt(r.r)}]));
  };

  beforeAll(async () => {
    // 292 ticks of 5 minutes: the delegation of tick 5 (at 25 minutes) ends at 24h25m, 5 minutes after.
    held = await startHeldDevNode(await backend.db(), "24h20m", 292, 120_000);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await held?.node.close();
  });

  it("sends nothing for a reward that pays nothing now, and an L1 balance fallen under a threshold once", async () => {
    const rewards = await hook({
      eventType: "primary_network_address_activity",
      chainId: "p-chain",
      metadata: {
        keyType: "addresses",
        keys: [addr("P", 2)],
        subEvents: {addressActivitySubEvents: ["reward_distribution"]},
      },
    });
    const va = (nodeIds: string[], subs: string[], extra: Record<string, unknown> = {}) =>
      hook({
        eventType: "validator_activity",
        metadata: {keyType: "nodeId", keys: nodeIds, subEvents: {validatorActivitySubEvents: subs}, ...extra},
      });
    const nodeRewards = await va([LOCAL_VALIDATORS[0]!], ["reward_distribution"]);
    const otherNode = await va([LOCAL_VALIDATORS[1]!], ["reward_distribution"]);
    // The threshold: 1 nAVAX under the smallest remaining balance among the watched L1 validators now, so the
    // fees of the released ticks take that one (and any as low) under it.
    const before = await remaining();
    const watched = new Set<string>(LOCAL_VALIDATORS);
    const lows = [...before.values()].filter((v) => watched.has(v.nodeId)).map((v) => v.balance);
    expect(lows.length).toBeGreaterThan(0);
    const threshold = lows.reduce((a, b) => (b < a ? b : a)) - 1n;
    const l1 = await va([...LOCAL_VALIDATORS], ["l1_validator_balance_threshold"], {
      l1ValidatorFeeBalanceThreshold: threshold.toString(),
    });
    // A threshold under every balance: no crossing in these ticks.
    const l1Low = await va([...LOCAL_VALIDATORS], ["l1_validator_balance_threshold"], {
      l1ValidatorFeeBalanceThreshold: "1",
    });
    const from = await pHeight();
    const {secret} = await call("GET", "/v1/webhooks:getSharedSecret");

    held.release(RELEASED_TICKS * 2_000);
    const rewardTxs = async () =>
      (
        await sql().query<{tx_id: string}>(
          "SELECT tx_id FROM txs WHERE chain = 'P' AND tx_type = 'RewardValidatorTx' AND block_height > $1 ORDER BY seq",
          [from],
        )
      ).map((r) => r.tx_id);
    await until(
      () => "the view did not fold the reward",
      async () =>
        held.node.node.dataApi!.view!.lag() === 0n &&
        (await pHeight()) >= from + RELEASED_TICKS &&
        (await rewardTxs()).length > 0,
      120_000,
    );
    const [rewardTx, ...more] = await rewardTxs();
    expect(more).toEqual([]);
    // The whole reward is the validator's fee, accrued on it: no payout, so no reward_distribution message.
    const [staker] = await sql().query<{kind: string; status: string; reward: string; shares: number; accrued: string}>(
      `SELECT d.kind, d.status, d.potential_reward::text AS reward, v.delegation_shares AS shares, v.accrued_delegatee_reward::text AS accrued
       FROM stakers d JOIN stakers v ON v.tx_id = d.validator_tx_id WHERE d.reward_tx_id = $1`,
      [rewardTx],
    );
    expect(staker).toMatchObject({kind: "delegator", status: "rewarded", shares: 1_000_000});
    expect(BigInt(staker!.reward)).toBeGreaterThan(0n);
    expect(BigInt(staker!.accrued)).toBeGreaterThanOrEqual(BigInt(staker!.reward));
    await l1.receiver.waitFor(1, 60_000);
    // Anything else due would have come by now.
    await new Promise((r) => setTimeout(r, 1_500));

    for (const h of [l1]) {
      for (const d of h.receiver.deliveries) expect(d.headers["x-signature"]).toBe(signature(d.body, secret));
    }

    expect(rewards.receiver.deliveries).toEqual([]);
    expect(nodeRewards.receiver.deliveries).toEqual([]);
    expect(otherNode.receiver.deliveries).toEqual([]);
    expect((await call("GET", `/v1/webhooks/${rewards.id}/messages?pageSize=100`)).messages).toEqual([]);

    // The L1 validators: each watched one whose balance went from at or above the threshold to under it, once.
    const after = await remaining();
    const crossed = [...before.entries()]
      .filter(
        ([id, v]) => watched.has(v.nodeId) && v.balance >= threshold && (after.get(id)?.balance ?? 0n) < threshold,
      )
      .map(([id]) => id)
      .sort();
    expect(crossed.length).toBeGreaterThan(0);
    const l1Got = l1.receiver.accepted();
    expect(l1Got.map((p) => p.event.validationId).sort()).toEqual(crossed);
    for (const p of l1Got) {
      expect(p).toMatchObject({
        webhookId: l1.id,
        eventType: "validator_activity",
        event: {subEvent: "l1_validator_balance_threshold", l1ValidatorFeeBalanceThreshold: threshold.toString()},
      });
      expect(BigInt(p.event.previousBalance)).toBeGreaterThanOrEqual(threshold);
      expect(BigInt(p.event.remainingBalance)).toBeLessThan(threshold);
      expect(watched.has(p.event.nodeId)).toBe(true);
    }
    expect(l1Low.receiver.deliveries).toEqual([]);
  }, 300_000);
});
