/** One avaext mirrors another (fed from a file) over HTTP; both answer every index method identically. */
import {appendFileSync, writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {feedLine, waitForCount} from "../helpers/feed.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const ENDPOINTS = ["X/tx", "P/block", "C/block", "X/block"];
let upstream: TestNode;
let mirror: TestNode;
let feed: string;
const counts: Record<string, number> = {"X/tx": 0, "P/block": 0, "C/block": 0, "X/block": 0};

function lines(from: number, n: number): string {
  let out = "";
  for (let i = from; i < from + n; i++) {
    const ep = ENDPOINTS[i % ENDPOINTS.length]!;
    const [chain, kind] = ep.split("/") as [string, "block" | "tx"];
    counts[ep]!++;
    out += feedLine(
      {chain, kind, n: i, size: 100 + (i % 50)},
      {timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString().replace("Z", "123Z")},
    );
  }
  return out;
}

beforeAll(async () => {
  feed = path.join(tempDir(), "feed.ndjson");
  writeFileSync(feed, lines(0, 5000));
  upstream = await startNode({"index-enabled": "true", feed: `file:${feed}`});
  mirror = await startNode({"index-enabled": "true", feed: upstream.url.toString().replace(/\/$/, "")});
  for (const ep of ENDPOINTS) await waitForCount(mirror, `/ext/index/${ep}`, counts[ep]!, 30_000);
}, 180_000);
afterAll(async () => {
  await mirror.close();
  await upstream.close();
});

async function same(p: string, method: string, params?: unknown): Promise<unknown> {
  const a = await upstream.rpc(p, method, params);
  const b = await mirror.rpc(p, method, params);
  expect(b.body, `${p} ${method} ${JSON.stringify(params)}`).toEqual(a.body);
  return a.body.result ?? a.body.error;
}

describe("mirroring an upstream node's index", () => {
  it("answers every method identically on every endpoint (more than one 1024-page)", async () => {
    for (const ep of [...ENDPOINTS, "X/vtx"]) {
      const p = `/ext/index/${ep}`;
      const last = (await same(p, "index.getLastAccepted")) as {id?: string; index?: string};
      await same(p, "index.getContainerRange", {startIndex: 0, numToFetch: 1024, encoding: "hexnc"});
      await same(p, "index.getContainerRange", {startIndex: 1000, numToFetch: 300});
      await same(p, "index.getContainerByIndex", {index: 7, encoding: "hexc"});
      await same(p, "index.getContainerByIndex", {index: 999_999});
      if (last.id) {
        await same(p, "index.getIndex", {id: last.id});
        await same(p, "index.isAccepted", {id: last.id});
        await same(p, "index.getContainerByID", {id: last.id});
      }
      await same(p, "index.isAccepted", {id: "11111111111111111111111111111111LpoYY"});
    }
    // Upstream IDs and timestamps are kept: the mirror reports the upstream's acceptance times, not its own.
    const c = (await mirror.rpc("/ext/index/X/tx", "index.getContainerByIndex", {index: 0})).body.result as {
      timestamp: string;
    };
    expect(c.timestamp).toBe("2023-11-14T22:13:20.000123Z");
  });

  it("follows the tip", async () => {
    appendFileSync(feed, lines(5000, 8));
    for (const ep of ENDPOINTS) await waitForCount(mirror, `/ext/index/${ep}`, counts[ep]!, 30_000);
    await same("/ext/index/C/block", "index.getLastAccepted");
  });

  it("reports the upstream connection in the network check", async () => {
    const r = await mirror.rpc("/ext/health", "health.health");
    const network = (r.body.result as {checks: Record<string, {message: {connectedPeers: number}}>}).checks.network!;
    expect(network.message.connectedPeers).toBe(1);
  });
});

describe("an upstream that goes away", () => {
  it("is retried with backoff and reported, never fatal", async () => {
    const n = await startNode({"index-enabled": "true", feed: "http://127.0.0.1:9"}, {captureLogs: true});
    try {
      const deadline = Date.now() + 15_000;
      let report: {checks: Record<string, {error?: string}>} | undefined;
      while (Date.now() < deadline) {
        report = (await n.rpc("/ext/health", "health.health")).body.result as typeof report;
        // The check says "not connected" from the start; the first failed attempt is logged a moment later.
        const logged = n.logs.some((l) => l.msg === "upstream failing; retrying with backoff");
        if (logged && report?.checks.network?.error?.includes("not connected")) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(report?.checks.network?.error).toMatch(
        /^network layer is unhealthy reason: not connected to a minimum of 1 peer\(s\) only 0/,
      );
      expect(n.logs.some((l) => l.msg === "upstream failing; retrying with backoff")).toBe(true);
      expect((await n.rpc("/ext/health", "health.liveness")).body.result).toEqual({checks: {}, healthy: true});
    } finally {
      await n.close();
    }
  });
});
