/**
 * The primary-network view: follows the container index (contract data-api §3). For each folded endpoint it reads
 * the containers after its position, in index order (so only committed ones), decodes them and writes their rows
 * and the new position in ONE SQL transaction: a crash or kill -9 at any moment resumes exactly, nothing lost or
 * folded twice. A container that does not decode is logged, counted and skipped; its position still advances.
 *
 * A batch that fails is retried with backoff when the failure is an outage of the store (src/util/errors.ts). Any
 * other failure is the fold's own and happens again on every try: that chain's view stops where it failed (its
 * block, its transaction, the error: `stops`, reported by the health check), and the other chains go on. Positions
 * are kept per endpoint, so a chain stops alone; X's two endpoints (vertices, then blocks) stop together.
 *
 * X/tx is not folded: its transactions also arrive inside X vertices (before Cortina) and X blocks (after).
 */
import type {NetworkInfo} from "../../../chains/index.js";
import {LATE_SPENDS_KEY, SUPPLY_TOTALS_KEY, SupplyDeltas, recomputeSupplyTotals} from "./supplyTotals.js";
import {findEndpoint, type Endpoint} from "../../../containerIndex/endpoints.js";
import type {IndexStore, StoredContainer} from "../../../containerIndex/store.js";
import type {Logger} from "../../../logger/index.js";
import {idToString} from "../../../util/cb58.js";
import {Backoff, RetryableError, isRetryable} from "../../../util/errors.js";
import {arrayParam, insertSql, runTogether, type BulkColumn, type BulkInsertOptions} from "../../store/bulk.js";
import type {SqlClient, SqlTx} from "../../store/sql.js";
import {tryDecodePrimaryContainer, type DecodeResult} from "./decode.js";
import {
  C_GENESIS_ALLOCATION_KEY,
  type GenesisStaker,
  type GenesisState,
  type PrimaryContainer,
  type PrimaryTx,
  type TxOutput,
} from "./model.js";
import {
  BLOCK_COLUMNS,
  TX_ADDRESS_COLUMNS,
  TX_COLUMNS,
  UTXO_ADDRESS_COLUMNS,
  UTXO_CONSUME_COLUMNS,
  UTXO_CREATE_COLUMNS,
  NO_EXTRA,
  VERTEX_COLUMNS,
  blockRow,
  credentialsJson,
  distinctBytes,
  ownedAddresses,
  txRow,
  utxoCreateRow,
  unstakedType,
  vertexRow,
  type TxPlace,
} from "./rows.js";
import {SignerKeys} from "./signerKeys.js";
import {UtxoOwners} from "./utxoOwners.js";
import {StakingFold, type TxEffects} from "./stakingFold.js";
import type {ViewMetrics} from "./metrics.js";
import {
  NO_WEBHOOKS,
  WebhookEvents,
  validatorEvents,
  webhooksOfBatch,
  type BatchWebhooks,
  type EventPlace,
} from "./webhookEvents.js";
import {BalanceChanges} from "./webhookThresholds.js";

export interface PrimaryViewOptions {
  /** Containers folded per SQL transaction, at most. */
  batchSize: number;
  /** Container bytes per batch, about (a batch holds fewer containers when they are large). */
  batchBytes: number;
  /** Wait between polls of the index when the view has caught up, ms. */
  idleMs: number;
  /** Batches of one endpoint folded before the next endpoint's turn. */
  batchesPerRound: number;
  /** Owners of the latest UTXOs created kept in memory for their spends (0: always read the store). */
  recentOwners: number;
  /**
   * X and C batch statements sent to the store before the ones ahead of them have committed, at most (on a server each
   * on a connection of its own, ordered by the position row; PGlite on its own thread queues them; PGlite on the
   * calling thread takes 1).
   */
  statementsInFlight: number;
}

export const defaultPrimaryViewOptions: PrimaryViewOptions = {
  batchSize: 256,
  batchBytes: 512 * 1024,
  idleMs: 200,
  batchesPerRound: 32,
  recentOwners: 100_000,
  statementsInFlight: 2,
};

/** A batch read from the index and decoded, ready to fold. */
interface Prepared {
  containers: StoredContainer[];
  results: DecodeResult[];
  /** The UTXOs its transactions spend that other batches created (a spend of the batch's own is resolved as it is built). */
  consumed: string[];
  /** Its transactions' IDs. */
  txIds: string[];
  /**
   * Owners of those UTXOs found when it was decoded, in memory or in the store; completeOwners adds the ones created
   * by the batches not committed then.
   */
  owners: Map<string, Uint8Array[]>;
  /**
   * Of those, the ones completeOwners found among the creations of batches not committed then: UTXO ID → that
   * batch's createdOwners. Their unspent_owned rows may not be visible to this batch's statement (writeBuilt).
   */
  creators: Map<string, Map<string, Uint8Array[]>>;
}

/** A batch being read and decoded: the index it ends before is known from the start. */
interface Fetching {
  end: bigint;
  prepared: Promise<Prepared>;
}

/**
 * X and C batches read and decoded ahead of the one being built. On PGlite too: one ahead left the main thread
 * waiting for the decoder after a build about a tenth of a fold's time.
 */
const FETCH_AHEAD = 2;

export interface PrimaryViewModules {
  index: IndexStore;
  sql: SqlClient;
  network: NetworkInfo;
  /**
   * Builds the network's genesis state, folded when the store is created (before the first container); called
   * only then, so its memory is not kept.
   */
  genesis: () => GenesisState;
  /** The network's AVAX asset ID (reward UTXOs are in AVAX). */
  avaxAssetId: string;
  logger: Logger;
  metrics: ViewMetrics | null;
}

/** UTXOs a statement of the genesis fold writes at most. */
const GENESIS_SLICE = 1000;

/** The longest a batch is decoded, or its rows built, without letting I/O callbacks run, ms (see decodeYielding). */
const YIELD_MS = 4;

/**
 * A batch's containers decoded on this thread, container by container, yielding to I/O after each YIELD_MS. The batch
 * being built and the two decoded ahead of it yield on clocks of their own, so I/O waits for at most about three
 * slices in a row. Stops (throws the signal's reason) once the view is closing.
 *
 * A worker thread cost more than it saved: the structured clone of its answers took the main thread about as long as
 * decoding them (28-46 µs a transaction against about 27), each batch's answer arrived as one message, and it kept a
 * heap of its own (docs/design/decisions.md, record 0001).
 */
async function decodeYielding(
  e: Endpoint,
  containers: readonly StoredContainer[],
  signal: AbortSignal,
): Promise<DecodeResult[]> {
  const out: DecodeResult[] = [];
  let yielded = performance.now();
  for (const c of containers) {
    if (performance.now() - yielded > YIELD_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
      yielded = performance.now();
    }
    // Inputs' keys are left to the fold's cache of signers' keys (SignerKeys): recovering them all is most of decoding.
    out.push(
      tryDecodePrimaryContainer(e.chain, e.kind, c.bytes, {containerId: idToString(c.id), deferInputKeys: true}),
    );
  }
  return out;
}

const X_VTX = findEndpoint("X", "vtx")!;
const X_BLOCK = findEndpoint("X", "block")!;

/** The endpoints folded, in the order each round visits them. */
export const FOLDED_ENDPOINTS: readonly Endpoint[] = [
  findEndpoint("P", "block")!,
  X_VTX,
  X_BLOCK,
  findEndpoint("C", "block")!,
];

/** A batch's rows, built and not yet written, with the view's state as of its end. */
interface Built {
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
  /** `unspent_owned` rows of the UTXOs created, [address, ID, exported] (see unspentOwnedSql). */
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

export class PrimaryView {
  private readonly ctrl = new AbortController();
  private running: Promise<void> | null = null;
  private readonly positions = new Map<number, bigint>();
  /** The mean container size of each endpoint's last batch, bytes. */
  private readonly containerBytes = new Map<number, number>();
  private readonly seq = {P: 0n, X: 0n, C: 0n, vtx: 0n};
  /** Spends the supply's recompute left uncounted, by UTXO ID: their consuming chain ID (LATE_SPENDS_KEY). */
  private readonly lateSpends = new Map<string, string>();
  /** Late spends settled by batches built but not yet committed: no later batch's state may list them again. */
  private readonly lateInFlight = new Set<string>();
  private readonly staking: StakingFold;
  private readonly signerKeys = new SignerKeys();
  private readonly recentOwners: UtxoOwners;
  /** The createdOwners of the batches committed (spentStatements). */
  private readonly committedCreations = new WeakSet<Map<string, Uint8Array[]>>();
  /**
   * unspent_owned rows of committed spends whose UTXOs' batch had not committed when the spend's statement was made
   * (its snapshot did not see them): removed by the next statement, or at the end of the round (removeSpentLater).
   * Lost by a kill -9: the row outlives its UTXO's spend, which every read of the table checks anyway.
   */
  private spentLater: SpentOwned[] = [];
  /** The last error of a round, retried (the health check reports it). */
  lastError: Error | null = null;
  /** Chains whose view stopped on an error of the fold, with where and why (the health check reports them). */
  readonly stops = new Map<PrimaryChainName, ViewStop>();
  /**
   * Per endpoint, the index before which batches hold one container: a batch failed where no container could be
   * named (its statement), and is folded again container by container to find the one.
   */
  private readonly narrowUntil = new Map<number, bigint>();
  /**
   * Per endpoint, the fold's error at a container after the start of its batch: the containers before it are
   * folded (their batch rolled back with it), then the chain stops there.
   */
  private readonly stopAt = new Map<number, FoldError>();
  /** Per endpoint, the container a fold error was last tried again at (once, before its chain stops there). */
  private readonly retriedAt = new Map<number, bigint>();
  private wake: (() => void) | null = null;
  /**
   * The store runs statements off this thread (a server, or PGlite on its own): statements overlap, and the owners
   * of a batch's spends are read when it is decoded. PGlite on this thread takes turns with the build.
   */
  private readonly offThread: boolean;
  /** A step failed: what is in memory is read back from the store before the next fold. */
  private stale = false;
  /**
   * IDs of the transactions of the batches decoded and not yet committed. A UTXO one of them creates is not in the
   * store yet: the owner lookup made when a batch is decoded leaves its spends to the batch's turn (completeOwners),
   * when they are found in memory. Only a hint: whatever is still missing then is read from the store.
   */
  private readonly pendingTxs = new Set<string>();
  /**
   * Per endpoint, the index before which batches are written keeping the first of repeated rows (ON CONFLICT DO
   * NOTHING): the end of a batch that raised a unique violation. Only such a batch pays for the conflict checks.
   */
  private readonly repeatsUntil = new Map<number, bigint>();

  constructor(
    private readonly opts: PrimaryViewOptions,
    private readonly modules: PrimaryViewModules,
  ) {
    this.offThread = modules.sql.offThread;
    this.recentOwners = new UtxoOwners(opts.recentOwners);
    this.staking = new StakingFold({network: modules.network, avaxAssetId: modules.avaxAssetId});
  }

  /** Loads the positions (folding the genesis state on a fresh store), then follows the index until close(). */
  async start(): Promise<void> {
    await this.load();
    this.running = this.loop();
  }

  /** Folds what the index holds now, to the end (tests, rebuild). */
  async catchUp(): Promise<number> {
    const folded = (): bigint => [...this.positions.values()].reduce((a, p) => a + p, 0n);
    const start = folded();
    for (;;) {
      try {
        if ((await this.round()) === 0) return Number(folded() - start);
      } catch (err) {
        if (err instanceof RepeatedRowsError) this.repeated(err);
        else if (!(err instanceof HooksChangedError)) throw err;
        await this.reload();
      }
    }
  }

  /** Wakes the loop early (the ingester calls it after a commit). */
  notify(): void {
    this.wake?.();
  }

  /** Containers of the folded endpoints not yet folded. */
  lag(): bigint {
    let lag = 0n;
    for (const e of FOLDED_ENDPOINTS) lag += this.modules.index.index(e).next - (this.positions.get(e.id) ?? 0n);
    return lag;
  }

  async close(): Promise<void> {
    this.ctrl.abort();
    this.wake?.();
    await this.running;
  }

  async load(): Promise<void> {
    const {sql} = this.modules;
    const rows = await sql.query<{endpoint: string; next_index: bigint | string}>(
      "SELECT endpoint, next_index FROM view_positions",
    );
    if (rows.length === 0) {
      await sql.transaction(async (tx) => {
        for (const e of FOLDED_ENDPOINTS)
          await tx.query("INSERT INTO view_positions (endpoint, next_index) VALUES ($1, 0)", [e.name]);
        await recomputeSupplyTotals(tx, this.modules.avaxAssetId);
        await this.foldGenesis(tx, this.modules.genesis());
        await this.saveState(tx);
      });
    }
    // A store folded before the supply's sums were kept has them computed once, from what it holds.
    if ((await sql.query("SELECT 1 FROM data_api_meta WHERE key = $1", [SUPPLY_TOTALS_KEY])).length === 0) {
      this.modules.logger.info(
        "computing the AVAX supply's sums from the store (once, for a store folded before they were kept)",
      );
      await sql.transaction((tx) => recomputeSupplyTotals(tx, this.modules.avaxAssetId));
    }
    for (const r of await sql.query<{endpoint: string; next_index: bigint | string}>(
      "SELECT endpoint, next_index FROM view_positions",
    )) {
      const e = FOLDED_ENDPOINTS.find((x) => x.name === r.endpoint);
      if (e) this.positions.set(e.id, BigInt(r.next_index));
    }
    const meta = await sql.query<{key: string; value: string}>(
      "SELECT key, value FROM data_api_meta WHERE key LIKE 'view.%'",
    );
    const m = new Map(meta.map((r) => [r.key, r.value]));
    this.seq.P = BigInt(m.get("view.seq.P") ?? "0");
    this.seq.X = BigInt(m.get("view.seq.X") ?? "0");
    this.seq.C = BigInt(m.get("view.seq.C") ?? "0");
    this.seq.vtx = BigInt(m.get("view.seq.vtx") ?? "0");
    this.lateSpends.clear();
    this.lateInFlight.clear();
    for (const [utxoId, chainId] of JSON.parse(m.get(LATE_SPENDS_KEY) ?? "[]") as Array<[string, string]>)
      this.lateSpends.set(utxoId, chainId);
    this.staking.load(m);
  }

  private async loop(): Promise<void> {
    const signal = this.ctrl.signal;
    // Bounded and growing, with jitter: a store that is down is not hammered, and is retried within 30 s once back.
    const backoff = new Backoff({baseMs: 250, maxMs: 30_000});
    while (!signal.aborted) {
      let n = 0;
      let retryIn: number | null = null;
      try {
        // After a failure the positions, counters and staking state in memory may be ahead of the store: nothing is
        // folded until they are read back from it (while the store is unreachable, that read fails and is retried).
        if (this.stale) {
          await this.reload();
          this.stale = false;
        }
        n = await this.round();
        this.lastError = null;
        backoff.reset();
      } catch (err) {
        // Closing: the batches read ahead stop decoding (decodeYielding), and the round with them.
        if (signal.aborted) break;
        this.stale = true;
        if (err instanceof RepeatedRowsError) this.repeated(err);
        else if (err instanceof HooksChangedError) this.modules.logger.debug({endpoint: err.endpoint}, err.message);
        else if (err instanceof FoldError && !isRetryable(err)) {
          // The fold's own error: folded again one container at a time to name the container, else the chain stops
          // there, once the containers before it are folded.
          if (this.narrow(err)) continue;
          if (err.from > (this.positions.get(err.endpoint.id) ?? 0n)) this.stopAt.set(err.endpoint.id, err);
          else this.stopOrRetry(err);
        } else {
          // An outage (or a failure outside any chain's batch, such as reading the state back): retried.
          this.lastError = err as Error;
          retryIn = backoff.next();
          const at = {err, attempt: backoff.attempts, retryInMs: retryIn};
          this.modules.logger.warn(at, "primary-network view: a batch failed to fold (the store?); retrying");
          this.modules.metrics?.errors.inc();
        }
      }
      if (signal.aborted) break;
      if (retryIn !== null) await this.idle(retryIn);
      else if (n === 0 && !this.stale) await this.idle(this.opts.idleMs);
    }
  }

  /** A failure in a batch of several containers and none named: that batch is folded again one by one. */
  private narrow(err: FoldError): boolean {
    if (err.block !== null || err.to - err.from <= 1n) return false;
    if ((this.narrowUntil.get(err.endpoint.id) ?? 0n) >= err.to) return false;
    this.narrowUntil.set(err.endpoint.id, err.to);
    const at = {endpoint: err.endpoint.name, from: err.from.toString(), to: err.to.toString(), err: err.cause};
    this.modules.logger.warn(at, "primary-network view: a batch failed to fold; folding it one container at a time");
    return true;
  }

  /**
   * A container that failed by the fold's own error is folded once more, from the position read back from the store
   * (the loop reloads it): an error of the fold fails again and the chain stops; a transient failure that looked like
   * one (a store error outside the classes src/util/errors.ts retries) passes.
   */
  private stopOrRetry(err: FoldError): void {
    if (this.retriedAt.get(err.endpoint.id) === err.from) {
      this.stop(err);
      return;
    }
    this.retriedAt.set(err.endpoint.id, err.from);
    this.stale = true;
    const at = {endpoint: err.endpoint.name, index: err.from.toString(), err: err.cause};
    const message = "primary-network view: a container failed to fold; folding it once more before stopping";
    this.modules.logger.warn(at, message);
  }

  /** The chain of the failed batch stops folding (its reads go on serving what was folded); the others go on. */
  private stop(err: FoldError): void {
    const chain = err.endpoint.chain as PrimaryChainName;
    const cause = err.cause instanceof Error ? err.cause : new Error(String(err.cause));
    const stop: ViewStop = {
      chain,
      endpoint: err.endpoint.name,
      index: err.from.toString(),
      blockId: err.block?.blockId ?? null,
      height: err.block?.height.toString() ?? null,
      txId: err.txId,
      error: cause.message,
      since: new Date().toISOString(),
    };
    this.stops.set(chain, stop);
    const message = `primary-network view: ${err.message}; this chain's view stopped (restart avaext to try again)`;
    this.modules.logger.error({...stop, err: cause}, message);
    this.modules.metrics?.stopped.inc({chain});
  }

  /** What is in memory read back from the store, after a batch failed. */
  private async reload(): Promise<void> {
    this.pendingTxs.clear();
    // Owners held of the UTXOs of batches that failed: a batch whose spend found one there would take its creator for
    // committed (a spend's owner found outside the batches in flight), and remove the UTXO's row before it is written.
    this.recentOwners.clear();
    this.positions.clear();
    await this.load();
  }

  private repeated(err: RepeatedRowsError): void {
    this.modules.logger.warn(
      {endpoint: err.endpoint, from: err.from.toString(), to: err.to.toString(), err: err.cause},
      err.message,
    );
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(t);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  /**
   * Up to `batchesPerRound` batches per endpoint that has containers to fold; returns how many containers were
   * folded. The next batch is read and decoded while the current one is built and written.
   */
  private async round(): Promise<number> {
    try {
      return await this.roundOfEndpoints();
    } finally {
      // Also when the round failed: the spends committed before the failure are the store's.
      if (this.spentLater.length > 0) await this.removeSpentLater().catch(() => {});
    }
  }

  private async roundOfEndpoints(): Promise<number> {
    let total = 0;
    for (const e of FOLDED_ENDPOINTS) {
      if (this.stops.has(e.chain as PrimaryChainName)) continue;
      // The X-chain's blocks follow its DAG (Cortina linearised it: no vertex is accepted after the first block), so
      // they wait until every vertex indexed is folded: the X transactions keep their acceptance order.
      if (e === X_BLOCK && (this.positions.get(X_VTX.id) ?? 0n) < this.modules.index.index(X_VTX).next) continue;
      const index = this.modules.index.index(e);
      const stopAt = this.stopAt.get(e.id)?.from ?? null;
      // Batches are read, decoded, and the owners of the UTXOs they spend looked up, ahead of the one being folded:
      // none waits for the others (the decoding and the build take turns, each yielding every few ms).
      const fetch = (from: bigint): Fetching | null => {
        const end = stopAt !== null && stopAt < index.next ? stopAt : index.next;
        if (from >= end) return null;
        // As many containers as fit `batchBytes` at the size of the last batch's: a batch's rows, the statement's
        // parameters and the database's work memory grow with its transactions, not its containers.
        const fit = Math.max(
          1,
          Math.floor(this.opts.batchBytes / (this.containerBytes.get(e.id) ?? this.opts.batchBytes)),
        );
        const want = from < (this.narrowUntil.get(e.id) ?? 0n) ? 1n : BigInt(Math.min(this.opts.batchSize, fit));
        const n = Number(end - from < want ? end - from : want);
        const prepared = index.getRange(from, n).then(async (containers) => {
          this.containerBytes.set(e.id, containers.reduce((a, c) => a + c.bytes.length, 0) / containers.length);
          const results = await decodeYielding(e, containers, this.ctrl.signal);
          const txs = results.flatMap((r) => (r.ok ? r.container.txs : []));
          const txIds = txs.map((t) => t.id);
          const own = new Set(txIds);
          const spends = txs.flatMap((t) => t.inputs).filter((i) => !own.has(i.txId));
          const consumed = spends.map((i) => i.utxoId);
          const owners = new Map<string, Uint8Array[]>();
          // PGlite on the calling thread would run the read between the statements: there it waits for the batch's
          // turn. The UTXOs of the batches ahead of this one are not in the store yet, and not looked for there now.
          const stored = spends.filter((i) => !this.pendingTxs.has(i.txId)).map((i) => i.utxoId);
          for (const id of txIds) this.pendingTxs.add(id);
          if (this.offThread) await readOwners(this.modules.sql, this.recentOwners.take(stored, owners), owners);
          return {containers, results, consumed, txIds, owners, creators: new Map()};
        });
        // Reading the batch or its owners failing: an outage is retried; anything else is the fold's error at these
        // containers, tried once more and then stopping the chain, like an error of the build.
        const placed = prepared.catch((err: unknown) => {
          throw FoldError.range(err, e, from, from + BigInt(n));
        });
        // Awaited when its turn comes, or never (the view closes, or a batch before it fails): a batch read ahead that
        // fails meanwhile (closing aborts its decoding) must not count as an unhandled rejection. Awaiting it still throws.
        placed.catch(() => {});
        return {end: from + BigInt(n), prepared: placed};
      };
      const first = fetch(this.positions.get(e.id) ?? 0n);
      if (first)
        total +=
          e.chain === "P" ? await this.foldInTransactions(e, first, fetch) : await this.foldPipelined(e, first, fetch);
      const at = this.positions.get(e.id) ?? 0n;
      if ((this.narrowUntil.get(e.id) ?? 0n) <= at) this.narrowUntil.delete(e.id);
      const failed = this.stopAt.get(e.id);
      if (failed && failed.from <= at) {
        this.stopAt.delete(e.id);
        this.stopOrRetry(failed);
      }
    }
    return total;
  }

  /** P batches: each built and written in one SQL transaction (the staking fold reads the store as it goes). */
  private async foldInTransactions(
    e: Endpoint,
    first: Fetching,
    fetch: (from: bigint) => Fetching | null,
  ): Promise<number> {
    let n = 0;
    let pending: Fetching | null = first;
    for (let step = 0; pending !== null && step < this.opts.batchesPerRound && !this.ctrl.signal.aborted; step++) {
      const batch: Prepared = await pending.prepared;
      pending = step + 1 < this.opts.batchesPerRound ? fetch(pending.end) : null;
      await this.foldBatch(e, batch);
      n += batch.containers.length;
    }
    return n;
  }

  /**
   * X and C batches: a batch's rows are built outside its SQL statement, while the statements of the batches before
   * it run on a PostgreSQL server (PGlite runs on this thread: there the two take turns). On a server, a batch's
   * statement is sent before the previous one has committed, on another connection: it is parsed and bound while the
   * previous one runs, and waits on the position row it updates first (writeBuilt), so the server goes from one
   * batch to the next without waiting for this process. The batches after it are read, decoded and their spent
   * UTXOs' owners looked up meanwhile (the UTXOs of the batches not committed yet are taken from memory).
   */
  private async foldPipelined(e: Endpoint, first: Fetching, fetch: (from: bigint) => Fetching | null): Promise<number> {
    const sql = this.modules.sql;
    const depth = this.offThread ? Math.max(1, this.opts.statementsInFlight) : 1;
    let n = 0;
    /** Batches being read and decoded, oldest first. */
    const ahead: Fetching[] = [first];
    let fetched = 1;
    let from = first.end;
    const fetchAhead = (): void => {
      while (ahead.length < FETCH_AHEAD && fetched < this.opts.batchesPerRound && !this.ctrl.signal.aborted) {
        const f = fetch(from);
        if (!f) return;
        ahead.push(f);
        fetched++;
        from = f.end;
      }
    };
    /** Statements sent and not yet known committed, oldest first, with the UTXOs their batches create. */
    const inflight: Array<{done: Promise<void>; created: Map<string, Uint8Array[]>}> = [];
    try {
      const complete = (p: Prepared, created: Array<Map<string, Uint8Array[]>>): Promise<Map<string, Uint8Array[]>> =>
        this.completeOwners(sql, p, created).catch((err: unknown) => {
          throw FoldError.of(err, e, p.containers, null);
        });
      let cur = await ahead.shift()!.prepared;
      let owners = await complete(cur, []);
      for (;;) {
        fetchAhead();
        const built = await this.build(e, cur, sql, owners);
        const following = ahead.shift();
        const next = following ? await following.prepared : null;
        // The store holds every batch but the ones in flight and this one, whose creations are passed from memory.
        const nextOwners = next ? complete(next, [...inflight.map((s) => s.created), built.rows.createdOwners]) : null;
        // Awaited below or at the next step; until then a failure must not count as unhandled.
        nextOwners?.catch(() => {});
        while (inflight.length >= depth) await inflight.shift()!.done;
        const done = this.commit(e, built, inflight.at(-1)?.done ?? null);
        done.catch(() => {});
        inflight.push({done, created: built.rows.createdOwners});
        n += cur.containers.length;
        if (!next) break;
        cur = next;
        owners = await nextOwners!;
      }
      for (const s of inflight.splice(0)) await s.done;
    } catch (err) {
      // The statements in flight settle before the failure is reported: the view then reloads its position and
      // counters from the store, which must include their outcome.
      for (const s of inflight) await s.done.catch(() => {});
      throw err;
    }
    return n;
  }

  private decoded(e: Endpoint, c: StoredContainer, r: DecodeResult): PrimaryContainer | null {
    if (r.ok) return r.container;
    this.modules.logger.warn(
      {endpoint: e.name, index: c.index.toString(), id: idToString(c.id), reason: r.error},
      "container does not decode; left out of the data API",
    );
    this.modules.metrics?.undecodable.inc({chain: e.chain, kind: e.kind});
    return null;
  }

  /** A P batch: its rows built and written in one SQL transaction (the staking fold reads the store). */
  private async foldBatch(e: Endpoint, prepared: Prepared): Promise<void> {
    const seqBefore = {...this.seq};
    const stakingBefore = this.staking.snapshot();
    const lateBefore = new Set(this.lateInFlight);
    let built: Built;
    let building = null as Built | null;
    try {
      built = await this.modules.sql.transaction(async (tx) => {
        const b = await this.build(e, prepared, tx, await this.completeOwners(tx, prepared, []));
        building = b;
        await this.writeBuilt(tx, e, b);
        await this.foldThresholds(tx, e, b);
        return b;
      });
    } catch (err) {
      Object.assign(this.seq, seqBefore);
      this.staking.restore(stakingBefore);
      this.lateInFlight.clear();
      for (const id of lateBefore) this.lateInFlight.add(id);
      throw FoldError.of(err, e, prepared.containers, building?.blocks ?? null);
    }
    this.committed(e, built);
  }

  /**
   * Decodes' results turned into a batch's rows. `tx` serves the staking fold's P reads; `owners` are the spent
   * UTXOs' owners (completeOwners).
   */
  private async build(e: Endpoint, prepared: Prepared, tx: SqlTx, owners: Map<string, Uint8Array[]>): Promise<Built> {
    const {containers, results} = prepared;
    const started = process.hrtime.bigint();
    const seqBefore = {...this.seq};
    const decoded = containers.map((c, i) => ({c, d: this.decoded(e, c, results[i]!)}));
    const chainId = this.modules.network.chainIds[e.chain];
    const batch = new Batch();
    const blocks: FoldPlace[] = [];
    let txCount = 0;
    // What the chain's primary webhooks ask of the batch: nothing is collected for them when there is none. The
    // L1 balance thresholds are as of this batch (its statement matches the webhooks again).
    if (e.chain !== "C") batch.hooks = await webhooksOfBatch(tx, chainId, e.name);
    if (batch.hooks.thresholds) batch.balances = new BalanceChanges();
    // Rewards settled and L1 balances charged by a P block are its webhooks' events too.
    this.staking.events = batch.hooks.events ? batch.webhooks : null;
    this.staking.balances = batch.balances;
    this.staking.rewardOwners = batch.rewardOwners;
    this.staking.l1Thresholds = batch.hooks.l1Thresholds;
    // Where the fold is, for the report of an error in it.
    let at: {c: StoredContainer; block: FoldPlace | null; txId: string | null} = {
      c: containers[0]!,
      block: null,
      txId: null,
    };
    try {
      let yielded = performance.now();
      for (const {c, d} of decoded) {
        if (!d) continue;
        const place = {index: c.index, blockId: d.blockId, height: d.height};
        blocks.push(place);
        at = {c, block: place, txId: null};
        // Let I/O run now and then: the previous batch's statement is still being written to a server's socket, and
        // the server waits for all of it before it starts.
        if (performance.now() - yielded > YIELD_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          yielded = performance.now();
        }
        const ts = d.timestamp ?? c.timestampNs / 1_000_000_000n;
        if (e.kind === "vtx") batch.vertices.push(vertexRow(d, ++this.seq.vtx, ts));
        const aborted = await this.staking.beforeBlock(tx, d, ts);
        if (aborted !== null) batch.unstake(aborted);
        for (const [txIndex, t] of d.txs.entries()) {
          at.txId = t.id;
          const seq = ++this.seq[e.chain];
          const place: TxPlace = {chain: e.chain, chainId, seq, blockId: d.blockId, height: d.height, ts};
          // The staking fold first: what it derives (L1 balances returned, L1 validator details) is written
          // with the transaction's own rows.
          const effects = await this.staking.onTx(tx, t, place);
          const event: EventPlace = {
            chainId,
            pos: e.chain === "P" ? d.height : seq,
            txId: t.id,
            blockId: d.blockId,
            height: d.height,
            txIndex,
          };
          this.foldTx(
            batch,
            t,
            place,
            owners,
            prepared.creators,
            effects,
            batch.hooks.events || batch.balances ? event : null,
          );
          txCount++;
        }
        at.txId = null;
        const supply = e.chain === "P" ? this.staking.supply : null;
        if (e.kind === "block") {
          batch.blocks.push(blockRow(d, ts, supply, e.chain === "P" ? await this.staking.afterBlock(tx) : null));
        }
      }
    } catch (err) {
      throw FoldError.at(err, e, at.c.index, at.block, at.txId);
    }
    const state = this.stateEntries(batch.lateSettled);
    return {containers, blocks, txIds: prepared.txIds, rows: batch, txCount, seqBefore, state, started};
  }

  /**
   * An X or C batch's rows, its position and the view's state as of it, in one statement. `ahead` is the statement
   * sent before this one and not yet known committed: this one waits for it on the position row, and fails if it
   * rolled back.
   */
  private async commit(e: Endpoint, built: Built, ahead: Promise<void> | null): Promise<void> {
    try {
      if (built.rows.balances && built.rows.balances.size > 0) {
        // balance_threshold webhooks: their balances are read from the store with the batch's rows, so the batch
        // ahead is committed first, and this one's rows, balances and crossings commit together.
        await ahead?.catch(() => {});
        await this.modules.sql.transaction(async (tx) => {
          await this.writeBuilt(tx, e, built);
          await this.foldThresholds(tx, e, built);
        });
      } else {
        // One statement: atomic without a transaction block, and one round trip.
        try {
          await this.writeBuilt(this.modules.sql, e, built);
        } catch (err) {
          // Sent so soon after the statement ahead that it reached the position row first: it found the position
          // before that statement's batch and wrote nothing. Once that statement has committed, it is sent again.
          if (ahead === null || !(err instanceof Error) || !err.message.includes(POSITION_MOVED)) throw err;
          await ahead;
          await this.writeBuilt(this.modules.sql, e, built);
        }
      }
    } catch (err) {
      // A later batch may be built already: its counters restart from this one's.
      Object.assign(this.seq, built.seqBefore);
      for (const id of built.rows.lateSettled) this.lateInFlight.delete(id);
      throw FoldError.of(err, e, built.containers, built.blocks);
    }
    // The statement ahead has committed too (this one found its position), but its answer may come later, on its own
    // connection: the position in memory moves in batch order.
    await ahead?.catch(() => {});
    this.committed(e, built);
  }

  /**
   * A batch's rows, its position and the view's state as of it: one statement. The position row is updated first
   * and only from the batch's first container: a statement sent while the one before it is still running waits on
   * that row's lock and then finds its expected position, or fails (POSITION_MOVED) if the one before rolled back
   * or has not reached the row yet; nothing of it is written then. It fails too (HooksChangedError) when a primary
   * webhook was made or reactivated after the batch read the webhooks: the row's count of those moved (schema 26).
   */
  private async writeBuilt(tx: SqlTx, e: Endpoint, built: Built): Promise<void> {
    const from = built.containers[0]!.index;
    const to = built.containers[built.containers.length - 1]!.index + 1n;
    const params: unknown[] = [e.name, from, to, built.rows.hooks.version];
    const repeats = from < (this.repeatsUntil.get(e.id) ?? 0n);
    // The condition is checked first against this statement's snapshot, in which the position is at most the batch's
    // start while the batches ahead are in flight: the row matches, the update waits for their lock, and then checks
    // the condition and computes the position again on the committed row. A position past the start (the batch was
    // folded already) matches no row; one before it (the statement ahead rolled back or has not reached the row yet)
    // is kept, and is not the batch's end: both raise. So does a count of webhook changes other than the one the
    // batch was built with ($4, null on C), checked on the committed row too: a webhook made meanwhile (schema 26).
    const statements = [
      "UPDATE view_positions SET next_index = CASE WHEN next_index = $2::int8 AND ($4::int8 IS NULL OR webhooks = $4::int8) THEN $3::int8 ELSE next_index END " +
        "WHERE endpoint = $1::text AND next_index <= $2::int8 RETURNING next_index, webhooks",
      ...this.writeStatements(built.rows, params, repeats),
      ...this.spentStatements(built.rows, params, repeats),
      stateSql(built.state, params),
    ];
    // The main query reads the position's CTE (w0), so PostgreSQL runs it before the others. The ELSE branch names a
    // column, so that it is not folded (and raised) when the statement is planned.
    try {
      await runTogether(
        tx,
        statements,
        params,
        `SELECT CASE WHEN moved.n = 1 THEN 1 WHEN moved.h > 0 THEN ('${HOOKS_CHANGED}: ' || moved.h)::int4 ELSE ('${POSITION_MOVED}: ' || moved.n)::int4 END ` +
          `FROM (SELECT count(*) FILTER (WHERE next_index = $3::int8) AS n, ` +
          `count(*) FILTER (WHERE next_index = $2::int8 AND webhooks IS DISTINCT FROM $4::int8 AND $4::int8 IS NOT NULL) AS h FROM w0) AS moved`,
      );
    } catch (err) {
      // The position moved under the batch: the batch ahead rolled back (its error is the one that matters), or
      // another writer moved it. Read back from the store, the view folds from where it really is.
      if (err instanceof Error && err.message.includes(POSITION_MOVED)) {
        throw new RetryableError(err.message, {cause: err});
      }
      if (err instanceof Error && err.message.includes(HOOKS_CHANGED)) throw new HooksChangedError(e.name, err);
      if (repeats || (err as {code?: string}).code !== UNIQUE_VIOLATION) throw err;
      // Nothing of the batch was written: the view reloads and writes it again keeping the first of each repeat.
      this.repeatsUntil.set(e.id, to);
      throw new RepeatedRowsError(e.name, from, to, err);
    }
  }

  /** A batch's balance_threshold crossings and its watched addresses' balances (webhookThresholds.ts), after its rows. */
  private async foldThresholds(tx: SqlTx, e: Endpoint, built: Built): Promise<void> {
    if (!built.rows.balances || (e.chain !== "P" && e.chain !== "X")) return;
    await built.rows.balances.fold(tx, {
      chain: e.chain,
      chainId: this.modules.network.chainIds[e.chain],
      avaxAssetId: this.modules.avaxAssetId,
    });
  }

  private committed(e: Endpoint, {containers, txIds, txCount, started, rows}: Built): void {
    for (const id of txIds) this.pendingTxs.delete(id);
    this.committedCreations.add(rows.createdOwners);
    if (rows.spentCarried.length > 0) {
      const done = new Set(rows.spentCarried);
      this.spentLater = this.spentLater.filter((r) => !done.has(r));
    }
    this.spentLater.push(...rows.spentDeferred);
    for (const id of rows.lateSettled) {
      this.lateSpends.delete(id);
      this.lateInFlight.delete(id);
    }
    this.positions.set(e.id, containers[containers.length - 1]!.index + 1n);
    const m = this.modules.metrics;
    if (m) {
      m.containers.inc({chain: e.chain, kind: e.kind}, containers.length);
      m.txs.inc({chain: e.chain}, txCount);
      m.batchSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /**
   * Owners of the UTXOs a batch consumes that earlier batches created (the addresses filter of a spend): those found
   * when it was decoded, then from `uncommitted` (batches whose statements may not have committed yet), the recent
   * creations kept in memory, or the store.
   */
  private async completeOwners(
    tx: SqlTx,
    p: Prepared,
    uncommitted: readonly Map<string, Uint8Array[]>[],
  ): Promise<Map<string, Uint8Array[]>> {
    const out = p.owners;
    const rest: string[] = [];
    for (const id of p.consumed) {
      if (out.has(id)) continue;
      const creator = uncommitted.find((m) => m.has(id));
      if (creator) {
        out.set(id, creator.get(id)!);
        p.creators.set(id, creator);
      } else rest.push(id);
    }
    await readOwners(tx, this.recentOwners.take(rest, out), out);
    return out;
  }

  private foldTx(
    batch: Batch,
    t: PrimaryTx,
    place: TxPlace,
    owners: Map<string, Uint8Array[]>,
    creators: Map<string, Map<string, Uint8Array[]>>,
    effects: TxEffects,
    event: EventPlace | null,
  ): void {
    batch.txs.push(txRow(t, place, effects.l1));
    const avax = this.modules.avaxAssetId;
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
      const signers = this.signerKeys.fill(i, known, t.unsignedHash);
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

  private createUtxo(
    batch: Batch,
    txId: string,
    o: TxOutput,
    place: TxPlace,
    extra: {rewardType?: string; stakingEnd?: bigint} = NO_EXTRA,
  ): void {
    batch.utxoCreates.push(utxoCreateRow(txId, o, place, extra));
    if (o.assetId === this.modules.avaxAssetId)
      batch.supply.created(o.utxoId, o.amount, place.chainId, place.seq, extra.rewardType);
    const late = this.lateSpends.get(o.utxoId);
    if (late !== undefined && !this.lateInFlight.has(o.utxoId)) {
      this.lateInFlight.add(o.utxoId);
      if (o.assetId === this.modules.avaxAssetId) batch.supply.lateConsumed(o.utxoId, o.amount, late);
      batch.lateSettled.push(o.utxoId);
    }
    batch.createdOwners.set(o.utxoId, o.owner.addresses);
    this.recentOwners.add(o.utxoId, o.owner.addresses);
    for (const a of distinctBytes(o.owner.addresses)) {
      batch.utxoAddresses.push([a, place.ts, o.utxoId]);
      batch.unspentOwned.push([a, o.utxoId, o.exportedTo !== null]);
    }
  }

  private async write(tx: SqlTx, b: Batch): Promise<void> {
    const params: unknown[] = [];
    await runTogether(tx, this.writeStatements(b, params, true), params);
  }

  /**
   * The INSERTs of a batch's rows, their column arrays appended to `params`. A real chain never repeats a height, a
   * transaction or a UTXO, and plain INSERTs are what the fold can afford: ON CONFLICT DO NOTHING checks every unique
   * index before each row and inserts it speculatively, which took a third of a PostgreSQL server's CPU. An index
   * that does repeat one (a dev database from an older schedule) raises a unique violation, and that batch is
   * written again with `repeats`, keeping the first, rather than stopping the view.
   */
  private writeStatements(b: Batch, params: unknown[], repeats: boolean): string[] {
    // UTXOs and spends are keyed by hash indexes, which cannot be unique (migration 11): their repeats are skipped by ID.
    const skip = repeats ? {onConflict: "DO NOTHING"} : {};
    const skipById = repeats ? {absentKey: "utxo_id"} : {};
    const tables: Array<[string, readonly BulkColumn[], unknown[][], BulkInsertOptions]> = [
      ["blocks", BLOCK_COLUMNS as unknown as BulkColumn[], b.blocks, skip],
      ["vertices", VERTEX_COLUMNS as unknown as BulkColumn[], b.vertices, skip],
      ["txs", TX_COLUMNS as unknown as BulkColumn[], b.txs, skip],
      ["tx_addresses", TX_ADDRESS_COLUMNS, b.txAddresses, skip],
      ["asset_txs", ASSET_TX_COLUMNS, b.assetTxs, skip],
      ["assets", ASSET_COLUMNS, b.assets, skip],
      ["utxos", UTXO_CREATE_COLUMNS as unknown as BulkColumn[], b.utxoCreates, skipById],
      ["utxo_spends", UTXO_CONSUME_COLUMNS as unknown as BulkColumn[], [...b.utxoConsumes.values()], skipById],
      ["utxo_addresses", UTXO_ADDRESS_COLUMNS, b.utxoAddresses, skip],
    ];
    const statements = tables
      .filter(([, , rows]) => rows.length > 0)
      .map(([table, columns, rows, opts]) => insertSql(table, columns, rows, opts, params));
    const unspent = b.unspentOwned.filter((r) => !b.utxoConsumes.has(r[1]));
    if (unspent.length > 0) statements.push(unspentOwnedSql(unspent, params, repeats));
    if (b.supply.size > 0) statements.push(b.supply.upsertSql(params, repeats));
    if (b.webhooks.size > 0) statements.push(...b.webhooks.statements(params));
    return statements;
  }

  /**
   * The DELETE of the unspent_owned rows a batch's spends remove, by key: those whose UTXO's batch has committed
   * (this statement's snapshot sees them), and the view's spentLater; the others wait in spentDeferred until the
   * batch commits. On a server a batch's statement may start before the one ahead commits (foldPipelined), and sees
   * none of its rows: a spend of a UTXO made just before, the common change spend. The spends of the batch's own
   * UTXOs remove nothing (those have no rows), but when it repeats UTXOs the store holds (`repeats`): then a spend
   * of one removes the row its first creation wrote.
   */
  private spentStatements(b: Batch, params: unknown[], repeats: boolean): string[] {
    const now: SpentOwned[] = [];
    b.spentDeferred = [];
    for (const [a, id, creator] of b.spentOwned) {
      if (creator === "batch") {
        if (repeats) now.push([a, id]);
      } else if (creator === null || this.committedCreations.has(creator)) now.push([a, id]);
      else b.spentDeferred.push([a, id]);
    }
    b.spentCarried = this.spentLater.slice();
    const rows = now.concat(b.spentCarried);
    return rows.length > 0 ? [spentOwnedSql(rows, params)] : [];
  }

  /**
   * The spentLater rows removed on their own: the round is over, and no batch's statement takes them. Failing (the
   * store is down), they stay for the next statement or round.
   */
  private async removeSpentLater(): Promise<void> {
    const rows = this.spentLater.slice();
    const params: unknown[] = [];
    await this.modules.sql.query(spentOwnedSql(rows, params), params);
    const done = new Set(rows);
    this.spentLater = this.spentLater.filter((r) => !done.has(r));
  }

  /**
   * The view's counters and staking state as they stand, for `data_api_meta`, as of a batch; with the late spends
   * left when the batch settles some (`settled`): those of every batch built and not committed yet are left out too,
   * so a batch written after another never lists again what that one settled.
   */
  private stateEntries(settled: readonly string[] = []): Array<[string, string]> {
    const late: Array<[string, string]> = [];
    if (settled.length > 0)
      late.push([LATE_SPENDS_KEY, JSON.stringify([...this.lateSpends].filter(([id]) => !this.lateInFlight.has(id)))]);
    return [
      ["view.seq.P", this.seq.P.toString()],
      ["view.seq.X", this.seq.X.toString()],
      ["view.seq.C", this.seq.C.toString()],
      ["view.seq.vtx", this.seq.vtx.toString()],
      ...late,
      ...this.staking.state(),
    ];
  }

  private async saveState(tx: SqlTx): Promise<void> {
    const params: unknown[] = [];
    await runTogether(tx, [stateSql(this.stateEntries(), params)], params);
  }

  /** The network's genesis state: assets, UTXOs, stakers and supply, before the first container. */
  private async foldGenesis(tx: SqlTx, g: GenesisState): Promise<void> {
    // Every reward is a share of the supply (reward.ts): a genesis without one would stop the first staking tx.
    if (g.supply <= 0n)
      throw new Error(`the genesis of network ${g.networkId} has no supply: the primary view cannot fold it`);
    // Written in slices within the one transaction: mainnet's genesis is some 43,000 UTXOs, and one statement of
    // them all would hold them twice over (rows and parameters) at once.
    let batch = new Batch();
    const flush = async (): Promise<void> => {
      await this.write(tx, batch);
      batch = new Batch();
    };
    for (const a of g.assets)
      batch.assets.push([a.assetId, a.name, a.symbol, a.denomination, "secp256k1", null, g.timestamp, null]);
    for (const u of g.utxos) {
      const place: TxPlace = {
        chain: u.chain,
        chainId: this.modules.network.chainIds[u.chain],
        seq: 0n,
        blockId: "",
        height: 0n,
        ts: g.timestamp,
      };
      this.createUtxo(batch, u.txId, u.output, place);
      if (batch.utxoCreates.length >= GENESIS_SLICE) await flush();
    }
    // The stakers a few at a time; the supply grows by each one's potential reward, across the slices.
    const create = (txId: string, o: TxOutput, place: TxPlace, stakingEnd: bigint): void =>
      this.createUtxo(batch, txId, o, place, {stakingEnd});
    let stakers: GenesisStaker[] = [];
    let first = true;
    const foldStakers = async (): Promise<void> => {
      await this.staking.genesis(tx, {...g, stakers}, create, this.modules.network.chainIds.P, first);
      first = false;
      stakers = [];
      if (batch.utxoCreates.length >= GENESIS_SLICE) await flush();
    };
    for (const s of g.stakers) {
      stakers.push(s);
      if (stakers.length === 8) await foldStakers();
    }
    // The last slice, or none at all: the genesis supply is set either way.
    if (stakers.length > 0 || first) await foldStakers();
    await flush();
    // The C-chain's genesis balances are no UTXO: the supply reads their sum from here.
    await tx.query(
      `INSERT INTO data_api_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [C_GENESIS_ALLOCATION_KEY, String(g.cChainAllocationWei ?? 0n)],
    );
  }
}

const ASSET_TX_COLUMNS: BulkColumn[] = [
  {name: "asset_id", type: "text"},
  {name: "seq", type: "int8"},
];
const META_COLUMNS: BulkColumn[] = [
  {name: "key", type: "text"},
  {name: "value", type: "text"},
];

/** The upsert of the view's state entries into `data_api_meta`. */
function stateSql(entries: Array<[string, string]>, params: unknown[]): string {
  return insertSql(
    "data_api_meta",
    META_COLUMNS,
    entries,
    {onConflict: "(key) DO UPDATE SET value = EXCLUDED.value"},
    params,
  );
}

const ASSET_COLUMNS: BulkColumn[] = [
  {name: "asset_id", type: "text"},
  {name: "name", type: "text"},
  {name: "symbol", type: "text"},
  {name: "denomination", type: "int4"},
  {name: "asset_type", type: "text"},
  {name: "created_tx", type: "text"},
  {name: "created_ts", type: "int8"},
  {name: "cap", type: "numeric"},
];

/** Glacier's asset `type`: `nft` when the asset's initial state mints NFTs, else `secp256k1`. */
function assetType(outputs: TxOutput[]): string {
  return outputs.some((o) => o.utxoType.startsWith("NFT")) ? "nft" : "secp256k1";
}

/**
 * The `unspent_owned` rows (schema 25) of a batch's new UTXOs that it does not spend itself: [address, UTXO ID,
 * exported]. An exported UTXO may have been imported already (an import folded ahead of its export): it is left
 * out if so. With `repeats`, a UTXO the store holds already is left out too (its spend may have removed its rows;
 * the statement's snapshot does not see the UTXOs it writes itself). The spends remove their UTXOs' rows by key
 * (spentStatements).
 */
function unspentOwnedSql(
  rows: ReadonlyArray<readonly [Uint8Array, string, boolean]>,
  params: unknown[],
  repeats: boolean,
): string {
  const n = params.length;
  params.push(
    arrayParam(
      "bytea",
      rows.map((r) => r[0]),
    ),
    arrayParam(
      "text",
      rows.map((r) => r[1]),
    ),
    arrayParam(
      "bool",
      rows.map((r) => r[2]),
    ),
  );
  return `INSERT INTO unspent_owned (address, utxo_id)
    SELECT u.a, u.id FROM unnest($${n + 1}::bytea[], $${n + 2}::text[], $${n + 3}::bool[]) AS u(a, id, exported)
    WHERE NOT (u.exported AND EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.id))${
      repeats ? "\n      AND NOT EXISTS (SELECT 1 FROM utxos x WHERE x.utxo_id = u.id) ON CONFLICT DO NOTHING" : ""
    }`;
}

/** An `unspent_owned` row a spend removes: [address, UTXO ID]. */
type SpentOwned = [Uint8Array, string];

/**
 * The DELETE of unspent_owned `rows` by key (schema 27): one index probe a row. The view knows each spent UTXO's
 * owners (completeOwners), where a trigger on utxo_spends would read the UTXO's row and parse its owners again.
 */
function spentOwnedSql(rows: readonly SpentOwned[], params: unknown[]): string {
  const n = params.length;
  params.push(
    arrayParam(
      "bytea",
      rows.map((r) => r[0]),
    ),
    arrayParam(
      "text",
      rows.map((r) => r[1]),
    ),
  );
  return `DELETE FROM unspent_owned o USING unnest($${n + 1}::bytea[], $${n + 2}::text[]) AS g(a, id)
    WHERE o.address = g.a AND o.utxo_id = g.id COLLATE "C"`;
}

/** PostgreSQL's SQLSTATE of a duplicate key in a unique index. */
const UNIQUE_VIOLATION = "23505";

/**
 * A primary webhook was made or changed after the batch read the webhooks (webhooksOfBatch): nothing of it was
 * written, and it is built again with them. A webhook made while a batch is built gets the events of the positions
 * from its from_block on (queries/webhooks.ts), which that batch may hold. Not a failure: no backoff, no error count.
 */
class HooksChangedError extends Error {
  constructor(
    readonly endpoint: string,
    cause: unknown,
  ) {
    super("primary-network view: a primary webhook changed while the batch was built; it is built again", {cause});
  }
}

/** A batch repeats a row the store holds (writeBuilt): it is written again keeping the first. */
class RepeatedRowsError extends Error {
  constructor(
    readonly endpoint: string,
    readonly from: bigint,
    readonly to: bigint,
    cause: unknown,
  ) {
    super(
      "primary-network view: the index repeats a row the store holds; the batch is written again keeping the first",
      {cause},
    );
  }
}

/** Marks the error of a batch statement that did not find the position its batch starts at (writeBuilt). */
const POSITION_MOVED = "avaext: the view position is not at the start of the batch";
/** Marks the error of a batch statement built before a primary webhook was made or changed (writeBuilt). */
const HOOKS_CHANGED = "avaext: the primary webhooks changed after the batch was built";

/**
 * The owners of `utxoIds` from the store. A join with the IDs rather than `utxo_id = ANY($1)`: planned while the
 * table's statistics still say it is nearly empty (a store being filled: a cached plan, or before the first
 * ANALYZE), the ANY became a sequential scan testing every row against every ID, up to 250 ms a read (and
 * 10 of the 60-75 s of folding 300,000 transactions into a PostgreSQL server); the join hashes one side instead
 * when it does not look the IDs up in the index.
 */
async function readOwners(tx: SqlTx, utxoIds: string[], out: Map<string, Uint8Array[]>): Promise<void> {
  if (utxoIds.length === 0) return;
  const rows = await tx.query<{utxo_id: string; addresses: string[] | string | null}>(
    "SELECT u.utxo_id, u.addresses FROM unnest($1::text[]) AS k(id) JOIN utxos u ON u.utxo_id = k.id WHERE u.addresses IS NOT NULL",
    [utxoIds],
  );
  for (const r of rows) {
    const list = typeof r.addresses === "string" ? (JSON.parse(r.addresses) as string[]) : (r.addresses ?? []);
    out.set(
      r.utxo_id,
      list.map((h) => Uint8Array.from(Buffer.from(h, "hex"))),
    );
  }
}

export type PrimaryChainName = "P" | "X" | "C";

/** Where in the index a container is, and its block (or vertex). */
export interface FoldPlace {
  index: bigint;
  blockId: string;
  height: bigint;
}

/** A chain's view stopped: where and why (the health check and the log give it as is). */
export interface ViewStop {
  chain: PrimaryChainName;
  endpoint: string;
  /** The container's position in its index. */
  index: string;
  /** The block (or vertex) that failed, when the failure could be placed in one. */
  blockId: string | null;
  height: string | null;
  /** The transaction being folded, when the failure was in one. */
  txId: string | null;
  error: string;
  /** When it stopped (ISO 8601). */
  since: string;
}

/**
 * A failure while folding a batch of one endpoint, placed as closely as it could be: the container range [from,
 * to), the block and the transaction when known. Retryable or not as its cause is (src/util/errors.ts).
 */
export class FoldError extends Error {
  private constructor(
    readonly endpoint: Endpoint,
    readonly from: bigint,
    readonly to: bigint,
    readonly block: FoldPlace | null,
    readonly txId: string | null,
    cause: unknown,
  ) {
    const range = to - from === 1n ? `container ${from}` : `containers ${from}-${to - 1n}`;
    const where = block ? `block ${block.height} (${block.blockId})` : range;
    const what = cause instanceof Error ? cause.message : String(cause);
    super(`${endpoint.chain}-chain ${where}${txId ? `, transaction ${txId}` : ""}: ${what}`, {cause});
  }

  /** A failure at one container of the build, with its block and transaction when known. */
  static at(err: unknown, e: Endpoint, index: bigint, block: FoldPlace | null, txId: string | null): Error {
    if (err instanceof FoldError || err instanceof RepeatedRowsError || err instanceof HooksChangedError) return err;
    return new FoldError(e, index, index + 1n, block, txId, err);
  }

  /** A failure reading containers [from, to) or what their fold needs, before any is built. */
  static range(err: unknown, e: Endpoint, from: bigint, to: bigint): Error {
    if (err instanceof FoldError || err instanceof RepeatedRowsError || err instanceof HooksChangedError) return err;
    return new FoldError(e, from, to, null, null, err);
  }

  /** A failure of a whole batch (its statement or transaction); the block is named when it holds only one. */
  static of(
    err: unknown,
    e: Endpoint,
    containers: readonly StoredContainer[],
    blocks: readonly FoldPlace[] | null,
  ): Error {
    if (err instanceof FoldError || err instanceof RepeatedRowsError || err instanceof HooksChangedError) return err;
    const from = containers[0]!.index;
    const to = containers[containers.length - 1]!.index + 1n;
    return new FoldError(e, from, to, to - from === 1n && blocks?.length === 1 ? blocks[0]! : null, null, err);
  }
}
