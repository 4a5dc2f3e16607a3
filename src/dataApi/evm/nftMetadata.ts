/**
 * An NFT's metadata JSON from its token URI (docs/api/evm.md): `data:` URIs, `ipfs://` through the operator's
 * gateway, and `http(s)` with a size cap and a deadline. Token URIs are chosen by whoever deployed the contract, so
 * fetching one is a request on an attacker's behalf: the SSRF guard of util/publicTarget.ts checks every address a
 * host resolves to and pins the connection to them, and each redirect is checked again. Outcomes use the hosted API's `NftTokenMetadataStatus` values; this never throws.
 */
import http from "node:http";
import https from "node:https";
import {
  TargetRefused,
  checkedAddresses as checkTarget,
  isForbiddenAddress,
  pinnedLookup,
  type ResolvedAddress,
} from "../../util/publicTarget.js";

/** The Glacier SDK's NftTokenMetadataStatus. */
export type NftTokenMetadataStatus =
  | "UNKNOWN"
  | "MISSING_TOKEN"
  | "INVALID_TOKEN_URI"
  | "INVALID_TOKEN_URI_SCHEME"
  | "UNREACHABLE_TOKEN_URI"
  | "THROTTLED_TOKEN_URI"
  | "METADATA_CONTENT_TOO_LARGE"
  | "INVALID_METADATA"
  | "INVALID_METADATA_JSON"
  | "INDEXED"
  | "UNINDEXED";

/**
 * The SDK's Erc721TokenMetadata/Erc1155TokenMetadata fields that come from the JSON: `attributes` (ERC-721) and
 * `properties` (ERC-1155) as JSON text, `image` (or `image_url`) as imageUri, `background_color` as background.
 */
export interface NftMetadata {
  name?: string;
  description?: string;
  imageUri?: string;
  externalUrl?: string;
  animationUri?: string;
  background?: string;
  attributes?: string;
  properties?: string;
  /** ERC-1155 metadata's `decimals` (0–255). */
  decimals?: number;
}

export interface NftMetadataResult {
  indexStatus: NftTokenMetadataStatus;
  metadata?: NftMetadata;
  /** Why it was not indexed, for logs (never served). */
  detail?: string;
}

export interface NftFetchOptions {
  /** The URL prefix a CID and path are appended to, e.g. `https://ipfs.io/ipfs/`. Operator-chosen, so trusted (a local IPFS node on 127.0.0.1 is fine); its redirects are still checked. */
  ipfsGateway: string;
  /** Operator flag: allow loopback/private/link-local addresses (dev networks). */
  allowPrivate: boolean;
  /** Largest metadata document, bytes; default 1 MiB. */
  maxBytes?: number;
  /** Deadline for the whole fetch, redirects included, ms; default 10 s. */
  timeoutMs?: number;
  /** Redirects followed, each re-checked; default 3. */
  maxRedirects?: number;
}

const MiB = 1024 * 1024;

export {isForbiddenAddress};

/**
 * ERC-1155's `{id}`: the token ID as 64 lowercase hex digits, zero-padded. Undefined when the result would pass
 * `maxBytes` of UTF-8: each `{id}` grows by 60 bytes, so a URI under the cap can substitute to 16 times it.
 */
export function substituteTokenId(uri: string, id: bigint, maxBytes = Infinity): string | undefined {
  let count = 0;
  for (let at = uri.indexOf("{id}"); at >= 0; at = uri.indexOf("{id}", at + 4)) count++;
  if (Buffer.byteLength(uri, "utf8") + 60 * count > maxBytes) return undefined;
  return count === 0 ? uri : uri.replaceAll("{id}", id.toString(16).padStart(64, "0"));
}

class Outcome extends Error {
  constructor(
    readonly status: NftTokenMetadataStatus,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units: no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function str(v: unknown): string | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  // NULs: PostgreSQL text refuses them, and they are never meaningful here.
  // Lone UTF-16 surrogates (`"\ud800"` is valid JSON): PostgreSQL's jsonb refuses them, so they become U+FFFD.
  return typeof v === "string" && v !== "" ? v.replaceAll("\0", "").replace(LONE_SURROGATE, "\uFFFD") : undefined;
}

/** Metadata from a document's text: INVALID_METADATA_JSON if not JSON, INVALID_METADATA if not a JSON object. */
export function parseNftMetadata(text: string): NftMetadataResult {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    return {indexStatus: "INVALID_METADATA_JSON", detail: (e as Error).message};
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return {indexStatus: "INVALID_METADATA", detail: "not a JSON object"};
  const j = json as Record<string, unknown>;
  const jsonText = (v: unknown): string | undefined => (v !== undefined && v !== null ? JSON.stringify(v) : undefined);
  const fields: NftMetadata = {
    name: str(j.name),
    description: str(j.description),
    imageUri: str(j.image) ?? str(j.image_url),
    externalUrl: str(j.external_url),
    animationUri: str(j.animation_url),
    background: str(j.background_color),
    attributes: jsonText(j.attributes),
    properties: jsonText(j.properties),
    decimals:
      Number.isInteger(j.decimals) && (j.decimals as number) >= 0 && (j.decimals as number) <= 255
        ? (j.decimals as number)
        : undefined,
  };
  const metadata = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as NftMetadata;
  return {indexStatus: "INDEXED", metadata};
}

function parseDataUri(uri: string, maxBytes: number): string {
  const comma = uri.indexOf(",");
  if (comma < 0) throw new Outcome("INVALID_TOKEN_URI", "data: URI without a comma");
  const header = uri.slice(5, comma).toLowerCase();
  let body = uri.slice(comma + 1);
  if (body.length > 4 * maxBytes) throw new Outcome("METADATA_CONTENT_TOO_LARGE", "data: URI too long");
  // Percent-encoding is the standard form; many contracts also put raw JSON after `;utf8,`, where a literal `%` is fine.
  try {
    body = decodeURIComponent(body);
  } catch {
    /* not percent-encoded: keep it raw */
  }
  const bytes = header.split(";").includes("base64")
    ? Buffer.from(body.replace(/\s+/g, ""), "base64")
    : Buffer.from(body, "utf8");
  if (bytes.length > maxBytes) throw new Outcome("METADATA_CONTENT_TOO_LARGE", `data: URI holds ${bytes.length} bytes`);
  return bytes.toString("utf8");
}

/** The gateway URL of an `ipfs://` URI (also `ipfs://ipfs/<cid>` and bare `Qm…`/`bafy…` CIDs that some contracts return). */
function ipfsUrl(uri: string, gateway: string): string {
  // Tabs and newlines go first: the URL parser drops them, so `.\t.` would pass the dot-segment check as text and
  // then climb as `..` (WHATWG URL, "remove all ASCII tab or newline").
  const rest = uri
    .replace(/[\t\n\r]/g, "")
    .replace(/^ipfs:\/\//i, "")
    .replace(/^ipfs\//i, "");
  if (rest === "" || /[\s?#]/.test(rest.split("/")[0]!))
    throw new Outcome("INVALID_TOKEN_URI", "ipfs: URI without a CID");
  // The gateway's origin is trusted, so a path must not climb out of its prefix (URL parsing resolves `..`, `%2e%2e`
  // and, for http, backslashes as slashes).
  if (/\\/.test(rest) || rest.split("/").some((seg) => /^(\.|%2e){1,2}$/i.test(seg)))
    throw new Outcome("INVALID_TOKEN_URI", "ipfs: path with dot segments");
  return (gateway.endsWith("/") ? gateway : gateway + "/") + rest;
}

/** The addresses to connect to for `host` (util/publicTarget.ts), as this fetch's outcome when refused. */
async function checkedAddresses(host: string, allowPrivate: boolean): Promise<ResolvedAddress[]> {
  try {
    return await checkTarget(host, allowPrivate);
  } catch (e) {
    if (e instanceof TargetRefused) throw new Outcome("UNREACHABLE_TOKEN_URI", e.message);
    throw e;
  }
}

/** A DNS lookup cannot be cancelled, so the deadline races it. */
function beforeDeadline<T>(p: Promise<T>, signal: AbortSignal, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Outcome("UNREACHABLE_TOKEN_URI", `no answer within ${ms} ms`));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, {once: true});
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

interface Response {
  status: number;
  location?: string;
  body?: Buffer;
}

function get(url: URL, to: ResolvedAddress[], maxBytes: number, signal: AbortSignal): Promise<Response> {
  // Only the checked addresses, never a fresh DNS answer.
  const lookup = pinnedLookup(to);
  const mod = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: "GET",
        lookup,
        signal,
        agent: false, // a pooled socket could belong to an earlier, differently-resolved request
        headers: {
          accept: "application/json, */*;q=0.5",
          "accept-encoding": "identity",
          "user-agent": "avaext-nft-metadata",
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          resolve({status, location: res.headers.location});
          return;
        }
        if (status < 200 || status >= 300) {
          res.resume();
          resolve({status});
          return;
        }
        const declared = Number(res.headers["content-length"]);
        if (declared > maxBytes) {
          req.destroy();
          reject(new Outcome("METADATA_CONTENT_TOO_LARGE", `Content-Length ${declared}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            req.destroy();
            reject(new Outcome("METADATA_CONTENT_TOO_LARGE", `body over ${maxBytes} bytes`));
          } else chunks.push(c);
        });
        res.on("end", () => resolve({status, body: Buffer.concat(chunks)}));
        res.on("error", reject);
        // A body cut short (abort, reset) must not pass for a whole one.
        res.on("close", () => {
          if (!res.complete) reject(new Error("connection closed before the body's end"));
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function fetchHttp(
  start: string,
  opts: Required<NftFetchOptions>,
  trustedOrigin: string | null,
): Promise<string> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let url: URL;
  try {
    url = new URL(start);
  } catch {
    throw new Outcome("INVALID_TOKEN_URI", "not a URL");
  }
  for (let hop = 0; ; hop++) {
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new Outcome("INVALID_TOKEN_URI_SCHEME", `redirect to ${url.protocol}`);
    const to = await beforeDeadline(
      checkedAddresses(url.hostname, opts.allowPrivate || url.origin === trustedOrigin),
      signal,
      opts.timeoutMs,
    );
    let res: Response;
    try {
      res = await get(url, to, opts.maxBytes, signal);
    } catch (e) {
      if (e instanceof Outcome) throw e;
      throw new Outcome(
        "UNREACHABLE_TOKEN_URI",
        signal.aborted ? `no answer within ${opts.timeoutMs} ms` : (e as Error).message,
      );
    }
    if (res.body) return res.body.toString("utf8");
    if (res.status === 429) throw new Outcome("THROTTLED_TOKEN_URI", "HTTP 429");
    if (res.location === undefined) throw new Outcome("UNREACHABLE_TOKEN_URI", `HTTP ${res.status}`);
    if (hop >= opts.maxRedirects)
      throw new Outcome("UNREACHABLE_TOKEN_URI", `more than ${opts.maxRedirects} redirects`);
    try {
      url = new URL(res.location, url);
    } catch {
      throw new Outcome("INVALID_TOKEN_URI", "redirect to an invalid URL");
    }
  }
}

export async function fetchNftMetadata(uri: string, options: NftFetchOptions): Promise<NftMetadataResult> {
  const opts: Required<NftFetchOptions> = {
    ...options,
    maxBytes: options.maxBytes ?? MiB,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRedirects: options.maxRedirects ?? 3,
  };
  const u = uri.trim();
  try {
    if (u === "") throw new Outcome("INVALID_TOKEN_URI", "empty token URI");
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(u)?.[1]?.toLowerCase();
    let text: string;
    if (scheme === "data") text = parseDataUri(u, opts.maxBytes);
    else if (scheme === "http" || scheme === "https") text = await fetchHttp(u, opts, null);
    else if (
      scheme === "ipfs" ||
      (scheme === undefined && /^(Qm[1-9A-HJ-NP-Za-km-z]{44}|bafy[a-z2-7]+)(\/|$)/.test(u))
    ) {
      const gateway = new URL(opts.ipfsGateway);
      text = await fetchHttp(ipfsUrl(u, opts.ipfsGateway), opts, gateway.origin);
    } else if (scheme === undefined) throw new Outcome("INVALID_TOKEN_URI", "no scheme");
    else throw new Outcome("INVALID_TOKEN_URI_SCHEME", `${scheme}: is not fetched`);
    return parseNftMetadata(text);
  } catch (e) {
    if (e instanceof Outcome) return {indexStatus: e.status, detail: e.detail};
    return {indexStatus: "UNKNOWN", detail: (e as Error).message};
  }
}
