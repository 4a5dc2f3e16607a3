/**
 * Per-client request limits, shared by the data API (`/v1`, docs/api/data-api.md) and the metrics service
 * (`/v1/avg_tps`): a token bucket per client (clientAddress.ts keys it: an IPv4 address, an IPv6 /64, an API key),
 * refilled at `limit` a minute with a burst of `limit`.
 *
 * The table is bounded: it holds the last `maxClients` clients first seen, and a new one past that evicts the
 * oldest in O(1) (util/fifoMap.ts), so neither memory nor the cost of a check grows with the number of clients.
 * An evicted client starts again with a full bucket: it had gone `maxClients` new clients ago, which within one
 * bucket's minute takes that many distinct addresses (IPv6 ones counted by /64). Figures: bench/rateLimit.mjs.
 */
import {FifoMap} from "../util/fifoMap.js";

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateDecision {
  ok: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until one token is back (at least 1); what a 429's Retry-After says. */
  retryAfterS: number;
  /** Seconds until the bucket is full again. */
  fullInS: number;
}

const WINDOW_MS = 60_000;
/** Clients kept: 100,000 buckets are about 13 MB (bench/rateLimit.mjs). */
export const DEFAULT_MAX_CLIENTS = 100_000;

export class RateLimiter {
  private readonly buckets: FifoMap<string, Bucket>;

  constructor(
    opts: {maxClients?: number} = {},
    private readonly now: () => number = Date.now,
  ) {
    this.buckets = new FifoMap(opts.maxClients ?? DEFAULT_MAX_CLIENTS);
  }

  /** Clients held (at most maxClients). */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Takes `cost` requests (1 by default; at most `limit`, so one request always fits a full bucket) from `client`'s
   * bucket of `limit` a minute; `limit` 0 is no limit (always ok).
   */
  take(client: string, limit: number, cost = 1): RateDecision {
    if (limit <= 0) return {ok: true, remaining: 0, retryAfterS: 0, fullInS: 0};
    const now = this.now();
    let b = this.buckets.get(client);
    if (b === undefined) {
      b = {tokens: limit, at: now};
      this.buckets.set(client, b);
    } else {
      b.tokens = Math.min(limit, b.tokens + ((now - b.at) * limit) / WINDOW_MS);
      b.at = now;
    }
    const take = Math.min(Math.max(1, cost), limit);
    const ok = b.tokens >= take;
    if (ok) b.tokens -= take;
    return {
      ok,
      remaining: Math.floor(b.tokens),
      retryAfterS: Math.max(1, Math.ceil(((take - b.tokens) * WINDOW_MS) / limit / 1000)),
      fullInS: Math.ceil(((limit - b.tokens) * WINDOW_MS) / limit / 1000),
    };
  }
}
