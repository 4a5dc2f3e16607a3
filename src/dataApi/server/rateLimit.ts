/**
 * The data API's rate-limit answers (docs/api/data-api.md) over the shared limiter (src/api/rateLimit.ts): every
 * limited answer carries the IETF draft's `RateLimit-Policy` and `RateLimit` headers; a refusal is 429 with
 * `Retry-After`.
 */
import type {RateDecision} from "../../api/rateLimit.js";

export function rateLimitHeaders(d: RateDecision, limit: number, policy: string): Record<string, string> {
  if (limit <= 0) return {};
  const headers: Record<string, string> = {
    "ratelimit-policy": `"${policy}";q=${limit};w=60`,
    ratelimit: `"${policy}";r=${d.remaining};t=${d.ok ? d.fullInS : d.retryAfterS}`,
  };
  if (!d.ok) headers["retry-after"] = String(d.retryAfterS);
  return headers;
}
