/** docs/api/http.md over the real wire: HTTP rules, the JSON-RPC envelope, every error class, batches. */
import {connect} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {appError} from "../../src/api/errors.js";
import {method} from "../../src/api/rpcRouter.js";
import {cb58Id, object, optional, required, string, uint64} from "../../src/api/validate.js";
import {startNode, type TestNode} from "../helpers/node.js";

let t: TestNode;

beforeAll(async () => {
  t = await startNode(
    {"http-allowed-origins": "*", "http-body-limit": "16384"},
    {
      setup: (node) => {
        node.rpc.register("test", {
          echo: method(object({value: optional(string, "none")}), (p) => ({value: p.value})),
          sum: method(object({a: required(uint64), b: required(uint64)}), (p) => ({sum: (p.a + p.b).toString()})),
          id: method(object({id: required(cb58Id)}), () => ({ok: true})),
          fail: method(object({}), () => {
            throw appError("no container at index 5");
          }),
          boom: method(object({}), () => {
            throw new Error("secret internal detail /etc/passwd");
          }),
        });
        node.routes.add("/ext/test", {template: "/ext/test", rpc: {service: "test", ctx: null}});
        node.routes.add("/ext/secret", {template: "/ext/secret", rpc: {service: "test", ctx: null}, sensitive: true});
      },
    },
  );
});
afterAll(async () => t.close());

const raw = (body: string, headers?: Record<string, string>): ReturnType<TestNode["post"]> =>
  t.post("/ext/test", body, headers);

/**
 * Writes `parts` to a raw socket, `gapMs` apart, and returns everything the server wrote back once it has
 * answered `answers` responses (counted by their status lines) or closed.
 */
function rawExchange(parts: string[], answers: number, gapMs = 30): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(Number(t.url.port), "127.0.0.1");
    let got = "";
    const done = (): void => {
      sock.destroy();
      resolve(got);
    };
    sock.on("data", (d) => {
      got += d.toString("latin1");
      const statuses = got.match(/HTTP\/1\.1 \d{3}/g)?.length ?? 0;
      // Wait for the last answer's body too: it ends with Go's newline after the JSON, or is a text line.
      if (statuses >= answers && got.endsWith("\n")) done();
    });
    sock.on("close", () => resolve(got));
    sock.on("error", reject);
    void (async () => {
      for (const p of parts) {
        sock.write(p);
        await new Promise((r) => setTimeout(r, gapMs));
      }
    })();
  });
}

const bodyOf = (text: string): string[] =>
  text
    .split(/HTTP\/1\.1 /)
    .slice(1)
    .map((r) => r.slice(r.indexOf("\r\n\r\n") + 4));

describe("HTTP transport", () => {
  it("reads a body however it arrives: split across writes, chunked without a length, pipelined", async () => {
    const call = JSON.stringify({jsonrpc: "2.0", id: 7, method: "test.echo", params: {value: "split"}});
    const head = (extra: string): string =>
      `POST /ext/test HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}\r\n`;
    const answer = '{"jsonrpc":"2.0","result":{"value":"split"},"id":7}\n';
    // The headers, then the body in two pieces: the body is not all there when the handler first looks.
    const split = await rawExchange([head(`Content-Length: ${call.length}\r\n`), call.slice(0, 10), call.slice(10)], 1);
    expect(split).toMatch(/^HTTP\/1\.1 200/);
    expect(bodyOf(split)).toEqual([answer]);
    // Chunked, no Content-Length, in pieces.
    const chunk = (c: string): string => `${c.length.toString(16)}\r\n${c}\r\n`;
    const chunked = await rawExchange(
      [head("Transfer-Encoding: chunked\r\n"), chunk(call.slice(0, 20)), chunk(call.slice(20)) + "0\r\n\r\n"],
      1,
    );
    expect(bodyOf(chunked)).toEqual([answer]);
    // Two requests in one write (pipelined): both answered, in order.
    const second = JSON.stringify({jsonrpc: "2.0", id: 8, method: "test.sum", params: {a: 1, b: 2}});
    const both = await rawExchange(
      [head(`Content-Length: ${call.length}\r\n`) + call + head(`Content-Length: ${second.length}\r\n`) + second],
      2,
    );
    expect(bodyOf(both)).toEqual([answer, '{"jsonrpc":"2.0","result":{"sum":"3"},"id":8}\n']);
    // A large body (15 KB) in the same write as its headers, then a second request on the same connection.
    const large = JSON.stringify({jsonrpc: "2.0", id: 9, method: "test.echo", params: {value: "y".repeat(15_000)}});
    const kept = await rawExchange(
      [head(`Content-Length: ${large.length}\r\n`) + large, head(`Content-Length: ${call.length}\r\n`) + call],
      2,
    );
    expect(bodyOf(kept)).toEqual([`{"jsonrpc":"2.0","result":{"value":"${"y".repeat(15_000)}"},"id":9}\n`, answer]);
    // Expect: 100-continue: the body follows the interim answer; and a declared empty body is a parse error.
    const cont = await rawExchange([head(`Content-Length: ${call.length}\r\nExpect: 100-continue\r\n`), call], 2);
    expect(cont).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200/);
    expect(cont.endsWith(answer)).toBe(true);
    const empty = await rawExchange([head("Content-Length: 0\r\n")], 1);
    expect(bodyOf(empty)[0]).toMatch(/^\{"jsonrpc":"2\.0","error":\{"code":-32700,/);
    // A chunked body past the limit (no length to refuse it up front): 413 once the limit is crossed.
    const big = await rawExchange(
      [head("Transfer-Encoding: chunked\r\n"), chunk("x".repeat(10_000)), chunk("x".repeat(10_000))],
      1,
    );
    expect(big).toMatch(/^HTTP\/1\.1 413/);
    expect(bodyOf(big)).toEqual(["request body exceeds 16384 bytes\n"]);
    expect((await t.rpc("/ext/test", "test.echo", {value: "still here"})).body.result).toEqual({value: "still here"});
  });

  it("answers 404 for unknown paths and a trailing slash", async () => {
    expect((await t.get("/nope")).status).toBe(404);
    const r = await raw("{}");
    expect(r.status).toBe(200);
    expect((await t.post("/ext/test/", "{}")).status).toBe(404);
    expect((await t.get("/ext/test/")).text).toBe("404 page not found\n");
  });

  it("answers 405 with Allow: POST to non-POST methods on JSON-RPC routes", async () => {
    const r = await t.get("/ext/test");
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("POST");
    const put = await fetch(new URL("/ext/test", t.url), {method: "PUT"});
    expect(put.status).toBe(405);
  });

  it("requires Content-Type application/json (415), parameters and case ignored", async () => {
    const body = JSON.stringify({jsonrpc: "2.0", id: 1, method: "test.echo"});
    expect((await raw(body, {})).status).toBe(415);
    expect((await raw(body, {"content-type": "text/plain"})).status).toBe(415);
    expect((await raw(body, {"content-type": "application/x-www-form-urlencoded"})).status).toBe(415);
    expect((await raw(body, {"content-type": "Application/JSON; charset=UTF-8"})).status).toBe(200);
    expect((await raw(body, {"content-type": "application/json;"})).status).toBe(200);
  });

  it("rejects bodies over the limit with 413 and keeps serving", async () => {
    const big = JSON.stringify({jsonrpc: "2.0", id: 1, method: "test.echo", params: {value: "x".repeat(20_000)}});
    const r = await raw(big);
    expect(r.status).toBe(413);
    expect(r.text).not.toMatch(/at |\/src\//);
    const ok = await t.rpc("/ext/test", "test.echo", {value: "still here"});
    expect(ok.body.result).toEqual({value: "still here"});
  });

  it("applies the allowed-hosts filter (403) but always serves IPs and empty hosts", async () => {
    const {request} = await import("node:http");
    const status = (host: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(
          {host: "127.0.0.1", port: t.url.port, path: "/ext/test", method: "GET", headers: {host}},
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on("error", reject);
        req.end();
      });
    expect(await status("evil.example.com")).toBe(403);
    expect(await status("localhost:9650")).toBe(405);
    expect(await status("LOCALHOST")).toBe(405);
    expect(await status("10.1.2.3:9650")).toBe(405);
    expect(await status("[::1]:9650")).toBe(405);
  });

  it("CORS: wildcard gives * without credentials; Vary: Origin always", async () => {
    const r = await raw(JSON.stringify({jsonrpc: "2.0", id: 1, method: "test.echo"}), {
      "content-type": "application/json",
      origin: "https://app.example",
    });
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-allow-credentials")).toBeNull();
    expect(r.headers.get("vary")).toBe("Origin");
    const pre = await fetch(new URL("/ext/test", t.url), {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-methods")).toBe("POST");
    expect(pre.headers.get("access-control-allow-headers")).toBe("content-type");
  });

  it("CORS: a sensitive route is never opened to a wildcard origin", async () => {
    const r = await t.post("/ext/secret", JSON.stringify({jsonrpc: "2.0", id: 1, method: "test.echo"}), {
      "content-type": "application/json",
      origin: "https://evil.example",
    });
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await fetch(new URL("/ext/secret", t.url), {
      method: "OPTIONS",
      headers: {origin: "https://evil.example", "access-control-request-method": "POST"},
    });
    expect(pre.status).toBe(403);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("JSON-RPC envelope and errors", () => {
  it("echoes the id exactly and orders keys as AvalancheGo", async () => {
    const r = await raw('{"jsonrpc":"2.0","id":"abc","method":"test.echo","params":{"value":"v"}}');
    expect(r.text).toBe('{"jsonrpc":"2.0","result":{"value":"v"},"id":"abc"}\n');
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const n = await raw('{"jsonrpc":"2.0","id":7,"method":"test.echo"}');
    expect(n.json()).toEqual({jsonrpc: "2.0", result: {value: "none"}, id: 7});
  });

  it("-32700 with id null for an unparsable body", async () => {
    for (const body of ["", "{", "hello", '{"jsonrpc":"2.0",']) {
      const r = await raw(body);
      expect(r.status).toBe(200);
      const j = r.json() as {error: {code: number}; id: unknown};
      expect(j.error.code).toBe(-32700);
      expect(j.id).toBeNull();
    }
  });

  it("-32600 for non-objects, wrong jsonrpc, bad method type, bad id type, empty batch", async () => {
    const cases = [
      '"str"',
      "5",
      '{"jsonrpc":"1.0","id":1,"method":"test.echo"}',
      '{"id":1,"method":"test.echo"}',
      '{"jsonrpc":"2.0","id":1,"method":5}',
      '{"jsonrpc":"2.0","id":{"a":1},"method":"test.echo"}',
      "[]",
    ];
    for (const body of cases) {
      const j = (await raw(body)).json() as {error: {code: number; message: string}};
      expect(j.error.code, body).toBe(-32600);
      expect(j.error.message).toMatch(/^invalid request: /);
    }
  });

  it("-32601 for unknown methods, other services and upper-case names", async () => {
    for (const m of ["test.nope", "health.health", "foo.bar", "test.Echo", "test", ""]) {
      const j = (await raw(JSON.stringify({jsonrpc: "2.0", id: 1, method: m}))).json() as {
        error: {code: number; message: string};
      };
      expect(j.error.code, m).toBe(-32601);
      expect(j.error.message).toBe(`method not found: ${m}`);
    }
  });

  it("-32602 naming the field for every kind of bad params", async () => {
    const cases: [unknown, string][] = [
      [{a: -1, b: 1}, "invalid params: a: expected a non-negative integer, got -1"],
      [{a: 1.5, b: 1}, "invalid params: a: expected a non-negative integer, got 1.5"],
      [{a: "1e3", b: 1}, 'invalid params: a: expected a decimal unsigned integer, got "1e3"'],
      [{a: true, b: 1}, "invalid params: a: expected an unsigned integer (number or decimal string), got a boolean"],
      [{a: "18446744073709551616", b: 1}, "invalid params: a: 18446744073709551616 does not fit in uint64"],
      [{b: 1}, "invalid params: a: missing required field"],
      [5, "invalid params: params must be an object or an array holding one object"],
      [[5], "invalid params: params must be an object or an array holding one object"],
    ];
    for (const [params, message] of cases) {
      const r = await t.rpc("/ext/test", "test.sum", params);
      expect(r.body.error, JSON.stringify(params)).toEqual({code: -32602, message});
    }
    const bad = await t.rpc("/ext/test", "test.id", {id: ""});
    expect(bad.body.error?.message).toBe("invalid params: id: base58 decoding error: zero length string");
    const sum = await t.rpc("/ext/test", "test.sum", [{a: "007", b: 3}, "ignored"]);
    expect(sum.body.result).toEqual({sum: "10"});
  });

  it("-32000 keeps the application's message; -32603 hides internals", async () => {
    expect((await t.rpc("/ext/test", "test.fail")).body.error).toEqual({
      code: -32000,
      message: "no container at index 5",
    });
    const boom = await t.rpc("/ext/test", "test.boom");
    expect(boom.body.error).toEqual({code: -32603, message: "internal error"});
    expect(JSON.stringify(boom.body)).not.toContain("passwd");
  });

  it("notifications (no id, or id null) run and get 204 with an empty body", async () => {
    for (const body of [
      '{"jsonrpc":"2.0","method":"test.echo"}',
      '{"jsonrpc":"2.0","id":null,"method":"test.fail"}',
      '{"jsonrpc":"2.0","method":"test.nope"}',
    ]) {
      const r = await raw(body);
      expect(r.status).toBe(204);
      expect(r.text).toBe("");
    }
  });

  it("batches: answered as an array in order, notifications omitted, all-notification → 204", async () => {
    const batch = [
      {jsonrpc: "2.0", id: 1, method: "test.echo", params: {value: "a"}},
      {jsonrpc: "2.0", method: "test.echo"},
      {jsonrpc: "2.0", id: 2, method: "test.fail"},
      5,
      {jsonrpc: "2.0", id: 3, method: "test.nope"},
    ];
    const j = (await raw(JSON.stringify(batch))).json() as {id: unknown; result?: unknown; error?: {code: number}}[];
    expect(j.map((x) => x.id)).toEqual([1, 2, null, 3]);
    expect(j[0]!.result).toEqual({value: "a"});
    expect(j.slice(1).map((x) => x.error!.code)).toEqual([-32000, -32600, -32601]);
    const one = (await raw(JSON.stringify([batch[0]]))).json();
    expect(Array.isArray(one)).toBe(true);
    expect((await raw(JSON.stringify([batch[1], batch[1]]))).status).toBe(204);
  });

  it("a batch over 100 requests is one -32600 error", async () => {
    const batch = Array.from({length: 101}, (_, i) => ({jsonrpc: "2.0", id: i, method: "test.echo"}));
    const j = (await raw(JSON.stringify(batch))).json() as {error: {code: number; message: string}};
    expect(j.error).toEqual({code: -32600, message: "invalid request: batch of 101 requests exceeds 100"});
    const ok = Array.from({length: 100}, (_, i) => ({jsonrpc: "2.0", id: i, method: "test.echo"}));
    expect(((await raw(JSON.stringify(ok))).json() as unknown[]).length).toBe(100);
  });
});

describe("/ext/metrics", () => {
  it("exposes process, HTTP and JSON-RPC metrics with bounded labels", async () => {
    await t.get("/some/random/path/12345");
    const r = await t.get("/ext/metrics");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/avaext_process_cpu_user_seconds_total/);
    expect(r.text).toMatch(/avaext_http_requests_total\{route="\/ext\/test",method="POST",status="200"\} \d+/);
    expect(r.text).toMatch(/avaext_http_requests_total\{route="unmatched",method="GET",status="404"\}/);
    expect(r.text).not.toContain('12345"');
    expect(r.text).toMatch(/avaext_rpc_calls_total\{method="test.fail",outcome="app_error"\} \d+/);
    expect(r.text).toMatch(/avaext_rpc_calls_total\{method="unknown",outcome="not_found"\} \d+/);
    expect(r.text).toMatch(/avaext_rpc_call_duration_seconds_bucket\{le="0.001",method="test.echo"\}/);
  });
});
