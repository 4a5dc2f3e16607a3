/**
 * The `pg` driver: a pool of connections to a PostgreSQL server, with named statements, the writer lock's fence
 * (lock.ts) and cancellation of an aborted request's statement. Rows come back as the store's contract gives them
 * (sql.ts).
 */
import {createHash} from "node:crypto";
import {hostname} from "node:os";
import pg from "pg";
import type {Logger} from "../../logger/index.js";
import {
  OID_BYTEA,
  OID_BYTEA_ARRAY,
  OID_INT8,
  OID_INT8_ARRAY,
  PREPARED_TEXTS,
  stalePreparedStatement,
} from "./driverCommon.js";
import {requestAborted, type SqlClient, type SqlClientModules, type SqlTx} from "./sql.js";

/** `application_name` of this process's connections, which the writer lock's refusal shows. */
export function applicationName(reads = false): string {
  // PostgreSQL truncates application_name to 63 bytes. The API's reads (a pool with a statement timeout) say so,
  // for an operator reading pg_stat_activity.
  return `avaext${reads ? " reads" : ""} ${hostname()} pid ${process.pid}`.slice(0, 63);
}

type PgParser = (value: string) => unknown;

/** pg's default parsers with the store's choices for int8 and bytea (see the file's comment). */
const PG_TYPES = {
  getTypeParser(oid: number, format?: "text" | "binary"): PgParser {
    const base = pg.types.getTypeParser(oid, format ?? "text") as PgParser;
    switch (oid) {
      case OID_INT8:
        return (v) => BigInt(v);
      case OID_INT8_ARRAY:
        return (v) => mapArray(base(v), (s) => BigInt(s as string));
      case OID_BYTEA:
        return (v) => toUint8Array(base(v) as Buffer);
      case OID_BYTEA_ARRAY:
        return (v) => mapArray(base(v), (b) => toUint8Array(b as Buffer));
      default:
        return base;
    }
  },
};

function toUint8Array(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function mapArray(value: unknown, f: (v: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => mapArray(v, f));
  return value === null ? null : f(value);
}

/** A write refused because this process lost the store's writer lock (store/lock.ts): another may write now. */
export class WritesFencedError extends Error {
  constructor(cause: Error) {
    super(`the data API store's writer lock was lost (${cause.message}): this process writes no more`, {cause});
    this.name = "WritesFencedError";
  }
}

/** A statement that writes: it is refused once writes are fenced (a `WITH` that writes counts, a read does not). */
const WRITE_RE = /^\s*(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|CREATE|ALTER|DROP|COPY|VACUUM|ANALYZE|REINDEX|CLUSTER)\b/i;
const WITH_WRITE_RE = /^\s*WITH\b[\s\S]*\b(INSERT|UPDATE|DELETE|MERGE)\b/i;

export class PgSqlClient implements SqlClient {
  readonly kind = "postgres" as const;
  readonly offThread = true;
  readonly dataDir = null;
  private readonly dedicated = new Set<pg.Client>();
  private readonly names = new Map<string, string>();
  private renames = 0;
  private closing = false;
  private fenced: WritesFencedError | null = null;
  /** The writer epoch this process took (lock.ts takeWriterEpoch), checked by every transaction; null: none. */
  private epoch: {value: string; onStale: (err: Error) => void} | null = null;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly logger: Logger,
    private readonly signal?: () => AbortSignal | undefined,
  ) {}

  static async open(
    url: string,
    poolSize: number,
    modules: SqlClientModules,
    statementTimeoutMs = 0,
  ): Promise<PgSqlClient> {
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      application_name: applicationName(modules.signal !== undefined),
      types: PG_TYPES,
    });
    // Set on each new connection, before its first statement (a client runs its statements in order), not as a
    // startup parameter: PgBouncer refuses unknown startup parameters. Behind PgBouncer's transaction pooling a
    // session setting does not hold: see docs/operations/scaling.md.
    if (statementTimeoutMs > 0)
      pool.on(
        "connect",
        (c) => void c.query(`SET statement_timeout = ${Math.floor(statementTimeoutMs)}`).catch(() => undefined),
      );
    // An idle client whose connection breaks emits on the pool; without a listener that would crash the process.
    pool.on("error", (err) => modules.logger.warn({err: err.message}, "PostgreSQL idle connection error"));
    // Fail now, with the server's reason, rather than at the first query.
    const c = await pool.connect().catch(async (err: unknown) => {
      await pool.end().catch(() => undefined);
      throw err;
    });
    c.release();
    modules.logger.debug({poolSize}, "PostgreSQL pool opened");
    return new PgSqlClient(pool, url, modules.logger, modules.signal);
  }

  /**
   * Refuses every later write (transactions, scripts, writing statements) with WritesFencedError: the writer lock is
   * lost (store/lock.ts), and another process may hold it and write now. Reads go on.
   */
  fenceWrites(cause: Error): void {
    this.fenced ??= new WritesFencedError(cause);
  }

  /**
   * Checks `epoch` at the start of every later transaction (lock.ts takeWriterEpoch): a store whose epoch moved on
   * has another writer, and the transaction is refused (writes fenced, `onStale` told) before it writes anything.
   */
  guardWrites(epoch: string, onStale: (err: Error) => void): void {
    this.epoch = {value: epoch, onStale};
  }

  /** Why writes are refused, or null. */
  get writesFenced(): WritesFencedError | null {
    return this.fenced;
  }

  private checkFence(sql?: string): void {
    if (this.fenced && (sql === undefined || WRITE_RE.test(sql) || WITH_WRITE_RE.test(sql))) throw this.fenced;
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    this.checkFence(sql);
    const signal = this.signal?.();
    if (!signal) return this.run<T>(this.pool, sql, params);
    if (signal.aborted) throw requestAborted();
    // On a connection of its own, so that its statement can be cancelled if the request aborts while it runs.
    const conn = await this.pool.connect();
    const cancel = (): void => this.cancel(conn);
    signal.addEventListener("abort", cancel, {once: true});
    try {
      // Aborted while waiting for the connection: not sent at all.
      if (signal.aborted) throw requestAborted();
      return await this.run<T>(conn, sql, params);
    } finally {
      signal.removeEventListener("abort", cancel);
      // A connection whose request aborted is closed, not handed back: a cancel still on its way would otherwise
      // land on the next request's statement.
      conn.release(signal.aborted);
    }
  }

  private async run<T>(on: pg.Pool | pg.PoolClient, sql: string, params?: unknown[]): Promise<T[]> {
    const name = params ? this.statementName(sql) : undefined;
    try {
      const res = await on.query(name ? {name, text: sql, values: params} : {text: sql, values: params});
      return res.rows as T[];
    } catch (e) {
      // A statement prepared before its tables changed (a rebuild, a newer writer's migration) fails on every
      // connection that prepared it ("cached plan must not change result type"): give the text a new name, so each
      // connection prepares it afresh, and run it again once.
      if (!name || !stalePreparedStatement(e)) throw e;
      const renamed = `${name}_${++this.renames}`;
      this.names.set(sql, renamed);
      const res = await on.query({name: renamed, text: sql, values: params});
      return res.rows as T[];
    }
  }

  /**
   * Cancels the statement `conn` runs, by the protocol's CancelRequest (pg's Client.cancel: a connection that sends
   * the backend's key and closes, with no login), which PgBouncer passes on too. Failing to cancel only lets the
   * statement finish.
   */
  private cancel(conn: pg.PoolClient): void {
    const c = conn as unknown as {activeQuery?: unknown};
    if (!c.activeQuery) return;
    try {
      const canceller = new pg.Client({connectionString: this.url}) as unknown as {
        connection: {on(e: string, f: () => void): void};
        cancel(client: unknown, query: unknown): void;
      };
      // The cancel's own connection is never connect()ed as a client: its socket's errors are heard here, or they
      // would be an unhandled 'error' event.
      canceller.connection.on("error", () => undefined);
      canceller.cancel(conn, c.activeQuery);
    } catch (err) {
      this.logger.debug({err: (err as Error).message}, "PostgreSQL: could not cancel an aborted request's statement");
    }
  }

  /**
   * A name for a parameterised statement outside transactions (the API's reads): each connection then parses it
   * once and the server can keep its plan, instead of parsing and planning it at every request (2-3 ms for a
   * list's statements, measured). The first PREPARED_TEXTS distinct texts get names; later ones run unnamed, so a
   * statement text built from data can never fill the connections' statement caches.
   */
  private statementName(sql: string): string | undefined {
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < PREPARED_TEXTS) {
      name = `avaext_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}`;
      this.names.set(sql, name);
    }
    return name;
  }

  async exec(sql: string): Promise<void> {
    this.checkFence();
    // Without parameters pg uses the simple protocol, which runs a multi-statement script.
    await this.pool.query(sql);
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    this.checkFence();
    const conn = await this.pool.connect();
    // Statements of the transaction run one after another on this connection, never interleaved: a caller that
    // fires two without awaiting gets them queued in order by pg's client.
    const tx: SqlTx = {
      query: async <R>(sql: string, params?: unknown[]): Promise<R[]> => (await conn.query(sql, params)).rows as R[],
      exec: async (sql: string): Promise<void> => {
        await conn.query(sql);
      },
    };
    let broken: Error | undefined;
    try {
      await conn.query("BEGIN");
      if (this.epoch) await this.checkEpoch(conn, this.epoch);
      const result = await fn(tx);
      // A loss noticed while the transaction ran: roll it back rather than commit beside another writer.
      this.checkFence();
      await conn.query("COMMIT");
      return result;
    } catch (err) {
      try {
        await conn.query("ROLLBACK");
      } catch (rollbackErr) {
        // The connection is unusable: destroy it rather than hand it back to the pool.
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      }
      throw err;
    } finally {
      conn.release(broken);
    }
  }

  /**
   * The store's writer epoch, read FOR SHARE: a new writer's bump (an UPDATE of that row) waits for this
   * transaction to end, and every transaction after it sees the new epoch. So no write of this process commits after
   * another writer has taken the store, even when the loss of the lock's session was never reported here (an idle
   * connection dropped silently by the network or a proxy).
   */
  private async checkEpoch(conn: pg.PoolClient, epoch: {value: string; onStale: (err: Error) => void}): Promise<void> {
    const r = await conn.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = 'writerEpoch' FOR SHARE");
    const now = r.rows[0]?.value;
    if (now === epoch.value) return;
    const err = new Error(
      `another writer took the store (writer epoch ${now ?? "none"}, this process's ${epoch.value})`,
    );
    this.fenceWrites(err);
    epoch.onStale(err);
    throw this.fenced!;
  }

  /**
   * A connection outside the pool, for the life of the process (the writer lock's session). The caller may end it;
   * close() ends it otherwise.
   */
  async dedicatedConnection(): Promise<pg.Client> {
    if (this.closing) throw new Error("the SQL client is closed");
    // TCP keepalive, and no idle-session timeout: the writer lock's session sits idle for the life of the process,
    // and a server or proxy that ended it as idle would stop a healthy writer (the lock lost).
    const c = new pg.Client({
      connectionString: this.url,
      application_name: applicationName(),
      types: PG_TYPES,
      keepAlive: true,
    });
    c.on("error", (err) => this.logger.error({err: err.message}, "PostgreSQL dedicated connection error"));
    c.on("end", () => this.dedicated.delete(c));
    this.dedicated.add(c);
    try {
      await c.connect();
    } catch (err) {
      this.dedicated.delete(c);
      throw err;
    }
    // PostgreSQL 14 and later; an older server has no such timeout to lift.
    await c.query("SET idle_session_timeout = 0").catch(() => undefined);
    return c;
  }

  /** True once close() has begun. */
  get closed(): boolean {
    return this.closing;
  }

  /** Ends the pool and every dedicated connection (which frees the writer lock). */
  async close(): Promise<void> {
    this.closing = true;
    // Unlock first: the server frees a closed session's locks only when its backend has exited, a moment later,
    // and a successor that tries at once must find the lock free.
    await Promise.all(
      [...this.dedicated].map(async (c) => {
        await c.query("SELECT pg_advisory_unlock_all()").catch(() => undefined);
        await c.end().catch(() => undefined);
      }),
    );
    if (!this.pool.ended) await this.pool.end();
  }
}
