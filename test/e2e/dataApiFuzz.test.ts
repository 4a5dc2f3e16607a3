/**
 * Hostile input on every /v1 endpoint, driven by the route table itself (its OpenAPI document, GET
 * /v1/openapi.json): for each operation, each of its path and query parameters in turn gets each of a set of bad
 * values (boundary numbers past int8, negatives, exponents, malformed percent-encoding, long and control-character
 * strings, lists of hundreds), the others valid; POSTs also get malformed and mistyped bodies. A real node on the
 * dev network, with its EVMs, answers. No answer may be a 500, every error must be the data API's error body
 * (statusCode, message, no stack or path), and the process must answer a health check after all of it. The count
 * of bad inputs per operation is printed (docs/api/http.md quotes it).
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {startNode, type TestNode} from "../helpers/node.js";

interface Param {
  name: string;
  in: "path" | "query";
  required?: boolean;
  schema: {type?: string; enum?: string[]; items?: {enum?: string[]}; minimum?: number; maximum?: number};
}
interface Operation {
  operationId: string;
  parameters?: Param[];
  requestBody?: unknown;
}

/** Bad values every parameter gets. */
const BAD = [
  "",
  "-1",
  "0",
  "-0",
  "1.5",
  "1e400",
  "0x10",
  "9223372036854775807",
  "9223372036854775808",
  "18446744073709551616",
  "-9223372036854775809",
  "99999999999999999999999999999999",
  "NaN",
  "Infinity",
  "null",
  "true",
  "[]",
  "{}",
  "\u0000",
  "a\tb",
  "../../etc/passwd",
  "' OR 1=1 --",
  "a".repeat(4096),
  "0x" + "f".repeat(40),
  "0x" + "0".repeat(64),
  "P-local1" + "q".repeat(38),
  "NodeID-" + "1".repeat(33),
  Array.from({length: 300}, (_, i) => `x${i}`).join(","),
  "asc,desc",
  "😀",
];

/** Bad values sent as they are, not percent-encoded: malformed escapes, a NUL, half a UTF-8 sequence, a surrogate. */
const RAW = ["%zz", "%", "%00", "%E0%A4%A", "%ED%A0%80", "%C0%AF"];

/** A valid value for each path parameter, by name: the other parameters stay valid while one is bad. */
const VALID_PATH: Record<string, string> = {
  network: "local",
  chainId: "43112",
  blockchainId: "p-chain",
  address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  blockId: "1",
  txHash: "0x" + "ab".repeat(32),
  nodeId: "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg",
  assetId: "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe",
  vertexHash: "2" + "Z".repeat(48),
  subnetId: "11111111111111111111111111111111LpoYY",
  messageId: "0x" + "cd".repeat(32),
  tokenId: "1",
};

/** Bodies a POST gets. */
const BAD_BODIES = [
  "",
  "{",
  "null",
  "[]",
  '"x"',
  "1e400",
  '{"addresses": 5}',
  '{"addresses": []}',
  `{"addresses": [${Array.from({length: 2000}, () => '"x"').join(",")}]}`,
  '{"message": {}}',
  '{"message": "zz"}',
  '{"__proto__": {"x": 1}}',
  JSON.stringify({message: "0x" + "00".repeat(100_000)}),
];

const LEAK = /\n\s+at |\/work\/|\/src\/|node_modules|\.ts:\d|\.js:\d/;

describe("/v1 under hostile input, every endpoint", () => {
  let t: TestNode;
  let ops: Array<{method: "get" | "post"; path: string; op: Operation}> = [];
  const tried = new Map<string, number>();
  const failures: string[] = [];

  beforeAll(async () => {
    t = await startNode({
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "data-api-enabled": true,
      "data-api-rate-limit": "0",
    });
    const doc = (await t.get("/v1/openapi.json")).json() as {paths: Record<string, Record<string, Operation>>};
    ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({method: method as "get" | "post", path, op})),
    );
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  /** One request: checked, counted against its operation. */
  const send = async (operationId: string, method: "get" | "post", url: string, body?: string): Promise<void> => {
    tried.set(operationId, (tried.get(operationId) ?? 0) + 1);
    const r = method === "get" ? await t.get(url) : await t.post(url, body ?? "{}");
    const where = `${method.toUpperCase()} ${url.slice(0, 200)}${body !== undefined ? ` body ${body.slice(0, 80)}` : ""}`;
    if (r.status >= 500 && r.status !== 503) failures.push(`${where}: ${r.status} ${r.text.slice(0, 200)}`);
    if (LEAK.test(r.text)) failures.push(`${where}: leaks ${r.text.slice(0, 200)}`);
    if (r.status >= 400) {
      let b: {statusCode?: unknown; message?: unknown};
      try {
        b = r.json() as typeof b;
      } catch {
        failures.push(`${where}: ${r.status} is not JSON: ${r.text.slice(0, 100)}`);
        return;
      }
      if (b.statusCode !== r.status || (typeof b.message !== "string" && !Array.isArray(b.message)))
        failures.push(`${where}: not the error body: ${r.text.slice(0, 200)}`);
    }
  };

  type Query = Array<[string, string]>;
  /** `template` with its path parameters filled (`bad`, already a URL fragment, in place of `badName`), and a query of URL fragments. */
  const url = (template: string, query: Query, badName?: string, bad?: string): string =>
    template.replace(/\{(\w+)\}/g, (_, name: string) =>
      name === badName ? bad! : encodeURIComponent(VALID_PATH[name] ?? "x"),
    ) + (query.length > 0 ? `?${query.map(([k, v]) => `${k}=${v}`).join("&")}` : "");
  const fragments = [...BAD.map((b) => encodeURIComponent(b)), ...RAW];

  it("answers no bad value of any parameter with a 500, and always with its error body", async () => {
    const jobs: Array<() => Promise<void>> = [];
    for (const {method, path, op} of ops) {
      const params = op.parameters ?? [];
      const required: Query = [];
      for (const p of params) {
        if (p.in !== "query" || !p.required) continue;
        required.push([
          p.name,
          encodeURIComponent(
            p.schema.enum?.[0] ??
              p.schema.items?.enum?.[0] ??
              (p.schema.type === "integer" ? "1" : VALID_PATH.address!),
          ),
        ]);
      }
      for (const p of params) {
        for (const bad of fragments) {
          if (p.in === "path") jobs.push(() => send(op.operationId, method, url(path, required, p.name, bad)));
          else {
            const others = required.filter(([k]) => k !== p.name);
            jobs.push(() => send(op.operationId, method, url(path, [...others, [p.name, bad]])));
            // The same parameter twice, a valid-looking value first.
            jobs.push(() => send(op.operationId, method, url(path, [...others, [p.name, "1"], [p.name, bad]])));
          }
        }
      }
      // Every operation, parameters or not: an unknown parameter, and the path with a trailing slash.
      jobs.push(() =>
        send(op.operationId, method, url(path, [...required, ["notAParameter", encodeURIComponent("<script>")]])),
      );
      jobs.push(() => send(op.operationId, method, url(path, required).replace(/(\?|$)/, "/$1")));
      if (method === "post")
        for (const body of BAD_BODIES) jobs.push(() => send(op.operationId, method, url(path, required), body));
    }
    // Eight at a time: a busy client, not a flood the rate limit would be for.
    let next = 0;
    await Promise.all(
      Array.from({length: 8}, async () => {
        while (next < jobs.length) await jobs[next++]!();
      }),
    );
    const counts = [...tried.values()];
    console.log(
      `/v1 fuzz: ${counts.reduce((a, b) => a + b, 0)} bad requests over ${tried.size} operations (${Math.min(...counts)}-${Math.max(...counts)} each), ${failures.length} failures`,
    );
    expect(failures.slice(0, 30)).toEqual([]);
    expect(tried.size).toBe(ops.length);
    expect((await t.get("/ext/health/liveness")).status).toBe(200);
  }, 600_000);
});
