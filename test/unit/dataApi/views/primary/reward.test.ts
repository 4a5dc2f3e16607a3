/**
 * The reward calculator and the delegation split against the expected values of AvalancheGo's own tests
 * (vms/platformvm/reward/calculator_test.go: TestRewards, TestPrimaryNetworkCalculatorHeliconRewards,
 * TestRewardsOverflow, TestRewardsMint, TestSplit, TestLongerDurationBonus) and edge cases worked by hand.
 */
import {describe, expect, it} from "vitest";
import {
  calculatePrimaryNetworkReward,
  calculateReward,
  primaryNetworkRewardConfig,
  splitReward,
  type RewardConfig,
} from "../../../../../src/dataApi/views/primary/reward.js";

const AVAX = 1_000_000_000n;
const KILO = 1_000n * AVAX;
const MEGA = 1_000_000n * AVAX;
const HOUR = 3600n;
const DAY = 24n * HOUR;
const YEAR = 365n * DAY;
const MAX_U64 = (1n << 64n) - 1n;
const config: RewardConfig = {
  maxConsumptionRate: 120_000n,
  minConsumptionRate: 100_000n,
  mintingPeriod: YEAR,
  supplyCap: 720n * MEGA,
};

describe("calculateReward: AvalancheGo's TestRewards", () => {
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
});

describe("calculateReward: caps and edges", () => {
  it("returns the supply left when the product overflows a uint64 (TestRewardsOverflow)", () => {
    const full = {
      maxConsumptionRate: 1_000_000n,
      minConsumptionRate: 1_000_000n,
      mintingPeriod: DAY,
      supplyCap: MAX_U64,
    };
    expect(calculateReward(full, DAY, MAX_U64, 1n)).toBe(MAX_U64 - 1n);
  });

  it("caps a reward above the supply left at the supply left (TestRewardsMint)", () => {
    const full = {maxConsumptionRate: 1_000_000n, minConsumptionRate: 1_000_000n, mintingPeriod: DAY, supplyCap: 1000n};
    expect(calculateReward(full, DAY, 1000n, 1n)).toBe(999n);
  });

  it("gives nothing for a zero stake or a zero duration", () => {
    expect(calculateReward(config, YEAR, 0n, 360n * MEGA)).toBe(0n);
    expect(calculateReward(config, 0n, MEGA, 360n * MEGA)).toBe(0n);
  });

  it("gives nothing at the cap, and wraps like Go's uint64 above it", () => {
    expect(calculateReward(config, YEAR, 3n * MEGA, 720n * MEGA)).toBe(0n);
    // Above the cap Go's cap − supply wraps to 2^64 − 1 nAVAX; the product is then capped by the wrapped value only.
    const above = calculateReward(config, YEAR, MEGA, 720n * MEGA + 1n);
    // By hand: (2^64 − 1) × 12 % × 1M / (720M + 1 nAVAX), truncated at each division as Go does.
    const remaining = MAX_U64;
    const ns = YEAR * 1_000_000_000n;
    const want = (remaining * (20_000n * ns + 100_000n * ns) * MEGA * ns) / (ns * 1_000_000n) / (720n * MEGA + 1n) / ns;
    expect(above).toBe(want);
  });

  it("throws where Go panics: a zero supply", () => {
    expect(() => calculateReward(config, DAY, MEGA, 0n)).toThrow(RangeError);
  });

  it("computes small cases worked by hand, truncating", () => {
    // min = max = 100 %, period 2 s, 1 s staked: reward = remaining × stake / supply × 100 % × 1/2.
    const flat = {maxConsumptionRate: 1_000_000n, minConsumptionRate: 1_000_000n, mintingPeriod: 2n, supplyCap: 1000n};
    expect(calculateReward(flat, 1n, 1n, 4n)).toBe(124n); // 996 / 4 / 2 = 124.5
    // min 0, max 100 %: the rate is 100 % × 1/2 for half the period: 996 / 4 / 2 / 2 = 62.25.
    expect(calculateReward({...flat, minConsumptionRate: 0n}, 1n, 1n, 4n)).toBe(62n);
    // A stake larger than the supply is capped at what is left: 996 × 7 / 4 / 2 = 871 < 996; × 17 → 2116 → 996.
    expect(calculateReward(flat, 1n, 7n, 4n)).toBe(871n);
    expect(calculateReward(flat, 1n, 17n, 4n)).toBe(996n);
  });

  it("rewards staking a year at once over 365 one-day stakes (TestLongerDurationBonus)", () => {
    let short = KILO;
    for (let i = 0n; i < YEAR / DAY; i++) short += calculateReward(config, DAY, short, 359n * MEGA + short);
    short += calculateReward(config, YEAR % DAY, short, 359n * MEGA + short);
    const long = KILO + calculateReward(config, YEAR, KILO, 359n * MEGA + KILO);
    expect(short).toBeLessThan(long);
  });
});

describe("primary network reward after Helicon: AvalancheGo's TestPrimaryNetworkCalculatorHeliconRewards", () => {
  const helicon = 1_000_000n;
  const ramp = 90n * DAY;
  const cases: Array<[string, bigint, bigint | null, bigint, bigint]> = [
    ["at_helicon", 100_000n, null, helicon, 274_122_724_713n],
    ["one_third_ramp", 100_000n, null, helicon + ramp / 3n, 251_355_136_048n],
    ["at_ramp_end", 100_000n, null, helicon + ramp, 205_817_226_496n],
    ["custom_min_rate_above_target", 80_000n, null, helicon + ramp / 2n, 212_647_776_318n],
    ["custom_min_rate_below_target", 10_000n, null, helicon + ramp / 2n, 117_020_078_814n],
    ["below_target_at_helicon", 74_999n, null, helicon, 205_814_494_276n],
    ["below_target_mid_ramp", 74_999n, null, helicon + ramp / 2n, 205_814_494_276n],
    ["below_target_at_ramp_end", 74_999n, null, helicon + ramp, 205_817_226_496n],
    ["at_target_mid_ramp", 75_000n, null, helicon + ramp / 2n, 205_817_226_496n],
    ["above_target_at_helicon", 75_001n, null, helicon, 205_819_958_716n],
    ["above_target_mid_ramp", 75_001n, null, helicon + ramp / 2n, 205_819_958_716n],
    ["above_target_at_ramp_end", 75_001n, null, helicon + ramp, 205_817_226_496n],
    ["target_above_max", 10_000n, 20_000n, helicon + ramp, 27_472_321_261n],
  ];
  it.each(cases)("%s", (_name, min, max, start, want) => {
    const cfg = {...config, minConsumptionRate: min, maxConsumptionRate: max ?? config.maxConsumptionRate};
    expect(calculatePrimaryNetworkReward(cfg, helicon, start, DAY, MEGA, 360n * MEGA)).toBe(want);
  });

  it("leaves the config alone before Helicon", () => {
    expect(primaryNetworkRewardConfig(config, helicon, helicon - 1n)).toBe(config);
    expect(calculatePrimaryNetworkReward(config, helicon, helicon - 1n, DAY, MEGA, 360n * MEGA)).toBe(274_122_724_713n);
  });
});

describe("splitReward: AvalancheGo's TestSplit", () => {
  const cases: Array<[bigint, number, bigint]> = [
    [1000n, 500_000, 500n],
    [1n, 1_000_000, 1n],
    [1n, 999_999, 1n],
    [1n, 1, 1n],
    [1n, 0, 0n],
    [9_223_374_036_974_675_809n, 2, 18_446_748_749_757n],
    [9_223_374_036_974_675_809n, 1_000_000, 9_223_374_036_974_675_809n],
    [9_223_372_036_855_275_808n, 999_998, 9_223_353_590_111_202_098n],
    [9_223_372_036_855_275_808n, 2, 18_446_744_349_518n],
  ];
  it.each(cases)("split(%s, %s shares): the delegatee gets %s", (amount, shares, want) => {
    const {delegatee, delegator} = splitReward(amount, shares);
    expect(delegatee).toBe(want);
    expect(delegator).toBe(amount - want);
  });

  it("rounds the fee up, not down: 2 % of 1,000,001 nAVAX is 20,001 (a multiply-then-divide fee would be 20,000)", () => {
    expect(splitReward(1_000_001n, 20_000)).toEqual({delegatee: 20_001n, delegator: 980_000n});
  });

  it("refuses shares outside [0, 10^6] and totals outside uint64", () => {
    expect(() => splitReward(1n, 1_000_001)).toThrow(RangeError);
    expect(() => splitReward(1n, -1)).toThrow(RangeError);
    expect(() => splitReward(1n << 64n, 0)).toThrow(RangeError);
  });
});
