/**
 * The rolling windows of /v2/chains/{chainId}/rollingWindowMetrics/{metric}, read from the hourly rollups (schema
 * 18). A window is hour-aligned: "last day" is the current hour of block time and the 23 before it, "last hour" the
 * current hour; all time is every hour. Rates (avgTps, avgGps) divide by the seconds from the window's first hour
 * to now. Distinct counts are of the addresses whose last active hour is in the window (metrics_addr).
 */
import type {SqlClientLike} from "./primary/common.js";
import {bucketStart} from "../../util/timeBuckets.js";

export const ROLLING_METRICS = [
  "gasUsed",
  "txCount",
  "avgGps",
  "maxGps",
  "avgTps",
  "maxTps",
  "avgGasPrice",
  "maxGasPrice",
  "feesPaid",
  "contracts",
  "deployers",
  "activeAddresses",
  "activeSenders",
] as const;
export type RollingMetric = (typeof ROLLING_METRICS)[number];

const HOUR = 3_600;
const WINDOWS = {
  lastHour: 1,
  lastDay: 24,
  lastWeek: 24 * 7,
  lastMonth: 24 * 30,
  last90Days: 24 * 90,
  lastYear: 24 * 365,
} as const;
const DISTINCT: Partial<Record<RollingMetric, number>> = {activeAddresses: 0, activeSenders: 1, deployers: 2};

export type RollingWindows = Partial<Record<keyof typeof WINDOWS | "allTime", number>>;

export async function rollingWindows(
  sql: SqlClientLike,
  chainId: string,
  metric: RollingMetric,
  now: number,
): Promise<RollingWindows> {
  const current = bucketStart("hour", now);
  const starts = Object.entries(WINDOWS).map(([name, hours]) => [name, current - (hours - 1) * HOUR] as const);
  const out: RollingWindows = {};
  const kind = DISTINCT[metric];
  if (kind !== undefined) {
    // An address was active in a window when its last active hour is in it (metrics_addr): one scan of the chain's
    // addresses, with no index the fold would have to keep.
    const col = ["a_hour", "s_hour", "d_hour"][kind]!;
    const [r] = await sql.query<Record<string, bigint>>(
      `SELECT ${starts.map(([name, start]) => `count(*) FILTER (WHERE ${col} >= ${start}) AS "${name}"`).join(", ")}, count(${col}) AS "allTime"
       FROM metrics_addr WHERE chain_id = $1`,
      [chainId],
    );
    for (const [k, v] of Object.entries(r ?? {})) out[k as keyof RollingWindows] = Number(v);
    return out;
  }
  const rows = await sql.query<{
    hour: bigint;
    txs: bigint;
    gas_used: string;
    fees: string;
    gas_price_sum: string;
    max_gas_price: string;
    max_tps: bigint;
    max_gps: string;
    contracts: bigint;
  }>(
    "SELECT hour, txs, gas_used::text, fees::text, gas_price_sum::text, max_gas_price::text, max_tps, max_gps::text, contracts FROM metrics_hours WHERE chain_id = $1",
    [chainId],
  );
  const first = rows.reduce((m, r) => Math.min(m, Number(r.hour)), current);
  for (const [name, start] of [...starts, ["allTime", first] as const]) {
    let txs = 0n,
      gas = 0n,
      fees = 0n,
      gps = 0n,
      mgp = 0n,
      mtps = 0n,
      mgps = 0n,
      contracts = 0n;
    for (const r of rows) {
      if (Number(r.hour) < start) continue;
      txs += BigInt(r.txs);
      gas += BigInt(r.gas_used);
      fees += BigInt(r.fees);
      gps += BigInt(r.gas_price_sum);
      contracts += BigInt(r.contracts);
      if (BigInt(r.max_gas_price) > mgp) mgp = BigInt(r.max_gas_price);
      if (BigInt(r.max_tps) > mtps) mtps = BigInt(r.max_tps);
      if (BigInt(r.max_gps) > mgps) mgps = BigInt(r.max_gps);
    }
    const seconds = Math.max(1, now - start);
    const value: Record<Exclude<RollingMetric, "deployers" | "activeAddresses" | "activeSenders">, number> = {
      gasUsed: Number(gas),
      txCount: Number(txs),
      avgGps: Number(gas) / seconds,
      maxGps: Number(mgps),
      avgTps: Number(txs) / seconds,
      maxTps: Number(mtps),
      avgGasPrice: txs === 0n ? 0 : Number(gps) / Number(txs),
      maxGasPrice: Number(mgp),
      feesPaid: Number(fees),
      contracts: Number(contracts),
    };
    out[name as keyof RollingWindows] = value[metric as keyof typeof value];
  }
  return out;
}
