/** Glacier's staking models from `stakers` rows: validators, delegators, pending and historical rewards. */
import type {ValidatorHealth, ValidatorObservations} from "../../observations/observations.js";
import {splitReward} from "../../views/primary/reward.js";
import {type AssetAmount, type AssetInfo, type DbNum, assetAmount, bech32Address, big, num} from "./common.js";
import type {BlsCredentials, OwnerJson, RewardType} from "./pchain.js";

export interface StakerRow {
  tx_id: string;
  kind: string;
  node_id: string;
  subnet_id: string;
  start_ts: DbNum;
  end_ts: DbNum;
  weight: DbNum;
  potential_reward: DbNum;
  delegation_shares: number;
  reward_owner: OwnerJson | null;
  delegation_reward_owner: OwnerJson | null;
  bls: BlsCredentials | null;
  status: string;
  reward_tx_id: string | null;
  /** The RemoveSubnetValidatorTx that removed a permissioned subnet validator (schema 14). */
  remove_tx_id?: string | null;
  validator_tx_id: string | null;
}

/** The validator's fee share of a delegator's reward, as AvalancheGo's `reward.Split` computes it (rounded up). */
export function validatorFee(reward: bigint, shares: number): bigint {
  return splitReward(reward, shares).delegatee;
}

/** A delegation fee in percent as the hosted API writes it (`2.0000`). */
export function feePercent(shares: number): string {
  return (shares / 10_000).toFixed(4);
}

export function ownerAddresses(hrp: string, o: OwnerJson | null): string[] {
  return (o?.addresses ?? []).map((a) => bech32Address(hrp, a));
}

/** elapsed / duration in percent, within [0, 100]. */
export function progress(start: number, end: number, now: number): number {
  if (end <= start) return 100;
  return Math.min(100, Math.max(0, ((now - start) / (end - start)) * 100));
}

export interface PendingReward {
  addresses: string[];
  txHash: string;
  amountStaked: string;
  nodeId: string;
  startTimestamp: number;
  endTimestamp: number;
  rewardType: RewardType;
  progress: number;
  estimatedReward: AssetAmount;
}

/** A pending-reward row: the staker, the role matched, and for delegators their validator's fee terms. */
export interface PendingRewardRow extends StakerRow {
  role: RewardType;
  validator_shares: number | null;
  validator_fee_owner: OwnerJson | null;
}

/**
 * A pending reward: a validator's potential reward (VALIDATOR); a delegator's, less its validator's fee
 * (DELEGATOR); the validator's fee share of a delegator's reward (VALIDATOR_FEE).
 */
export function pendingRewardFromRow(
  r: PendingRewardRow,
  hrp: string,
  avaxAssetId: string,
  assets: AssetInfo,
  now: number,
): PendingReward {
  const total = big(r.potential_reward);
  const fee = r.kind === "delegator" ? validatorFee(total, r.validator_shares ?? 0) : 0n;
  const amount = r.role === "VALIDATOR_FEE" ? fee : total - fee;
  const start = num(r.start_ts);
  const end = num(r.end_ts);
  return {
    addresses: ownerAddresses(hrp, r.role === "VALIDATOR_FEE" ? r.validator_fee_owner : r.reward_owner),
    txHash: r.tx_id,
    amountStaked: String(r.weight),
    nodeId: r.node_id,
    startTimestamp: start,
    endTimestamp: end,
    rewardType: r.role,
    progress: progress(start, end, now),
    estimatedReward: assetAmount(assets, avaxAssetId, amount),
  };
}

export interface HistoricalReward {
  addresses: string[];
  txHash: string;
  amountStaked: string;
  nodeId: string;
  startTimestamp: number;
  endTimestamp: number;
  rewardType: RewardType;
  utxoId: string;
  outputIndex: number;
  reward: AssetAmount;
  rewardTxHash: string;
}

/** A reward UTXO with its staker (joined on the staker's reward transaction). */
export interface HistoricalRewardRow {
  utxo_id: string;
  output_index: number;
  asset_id: string;
  amount: DbNum;
  addresses: string[];
  reward_type: RewardType;
  created_ts: DbNum;
  reward_tx: string;
  tx_id: string;
  node_id: string;
  weight: DbNum;
  start_ts: DbNum;
  end_ts: DbNum;
}

export function historicalRewardFromRow(r: HistoricalRewardRow, hrp: string, assets: AssetInfo): HistoricalReward {
  return {
    addresses: r.addresses.map((a) => bech32Address(hrp, a)),
    txHash: r.tx_id,
    amountStaked: String(r.weight),
    nodeId: r.node_id,
    startTimestamp: num(r.start_ts),
    endTimestamp: num(r.end_ts),
    rewardType: r.reward_type,
    utxoId: r.utxo_id,
    outputIndex: r.output_index,
    reward: assetAmount(assets, r.asset_id, big(r.amount)),
    rewardTxHash: r.reward_tx,
  };
}

export interface Rewards {
  validationRewardAmount: string;
  delegationRewardAmount: string;
  rewardAddresses?: string[];
  rewardTxHash?: string;
}

/**
 * A validator (Glacier's Active/Completed/Pending validator details). An active one's uptime and health are what
 * the validator observations give (src/dataApi/observations); its version is omitted, its `geolocation` is null,
 * the model's value for an unknown place; `delegationCapacity` is left out too (it needs the network's max weight).
 */
export interface ValidatorDetails {
  txHash: string;
  nodeId: string;
  subnetId: string;
  amountStaked: string;
  delegationFee?: string;
  startTimestamp: number;
  endTimestamp: number;
  blsCredentials?: BlsCredentials;
  validationStatus: "active" | "completed" | "pending" | "removed";
  /** Removed (chainkit's RemovedValidatorDetails): the RemoveSubnetValidatorTx and its time. */
  removeTxHash?: string;
  removeTimestamp?: number;
  stakePercentage?: number;
  delegatorCount?: number;
  amountDelegated?: string;
  potentialRewards?: Rewards;
  rewards?: Rewards;
  uptimePerformance?: number;
  validatorHealth?: ValidatorHealth;
  geolocation?: null;
}

export interface ValidatorRow extends StakerRow {
  delegator_count: DbNum;
  amount_delegated: DbNum;
  delegator_rewards: DbNum;
  /** The removing transaction's time, for a removed validator. */
  remove_ts?: DbNum | null;
}

/**
 * Active: started and current; pending: not started; completed: rewarded or aborted (`validationRewardAmount` 0
 * when aborted). `stakePercentage` is the validator's weight over `totalStake` (current primary-network stake).
 */
export function validatorFromRow(
  r: ValidatorRow,
  hrp: string,
  now: number,
  totalStake: bigint,
  observations: ValidatorObservations,
): ValidatorDetails {
  const start = num(r.start_ts);
  const ended = r.status === "removed" ? "removed" : "completed";
  const status = r.status === "current" ? (start > now ? "pending" : "active") : ended;
  const v: ValidatorDetails = {
    txHash: r.tx_id,
    nodeId: r.node_id,
    subnetId: r.subnet_id,
    amountStaked: String(r.weight),
    startTimestamp: start,
    endTimestamp: num(r.end_ts),
    validationStatus: status,
  };
  if (r.kind === "validator") v.delegationFee = feePercent(r.delegation_shares);
  if (r.bls !== null) v.blsCredentials = r.bls;
  if (status === "pending") return v;
  if (status === "removed") {
    return {...v, removeTxHash: r.remove_tx_id ?? "", removeTimestamp: r.remove_ts == null ? 0 : num(r.remove_ts)};
  }
  v.delegatorCount = num(r.delegator_count);
  v.amountDelegated = String(r.amount_delegated);
  const fees = big(r.delegator_rewards);
  const rewards: Rewards = {
    validationRewardAmount: r.status === "aborted" ? "0" : String(r.potential_reward),
    delegationRewardAmount: fees.toString(),
    rewardAddresses: ownerAddresses(hrp, r.reward_owner),
  };
  if (status === "active") {
    v.stakePercentage = totalStake === 0n ? 0 : Number((big(r.weight) * 1_000_000n) / totalStake) / 10_000;
    v.potentialRewards = rewards;
    const seen = observations.observe(r.node_id);
    v.uptimePerformance = seen.uptimePerformance;
    v.validatorHealth = {...seen.validatorHealth};
    v.geolocation = null;
  } else {
    if (r.reward_tx_id !== null) rewards.rewardTxHash = r.reward_tx_id;
    v.rewards = rewards;
  }
  return v;
}

export interface DelegatorDetails {
  txHash: string;
  nodeId: string;
  rewardAddresses: string[];
  amountDelegated: string;
  delegationFee: string;
  startTimestamp: number;
  endTimestamp: number;
  delegationStatus: "active" | "completed" | "pending";
  estimatedGrossReward?: string;
  estimatedNetReward?: string;
  grossReward?: string;
  netReward?: string;
}

export interface DelegatorRow extends StakerRow {
  validator_shares: number | null;
}

/** A delegator: gross = its potential reward, net = gross less the validator's fee (0 when aborted). */
export function delegatorFromRow(r: DelegatorRow, hrp: string, now: number): DelegatorDetails {
  const start = num(r.start_ts);
  const shares = r.validator_shares ?? 0;
  const gross = r.status === "aborted" ? 0n : big(r.potential_reward);
  const net = gross - validatorFee(gross, shares);
  const d: DelegatorDetails = {
    txHash: r.tx_id,
    nodeId: r.node_id,
    rewardAddresses: ownerAddresses(hrp, r.reward_owner),
    amountDelegated: String(r.weight),
    delegationFee: feePercent(shares),
    startTimestamp: start,
    endTimestamp: num(r.end_ts),
    delegationStatus: r.status === "current" ? (start > now ? "pending" : "active") : "completed",
  };
  if (d.delegationStatus === "completed") {
    d.grossReward = gross.toString();
    d.netReward = net.toString();
  } else {
    d.estimatedGrossReward = gross.toString();
    d.estimatedNetReward = net.toString();
  }
  return d;
}
