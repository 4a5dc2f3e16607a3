/**
 * Per-network P-chain parameters the staking and L1 folds need, as AvalancheGo defines them: the staking and
 * reward configs and the L1 validator fee config of genesis/genesis_mainnet.go, genesis_fuji.go and
 * genesis_local.go (`Params`), and the upgrade times of upgrade/upgrade.go (`Mainnet`, `Fuji`, `Default`). Any
 * other network ID (local, the dev network, a custom network) gets local's parameters, as AvalancheGo's
 * `genesis.GetConfig`/`upgrade.GetConfig` fall back to them. Times are Unix seconds, durations seconds, amounts nAVAX.
 */
import type {RewardConfig} from "./reward.js";

/** vms/platformvm/validators/fee/fee.go `Config`: the ACP-77 continuous fee of L1 validators. */
export interface L1ValidatorFeeConfig {
  /** Most active L1 validators at once (gas units: one per validator). */
  capacity: bigint;
  /** Active validators at which the price holds steady. */
  target: bigint;
  /** nAVAX per validator per second with no excess. */
  minPrice: bigint;
  excessConversionConstant: bigint;
}

export interface NetworkStakingConfig {
  networkId: number;
  reward: RewardConfig;
  minStakeDuration: bigint;
  maxStakeDuration: bigint;
  minValidatorStake: bigint;
  maxValidatorStake: bigint;
  minDelegatorStake: bigint;
  /** Millionths (20,000 = 2 %). */
  minDelegationFee: number;
  /**
   * A primary-network validator's weight with its delegations may reach this many times its own stake (and at most
   * maxValidatorStake): vms/platformvm/txs/executor/proposal_tx_executor.go `MaxValidatorWeightFactor`.
   */
  maxValidatorWeightFactor: bigint;
  /** Banff: blocks carry their own timestamp from here on (before, AdvanceTimeTx moves the chain time). */
  banffTime: bigint;
  /** Validators starting from Cortina have their delegators' fees paid with their own reward, not at once. */
  cortinaTime: bigint;
  /** From Durango, stakers start at their block's time and enter the current set at once. */
  durangoTime: bigint;
  /** Etna (ACP-77): L1 validators and their continuous fee. */
  etnaTime: bigint;
  /** Helicon (ACP-285): the primary network's minimum consumption rate ramps to 7.5 %. */
  heliconTime: bigint;
  l1ValidatorFee: L1ValidatorFeeConfig;
}

const NANO_AVAX = 1n;
const AVAX = 1_000_000_000n * NANO_AVAX;
const KILO_AVAX = 1_000n * AVAX;
const MEGA_AVAX = 1_000_000n * AVAX;
const HOUR = 3600n;
const DAY = 24n * HOUR;
const YEAR = 365n * DAY;

/** Every network's RewardConfig: 12 % / 10 % consumption, a 365-day minting period, a 720M AVAX cap (all three genesis_*.go). */
const REWARD: RewardConfig = {
  maxConsumptionRate: 120_000n,
  minConsumptionRate: 100_000n,
  mintingPeriod: YEAR,
  supplyCap: 720n * MEGA_AVAX,
};

/** upgrade/upgrade.go `UnscheduledActivationTime`: 9999-12-01 00:00 UTC. */
const UNSCHEDULED = 253_399_622_400n;
/** upgrade/upgrade.go `InitiallyActiveTime`: 2020-12-05 05:00 UTC, every upgrade of `Default` (local and custom networks). */
const INITIALLY_ACTIVE = 1_607_144_400n;

/** genesis/genesis_mainnet.go `MainnetParams`; upgrade/upgrade.go `Mainnet`. */
const MAINNET: NetworkStakingConfig = {
  networkId: 1,
  reward: REWARD,
  minStakeDuration: 14n * DAY,
  maxStakeDuration: YEAR,
  minValidatorStake: 2n * KILO_AVAX,
  maxValidatorStake: 3n * MEGA_AVAX,
  minDelegatorStake: 25n * AVAX,
  minDelegationFee: 20_000,
  maxValidatorWeightFactor: 5n,
  banffTime: 1_666_108_800n, // 2022-10-18 16:00 UTC
  cortinaTime: 1_682_434_800n, // 2023-04-25 15:00 UTC
  durangoTime: 1_709_740_800n, // 2024-03-06 16:00 UTC
  etnaTime: 1_734_368_400n, // 2024-12-16 17:00 UTC
  heliconTime: UNSCHEDULED,
  // ValidatorFeeConfig: the price doubles every day above the target.
  l1ValidatorFee: {
    capacity: 20_000n,
    target: 10_000n,
    minPrice: 512n * NANO_AVAX,
    excessConversionConstant: 1_246_488_515n,
  },
};

/** genesis/genesis_fuji.go `FujiParams`; upgrade/upgrade.go `Fuji`. */
const FUJI: NetworkStakingConfig = {
  networkId: 5,
  reward: REWARD,
  minStakeDuration: DAY,
  maxStakeDuration: YEAR,
  minValidatorStake: AVAX,
  maxValidatorStake: 3n * MEGA_AVAX,
  minDelegatorStake: AVAX,
  minDelegationFee: 20_000,
  maxValidatorWeightFactor: 5n,
  banffTime: 1_664_805_600n, // 2022-10-03 14:00 UTC
  cortinaTime: 1_680_793_200n, // 2023-04-06 15:00 UTC
  durangoTime: 1_707_840_000n, // 2024-02-13 16:00 UTC
  etnaTime: 1_732_550_400n, // 2024-11-25 16:00 UTC
  heliconTime: UNSCHEDULED,
  // ValidatorFeeConfig: the price doubles every hour above the target.
  l1ValidatorFee: {
    capacity: 20_000n,
    target: 10_000n,
    minPrice: 512n * NANO_AVAX,
    excessConversionConstant: 51_937_021n,
  },
};

/** genesis/genesis_local.go `LocalParams`; upgrade/upgrade.go `Default` (every upgrade active from 2020-12-05). */
const LOCAL: NetworkStakingConfig = {
  networkId: 12345,
  reward: REWARD,
  minStakeDuration: DAY,
  maxStakeDuration: YEAR,
  minValidatorStake: 2n * KILO_AVAX,
  maxValidatorStake: 3n * MEGA_AVAX,
  minDelegatorStake: 25n * AVAX,
  minDelegationFee: 20_000,
  maxValidatorWeightFactor: 5n,
  banffTime: INITIALLY_ACTIVE,
  cortinaTime: INITIALLY_ACTIVE,
  durangoTime: INITIALLY_ACTIVE,
  etnaTime: INITIALLY_ACTIVE,
  heliconTime: UNSCHEDULED,
  // ValidatorFeeConfig: the price doubles every minute above the target.
  l1ValidatorFee: {capacity: 20_000n, target: 10_000n, minPrice: NANO_AVAX, excessConversionConstant: 865_617n},
};

/** The parameters of `networkId`: mainnet (1), fuji (5), else local's (12345, the dev network, custom networks). */
export function networkConfigFor(networkId: number): NetworkStakingConfig {
  if (networkId === 1) return MAINNET;
  if (networkId === 5) return FUJI;
  return networkId === LOCAL.networkId ? LOCAL : {...LOCAL, networkId};
}

/**
 * The P-chain's supply at genesis, nAVAX: `InitialSupply` of genesis/config.go sums every allocation's
 * `initialAmount` and `unlockSchedule` amounts of genesis/genesis_<network>.json (its X-chain and P-chain
 * allocations alike, the initially staked ones included). vms/platformvm/state/state.go `syncGenesis` then adds
 * each genesis validator's potential reward to it, one after the other in the genesis's validator order:
 * `GENESIS_SUPPLY_AFTER_STAKERS` is that result, the current supply when the first block is applied.
 *
 * Computed by summing the JSON files of AvalancheGo 1cf1fc3 (2026-08) and folding their initial stakers with
 * `genesisStakers` (splitAllocations' weights, the end-time heap's order): mainnet's allocations come to 9,790
 * nAVAX under the well-known 360M AVAX.
 */
export const GENESIS_INITIAL_SUPPLY: Readonly<Record<number, bigint>> = {
  1: 359_999_999_999_990_210n,
  5: 360_000_000_000_000_000n,
  12345: 360_000_000_000_000_000n,
};

/** See GENESIS_INITIAL_SUPPLY: mainnet's 75, fuji's 20 and local's 5 genesis validators' potential rewards added. */
export const GENESIS_SUPPLY_AFTER_STAKERS: Readonly<Record<number, bigint>> = {
  1: 364_013_001_565_916_650n,
  5: 364_651_610_969_869_743n,
  12345: 361_196_333_750_752_149n,
};
