/**
 * A decode worker: decodes batches of containers off the main thread, where the SQL store (PGlite runs there in
 * WASM) and the HTTP server live. Answers `{id, results}` with one decoded container or error text per input.
 */
import {parentPort} from "node:worker_threads";
import {decodePrimaryContainer} from "./decode.js";
import type {DecodeJob, DecodeResult} from "./decodePool.js";

parentPort?.on("message", (job: DecodeJob) => {
  const results: DecodeResult[] = job.items.map((it) => {
    try {
      return {ok: true, container: decodePrimaryContainer(job.chain, job.kind, it.bytes, {containerId: it.containerId})};
    } catch (err) {
      return {ok: false, error: (err as Error).message, expected: (err as Error).name === "PrimaryDecodeError"};
    }
  });
  parentPort!.postMessage({id: job.id, results});
});
