/**
 * The ICM metrics of /v2/icm/summary and /v2/icm/timeseries: interchain messages counted from icm_messages (one row
 * a message, however many of the followed chains saw it), at the source transaction's time (the delivery's when the
 * source chain is not followed). A summary is of hour-aligned rolling windows, as the chain metrics' (metricsWindows.ts).
 */
import {Params, type SqlClientLike} from "./sql.js";
import {bucketStart, type Grain} from "../../util/timeBuckets.js";

export type IcmGroupBy = "srcBlockchainId" | "destBlockchainId" | "srcBlockchainId,destBlockchainId";
export interface IcmFilterArgs {
  src?: string;
  dest?: string;
}

const HOUR = 3_600;
const WINDOWS = {
  lastHour: 1,
  lastDay: 24,
  lastWeek: 24 * 7,
  lastMonth: 24 * 30,
  last90Days: 24 * 90,
  lastYear: 24 * 365,
} as const;
/** The blockchain ID of a series that is not split by that end. */
const ALL = "all";

function where(filter: IcmFilterArgs, p: Params): string {
  const w: string[] = [];
  if (filter.src !== undefined) w.push(`source_blockchain_id = ${p.add(filter.src)}`);
  if (filter.dest !== undefined) w.push(`destination_blockchain_id = ${p.add(filter.dest)}`);
  return w.length ? `WHERE ${w.join(" AND ")}` : "";
}

export async function icmSummary(
  sql: SqlClientLike,
  filter: IcmFilterArgs,
  now: number,
): Promise<Record<string, number | string>> {
  const current = bucketStart("hour", now);
  const p = new Params();
  const cols = Object.entries(WINDOWS).map(
    ([name, hours]) => `count(*) FILTER (WHERE sort_ts >= ${current - (hours - 1) * HOUR})::int8 AS "${name}"`,
  );
  const [r] = await sql.query<Record<string, bigint>>(
    `SELECT ${cols.join(", ")}, count(*)::int8 AS "allTime" FROM icm_messages ${where(filter, p)}`,
    p.values,
  );
  const out: Record<string, number | string> = {};
  for (const [k, v] of Object.entries(r ?? {})) out[k] = Number(v);
  out.srcBlockchainId = filter.src ?? ALL;
  out.destBlockchainId = filter.dest ?? ALL;
  return out;
}

export interface IcmPoint {
  value: number;
  timestamp: number;
  srcBlockchainId: string;
  destBlockchainId: string;
}

/**
 * The message counts by bucket of `grain`, newest first, split by `groupBy` (within a bucket by the series'
 * blockchain IDs), for buckets starting in [bucketStart(start), end]; only buckets that have messages.
 */
export async function icmTimeseries(
  sql: SqlClientLike,
  filter: IcmFilterArgs,
  groupBy: IcmGroupBy | null,
  grain: Grain,
  start: number | undefined,
  end: number | undefined,
): Promise<IcmPoint[]> {
  const p = new Params();
  const w = where(filter, p);
  const range: string[] = [];
  if (start !== undefined) range.push(`sort_ts >= ${p.add(bucketStart(grain, start))}`);
  const rows = await sql.query<{hour: bigint; src: string; dest: string; n: bigint}>(
    `SELECT sort_ts - sort_ts % 3600 AS hour, source_blockchain_id AS src, destination_blockchain_id AS dest, count(*)::int8 AS n FROM icm_messages
     ${w}${range.length ? (w ? " AND " : "WHERE ") + range.join(" AND ") : ""} GROUP BY 1, 2, 3`,
    p.values,
  );
  const bySrc = groupBy === "srcBlockchainId" || groupBy === "srcBlockchainId,destBlockchainId";
  const byDest = groupBy === "destBlockchainId" || groupBy === "srcBlockchainId,destBlockchainId";
  const acc = new Map<string, IcmPoint>();
  for (const r of rows) {
    const b = bucketStart(grain, Number(r.hour));
    if (end !== undefined && b > end) continue;
    const src = bySrc ? r.src : (filter.src ?? ALL);
    const dest = byDest ? r.dest : (filter.dest ?? ALL);
    const k = `${b}|${src}|${dest}`;
    const p = acc.get(k);
    if (p) p.value += Number(r.n);
    else acc.set(k, {value: Number(r.n), timestamp: b, srcBlockchainId: src, destBlockchainId: dest});
  }
  return [...acc.values()].sort(
    (a, b) =>
      b.timestamp - a.timestamp ||
      a.srcBlockchainId.localeCompare(b.srcBlockchainId) ||
      a.destBlockchainId.localeCompare(b.destBlockchainId),
  );
}
