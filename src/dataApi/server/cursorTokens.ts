/**
 * Keyset page tokens (docs/api/data-api.md): the sort key of the last item returned, bound to the endpoint, its
 * path parameters and its filters (the scope), and authenticated with an HMAC under the store's secret, so a
 * forged, truncated or foreign token is a 400, never a wrong page. Opaque base64url.
 */
import {createHmac, timingSafeEqual} from "node:crypto";
import {badRequest} from "./errors.js";

export type CursorValue = string | number | bigint;

const MAC_LEN = 16;

/**
 * Tokens that carry their page's cursor, signed: nothing is kept. (The metrics service's tokens name a position it
 * remembers instead: metricsService/positionTokens.ts.)
 */
export class CursorTokens {
  constructor(private readonly secret: Uint8Array) {}

  encode(scope: string, cursor: readonly CursorValue[]): string {
    const payload = Buffer.from(
      JSON.stringify(cursor.map((v) => (typeof v === "bigint" ? `n${v}` : typeof v === "string" ? `s${v}` : v))),
      "utf8",
    );
    return Buffer.concat([this.mac(scope, payload), payload]).toString("base64url");
  }

  /** The cursor of a token made for this scope; 400 `pageToken: ...` otherwise. */
  decode(scope: string, token: string): CursorValue[] {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw badRequest("pageToken", "malformed");
    const raw = Buffer.from(token, "base64url");
    if (raw.length <= MAC_LEN) throw badRequest("pageToken", "malformed");
    const payload = raw.subarray(MAC_LEN);
    const mac = raw.subarray(0, MAC_LEN);
    if (!timingSafeEqual(mac, this.mac(scope, payload)))
      throw badRequest("pageToken", "not a token of this request (another endpoint, other filters, or altered)");
    let values: unknown[];
    try {
      values = JSON.parse(payload.toString("utf8")) as unknown[];
    } catch {
      values = [];
    }
    if (!Array.isArray(values) || values.length === 0) throw badRequest("pageToken", "malformed");
    return values.map((v) => {
      if (typeof v === "number") return v;
      const s = String(v);
      return s.startsWith("n") ? BigInt(s.slice(1)) : s.slice(1);
    });
  }

  private mac(scope: string, payload: Uint8Array): Buffer {
    return createHmac("sha256", this.secret).update(scope).update("\0").update(payload).digest().subarray(0, MAC_LEN);
  }
}
