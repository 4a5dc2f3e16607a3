import {spawnSync} from "node:child_process";
import path from "node:path";
import {describe, expect, it} from "vitest";

const SCRIPT = path.resolve(__dirname, "../../../scripts/check-links.mjs");

describe("docs", () => {
  it("every relative link of README.md, CHANGELOG.md and docs/ resolves, anchors too (scripts/check-links.mjs)", () => {
    const r = spawnSync(process.execPath, [SCRIPT], {encoding: "utf8"});
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});
