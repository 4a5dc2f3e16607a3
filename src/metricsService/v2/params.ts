/**
 * The query parameters of the metrics service's /v2 (chainkit's metrics.* requests): parsed strictly, so a bad one
 * is a 400 naming it in the seed's error body rather than a guess.
 */
import {GRAINS, type Grain} from "../../util/timeBuckets.js";

export class ParamError extends Error {}

export const MAX_V2_PAGE_SIZE = 2_160;
export const DEFAULT_V2_PAGE_SIZE = 100;

const KNOWN = new Set([
  "startTimestamp",
  "endTimestamp",
  "timeInterval",
  "pageToken",
  "pageSize",
  "srcBlockchainId",
  "destBlockchainId",
  "groupBy",
  "network",
  "subnetId",
]);

/** Refuses a parameter no /v2 operation takes (a misspelt one would otherwise be ignored silently). */
export function checkKnown(query: URLSearchParams, allowed: readonly string[]): void {
  for (const k of query.keys()) {
    if (!KNOWN.has(k) || !allowed.includes(k))
      throw new ParamError(`${k} is not a parameter of this endpoint (it takes ${allowed.join(", ") || "none"})`);
  }
}

/** A Unix-seconds parameter, or undefined when absent. */
export function timestampParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  if (!/^\d{1,11}$/.test(v))
    throw new ParamError(`${name} must be a Unix timestamp in seconds (a non-negative integer)`);
  return Number(v);
}

export function grainParam(query: URLSearchParams, fallback: Grain): Grain {
  const v = query.get("timeInterval");
  if (v === null) return fallback;
  if (!(GRAINS as readonly string[]).includes(v))
    throw new ParamError(`timeInterval must be one of ${GRAINS.join(", ")}`);
  return v as Grain;
}

export function pageSizeParam(query: URLSearchParams): number | undefined {
  const v = query.get("pageSize");
  if (v === null) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > MAX_V2_PAGE_SIZE)
    throw new ParamError(`pageSize must be an integer in [1,${MAX_V2_PAGE_SIZE}]`);
  return Number(v);
}

/** startTimestamp and endTimestamp, checked against each other. */
export function rangeParams(query: URLSearchParams): {start: number | undefined; end: number | undefined} {
  const start = timestampParam(query, "startTimestamp");
  const end = timestampParam(query, "endTimestamp");
  if (start !== undefined && end !== undefined && start > end)
    throw new ParamError("startTimestamp must not be after endTimestamp");
  return {start, end};
}
