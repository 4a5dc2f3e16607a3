/**
 * The staking series of /v2/networks/{network}/metrics/{metric}, from the P-chain view's stakers: a point a UTC day,
 * the validators (or delegators) of the primary network staking at the day's last second (now, for today), and
 * their weight (nAVAX). A staker stakes from its start time to its end time (AvalancheGo removes primary-network
 * stakers only then), whatever its reward's fate.
 */
import type {SqlClientLike} from "./primary/common.js";
import {EMPTY_ID} from "../../util/cb58.js";
import {bucketStart} from "../../util/timeBuckets.js";

export const NETWORK_METRICS = ["delegatorCount", "delegatorWeight", "validatorCount", "validatorWeight"] as const;
export type NetworkMetric = (typeof NETWORK_METRICS)[number];

const DAY = 86_400;

export class StakingSubnetError extends Error {}

/**
 * The days starting in [bucketStart(start), to], newest first, at most `limit`; `from` is the range's first day
 * (the first staker's, without `start`). Null when the store has no stakers.
 */
export async function stakingPoints(
  sql: SqlClientLike,
  metric: NetworkMetric,
  subnetId: string,
  start: number | undefined,
  to: number,
  limit: number,
): Promise<{from: number; results: Array<{timestamp: number; value: number}>} | null> {
  if (subnetId !== EMPTY_ID)
    throw new StakingSubnetError(
      `subnetId: only the primary network (${EMPTY_ID}) has validators and delegators here; an L1's validators are not served`,
    );
  const kind = metric.startsWith("validator") ? "validator" : "delegator";
  const [first] = await sql.query<{ts: bigint | null}>(
    "SELECT min(start_ts) AS ts FROM stakers WHERE subnet_id = $1 AND kind = $2",
    [EMPTY_ID, kind],
  );
  if (first?.ts == null) return null;
  const from = bucketStart("day", start ?? Number(first.ts));
  const days: number[] = [];
  for (let d = bucketStart("day", to); d >= from && days.length < limit; d -= DAY) days.push(d);
  if (days.length === 0) return {from, results: []};
  const lo = days[days.length - 1]!;
  const rows = await sql.query<{start_ts: bigint; end_ts: bigint; weight: string}>(
    "SELECT start_ts, end_ts, weight::text FROM stakers WHERE subnet_id = $1 AND kind = $2 AND start_ts < $3 AND end_ts > $4",
    [EMPTY_ID, kind, days[0]! + DAY, lo],
  );
  const results = days.map((d) => {
    const at = Math.min(d + DAY - 1, to);
    let count = 0;
    let weight = 0n;
    for (const r of rows) {
      if (Number(r.start_ts) <= at && Number(r.end_ts) > at) {
        count++;
        weight += BigInt(r.weight);
      }
    }
    return {timestamp: d, value: metric.endsWith("Count") ? count : Number(weight)};
  });
  return {from, results};
}
