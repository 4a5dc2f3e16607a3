/**
 * docs/api/openapi.json is what the route table gives: scripts/openapi.mjs --check, on the build `npm test` makes
 * first (a child process, so this file is left out of `npm run test:unit`).
 */
import {spawnSync} from "node:child_process";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {expect, it} from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));

it("docs/api/openapi.json is what the route table gives (regenerate with npm run build && node scripts/openapi.mjs)", () => {
  const r = spawnSync(process.execPath, [path.resolve(here, "../../../../scripts/openapi.mjs"), "--check"], {
    encoding: "utf8",
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
});
