/**
 * The container index on LevelDB (AvalancheGo indexer/index.go; docs/api/index.md). Per endpoint: the next index,
 * index → container record, id → index. Accepting is one atomic batch that also carries the feed's position,
 * so a crash at any moment leaves either all of a batch or none of it, and replay skips what is already there.
 */
import {Bucket, type ChainFlag, Slab, containerIndexKey, containerKey, key, readU64be, u64be} from "../db/buckets.js";
import type {BatchOp, Database} from "../db/controller.js";
import type {ChainName} from "../chains/index.js";
import {ENDPOINTS, type Endpoint} from "./endpoints.js";
import {decodeRecord, encodeRecord, holdsChecksum, recordSize, type ReadRecord} from "./record.js";
import {sha256} from "../util/sha256.js";

/**
 * A stored day of a chain's TPS series (Bucket.tpsDay): the metrics service's Day (src/metricsService/avgTps.ts),
 * restated here so the index, below the metrics service (whose /v2 reads the data API, which reads the index),
 * does not import it.
 */
interface Day {
  start: number;
  txs: number;
  firstBlock: number;
  lastBlock: number;
  prevLastBlock: number | null;
}

/** Most containers one getContainerRange returns (AvalancheGo's MaxFetchedByRange). */
export const MAX_FETCHED_BY_RANGE = 1024;

export interface AcceptItem {
  endpoint: Endpoint;
  id: Uint8Array;
  bytes: Uint8Array;
  timestampNs: bigint;
  /** sha256(bytes)[28:32] if known; computed when the container is stored otherwise. */
  checksum?: Uint8Array | null;
}

export interface FeedPosition {
  key: string;
  value: Uint8Array;
}

/** A container read from the index (its checksum is null for records written before checksums were stored). */
export type StoredContainer = ReadRecord;

/** A container of an accept call that is new to its endpoint, with the index it gets (null when not stored). */
export interface AcceptedItem<T extends AcceptItem> {
  item: T;
  index: bigint | null;
}

/**
 * Called once per accept, after duplicates are set aside and before anything is written: extra writes derived from
 * the accepted containers (the chain state), committed in the same atomic batch.
 */
export type DerivedWrites<T extends AcceptItem> = (accepted: readonly AcceptedItem<T>[]) => BatchOp[];

/** The last accepted block of a chain as stored (bucket chainState). */
export interface ChainState {
  height: bigint;
  id: Uint8Array;
}

/** One endpoint's index. Reads go to the database; the next index is cached (this process is the only writer). */
export class EndpointIndex {
  constructor(
    readonly endpoint: Endpoint,
    private readonly db: Database,
    /** The index the next accepted container gets = number of containers. */
    public next: bigint,
    /** Records below this index were written before checksums were stored (Bucket.checksumsFrom). */
    readonly checksumsFrom: bigint,
  ) {}

  async getByIndex(index: bigint): Promise<StoredContainer | null> {
    if (index >= this.next) return null;
    const v = await this.db.get(containerKey(this.endpoint.id, index));
    return v === null ? null : decodeRecord(v, index, this.checksumsFrom);
  }

  async getIndex(id: Uint8Array): Promise<bigint | null> {
    const v = await this.db.get(containerIndexKey(this.endpoint.id, id));
    return v === null ? null : readU64be(v);
  }

  async getById(id: Uint8Array): Promise<StoredContainer | null> {
    const index = await this.getIndex(id);
    return index === null ? null : this.getByIndex(index);
  }

  /** Containers start … start+n-1, truncated at the last accepted; one range scan. */
  async getRange(start: bigint, n: number): Promise<StoredContainer[]> {
    const end = start + BigInt(n) < this.next ? start + BigInt(n) : this.next;
    if (start >= end) return [];
    const values = await this.db.values(containerKey(this.endpoint.id, start), containerKey(this.endpoint.id, end), n);
    // Keys are contiguous below next; fewer values means records are missing, and numbering them would shift them.
    if (values.length !== Number(end - start))
      throw new Error(`containers store holds ${values.length} of the ${end - start} records ${start}..${end - 1n}`);
    return values.map((v, i) => decodeRecord(v, start + BigInt(i), this.checksumsFrom));
  }
}

export class IndexStore {
  private readonly indexes = new Map<number, EndpointIndex>();
  /**
   * Accepts are written in two serialised phases (see accept): the container records, then the commit in the main
   * store. `containersTail` and `commitTail` are the last accept's two phases.
   */
  private containersTail: Promise<unknown> = Promise.resolve();
  private commitTail: Promise<unknown> = Promise.resolve();
  /** Bumped when an accept fails: accepts queued behind it assumed its writes, so they fail too. */
  private generation = 0;
  /** Per endpoint, the next index as assigned to queued accepts (ahead of EndpointIndex.next, the committed one). */
  private assigned = new Map<number, bigint>();
  /** The ID keys of accepts queued or being written (see accept). */
  private readonly pending = new Set<BatchKeys>();
  /**
   * The failure that halted accepting. Until resume(), every accept is refused: one that ran after a failure
   * would commit a feed position past the batches that failed, and the feed would never deliver them again.
   */
  private halted: Error | null = null;

  private constructor(readonly db: Database) {}

  static async open(db: Database): Promise<IndexStore> {
    const store = new IndexStore(db);
    const nexts = (await db.getMany(ENDPOINTS.map((e) => key(Bucket.nextIndex, e.id)))).map((v) =>
      v ? readU64be(v) : 0n,
    );
    // The two stores belong together: the main store's count must find its last record (a containers folder
    // deleted or taken from another database would otherwise shift or lose what is read). Checked before
    // anything is written: a boundary found in the wrong containers store would misread the right one for good.
    for (const [i, e] of ENDPOINTS.entries()) {
      const next = nexts[i]!;
      if (next === 0n) continue;
      // The last counted record must be there, and be the container the main store's ID key puts there (a
      // containers store from another database could hold as many records, or more).
      const last = await db.get(containerKey(e.id, next - 1n));
      const back =
        last === null || last.length < 32 ? null : await db.get(containerIndexKey(e.id, last.subarray(0, 32)));
      if (back === null || readU64be(back) !== next - 1n) {
        throw new Error(
          `the index ${e.name} counts ${next} containers but the containers store has no matching record ${next - 1n}: ` +
            `was ${db.containersFolder(e.id)} removed or replaced? Restore it, or start from an empty --db-dir`,
        );
      }
    }
    const froms = await db.getMany(ENDPOINTS.map((e) => key(Bucket.checksumsFrom, e.id)));
    for (const [i, e] of ENDPOINTS.entries()) {
      const next = nexts[i]!;
      let from = froms[i] ? readU64be(froms[i]!) : null;
      if (from === null) {
        from = next === 0n ? 0n : await firstWithChecksum(db, e, next);
        await db.put(key(Bucket.checksumsFrom, e.id), u64be(from));
      }
      store.indexes.set(e.id, new EndpointIndex(e, db, next, from));
    }
    return store;
  }

  index(endpoint: Endpoint): EndpointIndex {
    return this.indexes.get(endpoint.id)!;
  }

  /**
   * Accepts containers in order, skipping any whose ID the endpoint already holds (replay after a restart, or a
   * duplicate within the batch), and writes the feed position and the `derived` writes in the same atomic commit.
   * Returns the new containers. When `store` is false (indexing off), nothing is deduplicated or stored: every
   * item is handed to `derived` (with a null index) and only the position and the derived writes are written.
   *
   * Pipelined, in three overlapping stages per accept, each in feed order:
   * 1. the ID lookups start at once, while earlier accepts are still being written (the database reads and writes
   *    on its own threads). A lookup may miss what those earlier accepts add, so an ID is also checked against
   *    their keys in memory: an ID in an earlier accept is a duplicate whether that accept stored it or found it;
   * 2. indexes are assigned and the container records written (synced) to the containers store, while the previous
   *    accept's commit may still be running;
   * 3. the commit: ID keys, next indexes, feed position and derived writes, one atomic batch of the main store,
   *    after the previous accept's commit. Readers see the new containers from then on.
   * If an accept fails at any stage, the ones queued behind it fail too rather than run on what they assumed, and
   * so does every later one until resume().
   */
  accept<T extends AcceptItem>(
    items: readonly T[],
    position: FeedPosition | null,
    store = true,
    derived?: DerivedWrites<T>,
  ): Promise<{accepted: T[]; duplicates: number}> {
    if (this.halted !== null) {
      const why = this.halted.message;
      return Promise.reject(
        new Error(
          `not written: an earlier batch of the feed failed to commit (${why}); resume from the committed position first`,
        ),
      );
    }
    const gen = this.generation;
    let lookup: Lookup | null = null;
    if (store && items.length > 0) {
      const slab = new Slab(items.reduce((n, it) => n + 2 + it.id.length, 0));
      const keys = new BatchKeys(
        items.map((it) => slab.containerIndexKey(it.endpoint.id, it.id)),
        gen,
      );
      const existing = this.db.getMany(keys.keys);
      existing.catch(() => {}); // observed in prepare
      // Only accepts of this generation: those of an earlier one either were written before the failure that
      // ended it (so the lookup sees them) or fail unwritten, and their IDs must not count as stored.
      lookup = {keys, existing, earlier: [...this.pending].filter((b) => b.generation === gen)};
      this.pending.add(keys);
    }
    const stale = (): Error => new Error("not written: an earlier batch of the feed failed to commit");
    const prepared = this.containersTail.then(async () => {
      if (gen !== this.generation) throw stale();
      const p = await this.prepare(items, store, lookup, position, derived);
      if (gen !== this.generation) throw stale();
      // Assigned before the write, so the next accept numbers its containers after these.
      for (const [id, n] of p.nexts) this.assigned.set(id, n);
      await this.db.writeContainers(p.containerOps);
      return p;
    });
    // A failure is acted on in the commit chain, after the previous accept's commit: an accept is never failed by
    // one queued behind it.
    const committed = this.commitTail.then(async () => {
      const p = await prepared;
      if (gen !== this.generation) throw stale();
      await this.db.writeMain(p.mainOps);
      for (const [id, n] of p.nexts) this.indexes.get(id)!.next = n;
      return {accepted: p.accepted, duplicates: p.duplicates};
    });
    this.containersTail = prepared.catch(() => {});
    this.commitTail = committed.catch((e: unknown) => {
      if (gen !== this.generation) return;
      this.halted = e instanceof Error ? e : new Error(String(e));
      this.generation++;
      // Indexes assigned to accepts that will not commit are free again.
      this.assigned = new Map();
    });
    if (lookup === null) return committed;
    const keys = lookup.keys;
    return committed.finally(() => this.pending.delete(keys));
  }

  /** Stage 2 of accept, before any write: what to write to each store, and the next indexes after it. */
  private async prepare<T extends AcceptItem>(
    items: readonly T[],
    store: boolean,
    lookup: Lookup | null,
    position: FeedPosition | null,
    derived: DerivedWrites<T> | undefined,
  ): Promise<Prepared<T>> {
    const containerOps: BatchOp[] = [];
    const mainOps: BatchOp[] = [];
    const accepted: AcceptedItem<T>[] = [];
    const nexts = new Map<number, bigint>();
    let duplicates = 0;
    if (lookup !== null) {
      // The ingest hot path (a few µs a container): ID keys are built once, and duplicates are found through a
      // number (the ID's first bytes), with a full compare only when those match.
      const {keys, earlier} = lookup;
      const idKeys = keys.keys;
      const existing = await lookup.existing;
      const slab = new Slab(items.reduce((n, it) => n + 18 + recordSize(it), 0));
      for (let i = 0; i < items.length; i++) {
        const it = items[i]!;
        if (existing[i] !== null || keys.seenBefore(i) || earlier.some((b) => b.has(idKeys[i]!))) {
          duplicates++;
          continue;
        }
        const e = it.endpoint.id;
        const n = nexts.get(e) ?? this.assigned.get(e) ?? this.index(it.endpoint).next;
        const checksum = it.checksum ?? sha256(it.bytes).subarray(28);
        const record = encodeRecord(
          {id: it.id, timestampNs: it.timestampNs, bytes: it.bytes, checksum},
          slab.take(recordSize(it)),
        );
        containerOps.push({type: "put", key: slab.containerKey(e, n), value: record});
        mainOps.push({type: "put", key: idKeys[i]!, value: slab.u64(n)});
        nexts.set(e, n + 1n);
        accepted.push({item: it, index: n});
      }
      for (const [id, n] of nexts) mainOps.push({type: "put", key: key(Bucket.nextIndex, id), value: u64be(n)});
    } else if (!store) {
      for (const it of items) accepted.push({item: it, index: null});
    }
    if (derived) mainOps.push(...derived(accepted));
    if (position) mainOps.push({type: "put", key: key(Bucket.feedPosition, position.key), value: position.value});
    return {containerOps, mainOps, nexts, accepted: store ? accepted.map((a) => a.item) : [], duplicates};
  }

  /**
   * Accepts again after a failure, once the caller has re-read what is committed (the feed position, the chain
   * state) and restarts from there. Accepts still queued from before the failure keep failing.
   */
  resume(): void {
    this.halted = null;
  }

  /** The stored last accepted block of a chain, or null. */
  async chainState(chain: ChainName): Promise<ChainState | null> {
    const v = await this.db.get(key(Bucket.chainState, chain));
    return v === null || v.length !== 40 ? null : {height: readU64be(v), id: v.slice(8)};
  }

  /** The write that stores a chain's last accepted block (see DerivedWrites). */
  static chainStateOp(chain: ChainName, s: ChainState): BatchOp {
    const v = new Uint8Array(40);
    v.set(u64be(s.height), 0);
    v.set(s.id, 8);
    return {type: "put", key: key(Bucket.chainState, chain), value: v};
  }

  /** The stored days of a chain's TPS series, ascending (see Bucket.tpsDay). */
  async tpsDays(chain: ChainName): Promise<Day[]> {
    const prefix = key(Bucket.tpsDay, chain);
    const values = await this.db.values(prefix, key(prefix, u64be(2n ** 64n - 1n), 0xff), Infinity);
    return values.map(decodeDay).filter((d): d is Day => d !== null);
  }

  /** The write that stores a day of a chain's TPS series (see DerivedWrites). */
  static tpsDayOp(chain: ChainName, day: Day): BatchOp {
    return {type: "put", key: key(Bucket.tpsDay, chain, u64be(BigInt(day.start))), value: encodeDay(day)};
  }

  /** The last accepted block the chain's stored days include (see Bucket.tpsDay), or null. */
  async tpsCover(chain: ChainName): Promise<Uint8Array | null> {
    return this.getMeta(TPS_COVER_META + chain);
  }

  /** The write that says the chain's stored days include its blocks up to `blockId` (see DerivedWrites). */
  static tpsCoverOp(chain: ChainName, blockId: Uint8Array): BatchOp {
    return {type: "put", key: key(Bucket.meta, TPS_COVER_META + chain), value: blockId};
  }

  /** Replaces the chain's stored days with `days`, which include its blocks up to `cover` (null: it has none). */
  async replaceTpsDays(chain: ChainName, days: readonly Day[], cover: Uint8Array | null): Promise<void> {
    const ops: BatchOp[] = (await this.tpsDays(chain)).map((d) => ({
      type: "del",
      key: IndexStore.tpsDayOp(chain, d).key,
    }));
    for (const d of days) ops.push(IndexStore.tpsDayOp(chain, d));
    ops.push(
      cover === null
        ? {type: "del", key: key(Bucket.meta, TPS_COVER_META + chain)}
        : IndexStore.tpsCoverOp(chain, cover),
    );
    await this.db.writeMain(ops);
  }

  async feedPosition(sourceKey: string): Promise<Uint8Array | null> {
    return this.db.get(key(Bucket.feedPosition, sourceKey));
  }

  async getFlag(chain: ChainName, flag: ChainFlag): Promise<boolean> {
    return (await this.db.get(key(Bucket.chainFlags, chain, flag))) !== null;
  }

  async setFlag(chain: ChainName, flag: ChainFlag): Promise<void> {
    await this.db.put(key(Bucket.chainFlags, chain, flag), new Uint8Array(0));
  }

  async getMeta(name: string): Promise<Uint8Array | null> {
    return this.db.get(key(Bucket.meta, name));
  }

  async setMeta(name: string, value: Uint8Array = new Uint8Array(0)): Promise<void> {
    await this.db.put(key(Bucket.meta, name), value);
  }

  /** Waits for writes in progress. */
  async flush(): Promise<void> {
    await Promise.all([this.containersTail, this.commitTail]);
  }
}

/**
 * The first index of an endpoint whose record holds a checksum, for a database from before Bucket.checksumsFrom:
 * records of layout 1 come first and those with checksums after them, so a binary search finds the boundary in
 * log2(next) reads. A version that stored checksums without recording where they start only ever existed on the
 * way to this one; a database it wrote is read correctly all the same.
 */
async function firstWithChecksum(db: Database, endpoint: Endpoint, next: bigint): Promise<bigint> {
  let lo = 0n;
  let hi = next;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    const v = await db.get(containerKey(endpoint.id, mid));
    // Every index below next has its record; a missing one means the stores do not match, and guessing would
    // write a wrong boundary.
    if (v === null)
      throw new Error(
        `the index ${endpoint.name} has no record ${mid} in ${db.containersFolder(endpoint.id)} (below its count ${next})`,
      );
    if (holdsChecksum(v)) hi = mid;
    else lo = mid + 1n;
  }
  return lo;
}

/** What one accept writes, built before its writes start. */
interface Prepared<T> {
  /** Container records, for the containers store. */
  containerOps: BatchOp[];
  /** The commit: ID keys, next indexes, derived writes, feed position. */
  mainOps: BatchOp[];
  /** Next index per endpoint after this accept. */
  nexts: Map<number, bigint>;
  accepted: T[];
  duplicates: number;
}

interface Lookup {
  keys: BatchKeys;
  /** The database's answer for each key (null: not stored), asked when the batch was queued. */
  existing: Promise<(Uint8Array | null)[]>;
  /** Batches queued before this one and not yet written when it was asked. */
  earlier: BatchKeys[];
}

/**
 * The ID keys of one batch, findable by a number: bytes 2-5 of the key (the ID's first four bytes) and the
 * endpoint, compared in full only when those match. A string per key cost more than the lookup itself.
 */
class BatchKeys {
  private readonly byPrefix = new Map<number, number[]>();

  constructor(
    readonly keys: readonly Uint8Array[],
    /** The store's generation when the batch was queued. */
    readonly generation: number,
  ) {
    keys.forEach((k, i) => {
      const h = prefix(k);
      const list = this.byPrefix.get(h);
      if (list === undefined) this.byPrefix.set(h, [i]);
      else list.push(i);
    });
  }

  /** Whether the batch holds this key. */
  has(key: Uint8Array): boolean {
    const list = this.byPrefix.get(prefix(key));
    return list?.some((j) => Buffer.compare(this.keys[j]!, key) === 0) ?? false;
  }

  /** Whether the key at `i` appears earlier in the batch (then it is a duplicate within the batch). */
  seenBefore(i: number): boolean {
    const k = this.keys[i]!;
    const list = this.byPrefix.get(prefix(k))!;
    for (const j of list) {
      if (j >= i) return false;
      if (Buffer.compare(this.keys[j]!, k) === 0) return true;
    }
    return false;
  }
}

function prefix(k: Uint8Array): number {
  return ((k[2]! << 24) | (k[3]! << 16) | (k[4]! << 8) | k[5]!) ^ (k[1]! << 3);
}

/** A stored day: start, txs, firstBlock, lastBlock, prevLastBlock (2^64 - 1 for none), each a u64 BE. */
function encodeDay(d: Day): Uint8Array {
  const out = new Uint8Array(40);
  const v = new DataView(out.buffer);
  v.setBigUint64(0, BigInt(d.start));
  v.setBigUint64(8, BigInt(d.txs));
  v.setBigUint64(16, BigInt(d.firstBlock));
  v.setBigUint64(24, BigInt(d.lastBlock));
  v.setBigUint64(32, d.prevLastBlock === null ? NO_PREV : BigInt(d.prevLastBlock));
  return out;
}

/** The day encodeDay stored, or null for a value of another length. */
function decodeDay(b: Uint8Array): Day | null {
  if (b.length !== 40) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const prev = v.getBigUint64(32);
  return {
    start: Number(v.getBigUint64(0)),
    txs: Number(v.getBigUint64(8)),
    firstBlock: Number(v.getBigUint64(16)),
    lastBlock: Number(v.getBigUint64(24)),
    prevLastBlock: prev === NO_PREV ? null : Number(prev),
  };
}

const NO_PREV = 2n ** 64n - 1n;

/** Meta name prefix, then the chain: the last accepted block the chain's stored TPS days include (Bucket.tpsDay). */
const TPS_COVER_META = "tpsDays:";
