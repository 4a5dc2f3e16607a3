/** GET /v1/avg_tps/{chainId} over HTTP: chain resolution, paging with tokens, the seed's error body, 429. */
import {afterEach, describe, expect, it} from "vitest";
import type {FeedSource} from "../../src/feed/types.js";
import {idleFeed, startNode, type TestNode} from "../helpers/node.js";

const DAY = 86_400;
const D0 = 19_000 * DAY;
let t: TestNode | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

type Page = {results: {timestamp: number; value: number}[]; status: number; lastRun: number; nextPageToken?: string};

describe("metrics service", () => {
  it("serves the series newest first by EVM chain ID, chain alias or chain ID, paging with tokens", async () => {
    // No feed: the test adds the blocks itself, once the series is restored from the store (the feed runs after).
    let restored!: () => void;
    const running = new Promise<void>((r) => (restored = r));
    const feed: FeedSource = {
      key: idleFeed.key,
      run: (position, sink, signal) => (restored(), idleFeed.run(position, sink, signal)),
    };
    t = await startNode({"network-id": "local"}, {overrides: {feed}});
    await running;
    for (let d = 0; d < 25; d++) {
      t.node.avgTps.add("C", {timestamp: D0 + d * DAY + 100, txCount: d});
      t.node.avgTps.add("C", {timestamp: D0 + d * DAY + 200, txCount: 0});
    }
    const first = (await t.get("/v1/avg_tps/43112")).json() as Page;
    expect(first.status).toBe(200);
    expect(first.results).toHaveLength(10);
    expect(first.results[0]!.timestamp).toBe(D0 + 24 * DAY);
    expect(first.results[9]!.timestamp).toBe(D0 + 15 * DAY);
    expect(first.lastRun).toBeGreaterThan(1_700_000_000);
    expect(Object.keys(first)).toEqual(["results", "status", "lastRun", "nextPageToken"]);
    const second = (await t.get(`/v1/avg_tps/43112?pageToken=${first.nextPageToken}`)).json() as Page;
    expect(second.results[0]!.timestamp).toBe(D0 + 14 * DAY);
    const third = (await t.get(`/v1/avg_tps/43112?pageToken=${second.nextPageToken}`)).json() as Page;
    expect(third.results).toHaveLength(5);
    expect(third.nextPageToken).toBeUndefined();
    const byAlias = (await t.get("/v1/avg_tps/C")).json() as Page;
    expect(byAlias.results).toEqual(first.results);
    const byId = (await t.get("/v1/avg_tps/2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC")).json() as Page;
    expect(byId.results).toEqual(first.results);
    const small = (await t.get("/v1/avg_tps/evm?pageSize=3")).json() as Page;
    expect(small.results).toHaveLength(3);
  });

  it("answers errors with the seed's body: 404 unknown chain, 400 bad token or page size, 405", async () => {
    t = await startNode({"network-id": "local"}, {overrides: {feed: idleFeed}});
    const notFound = await t.get("/v1/avg_tps/43114");
    expect(notFound.status).toBe(404);
    expect(notFound.json()).toEqual({message: ["chain 43114 not found"], error: "Not Found", statusCode: 404});
    const badToken = await t.get("/v1/avg_tps/C?pageToken=abc");
    expect(badToken.status).toBe(400);
    expect(badToken.json()).toMatchObject({error: "Bad Request", statusCode: 400});
    expect((await t.get("/v1/avg_tps/C?pageSize=0")).status).toBe(400);
    expect((await t.get("/v1/avg_tps/C?pageSize=101")).status).toBe(400);
    expect((await t.get("/v1/avg_tps/")).status).toBe(404);
    expect((await t.get("/v1/avg_tps/C/extra")).status).toBe(404);
    expect((await t.post("/v1/avg_tps/C", "{}")).status).toBe(405);
    const empty = (await t.get("/v1/avg_tps/P")).json() as Page;
    expect(empty).toEqual({results: [], status: 200, lastRun: 0});
  });

  it("answers 429 with Retry-After over the per-client rate", async () => {
    t = await startNode({"metrics-service-rate-limit": "5"});
    const statuses: number[] = [];
    let retry: string | null = null;
    for (let i = 0; i < 7; i++) {
      const r = await t.get("/v1/avg_tps/C");
      statuses.push(r.status);
      if (r.status === 429) retry = r.headers.get("retry-after");
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(Number(retry)).toBeGreaterThan(0);
    expect((await t.get("/ext/health/liveness")).status).toBe(200);
  });

  it("is absent when --metrics-service-enabled=false", async () => {
    t = await startNode({"metrics-service-enabled": "false"});
    expect((await t.get("/v1/avg_tps/C")).status).toBe(404);
  });
});

describe("avg_tps from decoded, indexed blocks", () => {
  it("computes the exact series from real-format C blocks fed through a file feed, and rebuilds it on restart", async () => {
    const {buildCBlock} = await import("../../src/decode/builders.js");
    const {decodeProposerBlock} = await import("../../src/decode/proposervm.js");
    const {writeFileSync} = await import("node:fs");
    const path = await import("node:path");
    const {tempDir} = await import("../helpers/node.js");
    const {waitForCount} = await import("../helpers/feed.js");
    // Day 0: blocks at +100 s (2 txs) and +400 s (4 txs): 6 / 300 s. Day 1: +50 s (10 txs): 10 / (DAY + 50 - 400).
    const blocks = [
      {t: D0 + 100, txs: 2},
      {t: D0 + 400, txs: 4},
      {t: D0 + DAY + 50, txs: 10},
    ];
    let parent: Uint8Array = new Uint8Array(32);
    const lines = blocks.map((b, i) => {
      const bytes = buildCBlock({
        networkId: 1,
        chainId: new Uint8Array(32),
        parentId: parent,
        parentHash: new Uint8Array(32),
        height: i + 1,
        timestamp: b.t,
        txs: b.txs,
        pChainHeight: 0n,
      });
      parent = decodeProposerBlock(bytes).id;
      return JSON.stringify({chain: "C", kind: "block", bytes: "0x" + Buffer.from(bytes).toString("hex")}) + "\n";
    });
    // An undecodable block is indexed but left out of the series.
    lines.push(JSON.stringify({chain: "C", kind: "block", bytes: "0x0102030405"}) + "\n");
    const dir = tempDir();
    const feed = path.join(dir, "c.ndjson");
    writeFileSync(feed, lines.join(""));
    const flags = {"index-enabled": "true", feed: `file:${feed}`};
    const expected = [
      {timestamp: D0 + DAY, value: 10 / (DAY + 50 - 400)},
      {timestamp: D0, value: 6 / 300},
    ];
    t = await startNode(flags, {dataDir: path.join(dir, "data"), keepData: true});
    await waitForCount(t, "/ext/index/C/block", 4);
    expect(((await t.get("/v1/avg_tps/43114")).json() as Page).results).toEqual(expected);
    await t.close();
    t = await startNode(flags, {dataDir: path.join(dir, "data")});
    const deadline = Date.now() + 30_000;
    let page = (await t.get("/v1/avg_tps/C")).json() as Page;
    while (page.results.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      page = (await t.get("/v1/avg_tps/C")).json() as Page;
    }
    expect(page.results).toEqual(expected);
  });
});
