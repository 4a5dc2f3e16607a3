/**
 * HTTP and JSON-RPC calls to the services signatures come from (validator nodes, a P-chain node, an external
 * aggregator): a deadline per call, the caller's abort signal, a bounded answer, and errors that name the service
 * without its credentials. Credentials in a URL (`http://user:pass@host`) are sent as HTTP basic auth.
 */
import {withoutCredentials} from "../../util/url.js";

/** `transport`: no usable answer (unreachable, timeout, HTTP error, not JSON); `rpc`: a JSON-RPC error answer. */
export class UpstreamError extends Error {
  constructor(
    readonly kind: "transport" | "rpc",
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Largest answer read, in bytes. */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/** `base` (any trailing slash dropped) + `path`. */
export function joinUrl(base: string, path: string): string {
  const u = new URL(base);
  u.pathname = u.pathname.replace(/\/+$/, "") + path;
  return u.toString();
}

/** POSTs `body` as JSON; the parsed JSON answer and its status. Throws UpstreamError (transport) on anything else. */
export async function postJson(
  url: string,
  body: unknown,
  opts: CallOptions,
): Promise<{status: number; json: unknown}> {
  const {url: u, headers: auth} = withoutCredentials(url);
  const headers: Record<string, string> = {"content-type": "application/json", accept: "application/json", ...auth};
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let text: string;
  let status: number;
  try {
    const res = await fetch(u, {method: "POST", headers, body: JSON.stringify(body), signal, redirect: "error"});
    status = res.status;
    text = await readLimited(res, opts.maxBytes ?? DEFAULT_MAX_BYTES);
  } catch (e) {
    if (timeout.aborted) throw new UpstreamError("transport", `no answer within ${opts.timeoutMs} ms`);
    if (opts.signal?.aborted) throw new UpstreamError("transport", "request cancelled");
    if (e instanceof UpstreamError) throw e;
    const cause = (e as {cause?: {code?: string; message?: string}}).cause;
    throw new UpstreamError("transport", `unreachable: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamError("transport", `HTTP ${status}, the answer is not JSON: ${snippet(text)}`);
  }
  return {status, json};
}

/** A JSON-RPC 2.0 call; its result. A JSON-RPC error answer throws UpstreamError `rpc`; anything else `transport`. */
export async function jsonRpc(url: string, method: string, params: unknown, opts: CallOptions): Promise<unknown> {
  const {status, json} = await postJson(url, {jsonrpc: "2.0", id: 1, method, params}, opts);
  const o =
    json !== null && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
  const error = o?.error as {code?: unknown; message?: unknown} | undefined | null;
  if (error && typeof error === "object") {
    const code = typeof error.code === "number" ? error.code : undefined;
    throw new UpstreamError("rpc", typeof error.message === "string" ? error.message : JSON.stringify(error), code);
  }
  if (status < 200 || status > 299)
    throw new UpstreamError("transport", `HTTP ${status}: ${snippet(JSON.stringify(json))}`);
  if (!o || !("result" in o))
    throw new UpstreamError("transport", `not a JSON-RPC answer: ${snippet(JSON.stringify(json))}`);
  return o.result;
}

async function readLimited(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let n = 0;
  const reader = res.body.getReader();
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new UpstreamError("transport", `the answer exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function snippet(text: string, max = 200): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max) + "…" : t || "(empty)";
}

/** 0x-optional hex to bytes, or null when it is not an even-length hex string. */
export function parseHex(v: unknown): Uint8Array | null {
  if (typeof v !== "string") return null;
  const s = v.startsWith("0x") || v.startsWith("0X") ? v.slice(2) : v;
  if (!/^([0-9a-fA-F]{2})*$/.test(s)) return null;
  return Uint8Array.from(Buffer.from(s, "hex"));
}
