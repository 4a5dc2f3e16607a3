/**
 * The data API's SQL client, as every view, query and route sees it: one interface over two drivers, PGlite
 * (embedded PostgreSQL in WebAssembly: pglite.ts, on a thread of its own by pgliteThread.ts) and `pg` (a PostgreSQL
 * server: pg.ts), opened by client.ts. SQL is PostgreSQL's dialect with `$1..$n` parameters on both.
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
import type {Logger} from "../../logger/index.js";

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
