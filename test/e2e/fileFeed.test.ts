/**
 * The file feed when its file is truncated or replaced (rotation), while running or while stopped: like `tail -f`,
 * the new content is read from its start; containers already indexed are skipped by ID, so nothing is lost or
 * indexed twice. (Before, a truncated file was waited on forever, and once it grew past the old offset it was
 * read from the middle of a line.)
 */
import {renameSync, rmSync, truncateSync, writeFileSync, appendFileSync} from "node:fs";
import path from "node:path";
import {afterAll, describe, expect, it} from "vitest";
import {containerBytes, feedLine, sha256Id, waitForCount} from "../helpers/feed.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const X = "/ext/index/X/tx";
const dir = tempDir();
afterAll(() => rmSync(dir, {recursive: true, force: true}));

const line = (n: number): string => feedLine({chain: "X", kind: "tx", n});
const lines = (...ns: number[]): string => ns.map(line).join("");

async function ids(t: TestNode): Promise<string[]> {
  const r = await t.rpc(X, "index.getContainerRange", {startIndex: 0, numToFetch: 1024});
  return (r.body.result as {containers: {id: string}[]}).containers.map((c) => c.id);
}
const want = (...ns: number[]): string[] => ns.map((n) => sha256Id(containerBytes("X", "tx", n)));

describe("file feed: truncation and replacement", () => {
  it("reads a truncated or rotated file from its start, while running and across a restart", async () => {
    const data = path.join(dir, "data");
    const feed = path.join(dir, "feed.ndjson");
    writeFileSync(feed, lines(0, 1, 2));
    const flags = {"index-enabled": "true", feed: `file:${feed}`};
    const a = await startNode(flags, {dataDir: data, keepData: true, captureLogs: true});
    try {
      await waitForCount(a, X, 3);
      // Truncated in place, then shorter content written: read from the start.
      truncateSync(feed, 0);
      appendFileSync(feed, lines(3, 4));
      await waitForCount(a, X, 5);
      // Rotated: renamed away, a new file under the name (starting with a container already indexed).
      renameSync(feed, feed + ".1");
      writeFileSync(feed, lines(0, 5, 6));
      await waitForCount(a, X, 7);
      expect(await ids(a)).toEqual(want(0, 1, 2, 3, 4, 5, 6));
      const warned = a.logs.filter((l) => typeof l.msg === "string" && l.msg.startsWith("feed file was"));
      expect(warned.map((l) => l.msg)).toEqual([
        "feed file was truncated; reading it from the start (containers already indexed are skipped)",
        "feed file was replaced; reading it from the start (containers already indexed are skipped)",
      ]);
    } finally {
      await a.close();
    }

    // Replaced while stopped by a longer file: the stored offset points into other content; its inode says so.
    const tmp = feed + ".new";
    writeFileSync(tmp, lines(7, 8, 9, 10, 11));
    renameSync(tmp, feed);
    const b = await startNode(flags, {dataDir: data, keepData: true, captureLogs: true});
    try {
      await waitForCount(b, X, 12);
      expect(await ids(b)).toEqual(want(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
      expect(b.logs.filter((l) => l.msg === "bad feed line skipped")).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
