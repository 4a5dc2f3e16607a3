/**
 * The primary view's batch builder: a batch's rows, per table, made as its transactions are folded
 * (`BatchBuilder.foldTx`) and held in a `Batch` until the view (view.ts) writes them (batchSql.ts) in the batch's
 * transaction.
 */
import type {StoredContainer} from "../../../containerIndex/store.js";
import type {FoldPlace} from "./foldError.js";
import type {PrimaryTx, TxOutput} from "./model.js";
import {
  NO_EXTRA,
  UTXO_CREATE_COLUMNS,
  credentialsJson,
  distinctBytes,
  ownedAddresses,
  txRow,
  unstakedType,
  utxoCreateRow,
  type TxPlace,
} from "./rows.js";
import type {SignerKeys} from "./signerKeys.js";
import type {TxEffects} from "./stakingFold.js";
import {SupplyDeltas} from "./supplyTotals.js";
import type {UtxoOwners} from "./utxoOwners.js";
import {NO_WEBHOOKS, WebhookEvents, validatorEvents, type BatchWebhooks, type EventPlace} from "./webhookEvents.js";
import type {BalanceChanges} from "./webhookThresholds.js";

/** A batch's rows, built and not yet written, with the view's state as of its end. */
export interface Built {
  containers: StoredContainer[];
  /** The blocks (or vertices) of its containers that decoded, in order, for a failure's report. */
  blocks: FoldPlace[];
  txIds: string[];
  rows: Batch;
  txCount: number;
  /** The counters before the batch: restored when its commit fails. */
  seqBefore: {P: bigint; X: bigint; C: bigint; vtx: bigint};
  state: Array<[string, string]>;
  started: bigint;
}

/** The rows of one batch, per table, written together at its end. */
export class Batch {
  blocks: unknown[][] = [];
  vertices: unknown[][] = [];
  txs: unknown[][] = [];
  txAddresses: unknown[][] = [];
  assetTxs: unknown[][] = [];
  utxoCreates: unknown[][] = [];
  utxoConsumes = new Map<string, unknown[]>();
  utxoAddresses: unknown[][] = [];
  /** `unspent_owned` rows of the UTXOs created, [address, ID, exported] (see batchSql.ts unspentOwnedSql). */
  unspentOwned: Array<[Uint8Array, string, boolean]> = [];
  assets: unknown[][] = [];
  /** Owners of the UTXOs created in this batch (a later transaction of the batch may consume them). */
  createdOwners = new Map<string, Uint8Array[]>();
  /**
   * The `unspent_owned` rows its spends remove: [address, UTXO ID, creator]. The creator is the creating batch's
   * createdOwners when that batch had not committed when the owner was found, null when it had (or it is a reward
   * of this batch, written in its transaction), and "batch" for this batch (its UTXOs have no rows, but in a batch
   * that repeats a UTXO the store holds: spentStatements).
   */
  spentOwned: Array<[Uint8Array, string, Map<string, Uint8Array[]> | null | "batch"]> = [];
  /** Owners of the reward UTXOs the staking fold made in this batch (written already, in its transaction). */
  rewardOwners = new Map<string, Uint8Array[]>();
  /** Of spentOwned, those whose creator had not committed when the statement was made: removed after (spentLater). */
  spentDeferred: SpentOwned[] = [];
  /** The view's spentLater rows its statement removed too: done once it commits. */
  spentCarried: SpentOwned[] = [];
  /** What the batch adds to the AVAX supply's running sums (supplyTotals.ts). */
  supply = new SupplyDeltas();
  /** Spends the supply's recompute could not count whose UTXOs this batch creates (LATE_SPENDS_KEY). */
  lateSettled: string[] = [];
  /** The primary webhooks' messages of this batch (webhookEvents.ts), written with its rows. */
  webhooks = new WebhookEvents();
  /** What the chain's primary webhooks ask of this batch, read when it is built (none on C). */
  hooks: BatchWebhooks = NO_WEBHOOKS;
  /** The UTXOs its transactions created and consumed, for balance_threshold webhooks (webhookThresholds.ts). */
  balances: BalanceChanges | null = null;

  /** An aborted staking proposal's stake outputs of this batch become plain UTXOs (stakingFold.ts abortStaker). */
  unstake(txId: string): void {
    for (const row of this.utxoCreates) {
      if (row[UTXO_TX_ID] === txId && row[UTXO_STAKED] === true) {
        row[UTXO_STAKED] = false;
        row[UTXO_TYPE] = unstakedType(row[UTXO_STAKEABLE_LOCKTIME] as bigint);
      }
    }
  }
}

const UTXO_TX_ID = UTXO_CREATE_COLUMNS.findIndex((c) => c.name === "tx_id");
const UTXO_STAKED = UTXO_CREATE_COLUMNS.findIndex((c) => c.name === "staked");
const UTXO_TYPE = UTXO_CREATE_COLUMNS.findIndex((c) => c.name === "utxo_type");
const UTXO_STAKEABLE_LOCKTIME = UTXO_CREATE_COLUMNS.findIndex((c) => c.name === "stakeable_locktime");

/** An `unspent_owned` row a spend removes: [address, UTXO ID]. */
export type SpentOwned = [Uint8Array, string];

export interface BatchBuilderOptions {
  avaxAssetId: string;
}

/** The view's state the builder reads and keeps: shared with the view, which restores it when a batch fails. */
export interface BatchBuilderModules {
  signerKeys: SignerKeys;
  /** Owners of recently created UTXOs, so a spend in a later batch need not read them from the store. */
  recentOwners: UtxoOwners;
  /** Spends the supply's recompute could not count, by UTXO ID (supplyTotals.ts LATE_SPENDS_KEY). */
  lateSpends: Map<string, string>;
  /** Of lateSpends, those a batch built and not yet committed settles. */
  lateInFlight: Set<string>;
}

/** Folds transactions into a batch's rows. */
export class BatchBuilder {
  constructor(
    private readonly opts: BatchBuilderOptions,
    private readonly modules: BatchBuilderModules,
  ) {}

  foldTx(
    batch: Batch,
    t: PrimaryTx,
    place: TxPlace,
    owners: Map<string, Uint8Array[]>,
    creators: Map<string, Map<string, Uint8Array[]>>,
    effects: TxEffects,
    event: EventPlace | null,
  ): void {
    batch.txs.push(txRow(t, place, effects.l1));
    const avax = this.opts.avaxAssetId;
    for (const i of t.evmInputs) if (i.assetId === avax) batch.supply.evm(t.id, "in", i.amount);
    for (const o of t.evmOutputs) if (o.assetId === avax) batch.supply.evm(t.id, "out", o.amount);
    const touched: Uint8Array[] = ownedAddresses(t);
    // The owners of the UTXOs it consumes and creates: whose balance it changes (primary webhooks' balance_change).
    const balances: Uint8Array[] | null = event && batch.hooks.events ? [] : null;
    if (event && batch.balances) {
      batch.balances.add(
        {...event, txId: t.id, ts: place.ts},
        [...t.outputs, ...effects.refunds].map((o) => o.utxoId),
        t.inputs.map((i) => i.utxoId),
      );
    }
    for (const o of t.outputs) {
      this.createUtxo(batch, t.id, o, place);
      balances?.push(...o.owner.addresses);
    }
    for (const o of effects.refunds) {
      this.createUtxo(batch, t.id, o, place);
      touched.push(...o.owner.addresses);
      balances?.push(...o.owner.addresses);
    }
    for (const i of t.inputs) {
      const mine = batch.createdOwners.get(i.utxoId);
      const known = mine ?? owners.get(i.utxoId) ?? batch.rewardOwners.get(i.utxoId);
      if (known) touched.push(...known);
      // The signers' addresses, from the keys recovered: the owner when the creating transaction is not folded yet
      // (an import folded before its export).
      const signers = this.modules.signerKeys.fill(i, known, t.unsignedHash);
      touched.push(...signers);
      balances?.push(...(known ?? signers));
      if (!batch.utxoConsumes.has(i.utxoId)) {
        // Without the owner (a spend of a UTXO not folded yet; or of one the batch repeats, left out of the lookup as
        // the batch's own), the signers' addresses: those of a single-owner UTXO's row, if it has one.
        for (const a of known ?? signers)
          batch.spentOwned.push([a, i.utxoId, mine ? "batch" : (creators.get(i.utxoId) ?? null)]);
        if (i.assetId === avax) batch.supply.consumed(i.utxoId, i.amount, place.chainId);
        batch.utxoConsumes.set(i.utxoId, [
          i.utxoId,
          i.txId,
          i.outputIndex,
          place.chainId,
          t.id,
          place.blockId,
          place.height,
          place.ts,
          credentialsJson(i.credentials),
        ]);
      }
    }
    for (const a of distinctBytes(touched)) batch.txAddresses.push([place.chain, a, place.seq]);
    if (event && balances) {
      if (balances.length > 0) batch.webhooks.addresses(event, balances);
      if (place.chain === "P") validatorEvents(batch.webhooks, event, t, effects);
    }
    if (place.chain === "X") {
      // A transaction moves one or two assets: a list, not a set of two spread copies (garbage on every transaction).
      const assets: string[] = [];
      for (const i of t.inputs) if (!assets.includes(i.assetId)) assets.push(i.assetId);
      for (const o of t.outputs) if (!assets.includes(o.assetId)) assets.push(o.assetId);
      if (t.details.asset) {
        if (!assets.includes(t.id)) assets.push(t.id);
        // Without a mint output the supply is fixed at what the initial state creates (the `cap`); else variable.
        const minted = t.outputs.filter((o) => o.assetId === t.id);
        const cap = minted.some((o) => o.utxoType.includes("MINT"))
          ? null
          : minted.reduce((a, o) => a + o.amount, 0n).toString();
        batch.assets.push([
          t.id,
          t.details.asset.name,
          t.details.asset.symbol,
          t.details.asset.denomination,
          assetType(minted),
          t.id,
          place.ts,
          cap,
        ]);
      }
      for (const a of assets) batch.assetTxs.push([a, place.seq]);
    }
  }

  createUtxo(
    batch: Batch,
    txId: string,
    o: TxOutput,
    place: TxPlace,
    extra: {rewardType?: string; stakingEnd?: bigint} = NO_EXTRA,
  ): void {
    batch.utxoCreates.push(utxoCreateRow(txId, o, place, extra));
    if (o.assetId === this.opts.avaxAssetId)
      batch.supply.created(o.utxoId, o.amount, place.chainId, place.seq, extra.rewardType);
    const late = this.modules.lateSpends.get(o.utxoId);
    if (late !== undefined && !this.modules.lateInFlight.has(o.utxoId)) {
      this.modules.lateInFlight.add(o.utxoId);
      if (o.assetId === this.opts.avaxAssetId) batch.supply.lateConsumed(o.utxoId, o.amount, late);
      batch.lateSettled.push(o.utxoId);
    }
    batch.createdOwners.set(o.utxoId, o.owner.addresses);
    this.modules.recentOwners.add(o.utxoId, o.owner.addresses);
    for (const a of distinctBytes(o.owner.addresses)) {
      batch.utxoAddresses.push([a, place.ts, o.utxoId]);
      batch.unspentOwned.push([a, o.utxoId, o.exportedTo !== null]);
    }
  }
}

/** Glacier's asset `type`: `nft` when the asset's initial state mints NFTs, else `secp256k1`. */
function assetType(outputs: TxOutput[]): string {
  return outputs.some((o) => o.utxoType.startsWith("NFT")) ? "nft" : "secp256k1";
}
