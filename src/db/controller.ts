/**
 * The database: `level` (classic-level) instances behind one interface, binary keys and values, reads returning
 * null for a missing key, a database held by another process as a clear, fatal error.
 *
 * Why several: container records are nearly all of the bytes, and within one endpoint their keys only grow
 * (endpoint ‖ index), while the ID keys are random. LevelDB moves a flushed table down without rewriting it only
 * when no table below overlaps it. In one store with the ID keys, every table overlapped every other, and
 * compactions rewrote the stored containers 7 times over. In one containers store for all endpoints, each flushed
 * table still spanned every endpoint's range, and compactions wrote 4.6 GB for 1 GB of containers (the busiest
 * thread at 1M containers, bench/index.mjs). With a store per endpoint, no container table is ever rewritten.
 *
 * - `main` (`<dir>`): every bucket but `container`: ID keys, next indexes, feed positions, chain state, flags.
 *   It is the commit point: a container exists once `main` holds its endpoint's next index past it.
 * - one containers store per endpoint (`<dir>/containers/<chain>-<kind>`): bucket `container` of that endpoint.
 *
 * A batch writes its container records first, synced, then everything else. A crash (or power loss) between
 * the two leaves records past the committed next index: never read (reads stop at the next index), and
 * overwritten when the feed replays from its committed position. The sync keeps power loss from losing records
 * that `main` already counts; it costs one fdatasync per store written, on the database's threads.
 *
 * Older layouts are converted at open, resumably: records in `main` (the first layout), or in one LevelDB at
 * `<dir>/containers` (the second, renamed to `<dir>/containers.moving` while its records move).
 */
import {existsSync} from "node:fs";
import {mkdir, rename, rm} from "node:fs/promises";
import path from "node:path";
import {Level} from "level";
import {Bucket} from "./buckets.js";

export type BatchOp = {type: "put"; key: Uint8Array; value: Uint8Array} | {type: "del"; key: Uint8Array};

type RawLevel = Level<Uint8Array, Uint8Array>;
/** classic-level's compactRange, which `level`'s types do not carry. */
interface ClassicLevelCompaction {
  compactRange(start: Uint8Array, end: Uint8Array): Promise<void>;
}

export class DatabaseLockedError extends Error {
  constructor(dir: string) {
    super(`database ${dir} is locked by another process (is another avaext running with this --db-dir?)`);
    this.name = "DatabaseLockedError";
  }
}

/** The folder, inside the main database's, that holds the containers stores (one folder each). */
export const CONTAINERS_DIR = "containers";
/** Where the second layout's single containers store is while its records move (see the file comment). */
const MOVING_DIR = "containers.moving";

/** A containers store: its endpoint's key byte, and its folder under CONTAINERS_DIR. */
interface ContainersStore {
  endpoint: number;
  folder: string;
  level: RawLevel;
}

/** A synchronous read slower than this waited on the disk, ms. */
const SLOW_READ_MS = 1;
const SLOW_READS = 3;
const SLOW_READ_BACKOFF = 1000;

/** Records moved per batch when an older database layout is converted. */
const MIGRATE_CHUNK = 10_000;
/** The main store's memtable, bytes (see open). */
const MAIN_WRITE_BUFFER = 8 * 1024 * 1024;
/** Each containers store's memtable and block cache, bytes: five stores share what one store had. */
const CONTAINERS_WRITE_BUFFER = 4 * 1024 * 1024;
const CONTAINERS_CACHE = 2 * 1024 * 1024;

/** A containers store the caller names (src/containerIndex/database.ts: one per index endpoint). */
export interface ContainersStoreSpec {
  /** The key byte of its records (their keys are endpoint byte ‖ index); never reused. */
  id: number;
  /** `P/block`: its folder is `<dir>/containers/P-block`. */
  name: string;
}

export interface DatabaseOptions {
  /** The containers stores, one per endpoint whose records they hold (see the file comment). */
  containersStores: readonly ContainersStoreSpec[];
  /** A synchronous read slower than this, ms, counts as one that waited on the disk (see Database.get). */
  slowReadMs?: number;
}

export class Database {
  /** How each kind of store is read (see get): the hot main store and the cold containers stores alternate. */
  private readonly mainReads = new ReadMode();
  private readonly containersReads = new ReadMode();
  /** Container records moved at open from an older layout (see the file comment), for the log. */
  migrated = 0;
  /** The containers stores by endpoint key byte. */
  private readonly byEndpoint: (RawLevel | undefined)[] = [];

  private constructor(
    readonly dir: string,
    private readonly main: RawLevel,
    private readonly containers: readonly ContainersStore[],
    private readonly slowReadMs: number,
  ) {
    for (const c of containers) this.byEndpoint[c.endpoint] = c.level;
  }

  /** Reads of each kind of store still to be done asynchronously after slow synchronous ones (see get); for tests. */
  get asyncReadsLeft(): {main: number; containers: number} {
    return {main: this.mainReads.asyncLeft, containers: this.containersReads.asyncLeft};
  }

  static async open(dir: string, opts: DatabaseOptions): Promise<Database> {
    // Write buffers (memtables; up to two of each store are held) sized on the 1M-container ingest bench: `main`
    // holds ~50 random bytes a container, and a 4 MiB memtable compacted them 60 % more often (CPU) than 8 MiB.
    // Container tables are never rewritten, so their memtable size only sets how many tables there are.
    const main = await openLevel(dir, MAIN_WRITE_BUFFER);
    const opened: ContainersStore[] = [];
    try {
      const moving = path.join(dir, MOVING_DIR);
      // The second layout: one LevelDB at `containers`. Renamed (atomically) first, so an interrupted move finds
      // it again, and the new stores can take the folder's name.
      if (existsSync(path.join(dir, CONTAINERS_DIR, "CURRENT"))) await rename(path.join(dir, CONTAINERS_DIR), moving);
      for (const e of opts.containersStores) {
        const folder = path.join(dir, CONTAINERS_DIR, e.name.replace("/", "-"));
        opened.push({
          endpoint: e.id,
          folder,
          level: await openLevel(folder, CONTAINERS_WRITE_BUFFER, CONTAINERS_CACHE),
        });
      }
    } catch (e) {
      for (const c of opened) await c.level.close();
      await main.close();
      throw e;
    }
    const db = new Database(dir, main, opened, opts.slowReadMs ?? SLOW_READ_MS);
    try {
      await db.migrate(main, true);
      await db.migrateMoving();
    } catch (e) {
      await db.close();
      throw new Error(`cannot move container records to ${path.join(dir, CONTAINERS_DIR)}: ${(e as Error).message}`);
    }
    return db;
  }

  /** The folder of an endpoint's containers store (for messages). */
  containersFolder(endpoint: number): string {
    return this.containers.find((c) => c.endpoint === endpoint)?.folder ?? path.join(this.dir, CONTAINERS_DIR);
  }

  /** `"open"` when every store is (`level`'s status of the first that is not otherwise: opening, closing, closed). */
  get status(): string {
    for (const l of this.levels()) if (l.status !== "open") return l.status;
    return "open";
  }

  isOpen(): boolean {
    return this.status === "open";
  }

  /**
   * One key. Read synchronously while reads are fast: from the OS page cache a LevelDB read takes ~2 µs, while
   * the thread-pool hop of an asynchronous read cost 15-70 µs of the main thread under load (a fifth of an
   * uncached getContainerByIndex). Reads that wait on the disk (a cold index) would stall the event loop, so
   * SLOW_READS slow ones in a row switch the next SLOW_READ_BACKOFF reads to asynchronous ones. One slow read
   * alone does not: the first read of a table opens it, and the thread may be descheduled under load.
   */
  async get(key: Uint8Array): Promise<Uint8Array | null> {
    const store = this.store(key);
    if (store === undefined) return null;
    const mode = isContainerKey(key) ? this.containersReads : this.mainReads;
    if (mode.asyncLeft > 0) {
      mode.asyncLeft--;
      return (await store.get(key)) ?? null;
    }
    const t = performance.now();
    const v = store.getSync(key);
    mode.took(performance.now() - t, this.slowReadMs);
    return v ?? null;
  }

  /** Raw reads for admin.dbGet: undefined when missing, and the status `level` reports. */
  rawReader(): {get(key: Uint8Array): Promise<Uint8Array | undefined>; readonly status: string} {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const db = this;
    return {
      get: async (key) => db.store(key)?.get(key),
      get status() {
        return db.status;
      },
    };
  }

  /** Several keys of one store (the main store, or one endpoint's containers). */
  async getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | null)[]> {
    if (keys.length === 0) return [];
    const store = this.store(keys[0]!);
    if (keys.some((k) => this.store(k) !== store)) throw new Error("getMany: keys of several stores in one call");
    if (store === undefined) return keys.map(() => null);
    return (await store.getMany(keys as Uint8Array[])).map((v) => v ?? null);
  }

  /** Writes container records, synced, each endpoint's to its store; the first half of a batch (see the file comment). */
  async writeContainers(ops: readonly BatchOp[]): Promise<void> {
    const batches = new Map<RawLevel, BatchOp[]>();
    for (const op of ops) {
      if (!isContainerKey(op.key)) throw new Error(`key of bucket ${op.key[0]} written to a containers store`);
      const store = this.byEndpoint[op.key[1]!];
      if (store === undefined) throw new Error(`container key of unknown endpoint ${op.key[1]}`);
      const list = batches.get(store);
      if (list === undefined) batches.set(store, [op]);
      else list.push(op);
    }
    await Promise.all([...batches].map(([store, list]) => write(store, list, true)));
  }

  /** Writes keys of every other bucket atomically; the commit, after the records it counts are written. */
  async writeMain(ops: readonly BatchOp[]): Promise<void> {
    for (const op of ops) if (isContainerKey(op.key)) throw new Error("container key written to the main store");
    await write(this.main, ops, false);
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    const store = this.store(key);
    if (store === undefined) throw new Error(`container key of unknown endpoint ${key[1]}`);
    await store.put(key, value, isContainerKey(key) ? {sync: true} : {});
  }

  /** Values of keys in [gte, lt) (one store), in key order, at most `limit`. */
  async values(gte: Uint8Array, lt: Uint8Array, limit: number): Promise<Uint8Array[]> {
    const store = this.store(gte);
    if (store === undefined) return [];
    // One native round trip for the whole range rather than classic-level's 16 KiB default batches.
    return store.values({gte, lt, limit, highWaterMarkBytes: 4 * 1024 * 1024} as never).all();
  }

  /** The database health check: a read of each store that must answer. */
  async probe(): Promise<void> {
    await Promise.all(this.levels().map((l) => l.get(Uint8Array.of(Bucket.probe))));
  }

  async close(): Promise<void> {
    for (const l of this.levels().reverse()) if (l.status === "open" || l.status === "opening") await l.close();
  }

  private levels(): RawLevel[] {
    return [this.main, ...this.containers.map((c) => c.level)];
  }

  /** The store of a key; undefined for a container key of no known endpoint. */
  private store(key: Uint8Array): RawLevel | undefined {
    return isContainerKey(key) ? this.byEndpoint[key[1]!] : this.main;
  }

  /**
   * Moves the container records that `from` holds (the main store of the first layout, or the second layout's
   * single containers store) to their endpoints' stores. Each chunk is written (synced) before it is deleted from
   * `from`, so an interrupted move resumes at the next open and loses nothing.
   */
  private async migrate(from: RawLevel, compact: boolean): Promise<void> {
    const lt = Uint8Array.of(Bucket.container + 1);
    let after: Uint8Array | null = null;
    let moved = 0;
    for (;;) {
      // From the last key moved: a fresh seek from the bucket's start would step over the deletions of every
      // chunk before (quadratic in the records moved).
      const range: {gte?: Uint8Array; gt?: Uint8Array; lt: Uint8Array} =
        after === null ? {gte: Uint8Array.of(Bucket.container), lt} : {gt: after, lt};
      const entries: [Uint8Array, Uint8Array][] = await from.iterator({...range, limit: MIGRATE_CHUNK}).all();
      if (entries.length === 0) break;
      // A record of an endpoint this version does not know would be lost: refuse rather than drop it.
      await this.writeContainers(entries.map(([key, value]) => ({type: "put", key, value})));
      const m = from.batch();
      for (const [k] of entries) m.del(k);
      await m.write();
      moved += entries.length;
      after = entries[entries.length - 1]![0];
    }
    this.migrated += moved;
    // The deletions would otherwise be stepped over by the next reads of that range until compactions drop them.
    if (moved > 0 && compact)
      await (from as unknown as ClassicLevelCompaction).compactRange(Uint8Array.of(Bucket.container), lt);
  }

  /** Moves the second layout's records (see open), then removes its store. */
  private async migrateMoving(): Promise<void> {
    const dir = path.join(this.dir, MOVING_DIR);
    if (!existsSync(dir)) return;
    const old = await openLevel(dir, 4 * 1024 * 1024);
    try {
      await this.migrate(old, false);
    } finally {
      await old.close();
    }
    await rm(dir, {recursive: true, force: true});
  }
}

async function write(level: RawLevel, ops: readonly BatchOp[], sync: boolean): Promise<void> {
  if (ops.length === 0) return;
  // A chained batch rather than level.batch(array): the array form validates and copies every operation object
  // and then reads its properties through N-API one by one, which costs the main thread about twice as much
  // per container on the ingest path (bench/: 11 µs vs 6 µs for a 1 KiB container's two writes).
  const b = level.batch();
  for (const op of ops) {
    if (op.type === "put") b.put(op.key, op.value);
    else b.del(op.key);
  }
  await b.write({sync});
}

/** Whether a store's reads are synchronous: SLOW_READS slow ones in a row switch it to SLOW_READ_BACKOFF async ones. */
class ReadMode {
  asyncLeft = 0;
  private slowInARow = 0;

  took(ms: number, slowMs: number): void {
    if (ms <= slowMs) {
      this.slowInARow = 0;
    } else if (++this.slowInARow >= SLOW_READS) {
      this.slowInARow = 0;
      this.asyncLeft = SLOW_READ_BACKOFF;
    }
  }
}

function isContainerKey(key: Uint8Array): boolean {
  return key[0] === Bucket.container;
}

async function openLevel(dir: string, writeBufferSize: number, cacheSize?: number): Promise<RawLevel> {
  await mkdir(path.dirname(dir), {recursive: true});
  const level = new Level<Uint8Array, Uint8Array>(dir, {
    keyEncoding: "view",
    valueEncoding: "view",
    writeBufferSize,
    ...(cacheSize === undefined ? {} : {cacheSize}),
  });
  try {
    await level.open();
  } catch (e) {
    const cause = (e as {cause?: {code?: string}}).cause;
    if ((e as {code?: string}).code === "LEVEL_LOCKED" || cause?.code === "LEVEL_LOCKED")
      throw new DatabaseLockedError(dir);
    throw new Error(`cannot open database ${dir}: ${(e as Error).message}`);
  }
  return level;
}
