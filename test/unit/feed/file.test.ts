/**
 * The file source on its own, on a real file with small read chunks: an over-long line is reported once with its
 * number and skipped to its newline (the line numbers after it stay right), and positions step line by line.
 */
import {appendFileSync, rmSync, writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, describe, expect, it} from "vitest";
import {ChainRegistry, NETWORKS} from "../../../src/chains/index.js";
import {decodeFilePosition, defaultFileFeedOptions, FileFeed} from "../../../src/feed/file.js";
import {FeedStatus} from "../../../src/feed/status.js";
import type {FeedBatch} from "../../../src/feed/types.js";
import {LoggerRegistry} from "../../../src/logger/index.js";
import {containerBytes, feedLine} from "../../helpers/feed.js";
import {tempDir} from "../../helpers/node.js";

const dir = tempDir();
afterAll(() => rmSync(dir, {recursive: true, force: true}));

describe("file source", () => {
  it("reports an over-long line once and skips it to its newline; later line numbers stay right", async () => {
    const file = path.join(dir, "long.ndjson");
    const good = (n: number): string => feedLine({chain: "X", kind: "tx", n});
    writeFileSync(file, good(0) + "a".repeat(1000) + "\n" + good(1) + "not json\n" + good(2).slice(0, -1));
    const bad: [number, string][] = [];
    const got: Buffer[] = [];
    let position: Uint8Array | null = null;
    const logger = new LoggerRegistry({logLevel: "INFO", displayLevel: "OFF", logDir: null}).get("main");
    const status = new FeedStatus();
    const feed = new FileFeed(
      {...defaultFileFeedOptions, path: file, chunkSize: 64, maxLineBytes: 400, pollMs: 10},
      {chains: new ChainRegistry(NETWORKS.local), status, logger, bad: {badLine: (n, r) => bad.push([n, r])}},
    );
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 20_000);
    const run = feed.run(
      null,
      async (b: FeedBatch) => {
        got.push(...b.items.map((it) => Buffer.from(it.bytes)));
        position = b.position;
        if (got.length === 3) ctrl.abort();
      },
      ctrl.signal,
    );
    // The last line has no newline yet: the feed reads up to it (some fifty 64-byte reads, each through libuv's
    // thread pool, so polled rather than timed), says it is caught up, and waits.
    for (const deadline = Date.now() + 30_000; !(status.caughtUp() && got.length === 2) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(status.caughtUp()).toBe(true);
    expect(got).toHaveLength(2);
    appendFileSync(file, "\n");
    await run;
    clearTimeout(timer);
    expect(got).toEqual([0, 1, 2].map((n) => containerBytes("X", "tx", n)));
    expect(bad).toEqual([
      [2, "line longer than 400 bytes"],
      [4, expect.stringMatching(/^not JSON: /)],
    ]);
    expect(decodeFilePosition(position!)).toMatchObject({lineNo: 5});
  });
});
