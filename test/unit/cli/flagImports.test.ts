/**
 * Parsing flags loads no store driver: src/cli/flags.ts and config.ts import plain values (src/dataApi/store/
 * defaults.ts, src/util/url.ts, src/cli/evmRpcList.ts), so `resolveConfig` costs no `pg` or PGlite. Each import is
 * watched in a child process by a module resolve hook (node:module `register`) that writes every URL it resolves;
 * the store's client, imported the same way, shows the hook sees both drivers.
 */
import {execFile} from "node:child_process";
import {readFile, writeFile} from "node:fs/promises";
import path from "node:path";
import {fileURLToPath, pathToFileURL} from "node:url";
import {promisify} from "node:util";
import {describe, expect, it} from "vitest";
import {tempDir} from "../../helpers/tempDirs.js";

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../dist/src");
const DRIVERS = [/\/node_modules\/pg\//, /\/node_modules\/@electric-sql\/pglite\//];

/** Every URL resolved while a child process imports `modules` (built dist/ files), in order. */
async function resolvedBy(modules: string[]): Promise<string[]> {
  const dir = tempDir();
  const log = path.join(dir, "resolved.txt");
  const hooks = path.join(dir, "hooks.mjs");
  await writeFile(
    hooks,
    `import {appendFileSync} from "node:fs";
    export async function resolve(specifier, context, next) {
      const r = await next(specifier, context);
      appendFileSync(${JSON.stringify(log)}, r.url + "\\n");
      return r;
    }`,
  );
  await writeFile(log, "");
  const register = `import {register} from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});`;
  const script = modules
    .map((m) => `await import(${JSON.stringify(pathToFileURL(path.join(DIST, m)).href)});`)
    .join("\n");
  await promisify(execFile)(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", script],
    {timeout: 30_000},
  );
  return (await readFile(log, "utf8")).split("\n").filter((l) => l !== "");
}

describe("flag parsing's imports", () => {
  it("loads neither pg nor PGlite", async () => {
    const urls = await resolvedBy(["cli/flags.js", "cli/config.js"]);
    expect(urls.some((u) => u.endsWith("/dist/src/cli/config.js"))).toBe(true);
    expect(urls.filter((u) => DRIVERS.some((d) => d.test(u)))).toEqual([]);
  });

  it("sees both drivers when the store's client is imported (the check can fail)", async () => {
    const urls = await resolvedBy(["dataApi/store/client.js"]);
    for (const d of DRIVERS)
      expect(
        urls.some((u) => d.test(u)),
        String(d),
      ).toBe(true);
  });
});
