/**
 * The http mirror source against a small real upstream on 127.0.0.1: pages of 1024 in order, and a failed commit
 * ends run() (so the ingester restarts from the committed position) instead of being taken for an upstream
 * failure, which would skip the page that failed.
 */
import {createServer, type Server} from "node:http";
import {Writable} from "node:stream";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {decodeHttpPosition, HttpFeed, defaultHttpFeedOptions} from "../../../src/feed/http.js";
import {FeedStatus} from "../../../src/feed/status.js";
import type {FeedBatch} from "../../../src/feed/types.js";
import {ENDPOINTS} from "../../../src/containerIndex/endpoints.js";
import {LoggerRegistry} from "../../../src/logger/index.js";
import {cb58Encode} from "../../../src/util/cb58.js";
import {sha256} from "../../../src/util/sha256.js";
import {hexWithChecksum} from "../../helpers/feed.js";

const TOTAL = 2500;
const P_BLOCK = ENDPOINTS.findIndex((e) => e.name === "P/block");
const containers = Array.from({length: TOTAL}, (_, i) => {
  const bytes = sha256(Buffer.from(`c${i}`));
  return {
    id: cb58Encode(sha256(bytes)),
    bytes: hexWithChecksum(bytes),
    timestamp: "2024-05-01T12:00:00Z",
    encoding: "hex",
    index: String(i),
  };
});

/** `n` distinct containers of an X endpoint, told apart by `label`. */
function xContainers(n: number, label: string): typeof containers {
  return Array.from({length: n}, (_, i) => {
    const bytes = sha256(Buffer.from(`${label}${i}`));
    return {
      id: cb58Encode(sha256(bytes)),
      bytes: hexWithChecksum(bytes),
      timestamp: "2024-05-01T12:00:00Z",
      encoding: "hex",
      index: String(i),
    };
  });
}

/** What the upstream serves; a test may swap in a page with a bad container. */
let served = containers;
/** Other endpoints the upstream serves (path → containers); none unless a test sets them. */
let others: Record<string, typeof containers> = {};
/** Called with each request's path before it is answered (a test may change what the upstream holds). */
let onRequest: ((path: string) => void) | null = null;
/** Paths the upstream answers with a 502, as a proxy in front of it might. */
let failing = new Set<string>();
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      onRequest?.(req.url ?? "");
      if (failing.has(req.url ?? "")) {
        res.writeHead(502).end();
        return;
      }
      const list = req.url === "/ext/index/P/block" ? served : others[req.url ?? ""];
      if (list === undefined) {
        res.writeHead(404).end();
        return;
      }
      const {id, params} = JSON.parse(body) as {id: number; params: {startIndex: string; numToFetch: number}};
      const start = Number(params.startIndex);
      const answer =
        start >= list.length
          ? {
              jsonrpc: "2.0",
              id,
              error: {code: -32000, message: `start index (${start}) > last accepted index (${list.length - 1})`},
            }
          : {jsonrpc: "2.0", id, result: {containers: list.slice(start, start + params.numToFetch)}};
      res.writeHead(200, {"content-type": "application/json"}).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function feed(status = new FeedStatus(), lines: string[] = []): HttpFeed {
  const displayStream = new Writable({
    write(chunk: Buffer, _enc, done): void {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = new LoggerRegistry({logLevel: "OFF", displayLevel: "INFO", logDir: null, displayStream}).get("main");
  return new HttpFeed(
    {...defaultHttpFeedOptions, url, pollMs: 20, minBackoffMs: 10, maxBackoffMs: 20},
    {status, logger},
  );
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
    const timer = setTimeout(() => ctrl.abort(), 20_000);
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

  it("takes every vertex of the upstream's X-chain before its first block (the DAG precedes the blocks)", async () => {
    others = {"/ext/index/X/vtx": xContainers(2100, "v"), "/ext/index/X/block": xContainers(10, "b")};
    try {
      const kinds: string[] = [];
      const ctrl = new AbortController();
      await feed().run(
        null,
        async (b) => {
          for (const it of b.items) if (it.chain === "X") kinds.push(it.kind);
          if (kinds.length === 2110) ctrl.abort();
        },
        ctrl.signal,
      );
      expect(kinds.indexOf("block")).toBe(2100);
    } finally {
      others = {};
    }
  });

  it("takes vertices the upstream accepted between its X/vtx and X/block answers before those blocks", async () => {
    others = {"/ext/index/X/vtx": xContainers(5, "v"), "/ext/index/X/block": []};
    // The upstream commits its last vertices and its first blocks at once, just as the mirror asks for blocks.
    onRequest = (p) => {
      if (p !== "/ext/index/X/block" || others["/ext/index/X/block"]!.length > 0) return;
      others = {"/ext/index/X/vtx": xContainers(8, "v"), "/ext/index/X/block": xContainers(3, "b")};
    };
    try {
      const kinds: string[] = [];
      const ctrl = new AbortController();
      await feed().run(
        null,
        async (b) => {
          for (const it of b.items) if (it.chain === "X") kinds.push(it.kind);
          if (kinds.length === 11) ctrl.abort();
        },
        ctrl.signal,
      );
      expect(kinds).toEqual([...Array<string>(8).fill("vtx"), ...Array<string>(3).fill("block")]);
    } finally {
      others = {};
      onRequest = null;
    }
  });

  it("a failing X/vtx holds back the X blocks only; the other endpoints go on, and the blocks follow once it answers", async () => {
    others = {
      "/ext/index/X/vtx": [],
      "/ext/index/X/block": xContainers(3, "b"),
      "/ext/index/X/tx": xContainers(4, "t"),
    };
    failing = new Set(["/ext/index/X/vtx"]);
    try {
      const kinds: string[] = [];
      const ctrl = new AbortController();
      const run = feed().run(
        null,
        async (b) => {
          for (const it of b.items) if (it.chain === "X") kinds.push(it.kind);
          if (kinds.length === 7) ctrl.abort();
        },
        ctrl.signal,
      );
      await expect.poll(() => kinds.length, {timeout: 10_000}).toBe(4);
      await new Promise((r) => setTimeout(r, 200));
      expect(kinds).toEqual(["tx", "tx", "tx", "tx"]);
      failing = new Set();
      await run;
      expect(kinds.slice(4)).toEqual(["block", "block", "block"]);
    } finally {
      others = {};
      failing = new Set();
    }
  });

  it("hands on the upstream's bytes without the checksum, the checksum it checked, and the timestamp in ns", async () => {
    const ctrl = new AbortController();
    let first: FeedBatch | null = null;
    await feed().run(
      null,
      async (b) => {
        first ??= b;
        ctrl.abort();
      },
      ctrl.signal,
    );
    const it0 = first!.items[0]!;
    const bytes = Buffer.from(containers[0]!.bytes.slice(2, -8), "hex");
    expect(Buffer.from(it0.bytes).equals(bytes)).toBe(true);
    expect(Buffer.from(it0.checksum!).toString("hex")).toBe(containers[0]!.bytes.slice(-8));
    expect(it0.timestampNs).toBe(1_714_564_800_000_000_000n);
    expect(cb58Encode(it0.id)).toBe(containers[0]!.id);
  });

  for (const [what, bad, reason] of [
    ["a bad checksum", {bytes: containers[5]!.bytes.slice(0, -2) + "00"}, "bad checksum"],
    ["a timestamp past 2262", {timestamp: "2300-01-01T00:00:00Z"}, "bad timestamp"],
    ["a timestamp before 1970", {timestamp: "1969-12-31T23:59:59Z"}, "bad timestamp"],
  ] as const) {
    it(`a page with ${what} is refused whole and retried, never committed; fixed upstream, the mirror goes on`, async () => {
      served = containers.map((c, i) => (i === 5 ? {...c, ...bad} : c));
      const status = new FeedStatus();
      const got: string[] = [];
      const ctrl = new AbortController();
      const sink = async (b: FeedBatch): Promise<void> => {
        got.push(...b.items.map((it) => cb58Encode(it.id)));
        if (got.length === TOTAL) ctrl.abort();
      };
      const lines: string[] = [];
      const running = feed(status, lines).run(null, sink, ctrl.signal);
      for (const deadline = Date.now() + 20_000; status.connection().sendFailRate < 0.5 && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 10));
      expect(status.connection()).toMatchObject({connected: false});
      expect(status.connection().sendFailRate).toBeGreaterThanOrEqual(0.5);
      expect(got).toEqual([]);
      served = containers;
      await running;
      expect(got).toEqual(containers.map((c) => c.id));
      expect(status.connection().connected).toBe(true);
      const warning = lines
        .map((l) => JSON.parse(l) as {msg: string; err?: string})
        .find((l) => l.msg.startsWith("upstream failing"));
      expect(warning?.err).toBe(
        `upstream P/block container ${containers[5]!.id}: ${reason} ${"timestamp" in bad ? bad.timestamp : ""}`.trimEnd(),
      );
    });
  }
});
