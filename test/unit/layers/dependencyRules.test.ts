/**
 * The import rules of config/dependency-cruiser.cjs (`npm run lint:deps`) fail on a new violation: the real
 * depcruise command, with the project's config, over a small tree that breaks each layer once, next to an import
 * the rules allow (a route naming the store's client as a type).
 */
import {execFile} from "node:child_process";
import {mkdir, symlink, writeFile} from "node:fs/promises";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {promisify} from "node:util";
import {describe, expect, it} from "vitest";
import {tempDir} from "../../helpers/tempDirs.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const DEPCRUISE = path.join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

/** The tree: file → its text. Each module is named for what it does wrong. */
const TREE: Record<string, string> = {
  "src/dataApi/store/client.ts": `import pg from "pg";\nexport interface SqlClient { query(s: string): Promise<unknown[]> }\nexport const open = (): unknown => new pg.Pool();\n`,
  "src/dataApi/store/defaults.ts": `export const SIZE = 1;\n`,
  "src/dataApi/routes/opensTheStore.ts": `import {open} from "../store/client.js";\nexport const r = open;\n`,
  "src/dataApi/routes/typeOnly.ts": `import type {SqlClient} from "../store/client.js";\nexport const q = (s: SqlClient): unknown => s;\n`,
  "src/dataApi/routes/callsRpc.ts": `import {call} from "../../evm/rpc.js";\nexport const c = call;\n`,
  "src/evm/rpc.ts": `export const call = (): number => 1;\n`,
  "src/dataApi/views/v.ts": `export const v = 1;\n`,
  "src/dataApi/views/readsQueries.ts": `import {q} from "../queries/q.js";\nexport const x = q;\n`,
  "src/dataApi/queries/q.ts": `export const q = 1;\n`,
  "src/util/reachesUp.ts": `import {SIZE} from "../dataApi/store/defaults.js";\nexport const u = SIZE;\n`,
  "src/cli/flags.ts": `import {SIZE} from "../dataApi/store/defaults.js";\nimport {open} from "../dataApi/store/client.js";\nexport const f = [SIZE, open];\n`,
  "src/genesis/readsTheView.ts": `import {v} from "../dataApi/views/v.js";\nexport const g = v;\n`,
  "src/db/knowsTheIndex.ts": `import {e} from "../containerIndex/endpoints.js";\nexport const d = e;\n`,
  "src/containerIndex/endpoints.ts": `import {d} from "../db/knowsTheIndex.js";\nexport const e = 1;\nexport const back = d;\n`,
  "tsconfig.json": JSON.stringify({
    compilerOptions: {module: "NodeNext", moduleResolution: "NodeNext", strict: true},
    include: ["src/**/*.ts"],
  }),
};

interface Violation {
  from: string;
  to: string;
  rule: {name: string};
}

describe("the layer rules (config/dependency-cruiser.cjs)", () => {
  it("fail on each layer's forbidden import, and pass the allowed one", async () => {
    const dir = tempDir();
    for (const [file, text] of Object.entries(TREE)) {
      await mkdir(path.dirname(path.join(dir, file)), {recursive: true});
      await writeFile(path.join(dir, file), text);
    }
    await symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
    // As `npm run lint:deps` runs it: the `err` reporter, whose exit code is the number of errors.
    const args = [
      DEPCRUISE,
      "src",
      "--config",
      path.join(ROOT, "config/dependency-cruiser.cjs"),
      "--output-type",
      "err",
    ];
    const run = await promisify(execFile)(process.execPath, args, {cwd: dir, maxBuffer: 64 * 1024 * 1024}).then(
      (r) => ({code: 0, stdout: r.stdout}),
      (e: {code: number; stdout: string}) => ({code: e.code, stdout: e.stdout}),
    );
    // Each violation reads `error <rule>: <from> → <to>` (a cycle: `→` then one module or folder a line).
    const violations: Violation[] = [...run.stdout.matchAll(/error ([a-z-]+): (\S+) →\s+(\S+)/g)].map((m) => ({
      rule: {name: m[1]!},
      from: m[2]!,
      to: m[3]!,
    }));
    const found = (rule: string, from: string): boolean =>
      violations.some((v) => v.rule.name === rule && v.from === from);
    expect(run.code).not.toBe(0);
    expect(found("routes-load-no-driver", "src/dataApi/routes/opensTheStore.ts")).toBe(true);
    expect(found("routes-call-no-rpc", "src/dataApi/routes/callsRpc.ts")).toBe(true);
    expect(found("views-write-not-read", "src/dataApi/views/readsQueries.ts")).toBe(true);
    expect(found("util-is-a-leaf", "src/util/reachesUp.ts")).toBe(true);
    expect(found("flag-parsing-imports-values", "src/cli/flags.ts")).toBe(true);
    expect(found("flag-parsing-loads-no-driver", "src/cli/flags.ts")).toBe(true);
    expect(found("genesis-below-data-api", "src/genesis/readsTheView.ts")).toBe(true);
    expect(found("low-layers-in-order", "src/db/knowsTheIndex.ts")).toBe(true);
    // A cycle is reported once, from the module of it that depcruise reaches first.
    expect(
      found("no-module-cycles", "src/db/knowsTheIndex.ts") ||
        found("no-module-cycles", "src/containerIndex/endpoints.ts"),
    ).toBe(true);
    expect(found("no-folder-cycles", "src/db")).toBe(true);
    // Allowed: a route names the store's client as a type; flag parsing takes the store's plain defaults.
    expect(violations.filter((v) => v.from === "src/dataApi/routes/typeOnly.ts")).toEqual([]);
    expect(violations.filter((v) => v.to === "src/dataApi/store/defaults.ts" && v.from === "src/cli/flags.ts")).toEqual(
      [],
    );
  }, 180_000);
});
