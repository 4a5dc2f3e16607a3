/**
 * AvalancheGo's staking reward calculator (vms/platformvm/reward/calculator.go) with the same integer arithmetic,
 * and its delegation split (`reward.Split`). Go computes in uint64 and big.Int: durations are nanoseconds
 * (time.Duration), the big-integer product is divided by three divisors one after the other (each division
 * truncates), differences of uint64 wrap, and the result is capped at the supply left under the cap. The functions
 * here reproduce each of those steps with bigint, so they agree bit for bit with the chain.
 */

/** The denominator of consumption rates and delegation shares (vms/platformvm/reward/config.go `PercentDenominator`). */
export const PERCENT_DENOMINATOR = 1_000_000n;

/** The primary network's minimum consumption rate after Helicon (ACP-285, reward/calculator.go `configForStakeStart`). */
export const HELICON_MIN_CONSUMPTION_RATE = 75_000n;

/** How long the Helicon reduction of the minimum consumption rate ramps, in seconds (90 days, same file). */
export const HELICON_REDUCTION_PERIOD = 90n * 24n * 3600n;

/** vms/platformvm/reward/config.go `Config`, with the minting period in seconds instead of a Go duration. */
export interface RewardConfig {
  /** Rate when the staking duration equals the minting period, in PERCENT_DENOMINATOR units. */
  maxConsumptionRate: bigint;
  /** Rate for a zero staking duration, in PERCENT_DENOMINATOR units. */
  minConsumptionRate: bigint;
  /** Seconds. */
  mintingPeriod: bigint;
  /** nAVAX (or the subnet asset's base unit for a transformed subnet). */
  supplyCap: bigint;
}

const NANOS_PER_SECOND = 1_000_000_000n;
const U64_LIMIT = 1n << 64n;

/** A Go uint64 conversion: the value modulo 2^64 (what Go's unsigned subtraction gives when it underflows). */
function u64(x: bigint): bigint {
  return BigInt.asUintN(64, x);
}

/**
 * The reward for staking `stakedAmount` for `stakedDuration` seconds when the current supply is `currentSupply`
 * (`calculator.Calculate`, which ignores the stake's start time; the primary network's start-time dependent rate
 * is `primaryNetworkRewardConfig`).
 *
 * As Go: reward = remaining × (Δrate × d + min × P) × amount × d / (P × 10^6) / supply / P with d and P in
 * nanoseconds and each division truncating; remaining = cap − supply as uint64 (it wraps if the supply were ever
 * above the cap); a product over 2^64 − 1 gives `remaining`, else min(remaining, product). Go panics on a zero
 * supply (division by zero); so does this (RangeError).
 */
export function calculateReward(
  config: RewardConfig,
  stakedDuration: bigint,
  stakedAmount: bigint,
  currentSupply: bigint,
): bigint {
  if (stakedDuration < 0n || stakedAmount < 0n || currentSupply < 0n)
    throw new RangeError("calculateReward: negative input");
  if (currentSupply === 0n) throw new RangeError("calculateReward: division by zero (current supply is 0)");
  const duration = u64(stakedDuration * NANOS_PER_SECOND);
  const mintingPeriod = u64(config.mintingPeriod * NANOS_PER_SECOND);
  const maxSubMin = u64(config.maxConsumptionRate - config.minConsumptionRate);
  const numerator = maxSubMin * duration + config.minConsumptionRate * mintingPeriod;
  const denominator = mintingPeriod * PERCENT_DENOMINATOR;
  const remainingSupply = u64(config.supplyCap - currentSupply);
  let reward = remainingSupply * numerator * stakedAmount * duration;
  reward /= denominator;
  reward /= currentSupply;
  reward /= mintingPeriod;
  if (reward >= U64_LIMIT) return remainingSupply;
  return reward < remainingSupply ? reward : remainingSupply;
}

/**
 * The reward config the primary network applies to a stake starting at `stakeStartTime` (Unix seconds):
 * `configForStakeStart` of reward/calculator.go. From Helicon on, the minimum consumption rate moves linearly to
 * 7.5 % over 90 days (the change truncated), unless it is already 7.5 % or the maximum rate is below 7.5 %.
 */
export function primaryNetworkRewardConfig(
  config: RewardConfig,
  heliconTime: bigint,
  stakeStartTime: bigint,
): RewardConfig {
  const target = HELICON_MIN_CONSUMPTION_RATE;
  if (stakeStartTime < heliconTime || config.minConsumptionRate === target) return config;
  if (config.maxConsumptionRate < target) return config;
  const fullChange =
    config.minConsumptionRate > target ? config.minConsumptionRate - target : target - config.minConsumptionRate;
  let change = fullChange;
  if (stakeStartTime < heliconTime + HELICON_REDUCTION_PERIOD) {
    // Go scales both times to nanoseconds; the factor cancels in the truncated quotient.
    change = (fullChange * (stakeStartTime - heliconTime)) / HELICON_REDUCTION_PERIOD;
  }
  const min =
    config.minConsumptionRate < target ? config.minConsumptionRate + change : config.minConsumptionRate - change;
  return {...config, minConsumptionRate: min};
}

/** `NewPrimaryNetworkCalculator(...).Calculate`: the primary network's reward for a stake starting at `stakeStartTime`. */
export function calculatePrimaryNetworkReward(
  config: RewardConfig,
  heliconTime: bigint,
  stakeStartTime: bigint,
  stakedDuration: bigint,
  stakedAmount: bigint,
  currentSupply: bigint,
): bigint {
  return calculateReward(
    primaryNetworkRewardConfig(config, heliconTime, stakeStartTime),
    stakedDuration,
    stakedAmount,
    currentSupply,
  );
}

/**
 * Splits a delegator's reward as `reward.Split(total, shares)`: `delegatee` is the validator's fee for `shares`
 * millionths, `delegator` the rest. Go rounds the delegator's part down, computed as (10^6 − shares) × total / 10^6
 * while that product fits a uint64, else as (10^6 − shares) × (total / 10^6); the fee is what is left, so it rounds
 * up.
 */
export function splitReward(total: bigint, shares: number): {delegatee: bigint; delegator: bigint} {
  if (!Number.isInteger(shares) || shares < 0 || BigInt(shares) > PERCENT_DENOMINATOR)
    throw new RangeError(`splitReward: shares ${shares} outside [0, ${PERCENT_DENOMINATOR}]`);
  if (total < 0n || total >= U64_LIMIT) throw new RangeError("splitReward: total outside uint64");
  const remainderShares = PERCENT_DENOMINATOR - BigInt(shares);
  const product = remainderShares * total;
  const delegator =
    product < U64_LIMIT ? product / PERCENT_DENOMINATOR : remainderShares * (total / PERCENT_DENOMINATOR);
  return {delegatee: total - delegator, delegator};
}
