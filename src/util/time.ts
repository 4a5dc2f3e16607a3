/** Time helpers: nanosecond wall-clock readings and Go's RFC3339Nano format (UTC, trailing zeros trimmed). */

const baseWallNs = BigInt(Date.now()) * 1_000_000n;
const baseHr = process.hrtime.bigint();

/** Wall-clock time in ns since the epoch, with sub-millisecond resolution from the monotonic clock. */
export function nowNs(): bigint {
  return baseWallNs + (process.hrtime.bigint() - baseHr);
}

/** Formats ns since the epoch as RFC 3339 in UTC with up to nine fraction digits, trailing zeros trimmed. */
export function formatRfc3339Nano(ns: bigint): string {
  const ms = ns / 1_000_000n;
  const frac = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  if (frac === 0n) return `${base}Z`;
  return `${base}.${frac.toString().padStart(9, "0").replace(/0+$/, "")}Z`;
}

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
