/**
 * The reward calculator and the delegation split against AvalancheGo's own expected values
 * (vms/platformvm/reward/calculator_test.go: TestRewards, TestRewardsOverflow, TestRewardsMint, TestSplit), and the
 * staker folds' supply accounting.
 */
import {describe, expect, it} from "vitest";
import {calculateReward, splitReward, type RewardConfig} from "../../../../../src/dataApi/views/primary/reward.js";
import {networkConfigFor} from "../../../../../src/dataApi/views/primary/networkConfig.js";
import {stakerAdded, stakerRewarded} from "../../../../../src/dataApi/views/primary/stakers.js";
import {EMPTY_ID} from "../../../../../src/util/cb58.js";

const AVAX = 1_000_000_000n;
const KILO = 1_000n * AVAX;
const MEGA = 1_000_000n * AVAX;
const DAY = 86_400n;
const YEAR = 365n * DAY;
const config: RewardConfig = {maxConsumptionRate: 120_000n, minConsumptionRate: 100_000n, mintingPeriod: YEAR, supplyCap: 720n * MEGA};
const MAX_U64 = (1n << 64n) - 1n;

describe("calculateReward (AvalancheGo's TestRewards)", () => {
  const cases: Array<[bigint, bigint, bigint, bigint]> = [
    [YEAR, MEGA, 360n * MEGA, 120n * KILO],
    [YEAR, MEGA, 400n * MEGA, 96n * KILO],
    [YEAR, 2n * MEGA, 400n * MEGA, 192n * KILO],
    [YEAR, MEGA, 720n * MEGA, 0n],
    [DAY, MEGA, 360n * MEGA, 274_122_724_713n],
    [DAY, 5_000_000n, 360n * MEGA, 1370n],
    [DAY, MEGA, 400n * MEGA, 219_298_179_771n],
    [DAY, 2n * MEGA, 400n * MEGA, 438_596_359_542n],
    [DAY, MEGA, 720n * MEGA, 0n],
  ];
  it.each(cases)("reward(%s s, %s, supply %s) = %s", (duration, stake, supply, want) => {
    expect(calculateReward(config, duration, stake, supply)).toBe(want);
  });

  it("caps at the supply left when the product overflows a uint64 or passes the cap", () => {
    const full = {maxConsumptionRate: 1_000_000n, minConsumptionRate: 1_000_000n, mintingPeriod: DAY, supplyCap: MAX_U64};
    expect(calculateReward(full, DAY, MAX_U64, 1n)).toBe(MAX_U64 - 1n);
    expect(calculateReward({...full, supplyCap: 1000n}, DAY, 1000n, 1n)).toBe(999n);
  });

  it("rewards staking longer (TestLongerDurationBonus)", () => {
    let short = KILO;
    for (let i = 0n; i < YEAR / DAY; i++) short += calculateReward(config, DAY, short, 359n * MEGA + short);
    const long = KILO + calculateReward(config, YEAR, KILO, 359n * MEGA + KILO);
    expect(short).toBeLessThan(long);
  });
});

describe("splitReward (AvalancheGo's TestSplit)", () => {
  const cases: Array<[bigint, number, bigint]> = [
    [1000n, 500_000, 500n],
    [1n, 1_000_000, 1n],
    [1n, 999_999, 1n],
    [1n, 1, 1n],
    [1n, 0, 0n],
    [9223374036974675809n, 2, 18446748749757n],
    [9223374036974675809n, 1_000_000, 9223374036974675809n],
    [9223372036855275808n, 999_998, 9223353590111202098n],
    [9223372036855275808n, 2, 18446744349518n],
  ];
  it.each(cases)("split(%s, %s shares): the delegatee gets %s", (amount, shares, want) => {
    const {delegatee, delegator} = splitReward(amount, shares);
    expect(delegatee).toBe(want);
    expect(delegator).toBe(amount - want);
  });
});

describe("staker folds", () => {
  const owner = {locktime: 0n, threshold: 1, addresses: [new Uint8Array(20).fill(1)]};
  const cfg = networkConfigFor(12345);
  const validator = {kind: "validator" as const, nodeId: "NodeID-1", subnetId: EMPTY_ID, startTime: null, endTime: 1_000n + YEAR, weight: MEGA, rewardOwner: owner, delegationRewardOwner: owner, delegationShares: 20_000, bls: null};

  it("adds the potential reward to the supply when a staker enters, and takes it back on abort", () => {
    const {record, supply} = stakerAdded({supply: 360n * MEGA}, {txId: "v", staker: validator, blockTime: 1_000n}, cfg);
    expect(record.startTime).toBe(1_000n);
    expect(record.potentialReward).toBe(120n * KILO);
    expect(supply).toBe(360n * MEGA + 120n * KILO);
    expect(stakerRewarded({supply}, record, false)).toEqual({supply: 360n * MEGA, payouts: []});
    expect(stakerRewarded({supply}, record, true)).toEqual({supply, payouts: [{owner, amount: 120n * KILO, rewardType: "VALIDATOR"}]});
  });

  it("pays a delegator its reward less its validator's fee, which goes to the validator's fee owner", () => {
    const v = stakerAdded({supply: 360n * MEGA}, {txId: "v", staker: validator, blockTime: 1_000n}, cfg).record;
    const feeOwner = {locktime: 0n, threshold: 1, addresses: [new Uint8Array(20).fill(2)]};
    const d = stakerAdded({supply: 360n * MEGA}, {txId: "d", staker: {...validator, kind: "delegator", rewardOwner: owner, delegationRewardOwner: null, delegationShares: 0}, blockTime: 1_000n}, cfg).record;
    const {payouts} = stakerRewarded({supply: 0n}, d, true, {...v, delegationRewardOwner: feeOwner});
    const fee = splitReward(d.potentialReward, 20_000);
    expect(payouts).toEqual([
      {owner, amount: fee.delegator, rewardType: "DELEGATOR"},
      {owner: feeOwner, amount: fee.delegatee, rewardType: "VALIDATOR_FEE"},
    ]);
  });

  it("gives subnet validators no reward and leaves the supply alone", () => {
    const {record, supply} = stakerAdded({supply: 360n * MEGA}, {txId: "s", staker: {...validator, kind: "subnetValidator", subnetId: "2DktpbypuhCUbb8Gt2qb7XSfSwx6TPMeA2UreNT8RkKwTUS8HE"}, blockTime: 1_000n}, cfg);
    expect(record.potentialReward).toBe(0n);
    expect(supply).toBe(360n * MEGA);
  });
});
