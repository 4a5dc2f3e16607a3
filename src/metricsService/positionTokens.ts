/**
 * Page tokens of the metrics service: random UUIDs naming a listing position, valid for 24 hours from generation
 * (docs/api/metrics-service.md). Kept in memory with a bounded size: a token from before a restart is unknown, and the
 * client restarts the listing, exactly as after expiry.
 */
import {randomUUID} from "node:crypto";
import {FifoMap} from "../util/fifoMap.js";

export const TOKEN_LIFETIME_MS = 24 * 3_600_000;
const MAX_TOKENS = 100_000;

export interface PagePosition {
  chain: string;
  offset: number;
  pageSize: number;
}

export type TokenLookup = {ok: true; position: PagePosition} | {ok: false; reason: "unknown" | "expired"};

/**
 * Tokens that name a position this process remembers (the data API's carry a signed cursor instead:
 * dataApi/server/cursorTokens.ts).
 */
export class PositionTokens {
  /** The last MAX_TOKENS issued, the oldest evicted in constant time (a full map swept on each issue was O(n)). */
  private readonly tokens = new FifoMap<string, {position: PagePosition; expires: number}>(MAX_TOKENS);

  constructor(
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = TOKEN_LIFETIME_MS,
  ) {}

  issue(position: PagePosition): string {
    const token = randomUUID();
    this.tokens.set(token, {position, expires: this.now() + this.lifetimeMs});
    return token;
  }

  lookup(token: string): TokenLookup {
    const t = this.tokens.get(token);
    if (!t) return {ok: false, reason: "unknown"};
    if (this.now() >= t.expires) {
      this.tokens.delete(token);
      return {ok: false, reason: "expired"};
    }
    return {ok: true, position: t.position};
  }
}
