/**
 * The per-client limits of `/v1` (data API and metrics service) over the real wire (issue 49): clients come from
 * distinct loopback addresses (127.0.0.x, which Linux routes to the server's 127.0.0.1), one of them the trusted
 * proxy whose X-Forwarded-For is believed. Checked: IPv6 clients share a bucket per /64; X-Forwarded-For from an
 * untrusted peer is ignored; requests with unknown API keys count against the address's limit (429 after it).
 */
import {writeFileSync} from "node:fs";
import http from "node:http";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const LIMIT = 3;
const PROXY = "127.0.0.2";
const P = "/v1/networks/local/blockchains/p-chain/blocks?pageSize=1";

describe("data API rate limits by client, behind a trusted proxy", () => {
  let t: TestNode;

  beforeAll(async () => {
    const dir = tempDir();
    const keys = path.join(dir, "keys.json");
    writeFileSync(keys, JSON.stringify({"key-123": {name: "partner", rateLimit: 100}}));
    t = await startNode(
      {
        "network-id": "local",
        "index-enabled": true,
        feed: "dev",
        "dev-backfill": "0",
        "dev-evm": false,
        "data-api-enabled": true,
        "data-api-keys-file": keys,
        "data-api-rate-limit": String(LIMIT),
        "metrics-service-rate-limit": String(LIMIT),
        "http-trusted-proxies": `${PROXY},10.0.0.0/8`,
      },
      {dataDir: dir},
    );
  }, 180_000);
  afterAll(async () => t?.close());

  /** A GET from `from` (a loopback address), with headers. */
  const get = (
    from: string,
    p: string,
    headers: Record<string, string> = {},
  ): Promise<{status: number; headers: http.IncomingHttpHeaders; body: string}> =>
    new Promise((resolve, reject) => {
      const r = http.request(
        {host: "127.0.0.1", port: Number(t.url.port), path: p, localAddress: from, headers, agent: false},
        (res) => {
          let body = "";
          res.on("data", (d: Buffer) => (body += d.toString()));
          res.on("end", () => resolve({status: res.statusCode!, headers: res.headers, body}));
        },
      );
      r.on("error", reject);
      r.end();
    });
  const statuses = async (n: number, from: string, p: string, headers?: Record<string, string>): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await get(from, p, headers)).status);
    return out;
  };

  it("keys each forwarded client apart when the peer is a trusted proxy", async () => {
    expect(await statuses(LIMIT + 1, PROXY, P, {"x-forwarded-for": "203.0.113.1"})).toEqual([200, 200, 200, 429]);
    // Another client behind the same proxy has its own bucket; the proxy's own (no header) too.
    expect(await statuses(LIMIT, PROXY, P, {"x-forwarded-for": "203.0.113.2"})).toEqual([200, 200, 200]);
    // A client that writes its own X-Forwarded-For before the proxy's entry is still keyed by the proxy's entry.
    expect((await get(PROXY, P, {"x-forwarded-for": "198.51.100.99, 203.0.113.1"})).status).toBe(429);
    // Past a second trusted hop (10.0.0.0/8): the first untrusted address from the right.
    expect((await get(PROXY, P, {"x-forwarded-for": "203.0.113.1, 10.1.2.3"})).status).toBe(429);
  });

  it("keys IPv6 clients by /64: rotating addresses within one does not reset the limit", async () => {
    const in64 = ["2001:db8:aa:1::1", "2001:db8:aa:1::2", "2001:db8:aa:1:ffff:ffff:ffff:ffff", "2001:db8:aa:1:1234::9"];
    const got = [];
    for (const a of in64) got.push((await get(PROXY, P, {"x-forwarded-for": a})).status);
    expect(got).toEqual([200, 200, 200, 429]);
    expect((await get(PROXY, P, {"x-forwarded-for": "2001:db8:aa:2::1"})).status).toBe(200);
  });

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", async () => {
    const from = "127.0.0.3";
    const got = [];
    for (let i = 0; i < LIMIT + 1; i++) got.push((await get(from, P, {"x-forwarded-for": `198.51.100.${i}`})).status);
    expect(got).toEqual([200, 200, 200, 429]);
  });

  it("counts requests with unknown API keys against the address: guessing keys meets 429", async () => {
    const from = "127.0.0.4";
    const guesses = [];
    for (let i = 0; i < LIMIT + 2; i++) guesses.push(await get(from, P, {"x-glacier-api-key": `guess-${i}`}));
    expect(guesses.map((r) => r.status)).toEqual([401, 401, 401, 429, 429]);
    expect(JSON.parse(guesses[0]!.body)).toEqual({message: "unknown API key", statusCode: 401, error: "Unauthorized"});
    expect(guesses[0]!.headers["ratelimit-policy"]).toBe(`"anonymous";q=${LIMIT};w=60`);
    expect(Number(guesses[3]!.headers["retry-after"])).toBeGreaterThan(0);
    // The listed key has its own limit, whatever the address used up.
    expect((await get(from, P, {"x-glacier-api-key": "key-123"})).status).toBe(200);
  });

  it("counts a signature aggregation as many requests (its cost, at most the whole limit)", async () => {
    const post = (from: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify({message: "0x00"});
        const r = http.request(
          {
            host: "127.0.0.1",
            port: Number(t.url.port),
            path: "/v1/signatureAggregator/local/aggregateSignatures",
            method: "POST",
            localAddress: from,
            headers: {"content-type": "application/json", "content-length": Buffer.byteLength(body)},
            agent: false,
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode!));
          },
        );
        r.on("error", reject);
        r.end(body);
      });
    const from = "127.0.0.5";
    // The aggregation's cost (20) is past the limit (3): it takes the whole bucket, and the next request waits.
    expect(await post(from)).toBe(400);
    expect((await get(from, P)).status).toBe(429);
    expect(await post("127.0.0.6")).toBe(400);
    expect(await post("127.0.0.6")).toBe(429);
  });

  it("applies the same client keys to the metrics service's /v1/avg_tps", async () => {
    const p = "/v1/avg_tps/P";
    expect(await statuses(LIMIT + 1, PROXY, p, {"x-forwarded-for": "2001:db8:bb:1::1"})).toEqual([200, 200, 200, 429]);
    expect((await get(PROXY, p, {"x-forwarded-for": "2001:db8:bb:1::7"})).status).toBe(429);
    expect((await get(PROXY, p, {"x-forwarded-for": "203.0.113.50"})).status).toBe(200);
  });
});

describe("--http-trusted-proxies", () => {
  it("refuses an entry that is not an address or CIDR range, naming the flag", async () => {
    await expect(
      startNode({
        "network-id": "local",
        feed: "dev",
        "dev-backfill": "0",
        "dev-evm": false,
        "http-trusted-proxies": "10.0.0.0/99",
      }),
    ).rejects.toThrow(/http-trusted-proxies.*10\.0\.0\.0\/99/);
  });
});
