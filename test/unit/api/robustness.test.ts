/**
 * Regressions found by the fuzzer (test/e2e/fuzz.test.ts) and the issue #8 review: answers too large to build,
 * and params whose parsing cost grew faster than their length.
 */
import {describe, expect, it, vi} from "vitest";
import {RawJson, RpcRouter, defaultRpcRouterOptions, method} from "../../../src/api/rpcRouter.js";
import {object, optional, required, string, uint64} from "../../../src/api/validate.js";
import {LoggerRegistry} from "../../../src/logger/index.js";
import {ENDPOINTS} from "../../../src/containerIndex/endpoints.js";
import {createIndexMethods, ContainerJsonCache} from "../../../src/containerIndex/service.js";
import type {EndpointIndex, StoredContainer} from "../../../src/containerIndex/store.js";
import {Writable} from "node:stream";

const logger = new LoggerRegistry({
  logLevel: "OFF",
  displayLevel: "OFF",
  logDir: null,
  displayStream: new Writable({write: (_c, _e, cb) => cb()}),
}).get("main");

function router(maxBatchResponseBytes: number): RpcRouter {
  const r = new RpcRouter({...defaultRpcRouterOptions, maxBatchResponseBytes}, {logger, metrics: null});
  r.register("t", {
    big: method(object({n: required(uint64)}), (p) => ({s: "x".repeat(Number(p.n))})),
    huge: method(object({}), () => new RawJson("x".repeat(2 ** 29 - 24))),
    count: method(object({tag: optional(string)}), () => ({ok: true})),
  });
  return r;
}

const req = (id: number | null, m: string, params?: unknown): Record<string, unknown> => ({
  jsonrpc: "2.0",
  ...(id === null ? {} : {id}),
  method: m,
  ...(params ? {params} : {}),
});

describe("RpcRouter: answers too large to build", () => {
  it("stops running batch requests past the response budget and answers them with -32000", async () => {
    const r = router(10_000);
    let ran = 0;
    r.register("c", {tick: method(object({}), () => ({n: ++ran}))});
    const batch = [
      req(1, "t.big", {n: 6000}),
      req(2, "t.big", {n: 6000}),
      req(3, "t.big", {n: 10}),
      req(null, "t.count"),
      {jsonrpc: "1.0", id: 4, method: "t.count"},
    ];
    const out = JSON.parse(String((await r.handle(JSON.stringify(batch), "t", null)).body)) as {
      id: unknown;
      result?: unknown;
      error?: {code: number; message: string};
    }[];
    expect(out.map((x) => x.id)).toEqual([1, 2, 3, 4]);
    expect(out[0]!.result).toBeDefined();
    expect(out[1]!.result).toBeDefined();
    expect(out[2]!.error).toEqual({
      code: -32000,
      message: expect.stringMatching(/^response too large: the answers to this batch exceed 10000 bytes/),
    });
    expect(out[3]!.error!.code).toBe(-32600);
  });

  it("answers -32000 instead of throwing when one answer exceeds V8's string limit (it crashed the process)", async () => {
    const r = router(defaultRpcRouterOptions.maxBatchResponseBytes);
    const one = await r.handle(JSON.stringify(req(7, "t.huge")), "t", null);
    expect(JSON.parse(String(one.body))).toEqual({
      jsonrpc: "2.0",
      error: {code: -32000, message: "response too large"},
      id: 7,
    });
    const batch = await r.handle(JSON.stringify([req(1, "t.huge"), req(2, "t.count")]), "t", null);
    expect(JSON.parse(String(batch.body))).toEqual([
      {jsonrpc: "2.0", error: {code: -32000, message: "response too large"}, id: 1},
      {jsonrpc: "2.0", result: {ok: true}, id: 2},
    ]);
  }, 120_000);
});

describe("params whose cost grew faster than their length", () => {
  it("uint64: a 1 MiB decimal string is refused without BigInt()", () => {
    const s = "9".repeat(1 << 20);
    // Watched by a spy, not a clock: BigInt() of it takes ~100 ms, too close to any wall-clock bound a loaded
    // machine keeps.
    const big = vi.spyOn(globalThis, "BigInt");
    try {
      expect(() => uint64(s, "index")).toThrow(/^invalid params: index: 9{64}\.\.\. does not fit in uint64$/);
      expect(big.mock.calls.filter((c) => String(c[0]).length > 64)).toEqual([]);
    } finally {
      big.mockRestore();
    }
    // Leading zeros are still fine however many there are; 21 significant digits are not.
    expect(uint64("0".repeat(5000) + "18446744073709551615", "i")).toBe(18446744073709551615n);
    expect(() => uint64("184467440737095516150", "i")).toThrow(
      "invalid params: i: 184467440737095516150 does not fit in uint64",
    );
  });
});

describe("index.getContainerRange: answers bounded in bytes", () => {
  it("stops after the container that passes the budget (was -32603 once the JSON outgrew a string)", async () => {
    const containers: StoredContainer[] = Array.from({length: 10}, (_, i) => ({
      id: new Uint8Array(32).fill(i),
      bytes: new Uint8Array(1000).fill(i),
      timestampNs: 1_700_000_000_000_000_000n,
      index: BigInt(i),
      checksum: null,
    }));
    const idx = {
      endpoint: ENDPOINTS[0]!,
      next: 10n,
      getByIndex: async (i: bigint) => containers[Number(i)] ?? null,
      getRange: async (start: bigint, n: number) => containers.slice(Number(start), Number(start) + n),
      getIndex: async () => null,
    } as unknown as EndpointIndex;
    const methods = createIndexMethods(new ContainerJsonCache(1 << 20), 5000);
    const call = (p: unknown): Promise<RawJson> =>
      (methods.getContainerRange!.handler as (p: unknown, c: unknown) => Promise<RawJson>)(
        methods.getContainerRange!.params(p, "params"),
        idx,
      );
    // Each container is ~2.1 KB of JSON: the third one passes 5000 bytes, so three are returned, from the
    // database and then from the cache alike.
    for (let round = 0; round < 2; round++) {
      const out = JSON.parse(String((await call({startIndex: 0, numToFetch: 10})).json)) as {
        containers: {index: string}[];
      };
      expect(out.containers.map((c) => c.index)).toEqual(["0", "1", "2"]);
    }
    const rest = JSON.parse(String((await call({startIndex: 9, numToFetch: 10})).json)) as {
      containers: {index: string}[];
    };
    expect(rest.containers.map((c) => c.index)).toEqual(["9"]);
  });
});
