/**
 * PGlite on a thread of its own. PGlite runs PostgreSQL in WebAssembly on the thread that calls it: in this process's
 * main thread its executor took about 60 % of the CPU while the views folded (the rest: building rows, the HTTP
 * server, V8's collector), so the two could not overlap and the machine's other cores sat mostly idle. Here a worker
 * thread owns the PgliteSqlClient (pgliteWorker.ts) and this class forwards the SqlClient calls to it: the view
 * builds batch k+1 while PGlite writes batch k, and a list's JSON is rendered while the next read runs.
 *
 * The semantics are the in-thread client's: the worker runs its statements, prepared reads and transactions with
 * the same serialisation (a read waits for a transaction in progress; a transaction's statements run in the order
 * sent; parameterised statements outside one run in the order sent, as do statements without parameters among
 * themselves, not the two kinds with each other), and an error comes back with its fields
 * (`code`, `detail`, ...). Parameters and rows are copied between the threads (structured clone); a Node Buffer
 * parameter (a value in binary format, see sql.ts) stays one.
 */
import {existsSync} from "node:fs";
import path from "node:path";
import {Worker} from "node:worker_threads";
import {workerScript} from "../../util/workerScript.js";
import type {SqlClient, SqlTx} from "./sql.js";

/** The calls the worker answers; `txn` names the transaction a statement belongs to. */
export type ThreadRequest =
  | {op: "query"; sql: string; params?: unknown[]; binary?: number[]; txn?: number}
  | {op: "exec"; sql: string; txn?: number}
  | {op: "begin"; txn: number}
  | {op: "end"; txn: number; commit: boolean}
  | {op: "dump"}
  | {op: "close"};

/** An error as it crosses the threads: its message, name and own primitive fields (`code`, `detail`, ...). */
export interface WireError {
  message: string;
  name?: string;
  props: Record<string, string | number | boolean | null>;
}

export type ThreadResponse = {id: number; ok: true; value: unknown} | {id: number; ok: false; error: WireError};

/** What the worker is started with. */
export interface ThreadInit {
  dataDir: string | null;
  /** A dumped cluster to start from (PgliteSqlClient.dumpDataDir's bytes). */
  template: Uint8Array | null;
  /** PGlite's `shared_buffers`, MiB. */
  sharedBuffersMb: number;
}

export function toWireError(e: unknown): WireError {
  if (!(e instanceof Error)) return {message: String(e), props: {}};
  const props: WireError["props"] = {};
  for (const [k, v] of Object.entries(e)) {
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") props[k] = v;
  }
  return {message: e.message, name: e.name, props};
}

function fromWireError(w: WireError): Error {
  const e = Object.assign(new Error(w.message), w.props);
  if (w.name !== undefined) e.name = w.name;
  return e;
}

/** The positions of the Buffer parameters, which the worker turns back into Buffers (a clone makes them Uint8Arrays). */
function bufferPositions(params: unknown[] | undefined): number[] | undefined {
  if (params === undefined) return undefined;
  const at: number[] = [];
  params.forEach((p, i) => {
    if (Buffer.isBuffer(p)) at.push(i);
  });
  return at.length > 0 ? at : undefined;
}

export class PgliteThreadClient implements SqlClient {
  readonly kind = "pglite" as const;
  readonly offThread = true;
  private seq = 0;
  private txns = 0;
  private readonly waiting = new Map<number, {resolve: (v: unknown) => void; reject: (e: Error) => void}>();
  /** Set once the worker has stopped: every later call fails with it. */
  private stopped: Error | null = null;
  private closing = false;
  /** Told once if the worker fails or exits while the client is open (see lose). */
  onLost: ((err: Error) => void) | null = null;

  private constructor(
    private readonly worker: Worker,
    /** The data directory, or null in memory: the writer lock keeps its lock file there. */
    readonly dataDir: string | null,
  ) {
    worker.on("message", (m: ThreadResponse) => {
      const p = this.waiting.get(m.id);
      if (p === undefined) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) worker.unref();
      if (m.ok) p.resolve(m.value);
      else p.reject(fromWireError(m.error));
    });
    worker.on("error", (err) => this.lose(new Error(`PGlite's thread failed: ${err.message}`)));
    worker.on("exit", (code) => this.lose(new Error(`PGlite's thread exited (code ${code})`)));
  }

  /** The compiled worker script, or null when there is none (see workerScript): the caller runs PGlite in-thread. */
  static script(): string | null {
    return workerScript(import.meta.url, "pgliteWorker");
  }

  /** Starts the worker on `script` and waits until PGlite has opened (its error, if it cannot). */
  static async open(script: string, init: ThreadInit): Promise<PgliteThreadClient> {
    // A new cluster on disk is made by a thread that closes it and exits. PGlite keeps what it built to run initdb
    // (a second instance and a copy of its heap) reachable as long as the instance (avaext at rest on a store it had
    // just made: 815 MB; this way 467 MB; restarted on it 340-358 MB). A thread's exit frees all of its memory.
    if (init.dataDir !== null && init.template === null && !existsSync(path.join(init.dataDir, "PG_VERSION"))) {
      await (await PgliteThreadClient.start(script, init)).close();
    }
    return PgliteThreadClient.start(script, init);
  }

  private static async start(script: string, init: ThreadInit): Promise<PgliteThreadClient> {
    const worker = new Worker(script, {workerData: init});
    const client = new PgliteThreadClient(worker, init.dataDir);
    try {
      // The worker answers id 0 once its PGlite is open.
      await new Promise<unknown>((resolve, reject) => client.waiting.set(0, {resolve, reject}));
    } catch (err) {
      await worker.terminate();
      throw err;
    }
    return client;
  }

  /**
   * The worker ended while open: the store is gone for good (every later call fails with this), which no retry
   * mends. Reported once to `onLost` (the process ends: src/node.ts), unless the client was being closed.
   */
  private lose(err: Error): void {
    const first = this.stopped === null && !this.closing;
    this.stop(err);
    if (first) this.onLost?.(err);
  }

  private stop(err: Error): void {
    this.stopped ??= err;
    for (const p of this.waiting.values()) p.reject(err);
    this.waiting.clear();
  }

  private call<T>(req: ThreadRequest): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      // Held by the process while a call is waiting, as a call to PGlite on this thread would be; an idle client
      // does not keep it alive.
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, {resolve: resolve as (v: unknown) => void, reject});
      try {
        this.worker.postMessage({id, ...req});
      } catch (err) {
        // A parameter that cannot be copied to the thread (a function, a symbol).
        this.waiting.delete(id);
        if (this.waiting.size === 0) this.worker.unref();
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  query<T = Record<string, unknown>>(sql: string, params?: unknown[], txn?: number): Promise<T[]> {
    return this.call<T[]>({op: "query", sql, params, binary: bufferPositions(params), txn});
  }

  exec(sql: string, txn?: number): Promise<void> {
    return this.call<void>({op: "exec", sql, txn});
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    const txn = ++this.txns;
    await this.call({op: "begin", txn});
    const tx: SqlTx = {
      query: <R>(sql: string, params?: unknown[]) => this.query<R>(sql, params, txn),
      exec: (sql: string) => this.exec(sql, txn),
    };
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      // Rolled back; the caller's error is the one that matters.
      await this.call({op: "end", txn, commit: false}).catch(() => undefined);
      throw err;
    }
    await this.call({op: "end", txn, commit: true});
    return result;
  }

  /** The whole cluster as an uncompressed tarball (PgliteSqlClient.dumpDataDir). */
  async dumpDataDir(): Promise<Blob> {
    return new Blob([await this.call<Uint8Array>({op: "dump"})]);
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.closing = true;
    try {
      await this.call({op: "close"});
    } finally {
      this.stop(new Error("the SQL client is closed"));
      await this.worker.terminate();
    }
  }
}
