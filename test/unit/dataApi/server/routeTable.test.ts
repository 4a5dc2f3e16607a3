/**
 * The route table drives the router (src/dataApi/server/route.ts, routeCtx.ts, router.ts): a small table of its own
 * on a real HTTP server bound to 127.0.0.1, asked over HTTP: declared parameters parsed with the 400s that name
 * them, read in the handler's order, both paging kinds with their tokens bound to the request, the entry's status,
 * a POST's body, and 405 for a method the path lacks.
 */
import {createServer, type Server} from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {ChainRegistry, NETWORKS} from "../../../../src/chains/index.js";
import {LoggerRegistry} from "../../../../src/logger/index.js";
import {DataApiRouter} from "../../../../src/dataApi/server/router.js";
import * as q from "../../../../src/dataApi/server/querySpec.js";
import {implement, route} from "../../../../src/dataApi/server/route.js";
import {array, integer, model, optional, string} from "../../../../src/dataApi/server/schema.js";
import {badRequest} from "../../../../src/dataApi/server/errors.js";

const logger = new LoggerRegistry({logLevel: "OFF", displayLevel: "OFF", logDir: null}).get("main");
const ITEMS = Array.from({length: 25}, (_, i) => i);

const DEFS = {
  listNumbers: route({
    method: "GET",
    path: "/v1/things/:kind/numbers",
    operationId: "listNumbers",
    summary: "Numbers",
    tags: ["Test"],
    params: {kind: {schema: {type: "string"}}},
    query: {min: q.int({max: 20}), order: q.choice(["up", "down"] as const, {default: "up"}), tags: q.list()},
    paging: {kind: "text", maxPageSize: 10},
    response: model("Numbers", {nextPageToken: optional(string()), numbers: array(integer()), tags: array(string())}),
  }),
  listPairs: route({
    method: "GET",
    path: "/v1/things/:kind/pairs",
    operationId: "listPairs",
    summary: "Pairs",
    tags: ["Test"],
    params: {kind: {schema: {type: "string"}}},
    query: {first: q.timestamp({notAfter: "last"}), last: q.timestamp()},
    paging: {kind: "values", maxPageSize: 5},
    response: model("Pairs", {nextPageToken: optional(string()), pairs: array(integer())}),
  }),
  postThing: route({
    method: "POST",
    path: "/v1/things/:kind/numbers",
    operationId: "postThing",
    summary: "Echo",
    tags: ["Test"],
    params: {kind: {schema: {type: "string"}}},
    query: {},
    paging: undefined,
    status: 201,
    response: model("Echo", {kind: string(), body: string()}),
  }),
};

let server: Server;
let base: string;

beforeAll(async () => {
  const router = new DataApiRouter(
    {network: NETWORKS.local, tokenSecret: new Uint8Array(32).fill(7), rateLimitPerMinute: 0, keys: null},
    {chains: new ChainRegistry(NETWORKS.local), logger, register: null},
  );
  router.mount(
    implement(DEFS, {
      listNumbers: async (ctx) => {
        // The path's check comes before the query's: its 400 wins when both are wrong.
        if (ctx.params.kind !== "odd" && ctx.params.kind !== "all") throw badRequest("kind", "odd or all");
        const min = ctx.query.min ?? 0;
        const from = ctx.page.cursor === undefined ? 0 : Number(ctx.page.cursor);
        const all = ITEMS.filter((n) => n >= min && (ctx.params.kind === "all" || n % 2 === 1));
        const sorted = ctx.query.order === "up" ? all : [...all].reverse();
        const page = sorted.slice(from, from + ctx.page.size);
        const more = from + ctx.page.size < sorted.length;
        return {
          nextPageToken: ctx.page.next(more ? String(from + ctx.page.size) : undefined),
          numbers: page,
          tags: ctx.query.tags,
        };
      },
      listPairs: async (ctx) => {
        const first = ctx.query.first;
        const from = ctx.page.cursor === null ? (first ?? 0) : Number(ctx.page.cursor[0]);
        const page = ITEMS.filter((n) => n >= from && (ctx.query.last === undefined || n <= ctx.query.last)).slice(
          0,
          ctx.page.size + 1,
        );
        const more = page.length > ctx.page.size;
        return {
          nextPageToken: ctx.page.next(more ? [page[ctx.page.size]!, "x"] : undefined),
          pairs: page.slice(0, ctx.page.size),
        };
      },
      postThing: async (ctx) => ({kind: ctx.params.kind, body: JSON.stringify(ctx.body)}),
    }),
  );
  const resolver = router.resolver();
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const r = resolver.resolve(url.pathname)!;
    const a = await r.plain!(req, {path: url.pathname, query: url.searchParams});
    res.writeHead(a.status, {"content-type": a.contentType, ...a.headers});
    res.end(a.body);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

async function get(path: string): Promise<{status: number; body: Record<string, unknown>}> {
  const r = await fetch(base + path);
  return {status: r.status, body: (await r.json()) as Record<string, unknown>};
}

describe("a route table on the router", () => {
  it("parses the declared parameters: defaults, ranges, enums, comma lists and repeated keys", async () => {
    const a = await get("/v1/things/all/numbers?min=20&order=down&tags=a,b&tags=c");
    expect(a).toEqual({status: 200, body: {numbers: [24, 23, 22, 21, 20], tags: ["a", "b", "c"]}});
    expect((await get("/v1/things/all/numbers?min=21")).body.message).toBe("min: must be an integer in [0,20]");
    expect((await get("/v1/things/all/numbers?order=sideways")).body.message).toBe(
      'order: unknown value "sideways" (one of up, down)',
    );
    expect((await get("/v1/things/all/numbers?pageSize=11")).body).toEqual({
      message: "pageSize: must be an integer in [1,10]",
      statusCode: 400,
      error: "Bad Request",
    });
    expect((await get("/v1/things/all/pairs?first=5&last=3")).body.message).toBe("first: must be <= last (5 > 3)");
  });

  it("reads parameters in the handler's order: a bad path parameter is answered before a bad filter", async () => {
    expect((await get("/v1/things/even/numbers?min=99")).body.message).toBe("kind: odd or all");
  });

  it("pages a one-string cursor to the end, with a token refused on other filters", async () => {
    const seen: number[] = [];
    let token: string | undefined;
    do {
      const r = await get(`/v1/things/odd/numbers?pageSize=4${token ? `&pageToken=${token}` : ""}`);
      seen.push(...(r.body.numbers as number[]));
      token = r.body.nextPageToken as string | undefined;
    } while (token !== undefined);
    expect(seen).toEqual(ITEMS.filter((n) => n % 2 === 1));
    const first = await get("/v1/things/odd/numbers?pageSize=4");
    const other = await get(`/v1/things/odd/numbers?pageSize=4&min=3&pageToken=${first.body.nextPageToken}`);
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/^pageToken: not a token of this request/);
  });

  it("pages a cursor of several values", async () => {
    const a = await get("/v1/things/all/pairs?first=10&pageSize=5");
    expect(a.body.pairs).toEqual([10, 11, 12, 13, 14]);
    const b = await get(`/v1/things/all/pairs?first=10&pageSize=5&pageToken=${a.body.nextPageToken}`);
    expect(b.body.pairs).toEqual([15, 16, 17, 18, 19]);
  });

  it("answers a POST with the entry's status and its body, and 405 for a method the path lacks", async () => {
    const r = await fetch(`${base}/v1/things/odd/numbers`, {method: "POST", body: JSON.stringify({x: 1})});
    expect(r.status).toBe(201);
    expect(await r.json()).toEqual({kind: "odd", body: '{"x":1}'});
    const p = await fetch(`${base}/v1/things/odd/pairs`, {method: "POST", body: "{}"});
    expect(p.status).toBe(405);
  });
});
