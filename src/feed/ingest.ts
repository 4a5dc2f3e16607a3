/**
 * The ingester: runs the feed source and commits what it hands over. Each batch becomes one atomic accept with
 * the source's position (docs/api/index.md), so a kill at any moment resumes exactly. It also keeps the per-chain state
 * (last accepted block) for the health checks and the daily TPS series, whether or not indexing is on.
 */
import {Counter, Gauge, type Registry} from "prom-client";
import type {ChainName} from "../chains/index.js";
import {CHAIN_NAMES} from "../chains/index.js";
import type {Logger} from "../logger/index.js";
import {METRIC_PREFIX} from "../metrics/index.js";
import {AvgTps, type Day} from "../metricsService/avgTps.js";
import {ENDPOINTS, findEndpoint, type Endpoint} from "../containerIndex/endpoints.js";
import type {BatchOp} from "../db/controller.js";
import {IndexStore, MAX_FETCHED_BY_RANGE, type AcceptedItem, type ChainState} from "../containerIndex/store.js";
import {idToString} from "../util/cb58.js";
import {nowNs} from "../util/time.js";
import {redactUrl} from "../util/url.js";
import {blockFacts} from "./derive.js";
import type {FeedStatus} from "./status.js";
import {sleep, type BadInputReporter, type FeedBatch, type FeedItem, type FeedSource} from "./types.js";

export interface IngesterOptions {
  /** Store containers (`--index-enabled`); when off only the position and the chain state advance. */
  indexEnabled: boolean;
  /** Most batches queued for commit before the source waits (default 3; see runWithRestarts). */
  pipelineDepth?: number;
}

export interface IngesterModules {
  source: FeedSource;
  store: IndexStore;
  status: FeedStatus;
  avgTps: AvgTps;
  logger: Logger;
  register: Registry | null;
}

interface IngestMetrics {
  accepted: Counter<"chain" | "kind">;
  duplicates: Counter<"chain" | "kind">;
  badLines: Counter;
  lag: Gauge;
  lastIndex: Gauge<"chain" | "kind">;
}

function createIngestMetrics(register: Registry): IngestMetrics {
  const registers = [register];
  const m: IngestMetrics = {
    accepted: new Counter({
      name: `${METRIC_PREFIX}index_containers_accepted_total`,
      help: "Containers accepted into the index by endpoint",
      labelNames: ["chain", "kind"],
      registers,
    }),
    duplicates: new Counter({
      name: `${METRIC_PREFIX}index_containers_duplicate_total`,
      help: "Containers skipped because the endpoint already holds their ID",
      labelNames: ["chain", "kind"],
      registers,
    }),
    badLines: new Counter({
      name: `${METRIC_PREFIX}feed_bad_lines_total`,
      help: "Feed lines skipped as malformed",
      registers,
    }),
    lag: new Gauge({
      name: `${METRIC_PREFIX}feed_lag_seconds`,
      help: "Seconds between the acceptance time of the newest container and its commit here",
      registers,
    }),
    lastIndex: new Gauge({
      name: `${METRIC_PREFIX}index_containers`,
      help: "Containers held per index endpoint",
      labelNames: ["chain", "kind"],
      registers,
    }),
  };
  for (const e of ENDPOINTS) {
    m.accepted.inc({chain: e.chain, kind: e.kind}, 0);
    m.duplicates.inc({chain: e.chain, kind: e.kind}, 0);
  }
  return m;
}

export class Ingester implements BadInputReporter {
  private readonly metrics: IngestMetrics | null;
  private readonly ctrl = new AbortController();
  private running: Promise<void> | null = null;
  /** The last accepted block per chain as committed (bucket chainState); what the health checks report. */
  private readonly chainState = new Map<ChainName, ChainState>();
  /** The same, as of the newest batch handed to the store (it may still be writing); reset after a failure. */
  private pendingState = new Map<ChainName, ChainState>();
  /**
   * The TPS series as of the newest batch handed to the store, for the chains in `tpsStored`: their changed days
   * go into that batch (Bucket.tpsDay). Reloaded from the store after a failed commit.
   */
  private readonly pendingTps = new AvgTps();
  /**
   * The chains whose stored days include every committed block, so that each batch stores its days too. A chain
   * left out (its days could not be rebuilt: indexing off) keeps its series in memory only, and the stored days no
   * longer match its chain state, so a start with indexing on scans them again.
   */
  private readonly tpsStored = new Set<ChainName>();

  constructor(
    private readonly opts: IngesterOptions,
    private readonly modules: IngesterModules,
  ) {
    this.metrics = modules.register ? createIngestMetrics(modules.register) : null;
    if (this.metrics) {
      const m = this.metrics;
      m.lastIndex.reset();
      for (const e of ENDPOINTS) m.lastIndex.set({chain: e.chain, kind: e.kind}, 0);
    }
  }

  badLine(lineNo: number, reason: string): void {
    this.metrics?.badLines.inc();
    this.modules.logger.warn({line: lineNo, reason}, "bad feed line skipped");
  }

  /**
   * Runs in the background until close(): first rebuilds the derived state from the index (which can take a while
   * on a large index, so start-up does not wait for it), then runs the source.
   */
  async start(): Promise<void> {
    const {source, store, logger} = this.modules;
    const position = await store.feedPosition(source.key);
    this.running = (async () => {
      try {
        await this.restore();
      } catch (err) {
        logger.error({err}, "could not rebuild chain state from the index; continuing with the feed");
      }
      logger.info({feed: feedLabel(source.key), resumed: position !== null}, "feed starting");
      await this.runWithRestarts(position);
    })();
  }

  async close(): Promise<void> {
    this.ctrl.abort();
    await this.running;
    await this.modules.store.flush();
  }

  /**
   * Commits one batch; also used by tests and tools that feed containers directly. With `before` (the previous
   * batch's commit), the store is asked at once, so this batch's ID lookups overlap that batch's write; what
   * follows the write (chain state, metrics) still happens in feed order.
   */
  async commit(batch: FeedBatch, before: Promise<void> = Promise.resolve()): Promise<void> {
    const {store, source} = this.modules;
    const items = batch.items;
    let next: Map<ChainName, ChainState> = new Map();
    let tps: {chain: ChainName; timestamp: number; txCount: number}[] = [];
    // The chain state moves in the same atomic batch as the containers that moved it (and the feed position).
    // The store calls this in feed order, after the previous batch's writes were built.
    const derived = (acc: readonly AcceptedItem<FeedItem>[]): BatchOp[] => {
      ({next, tps} = this.nextChainState(acc));
      for (const [chain, st] of next) this.pendingState.set(chain, st);
      const ops: BatchOp[] = [];
      for (const [chain, st] of next) {
        ops.push(IndexStore.chainStateOp(chain, st));
        // The chain's stored days include this block from this batch on.
        if (this.tpsStored.has(chain)) ops.push(IndexStore.tpsCoverOp(chain, st.id));
      }
      const changed = new Map<string, BatchOp>();
      for (const t of tps) {
        if (!this.tpsStored.has(t.chain)) continue;
        const day = this.pendingTps.add(t.chain, {timestamp: t.timestamp, txCount: t.txCount});
        // Encoded now: a later block of the batch changes the same day again and replaces this write.
        if (day) changed.set(`${t.chain}${day.start}`, IndexStore.tpsDayOp(t.chain, day));
      }
      ops.push(...changed.values());
      return ops;
    };
    const accepting = store.accept(items, {key: source.key, value: batch.position}, this.opts.indexEnabled, derived);
    const {accepted, duplicates} = await accepting;
    await before;
    for (const [chain, st] of next) {
      this.chainState.set(chain, st);
      this.modules.status.accepted(chain, st.height, idToString(st.id));
    }
    for (const t of tps) this.modules.avgTps.add(t.chain, {timestamp: t.timestamp, txCount: t.txCount});
    if (this.metrics) {
      countBy(accepted, this.metrics.accepted);
      if (duplicates > 0) {
        const taken = new Set(accepted);
        countBy(
          items.filter((it) => !taken.has(it)),
          this.metrics.duplicates,
        );
      }
      const newest = batch.items[batch.items.length - 1];
      if (newest) this.metrics.lag.set(Math.max(0, Number(nowNs() - newest.timestampNs) / 1e9));
      for (const e of ENDPOINTS)
        this.metrics.lastIndex.set({chain: e.chain, kind: e.kind}, Number(store.index(e).next));
    }
  }

  /**
   * The chain state after the accepted containers (blocks only; X-chain txs do not count), and the points of the
   * TPS series they add. A block's height is the decoded one; for a block that does not decode, its position in
   * the chain's block index (docs/api/index.md), or, with indexing off, one more than the chain's last height.
   */
  private nextChainState(accepted: readonly AcceptedItem<FeedItem>[]): {
    next: Map<ChainName, ChainState>;
    tps: {chain: ChainName; timestamp: number; txCount: number}[];
  } {
    const next = new Map<ChainName, ChainState>();
    const tps: {chain: ChainName; timestamp: number; txCount: number}[] = [];
    for (const {item: it, index} of accepted) {
      if (it.kind !== "block") continue;
      const facts = blockFacts(it.chain, it.kind, it.bytes);
      let height: bigint;
      if (facts) {
        height = facts.height;
        if (facts.timestamp !== null) tps.push({chain: it.chain, timestamp: facts.timestamp, txCount: facts.txCount});
      } else if (index !== null) {
        height = index;
      } else {
        const prev = next.get(it.chain) ?? this.pendingState.get(it.chain) ?? this.chainState.get(it.chain);
        height = prev ? prev.height + 1n : 0n;
      }
      // A copy: the ID may view a larger buffer (a decoded line's), which must not stay alive for it.
      next.set(it.chain, {height, id: new Uint8Array(it.id)});
    }
    return {next, tps};
  }

  private async runWithRestarts(position: Uint8Array | null): Promise<void> {
    const {source, logger, store} = this.modules;
    const signal = this.ctrl.signal;
    let pos = position;
    while (!signal.aborted) {
      // Batches are queued (their ID lookups running) while earlier ones are being written, and the source prepares
      // the next meanwhile; commits stay in order, and at most `pipelineDepth` batches are queued. One queued batch
      // left the main thread idle for a third of the ingest: it waited for each write, synced, to finish.
      let last: Promise<void> = Promise.resolve();
      const queued: Promise<void>[] = [];
      // The first commit that failed: the ones behind it only say that an earlier one did.
      let failure: unknown = null;
      // A failure stops the source at once, even one idle at the tip that will not call the sink for a while.
      const run = new AbortController();
      const sink = async (b: FeedBatch): Promise<void> => {
        if (failure !== null) throw failure;
        last = this.commit(b, last);
        last.catch((e: unknown) => {
          failure ??= e;
          run.abort();
        }); // also observed below; never an unhandled rejection
        queued.push(last);
        if (queued.length >= (this.opts.pipelineDepth ?? 3)) await queued.shift();
      };
      try {
        try {
          await source.run(pos, sink, AbortSignal.any([signal, run.signal]));
        } finally {
          await last;
        }
        return;
      } catch (e) {
        // A failing source (or commit) is reported and retried from the last committed position; never fatal.
        if (failure === null && signal.aborted) return;
        const err = failure ?? e;
        logger.error({err, feed: feedLabel(source.key)}, "feed failed; restarting from the last committed position");
        this.modules.status.failed();
        await sleep(1000, signal);
        pos = await store.feedPosition(source.key).catch(() => pos);
        // What was derived from batches that did not commit is dropped; the stored chain state is the truth.
        this.pendingState = new Map();
        for (const chain of CHAIN_NAMES) {
          const st = await store.chainState(chain).catch(() => null);
          if (st !== null) this.chainState.set(chain, st);
        }
        for (const chain of this.tpsStored) {
          const days = await store.tpsDays(chain).catch(() => null);
          // Unread, the chain's days are not stored from here on (and no longer match its chain state).
          if (days === null) this.tpsStored.delete(chain);
          else this.pendingTps.load(chain, days);
        }
        store.resume();
      }
    }
  }

  /** Rebuilds the derived state: the last accepted block per chain as stored (indexing on or off), the TPS series. */
  private async restore(): Promise<void> {
    const {store, status} = this.modules;
    for (const chain of CHAIN_NAMES) {
      const st = await store.chainState(chain);
      if (st === null) continue;
      this.chainState.set(chain, st);
      status.accepted(chain, st.height, idToString(st.id));
    }
    for (const chain of CHAIN_NAMES) await this.restoreTps(chain);
    if (!this.opts.indexEnabled) return;
    for (const chain of CHAIN_NAMES) {
      const idx = store.index(findEndpoint(chain, "block")!);
      // A database written before the chain state was stored: take the last block of the index.
      if (idx.next > 0n && !this.chainState.has(chain)) {
        const last = (await idx.getByIndex(idx.next - 1n))!;
        const facts = blockFacts(chain, "block", last.bytes);
        status.accepted(chain, facts ? facts.height : idx.next - 1n, idToString(last.id));
      }
    }
  }

  /**
   * A chain's TPS series: its stored days when they include its last accepted block, else scanned from the index
   * (read in pages, so memory stays flat however large the index; on a large index this takes a while) and stored.
   * Nothing is written meanwhile: the feed starts after restore.
   */
  private async restoreTps(chain: ChainName): Promise<void> {
    const {store, avgTps} = this.modules;
    const idx = store.index(findEndpoint(chain, "block")!);
    // The chain's last accepted block: as stored, else (a database written before the chain state) the index's last.
    const last =
      this.chainState.get(chain)?.id ?? (idx.next > 0n ? ((await idx.getByIndex(idx.next - 1n))?.id ?? null) : null);
    const cover = await store.tpsCover(chain);
    const covered = cover === null ? last === null : last !== null && Buffer.compare(cover, last) === 0;
    let days: readonly Day[];
    if (covered) {
      days = await store.tpsDays(chain);
    } else if (this.opts.indexEnabled) {
      const scanned = new AvgTps();
      for (let i = 0n; i < idx.next; i += BigInt(MAX_FETCHED_BY_RANGE)) {
        if (this.ctrl.signal.aborted) return;
        for (const c of await idx.getRange(i, MAX_FETCHED_BY_RANGE)) {
          const facts = blockFacts(chain, "block", c.bytes);
          if (facts?.timestamp !== null && facts)
            scanned.add(chain, {timestamp: facts.timestamp, txCount: facts.txCount});
        }
      }
      days = scanned.days(chain);
      await store.replaceTpsDays(chain, days, last);
    } else {
      return;
    }
    avgTps.load(chain, days);
    this.pendingTps.load(chain, days);
    this.tpsStored.add(chain);
  }
}

/** Adds per-endpoint counts to a counter in one call per endpoint (labels are hashed per call, not per item). */
function countBy(items: readonly FeedItem[], counter: Counter<"chain" | "kind">): void {
  const counts = new Map<Endpoint, number>();
  for (const it of items) counts.set(it.endpoint, (counts.get(it.endpoint) ?? 0) + 1);
  for (const [e, n] of counts) counter.inc({chain: e.chain, kind: e.kind}, n);
}

/** A feed's key as logs show it: an upstream URL without its credentials, query or key-bearing path. */
function feedLabel(key: string): string {
  return /^https?:\/\//i.test(key) ? redactUrl(key) : key;
}
