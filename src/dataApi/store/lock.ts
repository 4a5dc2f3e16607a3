/**
 * One writer per store.
 *
 * - PostgreSQL server: a session-level `pg_try_advisory_lock` on a fixed 64-bit key, taken on a dedicated
 *   connection that stays open until release (the lock dies with the connection, so a crashed writer frees it).
 *   Advisory locks are per database: one writer per database. A refusal names the holder from `pg_locks` and
 *   `pg_stat_activity` (application_name `avaext <hostname> pid <pid>`, backend pid, client address). When that
 *   connection ends before release (a server restart, `pg_terminate_backend`, the network), the lock is gone and
 *   another process may take it: the client's writes are fenced at once (PgSqlClient.fenceWrites: every later
 *   transaction, and one about to commit, is refused) and `onLost` is told.
 * - PGlite: the database is in this process and two processes must never open one data directory, so a lock file
 *   `<dataDir>/avaext-writer.lock` holds the owner's PID; it is refused while that PID is alive and taken over when
 *   it is dead. A PGlite in memory needs no lock.
 */
import {link, open, readFile, unlink} from "node:fs/promises";
import path from "node:path";
import type pg from "pg";
import type {NetworkInfo} from "../../chains/index.js";
import {checkStoreNetwork} from "./network.js";
import {PgSqlClient} from "./pg.js";
import type {SqlClient} from "./sql.js";

/** "avaext" + 0x0001, the advisory lock key of the data API's writer. */
export const WRITER_LOCK_KEY = 0x6176_6165_7874_0001n;
/** The lock file's name inside PGlite's data directory. */
export const LOCK_FILE_NAME = "avaext-writer.lock";

export interface WriterLock {
  /** Frees the lock (idempotent). Closing the SqlClient frees it too. */
  release(): Promise<void>;
}

export interface WriterLockOptions {
  /** PGlite's data directory (where the lock file goes); null = in memory. Unused with a server. */
  dataDir: string | null;
  /**
   * Server only: called once if the lock's connection ends before release (server restart, backend killed, network):
   * the lock is gone and another writer may take it, so the caller must stop writing.
   */
  onLost?: (err: Error) => void;
}

/** Thrown when another writer holds the store; the message names it. */
export class WriterLockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WriterLockError";
  }
}

/** Takes the store's writer lock or throws WriterLockError. */
export async function acquireWriterLock(client: SqlClient, opts: WriterLockOptions): Promise<WriterLock> {
  if (client instanceof PgSqlClient) return acquireAdvisory(client, opts.onLost);
  if (opts.dataDir === null) return {release: async () => undefined};
  return acquireLockFile(path.join(opts.dataDir, LOCK_FILE_NAME));
}

/**
 * Runs `work` as the store's writer for its length (a rebuild, the genesis thread; an ingest process holds the lock
 * as long as it runs, dataApi/service.ts): under the writer lock, a store of another network refused before
 * `prepare` (its migrations) touches it, and the network recorded after.
 */
export async function asWriter<T>(
  sql: SqlClient,
  o: {dataDir: string | null; network: NetworkInfo},
  prepare: () => Promise<unknown>,
  work: () => Promise<T>,
): Promise<T> {
  const lock = await acquireWriterLock(sql, {dataDir: o.dataDir});
  try {
    await checkStoreNetwork(sql, o.network, {record: false});
    await prepare();
    await checkStoreNetwork(sql, o.network, {record: true});
    return await work();
  } finally {
    await lock.release();
  }
}

/**
 * A server writer's fence beside the lock: after taking the lock (and migrating), the writer bumps the store's
 * writer epoch (`data_api_meta` key `writerEpoch`) and checks it at the start of each of its transactions
 * (PgSqlClient.guardWrites). A successor's bump waits for the old writer's transactions in flight, and the old
 * writer's next one sees the new epoch and is refused: told through `onStale`. PGlite (one process) needs none.
 * Taken before migrating too (a store that has its meta table), so an old writer's last transactions end before a
 * migration runs; a fresh store has no writer to fence.
 */
export async function takeWriterEpoch(client: SqlClient, onStale: (err: Error) => void): Promise<void> {
  if (!(client instanceof PgSqlClient)) return;
  const [meta] = await client.query<{t: string | null}>("SELECT to_regclass('data_api_meta')::text AS t");
  if (!meta?.t) return;
  const [row] = await client.query<{value: string}>(
    `INSERT INTO data_api_meta (key, value) VALUES ('writerEpoch', '1')
     ON CONFLICT (key) DO UPDATE SET value = (data_api_meta.value::int8 + 1)::text RETURNING value`,
  );
  client.guardWrites(row!.value, onStale);
}

// ---- PostgreSQL ----

const KEY_HIGH = Number(WRITER_LOCK_KEY >> 32n);
const KEY_LOW = Number(WRITER_LOCK_KEY & 0xffff_ffffn);

async function acquireAdvisory(client: PgSqlClient, onLost?: (err: Error) => void): Promise<WriterLock> {
  const conn = await client.dedicatedConnection();
  try {
    const res = await conn.query<{locked: boolean}>("SELECT pg_try_advisory_lock($1::int8) AS locked", [
      WRITER_LOCK_KEY,
    ]);
    if (res.rows[0]?.locked !== true) throw new WriterLockError(await holderMessage(conn));
  } catch (err) {
    await conn.end().catch(() => undefined);
    throw err;
  }
  let released = false;
  let lost = false;
  const lose = (err: Error): void => {
    // Closing the client ends the connection on purpose: no loss to report.
    if (released || lost || client.closed) return;
    lost = true;
    client.fenceWrites(err);
    onLost?.(err);
  };
  conn.on("error", lose);
  conn.on("end", () => lose(new Error("the writer lock's connection ended")));
  return {
    release: async (): Promise<void> => {
      if (released) return;
      released = true;
      // Unlock explicitly: ending the session frees the lock only once its backend has exited, a moment later.
      await conn.query("SELECT pg_advisory_unlock($1::int8)", [WRITER_LOCK_KEY]).catch(() => undefined);
      await conn.end().catch(() => undefined);
    },
  };
}

async function holderMessage(conn: pg.Client): Promise<string> {
  // A bigint key shows in pg_locks as classid = high 32 bits, objid = low 32 bits, objsubid = 1.
  const res = await conn.query<{application_name: string | null; pid: number; client_addr: string | null}>(
    `SELECT a.application_name, a.pid, host(a.client_addr) AS client_addr
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.classid = $1::int8::oid AND l.objid = $2::int8::oid
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [KEY_HIGH, KEY_LOW],
  );
  const h = res.rows[0];
  const base = "the data API store is locked by another writer";
  if (!h) return `${base} (holder not visible to this role)`;
  const app = h.application_name ? `"${h.application_name}"` : "(no application_name)";
  return `${base}: ${app}, backend pid ${h.pid}, client ${h.client_addr ?? "local socket"}`;
}

// ---- PGlite lock file ----

async function acquireLockFile(file: string): Promise<WriterLock> {
  const own = String(process.pid);
  // Two tries: the second after removing a dead owner's file.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await createWithContent(file, `${own}\n`);
      let released = false;
      return {
        release: async (): Promise<void> => {
          if (released) return;
          released = true;
          // Only our own file: a taker-over after a mistaken "dead" verdict must keep its lock.
          const content = await readFile(file, "utf8").catch(() => "");
          if (content.trim() === own) await unlink(file).catch(() => undefined);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const content = (await readFile(file, "utf8").catch(() => "")).trim();
    const pid = Number(content);
    if (Number.isSafeInteger(pid) && pid > 0 && isAlive(pid)) {
      throw new WriterLockError(
        `the data API store ${path.dirname(file)} is in use by process ${pid}${pid === process.pid ? " (this process)" : ""} ` +
          `(lock file ${file})`,
      );
    }
    // Dead owner, or content that is no PID (the file is always written whole, so not a writer mid-way): stale.
    await unlink(file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "ENOENT") throw e;
    });
  }
  throw new WriterLockError(`could not take the lock file ${file}: another process took it at the same time`);
}

/** Creates `file` with `content`, or fails with EEXIST; never visible empty or half-written (link is atomic). */
async function createWithContent(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fh = await open(tmp, "wx");
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await link(tmp, file);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
