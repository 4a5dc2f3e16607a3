/**
 * An external signature aggregator (`--signature-aggregator-url`), asked when the local sources do not reach
 * quorum. Two wire formats, by the URL: a path ending in `/aggregate-signatures` is ava-labs' icm-services
 * signature-aggregator (`{"message", "justification", "signing-subnet-id", "quorum-percentage"}` →
 * `{"signed-message"}`); anything else is a Data API base URL (Glacier, another avaext):
 * `POST <url>/v1/signatureAggregator/<network>/aggregateSignatures` → `{"signedMessage"}`. The answer is only
 * bytes here: the route checks it against its own canonical set before anyone sees it.
 */
import {badGateway, type DataApiError} from "../server/errors.js";
import {redactUrl} from "../../util/url.js";
import {joinUrl, parseHex, postJson, snippet} from "./upstream.js";
import {toHex} from "../../evm/hex.js";

export interface ExternalAggregatorOptions {
  url: string;
  /** The served network's name in the Data API path (mainnet, fuji, ...). */
  network: string;
  /** Deadline of the whole call (aggregating takes the upstream a while). */
  timeoutMs: number;
}

export interface ExternalRequest {
  unsigned: Uint8Array;
  justification: Uint8Array | undefined;
  /** CB58. */
  subnetId: string;
  quorumPercentage: number;
  /** 0: the upstream's current set. */
  pChainHeight: bigint;
}

export type AggregatorFormat = "icm-services" | "data-api";

export class ExternalAggregator {
  readonly format: AggregatorFormat;
  /** The URL as messages show it (no credentials). */
  readonly label: string;
  private readonly endpoint: string;

  constructor(private readonly opts: ExternalAggregatorOptions) {
    const path = new URL(opts.url).pathname.replace(/\/+$/, "");
    this.format = path.endsWith("/aggregate-signatures") ? "icm-services" : "data-api";
    this.endpoint =
      this.format === "icm-services"
        ? opts.url
        : joinUrl(opts.url, `/v1/signatureAggregator/${opts.network}/aggregateSignatures`);
    this.label = redactUrl(this.endpoint);
  }

  fail(reason: string): DataApiError {
    // Named by its flag, not its URL: a hosted provider's key can sit in the path, an internal address is private.
    return badGateway(`the signature aggregator (--signature-aggregator-url): ${reason}`);
  }

  /** The upstream's signed message, as bytes (not checked yet); a 502 naming the upstream when there is none. */
  async signedMessage(req: ExternalRequest, signal?: AbortSignal): Promise<Uint8Array> {
    const message = toHex(req.unsigned);
    const justification = req.justification && req.justification.length > 0 ? toHex(req.justification) : undefined;
    const body =
      this.format === "icm-services"
        ? {
            message: message.slice(2),
            ...(justification ? {justification: justification.slice(2)} : {}),
            "signing-subnet-id": req.subnetId,
            "quorum-percentage": req.quorumPercentage,
          }
        : {
            message,
            ...(justification ? {justification} : {}),
            signingSubnetId: req.subnetId,
            quorumPercentage: req.quorumPercentage,
            ...(req.pChainHeight > 0n ? {pChainHeight: Number(req.pChainHeight)} : {}),
          };
    let status: number;
    let json: unknown;
    try {
      ({status, json} = await postJson(this.endpoint, body, {
        timeoutMs: this.opts.timeoutMs,
        signal,
        maxBytes: 1024 * 1024,
      }));
    } catch (e) {
      throw this.fail((e as Error).message);
    }
    const o =
      json !== null && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
    if (status < 200 || status > 299) {
      const msg =
        typeof o?.message === "string"
          ? o.message
          : typeof o?.error === "string"
            ? o.error
            : snippet(JSON.stringify(json));
      throw this.fail(`HTTP ${status}: ${msg}`);
    }
    const field = this.format === "icm-services" ? "signed-message" : "signedMessage";
    const v = o?.[field];
    if (typeof v !== "string") throw this.fail(`the answer has no "${field}": ${snippet(JSON.stringify(json))}`);
    const bytes = parseHex(v);
    if (!bytes || bytes.length === 0) throw this.fail(`"${field}" is not hex: ${snippet(v, 80)}`);
    return bytes;
  }
}
