/**
 * The container index on LevelDB (contract §6; AvalancheGo indexer/index.go). Per endpoint: the next index,
 * index → container record, id → index. Accepting is one atomic batch that also carries the feed's position,
 * so a crash at any moment leaves either all of a batch or none of it, and replay skips what is already there.
 */
import {Bucket, ChainFlag, containerIndexKey, containerKey, key, readU64be, u64be} from "../db/buckets.js";
import type {BatchOp, Database} from "../db/controller.js";
import type {ChainName} from "../chains/index.js";
import {ENDPOINTS, type Endpoint} from "./endpoints.js";
import {decodeRecord, encodeRecord, type ContainerRecord} from "./record.js";

/** Most containers one getContainerRange returns (AvalancheGo's MaxFetchedByRange). */
export const MAX_FETCHED_BY_RANGE = 1024;

export interface AcceptItem {
  endpoint: Endpoint;
  id: Uint8Array;
  bytes: Uint8Array;
  timestampNs: bigint;
}

export interface FeedPosition {
  key: string;
  value: Uint8Array;
}

export interface StoredContainer extends ContainerRecord {
  index: bigint;
}

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
  ) {}

  async getByIndex(index: bigint): Promise<StoredContainer | null> {
    if (index >= this.next) return null;
    const v = await this.db.get(containerKey(this.endpoint.id, index));
    return v === null ? null : {...decodeRecord(v), index};
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
    const values = await this.db.values(
      containerKey(this.endpoint.id, start),
      containerKey(this.endpoint.id, end),
      n,
    );
    return values.map((v, i) => ({...decodeRecord(v), index: start + BigInt(i)}));
  }
}

export class IndexStore {
  private readonly indexes = new Map<number, EndpointIndex>();
  /** Serialises accepts: the next-index cache assumes one writer at a time. */
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(readonly db: Database) {}

  static async open(db: Database): Promise<IndexStore> {
    const store = new IndexStore(db);
    const nexts = await db.getMany(ENDPOINTS.map((e) => key(Bucket.nextIndex, e.id)));
    ENDPOINTS.forEach((e, i) => store.indexes.set(e.id, new EndpointIndex(e, db, nexts[i] ? readU64be(nexts[i]!) : 0n)));
    return store;
  }

  index(endpoint: Endpoint): EndpointIndex {
    return this.indexes.get(endpoint.id)!;
  }

  /**
   * Accepts containers in order, skipping any whose ID the endpoint already holds (replay after a restart, or a
   * duplicate within the batch), and writes the feed position and the `derived` writes in the same atomic batch.
   * Returns the new containers. When `store` is false (indexing off), nothing is deduplicated or stored: every
   * item is handed to `derived` (with a null index) and only the position and the derived writes are written.
   */
  accept<T extends AcceptItem>(
    items: readonly T[],
    position: FeedPosition | null,
    store = true,
    derived?: DerivedWrites<T>,
  ): Promise<{accepted: T[]; duplicates: number}> {
    const run = this.writing.then(() => this.acceptNow(items, position, store, derived));
    this.writing = run.catch(() => {});
    return run;
  }

  private async acceptNow<T extends AcceptItem>(
    items: readonly T[],
    position: FeedPosition | null,
    store: boolean,
    derived: DerivedWrites<T> | undefined,
  ): Promise<{accepted: T[]; duplicates: number}> {
    const ops: BatchOp[] = [];
    const accepted: AcceptedItem<T>[] = [];
    const nexts = new Map<number, bigint>();
    let duplicates = 0;
    if (store && items.length > 0) {
      // This is the ingest hot path (a few µs a container): keys are built once, and duplicates within the batch
      // are found through a number (the ID's first bytes) rather than a string per container.
      const idKeys = items.map((it) => containerIndexKey(it.endpoint.id, it.id));
      const existing = await this.db.getMany(idKeys);
      const seen = new Map<number, number[]>();
      for (let i = 0; i < items.length; i++) {
        const it = items[i]!;
        if (existing[i] !== null || seenBefore(seen, idKeys, i)) {
          duplicates++;
          continue;
        }
        const e = it.endpoint.id;
        const n = nexts.get(e) ?? this.index(it.endpoint).next;
        ops.push({type: "put", key: containerKey(e, n), value: encodeRecord(it)});
        ops.push({type: "put", key: idKeys[i]!, value: u64be(n)});
        nexts.set(e, n + 1n);
        accepted.push({item: it, index: n});
      }
      for (const [id, n] of nexts) ops.push({type: "put", key: key(Bucket.nextIndex, id), value: u64be(n)});
    } else if (!store) {
      for (const it of items) accepted.push({item: it, index: null});
    }
    if (derived) ops.push(...derived(accepted));
    if (position) ops.push({type: "put", key: key(Bucket.feedPosition, position.key), value: position.value});
    await this.db.batch(ops);
    for (const [id, n] of nexts) this.indexes.get(id)!.next = n;
    return {accepted: store ? accepted.map((a) => a.item) : [], duplicates};
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
    await this.writing;
  }
}

/**
 * Whether the ID key at `i` appeared earlier in the batch (then it is a duplicate); records it otherwise. Keyed by
 * the key's bytes 2-5 (the ID's first four bytes), compared in full only when those match.
 */
function seenBefore(seen: Map<number, number[]>, keys: readonly Uint8Array[], i: number): boolean {
  const k = keys[i]!;
  const h = ((k[2]! << 24) | (k[3]! << 16) | (k[4]! << 8) | k[5]!) ^ (k[1]! << 3);
  const earlier = seen.get(h);
  if (earlier === undefined) {
    seen.set(h, [i]);
    return false;
  }
  for (const j of earlier) if (Buffer.compare(keys[j]!, k) === 0) return true;
  earlier.push(i);
  return false;
}
