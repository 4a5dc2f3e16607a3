/**
 * vitest globalSetup: makes ONE empty PGlite cluster for the whole run and hands it to the tests, as a directory to
 * copy (`inject("pgliteTemplateDir")`, for stores on disk) and as its dump (`inject("pgliteTemplateDump")`, PGlite's
 * `loadDataDir`, for stores in memory). A new cluster costs PGlite's initdb: 2-5 s on an idle 2-core machine and
 * 20-40 s on a busy one, measured; a copy of this one a fraction of that. test/helpers/pglite.ts uses them.
 *
 * The cluster is made on a worker thread that then exits: what PGlite builds to run initdb stays reachable as long as
 * its instance (src/dataApi/store/pgliteThread.ts), and this process lives for the whole run.
 */
import {mkdtemp, rm} from "node:fs/promises";
import {createRequire} from "node:module";
import {tmpdir} from "node:os";
import path from "node:path";
import {pathToFileURL} from "node:url";
import {Worker} from "node:worker_threads";
import type {TestProject} from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** An empty PGlite cluster on disk, closed: copy it, never open it in place. */
    pgliteTemplateDir: string;
    /** The same cluster as an uncompressed tarball (PGlite's dumpDataDir), for `loadDataDir`. */
    pgliteTemplateDump: string;
  }
}

// Plain JavaScript for an eval worker: PGlite's own API, as src/dataApi/store/client.ts opens it (initdb with the
// defaults; the start parameters avaext adds are given at every start, not written into the cluster).
const MAKE_CLUSTER = `
const {workerData, parentPort} = require("node:worker_threads");
const {writeFile} = require("node:fs/promises");
(async () => {
  const {PGlite} = await import(workerData.pglite);
  const db = await PGlite.create(workerData.dir);
  const dump = await db.dumpDataDir("none");
  await db.close();
  await writeFile(workerData.dump, new Uint8Array(await dump.arrayBuffer()));
  parentPort.postMessage("done");
})().catch((err) => parentPort.postMessage(String(err && err.stack || err)));
`;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(tmpdir(), "avaext-pglite-template-"));
  const dir = path.join(root, "cluster");
  const dump = path.join(root, "cluster.tar");
  const pglite = pathToFileURL(
    createRequire(path.join(project.config.root, "package.json")).resolve("@electric-sql/pglite"),
  ).href;
  const worker = new Worker(MAKE_CLUSTER, {eval: true, workerData: {pglite, dir, dump}});
  try {
    const answer = await new Promise<unknown>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the thread exited (code ${code})`)));
    });
    if (answer !== "done") throw new Error(String(answer));
  } catch (err) {
    await rm(root, {recursive: true, force: true});
    throw new Error(`the run's PGlite template was not made: ${String(err)}`);
  } finally {
    await worker.terminate();
  }
  project.provide("pgliteTemplateDir", dir);
  project.provide("pgliteTemplateDump", dump);
  return () => rm(root, {recursive: true, force: true});
}
