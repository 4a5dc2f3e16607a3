/**
 * Decoding off the database's path: a small pool of worker threads decodes the next batches while the main thread
 * writes the current one. Falls back to decoding in-process when workers cannot start (the worker script is the
 * compiled one: under a TypeScript test runner the module is found in dist/).
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

export class DecodePool {
  private readonly workers: Worker[] = [];
  private next = 0;
  private seq = 0;
  private readonly waiting = new Map<number, {resolve: (r: DecodeResult[]) => void; reject: (e: Error) => void}>();

  constructor(opts: {threads: number}) {
    const script = workerScript(import.meta.url, "decodeWorker");
    if (script === null || opts.threads <= 0) return;
    for (let i = 0; i < opts.threads; i++) {
      const w = new Worker(script);
      w.on("message", (m: {id: number; results: DecodeResult[]}) => {
        const p = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        p?.resolve(m.results);
      });
      w.on("error", (err) => {
        for (const p of this.waiting.values()) p.reject(err);
        this.waiting.clear();
      });
      w.unref();
      this.workers.push(w);
    }
  }

  get threads(): number {
    return this.workers.length;
  }

  decode(chain: DecodeJob["chain"], kind: DecodeJob["kind"], items: DecodeJob["items"], deferInputKeys = false): Promise<DecodeResult[]> {
    if (this.workers.length === 0) return Promise.resolve(items.map((it) => decodeOne({id: 0, chain, kind, items, deferInputKeys}, it)));
    const id = ++this.seq;
    const w = this.workers[this.next++ % this.workers.length]!;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, {resolve, reject});
      w.postMessage({id, chain, kind, items, deferInputKeys} satisfies DecodeJob);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}

/** Decodes one item of a job (in a worker, or here when there is none). */
export function decodeOne(job: DecodeJob, it: DecodeJob["items"][number]): DecodeResult {
  try {
    return {ok: true, container: decodePrimaryContainer(job.chain, job.kind, it.bytes, {containerId: it.containerId, deferInputKeys: job.deferInputKeys})};
  } catch (err) {
    return {ok: false, error: (err as Error).message, expected: (err as Error).name === "PrimaryDecodeError"};
  }
}
