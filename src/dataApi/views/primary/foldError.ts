/** The primary view's failures: where a fold failed (FoldError, ViewStop), and the batch retries that are not failures. */
import type {Endpoint} from "../../../containerIndex/endpoints.js";
import type {StoredContainer} from "../../../containerIndex/store.js";

/** PostgreSQL's SQLSTATE of a duplicate key in a unique index. */
export const UNIQUE_VIOLATION = "23505";

/**
 * A primary webhook was made or changed after the batch read the webhooks (webhooksOfBatch): nothing of it was
 * written, and it is built again with them. A webhook made while a batch is built gets the events of the positions
 * from its from_block on (queries/webhooks.ts), which that batch may hold. Not a failure: no backoff, no error count.
 */
export class HooksChangedError extends Error {
  constructor(
    readonly endpoint: string,
    cause: unknown,
  ) {
    super("primary-network view: a primary webhook changed while the batch was built; it is built again", {cause});
  }
}

/** A batch repeats a row the store holds (writeBuilt): it is written again keeping the first. */
export class RepeatedRowsError extends Error {
  constructor(
    readonly endpoint: string,
    readonly from: bigint,
    readonly to: bigint,
    cause: unknown,
  ) {
    super(
      "primary-network view: the index repeats a row the store holds; the batch is written again keeping the first",
      {cause},
    );
  }
}

/** Marks the error of a batch statement that did not find the position its batch starts at (writeBuilt). */
export const POSITION_MOVED = "avaext: the view position is not at the start of the batch";
/** Marks the error of a batch statement built before a primary webhook was made or changed (writeBuilt). */
export const HOOKS_CHANGED = "avaext: the primary webhooks changed after the batch was built";

export type PrimaryChainName = "P" | "X" | "C";

/** Where in the index a container is, and its block (or vertex). */
export interface FoldPlace {
  index: bigint;
  blockId: string;
  height: bigint;
}

/** A chain's view stopped: where and why (the health check and the log give it as is). */
export interface ViewStop {
  chain: PrimaryChainName;
  endpoint: string;
  /** The container's position in its index. */
  index: string;
  /** The block (or vertex) that failed, when the failure could be placed in one. */
  blockId: string | null;
  height: string | null;
  /** The transaction being folded, when the failure was in one. */
  txId: string | null;
  error: string;
  /** When it stopped (ISO 8601). */
  since: string;
}

/**
 * A failure while folding a batch of one endpoint, placed as closely as it could be: the container range [from,
 * to), the block and the transaction when known. Retryable or not as its cause is (src/util/errors.ts).
 */
export class FoldError extends Error {
  private constructor(
    readonly endpoint: Endpoint,
    readonly from: bigint,
    readonly to: bigint,
    readonly block: FoldPlace | null,
    readonly txId: string | null,
    cause: unknown,
  ) {
    const range = to - from === 1n ? `container ${from}` : `containers ${from}-${to - 1n}`;
    const where = block ? `block ${block.height} (${block.blockId})` : range;
    const what = cause instanceof Error ? cause.message : String(cause);
    super(`${endpoint.chain}-chain ${where}${txId ? `, transaction ${txId}` : ""}: ${what}`, {cause});
  }

  /** A failure at one container of the build, with its block and transaction when known. */
  static at(err: unknown, e: Endpoint, index: bigint, block: FoldPlace | null, txId: string | null): Error {
    if (err instanceof FoldError || err instanceof RepeatedRowsError || err instanceof HooksChangedError) return err;
    return new FoldError(e, index, index + 1n, block, txId, err);
  }

  /** A failure reading containers [from, to) or what their fold needs, before any is built. */
  static range(err: unknown, e: Endpoint, from: bigint, to: bigint): Error {
    if (err instanceof FoldError || err instanceof RepeatedRowsError || err instanceof HooksChangedError) return err;
    return new FoldError(e, from, to, null, null, err);
  }

  /** A failure of a whole batch (its statement or transaction); the block is named when it holds only one. */
  static of(
    err: unknown,
    e: Endpoint,
    containers: readonly StoredContainer[],
    blocks: readonly FoldPlace[] | null,
  ): Error {
    if (err instanceof FoldError || err instanceof RepeatedRowsError || err instanceof HooksChangedError) return err;
    const from = containers[0]!.index;
    const to = containers[containers.length - 1]!.index + 1n;
    return new FoldError(e, from, to, to - from === 1n && blocks?.length === 1 ? blocks[0]! : null, null, err);
  }
}
