/**
 * The staker folds as AvalancheGo's executor applies them: when a staker's reward is computed and on which supply,
 * pre-Durango pending stakers and their promotion order, what a reward transaction's commit and abort pay and do to
 * the supply (Cortina's deferred delegation fee included), pending rewards, and genesis stakers.
 */
import {describe, expect, it} from "vitest";
import type {Owner, Staker} from "../../../../../src/dataApi/views/primary/model.js";
import {networkConfigFor} from "../../../../../src/dataApi/views/primary/networkConfig.js";
import {calculateReward} from "../../../../../src/dataApi/views/primary/reward.js";
import {
  StakerPriority,
  advanceTime,
  genesisStakers,
  pendingRewards,
  progress,
  stakerAdded,
  stakerRewarded,
  transformedSubnet,
  type StakerRecord,
} from "../../../../../src/dataApi/views/primary/stakers.js";
import {EMPTY_ID, idToString} from "../../../../../src/util/cb58.js";

const AVAX = 1_000_000_000n;
const KILO = 1_000n * AVAX;
const MEGA = 1_000_000n * AVAX;
const DAY = 86_400n;
const YEAR = 365n * DAY;
const mainnet = networkConfigFor(1);
const SUBNET = idToString(new Uint8Array(32).fill(9));

function id(n: number): string {
  return idToString(new Uint8Array(32).fill(n));
}
function owner(n: number): Owner {
  return {locktime: 0n, threshold: 1, addresses: [new Uint8Array(20).fill(n)]};
}
function staker(over: Partial<Staker>): Staker {
  return {
    kind: "validator",
    nodeId: "NodeID-111111111111111111116DBWJs",
    subnetId: EMPTY_ID,
    startTime: null,
    endTime: 0n,
    weight: MEGA,
    rewardOwner: owner(1),
    delegationRewardOwner: owner(2),
    delegationShares: 20_000,
    bls: null,
    ...over,
  };
}

describe("stakerAdded", () => {
  const t = mainnet.durangoTime + 1_000n;

  it("after Durango: current at once from the block's time, rewarded on the supply then, the supply grown by it", () => {
    // The transaction's own start (txStartTime) is ignored after Durango; a year at 360M gives 12 % (TestRewards).
    const {record, supply} = stakerAdded(
      {supply: 360n * MEGA},
      {txId: id(1), staker: staker({endTime: t + YEAR}), blockTime: t, txStartTime: t - 50n},
      mainnet,
    );
    expect(record).toMatchObject({
      status: "current",
      priority: StakerPriority.primaryValidatorCurrent,
      startTime: t,
      endTime: t + YEAR,
      potentialReward: 120n * KILO,
    });
    expect(supply).toBe(360n * MEGA + 120n * KILO);
  });

  it("before Durango: pending from the transaction's start, no reward yet, the supply unchanged", () => {
    const before = mainnet.durangoTime - 10_000n;
    const apricot = stakerAdded(
      {supply: 360n * MEGA},
      {
        txId: id(1),
        staker: staker({startTime: before + 500n, endTime: before + 500n + YEAR}),
        blockTime: before,
        txType: "AddValidatorTx",
      },
      mainnet,
    );
    expect(apricot.record).toMatchObject({
      status: "pending",
      priority: StakerPriority.primaryValidatorPending,
      startTime: before + 500n,
      potentialReward: 0n,
    });
    expect(apricot.supply).toBe(360n * MEGA);
    const permissionless = stakerAdded(
      {supply: 1n},
      {
        txId: id(2),
        staker: staker({kind: "delegator", endTime: before + YEAR}),
        blockTime: before,
        txStartTime: before + 60n,
      },
      mainnet,
    );
    expect(permissionless.record).toMatchObject({
      status: "pending",
      priority: StakerPriority.primaryDelegatorBanffPending,
      startTime: before + 60n,
      delegationShares: 0,
    });
    expect(() => stakerAdded({supply: 1n}, {txId: id(3), staker: staker({}), blockTime: before}, mainnet)).toThrow(
      /start time/,
    );
  });

  it("gives a permissioned subnet validator nothing and leaves the supply alone", () => {
    const s = staker({
      kind: "subnetValidator",
      subnetId: SUBNET,
      rewardOwner: null,
      delegationRewardOwner: null,
      delegationShares: 0,
      endTime: t + DAY,
    });
    const {record, supply} = stakerAdded({supply: 360n * MEGA}, {txId: id(1), staker: s, blockTime: t}, mainnet);
    expect(record).toMatchObject({
      status: "current",
      priority: StakerPriority.subnetPermissionedValidatorCurrent,
      potentialReward: 0n,
    });
    expect(supply).toBe(360n * MEGA);
  });

  it("rewards a permissionless subnet staker from its subnet's supply and terms, the primary supply untouched", () => {
    const s = staker({kind: "subnetValidator", subnetId: SUBNET, endTime: t + YEAR, weight: 2n * MEGA});
    const reward = {
      maxConsumptionRate: 120_000n,
      minConsumptionRate: 100_000n,
      mintingPeriod: 1n,
      supplyCap: 720n * MEGA,
    };
    const out = stakerAdded(
      {supply: 5n, subnets: {[SUBNET]: {reward, supply: 400n * MEGA}}},
      {txId: id(1), staker: s, blockTime: t},
      mainnet,
    );
    // The minting period is the primary network's (a year), whatever the subnet's config says: 192K (TestRewards).
    expect(out.record.potentialReward).toBe(192n * KILO);
    expect(out.supply).toBe(5n);
    expect(out.subnets?.[SUBNET]?.supply).toBe(400n * MEGA + 192n * KILO);
    expect(() => stakerAdded({supply: 5n}, {txId: id(1), staker: s, blockTime: t}, mainnet)).toThrow(
      /TransformSubnetTx/,
    );
    const subnet = transformedSubnet(
      {
        initialSupply: 400n * MEGA,
        maximumSupply: 720n * MEGA,
        minConsumptionRate: 100_000n,
        maxConsumptionRate: 120_000n,
      },
      mainnet,
    );
    expect(
      stakerAdded({supply: 5n, subnets: {[SUBNET]: subnet}}, {txId: id(1), staker: s, blockTime: t}, mainnet).record
        .potentialReward,
    ).toBe(192n * KILO);
  });
});

describe("advanceTime (pre-Durango promotion)", () => {
  const t0 = mainnet.cortinaTime;
  const pending = (n: number, s: Partial<Staker>, txType: string, start: bigint): StakerRecord =>
    stakerAdded(
      {supply: 0n},
      {txId: id(n), staker: staker({startTime: start, endTime: start + YEAR, ...s}), blockTime: t0 - 100n, txType},
      mainnet,
    ).record;

  it("promotes the due stakers by start time, then priority, each on the supply the previous one left", () => {
    const late = pending(1, {}, "AddValidatorTx", t0 + 10n);
    const validator = pending(2, {weight: 2n * MEGA}, "AddValidatorTx", t0 + 5n);
    const apricotDelegator = pending(3, {kind: "delegator", weight: MEGA}, "AddDelegatorTx", t0 + 5n);
    const banffDelegator = pending(4, {kind: "delegator", weight: 3n * MEGA}, "AddPermissionlessDelegatorTx", t0 + 5n);
    const first = pending(5, {weight: MEGA}, "AddPermissionlessValidatorTx", t0 + 1n);
    const out = advanceTime(
      {supply: 360n * MEGA},
      [late, banffDelegator, validator, apricotDelegator, first],
      t0 + 5n,
      mainnet,
    );
    expect(out.promoted.map((r) => r.txId)).toEqual([id(5), id(3), id(2), id(4)]);
    // Each reward on the supply left by the one before: the first is exactly 12 % of 1M at 360M.
    let supply = 360n * MEGA;
    const want = [MEGA, MEGA, 2n * MEGA, 3n * MEGA].map((w) => {
      const r = calculateReward(mainnet.reward, YEAR, w, supply);
      supply += r;
      return r;
    });
    expect(want[0]).toBe(120n * KILO);
    expect(out.promoted.map((r) => r.potentialReward)).toEqual(want);
    expect(out.supply).toBe(supply);
    expect(out.promoted.map((r) => r.priority)).toEqual([11, 10, 11, 10]);
    expect(out.promoted.every((r) => r.status === "current")).toBe(true);
    expect(out.removed).toEqual([]);
  });

  it("removes permissioned subnet validators whose end has come; permissionless ones wait for their reward tx", () => {
    const t = mainnet.durangoTime + 10n;
    const subnetValidator = stakerAdded(
      {supply: 1n},
      {
        txId: id(6),
        staker: staker({kind: "subnetValidator", subnetId: SUBNET, rewardOwner: null, endTime: t + DAY}),
        blockTime: t,
      },
      mainnet,
    ).record;
    const primary = stakerAdded(
      {supply: 360n * MEGA},
      {txId: id(7), staker: staker({endTime: t + DAY}), blockTime: t},
      mainnet,
    ).record;
    expect(advanceTime({supply: 1n}, [subnetValidator, primary], t + DAY - 1n, mainnet).removed).toEqual([]);
    const out = advanceTime({supply: 1n}, [subnetValidator, primary], t + DAY, mainnet);
    expect(out).toEqual({promoted: [], removed: [id(6)], supply: 1n});
  });
});

describe("stakerRewarded", () => {
  const t = mainnet.durangoTime + 1_000n;
  const added = stakerAdded(
    {supply: 360n * MEGA},
    {txId: id(1), staker: staker({endTime: t + YEAR}), blockTime: t},
    mainnet,
  );
  const validator: StakerRecord = {...added.record, accruedDelegateeReward: 5_000n};
  const delegator: StakerRecord = {
    ...stakerAdded(
      {supply: 360n * MEGA},
      {
        txId: id(2),
        staker: staker({kind: "delegator", rewardOwner: owner(3), delegationRewardOwner: null, endTime: t + DAY}),
        blockTime: t,
        txType: "AddPermissionlessDelegatorTx",
      },
      mainnet,
    ).record,
    potentialReward: 1_000_001n,
  };

  it("commit: pays a validator its reward, then its accrued delegation fees to the delegation owner; the supply stays", () => {
    const out = stakerRewarded({supply: added.supply}, validator, true, undefined, mainnet);
    expect(out.supply).toBe(added.supply);
    expect(out.payouts).toEqual([
      {txId: id(1), outputOffset: 0, owner: owner(1), amount: 120n * KILO, rewardType: "VALIDATOR"},
      {txId: id(1), outputOffset: 1, owner: owner(2), amount: 5_000n, rewardType: "VALIDATOR_FEE"},
    ]);
  });

  it("abort: the validator's reward leaves the supply, its accrued delegation fees are still paid (first reward output)", () => {
    const out = stakerRewarded({supply: added.supply}, validator, false, undefined, mainnet);
    expect(out.supply).toBe(360n * MEGA);
    expect(out.payouts).toEqual([
      {txId: id(1), outputOffset: 0, owner: owner(2), amount: 5_000n, rewardType: "VALIDATOR_FEE"},
    ]);
  });

  it("commit, validator started from Cortina: the delegator gets its part, the fee accrues to the validator", () => {
    // 2 % of 1,000,001 rounds up to 20,001 (reward.Split): the delegator gets 980,000.
    const out = stakerRewarded({supply: 7n}, delegator, true, validator, mainnet);
    expect(out.payouts).toEqual([
      {txId: id(2), outputOffset: 0, owner: owner(3), amount: 980_000n, rewardType: "DELEGATOR"},
    ]);
    expect(out.delegatee?.accruedDelegateeReward).toBe(5_000n + 20_001n);
    expect(out.supply).toBe(7n);
  });

  it("commit, validator started before Cortina: the fee is paid at once, by the delegator's reward transaction", () => {
    const old = {...validator, startTime: mainnet.cortinaTime - 1n};
    const out = stakerRewarded({supply: 7n}, delegator, true, old, mainnet);
    expect(out.payouts).toEqual([
      {txId: id(2), outputOffset: 0, owner: owner(3), amount: 980_000n, rewardType: "DELEGATOR"},
      {txId: id(2), outputOffset: 1, owner: owner(2), amount: 20_001n, rewardType: "VALIDATOR_FEE"},
    ]);
    expect(out.delegatee).toBeUndefined();
  });

  it("abort of a delegator: nothing paid, nothing accrued, its reward leaves the supply", () => {
    expect(stakerRewarded({supply: 2_000_000n}, delegator, false, validator, mainnet)).toEqual({
      supply: 999_999n,
      payouts: [],
    });
  });

  it("needs the delegator's validator to split a reward", () => {
    expect(() => stakerRewarded({supply: 7n}, delegator, true, undefined, mainnet)).toThrow(/validator/);
  });
});

describe("pendingRewards", () => {
  const t = mainnet.durangoTime;
  const v = stakerAdded(
    {supply: 360n * MEGA},
    {txId: id(1), staker: staker({endTime: t + YEAR}), blockTime: t},
    mainnet,
  ).record;
  const d: StakerRecord = {
    ...stakerAdded(
      {supply: 360n * MEGA},
      {
        txId: id(2),
        staker: staker({kind: "delegator", rewardOwner: owner(3), endTime: t + 100n, weight: 25n * AVAX}),
        blockTime: t,
      },
      mainnet,
    ).record,
    potentialReward: 1_000_001n,
  };

  it("lists a validator's reward, a delegator's share and its validator's fee, by end time", () => {
    const items = pendingRewards([v, d], t + 25n);
    expect(items).toEqual([
      {
        txId: id(2),
        nodeId: d.nodeId,
        amountStaked: 25n * AVAX,
        startTimestamp: t,
        endTimestamp: t + 100n,
        progress: 25,
        rewardType: "DELEGATOR",
        addresses: owner(3).addresses,
        estimatedReward: 980_000n,
      },
      {
        txId: id(2),
        nodeId: d.nodeId,
        amountStaked: 25n * AVAX,
        startTimestamp: t,
        endTimestamp: t + 100n,
        progress: 25,
        rewardType: "VALIDATOR_FEE",
        addresses: owner(2).addresses,
        estimatedReward: 20_001n,
      },
      {
        txId: id(1),
        nodeId: v.nodeId,
        amountStaked: MEGA,
        startTimestamp: t,
        endTimestamp: t + YEAR,
        progress: Number((25n * 1_000_000n) / YEAR) / 10_000,
        rewardType: "VALIDATOR",
        addresses: owner(1).addresses,
        estimatedReward: 120n * KILO,
      },
    ]);
  });

  it("gives no VALIDATOR_FEE row for a validator taking no fee, and leaves out pending stakers", () => {
    const free = {...v, delegationShares: 0};
    const waiting: StakerRecord = {...v, txId: id(5), status: "pending"};
    const items = pendingRewards([free, d, waiting], t);
    expect(items.map((i) => [i.txId, i.rewardType, i.estimatedReward])).toEqual([
      [id(2), "DELEGATOR", 1_000_001n],
      [id(1), "VALIDATOR", 120n * KILO],
    ]);
  });

  it("computes progress in percent, clamped", () => {
    expect(progress(100n, 200n, 50n)).toBe(0);
    expect(progress(100n, 200n, 175n)).toBe(75);
    expect(progress(100n, 200n, 300n)).toBe(100);
    expect(progress(100n, 103n, 101n)).toBe(33.3333);
  });
});

describe("genesisStakers", () => {
  it("adds the genesis validators in order, each rewarded on the supply the previous one left", () => {
    const g = 1_599_696_000n;
    const stakers = [
      {txId: id(1), staker: {...staker({endTime: g + YEAR}), startTime: g}},
      {txId: id(2), staker: {...staker({endTime: g + YEAR, weight: 2n * MEGA}), startTime: g}},
    ];
    const out = genesisStakers(360n * MEGA, stakers, mainnet);
    const second = calculateReward(mainnet.reward, YEAR, 2n * MEGA, 360n * MEGA + 120n * KILO);
    expect(out.records.map((r) => r.potentialReward)).toEqual([120n * KILO, second]);
    expect(out.records.every((r) => r.status === "current" && r.startTime === g)).toBe(true);
    expect(out.supply).toBe(360n * MEGA + 120n * KILO + second);
  });
});
