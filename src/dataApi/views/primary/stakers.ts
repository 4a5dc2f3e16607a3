/**
 * The P-chain's staker arithmetic as AvalancheGo keeps its staker sets (vms/platformvm/txs/executor
 * standard_tx_executor.go `putStaker`, state_changes.go `advanceTimeTo`, proposal_tx_executor.go
 * `RewardValidatorTx`; vms/platformvm/state/staker.go), as pure folds over row-shaped records: the caller reads
 * the records and the supply from its store, calls these, and writes what they return.
 *
 * - A staker enters the *current* set with its potential reward computed then: reward(end − start, weight, supply
 *   of its subnet then), and that supply grows by it at once. Permissioned subnet validators (AddSubnetValidatorTx)
 *   earn nothing and leave the supply alone.
 * - Before Durango a staking transaction puts its staker in the *pending* set with the start time it names; it
 *   enters the current set when the chain time reaches that start (`advanceTime`), the pending stakers taken in
 *   AvalancheGo's order (start time, priority, transaction ID bytes), each with the supply the previous one left.
 *   From Durango (the chain time, not the transaction's start) it enters the current set at once, starting at the
 *   chain time, which is then its block's timestamp.
 * - A RewardValidatorTx is decided by the Commit or Abort block after it. A commit pays the potential reward (a
 *   delegator's split with its validator's fee share); an abort pays nothing of it and takes it back out of the
 *   supply (`undoSupplyMintOnAbort`). A delegator's fee share goes to its validator's delegation reward owner at
 *   once when the validator started before Cortina, else it accrues to the validator
 *   (`accruedDelegateeReward`) and is paid by the validator's own reward transaction, commit or abort alike.
 * - Transformed (elastic) subnets, possible between Banff and Etna, reward their permissionless stakers from their
 *   own supply and config: `SupplyState.subnets`.
 */
import type {Owner, Staker} from "./model.js";
import type {NetworkStakingConfig} from "./networkConfig.js";
import {calculatePrimaryNetworkReward, calculateReward, splitReward, type RewardConfig} from "./reward.js";
import {EMPTY_ID, idFromString} from "../../../util/cb58.js";

/**
 * vms/platformvm/txs/priorities.go: the pending priorities order the pending set at equal start times; the
 * current ones order the current set at equal end times (which staker a RewardValidatorTx must name next).
 */
export const StakerPriority = {
  primaryDelegatorApricotPending: 1,
  primaryValidatorPending: 2,
  primaryDelegatorBanffPending: 3,
  subnetPermissionlessValidatorPending: 4,
  subnetPermissionlessDelegatorPending: 5,
  subnetPermissionedValidatorPending: 6,
  subnetPermissionedValidatorCurrent: 7,
  subnetPermissionlessDelegatorCurrent: 8,
  subnetPermissionlessValidatorCurrent: 9,
  primaryDelegatorCurrent: 10,
  primaryValidatorCurrent: 11,
} as const;
export type StakerPriority = (typeof StakerPriority)[keyof typeof StakerPriority];

const PENDING_TO_CURRENT: Record<number, StakerPriority> = {
  1: 10,
  2: 11,
  3: 10,
  4: 9,
  5: 8,
  6: 7,
};

/** A staker as the P-chain keeps it, one row. */
export interface StakerRecord {
  txId: string;
  nodeId: string;
  subnetId: string;
  kind: Staker["kind"];
  /** `pending`: waiting for the chain time to reach `startTime` (pre-Durango); `current`: validating/delegating. */
  status: "pending" | "current";
  /** The staker's priority in its set (StakerPriority), pending or current as `status`. */
  priority: StakerPriority;
  startTime: bigint;
  endTime: bigint;
  weight: bigint;
  /** Computed when the staker enters the current set; 0 while pending and for permissioned subnet validators. */
  potentialReward: bigint;
  /** Validators: the delegation fee in millionths (AvalancheGo `Shares()`); 0 for delegators. */
  delegationShares: number;
  /** Validation reward owner (validators) or reward owner (delegators). */
  rewardOwner: Owner | null;
  /** Validators: delegation fee owner (AddValidatorTx has one owner for both: null here means `rewardOwner`). */
  delegationRewardOwner: Owner | null;
  /** Validators that started from Cortina: their delegators' fees accrued so far (AvalancheGo `DelegateeReward`). */
  accruedDelegateeReward: bigint;
}

/** A transformed subnet's reward terms and supply (TransformSubnetTx; the minting period is the primary network's). */
export interface SubnetSupply {
  reward: RewardConfig;
  supply: bigint;
}

/**
 * A TransformSubnetTx's reward terms and the subnet's starting supply (its `InitialSupply`, standard_tx_executor.go);
 * the minting period is the primary network's (executor `GetRewardsCalculator`). The decoder keeps the four
 * values in `details.extra` as decimal strings.
 */
export function transformedSubnet(
  tx: {initialSupply: bigint; maximumSupply: bigint; minConsumptionRate: bigint; maxConsumptionRate: bigint},
  config: Pick<NetworkStakingConfig, "reward">,
): SubnetSupply {
  return {
    reward: {
      maxConsumptionRate: tx.maxConsumptionRate,
      minConsumptionRate: tx.minConsumptionRate,
      mintingPeriod: config.reward.mintingPeriod,
      supplyCap: tx.maximumSupply,
    },
    supply: tx.initialSupply,
  };
}

/** The supplies a staker's reward comes from: the primary network's, and each transformed subnet's by subnet ID. */
export interface SupplyState {
  supply: bigint;
  subnets?: Readonly<Record<string, SubnetSupply>>;
}

export type RewardType = "VALIDATOR" | "DELEGATOR" | "VALIDATOR_FEE";

/**
 * A reward UTXO. AvalancheGo gives it the staking transaction's ID (`txId`) and the output index
 * len(outputs) + len(stake outputs) + `outputOffset` of that transaction.
 */
export interface Payout {
  txId: string;
  outputOffset: number;
  owner: Owner;
  amount: bigint;
  rewardType: RewardType;
}

/** What a staking transaction is, for its priority: AvalancheGo's tx type name (Glacier's `txType`). */
export type StakingTxType =
  | "AddValidatorTx"
  | "AddDelegatorTx"
  | "AddSubnetValidatorTx"
  | "AddPermissionlessValidatorTx"
  | "AddPermissionlessDelegatorTx";

/**
 * The pending priority of a staker (`PendingPriority()` of its transaction type). Without `txType`: a delegator
 * with its own start time is an AddDelegatorTx, else an AddPermissionlessDelegatorTx; a `subnetValidator` is an
 * AddSubnetValidatorTx (a permissionless subnet validator needs its txType).
 */
export function pendingPriority(
  staker: Pick<Staker, "kind" | "subnetId" | "startTime" | "rewardOwner">,
  txType?: string,
): StakerPriority {
  const primary = staker.subnetId === EMPTY_ID;
  switch (txType) {
    case "AddValidatorTx":
      return StakerPriority.primaryValidatorPending;
    case "AddDelegatorTx":
      return StakerPriority.primaryDelegatorApricotPending;
    case "AddSubnetValidatorTx":
      return StakerPriority.subnetPermissionedValidatorPending;
    case "AddPermissionlessValidatorTx":
      return primary ? StakerPriority.primaryValidatorPending : StakerPriority.subnetPermissionlessValidatorPending;
    case "AddPermissionlessDelegatorTx":
      return primary
        ? StakerPriority.primaryDelegatorBanffPending
        : StakerPriority.subnetPermissionlessDelegatorPending;
  }
  if (staker.kind === "validator") return StakerPriority.primaryValidatorPending;
  if (staker.kind === "subnetValidator") {
    return staker.rewardOwner
      ? StakerPriority.subnetPermissionlessValidatorPending
      : StakerPriority.subnetPermissionedValidatorPending;
  }
  if (!primary) return StakerPriority.subnetPermissionlessDelegatorPending;
  return staker.startTime !== null
    ? StakerPriority.primaryDelegatorApricotPending
    : StakerPriority.primaryDelegatorBanffPending;
}

/** The current priority a pending priority becomes (`PendingToCurrentPriorities`); current ones are unchanged. */
export function currentPriority(priority: StakerPriority): StakerPriority {
  return PENDING_TO_CURRENT[priority] ?? priority;
}

function isPermissioned(priority: StakerPriority): boolean {
  return (
    priority === StakerPriority.subnetPermissionedValidatorPending ||
    priority === StakerPriority.subnetPermissionedValidatorCurrent
  );
}

/** The potential reward of a staker entering the current set now, and the supplies after it. */
function enterCurrent(
  state: SupplyState,
  record: StakerRecord,
  config: NetworkStakingConfig,
): {record: StakerRecord; state: SupplyState} {
  const priority = currentPriority(record.priority);
  if (isPermissioned(priority)) return {record: {...record, status: "current", priority, potentialReward: 0n}, state};
  const duration = record.endTime - record.startTime;
  if (record.subnetId === EMPTY_ID) {
    const reward = calculatePrimaryNetworkReward(
      config.reward,
      config.heliconTime,
      record.startTime,
      duration,
      record.weight,
      state.supply,
    );
    return {
      record: {...record, status: "current", priority, potentialReward: reward},
      state: {...state, supply: state.supply + reward},
    };
  }
  const subnet = state.subnets?.[record.subnetId];
  if (!subnet)
    throw new Error(
      `staker ${record.txId}: permissionless staker of subnet ${record.subnetId}, which has no TransformSubnetTx in the supply state`,
    );
  const reward = calculateReward(
    {...subnet.reward, mintingPeriod: config.reward.mintingPeriod},
    duration,
    record.weight,
    subnet.supply,
  );
  const subnets = {...state.subnets, [record.subnetId]: {...subnet, supply: subnet.supply + reward}};
  return {record: {...record, status: "current", priority, potentialReward: reward}, state: {...state, subnets}};
}

/**
 * A staking transaction takes effect (a standard block's, or an Apricot proposal block's once committed) at chain
 * time `blockTime`: the Banff+ block's timestamp (before Banff any time before Durango gives the same result).
 * From Durango the staker is current at once, starting at `blockTime`, with its potential reward and the supply
 * grown by it; before, it is pending from the start time its transaction names (`staker.startTime`, or
 * `txStartTime` for the permissionless and subnet types, whose decoded start is null) and the supply is unchanged.
 */
export function stakerAdded(
  state: SupplyState,
  tx: {txId: string; staker: Staker; blockTime: bigint; txType?: string; txStartTime?: bigint | null},
  config: NetworkStakingConfig,
): {record: StakerRecord; supply: bigint; subnets?: Readonly<Record<string, SubnetSupply>>} {
  const postDurango = tx.blockTime >= config.durangoTime;
  const start = postDurango ? tx.blockTime : (tx.staker.startTime ?? tx.txStartTime ?? null);
  if (start === null) throw new Error(`staker ${tx.txId}: a pre-Durango staker needs its transaction's start time`);
  const pending = pendingRecord(tx.txId, tx.staker, start, tx.txType);
  if (!postDurango) return withState({record: pending}, state);
  const entered = enterCurrent(state, pending, config);
  return withState({record: entered.record}, entered.state);
}

function pendingRecord(txId: string, s: Staker, startTime: bigint, txType: string | undefined): StakerRecord {
  return {
    txId,
    nodeId: s.nodeId,
    subnetId: s.subnetId,
    kind: s.kind,
    status: "pending",
    priority: pendingPriority(s, txType),
    startTime,
    endTime: s.endTime,
    weight: s.weight,
    potentialReward: 0n,
    delegationShares: s.kind === "delegator" ? 0 : s.delegationShares,
    rewardOwner: s.rewardOwner,
    delegationRewardOwner: s.delegationRewardOwner,
    accruedDelegateeReward: 0n,
  };
}

function withState<T extends object>(
  r: T,
  state: SupplyState,
): T & {supply: bigint; subnets?: Readonly<Record<string, SubnetSupply>>} {
  return state.subnets ? {...r, supply: state.supply, subnets: state.subnets} : {...r, supply: state.supply};
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** AvalancheGo's staker order (`Staker.Less`): the next time (start if pending, end if current), priority, tx ID bytes. */
export function compareStakers(a: StakerRecord, b: StakerRecord): number {
  const ta = a.status === "pending" ? a.startTime : a.endTime;
  const tb = b.status === "pending" ? b.startTime : b.endTime;
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.priority !== b.priority) return a.priority - b.priority;
  return compareBytes(idFromString(a.txId), idFromString(b.txId));
}

/**
 * The chain time advances to `newChainTime` (a Banff+ standard or proposal block's timestamp, applied before its
 * transactions; an Apricot AdvanceTimeTx once committed): every pending staker with start ≤ newChainTime enters
 * the current set, in AvalancheGo's order, each reward computed with the supply the previous one left; every
 * current permissioned subnet validator with end ≤ newChainTime leaves (`removed`: their tx IDs). Permissionless
 * stakers leave only by their RewardValidatorTx. `stakers` may hold any records: the others are ignored.
 */
export function advanceTime(
  state: SupplyState,
  stakers: readonly StakerRecord[],
  newChainTime: bigint,
  config: NetworkStakingConfig,
): {promoted: StakerRecord[]; removed: string[]; supply: bigint; subnets?: Readonly<Record<string, SubnetSupply>>} {
  const due = stakers.filter((s) => s.status === "pending" && s.startTime <= newChainTime).sort(compareStakers);
  let st = state;
  const promoted: StakerRecord[] = [];
  for (const p of due) {
    const entered = enterCurrent(st, p, config);
    st = entered.state;
    promoted.push(entered.record);
  }
  const removed = stakers
    .filter(
      (s) =>
        s.status === "current" &&
        s.priority === StakerPriority.subnetPermissionedValidatorCurrent &&
        s.endTime <= newChainTime,
    )
    .sort(compareStakers)
    .map((s) => s.txId);
  return withState({promoted, removed}, st);
}

/**
 * A RewardValidatorTx for `record` decided: `rewarded` for its Commit block, false for its Abort block. The staker
 * leaves the current set either way. `delegateeValidator` is, for a delegator, the current validator it delegates
 * to (required when the delegator is rewarded with a nonzero reward); `delegatee` is that validator's record
 * updated when its fee share accrues (validators that started from Cortina).
 */
export function stakerRewarded(
  state: SupplyState,
  record: StakerRecord,
  rewarded: boolean,
  delegateeValidator: StakerRecord | undefined,
  config: Pick<NetworkStakingConfig, "cortinaTime">,
): {supply: bigint; subnets?: Readonly<Record<string, SubnetSupply>>; payouts: Payout[]; delegatee?: StakerRecord} {
  const payouts: Payout[] = [];
  let delegatee: StakerRecord | undefined;
  if (record.kind === "delegator") {
    if (rewarded) {
      const validator = delegateeValidator;
      if (!validator && record.potentialReward > 0n)
        throw new Error(`delegator ${record.txId}: its validator's record is needed to split its reward`);
      const {delegatee: fee, delegator} = splitReward(record.potentialReward, validator?.delegationShares ?? 0);
      let offset = 0;
      if (delegator > 0n && record.rewardOwner)
        payouts.push({
          txId: record.txId,
          outputOffset: offset++,
          owner: record.rewardOwner,
          amount: delegator,
          rewardType: "DELEGATOR",
        });
      if (fee > 0n && validator) {
        if (validator.startTime >= config.cortinaTime) {
          delegatee = {...validator, accruedDelegateeReward: validator.accruedDelegateeReward + fee};
        } else {
          const owner = validator.delegationRewardOwner ?? validator.rewardOwner;
          if (owner)
            payouts.push({txId: record.txId, outputOffset: offset, owner, amount: fee, rewardType: "VALIDATOR_FEE"});
        }
      }
    }
  } else if (record.kind === "validator" || !isPermissioned(record.priority)) {
    // A validator's accrued delegation fees are paid on commit and on abort; its own reward only on commit.
    let offset = 0;
    if (rewarded && record.potentialReward > 0n && record.rewardOwner) {
      payouts.push({
        txId: record.txId,
        outputOffset: offset++,
        owner: record.rewardOwner,
        amount: record.potentialReward,
        rewardType: "VALIDATOR",
      });
    }
    const owner = record.delegationRewardOwner ?? record.rewardOwner;
    if (record.accruedDelegateeReward > 0n && owner) {
      payouts.push({
        txId: record.txId,
        outputOffset: offset,
        owner,
        amount: record.accruedDelegateeReward,
        rewardType: "VALIDATOR_FEE",
      });
    }
  }
  let st = state;
  if (!rewarded) st = undoMint(state, record);
  const r = withState({payouts}, st);
  return delegatee ? {...r, delegatee} : r;
}

function undoMint(state: SupplyState, record: StakerRecord): SupplyState {
  if (record.subnetId === EMPTY_ID) return {...state, supply: state.supply - record.potentialReward};
  const subnet = state.subnets?.[record.subnetId];
  if (!subnet) return state;
  return {
    ...state,
    subnets: {...state.subnets, [record.subnetId]: {...subnet, supply: subnet.supply - record.potentialReward}},
  };
}

/**
 * The genesis validators enter the current set as `syncGenesis` (vms/platformvm/state/state.go) adds them: in the
 * genesis's validator order, each starting at the genesis time with its reward computed on the supply the previous
 * one left, starting from the genesis's `InitialSupply`.
 */
export function genesisStakers(
  initialSupply: bigint,
  stakers: ReadonlyArray<{txId: string; staker: Staker & {startTime: bigint}; txType?: string}>,
  config: NetworkStakingConfig,
): {records: StakerRecord[]; supply: bigint} {
  let state: SupplyState = {supply: initialSupply};
  const records: StakerRecord[] = [];
  for (const g of stakers) {
    // Genesis transactions are pre-Durango by construction: their own start time.
    const entered = enterCurrent(state, pendingRecord(g.txId, g.staker, g.staker.startTime, g.txType), config);
    state = entered.state;
    records.push(entered.record);
  }
  return {records, supply: state.supply};
}

/** One row of the hosted API's `PendingReward` (listPendingRewards), before the view formats addresses and assets. */
export interface PendingRewardItem {
  txId: string;
  nodeId: string;
  rewardType: RewardType;
  /** 20-byte short IDs of the owner paid. */
  addresses: Uint8Array[];
  amountStaked: bigint;
  startTimestamp: bigint;
  endTimestamp: bigint;
  /** Percent of the staking period elapsed at `now`, within [0, 100]. */
  progress: number;
  /** nAVAX. */
  estimatedReward: bigint;
}

/**
 * The pending rewards of the current primary-network stakers at `now` (seconds): a validator's potential reward
 * for its reward owners (VALIDATOR); a delegator's, split with its validator's fee share, for the delegator's
 * owners (DELEGATOR) and, when the fee is not zero, for the validator's delegation reward owners (VALIDATOR_FEE).
 * A delegator's validator is the current validator of the same node and subnet in `records`. Ordered by end time,
 * then tx ID, then VALIDATOR / DELEGATOR before VALIDATOR_FEE. Pending (pre-Durango, not started) stakers and
 * permissioned subnet validators have no reward and are left out.
 */
export function pendingRewards(records: readonly StakerRecord[], now: bigint): PendingRewardItem[] {
  const validators = new Map<string, StakerRecord>();
  for (const r of records) {
    if (r.status === "current" && r.kind !== "delegator") validators.set(`${r.subnetId}/${r.nodeId}`, r);
  }
  const out: PendingRewardItem[] = [];
  const current = records.filter((r) => r.status === "current" && !isPermissioned(r.priority));
  current.sort((a, b) =>
    a.endTime !== b.endTime ? (a.endTime < b.endTime ? -1 : 1) : a.txId < b.txId ? -1 : a.txId > b.txId ? 1 : 0,
  );
  for (const r of current) {
    const base = {
      txId: r.txId,
      nodeId: r.nodeId,
      amountStaked: r.weight,
      startTimestamp: r.startTime,
      endTimestamp: r.endTime,
      progress: progress(r.startTime, r.endTime, now),
    };
    if (r.kind !== "delegator") {
      out.push({
        ...base,
        rewardType: "VALIDATOR",
        addresses: r.rewardOwner?.addresses ?? [],
        estimatedReward: r.potentialReward,
      });
      continue;
    }
    const v = validators.get(`${r.subnetId}/${r.nodeId}`);
    const split = splitReward(r.potentialReward, v?.delegationShares ?? 0);
    out.push({
      ...base,
      rewardType: "DELEGATOR",
      addresses: r.rewardOwner?.addresses ?? [],
      estimatedReward: split.delegator,
    });
    if (v && v.delegationShares > 0) {
      out.push({
        ...base,
        rewardType: "VALIDATOR_FEE",
        addresses: (v.delegationRewardOwner ?? v.rewardOwner)?.addresses ?? [],
        estimatedReward: split.delegatee,
      });
    }
  }
  return out;
}

/** Elapsed share of [start, end] at `now`, in percent within [0, 100]; 100 for an empty period. */
export function progress(start: bigint, end: bigint, now: bigint): number {
  if (end <= start) return 100;
  if (now <= start) return 0;
  if (now >= end) return 100;
  return Number(((now - start) * 1_000_000n) / (end - start)) / 10_000;
}
