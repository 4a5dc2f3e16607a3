/**
 * The per-chain state (last accepted block height and ID, for the health checks) is kept with indexing off and
 * survives a restart: it is stored in the batch of the containers that moved it (docs/api/index.md).
 */
import {appendFileSync, rmSync, writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, describe, expect, it} from "vitest";
import type {ChainName} from "../../src/chains/index.js";
import {containerBytes, feedLine, sha256Id} from "../helpers/feed.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const dir = tempDir();
afterAll(() => rmSync(dir, {recursive: true, force: true}));

async function waitFor(t: TestNode, chain: ChainName, height: number): Promise<{height: bigint; id: string}> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const last = t.node.feedStatus.lastAccepted(chain);
    if (last !== null && last.height === BigInt(height)) return last;
    if (Date.now() > deadline)
      throw new Error(
        `${chain} did not reach height ${height}: ${JSON.stringify(last, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pBlock = (n: number): string => feedLine({chain: "P", kind: "block", n});
const pId = (n: number): string => sha256Id(containerBytes("P", "block", n));

describe("chain state with indexing off", () => {
  it("advances per block (txs do not count), and a restart resumes it instead of starting over", async () => {
    const data = path.join(dir, "off");
    const feed = path.join(dir, "off.ndjson");
    writeFileSync(feed, pBlock(0) + pBlock(1) + feedLine({chain: "X", kind: "tx", n: 0}) + pBlock(2));
    const flags = {"index-enabled": "false", feed: `file:${feed}`};
    const a = await startNode(flags, {dataDir: data, keepData: true});
    expect((await waitFor(a, "P", 2)).id).toBe(pId(2));
    expect(a.node.feedStatus.lastAccepted("X")).toBeNull();
    await a.close();

    const b = await startNode(flags, {dataDir: data, keepData: true});
    try {
      // Before any new line: the stored state, not nothing (and not height 0).
      const deadline = Date.now() + 15_000;
      while (b.node.feedStatus.lastAccepted("P") === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(b.node.feedStatus.lastAccepted("P")).toEqual({height: 2n, id: pId(2)});
      appendFileSync(feed, pBlock(3) + pBlock(4));
      expect((await waitFor(b, "P", 4)).id).toBe(pId(4));
    } finally {
      await b.close();
    }
  });
});
