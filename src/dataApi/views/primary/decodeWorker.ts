/**
 * A decode worker: decodes batches of containers off the main thread, where the view builds rows and the HTTP
 * server lives. Answers `{id, results}` with one decoded container or error text per input.
 */
import {parentPort} from "node:worker_threads";
import {decodeOne, type DecodeJob} from "./decodePool.js";

parentPort?.on("message", (job: DecodeJob) => {
  parentPort!.postMessage({id: job.id, results: job.items.map((it) => decodeOne(job, it))});
});
