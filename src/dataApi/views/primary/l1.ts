/**
 * L1 validators (ACP-77) as the P-chain keeps them, as pure functions over row-shaped records: AvalancheGo's
 * vms/platformvm/state/l1_validator.go (`L1Validator`), the executor's ConvertSubnetToL1Tx,
 * RegisterL1ValidatorTx, SetL1ValidatorWeightTx, IncreaseL1ValidatorBalanceTx and DisableL1ValidatorTx
 * (txs/executor/standard_tx_executor.go), and the continuous fee (validators/fee/fee.go, components/gas/gas.go,
 * txs/executor/state_changes.go `advanceValidatorFeeState`).
 *
 * The fee is charged per active validator per second and the same for all, so the chain keeps one running sum,
 * `accruedFees` (what one validator active since Etna would have paid), and each active validator keeps
 * `endAccumulatedFee` = its balance + the accrued fees when it was funded: its remaining balance is
 * endAccumulatedFee − accruedFees, and it is deactivated (endAccumulatedFee = 0) once accruedFees reaches it.
 * Amounts are nAVAX; times Unix seconds.
 */
import type {BlsCredentials, L1Validator, Owner} from "./model.js";
import type {L1ValidatorFeeConfig} from "./networkConfig.js";

const U64_MAX = (1n << 64n) - 1n;

/** The chain-wide fee state after a block: `fee.State.Excess` and the accrued fees (state `GetAccruedFees`). */
export interface L1FeeState {
  excess: bigint;
  accruedFees: bigint;
}

/** The fee state at Etna's activation: both zero. */
export const INITIAL_L1_FEE_STATE: L1FeeState = {excess: 0n, accruedFees: 0n};

/** An L1 validator, one row (AvalancheGo `state.L1Validator`). */
export interface L1ValidatorRecord {
  validationId: string;
  subnetId: string;
  nodeId: string;
  weight: bigint;
  /** The smallest nonce a SetL1ValidatorWeightTx may use next. */
  minNonce: bigint;
  /** The chain time it was added (conversion or registration). */
  startTime: bigint;
  /** Balance + accrued fees when funded; 0 while inactive. */
  endAccumulatedFee: bigint;
  bls: BlsCredentials | null;
  remainingBalanceOwner: Owner | null;
  deactivationOwner: Owner | null;
}

/** A UTXO returning an L1 validator's remaining balance: tx `txId`'s output `outputIndex` (= len(tx.Outs)). */
export interface L1Refund {
  outputIndex: number;
  owner: Owner;
  amount: bigint;
}

/**
 * `gas.CalculatePrice`: minPrice × e^(excess / k) by EIP-4844's fake exponential, integer steps as Go (each term
 * times excess, divided by k, divided by i), saturating at 2^64 − 1.
 */
export function calculatePrice(minPrice: bigint, excess: bigint, excessConversionConstant: bigint): bigint {
  const k = excessConversionConstant;
  // uint256 division by zero gives 0 in Go's library: the loop never runs and the output is 0.
  if (k === 0n) return 0n;
  const maxOutput = k * U64_MAX;
  let output = 0n;
  let accum = minPrice * k;
  for (let i = 1n; accum > 0n; i++) {
    output += accum;
    if (output >= maxOutput) return U64_MAX;
    accum = (accum * excess) / k / i;
  }
  return output / k;
}

/** `fee.State.AdvanceTime`: excess moves by (current − target) × seconds, saturating at 0 and 2^64 − 1. */
export function advanceExcess(excess: bigint, current: bigint, target: bigint, seconds: bigint): bigint {
  if (current < target) {
    const drop = (target - current) * seconds;
    if (drop > U64_MAX) return 0n;
    return excess > drop ? excess - drop : 0n;
  }
  if (current > target) {
    const rise = (current - target) * seconds;
    if (rise > U64_MAX) return U64_MAX;
    const sum = excess + rise;
    return sum > U64_MAX ? U64_MAX : sum;
  }
  return excess;
}

/**
 * `fee.State.CostOf`: what one validator pays over `seconds` with `current` active validators: a constant price
 * at the target, else the price of each second after advancing the excess by that second, at minPrice for the
 * rest once the excess is 0; saturating at 2^64 − 1.
 */
export function costOf(config: L1ValidatorFeeConfig, current: bigint, excess: bigint, seconds: bigint): bigint {
  if (current === config.target) {
    const cost = seconds * calculatePrice(config.minPrice, excess, config.excessConversionConstant);
    return cost > U64_MAX ? U64_MAX : cost;
  }
  let cost = 0n;
  let x = excess;
  for (let i = 0n; i < seconds; i++) {
    x = advanceExcess(x, current, config.target, 1n);
    if (x === 0n) {
      cost += config.minPrice * (seconds - i);
      return cost > U64_MAX ? U64_MAX : cost;
    }
    cost += calculatePrice(config.minPrice, x, config.excessConversionConstant);
    if (cost > U64_MAX) return U64_MAX;
  }
  return cost;
}

/**
 * `fee.State.SecondsRemaining`: how many seconds `funds` pay for with `current` active validators, at most
 * `maxSeconds` (the ACP-77 estimate of when a validator runs out if nothing changes).
 */
export function secondsRemaining(
  config: L1ValidatorFeeConfig,
  current: bigint,
  excess: bigint,
  maxSeconds: bigint,
  funds: bigint,
): bigint {
  if (config.minPrice === 0n) return maxSeconds;
  if (current === config.target) {
    const s = funds / calculatePrice(config.minPrice, excess, config.excessConversionConstant);
    return s < maxSeconds ? s : maxSeconds;
  }
  let x = excess;
  let left = funds;
  for (let s = 0n; s < maxSeconds; s++) {
    x = advanceExcess(x, current, config.target, 1n);
    if (x === 0n) {
      const total = s + left / config.minPrice;
      return total < maxSeconds ? total : maxSeconds;
    }
    const price = calculatePrice(config.minPrice, x, config.excessConversionConstant);
    if (price > left) return s;
    left -= price;
  }
  return maxSeconds;
}

/**
 * The chain time moves from `previousTime` to `newTime` with `activeCount` active L1 validators
 * (`advanceValidatorFeeState`): the accrued fees grow by one validator's cost over those whole seconds, then the
 * excess advances; both with the count before any deactivation. Nothing changes before Etna (`newTime` < etnaTime).
 * The first Etna block counts the seconds from its parent, even a pre-Etna one.
 */
export function advanceL1Fees(
  config: L1ValidatorFeeConfig,
  etnaTime: bigint,
  fee: L1FeeState,
  activeCount: bigint,
  previousTime: bigint,
  newTime: bigint,
): L1FeeState {
  if (newTime < etnaTime || newTime <= previousTime) return fee;
  const seconds = newTime - previousTime;
  const accruedFees = fee.accruedFees + costOf(config, activeCount, fee.excess, seconds);
  if (accruedFees > U64_MAX) throw new RangeError("L1 accrued fees overflow uint64 (AvalancheGo rejects the block)");
  return {excess: advanceExcess(fee.excess, activeCount, config.target, seconds), accruedFees};
}

/** The active validators the accrued fees have run out (endAccumulatedFee ≤ accruedFees), deactivated. */
export function deactivatedBy<R extends Pick<L1ValidatorRecord, "endAccumulatedFee">>(
  records: readonly R[],
  accruedFees: bigint,
): R[] {
  return records
    .filter((r) => r.endAccumulatedFee !== 0n && r.endAccumulatedFee <= accruedFees)
    .map((r) => ({...r, endAccumulatedFee: 0n}));
}

/**
 * `advanceL1Fees` and `deactivatedBy` together for a block at `newTime`: `active` are every active L1 validator
 * before the block. What the block's transactions then do comes after (the functions below).
 */
export function advanceL1Time<R extends Pick<L1ValidatorRecord, "endAccumulatedFee">>(
  config: L1ValidatorFeeConfig,
  etnaTime: bigint,
  fee: L1FeeState,
  active: readonly R[],
  previousTime: bigint,
  newTime: bigint,
): {fee: L1FeeState; deactivated: R[]} {
  const live = active.filter((r) => r.endAccumulatedFee !== 0n);
  const next = advanceL1Fees(config, etnaTime, fee, BigInt(live.length), previousTime, newTime);
  return {fee: next, deactivated: next === fee ? [] : deactivatedBy(live, next.accruedFees)};
}

/** An active validator's balance left at the fee state `accruedFees` (AvalancheGo's getL1Validator `balance`); 0 if inactive. */
export function remainingBalance(record: Pick<L1ValidatorRecord, "endAccumulatedFee">, accruedFees: bigint): bigint {
  if (record.endAccumulatedFee === 0n || record.endAccumulatedFee <= accruedFees) return 0n;
  return record.endAccumulatedFee - accruedFees;
}

/**
 * A validator's remaining balance at time `t` ≥ the last block's time, as a block at `t` with no transactions
 * would leave it: the accrued fees advanced from `lastBlockTime` with the current active count.
 */
export function remainingBalanceAt(
  config: L1ValidatorFeeConfig,
  etnaTime: bigint,
  record: Pick<L1ValidatorRecord, "endAccumulatedFee">,
  fee: L1FeeState,
  activeCount: bigint,
  lastBlockTime: bigint,
  t: bigint,
): bigint {
  return remainingBalance(record, advanceL1Fees(config, etnaTime, fee, activeCount, lastBlockTime, t).accruedFees);
}

function newRecord(
  subnetId: string,
  v: L1Validator,
  balance: bigint,
  fee: L1FeeState,
  chainTime: bigint,
): L1ValidatorRecord {
  return {
    validationId: v.validationId,
    subnetId,
    nodeId: v.nodeId,
    weight: v.weight,
    minNonce: 0n,
    startTime: chainTime,
    endAccumulatedFee: balance === 0n ? 0n : balance + fee.accruedFees,
    bls: v.bls,
    remainingBalanceOwner: v.remainingBalanceOwner,
    deactivationOwner: v.deactivationOwner,
  };
}

/** ConvertSubnetToL1Tx at chain time `chainTime`: the initial validators, active when funded. */
export function convertSubnetToL1(
  fee: L1FeeState,
  tx: {subnetId: string; validators: readonly L1Validator[]},
  chainTime: bigint,
): L1ValidatorRecord[] {
  return tx.validators.map((v) => newRecord(tx.subnetId, v, v.balance, fee, chainTime));
}

/** RegisterL1ValidatorTx at `chainTime`: the validator of the message, with the transaction's balance. */
export function registerL1Validator(
  fee: L1FeeState,
  tx: {subnetId: string; validator: L1Validator},
  chainTime: bigint,
): L1ValidatorRecord {
  return newRecord(tx.subnetId, tx.validator, tx.validator.balance, fee, chainTime);
}

/**
 * SetL1ValidatorWeightTx: a new weight and nonce + 1 as the minimum nonce; weight 0 removes the validator (`record`
 * null) and, if it was active, returns its remaining balance to its remaining-balance owner in output
 * len(tx.Outs) = `outputCount` of the transaction.
 */
export function setL1ValidatorWeight<R extends L1RefundSource>(
  fee: L1FeeState,
  record: R,
  msg: {nonce: bigint; weight: bigint},
  outputCount: number,
): {record: (R & {weight: bigint; minNonce: bigint}) | null; refund: L1Refund | null} {
  if (msg.weight !== 0n) return {record: {...record, weight: msg.weight, minNonce: msg.nonce + 1n}, refund: null};
  return {record: null, refund: refund(fee, record, outputCount)};
}

/** IncreaseL1ValidatorBalanceTx: an inactive validator is reactivated from the accrued fees now. */
export function increaseL1ValidatorBalance<R extends Pick<L1ValidatorRecord, "endAccumulatedFee">>(
  fee: L1FeeState,
  record: R,
  balance: bigint,
): R {
  const base = record.endAccumulatedFee === 0n ? fee.accruedFees : record.endAccumulatedFee;
  return {...record, endAccumulatedFee: base + balance};
}

/** DisableL1ValidatorTx: an active validator's remaining balance is returned (output `outputCount`) and it goes inactive. */
export function disableL1Validator<R extends L1RefundSource>(
  fee: L1FeeState,
  record: R,
  outputCount: number,
): {record: R; refund: L1Refund | null} {
  return {record: {...record, endAccumulatedFee: 0n}, refund: refund(fee, record, outputCount)};
}

/** What a refund reads of a validator. */
type L1RefundSource = Pick<L1ValidatorRecord, "validationId" | "endAccumulatedFee" | "remainingBalanceOwner">;

function refund(fee: L1FeeState, record: L1RefundSource, outputCount: number): L1Refund | null {
  if (record.endAccumulatedFee === 0n) return null;
  const amount = remainingBalance(record, fee.accruedFees);
  // AvalancheGo refuses the transaction (state corruption) rather than pay nothing from an active validator.
  if (amount === 0n)
    throw new Error(
      `L1 validator ${record.validationId}: active with no balance left (it should have been deactivated)`,
    );
  const o = record.remainingBalanceOwner;
  return {
    outputIndex: outputCount,
    owner: {locktime: 0n, threshold: o?.threshold ?? 0, addresses: o?.addresses ?? []},
    amount,
  };
}

/** The P block's `activeL1Validators`: the validators active after it (endAccumulatedFee ≠ 0). */
export function activeL1Validators(records: readonly Pick<L1ValidatorRecord, "endAccumulatedFee">[]): number {
  return records.reduce((n, r) => (r.endAccumulatedFee !== 0n ? n + 1 : n), 0);
}
