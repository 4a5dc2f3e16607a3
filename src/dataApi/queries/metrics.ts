/**
 * The chain metrics of the metrics service's /v2 (src/metricsService/v2.ts), read from the rollups the EVM fold keeps
 * (schema 18; src/dataApi/views/evm/metricsFold.ts). A page of a series is a range of buckets: its hours' rows are
 * summed (or maximised) per bucket, its distinct counts read by bucket, and a cumulative series adds what came
 * before the range. Every bucket of the range has a point (0 where no block fell).
 */
import type {SqlClientLike} from "./primary/common.js";
import {GRAIN_CODE, bucketSeconds, bucketStart, nextBucket, type Grain} from "../../util/timeBuckets.js";

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

/** metrics_seen / metrics_first kinds (metricsFold.ts KIND). */
const DISTINCT_KIND: Partial<Record<ChainMetric, number>> = {activeAddresses: 0, activeSenders: 1, deployers: 2};
const FIRST_KIND: Partial<Record<ChainMetric, number>> = {cumulativeAddresses: 0, cumulativeDeployers: 2};
const FIRST_GRAIN = 4;

export interface MetricPoint {
  timestamp: number;
  value: number;
}

interface HourRow {
  hour: bigint;
  txs: bigint;
  gas_used: string;
  fees: string;
  gas_price_sum: string;
  max_gas_price: string;
  max_tps: bigint;
  max_gps: string;
  contracts: bigint;
}

/** The first and last hour the chain has rollups for, or null before any block. */
export async function metricsSpan(sql: SqlClientLike, chainId: string): Promise<{first: number; last: number} | null> {
  const [r] = await sql.query<{first: bigint | null; last: bigint | null}>("SELECT min(hour) AS first, max(hour) AS last FROM metrics_hours WHERE chain_id = $1", [chainId]);
  return r?.first == null || r.last == null ? null : {first: Number(r.first), last: Number(r.last)};
}

/**
 * The points of `metric` by `grain` for the buckets starting in [from, to] (bucket starts), newest first, at
 * most `limit` of them starting from the newest.
 */
export async function metricPoints(sql: SqlClientLike, chainId: string, metric: ChainMetric, grain: Grain, from: number, to: number, limit: number): Promise<MetricPoint[]> {
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

  const distinct = DISTINCT_KIND[metric];
  const firstKind = FIRST_KIND[metric];
  if (distinct !== undefined) {
    const rows = await sql.query<{bucket: bigint; n: bigint}>(
      "SELECT bucket, n FROM metrics_distinct WHERE chain_id = $1 AND kind = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5",
      [chainId, distinct, GRAIN_CODE[grain], lo, hi],
    );
    for (const r of rows) values[index.get(Number(r.bucket))!] = Number(r.n);
  } else if (firstKind !== undefined) {
    const [base] = await sql.query<{n: string | null}>(
      "SELECT sum(n)::text AS n FROM metrics_distinct WHERE chain_id = $1 AND kind = $2 AND grain = $3 AND bucket < $4",
      [chainId, firstKind, FIRST_GRAIN, lo],
    );
    const rows = await sql.query<{bucket: bigint; n: bigint}>(
      "SELECT bucket, n FROM metrics_distinct WHERE chain_id = $1 AND kind = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5",
      [chainId, firstKind, FIRST_GRAIN, lo, hi],
    );
    for (const r of rows) values[index.get(bucketStart(grain, Number(r.bucket)))!]! += Number(r.n);
    let total = Number(base?.n ?? 0);
    for (let i = 0; i < values.length; i++) values[i] = total += values[i]!;
  } else {
    const rows = await sql.query<HourRow>(
      "SELECT hour, txs, gas_used::text, fees::text, gas_price_sum::text, max_gas_price::text, max_tps, max_gps::text, contracts FROM metrics_hours WHERE chain_id = $1 AND hour >= $2 AND hour < $3",
      [chainId, lo, hi],
    );
    const acc = starts.map(() => ({txs: 0n, gas: 0n, fees: 0n, gps: 0n, mgp: 0n, mtps: 0n, mgps: 0n, contracts: 0n}));
    for (const r of rows) {
      const a = acc[index.get(bucketStart(grain, Number(r.hour)))!]!;
      a.txs += BigInt(r.txs);
      a.gas += BigInt(r.gas_used);
      a.fees += BigInt(r.fees);
      a.gps += BigInt(r.gas_price_sum);
      a.contracts += BigInt(r.contracts);
      if (BigInt(r.max_gas_price) > a.mgp) a.mgp = BigInt(r.max_gas_price);
      if (BigInt(r.max_tps) > a.mtps) a.mtps = BigInt(r.max_tps);
      if (BigInt(r.max_gps) > a.mgps) a.mgps = BigInt(r.max_gps);
    }
    let before = 0n;
    if (metric === "cumulativeTxCount" || metric === "cumulativeContracts") {
      const col = metric === "cumulativeTxCount" ? "txs" : "contracts";
      const [b] = await sql.query<{n: string | null}>(`SELECT sum(${col})::text AS n FROM metrics_hours WHERE chain_id = $1 AND hour < $2`, [chainId, lo]);
      before = BigInt(b?.n ?? 0);
    }
    for (let i = 0; i < acc.length; i++) {
      const a = acc[i]!;
      const seconds = bucketSeconds(grain, starts[i]!);
      switch (metric) {
        case "txCount": values[i] = Number(a.txs); break;
        case "gasUsed": values[i] = Number(a.gas); break;
        case "feesPaid": values[i] = Number(a.fees); break;
        case "contracts": values[i] = Number(a.contracts); break;
        case "avgTps": values[i] = Number(a.txs) / seconds; break;
        case "avgGps": values[i] = Number(a.gas) / seconds; break;
        case "maxTps": values[i] = Number(a.mtps); break;
        case "maxGps": values[i] = Number(a.mgps); break;
        case "avgGasPrice": values[i] = a.txs === 0n ? 0 : Number(a.gps) / Number(a.txs); break;
        case "maxGasPrice": values[i] = Number(a.mgp); break;
        case "cumulativeTxCount": values[i] = Number((before += a.txs)); break;
        case "cumulativeContracts": values[i] = Number((before += a.contracts)); break;
        default: throw new Error(`metric ${metric} has no reading`);
      }
    }
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
  const rows = await sql.query<{chain_id: string; blockchain_id: string | null; name: string | null; subnet_id: string | null}>(
    `SELECT c.chain_id, c.blockchain_id, b.name, b.subnet_id FROM evm_chains c LEFT JOIN blockchains b ON b.blockchain_id = c.blockchain_id
     ORDER BY length(c.chain_id), c.chain_id`,
  );
  return rows.map((r) => ({chainId: r.chain_id, blockchainId: r.blockchain_id, name: r.name, subnetId: r.subnet_id}));
}
