/**
 * The dev network's own validators and delegators, as the data API folds them over the real wire, after three and
 * a half days of history: the first validator (added by an AddPermissionlessValidatorTx at the first tick, 3 days)
 * and its two delegators have ended with their RewardValidatorTx, their rewards paid to their owners (the
 * validation's to key 6, the delegation fees to key 7 in one UTXO at the validation's end, the delegations' to
 * key 2); the validators of days 1-3 are active, pending their rewards, and so are the delegations still staking.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {formatAddress} from "../../src/dataApi/server/names.js";
import {devKeys, devStakers} from "../../src/dev/primaryNetwork.js";
import {startNode, type TestNode} from "../helpers/node.js";

const FLAGS = {
  "network-id": "local",
  "index-enabled": true,
  feed: "dev",
  "dev-evm": false,
  "dev-backfill": "84h",
  "data-api-enabled": true,
  "data-api-rate-limit": "0",
};

describe("the dev network's transaction-added stakers through the data API", () => {
  let t: TestNode;
  const own = devStakers().map((s) => s.nodeId);
  const keys = devKeys();
  const address = (k: number): string => formatAddress(keys[k]!.address, "local");

  beforeAll(async () => {
    const started = Math.floor(Date.now() / 1000);
    t = await startNode(FLAGS);
    // 1,008 ticks backfilled, the last 5 minutes before the start: wait for the view to fold them all.
    const deadline = Date.now() + 240_000;
    for (;;) {
      const view = t.node.dataApi?.view;
      const [row] = await t.node.dataApi!.sql.query<{ts: string | null}>(
        "SELECT max(ts)::text AS ts FROM blocks WHERE chain = 'P'",
      );
      if (view && view.lag() === 0n && Number(row?.ts ?? 0) >= started - 400) break;
      if (Date.now() > deadline) throw new Error("the view did not fold the backfill");
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 300_000);
  afterAll(async () => t?.close());

  it("ends the first validation and its delegations with rewards", async () => {
    type V = {
      txHash: string;
      nodeId: string;
      validationStatus: string;
      amountStaked: string;
      delegatorCount: number;
      rewards?: {
        validationRewardAmount: string;
        delegationRewardAmount: string;
        rewardTxHash?: string;
        rewardAddresses: string[];
      };
    };
    const completed = (
      (await t.get(`/v1/networks/local/validators?validationStatus=completed&nodeIds=${own.join(",")}`)).json() as {
        validators: V[];
      }
    ).validators;
    expect(completed.map((v) => [v.nodeId, v.amountStaked])).toEqual([[own[0], String(2_000e9)]]);
    const [v] = completed as [V];
    expect(v.delegatorCount).toBe(2);
    expect(BigInt(v.rewards!.validationRewardAmount)).toBeGreaterThan(0n);
    expect(BigInt(v.rewards!.delegationRewardAmount)).toBeGreaterThan(0n);
    expect(v.rewards!.rewardAddresses).toEqual([address(6)]);
    const [reward] = await t.node.dataApi!.sql.query<{tx_type: string}>(
      "SELECT tx_type FROM txs WHERE chain = 'P' AND tx_id = $1",
      [v.rewards!.rewardTxHash],
    );
    expect(reward!.tx_type).toBe("RewardValidatorTx");

    type D = {nodeId: string; delegationStatus: string; amountDelegated: string; grossReward?: string};
    const delegators = ((await t.get(`/v1/networks/local/delegators?nodeIds=${own[0]}`)).json() as {delegators: D[]})
      .delegators;
    expect(delegators.map((d) => [d.delegationStatus, d.amountDelegated]).sort()).toEqual([
      ["completed", String(100e9)],
      ["completed", String(25e9)],
    ]);
    for (const d of delegators) expect(BigInt(d.grossReward!)).toBeGreaterThan(0n);

    // The reward UTXOs, by their owners: the validation's, the delegation fees', the delegations'.
    type H = {rewardType: string; nodeId: string; reward: {amount: string}};
    const paid = async (k: number): Promise<H[]> =>
      (
        (await t.get(`/v1/networks/local/rewards?addresses=${address(k)}&pageSize=100`)).json() as {
          historicalRewards: H[];
        }
      ).historicalRewards.filter((r) => r.nodeId === own[0]);
    expect((await paid(6)).map((r) => r.rewardType)).toEqual(["VALIDATOR"]);
    // The delegation fees, since Cortina, accumulate and are paid at the validator's end: one UTXO.
    expect((await paid(7)).map((r) => r.rewardType)).toEqual(["VALIDATOR_FEE"]);
    expect((await paid(2)).map((r) => r.rewardType)).toEqual(["DELEGATOR", "DELEGATOR"]);
  });

  it("lists the validators of days 1-3 as active, pending their rewards, and the delegators still staking", async () => {
    type V = {
      nodeId: string;
      validationStatus: string;
      amountStaked: string;
      delegationFee: string;
      blsCredentials?: {publicKey: string};
    };
    const active = (
      (await t.get(`/v1/networks/local/validators?validationStatus=active&nodeIds=${own.join(",")}`)).json() as {
        validators: V[];
      }
    ).validators;
    expect(active.map((v) => [v.nodeId, v.amountStaked, v.delegationFee]).sort()).toEqual(
      [
        [own[1], String(3_000e9), "3.0000"],
        [own[2], String(4_000e9), "4.0000"],
        [own[3], String(2_000e9), "5.0000"],
      ].sort(),
    );
    for (const v of active)
      expect(v.blsCredentials?.publicKey).toBe(devStakers()[own.indexOf(v.nodeId)]!.bls.credentials.publicKey);
    type R = {nodeId: string; rewardType: string; estimatedReward: {amount: string}};
    const pending = (
      (await t.get(`/v1/networks/local/rewards:listPending?nodeIds=${own.slice(1).join(",")}&pageSize=100`)).json() as {
        pendingRewards: R[];
      }
    ).pendingRewards;
    for (const node of own.slice(1))
      expect(
        pending.filter((r) => r.nodeId === node && r.rewardType === "VALIDATOR"),
        node,
      ).toHaveLength(1);
    // Day 1's delegations (2 days from its start; a day and a half from half a day in) have ended; days 2 and 3
    // have theirs pending.
    const delegations = (node: string): number =>
      pending.filter((r) => r.nodeId === node && r.rewardType === "DELEGATOR").length;
    expect(delegations(own[1]!)).toBe(0);
    expect(delegations(own[2]!)).toBe(2);
    expect(delegations(own[3]!)).toBeGreaterThanOrEqual(1);
    for (const r of pending) expect(BigInt(r.estimatedReward.amount)).toBeGreaterThan(0n);
  });
});
