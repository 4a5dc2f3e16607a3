/**
 * The run's empty PGlite cluster (made once by test/setup/pglite.ts) for the tests that open PGlite stores: a copy
 * of it instead of an initdb for each store. Under a config without that setup, stores are made as avaext makes
 * them. Tests of making a cluster (test/unit/dataApi/store/client.test.ts) do not use this.
 */
import {constants, existsSync} from "node:fs";
import {cp, readFile} from "node:fs/promises";
import path from "node:path";
import {inject} from "vitest";

let dump: Promise<Blob | undefined> | null = null;

/** The cluster's dump, for openSqlClient's `pgliteTemplate` (read once per test file); undefined without the setup. */
export function pgliteTemplate(): Promise<Blob | undefined> {
  const file = inject("pgliteTemplateDump");
  dump ??= file === undefined ? Promise.resolve(undefined) : readFile(file).then((b) => new Blob([b]));
  return dump;
}

/** The cluster's dump file, for a script a test runs; undefined without the setup. */
export function pgliteTemplateFile(): string | undefined {
  return inject("pgliteTemplateDump");
}

/**
 * Makes `dir` (a PGlite data directory) a copy of the empty cluster unless it holds a cluster already: what
 * avaext's first open of it would have made, without the initdb.
 */
export async function seedPgliteDir(dir: string): Promise<void> {
  const template = inject("pgliteTemplateDir");
  if (template === undefined || existsSync(path.join(dir, "PG_VERSION"))) return;
  await cp(template, dir, {recursive: true, mode: constants.COPYFILE_FICLONE});
}

/** The data API's PGlite directory of an avaext with these flags (src/dataApi/service.ts), or null if it has none. */
export function dataApiPgliteDir(config: {
  "data-dir": string;
  "data-api-enabled": boolean;
  "data-api-db": string;
}): string | null {
  return config["data-api-enabled"] && config["data-api-db"] === "embedded"
    ? path.join(config["data-dir"], "data-api")
    : null;
}

/** The same for a child avaext's command-line flags (`--name=value`, a bare boolean flag is true). */
export function childPgliteDir(flags: string[]): string | null {
  const value = (name: string): string | undefined => {
    let v: string | undefined;
    for (const f of flags) {
      if (f === `--${name}`) v = "true";
      else if (f.startsWith(`--${name}=`)) v = f.slice(name.length + 3);
    }
    return v;
  };
  const dataDir = value("data-dir");
  if (dataDir === undefined) return null;
  return dataApiPgliteDir({
    "data-dir": dataDir,
    "data-api-enabled": value("data-api-enabled") === "true",
    "data-api-db": value("data-api-db") ?? "embedded",
  });
}
