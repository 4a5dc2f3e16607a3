/**
 * The http mirror source against a small real upstream on 127.0.0.1: pages of 1024 in order, and a failed commit
 * ends run() (so the ingester restarts from the committed position) instead of being taken for an upstream
 * failure, which would skip the page that failed.
 */
import {createServer, type Server} from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {decodeHttpPosition, HttpFeed, defaultHttpFeedOptions} from "../../../src/feed/http.js";
import {FeedStatus} from "../../../src/feed/status.js";
import type {FeedBatch} from "../../../src/feed/types.js";
import {ENDPOINTS} from "../../../src/index/endpoints.js";
import {LoggerRegistry} from "../../../src/logger/index.js";
import {cb58Encode, sha256} from "../../../src/util/cb58.js";
import {hexWithChecksum} from "../../../src/util/hex.js";

const TOTAL = 2500;
const P_BLOCK = ENDPOINTS.findIndex((e) => e.name === "P/block");
const containers = Array.from({length: TOTAL}, (_, i) => {
  const bytes = sha256(Buffer.from(`c${i}`));
  return {id: cb58Encode(sha256(bytes)), bytes: hexWithChecksum(bytes), timestamp: "2024-05-01T12:00:00Z", encoding: "hex", index: String(i)};
});

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      if (req.url !== "/ext/index/P/block") {
        res.writeHead(404).end();
        return;
      }
      const {id, params} = JSON.parse(body) as {id: number; params: {startIndex: string; numToFetch: number}};
      const start = Number(params.startIndex);
      const answer =
        start >= TOTAL
          ? {jsonrpc: "2.0", id, error: {code: -32000, message: `start index (${start}) > last accepted index (${TOTAL - 1})`}}
          : {jsonrpc: "2.0", id, result: {containers: containers.slice(start, start + params.numToFetch)}};
      res.writeHead(200, {"content-type": "application/json"}).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function feed(): HttpFeed {
  const logger = new LoggerRegistry({logLevel: "INFO", displayLevel: "OFF", logDir: null}).get("main");
  return new HttpFeed({...defaultHttpFeedOptions, url, pollMs: 20, minBackoffMs: 10}, {status: new FeedStatus(), logger});
}

describe("http mirror source", () => {
  it("a failed commit ends run() with its error; a rerun from the committed position loses nothing", async () => {
    const got: string[] = [];
    let committed: Uint8Array | null = null;
    let calls = 0;
    const failing = async (b: FeedBatch): Promise<void> => {
      if (++calls === 2) throw new Error("disk full");
      got.push(...b.items.map((it) => cb58Encode(it.id)));
      committed = b.position;
    };
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 5000);
    await expect(feed().run(null, failing, ctrl.signal)).rejects.toThrow("disk full");
    expect(got).toHaveLength(1024);
    expect(decodeHttpPosition(committed)[P_BLOCK]).toBe(1024n);

    // The ingester's restart: run again from what was committed, until the tip.
    const again = async (b: FeedBatch): Promise<void> => {
      got.push(...b.items.map((it) => cb58Encode(it.id)));
      if (got.length === TOTAL) ctrl.abort();
    };
    await feed().run(committed, again, ctrl.signal);
    clearTimeout(timer);
    expect(got).toEqual(containers.map((c) => c.id));
  });
});
