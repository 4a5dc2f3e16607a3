/**
 * A new PGlite store starts from an empty cluster made at build time (`npm run build`, scripts/pglite-template.mjs),
 * not from an initdb in this process: initdb in PGlite's WebAssembly heap took a new store's process to 437 MB of
 * RSS before it held anything, and the heap never shrinks; loading the dump peaks far lower (docs/operations/memory.md).
 * The dump is of the PGlite build installed, named by its version: another version's, or none, means an initdb.
 */
import {existsSync, readFileSync} from "node:fs";
import {createRequire} from "node:module";
import path from "node:path";
import {packageInfo} from "../../util/packageInfo.js";

/** Where the build writes the empty cluster of this PGlite version. */
export function pgliteTemplateFile(): string {
  return path.join(packageInfo().root, "dist", `pglite-empty-${pgliteVersion()}.tar.gz`);
}

/** The installed PGlite's version, from its package.json (which the package does not export: found from its entry). */
function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    const p = path.join(dir, "package.json");
    if (existsSync(p)) {
      const json = JSON.parse(readFileSync(p, "utf8")) as {name?: string; version?: string};
      if (json.name === "@electric-sql/pglite" && json.version) return json.version;
    }
    const up = path.dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

/** The empty cluster to start a new store in `dataDir` from; undefined for an existing store, or without a dump. */
export function newStoreTemplate(dataDir: string | null): Blob | undefined {
  // In memory (tests bring their own template), or a cluster there already.
  if (dataDir === null || existsSync(path.join(dataDir, "PG_VERSION"))) return undefined;
  const file = pgliteTemplateFile();
  return existsSync(file) ? new Blob([readFileSync(file)]) : undefined;
}
