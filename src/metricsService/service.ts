/**
 * The metrics service: `GET /v1/avg_tps/{chainId}` (docs/api/metrics-service.md) and the hosted Metrics API's /v2
 * (v2/, composed by the root: it reads the data API's store, below which this folder must stay). Errors use the seed's body `{message: string[], error, statusCode}`; one rate limit and one set of page
 * tokens serve both.
 */
import {STATUS_CODES} from "node:http";
import type {PlainResponse, Route, RouteResolver, Target} from "../api/routes.js";
import type {ChainName, ChainRegistry} from "../chains/index.js";
import type {AvgTps} from "./avgTps.js";
import {PositionTokens} from "./positionTokens.js";
import {ClientAddresses} from "../api/clientAddress.js";
import {RateLimiter} from "../api/rateLimit.js";

export const AVG_TPS_PREFIX = "/v1/avg_tps/";
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface MetricsServiceOptions {
  /** Requests per client per minute; 0 = unlimited. */
  rateLimitPerMinute: number;
  /** Who a request is from (`--http-trusted-proxies`); default: the socket's peer. */
  clients?: ClientAddresses;
}

export interface MetricsServiceModules {
  chains: ChainRegistry;
  avgTps: AvgTps;
  tokens?: PositionTokens;
}

export function errorBody(status: number, messages: string[]): PlainResponse {
  const body = {message: messages, error: STATUS_CODES[status] ?? "Error", statusCode: status};
  return {status, contentType: "application/json", body: JSON.stringify(body)};
}

export class MetricsService {
  private readonly limiter = new RateLimiter();
  /** Who a request is from (--http-trusted-proxies), for /v1 and /v2 alike. */
  readonly clients: ClientAddresses;
  /** Shared with /v2 (src/metricsService/v2). */
  readonly tokens: PositionTokens;

  constructor(
    private readonly opts: MetricsServiceOptions,
    private readonly modules: MetricsServiceModules,
  ) {
    this.clients = opts.clients ?? new ClientAddresses();
    this.tokens = modules.tokens ?? new PositionTokens();
  }

  /** The 429 answer when the client is over its rate, else null (one budget for /v1 and /v2). */
  limit(client: string, cost = 1): PlainResponse | null {
    const d = this.limiter.take(client, this.opts.rateLimitPerMinute, cost);
    if (d.ok) return null;
    const wait = d.retryAfterS;
    const r = errorBody(429, [`too many requests; retry in ${wait}s`]);
    return {...r, headers: {"Retry-After": String(wait)}};
  }

  /** Routes `/v1/avg_tps/<chainId>`; any chain text resolves to the route, unknown chains answer 404 there. */
  resolver(): RouteResolver {
    const route: Route = {
      template: `${AVG_TPS_PREFIX}:chainId`,
      plain: (req, target) => this.avgTps(this.clients.keyOf(req), target),
    };
    return {
      resolve: (path) =>
        path.startsWith(AVG_TPS_PREFIX) &&
        path.length > AVG_TPS_PREFIX.length &&
        !path.includes("/", AVG_TPS_PREFIX.length)
          ? route
          : null,
      list: () => ["43114", "P", "X", "C"].map((c) => AVG_TPS_PREFIX + c),
    };
  }

  /** The chain a path segment names: an EVM chain ID of this network's C-chain, or any chain ID or alias. */
  resolveChain(text: string): ChainName | null {
    const {chains} = this.modules;
    if (/^\d+$/.test(text))
      return chains.network.cChainEvmId !== null && Number(text) === chains.network.cChainEvmId ? "C" : null;
    return chains.resolveChain(text);
  }

  private avgTps(client: string, url: Target): PlainResponse {
    const limited = this.limit(client);
    if (limited) return limited;
    let chainText: string;
    try {
      chainText = decodeURIComponent(url.path.slice(AVG_TPS_PREFIX.length));
    } catch {
      return errorBody(400, ["chainId is not valid percent-encoding"]);
    }
    const chain = this.resolveChain(chainText);
    if (chain === null) return errorBody(404, [`chain ${chainText} not found`]);

    let offset = 0;
    let pageSize = DEFAULT_PAGE_SIZE;
    const token = url.query.get("pageToken");
    const sizeText = url.query.get("pageSize");
    if (sizeText !== null) {
      if (!/^\d+$/.test(sizeText) || Number(sizeText) < 1 || Number(sizeText) > MAX_PAGE_SIZE) {
        return errorBody(400, [`pageSize must be an integer in [1,${MAX_PAGE_SIZE}]`]);
      }
      pageSize = Number(sizeText);
    }
    if (token !== null) {
      const hit = this.tokens.lookup(token);
      if (!hit.ok) {
        return errorBody(400, [
          hit.reason === "expired"
            ? "pageToken has expired (tokens are valid for 24 hours); restart the listing from the first page"
            : "pageToken is not valid; restart the listing from the first page",
        ]);
      }
      if (hit.position.chain !== chain) return errorBody(400, ["pageToken was issued for another chain"]);
      offset = hit.position.offset;
      if (sizeText === null) pageSize = hit.position.pageSize;
    }

    const {points, lastRun} = this.modules.avgTps.series(chain);
    const results = points.slice(offset, offset + pageSize);
    const body: Record<string, unknown> = {results, status: 200, lastRun};
    if (offset + pageSize < points.length)
      body.nextPageToken = this.tokens.issue({chain, offset: offset + pageSize, pageSize});
    return {status: 200, contentType: "application/json", body: JSON.stringify(body)};
  }
}
