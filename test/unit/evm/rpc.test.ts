/**
 * EvmRpc against real HTTP servers on 127.0.0.1 that answer well, slowly, out of order, with errors or with garbage:
 * batching and order, per-call JSON-RPC errors (never retried), retries with backoff for HTTP and transport failures,
 * the timeout, malformed answers, the adaptive concurrency limit as the server sees it, and the abort signal.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from "node:http";
import type {AddressInfo} from "node:net";
import {afterEach, describe, expect, it} from "vitest";
import {
  EvmRpc,
  RpcCallError,
  defaultEvmRpcOptions,
  type EvmRpcOptions,
  type RpcCallErrorKind,
  timedOut,
} from "../../../src/evm/rpc.js";
import {quietLogger} from "../../helpers/sql.js";

interface Req {
  jsonrpc: string;
  id: number;
  method: string;
  params: unknown[];
}

type Handler = (batch: Req[], res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

interface TestServer {
  url: string;
  /** Every HTTP request's batch, in arrival order. */
  requests: Req[][];
  /** Most requests in flight at once. */
  maxInFlight: number;
  /** Requests in flight now. */
  inFlight: number;
  arrivals: number[];
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: Handler): Promise<TestServer> {
  const state: TestServer = {url: "", requests: [], maxInFlight: 0, inFlight: 0, arrivals: [], close: async () => {}};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const batch = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Req[];
      state.requests.push(batch);
      state.arrivals.push(Date.now());
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      res.on("close", () => state.inFlight--);
      void Promise.resolve(handler(batch, res, req)).catch((e: Error) => {
        res.statusCode = 599;
        res.end(String(e));
      });
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  state.close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return state;
}

const json = (res: ServerResponse, body: unknown, status = 200): void => {
  res.writeHead(status, {"content-type": "application/json"});
  res.end(typeof body === "string" ? body : JSON.stringify(body));
};
/** Answers every call with its method and first parameter. */
const echo: Handler = (batch, res) =>
  json(
    res,
    batch.map((r) => ({jsonrpc: "2.0", id: r.id, result: `${r.method}:${String(r.params[0])}`})),
  );
const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function client(url: string, opts: Partial<EvmRpcOptions> = {}, errors: RpcCallErrorKind[] = []): EvmRpc {
  return new EvmRpc(
    {...defaultEvmRpcOptions, retryBaseMs: 10, timeoutMs: 2000, ...opts, url},
    {logger: quietLogger(), onError: (k) => errors.push(k)},
  );
}

async function rejection(p: Promise<unknown>): Promise<RpcCallError> {
  const e = await p.then(
    () => {
      throw new Error("resolved; expected a rejection");
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(RpcCallError);
  return e as RpcCallError;
}

describe("EvmRpc batching", () => {
  it("splits at maxBatch and keeps the calls' order", async () => {
    const s = await serve(echo);
    const rpc = client(s.url, {maxBatch: 7, maxConcurrency: 3});
    const calls = Array.from({length: 23}, (_, i) => ({method: "m", params: [i]}));
    const out = await rpc.batch(calls);
    expect(out).toEqual(calls.map((_, i) => ({ok: true, result: `m:${i}`})));
    expect(s.requests.map((r) => r.length).sort((a, b) => a - b)).toEqual([2, 7, 7, 7]);
    // Each request is a proper JSON-RPC 2.0 batch with distinct ids.
    const ids = s.requests.flat().map((r) => r.id);
    expect(new Set(ids).size).toBe(23);
    expect(s.requests.flat().every((r) => r.jsonrpc === "2.0")).toBe(true);
  });

  it("an empty batch sends nothing", async () => {
    const s = await serve(echo);
    expect(await client(s.url).batch([])).toEqual([]);
    expect(s.requests).toHaveLength(0);
  });

  it("matches answers by id, whatever their order", async () => {
    const s = await serve((batch, res) =>
      json(
        res,
        [...batch].reverse().map((r) => ({jsonrpc: "2.0", id: r.id, result: r.params[0]})),
      ),
    );
    const out = await client(s.url).batch([0, 1, 2, 3, 4].map((i) => ({method: "m", params: [i]})));
    expect(out.map((o) => (o.ok ? o.result : null))).toEqual([0, 1, 2, 3, 4]);
  });

  it("call() returns the result", async () => {
    const s = await serve(echo);
    expect(await client(s.url).call("eth_chainId", ["x"])).toBe("eth_chainId:x");
  });
});

describe("EvmRpc errors", () => {
  it("a JSON-RPC error answer is that call's {ok:false} of kind rpc with the code, and is not retried", async () => {
    const s = await serve((batch, res) =>
      json(
        res,
        batch.map((r) =>
          r.method === "bad"
            ? {jsonrpc: "2.0", id: r.id, error: {code: -32000, message: "execution reverted"}}
            : {jsonrpc: "2.0", id: r.id, result: "fine"},
        ),
      ),
    );
    const errors: RpcCallErrorKind[] = [];
    const rpc = client(s.url, {}, errors);
    const out = await rpc.batch([
      {method: "good", params: []},
      {method: "bad", params: []},
      {method: "good", params: []},
    ]);
    expect(out[0]).toEqual({ok: true, result: "fine"});
    expect(out[2]).toEqual({ok: true, result: "fine"});
    expect(out[1]!.ok).toBe(false);
    const err = (out[1] as {ok: false; error: RpcCallError}).error;
    expect(err).toBeInstanceOf(RpcCallError);
    expect(err.kind).toBe("rpc");
    expect(err.code).toBe(-32000);
    expect(err.message).toContain("execution reverted");
    expect(err.message).toContain("bad");
    // call() throws it, still without a retry.
    const thrown = await rejection(rpc.call("bad", []));
    expect(thrown.kind).toBe("rpc");
    expect(thrown.code).toBe(-32000);
    expect(s.requests).toHaveLength(2);
    expect(errors).toEqual([]);
  });

  it("a JSON-RPC error without a numeric code has no code", async () => {
    const s = await serve((batch, res) =>
      json(
        res,
        batch.map((r) => ({jsonrpc: "2.0", id: r.id, error: {code: "x", message: "odd"}})),
      ),
    );
    const err = await rejection(client(s.url).call("m", []));
    expect(err.kind).toBe("rpc");
    expect(err.code).toBeUndefined();
  });

  it.each([500, 503, 429, 408])(
    "HTTP %i is retried with backoff, then throws kind http with the status",
    async (status) => {
      const s = await serve((_b, res) => json(res, "overloaded", status));
      const errors: RpcCallErrorKind[] = [];
      const rpc = client(s.url, {retries: 3, retryBaseMs: 40}, errors);
      const err = await rejection(rpc.call("m", []));
      expect(err.kind).toBe("http");
      expect(err.code).toBe(status);
      expect(err.message).toContain(`HTTP ${status}`);
      expect(err.message).toContain("overloaded");
      expect(s.requests).toHaveLength(4);
      expect(errors).toEqual(["http", "http", "http", "http"]);
      // Backoff: 40, 80, 160 ms, each with jitter in [50%, 100%].
      const gaps = s.arrivals.slice(1).map((t, i) => t - s.arrivals[i]!);
      [40, 80, 160].forEach((base, i) => {
        expect(gaps[i]).toBeGreaterThanOrEqual(base * 0.5 - 5);
        expect(gaps[i]).toBeLessThan(base + 400); // slack for a loaded machine
      });
    },
  );

  it("HTTP 500 then a good answer succeeds", async () => {
    let n = 0;
    const s = await serve((b, res, req) => (n++ < 2 ? json(res, "try again", 500) : echo(b, res, req)));
    expect(await client(s.url).call("m", [1])).toBe("m:1");
    expect(s.requests).toHaveLength(3);
  });

  it("HTTP 4xx other than 429 is not retried (it will not change)", async () => {
    const s = await serve((_b, res) => json(res, "no such path", 404));
    const errors: RpcCallErrorKind[] = [];
    const err = await rejection(client(s.url, {retries: 3}, errors).call("m", []));
    expect(err.kind).toBe("http");
    expect(err.code).toBe(404);
    expect(s.requests).toHaveLength(1);
    expect(errors).toEqual(["http"]);
  });

  it("connection refused is retried, then throws kind transport", async () => {
    const s = await serve(echo);
    const url = s.url;
    await s.close();
    const errors: RpcCallErrorKind[] = [];
    const started = Date.now();
    const err = await rejection(client(url, {retries: 2, retryBaseMs: 50}, errors).call("m", []));
    expect(err.kind).toBe("transport");
    expect(err.message).toContain(new URL(url).host);
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(timedOut(err)).toBe(false);
    expect(errors).toEqual(["transport", "transport", "transport"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50 * 0.5 + 100 * 0.5 - 5);
  });

  it("a server that does not answer in time throws transport naming the timeout", async () => {
    const s = await serve(() => {}); // never answers
    const errors: RpcCallErrorKind[] = [];
    const started = Date.now();
    const err = await rejection(client(s.url, {timeoutMs: 150, retries: 1}, errors).call("m", []));
    expect(err.kind).toBe("transport");
    expect(err.message).toContain("timed out after 150 ms");
    expect(timedOut(err)).toBe(true);
    expect(errors).toEqual(["transport", "transport"]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(s.requests).toHaveLength(2);
  });

  it("a body that stalls after the headers is a timeout too, named as such", async () => {
    const s = await serve((_b, res) => {
      res.writeHead(200, {"content-type": "application/json"});
      res.write("[");
    });
    const err = await rejection(client(s.url, {timeoutMs: 150, retries: 0}).call("m", []));
    expect(err.kind).toBe("transport");
    expect(err.message).toContain("timed out after 150 ms");
    expect(timedOut(err)).toBe(true);
  });

  it.each([
    ["not JSON", (): string => "<html>bad gateway</html>", /not JSON/],
    ["a non-array to a batch", (): unknown => ({jsonrpc: "2.0", id: 1, result: "0x1"}), /not an array/],
    [
      "a refused batch",
      (): unknown => ({jsonrpc: "2.0", id: null, error: {code: -32600, message: "batch too large"}}),
      /batch refused: batch too large/,
    ],
    ["missing ids", (b: Req[]): unknown => b.map(() => ({jsonrpc: "2.0", result: "0x1"})), /no answer to m/],
    [
      "string ids",
      (b: Req[]): unknown => b.map((r) => ({jsonrpc: "2.0", id: String(r.id), result: "0x1"})),
      /no answer to m/,
    ],
    [
      "wrong ids",
      (b: Req[]): unknown => b.map((r) => ({jsonrpc: "2.0", id: r.id + 1000, result: "0x1"})),
      /no answer to m/,
    ],
    [
      "neither result nor error",
      (b: Req[]): unknown => b.map((r) => ({jsonrpc: "2.0", id: r.id})),
      /neither result nor error/,
    ],
    ["null", (): unknown => "null", /not an array/],
    ["an array of junk", (): unknown => [1, "x", null, []], /no answer/],
    ["an empty body", (): string => "", /not JSON/],
  ] as const)("garbage (%s) is malformed, retried, then thrown", async (_what, body, message) => {
    const s = await serve((b, res) => {
      const v = (body as (b: Req[]) => unknown)(b);
      json(res, typeof v === "string" ? v : JSON.stringify(v));
    });
    const errors: RpcCallErrorKind[] = [];
    const err = await rejection(client(s.url, {retries: 1}, errors).call("m", []));
    expect(err.kind).toBe("malformed");
    expect(err.message).toMatch(message);
    expect(s.requests).toHaveLength(2);
    expect(errors).toEqual(["malformed", "malformed"]);
  });

  it("a result of null is a result", async () => {
    const s = await serve((b, res) =>
      json(
        res,
        b.map((r) => ({jsonrpc: "2.0", id: r.id, result: null})),
      ),
    );
    expect(await client(s.url).batch([{method: "eth_getBlockByNumber", params: ["0x99", false]}])).toEqual([
      {ok: true, result: null},
    ]);
  });
});

describe("EvmRpc adaptive concurrency", () => {
  it("starts at 2, grows on successes up to maxConcurrency and never beyond, as the server sees it", async () => {
    const s = await serve(async (b, res, req) => {
      await delay(15);
      echo(b, res, req);
    });
    const rpc = client(s.url, {maxBatch: 1, maxConcurrency: 5});
    expect(rpc.concurrency()).toBe(2);
    const calls = Array.from({length: 120}, (_, i) => ({method: "m", params: [i]}));
    const out = await rpc.batch(calls);
    expect(out.every((o, i) => o.ok && o.result === `m:${i}`)).toBe(true);
    expect(rpc.concurrency()).toBe(5);
    expect(s.maxInFlight).toBe(5);
    // Once grown, more calls never exceed the cap.
    s.maxInFlight = 0;
    await rpc.batch(calls);
    expect(s.maxInFlight).toBe(5);
    expect(rpc.concurrency()).toBe(5);
  });

  it("a maxConcurrency of 1 keeps one request in flight", async () => {
    const s = await serve(async (b, res, req) => {
      await delay(5);
      echo(b, res, req);
    });
    const rpc = client(s.url, {maxBatch: 1, maxConcurrency: 1});
    await rpc.batch(Array.from({length: 20}, (_, i) => ({method: "m", params: [i]})));
    expect(s.maxInFlight).toBe(1);
    expect(rpc.concurrency()).toBe(1);
  });

  it("halves on failures (never below 1) and grows back on successes", async () => {
    let failing = false;
    const s = await serve(async (b, res, req) => {
      await delay(5);
      if (failing) json(res, "down", 503);
      else echo(b, res, req);
    });
    const rpc = client(s.url, {maxBatch: 1, maxConcurrency: 8, retries: 0});
    const calls = (n: number): Array<{method: string; params: unknown[]}> =>
      Array.from({length: n}, (_, i) => ({method: "m", params: [i]}));
    await rpc.batch(calls(200));
    expect(rpc.concurrency()).toBe(8);
    failing = true;
    await rejection(rpc.call("m", []));
    expect(rpc.concurrency()).toBe(4);
    await rejection(rpc.call("m", []));
    expect(rpc.concurrency()).toBe(2);
    await rejection(rpc.call("m", []));
    await rejection(rpc.call("m", []));
    await rejection(rpc.call("m", []));
    expect(rpc.concurrency()).toBe(1);
    // At the floor, one request at a time.
    failing = false;
    s.maxInFlight = 0;
    await rpc.call("m", []);
    expect(s.maxInFlight).toBe(1);
    // Additive increase: 1 → 2 takes one success, 2 → 3 two more, ...
    await rpc.batch(calls(200));
    expect(rpc.concurrency()).toBe(8);
  });

  it("JSON-RPC error answers are successes for the limit", async () => {
    const s = await serve((b, res) =>
      json(
        res,
        b.map((r) => ({jsonrpc: "2.0", id: r.id, error: {code: 3, message: "reverted"}})),
      ),
    );
    const rpc = client(s.url, {maxBatch: 1, maxConcurrency: 4});
    await rpc.batch(Array.from({length: 40}, (_, i) => ({method: "m", params: [i]})));
    expect(rpc.concurrency()).toBe(4);
  });
});

describe("EvmRpc abort", () => {
  it("an abort during the backoff stops the retries promptly", async () => {
    const s = await serve((_b, res) => json(res, "down", 500));
    const ac = new AbortController();
    const rpc = client(s.url, {retries: 10, retryBaseMs: 5_000});
    const started = Date.now();
    const p = rejection(rpc.call("m", [], ac.signal));
    setTimeout(() => ac.abort(), 100);
    const err = await p;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(s.requests.length).toBeLessThanOrEqual(2);
    expect(["http", "transport"]).toContain(err.kind);
  });

  it("an abort during a hanging request stops it promptly, without retries", async () => {
    const s = await serve(() => {});
    const ac = new AbortController();
    const rpc = client(s.url, {retries: 10, timeoutMs: 20_000});
    const started = Date.now();
    const p = rejection(rpc.call("m", [], ac.signal));
    setTimeout(() => ac.abort(), 100);
    const err = await p;
    expect(err.kind).toBe("transport");
    expect(err.message).not.toContain("timed out");
    expect(timedOut(err)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(s.requests).toHaveLength(1);
  });

  it("an already aborted signal sends nothing", async () => {
    const s = await serve(echo);
    const err = await rejection(client(s.url).call("m", [], AbortSignal.abort()));
    expect(err.kind).toBe("transport");
    expect(s.requests).toHaveLength(0);
  });

  it("an abort while waiting for a concurrency slot gives up without sending", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const s = await serve(async (b, res, req) => {
      await gate;
      echo(b, res, req);
    });
    const rpc = client(s.url, {maxConcurrency: 1});
    const first = rpc.call("m", [1]);
    await delay(50);
    const ac = new AbortController();
    const second = rejection(rpc.call("m", [2], ac.signal));
    await delay(20);
    const started = Date.now();
    ac.abort();
    const err = await second;
    expect(Date.now() - started).toBeLessThan(500);
    expect(err.kind).toBe("transport");
    release();
    expect(await first).toBe("m:1");
    expect(s.requests).toHaveLength(1);
  });
});
