/** The acceptance feed's shapes: what a source hands the ingester. */
import type {ChainName} from "../chains/index.js";
import type {ContainerKind, Endpoint} from "../containerIndex/endpoints.js";

export interface FeedItem {
  chain: ChainName;
  kind: ContainerKind;
  /** The index endpoint of (chain, kind), resolved by the source. */
  endpoint: Endpoint;
  /** 32-byte container ID: given by the source, or derived from the bytes by the chain's rule. */
  id: Uint8Array;
  bytes: Uint8Array;
  /** Acceptance time, ns since the epoch, below 2^63. */
  timestampNs: bigint;
  /** sha256(bytes)[28:32] when the source already computed it; else the index computes it. */
  checksum?: Uint8Array | null;
}

export interface FeedBatch {
  items: FeedItem[];
  /** The source's position after these items (and any bad lines among them), stored with them atomically. */
  position: Uint8Array;
}

/** Where a source reports what it skipped. */
export interface BadInputReporter {
  badLine(lineNo: number, reason: string): void;
}

export interface FeedSource {
  /** Stable key the position is stored under (`dev`, `file:<absolute path>`, `http://host:port`). */
  readonly key: string;
  /**
   * Runs until the signal aborts, handing batches to `sink` in order and awaiting each (back-pressure: nothing
   * is read ahead of what the index has committed). `position` is what the last committed batch carried.
   */
  run(position: Uint8Array | null, sink: (batch: FeedBatch) => Promise<void>, signal: AbortSignal): Promise<void>;
}

export {sleep} from "../util/sleep.js";
