/**
 * The primary-network view: follows the container index (docs/design/data-api.md). For each folded endpoint it reads
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
import {LATE_SPENDS_KEY, SUPPLY_TOTALS_KEY, recomputeSupplyTotals} from "./supplyTotals.js";
import {findEndpoint, type Endpoint} from "../../../containerIndex/endpoints.js";
import type {IndexStore, StoredContainer} from "../../../containerIndex/store.js";
import type {Logger} from "../../../logger/index.js";
import {idToString} from "../../../util/cb58.js";
import {Backoff, RetryableError, isRetryable} from "../../../util/errors.js";
import {runTogether} from "../../store/bulk.js";
import type {SqlClient, SqlTx} from "../../store/sql.js";
import {tryDecodePrimaryContainer, type DecodeResult} from "./decode.js";
import {
  C_GENESIS_ALLOCATION_KEY,
  type GenesisStaker,
  type GenesisState,
  type PrimaryContainer,
  type TxOutput,
} from "./model.js";
import {blockRow, vertexRow, type TxPlace} from "./rows.js";
import {SignerKeys} from "./signerKeys.js";
import {UtxoOwners} from "./utxoOwners.js";
import {StakingFold} from "./stakingFold.js";
import type {ViewMetrics} from "./metrics.js";
import {webhooksOfBatch, type EventPlace} from "./webhookEvents.js";
import {BalanceChanges} from "./webhookThresholds.js";
import {Batch, BatchBuilder, type Built, type SpentOwned} from "./batch.js";
import {
  POSITION_CHECK_SQL,
  POSITION_MOVE_SQL,
  batchStatements,
  hasMeta,
  insertPositions,
  readOwners,
  readPositions,
  readViewMeta,
  setMeta,
  spentOwnedSql,
  stateSql,
} from "./batchSql.js";
import {
  FoldError,
  HOOKS_CHANGED,
  HooksChangedError,
  POSITION_MOVED,
  RepeatedRowsError,
  UNIQUE_VIOLATION,
  type FoldPlace,
  type PrimaryChainName,
  type ViewStop,
} from "./foldError.js";

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
  /**
   * The index the view follows; null for a view that only loads its store, folding the genesis into a new one
   * (dataApi/genesisWorker.ts): it is never started.
   */
  index: IndexStore | null;
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
  private readonly builder: BatchBuilder;
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
    this.builder = new BatchBuilder(
      {avaxAssetId: modules.avaxAssetId},
      {
        signerKeys: this.signerKeys,
        recentOwners: this.recentOwners,
        lateSpends: this.lateSpends,
        lateInFlight: this.lateInFlight,
      },
    );
    this.staking = new StakingFold({network: modules.network, avaxAssetId: modules.avaxAssetId});
  }

  private followed(): IndexStore {
    if (this.modules.index === null) throw new Error("this primary view follows no index: it only loads its store");
    return this.modules.index;
  }

  /** Loads the positions (folding the genesis state on a fresh store), then follows the index until close(). */
  async start(): Promise<void> {
    this.followed();
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
    const followed = this.modules.index;
    if (followed === null) return 0n;
    for (const e of FOLDED_ENDPOINTS) lag += followed.index(e).next - (this.positions.get(e.id) ?? 0n);
    return lag;
  }

  async close(): Promise<void> {
    this.ctrl.abort();
    this.wake?.();
    await this.running;
  }

  async load(): Promise<void> {
    const {sql} = this.modules;
    let positions = await readPositions(sql);
    if (positions.length === 0) {
      await sql.transaction(async (tx) => {
        await insertPositions(
          tx,
          FOLDED_ENDPOINTS.map((e) => e.name),
        );
        await recomputeSupplyTotals(tx, this.modules.avaxAssetId);
        await this.foldGenesis(tx, this.modules.genesis());
        await this.saveState(tx);
      });
      positions = await readPositions(sql);
    }
    // A store folded before the supply's sums were kept has them computed once, from what it holds.
    if (!(await hasMeta(sql, SUPPLY_TOTALS_KEY))) {
      this.modules.logger.info(
        "computing the AVAX supply's sums from the store (once, for a store folded before they were kept)",
      );
      await sql.transaction((tx) => recomputeSupplyTotals(tx, this.modules.avaxAssetId));
    }
    for (const r of positions) {
      const e = FOLDED_ENDPOINTS.find((x) => x.name === r.endpoint);
      if (e) this.positions.set(e.id, r.nextIndex);
    }
    const m = await readViewMeta(sql);
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
      if (e === X_BLOCK && (this.positions.get(X_VTX.id) ?? 0n) < this.followed().index(X_VTX).next) continue;
      const index = this.followed().index(e);
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
          this.builder.foldTx(
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
    const statements = [
      POSITION_MOVE_SQL,
      ...batchStatements(built.rows, params, repeats),
      ...this.spentStatements(built.rows, params, repeats),
      stateSql(built.state, params),
    ];
    try {
      await runTogether(tx, statements, params, POSITION_CHECK_SQL);
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

  private async write(tx: SqlTx, b: Batch): Promise<void> {
    const params: unknown[] = [];
    await runTogether(tx, batchStatements(b, params, true), params);
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
      this.builder.createUtxo(batch, u.txId, u.output, place);
      if (batch.utxoCreates.length >= GENESIS_SLICE) await flush();
    }
    // The stakers a few at a time; the supply grows by each one's potential reward, across the slices.
    const create = (txId: string, o: TxOutput, place: TxPlace, stakingEnd: bigint): void =>
      this.builder.createUtxo(batch, txId, o, place, {stakingEnd});
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
    await setMeta(tx, C_GENESIS_ALLOCATION_KEY, String(g.cChainAllocationWei ?? 0n));
  }
}
