/** Per-client token buckets: `limit` requests a minute with bursts up to `limit`, answered 429 above that. */

const MAX_CLIENTS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, {tokens: number; at: number}>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for the client; returns 0 when allowed, else the seconds to wait. 0 limit = unlimited. */
  take(client: string): number {
    if (this.perMinute <= 0) return 0;
    const now = this.now();
    const rate = this.perMinute / 60_000;
    let b = this.buckets.get(client);
    if (!b) {
      if (this.buckets.size >= MAX_CLIENTS) this.evictFull(now, rate);
      b = {tokens: this.perMinute, at: now};
      this.buckets.set(client, b);
    } else {
      b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * rate);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) / rate / 1000);
  }

  /** Forgets clients whose buckets have refilled (they would start full anyway). */
  private evictFull(now: number, rate: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + (now - b.at) * rate >= this.perMinute) this.buckets.delete(k);
    if (this.buckets.size >= MAX_CLIENTS) this.buckets.clear();
  }
}
