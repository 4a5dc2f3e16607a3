/**
 * The one HTTP server (node:http). Order of checks per request, as AvalancheGo wraps its handlers: allowed
 * hosts (403), route lookup (404), CORS and preflight, method (405), content type (415), body size (413), then
 * the JSON-RPC router or a plain handler. Error bodies are short text, never stacks or paths.
 */
import http, {type IncomingMessage, type ServerResponse} from "node:http";
import type {AddressInfo} from "node:net";
import {Socket, isIP} from "node:net";
import type {Logger} from "../logger/index.js";
import type {HttpMetrics} from "../metrics/index.js";
import {Exchange, Inflight} from "./inflight.js";
import {bodyLength, type RpcRouter} from "./rpcRouter.js";
import type {Route, Routes} from "./routes.js";

export interface HttpServerOptions {
  host: string;
  port: number;
  /** `--http-allowed-hosts`: hostnames allowed in the Host header; `*` = any. IPs and an empty Host always pass. */
  allowedHosts: string[];
  /** `--http-allowed-origins`: CORS origins; `*` = any (never for sensitive routes). */
  allowedOrigins: string[];
  /** Largest request body in bytes (413 above). */
  bodyLimit: number;
  /** Time allowed to receive the headers / the whole request (slowloris guard), ms. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this, ms. */
  keepAliveTimeoutMs: number;
  /** On close, in-flight requests get this long to finish before their sockets are cut, ms. */
  shutdownDrainMs: number;
  /**
   * An answer still queued after this long without the client taking any of it is dropped with its connection, ms
   * (0 = never): a client that never reads would otherwise hold the whole answer in this process's memory.
   */
  writeTimeoutMs: number;
}

export const defaultHttpServerOptions: HttpServerOptions = {
  host: "127.0.0.1",
  port: 9650,
  allowedHosts: ["localhost"],
  allowedOrigins: ["*"],
  bodyLimit: 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  shutdownDrainMs: 5_000,
  writeTimeoutMs: 30_000,
};

export interface HttpServerModules {
  routes: Routes;
  rpc: RpcRouter;
  logger: Logger;
  metrics: HttpMetrics | null;
}

/** In-flight request statistics for the `router` health check. */
export interface InflightStats {
  outstanding: number;
  /** Age of the oldest in-flight request, ns (0 when none). */
  longestNs: bigint;
}

const TEXT = "text/plain; charset=utf-8";
const JSON_CT = "application/json; charset=utf-8";
const PREFLIGHT_MAX_AGE = "600";
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "OPTIONS", "PUT", "DELETE", "PATCH"]);

export class HttpServer {
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  /**
   * Requests in flight (the router health check reads their count and the oldest's age). One leaves when its
   * response is written (and is counted in the metrics then), or when its socket closes without an answer. No
   * per-request `close` listener: that listener and its bookkeeping cost about a tenth of a trivial JSON-RPC
   * call's throughput (bench/transport.mjs).
   */
  private readonly inflight = new Inflight();
  private readonly anyHost: boolean;
  private readonly hosts: Set<string>;
  private readonly anyOrigin: boolean;
  private readonly origins: Set<string>;
  private closing = false;
  /** Host header -> allowed (see hostAllowed). */
  private readonly hostVerdicts = new Map<string, boolean>();

  constructor(
    private readonly opts: HttpServerOptions,
    private readonly modules: HttpServerModules,
  ) {
    this.anyHost = opts.allowedHosts.includes("*");
    this.hosts = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
    this.anyOrigin = opts.allowedOrigins.includes("*");
    this.origins = new Set(opts.allowedOrigins.filter((o) => o !== "*"));
    this.server = http.createServer({
      headersTimeout: opts.headersTimeoutMs,
      requestTimeout: opts.requestTimeoutMs,
      keepAliveTimeout: opts.keepAliveTimeoutMs,
    });
    settleResponseShape();
    this.server.on("request", (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
    this.server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.once("close", () => {
        this.sockets.delete(s);
        // Requests whose client went away before they were answered.
        if (this.inflight.size > 0) this.inflight.removeWhere((x) => x.req.socket === s);
      });
    });
    // A malformed request line or headers: answer 400 and drop the socket; never crash.
    this.server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
      if (socket.writable && !socket.destroyed) {
        const status = err.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
        socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      } else {
        socket.destroy();
      }
    });
  }

  async listen(): Promise<URL> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.opts.port, this.opts.host === "" ? undefined : this.opts.host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    return this.url();
  }

  url(): URL {
    const addr = this.server.address() as AddressInfo;
    const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    return new URL(`http://${host === "[::]" ? "127.0.0.1" : host === "0.0.0.0" ? "127.0.0.1" : host}:${addr.port}`);
  }

  inflightStats(): InflightStats {
    const oldest = this.inflight.oldest();
    const longestNs = oldest === null ? 0n : BigInt(Math.round((performance.now() - oldest.start) * 1e6));
    return {outstanding: this.inflight.size, longestNs};
  }

  /** Stops accepting, lets in-flight requests finish (up to shutdownDrainMs), then cuts what is left. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const deadline = Date.now() + this.opts.shutdownDrainMs;
    // Answered requests leave the in-flight table when written; a large answer may still be flushing to a slow
    // client, so sockets with bytes still queued are waited for too.
    const busy = (): boolean => this.inflight.size > 0 || [...this.sockets].some((s) => s.writableLength > 0);
    while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    this.server.closeAllConnections();
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  /** Writes a response and retires its exchange: out of the in-flight table, into the metrics. */
  private send(
    x: Exchange,
    res: ServerResponse,
    status: number,
    h: Headers,
    body?: string | Buffer | readonly Buffer[],
  ): void {
    res.writeHead(status, h);
    if (Array.isArray(body)) {
      // Chunks of one answer (a range page between its envelope's pieces), written in order without joining.
      res.cork();
      for (let i = 0; i < body.length - 1; i++) res.write(body[i]);
      res.end(body[body.length - 1]);
    } else {
      res.end(body);
    }
    this.watchWrite(res);
    this.inflight.remove(x);
    const m = this.modules.metrics;
    if (m) {
      const method = KNOWN_METHODS.has(x.req.method ?? "") ? x.req.method! : "OTHER";
      m.requests.labels(x.template, method, String(status)).inc();
      m.duration.labels(x.template).observe((performance.now() - x.start) / 1e3);
    }
  }

  /**
   * An answer the kernel did not take whole at once (larger than the socket's buffers, or a client not reading):
   * checked every writeTimeoutMs, and its connection destroyed, freeing what is queued, when none of it left since
   * the last check. Small answers leave at once and start no timer.
   */
  private watchWrite(res: ServerResponse): void {
    const s = res.socket;
    const ms = this.opts.writeTimeoutMs;
    if (ms <= 0 || res.writableFinished) return;
    // A pipelined answer waits, buffered, for the answers before it: it is watched once it has the socket and its
    // buffer has gone to it (a client that pipelines a large answer behind a slow one and reads neither).
    if (!s) return void res.once("socket", () => setImmediate(() => this.watchWrite(res)));
    if (s.writableLength === 0) return;
    // Progress is what libuv has left of the write: the stream's writableLength counts a chunk until all of it is
    // written, so an answer of one chunk would show none until it is done.
    const left = (): number =>
      (s as unknown as {_handle?: {writeQueueSize?: number}})._handle?.writeQueueSize ?? s.writableLength;
    let queued = left();
    const timer = setInterval(() => {
      if (res.writableFinished || s.destroyed) return void clearInterval(timer);
      const now = left();
      if (now < queued) {
        queued = now;
        return;
      }
      clearInterval(timer);
      this.modules.logger.debug(
        {queuedBytes: queued, writeTimeoutMs: ms},
        "HTTP client took none of its answer: connection dropped",
      );
      s.destroy();
    }, ms);
    timer.unref();
    res.once("finish", () => clearInterval(timer));
  }

  private sendText(x: Exchange, res: ServerResponse, status: number, body: string, h: Headers): void {
    h["content-type"] = TEXT;
    h["content-length"] = Buffer.byteLength(body);
    this.send(x, res, status, h, body);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const x = new Exchange(req, performance.now());
    this.inflight.add(x);
    // Response headers are gathered here and written once with writeHead: a setHeader call per header costs
    // measurable throughput on the hot path.
    const h: Headers = {};
    // During shutdown, keep-alive clients are told to reconnect elsewhere.
    if (this.closing) h.connection = "close";

    if (!this.hostAllowed(req.headers.host)) return this.sendText(x, res, 403, "invalid host specified\n", h);
    // The path is split off by hand: a URL object is only built for handlers that read the query.
    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const route = this.modules.routes.resolve(pathname);
    h.vary = "Origin";
    if (!route) return this.sendText(x, res, 404, "404 page not found\n", h);
    x.template = route.template;

    const origin = req.headers.origin;
    const corsOk = origin !== undefined && this.applyCors(h, origin, route);
    const method = req.method ?? "GET";
    if (method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
      return this.preflight(x, res, route, corsOk, h);
    }

    // GET/HEAD reach a plain handler; health sub-paths answer every method as AvalancheGo's do.
    const plain = method === "GET" || method === "HEAD" || (route.plainAnyMethod === true && !route.rpc);
    if (route.plain && plain)
      return void this.servePlain(x, route, res, pathname, q < 0 ? null : rawUrl.slice(q + 1), method === "HEAD", h);
    if (route.rpc && method === "POST") return void this.serveRpc(x, route.rpc, res, h);
    h.allow = allowedMethods(route).join(", ");
    if (route.rpc && !route.plain)
      return this.sendText(x, res, 405, `rpc: POST method required, received ${method}`, h);
    return this.sendText(x, res, 405, `method ${method} not allowed\n`, h);
  }

  private async servePlain(
    x: Exchange,
    route: Route,
    res: ServerResponse,
    path: string,
    rawQuery: string | null,
    head: boolean,
    h: Headers,
  ): Promise<void> {
    // Probes hit these paths at high rates and rarely carry a query: parse one only when there is one.
    const query = rawQuery === null ? new URLSearchParams() : new URLSearchParams(rawQuery);
    // A client that goes away before its answer is sent: the handler's work for it (a store statement) can stop.
    const gone = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) gone.abort();
    };
    res.once("close", onClose);
    try {
      const out = await route.plain!(x.req, {path, query, signal: gone.signal});
      h["content-type"] = out.contentType;
      if (out.headers) Object.assign(h, out.headers);
      h["content-length"] = Buffer.byteLength(out.body);
      this.send(x, res, out.status, h, head ? undefined : out.body);
    } catch (err) {
      this.modules.logger.error({err, path}, "plain handler failed");
      if (!res.headersSent) this.sendText(x, res, 500, "internal error\n", h);
      else res.destroy();
    }
  }

  private async serveRpc(
    x: Exchange,
    rpc: {service: string; ctx: unknown},
    res: ServerResponse,
    h: Headers,
  ): Promise<void> {
    const req = x.req;
    const ct = req.headers["content-type"];
    const type = ct === undefined ? "" : ct === "application/json" ? ct : ct.split(";", 1)[0]!.trim().toLowerCase();
    if (type !== "application/json") {
      req.resume();
      return this.sendText(
        x,
        res,
        415,
        `rpc: unrecognized Content-Type: ${type === "" ? "(none)" : type}; use application/json\n`,
        h,
      );
    }
    // One microtask: the parser finishes the read it is in (pushing the body) before the body is looked at.
    await undefined;
    const read = this.readBody(x, res, h);
    const body = typeof read === "string" || read === null ? read : await read;
    if (body === null) return;
    const reply = await this.modules.rpc.handle(body, rpc.service, rpc.ctx);
    if (reply.status === 204) return this.send(x, res, 204, h);
    h["content-type"] = JSON_CT;
    h["x-content-type-options"] = "nosniff";
    const answer = reply.body!;
    if (typeof answer !== "string") {
      h["content-length"] = bodyLength(answer);
      return this.send(x, res, 200, h, answer);
    }
    // Encoded once: for multi-megabyte answers (batches) byteLength then write would walk it twice.
    const out = answer.length > 64 * 1024 ? Buffer.from(answer, "utf8") : answer;
    h["content-length"] = typeof out === "string" ? Buffer.byteLength(out) : out.length;
    this.send(x, res, 200, h, out);
  }

  /**
   * Reads the body up to the limit (at once when it is all buffered); on overflow answers 413 and closes the
   * connection, giving null.
   */
  private readBody(x: Exchange, res: ServerResponse, h: Headers): string | null | Promise<string | null> {
    const req = x.req;
    const limit = this.opts.bodyLimit;
    const tooLarge = (): null => {
      h.connection = "close";
      this.sendText(x, res, 413, `request body exceeds ${limit} bytes\n`, h);
      req.destroy();
      return null;
    };
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) return tooLarge();
    // Usually the whole body came with the headers, and the parser has pushed it by the time serveRpc resumed.
    // It is then taken as it lies, without listeners, flowing mode and the ticks that deliver 'data' and 'end'
    // (a tenth of a trivial call's cost). A body still arriving, or one without a length, is read as a stream.
    if (Number.isFinite(declared) && req.readableLength >= declared) {
      const buf = req.read() as Buffer | null;
      // The request then never emits 'end' or 'close' (its end-of-stream comes after this read, and nothing
      // reads again): nothing here listens for them (the in-flight table follows sockets), and the parser lets
      // go of it at the socket's next request. A resume() to reach the end cost ~0.9 µs a call (A/B measured).
      return buf === null ? "" : buf.toString("utf8");
    }
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (v: string | null): void => {
        if (done) return;
        done = true;
        resolve(v);
      };
      req.on("data", (chunk: Buffer) => {
        if (done) return;
        size += chunk.length;
        if (size > limit) return void finish(tooLarge());
        chunks.push(chunk);
      });
      req.on("end", () => finish((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString("utf8")));
      req.on("error", () => finish(null));
    });
  }

  private hostAllowed(host: string | undefined): boolean {
    if (this.anyHost || host === undefined || host === "") return true;
    // A client sends the same Host on every request: the answer is remembered (a few, bounded) rather than
    // parsed and matched against the IP patterns each time.
    let allowed = this.hostVerdicts.get(host);
    if (allowed === undefined) {
      allowed = this.checkHost(host);
      if (this.hostVerdicts.size >= 256) this.hostVerdicts.clear();
      this.hostVerdicts.set(host, allowed);
    }
    return allowed;
  }

  private checkHost(host: string): boolean {
    let name = host;
    if (name.startsWith("[")) {
      const end = name.indexOf("]");
      name = end < 0 ? name : name.slice(1, end);
    } else {
      const colon = name.lastIndexOf(":");
      if (colon >= 0) name = name.slice(0, colon);
    }
    if (isIP(name) !== 0) return true;
    return this.hosts.has(name.toLowerCase());
  }

  /** Sets CORS headers for an allowed origin; returns whether the origin is allowed for this route. */
  private applyCors(h: Headers, origin: string, route: Route): boolean {
    if (this.origins.has(origin)) {
      h["access-control-allow-origin"] = origin;
      h["access-control-allow-credentials"] = "true";
      return true;
    }
    // A wildcard never opens a sensitive route (the admin API), and never goes with credentials.
    if (this.anyOrigin && !route.sensitive) {
      h["access-control-allow-origin"] = "*";
      return true;
    }
    return false;
  }

  private preflight(x: Exchange, res: ServerResponse, route: Route, allowed: boolean, h: Headers): void {
    const req = x.req;
    req.resume();
    if (!allowed) return this.sendText(x, res, 403, "origin not allowed\n", h);
    h["access-control-allow-methods"] = allowedMethods(route).join(", ");
    const reqHeaders = req.headers["access-control-request-headers"];
    h["access-control-allow-headers"] = typeof reqHeaders === "string" ? reqHeaders : "Content-Type";
    h["access-control-max-age"] = PREFLIGHT_MAX_AGE;
    this.send(x, res, 204, h);
  }
}

/**
 * Builds a few responses before the first request, so V8 sizes ServerResponse objects on complete ones. V8 fixes
 * a constructor's in-object size after its first instances (in-object slack tracking, 7 constructions) or at a
 * garbage collection before that. When a collection came first, as between the first requests during a busy
 * ingest, the size fell short and every later response was turned into a dictionary-mode object while Node
 * built it: ~5 µs more per request, a cached getContainerByIndex at 52-54 % of the bare server instead of 71 %.
 * Seen with %HasFastProperties in about half the runs after a 1M-container ingest; in none of 9 with this.
 */
function settleResponseShape(): void {
  if (responseShapeSettled) return;
  responseShapeSettled = true;
  for (let i = 0; i < 8; i++) new http.ServerResponse(new http.IncomingMessage(new Socket()));
}

/** Once per process: only the first constructions count. */
let responseShapeSettled = false;

function allowedMethods(route: Route): string[] {
  const m: string[] = [];
  if (route.plain) m.push(...(route.methods ?? ["GET", "HEAD"]));
  if (route.rpc && !m.includes("POST")) m.push("POST");
  return m;
}

/** Response headers gathered for one writeHead call. */
type Headers = Record<string, string | number>;

export {JSON_CT, TEXT};
