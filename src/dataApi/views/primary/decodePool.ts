/**
 * Decoding off the database's path: a small pool of worker threads decodes the next batches while the main thread
 * writes the current one. Without the compiled worker script (under a TypeScript test runner the module is found in
 * dist/) it decodes on the calling thread.
 *
 * The workers are there for catching up, when batches are large and follow each other. A small job (a view
 * following the chain's tip reads the one or two containers accepted since its last poll) is decoded here: a
 * round trip to a worker costs as much as the decoding. Workers start with the first large job and stop after
 * `idleStopMs` without one, so a process that has caught up does not keep their heaps (about 45 MB each after a
 * fold). The jobs of a worker that dies are decoded here, never left unanswered; the next large job starts another
 * worker, unless the one that died had not answered a job yet (its script cannot run: the pool then decodes here).
 */
import {Worker} from "node:worker_threads";
import {workerScript} from "../../../util/workerScript.js";
import {decodePrimaryContainer} from "./decode.js";
import type {PrimaryContainer} from "./model.js";

export interface DecodeJob {
  id: number;
  chain: "P" | "X" | "C";
  kind: "block" | "tx" | "vtx";
  items: Array<{bytes: Uint8Array; containerId: string}>;
  /** TxDecodeOptions.deferInputKeys. */
  deferInputKeys: boolean;
}

export type DecodeResult = {ok: true; container: PrimaryContainer} | {ok: false; error: string; expected: boolean};

export interface DecodePoolOptions {
  /** The worker script; undefined: the compiled decodeWorker.js beside this module. */
  script?: string;
  /** Worker threads, at most (0: decode on the calling thread). */
  threads: number;
  /** A job of fewer container bytes than this is decoded on the calling thread. */
  inlineBytes: number;
  /** The workers stop after this long without a job, ms (0: they run until close). */
  idleStopMs: number;
}

export const defaultDecodePoolOptions: DecodePoolOptions = {threads: 1, inlineBytes: 32 * 1024, idleStopMs: 30_000};

interface Waiting {
  worker: Worker;
  job: DecodeJob;
  resolve: (r: DecodeResult[]) => void;
  reject: (e: Error) => void;
}

export class DecodePool {
  private script: string | null;
  /** The running workers by slot; null where none runs (not started yet, stopped when idle, or died). */
  private readonly slots: Array<Worker | null>;
  private next = 0;
  private seq = 0;
  private readonly waiting = new Map<number, Waiting>();
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Workers started over the pool's life (a restart after a stop or a death counts again). */
  started = 0;

  constructor(private readonly opts: DecodePoolOptions) {
    this.script = opts.threads > 0 ? (opts.script ?? workerScript(import.meta.url, "decodeWorker")) : null;
    this.slots = this.script === null ? [] : new Array<Worker | null>(opts.threads).fill(null);
  }

  /** The workers running now. */
  get running(): number {
    return this.slots.filter((w) => w !== null).length;
  }

  decode(chain: DecodeJob["chain"], kind: DecodeJob["kind"], items: DecodeJob["items"], deferInputKeys = false): Promise<DecodeResult[]> {
    const job: DecodeJob = {id: 0, chain, kind, items, deferInputKeys};
    const bytes = items.reduce((a, it) => a + it.bytes.length, 0);
    if (this.script === null || this.closed || bytes < this.opts.inlineBytes) return Promise.resolve(decodeHere(job));
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const slot = this.next++ % this.slots.length;
    const worker = this.slots[slot] ?? this.start(slot);
    job.id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(job.id, {worker, job, resolve, reject});
      worker.postMessage(job);
    });
  }

  private start(slot: number): Worker {
    const w = new Worker(this.script!);
    this.started++;
    let answered = false;
    w.on("message", (m: {id: number; results: DecodeResult[]}) => {
      answered = true;
      const p = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      p?.resolve(m.results);
      this.armIdleStop();
    });
    // "error" comes before "exit" when the worker throws; either way its jobs will never be answered by it.
    const died = (): void => {
      if (this.slots[slot] === w) this.slots[slot] = null;
      const jobs = [...this.waiting].filter(([, p]) => p.worker === w);
      // A worker the pool stops has no job; one that dies with a job before any answer cannot run its script.
      if (!answered && !this.closed && jobs.length > 0) this.script = null;
      for (const [id, p] of jobs) {
        this.waiting.delete(id);
        if (this.closed) p.reject(new Error("the decode pool is closed"));
        else p.resolve(decodeHere(p.job));
      }
      this.armIdleStop();
    };
    w.on("error", died);
    w.on("exit", died);
    w.unref();
    this.slots[slot] = w;
    return w;
  }

  /** With no job in flight, stops the workers after `idleStopMs`. */
  private armIdleStop(): void {
    if (this.waiting.size > 0 || this.idleTimer !== null || this.opts.idleStopMs <= 0 || this.closed) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.waiting.size === 0) void this.stopWorkers();
    }, this.opts.idleStopMs);
    this.idleTimer.unref();
  }

  private async stopWorkers(): Promise<void> {
    const running = this.slots.filter((w): w is Worker => w !== null);
    this.slots.fill(null);
    await Promise.all(running.map((w) => w.terminate()));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    await this.stopWorkers();
  }
}

/** Decodes a job on the calling thread. */
function decodeHere(job: DecodeJob): DecodeResult[] {
  return job.items.map((it) => decodeOne(job, it));
}

/** Decodes one item of a job (in a worker, or here when there is none). */
export function decodeOne(job: DecodeJob, it: DecodeJob["items"][number]): DecodeResult {
  try {
    return {ok: true, container: decodePrimaryContainer(job.chain, job.kind, it.bytes, {containerId: it.containerId, deferInputKeys: job.deferInputKeys})};
  } catch (err) {
    return {ok: false, error: (err as Error).message, expected: (err as Error).name === "PrimaryDecodeError"};
  }
}
