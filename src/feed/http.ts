/**
 * `--feed http://HOST:PORT`: mirrors an upstream AvalancheGo-compatible node's index API page by page
 * (`index.getContainerRange`, 1024 a call) on every endpoint, keeping the upstream's IDs, order and timestamps,
 * then follows its tip. An upstream that goes away is retried with exponential backoff and reported through the
 * feed status (the `network` health check), never fatal.
 */
import type {Logger} from "../logger/index.js";
import {ENDPOINTS, type Endpoint} from "../containerIndex/endpoints.js";
import {MAX_FETCHED_BY_RANGE} from "../containerIndex/store.js";
import {idFromString} from "../util/cb58.js";
import {sha256} from "../util/sha256.js";
import {hexToBytes} from "../util/hex.js";
import {MAX_TIMESTAMP_NS, parseRfc3339Nano} from "../util/time.js";
import type {FeedStatus} from "./status.js";
import {redactUrl, withoutCredentials} from "../util/url.js";
import {sleep, type FeedBatch, type FeedItem, type FeedSource} from "./types.js";

const X_VTX = ENDPOINTS.findIndex((e) => e.name === "X/vtx");
const X_BLOCK = ENDPOINTS.findIndex((e) => e.name === "X/block");
/**
 * The endpoints in the order each round polls them (positions stay in ENDPOINTS order): the X-chain's vertices
 * before its blocks, so its containers arrive in acceptance order and the data API folds its transactions so.
 */
const POLL_ORDER = ENDPOINTS.flatMap((_, i) => (i === X_VTX ? [] : i === X_BLOCK ? [X_VTX, X_BLOCK] : [i]));

export interface HttpFeedOptions {
  url: string;
  /** Pause between polls once every endpoint is at the upstream's tip, ms. */
  pollMs: number;
  /** Per-request timeout, ms. */
  timeoutMs: number;
  /** Backoff bounds after a failure, ms. */
  minBackoffMs: number;
  maxBackoffMs: number;
}

export const defaultHttpFeedOptions: Omit<HttpFeedOptions, "url"> = {
  pollMs: 1000,
  timeoutMs: 10_000,
  minBackoffMs: 500,
  maxBackoffMs: 30_000,
};

export interface HttpFeedModules {
  status: FeedStatus;
  logger: Logger;
}

interface UpstreamContainer {
  id: string;
  bytes: string;
  timestamp: string;
  encoding: string;
  index: string;
}

export function encodeHttpPosition(next: bigint[]): Uint8Array {
  const b = new Uint8Array(8 * ENDPOINTS.length);
  const v = new DataView(b.buffer);
  next.forEach((n, i) => v.setBigUint64(8 * i, n));
  return b;
}

export function decodeHttpPosition(b: Uint8Array | null): bigint[] {
  if (b === null || b.length !== 8 * ENDPOINTS.length) return ENDPOINTS.map(() => 0n);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return ENDPOINTS.map((_, i) => v.getBigUint64(8 * i));
}

export class HttpFeed implements FeedSource {
  readonly key: string;
  /** The upstream without credentials (they go in `authorization`), and as logs show it. */
  private readonly base: string;
  private readonly auth: Record<string, string>;
  private readonly label: string;
  private requestId = 0;

  constructor(
    private readonly opts: HttpFeedOptions,
    private readonly modules: HttpFeedModules,
  ) {
    this.key = opts.url.replace(/\/+$/, "");
    const {url, headers} = withoutCredentials(this.key);
    this.base = url.toString().replace(/\/+$/, "");
    this.auth = headers;
    this.label = redactUrl(opts.url);
  }

  async run(
    position: Uint8Array | null,
    sink: (batch: FeedBatch) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const next = decodeHttpPosition(position);
    const {status, logger} = this.modules;
    const missing = new Set<number>();
    let backoff = this.opts.minBackoffMs;
    let down = false;
    while (!signal.aborted) {
      let atTip = true;
      let failed = false;
      let dagAtTip = true;
      for (const i of POLL_ORDER) {
        if (signal.aborted) break;
        const e = ENDPOINTS[i]!;
        // X blocks follow the whole DAG (Cortina linearised it): none is taken while the upstream has vertices left.
        if (i === X_BLOCK && !dagAtTip) continue;
        let items: FeedItem[] | "absent";
        try {
          items = await this.fetchItems(e, next[i]!, signal);
        } catch (err) {
          if (signal.aborted) return;
          status.failed();
          if (!down) {
            logger.warn({upstream: this.label, err: (err as Error).message}, "upstream failing; retrying with backoff");
          }
          down = true;
          failed = true;
          // A failing X/vtx (a proxy's 403, a bad vertex) holds back only the X blocks that must follow the DAG; the
          // other endpoints still move this round, as they did when X/vtx was polled last.
          if (i === X_VTX) {
            dagAtTip = false;
            continue;
          }
          break;
        }
        if (items === "absent") {
          if (!missing.has(e.id))
            logger.info({endpoint: e.name}, "upstream does not serve this index endpoint; skipping it");
          missing.add(e.id);
          continue;
        }
        missing.delete(e.id);
        if (items.length === 0) continue;
        // The upstream may have accepted its last vertices and its first blocks between the two requests (a node
        // finishing its DAG, a dev network committing Cortina in one batch): vertices that appeared meanwhile go
        // first, and this page of blocks is asked for again next round.
        if (i === X_BLOCK && !missing.has(ENDPOINTS[X_VTX]!.id)) {
          let vertices: FeedItem[] | "absent";
          try {
            vertices = await this.fetchItems(ENDPOINTS[X_VTX]!, next[X_VTX]!, signal);
          } catch {
            if (signal.aborted) return;
            status.failed();
            down = true;
            failed = true;
            continue;
          }
          if (vertices !== "absent" && vertices.length > 0) {
            next[X_VTX] = next[X_VTX]! + BigInt(vertices.length);
            await sink({items: vertices, position: encodeHttpPosition(next)});
            atTip = false;
            continue;
          }
        }
        next[i] = next[i]! + BigInt(items.length);
        // Outside the try above on purpose: a failed commit is not an upstream failure. It must end run() so the
        // ingester restarts from the last committed position; carrying on with `next` advanced would skip pages.
        await sink({items, position: encodeHttpPosition(next)});
        if (items.length === MAX_FETCHED_BY_RANGE) {
          atTip = false;
          if (i === X_VTX) dagAtTip = false;
        }
      }
      if (failed) {
        await sleep(backoff, signal);
        backoff = Math.min(this.opts.maxBackoffMs, backoff * 2);
        continue;
      }
      if (down) logger.info({upstream: this.label}, "upstream reachable again");
      down = false;
      backoff = this.opts.minBackoffMs;
      status.setCaughtUp(atTip);
      if (atTip) await sleep(this.opts.pollMs, signal);
    }
  }

  /** One page of an upstream endpoint as feed items, checked; "absent" when the upstream has no such endpoint. */
  private async fetchItems(e: Endpoint, start: bigint, signal: AbortSignal): Promise<FeedItem[] | "absent"> {
    const page = await this.fetchPage(e, start, signal);
    return page === "absent" ? page : page.map((c, k) => this.toItem(e, c, start + BigInt(k)));
  }

  /** One page from an upstream endpoint: containers (possibly none at the tip), or "absent" (404). */
  private async fetchPage(e: Endpoint, start: bigint, signal: AbortSignal): Promise<UpstreamContainer[] | "absent"> {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: ++this.requestId,
      method: "index.getContainerRange",
      params: {startIndex: start.toString(), numToFetch: MAX_FETCHED_BY_RANGE, encoding: "hex"},
    });
    this.modules.status.sent();
    const res = await fetch(`${this.base}/ext/index/${e.chain}/${e.kind}`, {
      method: "POST",
      headers: {"content-type": "application/json", ...this.auth},
      body,
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs)]),
    });
    if (res.status === 404) {
      await res.body?.cancel();
      this.modules.status.received();
      return "absent";
    }
    if (!res.ok) throw new Error(`upstream answered HTTP ${res.status}`);
    const json = (await res.json()) as {result?: {containers?: UpstreamContainer[]}; error?: {message?: string}};
    this.modules.status.received();
    if (json.error) {
      const msg = json.error.message ?? "";
      // An empty index, or one we have fully mirrored: nothing new yet.
      if (msg === "no containers have been accepted" || msg.startsWith("start index (")) return [];
      throw new Error(`upstream error on ${e.name}: ${msg}`);
    }
    const list = json.result?.containers;
    if (!Array.isArray(list)) throw new Error(`upstream answer on ${e.name} has no containers array`);
    return list;
  }

  private toItem(e: Endpoint, c: UpstreamContainer, expectIndex: bigint): FeedItem {
    if (c.index !== expectIndex.toString())
      throw new Error(`upstream ${e.name} returned index ${c.index}, expected ${expectIndex}`);
    const raw = hexToBytes(c.bytes);
    // `hex` carries a 4-byte sha256 checksum: check it and strip it.
    const bytes = raw.subarray(0, raw.length - 4);
    const sum = sha256(bytes).subarray(28);
    if (raw.length < 4 || Buffer.compare(Buffer.from(sum), Buffer.from(raw.subarray(raw.length - 4))) !== 0) {
      throw new Error(`upstream ${e.name} container ${c.id}: bad checksum`);
    }
    const ts = parseRfc3339Nano(c.timestamp);
    if (ts === null || ts < 0n || ts > MAX_TIMESTAMP_NS)
      throw new Error(`upstream ${e.name} container ${c.id}: bad timestamp ${c.timestamp}`);
    return {chain: e.chain, kind: e.kind, endpoint: e, id: idFromString(c.id), bytes, timestampNs: ts, checksum: sum};
  }
}
