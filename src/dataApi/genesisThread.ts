/**
 * A large genesis folded into a new embedded store on a thread of its own (genesisWorker.ts), before the process
 * opens the store for good.
 *
 * Why: PGlite's page cache is resident in full from the moment it opens (emscripten's mmap zeroes the whole
 * `shared_buffers` segment: 16 MiB of cache holds 33 MB of PGlite's memory, 128 MiB 155 MB), and a genesis fold
 * grows V8's heap and the malloc arenas with its garbage, which the process keeps after the fold. Mainnet's genesis
 * folded in the process that goes on to run peaked at 510-540 MB on PGlite. On this thread, with a small cache, the
 * fold's PGlite and V8 heap go with the thread when it exits, and the process then opens the folded store with the
 * cache it runs with: 442-478 MB (docs/performance.md#genesis).
 */
import {existsSync, mkdirSync, rmSync, writeFileSync} from "node:fs";
import path from "node:path";
import {Worker} from "node:worker_threads";
import type {NetworkInfo} from "../chains/index.js";
import type {GenesisConfig} from "../genesis/config.js";
import {workerScript} from "../util/workerScript.js";

/** What the thread is given: all of it copied to it (structured clone). */
export interface GenesisThreadInit {
  /** The store's directory (PGlite's data directory): no cluster in it yet, or one a fold on the thread left. */
  dataDir: string;
  network: NetworkInfo;
  avaxAssetId: string;
  config: GenesisConfig;
  /** PGlite's `shared_buffers` on the thread, MiB: a genesis is a small store, read back little. */
  sharedBuffersMb: number;
}

export const GENESIS_THREAD_SHARED_BUFFERS_MB = 16;

/**
 * A genesis with fewer allocations than this is folded in the process itself: opening PGlite once more costs about
 * half a second, which a small genesis does not repay.
 * Mainnet's has 5,390; fuji's 11 and local's 3 are folded in the process.
 */
export const GENESIS_THREAD_MIN_ALLOCATIONS = 100;

/**
 * Beside the store's directory while a fold on the thread has not ended: a first start stopped part way (a signal,
 * a kill, a failure) leaves the store's cluster and this, so the next start folds on the thread again. Beside the
 * directory, not in it: PGlite's initdb (without the build's template) wants an empty directory.
 */
export function genesisPendingPath(dataDir: string): string {
  return `${dataDir}.genesis-pending`;
}

/**
 * Whether the genesis of `config` is folded on the thread into the store at `dataDir`: large, and the store new or
 * left by a fold on the thread that did not end.
 */
export function foldsOnThread(dataDir: string, config: GenesisConfig): boolean {
  return (
    config.allocations.length >= GENESIS_THREAD_MIN_ALLOCATIONS &&
    (!existsSync(path.join(dataDir, "PG_VERSION")) || existsSync(genesisPendingPath(dataDir))) &&
    genesisWorkerScript() !== null
  );
}

function genesisWorkerScript(): string | null {
  return workerScript(import.meta.url, "genesisWorker");
}

/**
 * Folds the genesis of `init.config` into the new store at `init.dataDir` on a thread, and waits for the thread to
 * end. Throws the thread's error, for the process's start to fail with: the genesis transaction is rolled back and
 * the pending mark stays, so the next start folds on the thread again (a store whose genesis is folded is left as
 * it is there: the view's load() folds only a store without positions).
 */
export async function foldGenesisOnThread(init: GenesisThreadInit): Promise<void> {
  const script = genesisWorkerScript();
  if (script === null) throw new Error("the genesis thread's compiled script is missing (npm run build)");
  const pending = genesisPendingPath(init.dataDir);
  mkdirSync(path.dirname(pending), {recursive: true});
  writeFileSync(pending, "");
  const worker = new Worker(script, {workerData: init});
  await new Promise<void>((resolve, reject) => {
    let failed: unknown = null;
    worker.once("error", (err) => (failed = err));
    worker.once("exit", (code) => {
      if (failed !== null) {
        const message = failed instanceof Error ? failed.message : String(failed);
        reject(new Error(`the genesis thread failed: ${message}`, {cause: failed}));
      } else if (code !== 0) reject(new Error(`the genesis thread exited with code ${code}`));
      else resolve();
    });
  });
  rmSync(pending, {force: true});
}
