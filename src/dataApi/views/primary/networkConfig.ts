/**
 * Per-network staking parameters the views need, as AvalancheGo's genesis configs set them
 * (genesis/genesis_mainnet.go, genesis_fuji.go, genesis_local.go: `RewardConfig`, `StakingConfig`).
 */
import type {RewardConfig} from "./reward.js";

export interface NetworkStakingConfig {
  reward: RewardConfig;
  /** Durango activation (Unix seconds): permissionless stakers start at their block's time from then on. */
  durangoTime: bigint;
}

const AVAX = 1_000_000_000n;
const YEAR = 365n * 24n * 3600n;

/** 12 % / 10 % consumption, a one-year minting period, a 720M AVAX cap: the same on mainnet, fuji and local. */
const STANDARD_REWARD: RewardConfig = {
  maxConsumptionRate: 120_000n,
  minConsumptionRate: 100_000n,
  mintingPeriod: YEAR,
  supplyCap: 720_000_000n * AVAX,
};

const CONFIGS: Record<number, NetworkStakingConfig> = {
  // upgrade/upgrade.go: Durango on mainnet 2024-03-06 16:00 UTC, on fuji 2024-02-13 16:00 UTC; local: at genesis.
  1: {reward: STANDARD_REWARD, durangoTime: 1_709_740_800n},
  5: {reward: STANDARD_REWARD, durangoTime: 1_707_840_000n},
  12345: {reward: STANDARD_REWARD, durangoTime: 0n},
};

export function networkConfigFor(networkId: number): NetworkStakingConfig {
  return CONFIGS[networkId] ?? CONFIGS[12345]!;
}
