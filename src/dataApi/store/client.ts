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
 * Parameters: `bigint`, `number`, `string`, `boolean`, `Uint8Array`, `null` and arrays of them are sent as is.
 */
import {createHash} from "node:crypto";
import {hostname} from "node:os";
import {existsSync} from "node:fs";
import {fileURLToPath} from "node:url";
import {Worker} from "node:worker_threads";
import pg from "pg";
import type {Logger} from "../../logger/index.js";
import {PREPARED_TEXTS, PgliteEngine, errorFromFields, stalePreparedStatement, type EngineErrorFields} from "./pgliteEngine.js";

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
  /** PGlite only: start from this dump (PgliteSqlClient.dumpDataDir) instead of a new cluster; much faster. */
  pgliteTemplate?: Blob;
}

export interface SqlClientModules {
  logger: Logger;
}

/** Opens the client `opts.url` names: PGlite for "embedded", else a pg pool. */
export async function openSqlClient(opts: SqlClientOptions, modules: SqlClientModules): Promise<SqlClient> {
  if (opts.url === "embedded") return PgliteSqlClient.open(opts.dataDir, modules, opts.pgliteTemplate);
  return PgSqlClient.open(opts.url, opts.poolSize ?? 10, modules);
}

/** `application_name` of this process's connections, which the writer lock's refusal shows. */
export function applicationName(): string {
  // PostgreSQL truncates application_name to 63 bytes.
  return `avaext ${hostname()} pid ${process.pid}`.slice(0, 63);
}

// ---- PGlite ----

const OID_INT8 = 20;
const OID_INT8_ARRAY = 1016;
const OID_BYTEA = 17;
const OID_BYTEA_ARRAY = 1001;

/** A request to the PGlite engine (pgliteWorker.ts answers it). */
export type EngineRequest =
  | {id: number; op: "open"}
  | {id: number; op: "query"; sql: string; params?: unknown[]}
  | {id: number; op: "exec"; sql: string}
  | {id: number; op: "dump"}
  | {id: number; op: "close"};

type EngineCall = EngineRequest extends infer R ? (R extends {id: number} ? Omit<R, "id"> : never) : never;

type EngineAnswer = {id: number; ok: true; value: unknown} | {id: number; ok: false; error: EngineErrorFields};

/** Where the engine runs: a worker thread of its own, or this thread. */
interface EngineLink {
  call(req: EngineCall): Promise<unknown>;
  /** Ends the thread (after the engine's close). */
  stop(): Promise<void>;
}

function pgliteWorkerScript(): string | null {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(".js")) return here.replace(/client\.js$/, "pgliteWorker.js");
  // Running from source (vitest): the build of the same module (`npm test` builds first).
  const built = here.replace(/\/src\/dataApi\//, "/dist/src/dataApi/").replace(/client\.ts$/, "pgliteWorker.js");
  return existsSync(built) ? built : null;
}

class WorkerLink implements EngineLink {
  private readonly worker: Worker;
  private seq = 0;
  private readonly waiting = new Map<number, {resolve: (v: unknown) => void; reject: (e: Error) => void}>();
  private dead: Error | null = null;

  constructor(script: string, dataDir: string | null, template: Blob | undefined) {
    this.worker = new Worker(script, {workerData: {dataDir, template}});
    this.worker.unref();
    this.worker.on("message", (m: EngineAnswer) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) this.worker.unref();
      if (m.ok) w?.resolve(m.value);
      else w?.reject(errorFromFields(m.error));
    });
    const fail = (err: Error): void => {
      this.dead ??= err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`the PGlite worker stopped (exit code ${code})`)));
  }

  call(req: EngineCall): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, {resolve, reject});
      // A request in flight keeps the process alive (a CLI command awaiting its answer has nothing else).
      this.worker.ref();
      this.worker.postMessage({...req, id});
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

class InProcessLink implements EngineLink {
  constructor(private readonly engine: PgliteEngine) {}

  async call(req: EngineCall): Promise<unknown> {
    switch (req.op) {
      case "open":
        return null;
      case "query":
        return this.engine.query(req.sql, req.params);
      case "exec":
        return this.engine.exec(req.sql);
      case "dump":
        return this.engine.dump();
      case "close":
        return this.engine.close();
    }
  }

  async stop(): Promise<void> {}
}

/**
 * PGlite, run by a worker thread (pgliteEngine.ts says why). Requests go one at a time, in order: a transaction's
 * statements never interleave with others, and a statement outside it waits for its end.
 */
export class PgliteSqlClient implements SqlClient {
  readonly kind = "pglite" as const;
  private closed = false;

  private constructor(
    private readonly link: EngineLink,
    /** The data directory, or null in memory: the writer lock keeps its lock file there. */
    readonly dataDir: string | null,
  ) {}

  static async open(dataDir: string | null, modules: SqlClientModules, template?: Blob): Promise<PgliteSqlClient> {
    const script = pgliteWorkerScript();
    const link = script ? new WorkerLink(script, dataDir, template) : new InProcessLink(await PgliteEngine.open(dataDir, template));
    try {
      await link.call({op: "open"});
    } catch (err) {
      await link.stop();
      throw err;
    }
    modules.logger.debug({dataDir, thread: script ? "worker" : "main"}, "PGlite opened");
    return new PgliteSqlClient(link, dataDir);
  }

  /** Every request, one at a time. */
  private tail: Promise<unknown> = Promise.resolve();

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.exclusive(() => this.link.call({op: "query", sql, params}) as Promise<T[]>);
  }

  async exec(sql: string): Promise<void> {
    await this.exclusive(() => this.link.call({op: "exec", sql}));
  }

  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const tx: SqlTx = {
        query: async <R>(sql: string, params?: unknown[]): Promise<R[]> => (await this.link.call({op: "query", sql, params})) as R[],
        exec: async (sql: string): Promise<void> => {
          await this.link.call({op: "exec", sql});
        },
      };
      await this.link.call({op: "exec", sql: "BEGIN"});
      try {
        const result = await fn(tx);
        await this.link.call({op: "exec", sql: "COMMIT"});
        return result;
      } catch (err) {
        await this.link.call({op: "exec", sql: "ROLLBACK"}).catch(() => undefined);
        throw err;
      }
    });
  }

  /** The whole cluster as an uncompressed tarball, for `pgliteTemplate`. */
  dumpDataDir(): Promise<Blob> {
    return this.exclusive(() => this.link.call({op: "dump"}) as Promise<Blob>);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.exclusive(() => this.link.call({op: "close"}));
    } finally {
      await this.link.stop();
    }
  }
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

export class PgSqlClient implements SqlClient {
  readonly kind = "postgres" as const;
  readonly dataDir = null;
  private readonly dedicated = new Set<pg.Client>();
  private readonly names = new Map<string, string>();
  private renames = 0;
  private closing = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  static async open(url: string, poolSize: number, modules: SqlClientModules): Promise<PgSqlClient> {
    const pool = new pg.Pool({connectionString: url, max: poolSize, application_name: applicationName(), types: PG_TYPES});
    // An idle client whose connection breaks emits on the pool; without a listener that would crash the process.
    pool.on("error", (err) => modules.logger.warn({err: err.message}, "PostgreSQL idle connection error"));
    // Fail now, with the server's reason, rather than at the first query.
    const c = await pool.connect().catch(async (err: unknown) => {
      await pool.end().catch(() => undefined);
      throw err;
    });
    c.release();
    modules.logger.debug({poolSize}, "PostgreSQL pool opened");
    return new PgSqlClient(pool, url, modules.logger);
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    const name = params ? this.statementName(sql) : undefined;
    try {
      const res = await this.pool.query(name ? {name, text: sql, values: params} : {text: sql, values: params});
      return res.rows as T[];
    } catch (e) {
      // A statement prepared before its tables changed (a rebuild, a newer writer's migration) fails on every
      // connection that prepared it ("cached plan must not change result type"): give the text a new name, so each
      // connection prepares it afresh, and run it again once.
      if (!name || !stalePreparedStatement(e)) throw e;
      const renamed = `${name}_${++this.renames}`;
      this.names.set(sql, renamed);
      const res = await this.pool.query({name: renamed, text: sql, values: params});
      return res.rows as T[];
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
    // Without parameters pg uses the simple protocol, which runs a multi-statement script.
    await this.pool.query(sql);
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
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
      const result = await fn(tx);
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
   * A connection outside the pool, for the life of the process (the writer lock's session). The caller may end it;
   * close() ends it otherwise.
   */
  async dedicatedConnection(): Promise<pg.Client> {
    if (this.closing) throw new Error("the SQL client is closed");
    const c = new pg.Client({connectionString: this.url, application_name: applicationName(), types: PG_TYPES});
    c.on("error", (err) => this.logger.error({err: err.message}, "PostgreSQL dedicated connection error"));
    c.on("end", () => this.dedicated.delete(c));
    this.dedicated.add(c);
    try {
      await c.connect();
    } catch (err) {
      this.dedicated.delete(c);
      throw err;
    }
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
