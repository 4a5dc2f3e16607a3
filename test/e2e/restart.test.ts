/** Restarts: data persists; the incomplete-index rules refuse with exit 1 naming both flags (docs/api/index.md). */
import {rmSync, writeFileSync} from "node:fs";
import net from "node:net";
import path from "node:path";
import {afterAll, describe, expect, it} from "vitest";
import {feedLine, waitForCount} from "../helpers/feed.js";
import {rpc, runChild, startChild} from "../helpers/child.js";
import {startNode, tempDir} from "../helpers/node.js";

const dir = tempDir();
afterAll(() => rmSync(dir, {recursive: true, force: true}));

describe("restarts", () => {
  it("keeps the index across a restart and resumes the feed without duplicates", async () => {
    const data = path.join(dir, "keep");
    const feed = path.join(dir, "keep.ndjson");
    writeFileSync(feed, [0, 1, 2].map((n) => feedLine({chain: "X", kind: "tx", n})).join(""));
    const flags = {"index-enabled": "true", feed: `file:${feed}`};
    const a = await startNode(flags, {dataDir: data, keepData: true});
    await waitForCount(a, "/ext/index/X/tx", 3);
    await a.close();
    writeFileSync(feed, [0, 1, 2, 3].map((n) => feedLine({chain: "X", kind: "tx", n})).join(""));
    const b = await startNode(flags, {dataDir: data, keepData: true});
    await waitForCount(b, "/ext/index/X/tx", 4);
    const r = await b.rpc("/ext/index/X/tx", "index.getContainerRange", {startIndex: 0, numToFetch: 10});
    expect((r.body.result as {containers: unknown[]}).containers).toHaveLength(4);
    await b.close();
  });

  it("exits 1 with one line when the port is taken (no logger stack)", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const data = path.join(dir, "port-taken");
      const r = await runChild([
        `--data-dir=${data}`,
        `--log-dir=${path.join(data, "logs")}`,
        `--http-port=${port}`,
        "--dev-backfill=0",
      ]);
      expect(r.code).toBe(1);
      expect(r.output).toContain(`avaext: listen EADDRINUSE: address already in use 127.0.0.1:${port}`);
      expect(r.output).not.toMatch(/\n\s+at /);
      // The database was released: the same data directory opens again.
      const again = await startChild([`--data-dir=${data}`, "--dev-backfill=0"]);
      again.proc.kill("SIGTERM");
      expect(await again.exited).toBe(0);
    } finally {
      blocker.close();
    }
  });

  it("refuses to run with indexing off on an indexed database (exit 1), unless incomplete is allowed", async () => {
    const data = path.join(dir, "indexed");
    const first = await startChild([`--data-dir=${data}`, "--index-enabled", "--dev-backfill=0"]);
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const refused = await runChild([`--data-dir=${data}`, "--index-enabled=false"]);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(
      /running would cause index to become incomplete but incomplete indices are disabled/,
    );
    expect(refused.output).toMatch(/--index-enabled/);
    expect(refused.output).toMatch(/--index-allow-incomplete/);
    // Allowed: runs, and marks the index incomplete...
    const allowed = await startChild([`--data-dir=${data}`, "--index-enabled=false", "--index-allow-incomplete"]);
    expect((await rpc(allowed.url, "/ext/health", "health.liveness")).result).toEqual({checks: {}, healthy: true});
    allowed.proc.kill("SIGTERM");
    expect(await allowed.exited).toBe(0);
    // ...so turning indexing back on now needs --index-allow-incomplete too.
    const again = await runChild([`--data-dir=${data}`, "--index-enabled"]);
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/index is incomplete but incomplete indices are disabled/);
    const ok = await startChild([`--data-dir=${data}`, "--index-enabled", "--index-allow-incomplete"]);
    ok.proc.kill("SIGTERM");
    expect(await ok.exited).toBe(0);
    // Six processes, three of them starting the dev network and its two EVMs: 5-15 s each on a busy machine.
  }, 120_000);

  it("a database that ran without indexing cannot start indexing without allow-incomplete", async () => {
    const data = path.join(dir, "neverindexed");
    const first = await startChild([`--data-dir=${data}`]);
    first.proc.kill("SIGINT");
    expect(await first.exited).toBe(0);
    const refused = await runChild([`--data-dir=${data}`, "--index-enabled"]);
    expect(refused.code).toBe(1);
  });

  it("refuses a database locked by another running avaext (exit 1)", async () => {
    const data = path.join(dir, "locked");
    const first = await startChild([`--data-dir=${data}`]);
    try {
      const second = await runChild([`--data-dir=${data}`]);
      expect(second.code).toBe(1);
      expect(second.output).toMatch(/is locked by another process/);
    } finally {
      first.proc.kill("SIGTERM");
      await first.exited;
    }
  });
});
