/**
 * Per-client request limits (contract data-api §2): a token bucket per client IP, or per API key, refilled at
 * `limit` a minute with a burst of `limit`. Answers carry the IETF draft's `RateLimit-Policy` and `RateLimit`
 * headers; a refusal is 429 with `Retry-After`. Idle buckets are dropped, so memory stays bounded.
 */

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateDecision {
  ok: boolean;
  headers: Record<string, string>;
}

const WINDOW_MS = 60_000;
const MAX_BUCKETS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes one request from `client`'s bucket of `limit` a minute (0: no limit). */
  take(client: string, limit: number, policy: string): RateDecision {
    if (limit <= 0) return {ok: true, headers: {}};
    const now = this.now();
    let b = this.buckets.get(client);
    if (b === undefined) {
      if (this.buckets.size >= MAX_BUCKETS) this.sweep(now);
      b = {tokens: limit, at: now};
      this.buckets.set(client, b);
    } else {
      b.tokens = Math.min(limit, b.tokens + ((now - b.at) * limit) / WINDOW_MS);
      b.at = now;
    }
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    const remaining = Math.floor(b.tokens);
    // Seconds until one token is back (refused) or the bucket is full again (accepted).
    const untilOne = Math.ceil(((1 - b.tokens) * WINDOW_MS) / limit / 1000);
    const untilFull = Math.ceil(((limit - b.tokens) * WINDOW_MS) / limit / 1000);
    const headers: Record<string, string> = {
      "ratelimit-policy": `"${policy}";q=${limit};w=60`,
      ratelimit: `"${policy}";r=${remaining};t=${ok ? untilFull : Math.max(1, untilOne)}`,
    };
    if (!ok) headers["retry-after"] = String(Math.max(1, untilOne));
    return {ok, headers};
  }

  /** Drops buckets that have refilled completely (they hold nothing a new bucket would not). */
  private sweep(now: number): void {
    for (const [k, b] of this.buckets) if (now - b.at >= WINDOW_MS) this.buckets.delete(k);
  }
}
