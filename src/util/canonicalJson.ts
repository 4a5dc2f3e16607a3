/**
 * RFC 8785 (JSON Canonicalization Scheme) serialisation: object keys sorted by their UTF-16 code units, no
 * whitespace, strings and numbers as ECMAScript's JSON.stringify writes them (RFC 8785 §3.2.2 adopts exactly
 * those rules). Webhook bodies are sent this way, so a receiver that re-serialises canonically before checking the
 * signature (as the hosted API's docs show) computes the bytes avaext signed.
 */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v === "boolean") return JSON.stringify(v);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error("canonical JSON has no NaN or Infinity");
    return JSON.stringify(v);
  }
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return JSON.stringify(v.toString());
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? "null" : canonicalJson(x))).join(",")}]`;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    // Array.prototype.sort compares strings by UTF-16 code units, RFC 8785's order.
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(",")}}`;
  }
  throw new Error(`canonical JSON cannot hold a ${typeof v}`);
}
