/** Time helpers: nanosecond wall-clock readings and Go's RFC3339Nano format (UTC, trailing zeros trimmed). */

const baseWallNs = BigInt(Date.now()) * 1_000_000n;
const baseHr = process.hrtime.bigint();

/** Wall-clock time in ns since the epoch, with sub-millisecond resolution from the monotonic clock. */
export function nowNs(): bigint {
  return baseWallNs + (process.hrtime.bigint() - baseHr);
}

/**
 * The last second formatted: containers read together (a getContainerRange page) were mostly accepted within the
 * same second, and Date#toISOString was a fifth of formatting a container.
 */
let lastSecond = NaN;
let lastBase = "";

/** Formats ns since the epoch as RFC 3339 in UTC with up to nine fraction digits, trailing zeros trimmed. */
export function formatRfc3339Nano(ns: bigint): string {
  const frac = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  const second = Number((ns - frac) / 1_000_000_000n);
  if (second !== lastSecond) {
    lastBase = new Date(second * 1000).toISOString().slice(0, 19);
    lastSecond = second;
  }
  const base = lastBase;
  if (frac === 0n) return `${base}Z`;
  return `${base}.${frac.toString().padStart(9, "0").replace(/0+$/, "")}Z`;
}

/** The latest time stored: Go's UnixNano range ends at 2^63 - 1 ns (2262-04-11); the index uses the top bit. */
export const MAX_TIMESTAMP_NS = (1n << 63n) - 1n;

/** Go's zero time, used for "not yet run" health results. */
export const ZERO_TIME = "0001-01-01T00:00:00Z";

/** Parses RFC 3339 (with up to nine fraction digits and any offset) to ns since the epoch; null if invalid. */
export function parseRfc3339Nano(s: string): bigint | null {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i.exec(s);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}${m[3]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return null;
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? "").padEnd(9, "0") || "0");
}
