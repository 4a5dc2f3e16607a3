/**
 * Fuzzed input (issue #8): over 10,000 generated and mutated requests to every endpoint. The server must never
 * crash, never answer 5xx, and every JSON-RPC answer must be valid JSON-RPC 2.0 with a known error code; -32603
 * (internal error) would mean client input reached an unexpected failure, so it counts as a bug.
 */
import http from "node:http";
import {writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {feedLine, waitForCount} from "../helpers/feed.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const TOTAL = Number(process.env.FUZZ_COUNT ?? 10_500);
const CODES = new Set([-32700, -32600, -32601, -32602, -32000]);

let t: TestNode;
const agent = new http.Agent({keepAlive: true, maxSockets: 8});

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}
const rand = prng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (n: number): number => Math.floor(rand() * n);

const RPC_PATHS = ["/ext/admin", "/ext/health", "/ext/index/X/tx", "/ext/index/P/block", "/ext/index/C/block", "/ext/index/X/vtx", "/ext/index/avm/block"];
const GET_PATHS = ["/ext/health", "/ext/health/health", "/ext/health/readiness", "/ext/health/liveness", "/ext/metrics", "/v1/avg_tps/C", "/v1/avg_tps/43112"];
const ODD_PATHS = ["/", "//ext/health", "/ext/../ext/health", "/ext/%2e%2e/admin", "/ext/health%00", "/ext/index/X/tx/", "/ext/index//tx", "/v1/avg_tps/%ff", "/v1/avg_tps/" + "9".repeat(400), "/ext/" + "a/".repeat(2000), "/ext/health?tag=" + "%".repeat(30), "/ext/health?tag=a&tag=b&tag=" + "x".repeat(5000)];
const VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e400, -0, 2 ** 64, "18446744073709551616", "007", "", "0x", "0xzz", "hex", "HEXNC", "json", "11111111111111111111111111111111LpoYY", "X", [], [1], {}, {a: 1}, "a".repeat(600), "\u0000", "\ud800", [[[[]]]]];
let methods: string[] = [];

function deep(n: number): string {
  return "[".repeat(n) + "]".repeat(n);
}

function randomParams(): unknown {
  const keys = ["id", "index", "startIndex", "numToFetch", "encoding", "tags", "chain", "alias", "endpoint", "loggerName", "logLevel", "displayLevel", "key"];
  const o: Record<string, unknown> = {};
  for (let i = int(4); i >= 0; i--) o[pick(keys)] = pick(VALUES);
  return pick([o, [o], [o, 5], pick(VALUES), undefined]);
}

function request(): Record<string, unknown> {
  const r: Record<string, unknown> = {jsonrpc: pick(["2.0", "2.0", "2.0", "1.0", 2, undefined]), method: pick([...methods, ...methods, "foo.bar", "index", "", 5, null, "admin.Alias"])};
  const id = pick([1, "x", null, undefined, {a: 1}, 1.5, -1]);
  if (id !== undefined) r.id = id;
  const params = randomParams();
  if (params !== undefined) r.params = params;
  return r;
}

/** A body: generated, mutated from a valid request, or hostile. */
function body(): string {
  switch (int(10)) {
    case 0:
      return JSON.stringify(Array.from({length: pick([0, 1, 2, 50, 100, 101, 1000])}, request));
    case 1: {
      const s = JSON.stringify(request());
      const b = Buffer.from(s);
      for (let i = int(4); i >= 0; i--) b[int(b.length)] ^= 1 << int(8);
      return b.toString("latin1");
    }
    case 2:
      return JSON.stringify(request()).slice(0, int(40));
    case 3:
      return pick([deep(10_000), `{"a":${deep(5000)}}`, '{"jsonrpc":"2.0","id":1,"method":"health.health","params":' + deep(3000) + "}", "1".repeat(5000), "\uffff\ufffe", ""]);
    case 4:
      return Buffer.from(Array.from({length: int(200)}, () => int(256))).toString("latin1");
    case 5:
      return `{"jsonrpc":"2.0","id":1,"method":"${pick(methods)}","params":{"index":1e400,"startIndex":-0,"numToFetch":123456789012345678901234567890}}`;
    case 6:
      return `{"jsonrpc":"2.0","id":1,"method":"${pick(methods)}","jsonrpc":"2.0","method":"health.liveness"}`;
    default:
      return JSON.stringify(request());
  }
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

function send(method: string, p: string, data: string | null, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({host: "127.0.0.1", port: t.url.port, path: p, method, headers, agent}, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({status: res.statusCode!, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(chunks).toString("utf8")}));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`timeout on ${method} ${p}`)));
    if (data !== null) req.write(data, "latin1");
    req.end();
  });
}

function checkEnvelope(x: unknown, where: string): void {
  expect(typeof x === "object" && x !== null && !Array.isArray(x), where).toBe(true);
  const o = x as Record<string, unknown>;
  expect(o.jsonrpc, where).toBe("2.0");
  expect("id" in o, where).toBe(true);
  expect(["string", "number"].includes(typeof o.id) || o.id === null, where).toBe(true);
  expect(("result" in o) !== ("error" in o), where).toBe(true);
  if ("error" in o) {
    const e = o.error as {code: number; message: string};
    expect(CODES.has(e.code), `${where}: code ${e.code} ${e.message}`).toBe(true);
    expect(typeof e.message, where).toBe("string");
  }
}

beforeAll(async () => {
  const dir = tempDir();
  const feed = path.join(dir, "feed.ndjson");
  writeFileSync(feed, [0, 1, 2].map((n) => feedLine({chain: "X", kind: "tx", n})).join("") + feedLine({chain: "P", kind: "block", n: 0}));
  t = await startNode({"index-enabled": "true", "api-admin-enabled": "true", feed: `file:${feed}`, "metrics-service-rate-limit": "0"});
  methods = ["admin", "health", "index"].flatMap((s) => t.node.rpc.methods(s)).filter((m) => !/Profiler|memoryProfile|lockProfile|stacktrace|loadVMs/.test(m));
  await waitForCount(t, "/ext/index/X/tx", 3);
});
afterAll(async () => {
  agent.destroy();
  await t.close();
});

describe(`fuzz (seed ${SEED})`, () => {
  it(`answers ${TOTAL} generated requests without 5xx and with valid JSON-RPC`, async () => {
    console.log(`fuzz seed ${SEED}`);
    let sent = 0;
    const statuses = new Map<number, number>();
    const one = async (): Promise<void> => {
      const kind = int(10);
      let a: Answer;
      let label: string;
      if (kind < 6) {
        const p = pick(RPC_PATHS);
        const data = body();
        const ct = pick(["application/json", "application/json", "application/json; charset=UTF-8", "APPLICATION/JSON", "text/plain", "application/x-www-form-urlencoded", ""]);
        const headers: Record<string, string> = ct ? {"content-type": ct} : {};
        label = `POST ${p} ${ct} ${data.slice(0, 120)}`;
        a = await send("POST", p, data, headers);
        if (a.status === 200) {
          expect(a.contentType, label).toBe("application/json; charset=utf-8");
          const parsed = JSON.parse(a.text) as unknown;
          if (Array.isArray(parsed)) {
            expect(parsed.length, label).toBeGreaterThan(0);
            parsed.forEach((x) => checkEnvelope(x, label));
          } else {
            checkEnvelope(parsed, label);
          }
        } else {
          expect([204, 403, 404, 405, 413, 415], label).toContain(a.status);
        }
      } else if (kind < 8) {
        const p = pick([...GET_PATHS, ...ODD_PATHS]);
        const m = pick(["GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS", "POST"]);
        const headers: Record<string, string> = {host: pick(["localhost", "127.0.0.1:9650", "evil.example", "[::1]", "LOCALHOST:1"])};
        if (rand() < 0.3) headers.origin = pick(["https://a.example", "null", "*"]);
        if (m === "OPTIONS" && rand() < 0.7) headers["access-control-request-method"] = "POST";
        label = `${m} ${p.slice(0, 80)} host=${headers.host}`;
        a = await send(m, p, m === "POST" ? "{}" : null, headers);
      } else {
        // Oversized bodies and bogus lengths.
        const p = pick(RPC_PATHS);
        const data = rand() < 0.5 ? "x".repeat(1024 * 1024 + 1) : JSON.stringify({jsonrpc: "2.0", id: 1, method: "health.health", params: {tags: Array(5000).fill("t")}});
        label = `POST big ${p}`;
        a = await send("POST", p, data, {"content-type": "application/json"});
      }
      expect(a.status, label).toBeLessThan(500);
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      sent++;
    };
    const workers = Array.from({length: 8}, async () => {
      while (sent < TOTAL) await one();
    });
    await Promise.all(workers);
    console.log(`fuzz statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(sent).toBeGreaterThanOrEqual(TOTAL);
    // Still alive and serving.
    expect((await t.rpc("/ext/health", "health.liveness")).body.result).toEqual({checks: {}, healthy: true});
    expect((await t.rpc("/ext/index/X/tx", "index.getLastAccepted")).body.result).toMatchObject({index: "2"});
  }, 240_000);
});
