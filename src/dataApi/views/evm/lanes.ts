/**
 * A lane behind an EVM chain's head: folds what is slow to read about blocks already folded (token metadata by
 * eth_call, internal transactions by debug_trace*), so that a slow contract or a slow trace never holds a block
 * back. Blockscout's indexer does the same with one fetcher per kind (apps/indexer/lib/indexer/fetcher/ of
 * blockscout/blockscout), there with a row flag per item; here each lane keeps one position, the last block it
 * covered, in the chain's row of evm_chains.
 *
 * A lane reads the blocks after its position up to the stored head, asks its RPC, and commits what it found with
 * its new position in one transaction: a crash or kill -9 loses or doubles nothing. The commit is refused when the
 * chain's row says a rollback happened since the lane read its range (evm_chains.reorgs, which rollbackTo in
 * write.ts counts up as it moves every lane back to the common ancestor); the lane then reads again. A failure is
 * retried with backoff and reported (status); it never stops the head or another lane.
 */
import {setMaxListeners} from "node:events";
import {sleep} from "../../../util/sleep.js";
import {Backoff} from "../../../util/errors.js";
import type {Logger} from "../../../logger/index.js";
import type {SqlClient, SqlTx} from "../../store/sql.js";

/** What a lane found for blocks [from, to]: written with the lane's new position `to`. */
export interface LaneWork {
  /** The last block the work covers: at most the range asked for (a lane may take fewer blocks). */
  to: bigint;
  write(tx: SqlTx): Promise<void>;
  /** Told once the write has committed (not when it was refused for a rollback). */
  committed?(): void;
}

/** One kind of lane: where its position is kept, how many blocks a step takes, and how it reads them. */
export interface LaneKind {
  readonly name: "tokens" | "traces";
  readonly column: "token_lane" | "trace_lane";
  /** Most blocks read in one step. */
  readonly maxBlocks: number;
  /** Blocks this process left uncovered for good (the trace lane: blocks the node does not trace), if any kind. */
  readonly skipped?: number;
  /** Reads what blocks [from, to] (folded, ≤ the stored head) need; written only if no rollback came meanwhile. */
  prepare(chainId: string, from: bigint, to: bigint, signal: AbortSignal): Promise<LaneWork>;
}

export interface LaneStatus {
  /** The last block the lane covered (null: none yet, or not known yet). */
  covered: bigint | null;
  /** Blocks folded at the head that the lane has not covered (null until both are known). */
  lag: bigint | null;
  /** Why its last step failed (it is retried), or null. */
  lastError: string | null;
  /** Blocks it left uncovered since start (LaneKind.skipped), when more than none. */
  skipped?: number;
}

export interface LaneOptions {
  /** Time between looks at the head when caught up, ms (a commit of the head wakes the lane sooner). */
  pollMs: number;
}

export interface LaneModules {
  sql: SqlClient;
  logger: Logger;
  kind: LaneKind;
  /** The chain's EVM chain ID, once its follower knows it. */
  chainId: () => string | null;
  /** The follower's head (the last block folded), for the lag. */
  head: () => bigint | null;
  /** Whether the lane runs (the trace lane: only on a chain whose RPC serves traces, once that is known). */
  enabled: () => boolean;
}

/** Thrown inside a lane's transaction to roll it back: a rollback of the head came while the lane read its range. */
class Superseded extends Error {}

export class Lane {
  private covered: bigint | null = null;
  private lastError: string | null = null;
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;
  private wakers: Array<() => void> = [];
  private readonly waiters: Array<() => void> = [];

  constructor(
    private readonly opts: LaneOptions,
    private readonly modules: LaneModules,
  ) {
    // Every request of the lane listens on this signal (a token's eight eth_calls at once, each retried).
    setMaxListeners(0, this.abort.signal);
  }

  get name(): string {
    return this.modules.kind.name;
  }

  start(): void {
    this.running ??= this.run(this.abort.signal);
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.wake();
    await this.running;
  }

  /** The head moved (or rolled back): look now rather than at the next poll. */
  wake(): void {
    this.wakers.splice(0).forEach((w) => w());
  }

  enabled(): boolean {
    return this.modules.enabled();
  }

  status(): LaneStatus {
    const head = this.modules.head();
    const covered = this.covered === null || this.covered < 0n ? null : this.covered;
    const lag = head === null || this.covered === null ? null : head - this.covered > 0n ? head - this.covered : 0n;
    const skipped = this.modules.kind.skipped;
    return {covered, lag, lastError: this.lastError, ...(skipped ? {skipped} : {})};
  }

  /** Resolves once the lane has covered block `n` (or runs not at all); throws at `deadline` (ms since the epoch). */
  async waitFor(n: bigint, deadline: number, what: () => string): Promise<void> {
    while (this.modules.enabled() && (this.covered ?? -1n) < n) {
      if (Date.now() > deadline)
        throw new Error(
          `${what()}: the ${this.name} lane has not covered block ${n} (covered ${this.covered ?? "none"}${this.lastError ? `, ${this.lastError}` : ""})`,
        );
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff({baseMs: 1000, maxMs: 30_000});
    while (!signal.aborted) {
      let moved = false;
      try {
        moved = await this.step(signal);
        this.lastError = null;
        backoff.reset();
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof Superseded) continue;
        const e = err as Error;
        this.lastError = `${this.name} lane: ${e.message}`;
        const retryInMs = backoff.next();
        const at = {
          chainId: this.modules.chainId(),
          lane: this.name,
          err: e.message,
          failures: backoff.attempts,
          retryInMs,
        };
        this.modules.logger.warn(at, "EVM lane: step failed; retrying");
        await sleep(retryInMs, signal);
        continue;
      }
      if (!moved) await this.idle(signal);
    }
  }

  private async idle(signal: AbortSignal): Promise<void> {
    await Promise.race([sleep(this.opts.pollMs, signal), new Promise<void>((r) => this.wakers.push(r))]);
    this.wakers = [];
  }

  /** One step: returns whether the lane moved. */
  private async step(signal: AbortSignal): Promise<boolean> {
    const chainId = this.modules.chainId();
    if (chainId === null || !this.modules.enabled()) return false;
    const {sql, kind} = this.modules;
    const col = kind.column;
    const [row] = await sql.query<{head: bigint | null; pos: bigint; reorgs: bigint}>(
      `SELECT head_number AS head, ${col} AS pos, reorgs FROM evm_chains WHERE chain_id = $1`,
      [chainId],
    );
    if (!row) return false;
    const pos = BigInt(row.pos);
    this.covered = pos;
    const head = row.head === null ? -1n : BigInt(row.head);
    this.notify();
    if (pos >= head) return false;
    const from = pos + 1n;
    const to = head < from + BigInt(kind.maxBlocks) - 1n ? head : from + BigInt(kind.maxBlocks) - 1n;
    const work = await kind.prepare(chainId, from, to, signal);
    if (signal.aborted) return false;
    await sql.transaction(async (tx) => {
      // The chain's row first, locked, as the head's writes and rollbackTo take it (write.ts lockChainRow): the
      // rows the lane writes are locked after it, in the same order as theirs, so no two of them deadlock. A
      // rollback that took it first makes this refused before anything is written.
      const current = await tx.query(
        `SELECT 1 AS current FROM evm_chains WHERE chain_id = $1 AND ${col} = $2 AND reorgs = $3 FOR UPDATE`,
        [chainId, pos, row.reorgs],
      );
      if (current.length === 0) throw new Superseded();
      await work.write(tx);
      await tx.query(`UPDATE evm_chains SET ${col} = $2 WHERE chain_id = $1`, [chainId, work.to]);
    });
    work.committed?.();
    this.covered = work.to;
    this.notify();
    return true;
  }

  private notify(): void {
    this.waiters.splice(0).forEach((w) => w());
  }
}
