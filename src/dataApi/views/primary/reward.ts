/**
 * AvalancheGo's staking reward calculator (vms/platformvm/reward/calculator.go), with the same integer arithmetic:
 * durations in nanoseconds (Go's time.Duration), big-integer products divided in the same order, the result capped
 * at the supply left under the cap. `splitReward` is its `reward.Split` (the delegation fee share).
 */

/** The denominator of consumption rates and delegation shares (AvalancheGo `reward.PercentDenominator`). */
export const PERCENT_DENOMINATOR = 1_000_000n;

export interface RewardConfig {
  /** Consumption rates, in PERCENT_DENOMINATOR units. */
  maxConsumptionRate: bigint;
  minConsumptionRate: bigint;
  /** Seconds. */
  mintingPeriod: bigint;
  /** nAVAX. */
  supplyCap: bigint;
}

const NS = 1_000_000_000n;

/** The reward for staking `stakedAmount` for `stakedDuration` seconds when the supply is `currentSupply`. */
export function calculateReward(config: RewardConfig, stakedDuration: bigint, stakedAmount: bigint, currentSupply: bigint): bigint {
  const duration = stakedDuration * NS;
  const mintingPeriod = config.mintingPeriod * NS;
  const remainingSupply = config.supplyCap - currentSupply;
  if (remainingSupply <= 0n || currentSupply === 0n) return remainingSupply > 0n ? remainingSupply : 0n;
  const numerator = (config.maxConsumptionRate - config.minConsumptionRate) * duration + config.minConsumptionRate * mintingPeriod;
  const denominator = mintingPeriod * PERCENT_DENOMINATOR;
  let reward = remainingSupply * numerator * stakedAmount * duration;
  reward /= denominator;
  reward /= currentSupply;
  reward /= mintingPeriod;
  // Go returns the remaining supply when the product does not fit a uint64, and caps at it otherwise.
  if (reward >= 1n << 64n || reward > remainingSupply) return remainingSupply;
  return reward;
}

/**
 * Splits a delegator's reward: `delegatee` is the validator's fee (`shares` in millionths), `delegator` the rest.
 * As AvalancheGo: the delegator's part is rounded down, exactly while shares × amount fits a uint64, else after
 * dividing the amount first.
 */
export function splitReward(total: bigint, shares: number): {delegatee: bigint; delegator: bigint} {
  const remainderShares = PERCENT_DENOMINATOR - BigInt(shares);
  const product = remainderShares * total;
  const delegator = product < 1n << 64n ? product / PERCENT_DENOMINATOR : remainderShares * (total / PERCENT_DENOMINATOR);
  return {delegatee: total - delegator, delegator};
}
