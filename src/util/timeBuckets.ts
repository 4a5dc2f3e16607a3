/**
 * The time buckets of the metrics series (UTC): hour, day, ISO week (from Monday 00:00) and calendar month.
 * Both the fold that keeps the rollups (src/dataApi/views/evm/metricsFold.ts) and the queries that read them use
 * these, so a bucket means one thing on both sides.
 */

export const GRAINS = ["hour", "day", "week", "month"] as const;
export type Grain = (typeof GRAINS)[number];
/** The grain's number in the store (metrics_distinct.grain). */
export const GRAIN_CODE: Record<Grain, number> = {hour: 0, day: 1, week: 2, month: 3};

const HOUR = 3_600;
const DAY = 86_400;

/** The start (Unix seconds) of the bucket of `grain` that holds Unix second `t`. */
export function bucketStart(grain: Grain, t: number): number {
  switch (grain) {
    case "hour":
      return Math.floor(t / HOUR) * HOUR;
    case "day":
      return Math.floor(t / DAY) * DAY;
    case "week": {
      // Day 0 (1970-01-01) is a Thursday: a Monday is a day d with (d + 3) % 7 === 0.
      const d = Math.floor(t / DAY);
      return (d - ((((d + 3) % 7) + 7) % 7)) * DAY;
    }
    case "month": {
      const date = new Date(t * 1000);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 1000;
    }
  }
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucket(grain: Grain, start: number): number {
  switch (grain) {
    case "hour":
      return start + HOUR;
    case "day":
      return start + DAY;
    case "week":
      return start + 7 * DAY;
    case "month": {
      const date = new Date(start * 1000);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 1000;
    }
  }
}

/** The bucket's length in seconds (a month's is its own number of days). */
export function bucketSeconds(grain: Grain, start: number): number {
  return nextBucket(grain, start) - start;
}
