/**
 * The P-chain's staking, subnet and L1 state, folded transaction by transaction into the store: stakers with
 * their potential reward (AvalancheGo's calculator, stakers.ts) and the current supply, the reward decision of a
 * RewardValidatorTx (its proposal block, then the Commit or Abort block that follows), reward UTXOs, subnets,
 * blockchains and L1 validators. The supply and a pending reward decision live in `data_api_meta` and are written
 * with every batch, so a restart resumes them exactly.
 */
import type {NetworkInfo} from "../../../chains/index.js";
import {Writer} from "../../../decode/reader.js";
import {idFromString, idToString} from "../../../util/cb58.js";
import {sha256} from "../../../util/sha256.js";
import type {SqlTx} from "../../store/sql.js";
import type {GenesisState, L1Validator, Owner, PrimaryContainer, PrimaryTx, Staker, TxOutput} from "./model.js";
import {
  INITIAL_L1_FEE_STATE,
  advanceL1Time,
  convertSubnetToL1,
  disableL1Validator,
  increaseL1ValidatorBalance,
  registerL1Validator,
  remainingBalance,
  setL1ValidatorWeight,
  type L1FeeState,
} from "./l1.js";
import {networkConfigFor} from "./networkConfig.js";
import {SupplyDeltas} from "./supplyTotals.js";
import {
  advanceTime,
  currentPriority,
  pendingPriority,
  stakerAdded,
  stakerRewarded,
  type StakerRecord,
} from "./stakers.js";
import {l1Facts, type EventPlace, type WebhookEvents} from "./webhookEvents.js";
import {
  insertRewardUtxos,
  l1ValidatorsTable,
  stakersTable,
  stakingTxUtxosTable,
  subnetsTable,
  type ActiveL1Validator,
  type StakerRole,
  type StakerRow,
} from "./stakingTables.js";
import type {BalanceChanges} from "./webhookThresholds.js";
import {jsonSafe, ownerJson, unstakedType, utxoCreateRow, type L1EffectRow, type TxPlace} from "./rows.js";

interface PendingReward {
  rewardTxId: string;
  stakingTxId: string;
  place: {seq: string; blockId: string; height: string; ts: string};
}

/** A staking transaction proposed by an Apricot proposal block, and that block. */
interface PendingStaker {
  txId: string;
  blockId: string;
}

interface StakingState {
  supply: bigint;
  pending: PendingReward | null;
  chainTime: bigint | null;
  pendingAdvance: bigint | null;
  pendingStaker: PendingStaker | null;
  l1Fee: L1FeeState;
  l1Time: bigint | null;
  l1Active: number;
}

/** What a transaction did to one L1 validator: the transaction's `l1ValidatorDetails`. */
export type L1Effect = L1EffectRow;

/** What a P transaction did beyond its own outputs, for the view to write with the transaction. */
export interface TxEffects {
  l1: L1Effect[];
  /** UTXOs it creates after its outputs: an L1 validator's remaining balance returned (output len(tx.Outs)). */
  refunds: TxOutput[];
}

const NO_EFFECTS: TxEffects = Object.freeze({l1: [], refunds: []}) as TxEffects;

export class StakingFold {
  supply = 0n;
  private pending: PendingReward | null = null;
  /**
   * The P-chain's time, which moves pending stakers into the current set: a Banff block's own timestamp, or the
   * time of a committed AdvanceTimeTx (Apricot blocks carry none). Null before the first such block.
   */
  private chainTime: bigint | null = null;
  /** An AdvanceTimeTx's time, proposed and waiting for its Commit or Abort block. */
  private pendingAdvance: bigint | null = null;
  /**
   * A staking transaction of an Apricot proposal block, waiting for its Commit or Abort block: folded as committed,
   * and undone by an Abort (AvalancheGo's onAbortState adds no staker and returns the stake at once).
   */
  private pendingStaker: PendingStaker | null = null;
  /**
   * The P block being folded when it is an Apricot proposal block (no time of its own; one transaction): its
   * staking transaction is a proposal. A Banff proposal block's decision transactions are not.
   */
  private apricotProposal: string | null = null;
  /** The continuous fee of L1 validators (l1.ts): the chain's fee state after the last P block. */
  private l1Fee: L1FeeState = INITIAL_L1_FEE_STATE;
  /** The last P block's time, where the next block's fee advance starts; null before the first. */
  private l1Time: bigint | null = null;
  /** Active L1 validators after the last P block (not stored: every block from Etna on counts them again). */
  private l1Active = 0;
  /** Whether the block's transactions changed L1 validators (then the active ones are counted after it). */
  private l1Touched = false;
  /** The batch's primary webhooks' events (view.ts sets it for each batch): rewards paid, L1 balances charged. */
  events: WebhookEvents | null = null;
  /** The L1 fee balance thresholds webhooks watch (webhookEvents.ts webhooksOfBatch), read for each P batch. */
  l1Thresholds: bigint[] = [];
  /** The batch's UTXO changes for balance_threshold webhooks (view.ts sets it when the chain has one). */
  balances: BalanceChanges | null = null;
  /**
   * The owners of the reward UTXOs this batch made, by UTXO ID: a later transaction of the batch spending one removes
   * its unspent_owned rows by them (view.ts spentStatements). Set by the view for each batch.
   */
  rewardOwners: Map<string, Uint8Array[]> | null = null;

  constructor(private readonly opts: {network: NetworkInfo; avaxAssetId: string}) {}

  load(meta: Map<string, string>): void {
    this.supply = BigInt(meta.get("view.supply") ?? "0");
    const p = meta.get("view.pendingReward");
    this.pending = p ? (JSON.parse(p) as PendingReward) : null;
    const time = meta.get("view.chainTime");
    this.chainTime = time ? BigInt(time) : null;
    const advance = meta.get("view.pendingAdvance");
    this.pendingAdvance = advance ? BigInt(advance) : null;
    const staker = meta.get("view.pendingStaker");
    this.pendingStaker = staker ? (JSON.parse(staker) as PendingStaker) : null;
    this.l1Fee = {
      excess: BigInt(meta.get("view.l1.excess") || "0"),
      accruedFees: BigInt(meta.get("view.l1.accruedFees") || "0"),
    };
    const t = meta.get("view.l1.time");
    this.l1Time = t ? BigInt(t) : null;
  }

  state(): Array<[string, string]> {
    return [
      ["view.supply", this.supply.toString()],
      ["view.pendingReward", this.pending ? JSON.stringify(this.pending) : ""],
      ["view.chainTime", this.chainTime === null ? "" : this.chainTime.toString()],
      ["view.pendingAdvance", this.pendingAdvance === null ? "" : this.pendingAdvance.toString()],
      ["view.pendingStaker", this.pendingStaker ? JSON.stringify(this.pendingStaker) : ""],
      ["view.l1.excess", this.l1Fee.excess.toString()],
      ["view.l1.accruedFees", this.l1Fee.accruedFees.toString()],
      ["view.l1.time", this.l1Time === null ? "" : this.l1Time.toString()],
    ];
  }

  snapshot(): StakingState {
    return {
      supply: this.supply,
      pending: this.pending,
      chainTime: this.chainTime,
      pendingAdvance: this.pendingAdvance,
      pendingStaker: this.pendingStaker,
      l1Fee: this.l1Fee,
      l1Time: this.l1Time,
      l1Active: this.l1Active,
    };
  }

  restore(s: StakingState): void {
    this.supply = s.supply;
    this.pending = s.pending;
    this.chainTime = s.chainTime;
    this.pendingAdvance = s.pendingAdvance;
    this.pendingStaker = s.pendingStaker;
    this.l1Fee = s.l1Fee;
    this.l1Time = s.l1Time;
    this.l1Active = s.l1Active;
    this.l1Touched = false;
  }

  /**
   * Applies what a P block decides before its own transactions: a Commit or Abort settles the pending reward (or
   * the proposed AdvanceTimeTx); the chain time moving moves the pending stakers whose start it reaches into the
   * current set; and the block's time charges the L1 validators' continuous fee, deactivating those it runs out
   * (AvalancheGo's advanceValidatorFeeState, at every block from Etna on). Returns the staking transaction an
   * Abort block undid, whose stake outputs the view makes plain UTXOs in its batch (this undoes those written).
   */
  async beforeBlock(tx: SqlTx, d: PrimaryContainer, ts: bigint): Promise<string | null> {
    if (d.chain !== "P") return null;
    this.apricotProposal = d.blockType === "Proposal" && (d.chainTime ?? null) === null ? d.blockId : null;
    const decided = d.blockType === "Commit" || d.blockType === "Abort";
    if (this.pending && decided) {
      await this.settle(tx, this.pending, d.blockType === "Commit", d);
      this.pending = null;
    }
    // The decision is the next block, a child of the proposal; any other block (the decision did not decode) ends
    // the wait without undoing anything.
    let aborted: string | null = null;
    if (this.pendingStaker !== null) {
      if (d.blockType === "Abort" && d.parentId === this.pendingStaker.blockId) {
        aborted = this.pendingStaker.txId;
        await this.abortStaker(tx, aborted);
      }
      this.pendingStaker = null;
    }
    let time = d.chainTime ?? null;
    if (time === null && d.blockType === "Commit" && this.pendingAdvance !== null) time = this.pendingAdvance;
    if (decided) this.pendingAdvance = null;
    if (time !== null && (this.chainTime === null || time > this.chainTime)) {
      this.chainTime = time;
      await this.promotePending(tx, time);
    }
    const cfg = networkConfigFor(this.opts.network.id);
    this.l1Touched = false;
    if (ts >= cfg.etnaTime) {
      const active = await l1ValidatorsTable.active(tx);
      const {fee, deactivated} = advanceL1Time(
        cfg.l1ValidatorFee,
        cfg.etnaTime,
        this.l1Fee,
        active,
        this.l1Time ?? ts,
        ts,
      );
      this.l1BalancesFell(d, active, this.l1Fee.accruedFees, fee.accruedFees);
      if (deactivated.length > 0) {
        await l1ValidatorsTable.deactivate(
          tx,
          deactivated.map((r) => r.validationId),
        );
      }
      this.l1Fee = fee;
      this.l1Active = active.filter((r) => r.endAccumulatedFee !== 0n).length - deactivated.length;
    }
    if (this.l1Time === null || ts > this.l1Time) this.l1Time = ts;
    return aborted;
  }

  /**
   * The block charged the active L1 validators from `before` to `after` accrued fees: one whose remaining balance
   * fell under a threshold a webhook watches is an l1_validator_balance_threshold event (each webhook's own
   * threshold is checked again when the event is written).
   */
  private l1BalancesFell(
    d: PrimaryContainer,
    active: readonly ActiveL1Validator[],
    before: bigint,
    after: bigint,
  ): void {
    if (this.events === null || this.l1Thresholds.length === 0 || after === before) return;
    const place: EventPlace = {
      chainId: this.opts.network.chainIds.P,
      pos: d.height,
      txId: null,
      blockId: d.blockId,
      height: d.height,
      txIndex: -1,
    };
    for (const v of active) {
      const was = remainingBalance(v, before);
      const now = remainingBalance(v, after);
      if (!this.l1Thresholds.some((t) => was >= t && now < t)) continue;
      this.events.validatorEvent(
        place,
        "l1_validator_balance_threshold",
        {nodeId: v.nodeId, subnetId: v.subnetId, key: v.validationId, balance: [was, now]},
        {
          ...l1Facts({validationId: v.validationId, weight: v.weight, remainingBalance: now}),
          previousBalance: was.toString(),
        },
      );
    }
  }

  /**
   * An aborted proposal of a staking transaction: no staker, and its stake outputs are UTXOs like its others,
   * spendable at once (AvalancheGo produces the outputs and the stake on the abort state, at the same indexes).
   */
  private async abortStaker(tx: SqlTx, txId: string): Promise<void> {
    await stakersTable.delete(tx, txId);
    await stakingTxUtxosTable.unstake(tx, txId, this.opts.network.chainIds.P, {
      stakeableLocked: unstakedType(1n),
      unlocked: unstakedType(0n),
    });
  }

  /** A P block's L1 figures after its transactions: the chain's accrued fees and the active validators. */
  async afterBlock(tx: SqlTx): Promise<{fees: bigint; active: number}> {
    if (this.l1Touched) {
      this.l1Active = await l1ValidatorsTable.countActive(tx);
      this.l1Touched = false;
    }
    return {fees: this.l1Fee.accruedFees, active: this.l1Active};
  }

  async onTx(tx: SqlTx, t: PrimaryTx, place: TxPlace): Promise<TxEffects> {
    if (t.chain !== "P") return NO_EFFECTS;
    const d = t.details;
    const effects: TxEffects = {l1: [], refunds: []};
    if (d.staker) {
      const raw = d.extra?.startTime;
      const extraStart = raw === undefined || raw === null ? null : BigInt(String(raw));
      await this.addStaker(tx, t.id, d.staker, {
        blockTs: place.ts,
        extraStart,
        outputCount: t.outputs.length,
        txType: t.txType,
      });
      if (this.apricotProposal !== null) this.pendingStaker = {txId: t.id, blockId: this.apricotProposal};
    }
    if (t.txType === "AdvanceTimeTx" && d.extra?.time !== undefined) this.pendingAdvance = BigInt(String(d.extra.time));
    if (d.rewardedTxId) {
      this.pending = {
        rewardTxId: t.id,
        stakingTxId: d.rewardedTxId,
        place: {
          seq: place.seq.toString(),
          blockId: place.blockId,
          height: place.height.toString(),
          ts: place.ts.toString(),
        },
      };
    }
    if (t.txType === "CreateSubnetTx") {
      await subnetsTable.insert(tx, t.id, place.ts, JSON.stringify(ownerJson(d.subnetOwner)));
    }
    if (t.txType === "RemoveSubnetValidatorTx" && d.subnetId && typeof d.extra?.nodeId === "string") {
      // The permissioned validator leaves the current (or pending) set at once, with no reward
      // (vms/platformvm/txs/executor/standard_tx_executor.go RemoveSubnetValidatorTx, which refuses a permissionless
      // one): `removed`, remove_tx_id the removing transaction (no reward: reward_tx_id stays empty).
      await stakersTable.removeSubnetValidator(tx, d.subnetId, d.extra.nodeId, t.id);
    }
    if (t.txType === "TransferSubnetOwnershipTx" && d.subnetId) {
      await subnetsTable.setOwner(tx, d.subnetId, JSON.stringify(ownerJson(d.subnetOwner)));
    }
    if (t.txType === "CreateChainTx" && d.chain) {
      await subnetsTable.insertBlockchain(tx, {
        blockchainId: t.id,
        subnetId: d.subnetId ?? "",
        name: d.chain.chainName,
        vmId: d.chain.vmId,
        genesisData: d.chain.genesisData,
        createdTs: place.ts,
        createdHeight: place.height,
      });
    }
    if (d.conversion && d.subnetId) {
      const c = d.conversion;
      await subnetsTable.convert(tx, d.subnetId, {
        chainId: c.chainId,
        manager: "0x" + Buffer.from(c.managerAddress).toString("hex"),
        conversionId: c.conversionId,
        ts: place.ts,
      });
      const records = convertSubnetToL1(this.l1Fee, {subnetId: d.subnetId, validators: c.validators}, place.ts);
      for (const [i, v] of c.validators.entries()) {
        await this.addL1Validator(tx, d.subnetId, t.id, place, v, records[i]!.endAccumulatedFee);
        effects.l1.push({
          validationId: v.validationId,
          nodeId: v.nodeId,
          subnetId: d.subnetId,
          weight: v.weight,
          remainingBalance: v.balance,
          balanceChange: v.balance,
        });
        await l1ValidatorsTable.addTx(tx, v.validationId, place.seq);
      }
      this.l1Touched = true;
    }
    const v = d.l1Validator;
    if (v) {
      await l1ValidatorsTable.addTx(tx, v.validationId, place.seq);
      this.l1Touched = true;
      if (t.txType === "RegisterL1ValidatorTx") {
        const full = {
          nodeId: "",
          weight: 0n,
          balance: 0n,
          bls: null,
          remainingBalanceOwner: null,
          deactivationOwner: null,
          ...v,
        };
        const end = registerL1Validator(
          this.l1Fee,
          {subnetId: d.subnetId ?? "", validator: full},
          place.ts,
        ).endAccumulatedFee;
        await this.addL1Validator(tx, d.subnetId ?? "", t.id, place, full, end);
        effects.l1.push({
          validationId: v.validationId,
          nodeId: full.nodeId,
          subnetId: d.subnetId ?? "",
          weight: full.weight,
          remainingBalance: full.balance,
          balanceChange: full.balance,
        });
      } else {
        const effect = await this.changeL1Validator(tx, t, v);
        if (effect) {
          effects.l1.push(effect.l1);
          if (effect.refund) effects.refunds.push(effect.refund);
        }
      }
    }
    return effects;
  }

  /**
   * SetL1ValidatorWeightTx, IncreaseL1ValidatorBalanceTx and DisableL1ValidatorTx on the stored validator (l1.ts):
   * weight 0 removes it and a disable deactivates it, both returning an active one's remaining balance as a UTXO;
   * a balance increase reactivates an inactive one from the accrued fees now.
   */
  private async changeL1Validator(
    tx: SqlTx,
    t: PrimaryTx,
    v: {validationId: string; weight?: bigint; nonce?: bigint; balance?: bigint},
  ): Promise<{l1: L1Effect; refund: TxOutput | null} | null> {
    const row = await l1ValidatorsTable.byValidationId(tx, v.validationId);
    if (!row) return null;
    const accrued = this.l1Fee.accruedFees;
    const record = {
      validationId: v.validationId,
      endAccumulatedFee: row.endAccumulatedFee,
      remainingBalanceOwner: ownerFromJson(row.remainingBalanceOwner),
    };
    const base = {
      validationId: v.validationId,
      nodeId: row.nodeId,
      subnetId: row.subnetId,
      weight: row.weight,
    };
    const left = remainingBalance(record, accrued);
    if (t.txType === "IncreaseL1ValidatorBalanceTx") {
      const added = v.balance ?? 0n;
      const end = increaseL1ValidatorBalance(this.l1Fee, record, added).endAccumulatedFee;
      await l1ValidatorsTable.fund(tx, v.validationId, end, end - accrued);
      return {l1: {...base, remainingBalance: end - accrued, balanceChange: added}, refund: null};
    }
    if (t.txType === "SetL1ValidatorWeightTx" && (v.weight ?? 0n) !== 0n) {
      await l1ValidatorsTable.setWeight(tx, v.validationId, v.weight!, v.nonce ?? 0n);
      return {l1: {...base, weight: v.weight!, remainingBalance: left, balanceChange: 0n}, refund: null};
    }
    if (t.txType !== "SetL1ValidatorWeightTx" && t.txType !== "DisableL1ValidatorTx") return null;
    // Removed (weight 0) or disabled: an active validator's balance left goes back to its remaining-balance owner.
    const removed = t.txType === "SetL1ValidatorWeightTx";
    await l1ValidatorsTable.end(tx, v.validationId, removed ? (v.nonce ?? 0n) : null);
    // Active validators have balance left here: the block's time advance deactivated those it ran out.
    const ended = removed
      ? setL1ValidatorWeight(this.l1Fee, record, {nonce: v.nonce ?? 0n, weight: 0n}, t.outputs.length)
      : disableL1Validator(this.l1Fee, record, t.outputs.length);
    const r = ended.refund;
    const refund = r === null ? null : transferOutput(t.id, r.outputIndex, this.opts.avaxAssetId, r.amount, r.owner);
    return {
      l1: {...base, weight: removed ? 0n : base.weight, remainingBalance: 0n, balanceChange: -(r?.amount ?? 0n)},
      refund,
    };
  }

  /**
   * Genesis stakers (with their stake UTXOs) and the genesis supply. The chains created at genesis (X, C) are not
   * listed with the blockchains the P-chain's CreateChainTxs create: Glacier's `Blockchain` requires an
   * `evmChainId`, which the X-chain has none of.
   */
  async genesis(
    tx: SqlTx,
    g: GenesisState,
    createUtxo: (txId: string, o: TxOutput, place: TxPlace, stakingEnd: bigint) => void,
    chainIdP: string,
    first = true,
  ): Promise<void> {
    // The genesis's initial supply, then each genesis validator's potential reward added to it in the genesis's
    // order, each computed on the supply so far (vms/platformvm/state/state.go syncGenesis). A genesis folded in
    // slices of its stakers passes `first` only with the first slice.
    if (first) this.supply = g.supply;
    for (const s of g.stakers) {
      const place: TxPlace = {chain: "P", chainId: chainIdP, seq: 0n, blockId: "", height: 0n, ts: g.timestamp};
      for (const o of s.stake) createUtxo(s.txId, o, place, s.staker.endTime);
      await this.addStaker(tx, s.txId, s.staker, {
        blockTs: s.staker.startTime,
        extraStart: null,
        outputCount: s.stake.length,
        genesis: true,
      });
    }
  }

  /**
   * A staking transaction's staker. From Durango it enters the current set at once, at the chain time; before, it
   * waits in the pending set (status `current`, `pending_priority` set, no potential reward yet) until the chain
   * time reaches its start (promotePending). The API tells pending from active by the start time either way.
   */
  private async addStaker(
    tx: SqlTx,
    txId: string,
    s: Staker,
    at: {blockTs: bigint; extraStart: bigint | null; outputCount: number; txType?: string; genesis?: boolean},
  ): Promise<void> {
    const {blockTs, extraStart, outputCount, txType} = at;
    const cfg = networkConfigFor(this.opts.network.id);
    // The chain time decides Durango: a Banff block's own, else (Apricot) the last committed AdvanceTimeTx's.
    const chainTime = this.chainTime ?? blockTs;
    // Permissionless stakers start at their block's time from Durango on; before, at the time their bytes give.
    const bytesStart = extraStart ?? null;
    const staker =
      s.startTime === null && bytesStart !== null && chainTime < cfg.durangoTime ? {...s, startTime: bytesStart} : s;
    const added = stakerAdded(
      {supply: this.supply},
      {txId, staker, blockTime: chainTime, txStartTime: bytesStart, txType},
      cfg,
    );
    let record = added.record;
    this.supply = added.supply;
    if (record.status === "pending" && at.genesis === true) {
      // Genesis stakers are current from the start (AvalancheGo's syncGenesis).
      const entered = advanceTime({supply: this.supply}, [record], record.startTime, cfg);
      record = entered.promoted[0] ?? record;
      this.supply = entered.supply;
    }
    const pendingPriority = record.status === "pending" ? record.priority : null;
    let validatorTxId: string | null = null;
    if (s.kind === "delegator") {
      validatorTxId = await stakersTable.currentValidatorTx(tx, s.nodeId, s.subnetId);
    }
    await stakersTable.insert(tx, {
      txId,
      kind: s.kind,
      nodeId: s.nodeId,
      subnetId: s.subnetId,
      startTs: record.startTime,
      endTs: record.endTime,
      weight: record.weight,
      potentialReward: record.potentialReward,
      delegationShares: s.delegationShares,
      rewardOwner: JSON.stringify(ownerJson(s.rewardOwner)),
      delegationRewardOwner: JSON.stringify(ownerJson(s.delegationRewardOwner)),
      bls: s.bls ? JSON.stringify(s.bls) : null,
      validatorTxId,
      outputCount,
      pendingPriority,
    });
    // Who sees this staker's reward in the pending list: its reward owners (VALIDATOR or DELEGATOR) and, for a
    // delegator whose validator takes a fee, the validator's delegation reward owners (VALIDATOR_FEE).
    const rows: Array<[Uint8Array, string, StakerRole]> = [];
    for (const a of s.rewardOwner?.addresses ?? [])
      rows.push([a, txId, s.kind === "delegator" ? "DELEGATOR" : "VALIDATOR"]);
    if (validatorTxId !== null) {
      const v = await stakersTable.delegationTerms(tx, validatorTxId);
      const fee = v && v.delegationShares > 0 ? ownerFromJson(v.delegationRewardOwner) : null;
      for (const a of fee?.addresses ?? []) rows.push([a, txId, "VALIDATOR_FEE"]);
    }
    await stakersTable.insertAddresses(tx, rows);
  }

  /**
   * The chain time reached `time`: the pending stakers whose start it reaches enter the current set in AvalancheGo's
   * order (start time, pending priority, transaction ID), each with its potential reward from the supply the one
   * before left (stakers.ts advanceTime).
   */
  private async promotePending(tx: SqlTx, time: bigint): Promise<void> {
    const rows = await stakersTable.pendingStarted(tx, time);
    if (rows.length === 0) return;
    const cfg = networkConfigFor(this.opts.network.id);
    const pending = rows.map((r) => ({
      ...toRecord(r),
      status: "pending" as const,
      priority: r.pending_priority as StakerRecord["priority"],
      potentialReward: 0n,
    }));
    const result = advanceTime({supply: this.supply}, pending, time, cfg);
    for (const p of result.promoted) {
      await stakersTable.promote(tx, p.txId, p.potentialReward);
    }
    this.supply = result.supply;
  }

  /** A RewardValidatorTx decided: the staker leaves the current set; a commit pays its rewards as new UTXOs. */
  private async settle(tx: SqlTx, p: PendingReward, rewarded: boolean, decision: PrimaryContainer): Promise<void> {
    const row = await stakersTable.byTx(tx, p.stakingTxId);
    if (!row) return;
    const record = toRecord(row);
    let delegatee: StakerRecord | undefined;
    if (row.validator_tx_id) {
      const v = await stakersTable.byTx(tx, row.validator_tx_id);
      if (v) delegatee = toRecord(v);
    }
    // From Cortina a delegator's fee share accrues on its validator, paid with the validator's own reward.
    const cfg = networkConfigFor(this.opts.network.id);
    const result = stakerRewarded({supply: this.supply}, record, rewarded, delegatee, cfg);
    if (result.delegatee) {
      await stakersTable.setAccruedDelegateeReward(tx, result.delegatee.txId, result.delegatee.accruedDelegateeReward);
    }
    this.supply = result.supply;
    await stakersTable.settle(tx, p.stakingTxId, rewarded ? "rewarded" : "aborted", p.rewardTxId);
    if (result.payouts.length === 0) return;
    // AvalancheGo numbers reward UTXOs after the staking tx's outputs and stake, in the payouts' order. A staker
    // folded before output_count was stored is counted from its UTXOs (its own batch is long written by now).
    const first =
      row.output_count ?? (await stakingTxUtxosTable.count(tx, p.stakingTxId, this.opts.network.chainIds.P));
    const chainId = this.opts.network.chainIds.P;
    const place: TxPlace = {
      chain: "P",
      chainId,
      seq: BigInt(p.place.seq),
      blockId: p.place.blockId,
      height: BigInt(p.place.height),
      ts: BigInt(p.place.ts),
    };
    const avax = this.opts.avaxAssetId;
    const creates: unknown[][] = [];
    const addrs: Array<[Uint8Array, bigint, string]> = [];
    const supply = new SupplyDeltas();
    for (const pay of result.payouts) {
      if (pay.amount <= 0n) continue;
      const o = transferOutput(p.stakingTxId, first + pay.outputOffset, avax, pay.amount, pay.owner);
      creates.push(utxoCreateRow(p.stakingTxId, o, place, {rewardType: pay.rewardType}));
      supply.created(o.utxoId, pay.amount, chainId, place.seq, pay.rewardType);
      this.rewardOwners?.set(o.utxoId, pay.owner.addresses);
      for (const a of pay.owner.addresses) addrs.push([a, place.ts, o.utxoId]);
    }
    // The supply's running sums (supplyTotals.ts), before the rows: a reward UTXO the store holds already is not
    // counted again.
    if (supply.size > 0) {
      const params: unknown[] = [];
      await tx.query(supply.upsertSql(params, true), params);
    }
    // The reward transaction is listed under the addresses it pays.
    const touched = result.payouts.flatMap((pay) =>
      pay.owner.addresses.map((a): [string, Uint8Array, bigint] => ["P", a, place.seq]),
    );
    await insertRewardUtxos(tx, creates, addrs, touched);
    // Webhooks: the reward transaction changed its payees' balances and distributed rewards, made at the decision
    // block (the one folded now: its height is the webhooks' position).
    const event: EventPlace = {
      chainId,
      pos: decision.height,
      txId: p.rewardTxId,
      blockId: p.place.blockId,
      height: BigInt(p.place.height),
      txIndex: 0,
    };
    this.balances?.add(
      {...event, txId: p.rewardTxId, ts: place.ts},
      creates.map((r) => r[0] as string),
      [],
    );
    if (this.events && creates.length > 0) {
      const paid = result.payouts.filter((pay) => pay.amount > 0n);
      const rewards = paid.map((pay) => ({
        rewardType: pay.rewardType,
        amount: pay.amount.toString(),
        utxoId: transferOutput(p.stakingTxId, first + pay.outputOffset, avax, pay.amount, pay.owner).utxoId,
        addresses: pay.owner.addresses.map((a) => Buffer.from(a).toString("hex")),
      }));
      const facts = {stakingTxHash: p.stakingTxId, rewards};
      const payees = paid.flatMap((pay) => pay.owner.addresses);
      this.events.addresses(event, payees);
      this.events.addresses(event, payees, "reward_distribution", facts);
      this.events.validatorEvent(
        event,
        "reward_distribution",
        {nodeId: row.node_id, subnetId: row.subnet_id, key: p.stakingTxId},
        {
          ...facts,
          stakerKind: row.kind,
          potentialReward: row.potential_reward,
        },
      );
    }
  }

  /** A converted or registered L1 validator with its `end_accumulated_fee` (l1.ts): active when funded. */
  private async addL1Validator(
    tx: SqlTx,
    subnetId: string,
    txId: string,
    place: TxPlace,
    v: L1Validator,
    end: bigint,
  ): Promise<void> {
    await l1ValidatorsTable.insert(tx, {
      validationId: v.validationId,
      subnetId,
      nodeId: v.nodeId,
      weight: v.weight,
      balance: v.balance,
      bls: v.bls ? JSON.stringify(jsonSafe(v.bls)) : null,
      remainingBalanceOwner: JSON.stringify(ownerJson(v.remainingBalanceOwner)),
      deactivationOwner: JSON.stringify(ownerJson(v.deactivationOwner)),
      createdTx: txId,
      createdTs: place.ts,
      endAccumulatedFee: end,
    });
  }
}

function ownerFromJson(v: unknown): Owner | null {
  const o = (typeof v === "string" ? JSON.parse(v) : v) as {
    locktime: string;
    threshold: number;
    addresses: string[];
  } | null;
  if (!o) return null;
  return {
    locktime: BigInt(o.locktime),
    threshold: o.threshold,
    addresses: o.addresses.map((h) => Uint8Array.from(Buffer.from(h, "hex"))),
  };
}

function toRecord(r: StakerRow): StakerRecord {
  return {
    txId: r.tx_id,
    nodeId: r.node_id,
    subnetId: r.subnet_id,
    kind: r.kind as StakerRecord["kind"],
    status: "current",
    priority: currentPriority(
      pendingPriority({
        kind: r.kind as StakerRecord["kind"],
        subnetId: r.subnet_id,
        startTime: null,
        rewardOwner: ownerFromJson(r.reward_owner),
      }),
    ),
    accruedDelegateeReward: BigInt(r.accrued_delegatee_reward ?? 0),
    startTime: BigInt(r.start_ts),
    endTime: BigInt(r.end_ts),
    weight: BigInt(r.weight),
    potentialReward: BigInt(r.potential_reward),
    delegationShares: r.delegation_shares,
    rewardOwner: ownerFromJson(r.reward_owner),
    delegationRewardOwner: ownerFromJson(r.delegation_reward_owner),
  };
}

/**
 * A UTXO the P-chain creates beyond a transaction's outputs, a secp256k1fx TransferOutput to `owner`: a staker's
 * reward (numbered after the staking tx's outputs) or an L1 validator's remaining balance returned.
 */
function transferOutput(creatingTxId: string, index: number, assetId: string, amount: bigint, owner: Owner): TxOutput {
  const txId = idFromString(creatingTxId);
  const w = new Writer().u16(0).fixed(txId).u32(index).fixed(idFromString(assetId));
  w.u32(7).u64(amount).u64(owner.locktime).u32(owner.threshold).u32(owner.addresses.length);
  for (const a of owner.addresses) w.fixed(a);
  const prefix = new Uint8Array(40);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(index));
  prefix.set(txId, 8);
  return {
    outputIndex: index,
    utxoId: idToString(sha256(prefix)),
    assetId,
    amount,
    owner,
    stakeableLocktime: 0n,
    staked: false,
    utxoType: "TRANSFER",
    exportedTo: null,
    groupId: 0,
    payload: new Uint8Array(0),
    utxoBytes: w.finish(),
  };
}
