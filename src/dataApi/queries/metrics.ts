/**
 * The chain metrics of the metrics service's /v2 (src/metricsService/v2.ts), read from the rollups the EVM fold keeps
 * (schema 18; src/dataApi/views/evm/metricsFold.ts). A page of a series is a range of buckets: its hours' rows are
 * summed (or maximised) per bucket, its distinct counts read by bucket, and a cumulative series adds what came
 * before the range. Every bucket of the range has a point (0 where no block fell).
 */
import type {SqlClientLike} from "./primary/common.js";
import {GRAIN_CODE, bucketSeconds, bucketStart, nextBucket, type Grain} from "../../util/timeBuckets.js";
import {bucketSql} from "../store/metricsRollups.js";

export const CHAIN_METRICS = [
  "activeAddresses",
  "activeSenders",
  "cumulativeTxCount",
  "cumulativeAddresses",
  "cumulativeContracts",
  "cumulativeDeployers",
  "contracts",
  "deployers",
  "gasUsed",
  "txCount",
  "avgGps",
  "maxGps",
  "avgTps",
  "maxTps",
  "avgGasPrice",
  "maxGasPrice",
  "feesPaid",
] as const;
export type ChainMetric = (typeof CHAIN_METRICS)[number];

/** The metrics.* rule: metrics named cumulative*, max* or avg* are served by day only. */
export function dayOnly(metric: ChainMetric): boolean {
  return /^(cumulative|max|avg)/.test(metric);
}

/** metrics_distinct kinds (metricsFold.ts KIND). */
const DISTINCT_KIND: Partial<Record<ChainMetric, number>> = {activeAddresses: 0, activeSenders: 1, deployers: 2};
const FIRST_KIND: Partial<Record<ChainMetric, number>> = {cumulativeAddresses: 0, cumulativeDeployers: 2};
const FIRST_GRAIN = 4;

export interface MetricPoint {
  timestamp: number;
  value: number;
}

/** The SQL of a summed or maximised metric over an hour's row (metrics_hours h), and how a bucket combines them. */
const HOURLY: Partial<Record<ChainMetric, string>> = {
  txCount: "sum(h.txs)",
  gasUsed: "sum(h.gas_used)",
  feesPaid: "sum(h.fees)",
  contracts: "sum(h.contracts)",
  avgTps: "sum(h.txs)",
  avgGps: "sum(h.gas_used)",
  maxTps: "max(h.max_tps)",
  maxGps: "max(h.max_gps)",
  maxGasPrice: "max(h.max_gas_price)",
  avgGasPrice: "CASE WHEN sum(h.txs) = 0 THEN 0 ELSE sum(h.gas_price_sum) / sum(h.txs) END",
  cumulativeTxCount: "sum(h.txs)",
  cumulativeContracts: "sum(h.contracts)",
};

/** The first and last hour the chain has rollups for, or null before any block. */
export async function metricsSpan(sql: SqlClientLike, chainId: string): Promise<{first: number; last: number} | null> {
  const [r] = await sql.query<{first: bigint | null; last: bigint | null}>(
    "SELECT min(hour) AS first, max(hour) AS last FROM metrics_hours WHERE chain_id = $1",
    [chainId],
  );
  return r?.first == null || r.last == null ? null : {first: Number(r.first), last: Number(r.last)};
}

/**
 * The points of `metric` by `grain` for the buckets starting in [from, to] (bucket starts), newest first, at
 * most `limit` of them starting from the newest. Buckets are summed in SQL (numeric, exact), each value turned
 * into a double once.
 */
export async function metricPoints(
  sql: SqlClientLike,
  chainId: string,
  metric: ChainMetric,
  grain: Grain,
  from: number,
  to: number,
  limit: number,
): Promise<MetricPoint[]> {
  // The page's buckets, oldest first.
  const starts: number[] = [];
  for (let b = bucketStart(grain, to); b >= from && starts.length < limit; ) {
    starts.push(b);
    // The bucket before b: the start of the bucket holding b - 1.
    b = bucketStart(grain, b - 1);
  }
  starts.reverse();
  if (starts.length === 0) return [];
  const lo = starts[0]!;
  const hi = nextBucket(grain, starts[starts.length - 1]!);
  const index = new Map(starts.map((s, i) => [s, i]));
  const values = new Array<number>(starts.length).fill(0);
  const code = GRAIN_CODE[grain];

  const distinct = DISTINCT_KIND[metric];
  const firstKind = FIRST_KIND[metric];
  let cumulative = false;
  let rows: Array<{bucket: bigint; v: number}>;
  if (distinct !== undefined) {
    rows = await sql.query(
      "SELECT bucket, n::float8 AS v FROM metrics_distinct WHERE chain_id = $1 AND kind = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5",
      [chainId, distinct, code, lo, hi],
    );
  } else if (firstKind !== undefined) {
    cumulative = true;
    rows = await sql.query(
      `SELECT NULL::int8 AS bucket, coalesce(sum(n), 0)::float8 AS v FROM metrics_distinct WHERE chain_id = $1 AND kind = $2 AND grain = ${FIRST_GRAIN} AND bucket < $3
       UNION ALL
       SELECT ${bucketSql(code, "bucket")}, sum(n)::float8 FROM metrics_distinct WHERE chain_id = $1 AND kind = $2 AND grain = ${FIRST_GRAIN} AND bucket >= $3 AND bucket < $4 GROUP BY 1`,
      [chainId, firstKind, lo, hi],
    );
  } else {
    const expr = HOURLY[metric];
    if (expr === undefined) throw new Error(`metric ${metric} has no reading`);
    cumulative = metric.startsWith("cumulative");
    // By hour a bucket is one row: its column as it is, without grouping.
    const single = grain === "hour" && /^(sum|max)\(h\.\w+\)$/.test(expr) ? expr.slice(4, -1) : null;
    const page = single
      ? `SELECT h.hour AS bucket, ${single}::float8 AS v FROM metrics_hours h WHERE h.chain_id = $1 AND h.hour >= $2 AND h.hour < $3`
      : `SELECT ${bucketSql(code, "h.hour")} AS bucket, (${expr})::float8 AS v FROM metrics_hours h WHERE h.chain_id = $1 AND h.hour >= $2 AND h.hour < $3 GROUP BY 1`;
    rows = await sql.query(
      `${cumulative ? `SELECT NULL::int8 AS bucket, coalesce(${expr}, 0)::float8 AS v FROM metrics_hours h WHERE h.chain_id = $1 AND h.hour < $2 UNION ALL ` : ""}${page}`,
      [chainId, lo, hi],
    );
  }
  let before = 0;
  for (const r of rows) {
    if (r.bucket === null) before = r.v;
    else values[index.get(Number(r.bucket))!] = r.v;
  }
  if (cumulative) {
    // Exact while the counts stay below 2^53 (they are counts of transactions, addresses, contracts).
    for (let i = 0; i < values.length; i++) values[i] = before += values[i]!;
  } else if (metric === "avgTps" || metric === "avgGps") {
    for (let i = 0; i < values.length; i++) values[i] = values[i]! / bucketSeconds(grain, starts[i]!);
  }
  const out: MetricPoint[] = [];
  for (let i = starts.length - 1; i >= 0; i--) out.push({timestamp: starts[i]!, value: values[i]!});
  return out;
}

/** A followed EVM chain as the metrics list it: evm_chains and the P-chain's name and subnet of its blockchain. */
export interface MetricsChainRow {
  chainId: string;
  blockchainId: string | null;
  name: string | null;
  subnetId: string | null;
}

/** The followed EVM chains (every one has metrics: the fold keeps them for all), by EVM chain ID. */
export async function metricsChains(sql: SqlClientLike): Promise<MetricsChainRow[]> {
  const rows = await sql.query<{
    chain_id: string;
    blockchain_id: string | null;
    name: string | null;
    subnet_id: string | null;
  }>(
    `SELECT c.chain_id, c.blockchain_id, b.name, b.subnet_id FROM evm_chains c LEFT JOIN blockchains b ON b.blockchain_id = c.blockchain_id
     ORDER BY length(c.chain_id), c.chain_id`,
  );
  return rows.map((r) => ({chainId: r.chain_id, blockchainId: r.blockchain_id, name: r.name, subnetId: r.subnet_id}));
}
