/**
 * The HTTP server's write timeout (issue 49), over a real socket: an answer far larger than the loopback socket
 * buffers (the kernel takes up to 4 MiB to send and 32 MiB to receive here), to a client that reads none of it, is
 * dropped with its connection after `writeTimeoutMs` without progress, instead of staying queued in memory; a client
 * that reads slowly, with pauses shorter than the timeout, gets all of it.
 */
import net from "node:net";
import {Writable} from "node:stream";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {RpcRouter, defaultRpcRouterOptions} from "../../../src/api/rpcRouter.js";
import {Routes} from "../../../src/api/routes.js";
import {HttpServer, defaultHttpServerOptions} from "../../../src/api/server.js";
import {LoggerRegistry} from "../../../src/logger/index.js";

const logger = new LoggerRegistry({
  logLevel: "OFF",
  displayLevel: "OFF",
  logDir: null,
  displayStream: new Writable({write: (_c, _e, cb) => cb()}),
}).get("main");
const SIZE = 96 * 2 ** 20;
const BODY = "x".repeat(SIZE);
const TIMEOUT_MS = 400;

describe("HTTP write timeout", () => {
  let server: HttpServer;
  let port = 0;
  beforeAll(async () => {
    const routes = new Routes();
    routes.add("/big", {template: "/big", plain: () => ({status: 200, contentType: "text/plain", body: BODY})});
    routes.add("/slow", {
      template: "/slow",
      plain: async () => {
        await new Promise((r) => setTimeout(r, 300));
        return {status: 200, contentType: "text/plain", body: "slow"};
      },
    });
    server = new HttpServer(
      {...defaultHttpServerOptions, host: "127.0.0.1", port: 0, allowedHosts: ["*"], writeTimeoutMs: TIMEOUT_MS},
      {routes, rpc: new RpcRouter(defaultRpcRouterOptions, {logger, metrics: null}), logger, metrics: null},
    );
    port = Number((await server.listen()).port);
  });
  afterAll(async () => server?.close());

  /** GETs /big; the client reads nothing for `stallMs`, then (every `pauseMs`, if given) reads until the end. */
  const fetchBig = (stallMs: number, pauseMs?: number): Promise<{bytes: number; ended: "end" | "error"}> =>
    new Promise((resolve) => {
      const s = net.connect(port, "127.0.0.1");
      let bytes = 0;
      s.pause();
      s.on("data", (d: Buffer) => {
        bytes += d.length;
        if (pauseMs !== undefined && bytes % (4 * 2 ** 20) < d.length) {
          // A reader that takes a breath every 4 MiB, shorter than the timeout.
          s.pause();
          setTimeout(() => s.resume(), pauseMs);
        }
      });
      s.on("end", () => resolve({bytes, ended: "end"}));
      s.on("error", () => resolve({bytes, ended: "error"}));
      s.write("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      setTimeout(() => s.resume(), stallMs);
    });

  it("drops the answer and the connection of a client that takes none of it", async () => {
    const got = await fetchBig(TIMEOUT_MS * 8);
    // What the socket buffers held when it was cut, never the whole answer.
    expect(got.bytes).toBeLessThan(SIZE);
    // Nothing of it is left queued on the server.
    await expect.poll(() => server.inflightStats().outstanding, {timeout: 10_000}).toBe(0);
  }, 60_000);

  it("drops a large answer pipelined behind a slow one, to a client that reads neither", async () => {
    const got = await new Promise<{bytes: number}>((resolve) => {
      const s = net.connect(port, "127.0.0.1");
      let bytes = 0;
      s.pause();
      s.on("data", (d: Buffer) => (bytes += d.length));
      s.on("close", () => resolve({bytes}));
      s.on("error", () => undefined);
      // Both requests at once: the large answer waits, buffered, for the slow one's socket.
      s.write(
        "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      );
      setTimeout(() => s.resume(), TIMEOUT_MS * 8);
    });
    expect(got.bytes).toBeLessThan(SIZE);
    await expect.poll(() => server.inflightStats().outstanding, {timeout: 10_000}).toBe(0);
  }, 60_000);

  it("sends the whole answer to a client that reads slowly, pausing less than the timeout", async () => {
    const got = await fetchBig(0, TIMEOUT_MS / 4);
    expect(got.ended).toBe("end");
    expect(got.bytes).toBeGreaterThan(SIZE);
  }, 60_000);
});
