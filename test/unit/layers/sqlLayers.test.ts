/**
 * `npm run lint:sql` (scripts/check-sql-layers.mjs) fails on a statement written outside the data API's store,
 * queries and views, naming its file and line, and passes the same statement inside them or in a comment.
 */
import {execFile} from "node:child_process";
import {mkdir, writeFile} from "node:fs/promises";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {promisify} from "node:util";
import {describe, expect, it} from "vitest";
import {tempDir} from "../../helpers/tempDirs.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CHECK = path.join(ROOT, "scripts/check-sql-layers.mjs");

const run = (src: string) =>
  promisify(execFile)(process.execPath, [CHECK, src], {cwd: src}).then(
    (r) => ({code: 0, out: r.stdout + r.stderr}),
    (e: {code: number; stdout: string; stderr: string}) => ({code: e.code, out: e.stdout + e.stderr}),
  );

async function tree(files: Record<string, string>): Promise<string> {
  const dir = tempDir();
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), {recursive: true});
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

const ALLOWED = {
  "dataApi/store/meta.ts": 'export const q = "SELECT value FROM data_api_meta WHERE key = $1";\n',
  "dataApi/queries/blocks.ts": 'export const q = "DELETE FROM webhooks WHERE id = $1";\n',
  "dataApi/views/evm/write.ts": 'export const q = "INSERT INTO evm_blocks (n) VALUES ($1)";\n',
  // Prose and comments may name a statement.
  "dataApi/routes/doc.ts":
    '// The query runs UPDATE webhooks SET secret = $1 in queries/webhooks.ts\nexport const d = "select a chain";\n',
};

describe("the SQL layer check (scripts/check-sql-layers.mjs)", () => {
  it("passes SQL in store/, queries/ and views/, and statements named in comments", async () => {
    const r = await run(await tree(ALLOWED));
    expect(r.code).toBe(0);
  });

  it("fails on SQL in a route, a service and the metrics service, naming each file and line", async () => {
    const dir = await tree({
      ...ALLOWED,
      "dataApi/routes/webhooks.ts": "const a = 1;\nexport const q = `UPDATE webhooks SET secret = $1 WHERE id = $2`;\n",
      "dataApi/service.ts": 'export const q = "CREATE TABLE IF NOT EXISTS t (a int)";\n',
      "metricsService/v2/v2.ts": 'export const q = "SELECT 1";\n',
    });
    const r = await run(dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`${path.join("dataApi", "routes", "webhooks.ts")}:2:`);
    expect(r.out).toContain(`${path.join("dataApi", "service.ts")}:1:`);
    expect(r.out).toContain(`${path.join("metricsService", "v2", "v2.ts")}:1:`);
    expect(r.out).not.toContain("doc.ts");
    expect(r.out).not.toContain("meta.ts");
  });
});
