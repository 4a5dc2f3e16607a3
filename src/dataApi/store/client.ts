/**
 * The data API's SQL client: one interface over two drivers, PGlite (embedded PostgreSQL in WebAssembly, in this
 * process) and `pg` (a PostgreSQL server). SQL is PostgreSQL's dialect with `$1..$n` parameters on both.
 *
 * Values come back the same on both drivers:
 * - int8 (and int8[]) as `bigint`, always, whatever its size; int2/int4 as `number`;
 * - numeric as `string` (exact decimal text);
 * - bytea as a plain `Uint8Array` (never a Node `Buffer`);
 * - bool as `boolean`, text as `string`, json/jsonb parsed, arrays of these as JS arrays.
 * Timestamps are not used by the store (times are Unix seconds in int8 columns).
 *
 * Parameters: `bigint`, `number`, `string`, `boolean`, `Uint8Array`, `null` and arrays of them are sent as is. A Node
 * `Buffer` is a value in PostgreSQL's binary format for its parameter's type, sent as it is on both drivers (for a
 * bytea parameter that is its bytes; the bulk inserts send their column arrays so, see bulk.ts).
 */
import {createHash} from "node:crypto";
import {hostname} from "node:os";
import {PGlite, parse as pgliteParse, protocol, types as pgliteTypes} from "@electric-sql/pglite";
import pg from "pg";
import type {Logger} from "../../logger/index.js";
import {PgliteThreadClient} from "./pgliteThread.js";
import {PGLITE_SHARED_BUFFERS_MB} from "./defaults.js";
import {seedNewStore} from "./pgliteTemplate.js";

/** A row-returning statement and a multi-statement script, run in one transaction. */
export interface SqlTx {
  /** Runs one statement with `$1..$n` parameters and returns its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of one or more statements without parameters. */
  exec(sql: string): Promise<void>;
}

export interface SqlClient extends SqlTx {
  readonly kind: "pglite" | "postgres";
  /**
   * True when statements run off the calling thread (a server, or PGlite on a thread of its own): a statement sent
   * ahead runs while this thread goes on with its own work.
   */
  readonly offThread: boolean;
  /**
   * Runs `fn` in a transaction on one connection: commits when it resolves, rolls back when it throws (and rethrows).
   * Statements of one transaction never interleave with other statements.
   */
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  /** Closes the database (PGlite) or ends the pool (pg). */
  close(): Promise<void>;
}

export interface SqlClientOptions {
  /** "embedded" for PGlite, else a PostgreSQL connection string (`postgres://user:pass@host:port/db`). */
  url: "embedded" | string;
  /** PGlite's data directory; null = in memory. Unused with a server. */
  dataDir: string | null;
  /** Connections in the pg pool (default 10). Unused with PGlite. */
  poolSize?: number;
  /**
   * PGlite only: start a new cluster from this dump (PgliteSqlClient.dumpDataDir) instead of an initdb; much faster.
   * Absent: the build's empty cluster (pgliteTemplate.ts) for a new store on disk; null: an initdb.
   */
  pgliteTemplate?: Blob | null;
  /**
   * PGlite only: run it on a thread of its own (pgliteThread.ts; default true). False, or without the compiled
   * worker script, it runs on the calling thread.
   */
  pgliteThread?: boolean;
  /** PGlite only: its `shared_buffers` (its page cache), MiB; default PostgreSQL's 128 (see PGLITE_SHARED_BUFFERS_MB). */
  pgliteSharedBuffersMb?: number;
  /**
   * A server only: the longest a statement runs before the server cancels it (query_canceled, 57014); 0 or absent =
   * no limit. For the API's reads (dataApi/service.ts opens them a pool of their own), never for the fold's writes.
   * PGlite cannot interrupt a statement (its statement_timeout never fires: one thread, no timer signal).
   */
  statementTimeoutMs?: number;
}

export interface SqlClientModules {
  logger: Logger;
  /**
   * Told once if the store is lost for good while open: PGlite's worker thread failed or exited (every later call
   * would fail). A server's outage is not this: its connections are made again.
   */
  onLost?: (err: Error) => void;
  /**
   * The signal of the request a statement runs for (util/requestSignals.ts), if any: a statement of an aborted
   * request is not sent, and on a server one running is cancelled (pg_cancel_backend) when its request aborts.
   */
  signal?: () => AbortSignal | undefined;
}

/** Opens the client `opts.url` names: PGlite for "embedded", else a pg pool. */
export async function openSqlClient(opts: SqlClientOptions, modules: SqlClientModules): Promise<SqlClient> {
  if (opts.url !== "embedded") return PgSqlClient.open(opts.url, opts.poolSize ?? 10, modules, opts.statementTimeoutMs ?? 0);
  const script = opts.pgliteThread === false ? null : PgliteThreadClient.script();
  // A new store on disk starts from the build's empty cluster (pgliteTemplate.ts), not an initdb here: its files are
  // written into the directory unless the caller brings a template of its own.
  if (opts.pgliteTemplate === undefined) await seedNewStore(opts.dataDir);
  const template = opts.pgliteTemplate ?? undefined;
  const sharedBuffersMb = opts.pgliteSharedBuffersMb ?? PGLITE_SHARED_BUFFERS_MB.default;
  const client = script
    ? await PgliteThreadClient.open(script, {dataDir: opts.dataDir, template: template ? new Uint8Array(await template.arrayBuffer()) : null, sharedBuffersMb})
    : await PgliteSqlClient.open(opts.dataDir, template, sharedBuffersMb);
  if (client instanceof PgliteThreadClient) client.onLost = modules.onLost ?? null;
  modules.logger.debug({dataDir: opts.dataDir, thread: script !== null}, "PGlite opened");
  return client;
}

/** `application_name` of this process's connections, which the writer lock's refusal shows. */
export function applicationName(reads = false): string {
  // PostgreSQL truncates application_name to 63 bytes. The API's reads (a pool with a statement timeout) say so,
  // for an operator reading pg_stat_activity.
  return `avaext${reads ? " reads" : ""} ${hostname()} pid ${process.pid}`.slice(0, 63);
}

// ---- PGlite ----

/** A result column: its name and the parser of its type (PGlite's, as its query() applies them), null for text. */
interface Column {
  name: string;
  oid: number;
  parse: ((text: string, oid: number) => unknown) | null;
}

/** A statement parsed once: its name, its parameters' type OIDs and its result columns (undefined: no rows). */
interface ParsedStatement {
  name: string;
  types: number[];
  columns: Column[] | undefined;
}

const MSG_DATA_ROW = 0x44; // 'D'
const MSG_ERROR = 0x45; // 'E'

/**
 * The rows of one statement's backend messages, read in place from the bytes PGlite's backend wrote. PGlite's own
 * reader (execProtocol) copies each field into an ArrayBuffer of its own before decoding it and builds a message
 * object for every row: a third of a transaction page's CPU on PGlite, measured. An error message is parsed by
 * PGlite's protocol parser and thrown, the DatabaseError its query() throws.
 */
function readPgliteRows<T>(raw: Buffer, columns: Column[] | undefined): T[] {
  const rows: T[] = [];
  let at = 0;
  while (at + 5 <= raw.length) {
    const type = raw[at]!;
    const end = at + 1 + raw.readInt32BE(at + 1);
    if (type === MSG_DATA_ROW && columns !== undefined) {
      const n = raw.readInt16BE(at + 5);
      let p = at + 7;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const len = raw.readInt32BE(p);
        p += 4;
        const c = columns[i]!;
        if (len < 0) {
          row[c.name] = null;
          continue;
        }
        const text = raw.toString("utf8", p, p + len);
        p += len;
        row[c.name] = c.parse === null ? text : c.parse(text, c.oid);
      }
      rows.push(row as T);
    } else if (type === MSG_ERROR) {
      let error: unknown = new Error("PGlite: unreadable error message");
      new protocol.Parser().parse(raw.subarray(at, end), (m) => {
        if (m.name === "error") error = m;
      });
      throw error;
    }
    at = end;
  }
  return rows;
}

const OID_INT8 = 20;
const OID_INT8_ARRAY = 1016;
const OID_BYTEA = 17;
const OID_BYTEA_ARRAY = 1001;

export class PgliteSqlClient implements SqlClient {
  readonly kind = "pglite" as const;
  readonly offThread = false;

  private constructor(
    private readonly db: PGlite,
    /** The data directory, or null in memory: the writer lock keeps its lock file there. */
    readonly dataDir: string | null,
  ) {}

  static async open(dataDir: string | null, template: Blob | undefined, sharedBuffersMb: number): Promise<PgliteSqlClient> {
    const db = await PGlite.create(dataDir ?? undefined, {
      ...(template ? {loadDataDir: template} : {}),
      // Given at every start (not written into the cluster's postgresql.conf), so a restart with another value takes it.
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffersMb}MB`],
      // PGlite's own default already gives bigint for int8; pinned here so the contract does not hang on a default.
      parsers: {[OID_INT8]: (x: string): bigint => BigInt(x), [OID_INT8_ARRAY]: parseInt8Array},
    });
    return new PgliteSqlClient(db, dataDir);
  }

  /**
   * Statement texts prepared under a name (see `prepared`), with their parameters' type OIDs and the description of
   * their rows (undefined for a statement without rows).
   */
  private readonly statements = new Map<string, ParsedStatement>();
  private prepares = 0;

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    if (params === undefined || (this.statements.size >= PREPARED_TEXTS && !this.statements.has(sql))) {
      return (await this.db.query<T>(sql, params)).rows;
    }
    // The protocol calls are serialised neither with PGlite's statements nor with its transactions: hold its query
    // lock, as its own query() does, and wait for a transaction in progress (a read run between two of its
    // statements would run inside it).
    return this.exclusive(() => this.db.runExclusive(() => this.prepared<T>(sql, params)));
  }

  /**
   * The plan mode of this session's statements. The prepared reads run on generic plans: PostgreSQL would otherwise
   * plan a read afresh at every call whose custom plan it estimates cheaper (a transaction page's UTXO join: about
   * 2.5 ms of planning in WebAssembly against 1 ms of running), and the reads are keyset walks whose plan does not
   * hang on the values. Statements in a transaction (the views' batches) keep PostgreSQL's choice, planned for their
   * real arrays; a parameterised statement outside one goes through the prepared path and runs generic too.
   */
  private planMode: "auto" | "generic" = "auto";

  private async plans(mode: "auto" | "generic", inExclusive: boolean): Promise<void> {
    if (this.planMode === mode) return;
    const text = mode === "generic" ? "SET plan_cache_mode = force_generic_plan" : "RESET plan_cache_mode";
    // Under PGlite's query lock (a prepared read) its exec() would wait for that lock: the protocol call does not.
    if (inExclusive) await this.db.execProtocol(protocol.serialize.query(text));
    else await this.db.exec(text);
    this.planMode = mode;
  }

  /** Transactions and prepared reads, one at a time. */
  private tail: Promise<unknown> = Promise.resolve();

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * A parameterised read as a named prepared statement: PGlite's query() parses, describes and plans the text at
   * every call, and planning in WebAssembly costs more than running a list's index lookups (4.5 ms against 0.4 ms
   * for a transaction page's UTXO join, measured). The statement is parsed once; PostgreSQL keeps its plan.
   */
  private async prepared<T>(text: string, params: unknown[], retried = false): Promise<T[]> {
    await this.plans("generic", true);
    try {
      let st = this.statements.get(text);
      if (st === undefined) {
        st = await this.parse(text, `avaext_${++this.prepares}`);
        this.statements.set(text, st);
      }
      return await this.run<T>(st, params);
    } catch (e) {
      // Prepared before its tables changed: prepare it afresh, once.
      if (retried || !stalePreparedStatement(e)) throw e;
      this.statements.delete(text);
      return this.prepared<T>(text, params, true);
    }
  }

  /**
   * Binds `params` to a statement parsed already (by its types: a Buffer is sent as it is, in binary), runs it and
   * returns its rows. Bind, execute and sync go in one call: PGlite runs every message it is given before it
   * returns, and each call costs a round of its own. After an error PostgreSQL
   * skips to the sync, so the session is ready for the next statement either way. The backend's output is taken raw
   * (see readPgliteRows).
   */
  private async run<T>(st: ParsedStatement, params: unknown[]): Promise<T[]> {
    const {serialize} = protocol;
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      if (Buffer.isBuffer(v)) return v;
      const serializer = this.db.serializers[st.types[i]!];
      return serializer ? serializer(v) : String(v);
    });
    const chunks: Buffer[] = [];
    await this.db.execProtocolRawStream(
      Buffer.concat([serialize.bind({statement: st.name, values}), serialize.execute({}), serialize.sync()]),
      {
        // A view of the WebAssembly memory, reused by the next write: copied.
        onRawData: (chunk) => void chunks.push(Buffer.from(chunk)),
        // The store's file systems (a directory through Node's, or memory) write through: PGlite's sync of them does
        // nothing but take its lock and wait a turn, at every statement.
        syncToFs: false,
      },
    );
    return readPgliteRows<T>(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), st.columns);
  }

  /**
   * A statement with a binary parameter (a Buffer) in a transaction: PGlite's own query() would serialise the
   * Buffer by its parameter's type (an array's serialiser given bytes). Parsed unnamed and described, then run.
   */
  private async runBinary<T>(text: string, params: unknown[]): Promise<T[]> {
    return this.run<T>(await this.parse(text, ""), params);
  }

  /** Parses `text` as the statement `name` ("" unnamed): its parameters' type OIDs and its result columns. */
  private async parse(text: string, name: string): Promise<ParsedStatement> {
    const {serialize} = protocol;
    const described = [];
    try {
      await this.db.execProtocol(serialize.parse({name, text}));
      described.push(...(await this.db.execProtocol(serialize.describe({type: "S", name}))).messages);
    } finally {
      await this.db.execProtocol(serialize.sync());
    }
    const rows = described.find((m) => m.name === "rowDescription") as {fields: {name: string; dataTypeID: number}[]} | undefined;
    const parsers = this.db.parsers as Record<number, Column["parse"] | undefined>;
    const defaults = pgliteTypes.parsers as Record<number, Column["parse"] | undefined>;
    return {
      name,
      types: pgliteParse.parseDescribeStatementResults(described),
      columns: rows?.fields.map((f) => ({name: f.name, oid: f.dataTypeID, parse: parsers[f.dataTypeID] ?? defaults[f.dataTypeID] ?? null})),
    };
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    // PGlite queues every statement and holds other callers off while a transaction runs. The plan mode is set
    // before it: a SET inside would be undone by a rollback.
    return this.exclusive(async () => {
      await this.plans("auto", false);
      return this.db.transaction(async (tx) => {
        const wrapped: SqlTx = {
          query: async <R>(sql: string, params?: unknown[]): Promise<R[]> =>
            params?.some((v) => Buffer.isBuffer(v)) ? this.runBinary<R>(sql, params) : (await tx.query<R>(sql, params)).rows,
          exec: async (sql: string): Promise<void> => {
            await tx.exec(sql);
          },
        };
        return fn(wrapped);
      });
    });
  }

  /** The whole cluster as an uncompressed tarball, for `pgliteTemplate`. */
  async dumpDataDir(): Promise<Blob> {
    return this.db.dumpDataDir("none");
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}

function parseInt8Array(x: string): unknown {
  return pgliteTypes.arrayParser(x, (v: string) => BigInt(v), OID_INT8_ARRAY);
}

// ---- pg ----

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

/**
 * A named statement prepared before its tables changed (a rebuild, a newer writer's migration): "cached plan must
 * not change result type" (0A000), or the statement is gone (26000). Preparing it afresh succeeds.
 */
function stalePreparedStatement(e: unknown): boolean {
  const code = (e as {code?: string}).code;
  return code === "0A000" || code === "26000";
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

/** Distinct statement texts given a name (see PgSqlClient.statementName and PgliteSqlClient.prepared). */
const PREPARED_TEXTS = 1000;

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

  static async open(url: string, poolSize: number, modules: SqlClientModules, statementTimeoutMs = 0): Promise<PgSqlClient> {
    const pool = new pg.Pool({connectionString: url, max: poolSize, application_name: applicationName(modules.signal !== undefined), types: PG_TYPES});
    // Set on each new connection, before its first statement (a client runs its statements in order), not as a
    // startup parameter: PgBouncer refuses unknown startup parameters. Behind PgBouncer's transaction pooling a
    // session setting does not hold: see docs/operations/scaling.md.
    if (statementTimeoutMs > 0) pool.on("connect", (c) => void c.query(`SET statement_timeout = ${Math.floor(statementTimeoutMs)}`).catch(() => undefined));
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
      const canceller = new pg.Client({connectionString: this.url}) as unknown as {connection: {on(e: string, f: () => void): void}; cancel(client: unknown, query: unknown): void};
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
    const err = new Error(`another writer took the store (writer epoch ${now ?? "none"}, this process's ${epoch.value})`);
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
    const c = new pg.Client({connectionString: this.url, application_name: applicationName(), types: PG_TYPES, keepAlive: true});
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

/** The error of a statement not sent because its request was aborted (its client went away). */
export function requestAborted(): Error {
  return Object.assign(new Error("the request was aborted"), {name: "AbortError", code: "ABORT_ERR"});
}

/**
 * A client whose statements are not sent once the request they run for has aborted: for PGlite, which runs one
 * statement at a time and cannot cancel one, so an abandoned request's later statements at least do not queue.
 */
export class AbortCheckedClient implements SqlClient {
  readonly kind: SqlClient["kind"];
  readonly offThread: boolean;

  constructor(
    private readonly inner: SqlClient,
    private readonly signal: () => AbortSignal | undefined,
  ) {
    this.kind = inner.kind;
    this.offThread = inner.offThread;
  }

  private check(): void {
    if (this.signal()?.aborted) throw requestAborted();
  }

  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    this.check();
    return this.inner.query<T>(sql, params);
  }

  exec(sql: string): Promise<void> {
    this.check();
    return this.inner.exec(sql);
  }

  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    this.check();
    return this.inner.transaction(fn);
  }

  /** The inner client is the writer's: it is closed by its owner. */
  async close(): Promise<void> {}
}
