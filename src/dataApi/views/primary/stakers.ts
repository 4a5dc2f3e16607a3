/**
 * Staker folds as AvalancheGo keeps its current-staker set (vms/platformvm/txs/executor): a primary-network
 * staker's potential reward is computed when it enters the set, from its duration, its weight and the supply then,
 * and the supply grows by it at once; when its RewardValidatorTx is decided, a commit pays it (a delegator's
 * reward split with its validator's fee share) and an abort takes it back out of the supply. Subnet validators earn
 * nothing. Pure functions over row-shaped records: the view persists them.
 */
import type {Owner, Staker} from "./model.js";
import type {NetworkStakingConfig} from "./networkConfig.js";
import {calculateReward, splitReward} from "./reward.js";
import {EMPTY_ID} from "../../../util/cb58.js";

export interface StakerRecord {
  txId: string;
  nodeId: string;
  subnetId: string;
  kind: Staker["kind"];
  startTime: bigint;
  endTime: bigint;
  weight: bigint;
  potentialReward: bigint;
  delegationShares: number;
  rewardOwner: Owner | null;
  delegationRewardOwner: Owner | null;
}

export type RewardType = "VALIDATOR" | "DELEGATOR" | "VALIDATOR_FEE";

export interface Payout {
  owner: Owner;
  amount: bigint;
  rewardType: RewardType;
}

/** A staker enters the current set at `blockTime` (its start: the tx's own before Durango, else the block's). */
export function stakerAdded(
  state: {supply: bigint},
  tx: {txId: string; staker: Staker; blockTime: bigint},
  config: NetworkStakingConfig,
): {record: StakerRecord; supply: bigint} {
  const s = tx.staker;
  const startTime = s.startTime ?? tx.blockTime;
  const primary = s.subnetId === EMPTY_ID && s.kind !== "subnetValidator";
  const duration = s.endTime > startTime ? s.endTime - startTime : 0n;
  const potentialReward = primary ? calculateReward(config.reward, duration, s.weight, state.supply) : 0n;
  return {
    record: {
      txId: tx.txId,
      nodeId: s.nodeId,
      subnetId: s.subnetId,
      kind: s.kind,
      startTime,
      endTime: s.endTime,
      weight: s.weight,
      potentialReward,
      delegationShares: s.delegationShares,
      rewardOwner: s.rewardOwner,
      delegationRewardOwner: s.delegationRewardOwner,
    },
    supply: state.supply + potentialReward,
  };
}

/**
 * A staker's RewardValidatorTx decided. Commit: its reward is paid (a delegator's split with its validator's fee
 * share, which goes to the validator's delegation reward owner). Abort: nothing is paid and the potential reward
 * leaves the supply.
 */
export function stakerRewarded(
  state: {supply: bigint},
  record: StakerRecord,
  rewarded: boolean,
  delegateeValidator?: StakerRecord,
): {supply: bigint; payouts: Payout[]} {
  if (!rewarded) return {supply: state.supply - record.potentialReward, payouts: []};
  const payouts: Payout[] = [];
  const reward = record.potentialReward;
  if (reward > 0n) {
    if (record.kind === "delegator") {
      const shares = delegateeValidator?.delegationShares ?? 0;
      const {delegatee, delegator} = splitReward(reward, shares);
      if (record.rewardOwner && delegator > 0n) payouts.push({owner: record.rewardOwner, amount: delegator, rewardType: "DELEGATOR"});
      const feeOwner = delegateeValidator?.delegationRewardOwner ?? delegateeValidator?.rewardOwner;
      if (feeOwner && delegatee > 0n) payouts.push({owner: feeOwner, amount: delegatee, rewardType: "VALIDATOR_FEE"});
    } else if (record.rewardOwner) {
      payouts.push({owner: record.rewardOwner, amount: reward, rewardType: "VALIDATOR"});
    }
  }
  return {supply: state.supply, payouts};
}
