/**
 * Retryable or not: the one question every fold loop asks of a failure. An outage of what a fold depends on (the
 * store, an RPC) may pass, so the step is retried with backoff; an error in the fold itself (a broken invariant, a
 * constraint the rows violate, a bug) happens again on every retry, so the fold stops and says where. Ponder draws
 * the same line (`RetryableError` and `NonRetryableUserError`, packages/core/src/internal/errors.ts of
 * ponder-sh/ponder).
 */

/** An error that says itself whether trying again may succeed. */
export class AvaextError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: {cause?: unknown},
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** May succeed if tried again: an outage of the store or of an upstream. */
export class RetryableError extends AvaextError {
  constructor(message: string, options?: {cause?: unknown}) {
    super(message, true, options);
  }
}

/** Fails again on every try: the fold cannot go past it. */
export class NonRetryableError extends AvaextError {
  constructor(message: string, options?: {cause?: unknown}) {
    super(message, false, options);
  }
}

/** Node's codes of a network connection that failed or went away. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENOTCONN",
  "ERR_SOCKET_CLOSED",
  "ERR_STREAM_DESTROYED",
]);

/**
 * PostgreSQL's SQLSTATE classes of an error in the statement itself, which the same statement on the same rows meets
 * again (Appendix A, "PostgreSQL Error Codes", of its manual): 0A feature not supported, 21 cardinality violation,
 * 22 data exception, 23 integrity constraint violation, 26 invalid SQL statement name, 2F SQL routine exception,
 * 34 invalid cursor name, 3F invalid schema name, 42 syntax error or access rule violation, 44 WITH CHECK OPTION
 * violation, 54 program limit exceeded, P0 PL/pgSQL error, XX internal error. Every other class is the server's
 * state or the session's, not the fold's: 08 connection, 25 transaction state (25006 read-only after a failover,
 * 25P03 idle-in-transaction timeout), 40 rollback (serialization, deadlock), 53 resources, 55 prerequisite state
 * (55P03 lock not available), 57 operator intervention (57014 cancelled, 57P01-57P05 shutdowns and idle-session
 * timeout), 58 system (I/O): retried.
 */
const FOLD_SQLSTATE_CLASSES = new Set(["0A", "21", "22", "23", "26", "2F", "34", "3F", "42", "44", "54", "P0", "XX"]);

/**
 * Messages of a connection gone or slow, from node-postgres (which sets no code on them: a connection ended, its
 * `query_timeout` "Query read timeout"; this project's PGlite thread, src/dataApi/store/pgliteThread.ts), of an
 * allocation the process could not make now (V8's "Array buffer allocation failed", a RangeError), and from a client
 * closed under a loop that is stopping.
 */
const OUTAGE_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /is not queryable/,
  /Client has encountered a connection error/,
  /^Array buffer allocation failed/,
  // Lost for good, but the process ends on it (src/node.ts, fatal): meanwhile no view stops as if its fold failed.
  /^PGlite's thread (failed|exited)/,
  /^the SQL client is closed$/,
];

/**
 * Whether trying again may succeed. An AvaextError says so itself (the nearest one along `cause`); otherwise only an
 * outage of the store or the network is retryable (a network code, an SQLSTATE outside the fold's own classes, a
 * request aborted or timed out while its loop is not closing: the loops check their own signal first), and anything
 * else (a RangeError of the fold, a constraint violation 23xxx, a TypeError) is not.
 */
export function isRetryable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof AvaextError) return e.retryable;
    const code = (e as {code?: unknown}).code;
    if (typeof code === "string") {
      if (NETWORK_CODES.has(code)) return true;
      if (/^[0-9A-Z]{5}$/.test(code)) return !FOLD_SQLSTATE_CLASSES.has(code.slice(0, 2));
    }
    if (e.name === "AbortError" || e.name === "TimeoutError") return true;
    if (OUTAGE_MESSAGES.some((m) => m.test(e.message))) return true;
    // `fetch` failing at the socket: TypeError("fetch failed") with the system error as its cause, walked next.
  }
  return false;
}

/** The SQLSTATE of a PostgreSQL error along `cause`, if there is one. */
export function sqlState(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as {code?: unknown}).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

export interface BackoffOptions {
  /** The first wait, ms. */
  baseMs: number;
  /** The longest wait, ms. */
  maxMs: number;
  /** [0, 1): the jitter's source (Math.random; tests give their own). */
  random?: () => number;
}

/**
 * Waits between retries: doubling from `baseMs` up to `maxMs`, each drawn in [half, whole] of its step so that
 * loops failing together (every view on one store) do not retry together.
 */
export class Backoff {
  private failures = 0;
  constructor(private readonly opts: BackoffOptions) {}

  /** The wait before the next try, ms; counts a failure. */
  next(): number {
    const step = Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    const r = (this.opts.random ?? Math.random)();
    return Math.round(step / 2 + (step / 2) * r);
  }

  /** Failures in a row so far. */
  get attempts(): number {
    return this.failures;
  }

  reset(): void {
    this.failures = 0;
  }
}
