/**
 * The database: two `level` (classic-level) instances behind one interface, binary keys and values, reads
 * returning null for a missing key, a database held by another process as a clear, fatal error.
 *
 * Why two: container records are nearly all of the bytes and their keys only grow (endpoint ‖ index), while the
 * ID keys are random. In one LevelDB every flushed table spans both, overlaps every table below it, and each
 * compaction rewrote the stored containers again (7x the bytes flushed for 1M containers, a third of the
 * ingest's CPU). Alone, container tables do not overlap and LevelDB moves them down without rewriting them.
 *
 * - `main` (`<dir>`): every bucket but `container`: ID keys, next indexes, feed positions, chain state, flags.
 *   It is the commit point: a container exists once `main` holds its endpoint's next index past it.
 * - `containers` (`<dir>/containers`): bucket `container` only.
 *
 * A batch writes its container records first, synced, then everything else. A crash (or power loss) between
 * the two leaves records past the committed next index: never read (reads stop at the next index), and
 * overwritten when the feed replays from its committed position. The sync keeps power loss from losing records
 * that `main` already counts; it costs one fdatasync per batch, on the database's thread.
 */
import {mkdir} from "node:fs/promises";
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

/** The folder, inside the main database's, that holds the container records. */
export const CONTAINERS_DIR = "containers";

/** A synchronous read slower than this waited on the disk, ms. */
const SLOW_READ_MS = 1;
const SLOW_READS = 3;
const SLOW_READ_BACKOFF = 1000;

/** Records moved per batch when an older database (containers in `main`) is upgraded. */
const MIGRATE_CHUNK = 10_000;

export interface DatabaseOptions {
  /** A synchronous read slower than this, ms, counts as one that waited on the disk (see Database.get). */
  slowReadMs?: number;
}

export class Database {
  /** How each store is read (see get): per store, as a hot main store and a cold containers one alternate. */
  private readonly mainReads = new ReadMode();
  private readonly containersReads = new ReadMode();
  /** Container records moved out of `main` at open (a database written by an older avaext), for the log. */
  migrated = 0;

  private constructor(
    readonly dir: string,
    private readonly main: RawLevel,
    private readonly containers: RawLevel,
    private readonly slowReadMs: number,
  ) {}

  /** Reads of each store still to be done asynchronously after slow synchronous ones (see get); for tests. */
  get asyncReadsLeft(): {main: number; containers: number} {
    return {main: this.mainReads.asyncLeft, containers: this.containersReads.asyncLeft};
  }

  static async open(dir: string, opts: DatabaseOptions = {}): Promise<Database> {
    // Write buffers (memtables; up to two of each are held) sized on the 1M-container ingest bench: `main` holds
    // ~50 random bytes a container, and a 4 MiB memtable compacted them 60 % more often (CPU) than 8 MiB;
    // container tables are never rewritten (their keys only grow, so tables move down untouched), and 8 MiB
    // ingests as fast as 16 or 32 MiB: 72-77k containers/s either way, with RSS after 1M containers 213-221 MB
    // against 223-253 MB at 16 MiB (the target is 250).
    const main = await openLevel(dir, 8 * 1024 * 1024);
    let containers: RawLevel;
    try {
      containers = await openLevel(path.join(dir, CONTAINERS_DIR), 8 * 1024 * 1024);
    } catch (e) {
      await main.close();
      throw e;
    }
    const db = new Database(dir, main, containers, opts.slowReadMs ?? SLOW_READ_MS);
    try {
      await db.migrate();
    } catch (e) {
      await db.close();
      throw new Error(`cannot move container records to ${path.join(dir, CONTAINERS_DIR)}: ${(e as Error).message}`);
    }
    return db;
  }

  /** `"open"` when both stores are (`level`'s status otherwise: opening, closing, closed). */
  get status(): string {
    return this.main.status === "open" ? this.containers.status : this.main.status;
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
    const mode = isContainerKey(key) ? this.containersReads : this.mainReads;
    const store = this.store(key);
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
      get: (key) => db.store(key).get(key),
      get status() {
        return db.status;
      },
    };
  }

  /** Several keys of one bucket. */
  async getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | null)[]> {
    if (keys.length === 0) return [];
    const store = this.store(keys[0]!);
    if (keys.some((k) => this.store(k) !== store)) throw new Error("getMany: keys of both stores in one call");
    return (await store.getMany(keys as Uint8Array[])).map((v) => v ?? null);
  }

  /** Writes container records, synced; the first half of a batch (see the file comment). */
  async writeContainers(ops: readonly BatchOp[]): Promise<void> {
    await write(this.containers, ops, true, true);
  }

  /** Writes keys of every other bucket atomically; the commit, after the records it counts are written. */
  async writeMain(ops: readonly BatchOp[]): Promise<void> {
    await write(this.main, ops, false, false);
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    await this.store(key).put(key, value, isContainerKey(key) ? {sync: true} : {});
  }

  /** Values of keys in [gte, lt) (one bucket), in key order, at most `limit`. */
  async values(gte: Uint8Array, lt: Uint8Array, limit: number): Promise<Uint8Array[]> {
    // One native round trip for the whole range rather than classic-level's 16 KiB default batches.
    return this.store(gte).values({gte, lt, limit, highWaterMarkBytes: 4 * 1024 * 1024} as never).all();
  }

  /** The database health check: a read of each store that must answer. */
  async probe(): Promise<void> {
    await Promise.all([this.main.get(Uint8Array.of(Bucket.probe)), this.containers.get(Uint8Array.of(Bucket.probe))]);
  }

  async close(): Promise<void> {
    for (const l of [this.containers, this.main]) if (l.status === "open" || l.status === "opening") await l.close();
  }

  private store(key: Uint8Array): RawLevel {
    return isContainerKey(key) ? this.containers : this.main;
  }

  /**
   * Moves container records that an older avaext kept in `main`. Each chunk is written (synced) to `containers`
   * before it is deleted from `main`, so an interrupted move resumes at the next open and loses nothing.
   */
  private async migrate(): Promise<void> {
    const lt = Uint8Array.of(Bucket.container + 1);
    let after: Uint8Array | null = null;
    for (;;) {
      // From the last key moved: a fresh seek from the bucket's start would step over the deletions of every
      // chunk before (quadratic in the records moved).
      const range: {gte?: Uint8Array; gt?: Uint8Array; lt: Uint8Array} = after === null ? {gte: Uint8Array.of(Bucket.container), lt} : {gt: after, lt};
      const entries: [Uint8Array, Uint8Array][] = await this.main.iterator({...range, limit: MIGRATE_CHUNK}).all();
      if (entries.length === 0) break;
      const c = this.containers.batch();
      const m = this.main.batch();
      for (const [k, v] of entries) {
        c.put(k, v);
        m.del(k);
      }
      await c.write({sync: true});
      await m.write();
      this.migrated += entries.length;
      after = entries[entries.length - 1]![0];
    }
    // The deletions would otherwise be stepped over by the next reads of that range until compactions drop them.
    if (this.migrated > 0) await (this.main as unknown as ClassicLevelCompaction).compactRange(Uint8Array.of(Bucket.container), lt);
  }
}

async function write(level: RawLevel, ops: readonly BatchOp[], containers: boolean, sync: boolean): Promise<void> {
  if (ops.length === 0) return;
  // A chained batch rather than level.batch(array): the array form validates and copies every operation object
  // and then reads its properties through N-API one by one, which costs the main thread about twice as much
  // per container on the ingest path (bench/: 11 µs vs 6 µs for a 1 KiB container's two writes).
  const b = level.batch();
  for (const op of ops) {
    if (isContainerKey(op.key) !== containers) {
      await b.close();
      throw new Error(`key of bucket ${op.key[0]} written to the ${containers ? "containers" : "main"} store`);
    }
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

async function openLevel(dir: string, writeBufferSize: number): Promise<RawLevel> {
  await mkdir(path.dirname(dir), {recursive: true});
  const level = new Level<Uint8Array, Uint8Array>(dir, {keyEncoding: "view", valueEncoding: "view", writeBufferSize});
  try {
    await level.open();
  } catch (e) {
    const cause = (e as {cause?: {code?: string}}).cause;
    if ((e as {code?: string}).code === "LEVEL_LOCKED" || cause?.code === "LEVEL_LOCKED") throw new DatabaseLockedError(dir);
    throw new Error(`cannot open database ${dir}: ${(e as Error).message}`);
  }
  return level;
}
