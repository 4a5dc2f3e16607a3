/**
 * The rolling windows of /v2/chains/{chainId}/rollingWindowMetrics/{metric}, read from the hourly rollups (schema
 * 18). A window is hour-aligned: "last day" is the current hour of block time and the 23 before it, "last hour" the
 * current hour; all time is every hour. Rates (avgTps, avgGps) divide by the seconds from the window's first hour
 * to now. Distinct counts are of the window's hourly first-seen rows (all time: metrics_first).
 */
import type {SqlClientLike} from "./primary/common.js";
import {bucketStart} from "../../util/timeBuckets.js";

export const ROLLING_METRICS = ["gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid", "contracts", "deployers", "activeAddresses", "activeSenders"] as const;
export type RollingMetric = (typeof ROLLING_METRICS)[number];

const HOUR = 3_600;
const WINDOWS = {lastHour: 1, lastDay: 24, lastWeek: 24 * 7, lastMonth: 24 * 30, last90Days: 24 * 90, lastYear: 24 * 365} as const;
const DISTINCT: Partial<Record<RollingMetric, number>> = {activeAddresses: 0, activeSenders: 1, deployers: 2};

export type RollingWindows = Partial<Record<keyof typeof WINDOWS | "allTime", number>>;

export async function rollingWindows(sql: SqlClientLike, chainId: string, metric: RollingMetric, now: number): Promise<RollingWindows> {
  const current = bucketStart("hour", now);
  const starts = Object.entries(WINDOWS).map(([name, hours]) => [name, current - (hours - 1) * HOUR] as const);
  const out: RollingWindows = {};
  const kind = DISTINCT[metric];
  if (kind !== undefined) {
    for (const [name, start] of starts) {
      const [r] = await sql.query<{n: bigint}>(
        "SELECT count(DISTINCT address) AS n FROM metrics_seen WHERE chain_id = $1 AND kind = $2 AND grain = 0 AND bucket >= $3",
        [chainId, kind, start],
      );
      out[name as keyof typeof WINDOWS] = Number(r?.n ?? 0);
    }
    const [all] = await sql.query<{n: bigint}>("SELECT count(*) AS n FROM metrics_first WHERE chain_id = $1 AND kind = $2", [chainId, kind]);
    out.allTime = Number(all?.n ?? 0);
    return out;
  }
  const rows = await sql.query<{hour: bigint; txs: bigint; gas_used: string; fees: string; gas_price_sum: string; max_gas_price: string; max_tps: bigint; max_gps: string; contracts: bigint}>(
    "SELECT hour, txs, gas_used::text, fees::text, gas_price_sum::text, max_gas_price::text, max_tps, max_gps::text, contracts FROM metrics_hours WHERE chain_id = $1",
    [chainId],
  );
  const first = rows.reduce((m, r) => Math.min(m, Number(r.hour)), current);
  for (const [name, start] of [...starts, ["allTime", first] as const]) {
    let txs = 0n, gas = 0n, fees = 0n, gps = 0n, mgp = 0n, mtps = 0n, mgps = 0n, contracts = 0n;
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
