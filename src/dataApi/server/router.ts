/**
 * The `/v1` data API router: it mounts the route table (route.ts; the entries are routes/defs/), and answers each
 * request by its entry: API keys and rate limits, the path's match, the JSON body of a POST, the handler's context
 * (routeCtx.ts: declared parameters, keyset page tokens), the entry's status, and one error mapper that answers the
 * JSON error body (errors.ts). Plugged into the node's HTTP server as a route resolver for `/v1/...` (the metrics
 * service's `/v1/avg_tps` is resolved before it and keeps its own rules).
 */
import type {RequestSignals} from "../../util/requestSignals.js";
import type {IncomingMessage} from "node:http";
import type {Registry} from "prom-client";
import type {ChainRegistry, NetworkInfo} from "../../chains/index.js";
import type {Logger} from "../../logger/index.js";
import type {PlainResponse, Route, RouteResolver, Target} from "../../api/routes.js";
import {readBodyLimited} from "../../api/body.js";
import {DataApiError, badRequest} from "./errors.js";
import type {ApiKey} from "./keys.js";
import {CursorTokens} from "./cursorTokens.js";
import {Query} from "./params.js";
import {ClientAddresses} from "../../api/clientAddress.js";
import {RateLimiter} from "../../api/rateLimit.js";
import {rateLimitHeaders} from "./rateLimit.js";
import type {BoundRoute, Method} from "./route.js";
import {routeCtx} from "./routeCtx.js";

export interface DataApiRouterOptions {
  network: NetworkInfo;
  /** Authenticates page tokens (per store, shared by every process that serves it). */
  tokenSecret: Uint8Array;
  /** Requests a minute per client IP without a key; 0 = no limit. */
  rateLimitPerMinute: number;
  /** API keys (`--data-api-keys-file`); null: keys are ignored. */
  keys: Map<string, ApiKey> | null;
  /** Largest POST body, bytes. */
  bodyLimit?: number;
  /** Who a request is from (`--http-trusted-proxies`); default: the socket's peer, X-Forwarded-For ignored. */
  clients?: ClientAddresses;
}

export interface DataApiRouterModules {
  chains: ChainRegistry;
  logger: Logger;
  register: Registry | null;
  /** Each handler runs inside its request's signal, so the store can cancel a statement whose client went away. */
  signals?: RequestSignals;
}

/** What a matched route is given to answer. */
interface Inputs {
  params: Record<string, string>;
  query: Query;
  req: IncomingMessage;
  body: unknown;
  apiKey: string | undefined;
  scope: () => string;
}

interface Compiled {
  method: Method;
  /** No body declared: an empty one is none (DELETE /v1/webhooks/{id}, POST /v1/webhooks:generateOrRotateSharedSecret). */
  bodyOptional: boolean;
  template: string;
  segments: string[];
  literals: number;
  run: (i: Inputs) => Promise<{status: number; body: unknown}>;
  route: Route;
  /** Requests of the client's limit one takes (RouteDef.cost). */
  cost: number;
}

const PREFIX = "/v1/";
const JSON_CT = "application/json; charset=utf-8";

export class DataApiRouter {
  private readonly routes: Compiled[] = [];
  private readonly tokens: CursorTokens;
  private readonly limiter = new RateLimiter();
  private readonly clients: ClientAddresses;
  private readonly unknown: Route;

  constructor(
    private readonly opts: DataApiRouterOptions,
    private readonly modules: DataApiRouterModules,
  ) {
    this.tokens = new CursorTokens(opts.tokenSecret);
    this.clients = opts.clients ?? new ClientAddresses();
    this.unknown = {template: "/v1/*", plain: (req, target) => this.dispatch(req, target, null), plainAnyMethod: true};
  }

  /** Routes of the table (route.ts), each answered by its handler with the entry's status. */
  mount(routes: readonly BoundRoute[]): void {
    for (const {def, handler} of routes) {
      const status = def.status ?? 200;
      this.add(
        def.method,
        def.path,
        def.body === undefined,
        async (i) => ({status, body: await handler(routeCtx(def, {...i, tokens: this.tokens}))}),
        def.cost ?? 1,
      );
    }
  }

  /** The templates served, for documentation and tests. */
  templates(): string[] {
    return this.routes.map((r) => `${r.method} ${r.template}`);
  }

  resolver(): RouteResolver {
    return {
      resolve: (path) => (path.startsWith(PREFIX) ? (this.match(path)?.c.route ?? this.unknown) : null),
      list: () => [...new Set(this.routes.map((r) => r.template))],
    };
  }

  private add(method: Method, template: string, bodyOptional: boolean, run: Compiled["run"], cost = 1): void {
    const segments = template.split("/").slice(1);
    const c: Compiled = {
      method,
      bodyOptional,
      template,
      segments,
      literals: segments.filter((s) => !s.startsWith(":")).length,
      run,
      cost,
      route: {template, plain: (req, target) => this.dispatch(req, target, template), plainAnyMethod: true},
    };
    // One Route object per template (the HTTP metrics' label); the methods of a template share it.
    const twin = this.routes.find((r) => r.template === template);
    if (twin) c.route = twin.route;
    // What a CORS preflight allows (src/api/server.ts allowedMethods): the methods the template has.
    const methods = new Set([...(c.route.methods ?? []), ...methodNames(method)]);
    c.route.methods = [...methods];
    this.routes.push(c);
    // Literal segments win over parameters (`/blocks/latest`-style paths before `/blocks/:id`).
    this.routes.sort((a, b) => b.literals - a.literals);
  }

  private match(path: string, method?: string): {c: Compiled; params: Record<string, string>} | null {
    const parts = path.split("/").slice(1);
    for (const c of this.routes) {
      if (c.segments.length !== parts.length || (method !== undefined && c.method !== method)) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const s = c.segments[i]!;
        if (s.startsWith(":")) {
          if (parts[i] === "") ok = false;
          else {
            try {
              params[s.slice(1)] = decodeURIComponent(parts[i]!);
            } catch {
              ok = false;
            }
          }
        } else ok = s === parts[i];
      }
      if (ok) return {c, params};
    }
    return null;
  }

  private async dispatch(req: IncomingMessage, target: Target, template: string | null): Promise<PlainResponse> {
    const headers: Record<string, string> = {};
    try {
      const method = req.method === "HEAD" ? "GET" : (req.method ?? "GET");
      const m = template === null ? null : this.match(target.path, method);
      const apiKey = this.admit(req, headers, m?.c.cost ?? 1);
      if (template === null) throw new DataApiError(404, `no such path: ${target.path}`);
      if (!m) {
        const allow = [
          ...new Set(this.routes.filter((r) => r.template === template).flatMap((r) => methodNames(r.method))),
        ];
        throw new DataApiError(405, `method ${req.method} not allowed on ${template} (allowed: ${allow.join(", ")})`, {
          allow: allow.join(", "),
        });
      }
      const body = m.c.method === "GET" ? undefined : await this.readJson(req, m.c.bodyOptional);
      const query = new Query(target.query);
      const scope = (): string => pageScope(template, m.params, target.query, body);
      const run = () => m.c.run({params: m.params, query, req, body, apiKey, scope});
      const signals = this.modules.signals;
      const answer = signals && target.signal ? await signals.run(target.signal, run) : await run();
      return {status: answer.status, contentType: JSON_CT, body: stringify(answer.body), headers};
    } catch (err) {
      if (err instanceof DataApiError) {
        return {
          status: err.status,
          contentType: JSON_CT,
          body: JSON.stringify(err.body()),
          headers: {...headers, ...err.headers},
        };
      }
      // The client went away and its statement was cancelled (or never sent): no one reads this answer.
      if (target.signal?.aborted) return {status: 499, contentType: JSON_CT, body: "{}", headers};
      // query_canceled: the store's statement timeout (--data-api-statement-timeout) ended a read.
      if ((err as {code?: unknown}).code === "57014") {
        const e = new DataApiError(
          503,
          "the request's read ran past the store's statement timeout: narrow it (a shorter range, fewer addresses) or retry",
        );
        return {status: 503, contentType: JSON_CT, body: JSON.stringify(e.body()), headers};
      }
      this.modules.logger.error({err, path: target.path}, "data API request failed");
      const e = new DataApiError(500, "internal error");
      return {status: 500, contentType: JSON_CT, body: JSON.stringify(e.body()), headers};
    }
  }

  /**
   * API key and rate limit: 429 past the client's limit, 401 for a key the keys file does not list. A request takes
   * its route's cost (RouteDef.cost) from the limit; one with an unknown key counts against its address's anonymous
   * limit, so guessing keys costs what any request does. Returns the key when the keys file lists it.
   */
  private admit(req: IncomingMessage, headers: Record<string, string>, cost: number): string | undefined {
    const raw = req.headers["x-glacier-api-key"] ?? req.headers["x-service-api-key"];
    const key = Array.isArray(raw) ? raw[0] : raw;
    const k = key !== undefined && this.opts.keys !== null ? this.opts.keys.get(key) : undefined;
    const anonymous = k === undefined;
    const client = anonymous ? this.clients.keyOf(req) : `key:${key}`;
    const limit = anonymous ? this.opts.rateLimitPerMinute : k.rateLimit;
    const policy = anonymous ? "anonymous" : k.name;
    const d = this.limiter.take(client, limit, cost);
    const h = rateLimitHeaders(d, limit, policy);
    Object.assign(headers, h);
    if (!d.ok)
      throw new DataApiError(429, `rate limit of ${limit} requests a minute exceeded; retry in ${d.retryAfterS} s`, h);
    if (key !== undefined && this.opts.keys !== null && anonymous) throw new DataApiError(401, "unknown API key");
    return anonymous ? undefined : key;
  }

  private async readJson(req: IncomingMessage, optional: boolean): Promise<unknown> {
    const limit = this.opts.bodyLimit ?? 1024 * 1024;
    // A declared length past the limit is answered before any of the body is read, one that grows past it (chunked)
    // when it does: 413, as the JSON-RPC path (src/api/server.ts readBody), with the connection closed after the
    // answer (the rest is never used).
    const tooLarge = (): DataApiError =>
      new DataApiError(413, `body: larger than ${limit} bytes`, {connection: "close"});
    if (Number(req.headers["content-length"]) > limit) throw tooLarge();
    const text = await readBodyLimited(req, limit);
    if (text === null) throw tooLarge();
    if (optional && text.trim() === "") return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw badRequest("body", "must be a JSON object");
    }
  }
}

/** The methods an entry answers (GET answers HEAD too). */
function methodNames(m: Method): string[] {
  return m === "GET" ? ["GET", "HEAD"] : [m];
}

/**
 * What a page token is bound to: the endpoint, its path parameters, every filter but the paging ones, and a POST's
 * JSON body (its addresses are the filter there), so that a token is refused on any other request.
 */
export function pageScope(
  template: string,
  params: Record<string, string>,
  query: URLSearchParams,
  body?: unknown,
): string {
  const filters = [...query.entries()]
    .filter(([k]) => k !== "pageToken" && k !== "pageSize")
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  const path = Object.keys(params)
    .sort()
    .map((k) => `${k}=${params[k]}`);
  const scope: unknown[] = [template, path, filters];
  if (body !== undefined) scope.push(canonical(body));
  return JSON.stringify(scope);
}

/** A JSON value with its object keys sorted, so that two bodies with the same content give the same scope. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  return Object.keys(o)
    .sort()
    .map((k) => [k, canonical(o[k])]);
}

/**
 * JSON with bigints as decimal strings (the data API's convention for large integers). The models give amounts as
 * strings already, so the plain call goes first: V8 serialises it on its fast path, where a replacer function is
 * called for every key and value (a page of 10 X transactions, 35 KB: 0.13 ms against 0.24 ms). A bigint makes it
 * throw a TypeError, and the replacer does the work: a value is then walked twice (its toJSON methods and getters
 * run twice), which the models' plain objects do not mind.
 */
export function stringify(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return JSON.stringify(v, bigintAsString);
  }
}

function bigintAsString(_k: string, x: unknown): unknown {
  return typeof x === "bigint" ? x.toString() : x;
}
