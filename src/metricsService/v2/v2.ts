/**
 * The metrics service's /v2: the hosted Metrics API's chain metrics (chainkit's metrics.*), computed from the data
 * API's store: the rollups the EVM fold keeps (src/dataApi/queries/metrics.ts), the ICM records and the P-chain's
 * stakers. Errors, the rate limit and page tokens are /v1's (service.ts); the root composes it (v2Resolver), as
 * src/index depends on the service's folder and the data API's store on src/index. Paths:
 *
 *   /v2/chains, /v2/chains/{chainId}, /v2/chains/{chainId}/metrics/{metric},
 *   /v2/chains/{chainId}/rollingWindowMetrics/{metric}, /v2/icm/summary, /v2/icm/timeseries,
 *   /v2/networks/{network}/metrics/{metric}, /v2/health-check, /v2/live-check
 */
import type {PlainResponse, Route, RouteResolver, Target} from "../../api/routes.js";
import type {NetworkInfo} from "../../chains/index.js";
import type {SqlClientLike} from "../../dataApi/queries/primary/common.js";
import {
  CHAIN_METRICS,
  dayOnly,
  metricPoints,
  metricsChains,
  metricsSpan,
  type ChainMetric,
  type MetricsChainRow,
} from "../../dataApi/queries/metrics.js";
import {ROLLING_METRICS, rollingWindows, type RollingMetric} from "../../dataApi/queries/metricsWindows.js";
import {icmSummary, icmTimeseries, type IcmGroupBy} from "../../dataApi/queries/icmMetrics.js";
import {ping} from "../../dataApi/queries/live.js";
import {
  NETWORK_METRICS,
  StakingSubnetError,
  stakingPoints,
  type NetworkMetric,
} from "../../dataApi/queries/stakingMetrics.js";
import {bucketStart, type Grain} from "../../util/timeBuckets.js";
import {EMPTY_ID} from "../../util/cb58.js";
import type {PositionTokens} from "../positionTokens.js";
import {errorBody, type MetricsService} from "../service.js";
import {DEFAULT_V2_PAGE_SIZE, ParamError, checkKnown, grainParam, pageSizeParam, rangeParams} from "./params.js";

export const V2_PREFIX = "/v2/";

export interface V2Modules {
  network: NetworkInfo;
  /** The data API's store, once it is open; null without the data API (every /v2 metric is then a 503). */
  store: () => SqlClientLike | null;
  tokens: PositionTokens;
  now?: () => number;
}

/** The route templates (the HTTP metrics' labels), by the path's shape. */
export const V2_TEMPLATES = [
  "/v2/chains",
  "/v2/chains/:chainId",
  "/v2/chains/:chainId/metrics/:metric",
  "/v2/chains/:chainId/rollingWindowMetrics/:metric",
  "/v2/icm/summary",
  "/v2/icm/timeseries",
  "/v2/networks/:network/metrics/:metric",
  "/v2/health-check",
  "/v2/live-check",
] as const;
export type V2Template = (typeof V2_TEMPLATES)[number];

/** The template a path matches (segments as sent, not decoded), or null. */
export function matchV2(path: string): V2Template | null {
  if (!path.startsWith(V2_PREFIX)) return null;
  const s = path.slice(V2_PREFIX.length).split("/");
  if (s.some((x) => x === "")) return null;
  if (s[0] === "chains") {
    if (s.length === 1) return "/v2/chains";
    if (s.length === 2) return "/v2/chains/:chainId";
    if (s.length === 4 && s[2] === "metrics") return "/v2/chains/:chainId/metrics/:metric";
    if (s.length === 4 && s[2] === "rollingWindowMetrics") return "/v2/chains/:chainId/rollingWindowMetrics/:metric";
    return null;
  }
  if (s[0] === "icm" && s.length === 2 && (s[1] === "summary" || s[1] === "timeseries"))
    return s[1] === "summary" ? "/v2/icm/summary" : "/v2/icm/timeseries";
  if (s[0] === "networks" && s.length === 4 && s[2] === "metrics") return "/v2/networks/:network/metrics/:metric";
  if (s.length === 1 && s[0] === "health-check") return "/v2/health-check";
  if (s.length === 1 && s[0] === "live-check") return "/v2/live-check";
  return null;
}

const json = (body: unknown): PlainResponse => ({
  status: 200,
  contentType: "application/json",
  body: JSON.stringify(body),
});

/** How long the followed chains' IDs are trusted before they are read again (a chain is added rarely). */
const CHAINS_TTL_MS = 5_000;

export class MetricsV2 {
  private chainIds: {at: number; ids: Set<string>} | null = null;

  constructor(private readonly modules: V2Modules) {}

  /** Whether the store folds this EVM chain: from a short-lived copy of the IDs, read again on a miss. */
  private async known(sql: SqlClientLike, chainId: string): Promise<boolean> {
    if (!/^\d{1,20}$/.test(chainId)) return false;
    const now = Date.now();
    const fresh = this.chainIds !== null && now - this.chainIds.at < CHAINS_TTL_MS;
    if (fresh && this.chainIds!.ids.has(chainId)) return true;
    if (!fresh || now - this.chainIds!.at > 1_000) {
      this.chainIds = {at: now, ids: new Set((await metricsChains(sql)).map((c) => c.chainId))};
      return this.chainIds.ids.has(chainId);
    }
    return false;
  }

  private now(): number {
    return Math.floor((this.modules.now ?? Date.now)() / 1000);
  }

  async handle(template: V2Template, target: Target): Promise<PlainResponse> {
    let segments: string[];
    try {
      segments = target.path.slice(V2_PREFIX.length).split("/").map(decodeURIComponent);
    } catch {
      return errorBody(400, ["the path is not valid percent-encoding"]);
    }
    if (template === "/v2/live-check")
      return json({status: "ok", info: {server: {status: "up"}}, error: {}, details: {server: {status: "up"}}});
    const sql = this.modules.store();
    if (template === "/v2/health-check") return this.health(sql);
    if (sql === null)
      return errorBody(503, [
        "the /v2 metrics are computed from the data API's store: start avaext with --data-api-enabled",
      ]);
    try {
      switch (template) {
        case "/v2/chains": {
          checkKnown(target.query, ["network", "pageToken"]);
          // One page holds every chain: a token is never issued, so none is valid.
          if (target.query.get("pageToken") !== null)
            throw new ParamError("pageToken is not valid: the chain list has one page");
          const network = target.query.get("network");
          if (network !== null && !["mainnet", "fuji", "testnet"].includes(network))
            throw new ParamError("network must be one of mainnet, fuji, testnet");
          if (network !== null && (network === "mainnet") !== (this.modules.network.name === "mainnet"))
            return json({chains: []});
          return json({chains: (await metricsChains(sql)).map((c) => this.chainModel(c))});
        }
        case "/v2/chains/:chainId": {
          checkKnown(target.query, []);
          const chain = await this.chain(sql, segments[1]!);
          return chain ? json(this.chainModel(chain)) : this.unknownChain(segments[1]!);
        }
        case "/v2/chains/:chainId/metrics/:metric":
          return await this.series(sql, segments[1]!, segments[3]!, target.query);
        case "/v2/chains/:chainId/rollingWindowMetrics/:metric":
          return await this.rolling(sql, segments[1]!, segments[3]!, target.query);
        case "/v2/icm/summary":
        case "/v2/icm/timeseries":
          return await this.icm(sql, template, target.query);
        case "/v2/networks/:network/metrics/:metric":
          return await this.staking(sql, segments[1]!, segments[3]!, target.query);
      }
    } catch (err) {
      if (err instanceof ParamError || err instanceof StakingSubnetError) return errorBody(400, [err.message]);
      throw err;
    }
  }

  private unknownChain(text: string): PlainResponse {
    return errorBody(404, [
      `chain ${text} not found: /v2/chains lists the EVM chains this node follows (aggregates such as total, mainnet, testnet are not served)`,
    ]);
  }

  private async chain(sql: SqlClientLike, text: string): Promise<MetricsChainRow | null> {
    if (!/^\d{1,20}$/.test(text)) return null;
    return (await metricsChains(sql)).find((c) => c.chainId === text) ?? null;
  }

  private chainModel(c: MetricsChainRow): Record<string, unknown> {
    const isC = c.blockchainId !== null && c.blockchainId === this.modules.network.chainIds.C;
    return {
      evmChainId: Number(c.chainId),
      chainName: c.name ?? (isC ? "C-Chain" : `EVM ${c.chainId}`),
      blockchainId: c.blockchainId ?? "",
      subnetId: c.subnetId ?? (isC ? EMPTY_ID : ""),
      network: this.modules.network.name === "mainnet" ? "mainnet" : "testnet",
    };
  }

  private async series(
    sql: SqlClientLike,
    chainText: string,
    metricText: string,
    query: URLSearchParams,
  ): Promise<PlainResponse> {
    checkKnown(query, ["startTimestamp", "endTimestamp", "timeInterval", "pageToken", "pageSize"]);
    if (!(await this.known(sql, chainText))) return this.unknownChain(chainText);
    if (!(CHAIN_METRICS as readonly string[]).includes(metricText))
      throw new ParamError(`metric must be one of ${CHAIN_METRICS.join(", ")}`);
    const metric = metricText as ChainMetric;
    const grain = grainParam(query, "day");
    if (dayOnly(metric) && grain !== "day")
      throw new ParamError(`${metric} is served by day only (metrics named cumulative*, max* and avg* are)`);
    const {start, end} = rangeParams(query);
    const key = `${chainText}|${metric}|${grain}|${start ?? ""}|${end ?? ""}`;
    const page = this.page(query, key, pageSizeParam(query));
    // Without a range, from the chain's first hour to now (the rollups' span is read only then).
    let first = start;
    if (first === undefined) {
      const span = await metricsSpan(sql, chainText);
      if (span === null) return json({results: []});
      first = span.first;
    }
    const from = bucketStart(grain, first);
    const to = Math.min(page.cursor ?? end ?? this.now(), end ?? Infinity);
    if (to < from) return json({results: []});
    const results = await metricPoints(sql, chainText, metric, grain, from, to, page.size);
    return json(this.withNext(results, grain, from, key, page.size));
  }

  /** The page's size and position: from the token, else the first page. */
  private page(
    query: URLSearchParams,
    key: string,
    size: number | undefined,
  ): {size: number; cursor: number | undefined} {
    const token = query.get("pageToken");
    if (token === null) return {size: size ?? DEFAULT_V2_PAGE_SIZE, cursor: undefined};
    const hit = this.modules.tokens.lookup(token);
    if (!hit.ok) {
      throw new ParamError(
        hit.reason === "expired"
          ? "pageToken has expired (tokens are valid for 24 hours); restart the listing from the first page"
          : "pageToken is not valid; restart the listing from the first page",
      );
    }
    if (hit.position.chain !== key)
      throw new ParamError("pageToken was issued for another listing (chain, metric, interval or range)");
    return {size: size ?? hit.position.pageSize, cursor: hit.position.offset};
  }

  /** The page and, when older buckets remain, a token for them (its position: the next page's newest bucket). */
  private withNext(
    results: Array<{timestamp: number}>,
    grain: Grain,
    from: number,
    key: string,
    size: number,
  ): Record<string, unknown> {
    const body: Record<string, unknown> = {results};
    const oldest = results[results.length - 1];
    if (results.length === size && oldest && oldest.timestamp > from) {
      body.nextPageToken = this.modules.tokens.issue({
        chain: key,
        offset: bucketStart(grain, oldest.timestamp - 1),
        pageSize: size,
      });
    }
    return body;
  }

  private async rolling(
    sql: SqlClientLike,
    chainText: string,
    metricText: string,
    query: URLSearchParams,
  ): Promise<PlainResponse> {
    checkKnown(query, []);
    if (!(await this.known(sql, chainText))) return this.unknownChain(chainText);
    if (!(ROLLING_METRICS as readonly string[]).includes(metricText))
      throw new ParamError(`metric must be one of ${ROLLING_METRICS.join(", ")}`);
    return json({result: await rollingWindows(sql, chainText, metricText as RollingMetric, this.now())});
  }

  private async icm(
    sql: SqlClientLike,
    template: "/v2/icm/summary" | "/v2/icm/timeseries",
    query: URLSearchParams,
  ): Promise<PlainResponse> {
    const common = ["srcBlockchainId", "destBlockchainId", "groupBy", "network"];
    checkKnown(
      query,
      template === "/v2/icm/summary"
        ? common
        : [...common, "startTimestamp", "endTimestamp", "timeInterval", "pageToken", "pageSize"],
    );
    const network = query.get("network");
    if (network !== null && !["mainnet", "fuji", "testnet"].includes(network))
      throw new ParamError("network must be one of mainnet, fuji, testnet");
    if (network !== null && (network === "mainnet") !== (this.modules.network.name === "mainnet"))
      throw new ParamError(`this node serves ${this.modules.network.name}, not ${network}`);
    const groupByText = query.get("groupBy");
    const groups = ["srcBlockchainId", "destBlockchainId", "srcBlockchainId,destBlockchainId"];
    if (groupByText !== null && !groups.includes(groupByText))
      throw new ParamError(`groupBy must be one of ${groups.join(", ")}`);
    const filter = {src: query.get("srcBlockchainId") ?? undefined, dest: query.get("destBlockchainId") ?? undefined};
    if (template === "/v2/icm/summary") return json({result: await icmSummary(sql, filter, this.now())});
    const grain = grainParam(query, "day");
    const {start, end} = rangeParams(query);
    const key = `icm|${filter.src ?? ""}|${filter.dest ?? ""}|${groupByText ?? ""}|${grain}|${start ?? ""}|${end ?? ""}`;
    const page = this.page(query, key, pageSizeParam(query));
    const all = await icmTimeseries(
      sql,
      filter,
      (groupByText ?? null) as IcmGroupBy | null,
      grain,
      start,
      page.cursor ?? end,
    );
    const results = all.slice(0, page.size);
    const body: Record<string, unknown> = {results};
    const next = all[page.size];
    // Keyset by bucket: a page ends at a whole bucket, so that the next starts at the one before.
    if (next) {
      let cut = page.size;
      while (cut > 0 && results[cut - 1]!.timestamp === next.timestamp) cut--;
      if (cut === 0)
        throw new ParamError(`one ${grain} holds more than ${page.size} series: ask for a larger pageSize`);
      body.results = results.slice(0, cut);
      body.nextPageToken = this.modules.tokens.issue({
        chain: key,
        offset: results[cut]!.timestamp,
        pageSize: page.size,
      });
    }
    return json(body);
  }

  private async staking(
    sql: SqlClientLike,
    networkText: string,
    metricText: string,
    query: URLSearchParams,
  ): Promise<PlainResponse> {
    checkKnown(query, ["startTimestamp", "endTimestamp", "pageToken", "pageSize", "subnetId"]);
    const ours = this.modules.network.name === "mainnet" ? ["mainnet"] : ["fuji", "testnet", this.modules.network.name];
    if (!["mainnet", "fuji", "testnet", this.modules.network.name].includes(networkText))
      return errorBody(404, [`network ${networkText} not found`]);
    if (!ours.includes(networkText))
      return errorBody(404, [`this node serves ${this.modules.network.name}, not ${networkText}`]);
    if (!(NETWORK_METRICS as readonly string[]).includes(metricText))
      throw new ParamError(`metric must be one of ${NETWORK_METRICS.join(", ")}`);
    const subnetId = query.get("subnetId") ?? EMPTY_ID;
    const {start, end} = rangeParams(query);
    const key = `staking|${metricText}|${subnetId}|${start ?? ""}|${end ?? ""}`;
    const page = this.page(query, key, pageSizeParam(query));
    const to = Math.min(page.cursor ?? end ?? this.now(), end ?? Infinity, this.now());
    const points = await stakingPoints(sql, metricText as NetworkMetric, subnetId, start, to, page.size);
    if (points === null) return json({results: []});
    return json(this.withNext(points.results, "day", points.from, key, page.size));
  }

  private async health(sql: SqlClientLike | null): Promise<PlainResponse> {
    if (sql === null)
      return json({
        status: "ok",
        info: {store: {status: "up", detail: "no data API store: only /v1 is served"}},
        error: {},
        details: {store: {status: "up"}},
      });
    try {
      await ping(sql);
      return json({status: "ok", info: {store: {status: "up"}}, error: {}, details: {store: {status: "up"}}});
    } catch (err) {
      const down = {store: {status: "down", message: err instanceof Error ? err.message : String(err)}};
      return {
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({status: "error", info: {}, error: down, details: down}),
      };
    }
  }
}

/**
 * What a request of each template takes of the client's rate limit: the ones whose work grows with the store, not
 * with the page (rolling windows' distinct counts scan a chain's addresses; staking series walk the stakers of
 * their range; the ICM series group the messages of theirs), take more than one.
 */
const V2_COST: Partial<Record<V2Template, number>> = {
  "/v2/chains/:chainId/rollingWindowMetrics/:metric": 10,
  "/v2/networks/:network/metrics/:metric": 10,
  "/v2/icm/timeseries": 5,
  "/v2/icm/summary": 5,
};

/** Routes /v2/...: a route a template (the HTTP metrics' labels), behind the service's rate limit. */
export function v2Resolver(service: MetricsService, v2: MetricsV2): RouteResolver {
  const routes = new Map(
    V2_TEMPLATES.map((template): [string, Route] => [
      template,
      {
        template,
        plain: (req, target) =>
          service.limit(service.clients.keyOf(req), V2_COST[template] ?? 1) ?? v2.handle(template, target),
      },
    ]),
  );
  return {
    resolve: (path) => {
      const t = matchV2(path);
      return t ? routes.get(t)! : null;
    },
    list: () => ["/v2/chains", "/v2/icm/summary", "/v2/icm/timeseries", "/v2/health-check", "/v2/live-check"],
  };
}
