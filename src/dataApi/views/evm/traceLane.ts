/**
 * The trace lane (lanes.ts): the call traces of folded blocks (`debug_traceBlockByHash` with `callTracer`, so the
 * trace is of the very block stored; `debug_traceBlockByNumber` on a node without it, each trace then checked
 * against the stored transaction hashes), folded into internal transactions, the contracts contracts deployed and
 * the internal bit of who took part. A block without transactions has nothing to trace (and geth-based nodes
 * cannot trace the genesis block at all). Until the lane covers a block, reads show no internal transactions of it,
 * and an address that took part in one of its transactions only through an internal call does not list it yet.
 */
import {bytesToHex, toQuantity} from "../../../evm/hex.js";
import type {EvmRpc, RpcCall} from "../../../evm/rpc.js";
import type {Logger} from "../../../logger/index.js";
import type {SqlClient, SqlTx} from "../../store/sql.js";
import {deriveTraces, type TracedTx} from "./derive.js";
import type {LaneKind, LaneWork} from "./lanes.js";
import {writeTraces} from "./write.js";

export interface TraceLaneOptions {
  /** Most blocks looked at in one step. */
  maxBlocks: number;
  /** Most blocks traced in one step (busy blocks make large answers). */
  maxTraced: number;
  /** Blocks traced in one JSON-RPC batch; the batches of a step go out at once. */
  batchBlocks: number;
  /**
   * Steps in a row in which the node answers a block's trace with an error, or with a trace that does not fit the
   * block, before the block is left untraced: the node's answer, not an outage, so retrying for ever would hold the
   * lane at that block (and every internal transaction after it) for good.
   */
  maxAttempts: number;
}

export const defaultTraceLaneOptions: TraceLaneOptions = {
  maxBlocks: 1000,
  maxTraced: 50,
  batchBlocks: 5,
  maxAttempts: 8,
};

/** Where the blocks left untraced are recorded (data_api_meta), newest last, at most UNTRACED_KEPT. */
export const untracedKey = (chainId: string): string => `evm.untraced.${chainId}`;
const UNTRACED_KEPT = 100;

/** A block whose trace the node refused or answered unusably: its error, counted against maxAttempts. */
class UntraceableBlock extends Error {
  constructor(
    readonly number: bigint,
    message: string,
  ) {
    super(`block ${number}: ${message}`);
  }
}

const METHOD_NOT_FOUND = -32601;
const CALL_TRACER = {tracer: "callTracer"};

interface StoredBlock {
  number: bigint;
  hash: Uint8Array;
}

export class TraceLane implements LaneKind {
  readonly name = "traces";
  readonly column = "trace_lane";
  readonly maxBlocks: number;
  private byHash = true;
  /** Blocks whose traces failed, and in how many steps: each failing block of a step counts one. */
  private readonly attempts = new Map<bigint, number>();
  /** Blocks this process left untraced (their record is in data_api_meta). */
  skipped = 0;

  constructor(
    private readonly opts: TraceLaneOptions,
    private readonly modules: {sql: SqlClient; rpc: EvmRpc; logger: Logger},
  ) {
    this.maxBlocks = opts.maxBlocks;
  }

  async prepare(chainId: string, from: bigint, to: bigint, signal: AbortSignal): Promise<LaneWork> {
    const {sql} = this.modules;
    let blocks = await sql.query<StoredBlock>(
      "SELECT number, hash FROM evm_blocks WHERE chain_id = $1 AND number BETWEEN $2 AND $3 AND tx_count > 0 ORDER BY number LIMIT $4",
      [chainId, from, to, this.opts.maxTraced + 1],
    );
    let upTo = to;
    if (blocks.length > this.opts.maxTraced) {
      upTo = BigInt(blocks[this.opts.maxTraced]!.number) - 1n;
      blocks = blocks.slice(0, this.opts.maxTraced);
    }
    if (blocks.length === 0) return {to: upTo, write: async () => {}};
    const txRows = await sql.query<{block_number: bigint; hash: Uint8Array; from_addr: Uint8Array; status: number}>(
      "SELECT block_number, hash, from_addr, status FROM evm_txs WHERE chain_id = $1 AND block_number = ANY($2::int8[]) ORDER BY block_number, tx_index",
      [chainId, blocks.map((b) => b.number)],
    );
    const txs = new Map<bigint, TracedTx[]>();
    for (const t of txRows) {
      const n = BigInt(t.block_number);
      if (!txs.has(n)) txs.set(n, []);
      txs.get(n)!.push({hash: t.hash, from: t.from_addr, status: t.status});
    }
    const traces = await this.trace(blocks, signal);
    const failed: UntraceableBlock[] = [];
    const derived = blocks.map((b, i) => {
      const n = BigInt(b.number);
      const t = traces[i]!;
      try {
        if (t instanceof UntraceableBlock) throw t;
        return {number: n, traced: deriveTraces(n, t, txs.get(n) ?? [])};
      } catch (e) {
        failed.push(e instanceof UntraceableBlock ? e : new UntraceableBlock(n, (e as Error).message));
        return {number: n, traced: {internals: [], contracts: [], addressKinds: new Map<string, number>()}};
      }
    });
    // Every failing block of the step counts a step (so two such blocks of one step both reach the limit), and the
    // step is retried while any of them has steps left; once none has, all of them are left untraced together.
    for (const f of failed)
      if (!transient(f.message)) this.attempts.set(f.number, (this.attempts.get(f.number) ?? 0) + 1);
    const retry = failed.find((f) => (this.attempts.get(f.number) ?? 0) < this.opts.maxAttempts);
    if (retry) throw retry;
    const untraced = failed.map((f) => ({number: f.number.toString(), reason: f.message}));
    return {
      to: upTo,
      write: async (tx) => {
        await writeTraces(tx, chainId, derived);
        if (untraced.length > 0) await recordUntraced(tx, chainId, untraced);
      },
      // Counted and logged once written: a step whose commit is refused (a reorg) is read again.
      committed: () => {
        for (const f of failed) {
          this.attempts.delete(f.number);
          this.skipped++;
          this.modules.logger.warn(
            {rpc: this.modules.rpc.label, block: f.number.toString(), attempts: this.opts.maxAttempts, err: f.message},
            "EVM trace lane: the node does not trace this block; its internal transactions are left out",
          );
        }
        for (const n of this.attempts.keys()) if (n <= upTo) this.attempts.delete(n);
      },
    };
  }

  /** The traces of `blocks`, in order; a node's refusal to trace a block throws (the lane retries). */
  private async trace(blocks: StoredBlock[], signal: AbortSignal): Promise<unknown[]> {
    const {rpc, logger} = this.modules;
    const byHash = this.byHash;
    const call = (b: StoredBlock): RpcCall =>
      byHash
        ? {method: "debug_traceBlockByHash", params: ["0x" + bytesToHex(b.hash), CALL_TRACER]}
        : {method: "debug_traceBlockByNumber", params: [toQuantity(BigInt(b.number)), CALL_TRACER]};
    const batches: StoredBlock[][] = [];
    for (let i = 0; i < blocks.length; i += this.opts.batchBlocks)
      batches.push(blocks.slice(i, i + this.opts.batchBlocks));
    const res = (await Promise.all(batches.map((bs) => rpc.batch(bs.map(call), signal)))).flat();
    if (byHash && res.some((r) => !r.ok && r.error.code === METHOD_NOT_FOUND)) {
      this.byHash = false;
      logger.info({rpc: rpc.label}, "EVM RPC has no debug_traceBlockByHash: tracing blocks by number");
      return this.trace(blocks, signal);
    }
    // A JSON-RPC error for one block is the node's answer about that block (pruned state, a tracer's limit);
    // a failure of the whole exchange (transport, HTTP) threw above, and is retried without counting.
    return res.map((r, i) => (r.ok ? r.result : new UntraceableBlock(BigInt(blocks[i]!.number), r.error.message)));
  }
}

/**
 * A provider's answer about itself, not the block (a rate limit, a quota: EIP-1474's -32005 "limit exceeded" is
 * answered by message too): it never counts against the block's attempts.
 */
function transient(message: string): boolean {
  return /rate.?limit|limit exceeded|quota|too many requests|capacity/i.test(message);
}

/** Adds blocks left untraced to the chain's record, keeping the newest UNTRACED_KEPT. */
async function recordUntraced(
  tx: SqlTx,
  chainId: string,
  blocks: Array<{number: string; reason: string}>,
): Promise<void> {
  const [row] = await tx.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = $1", [
    untracedKey(chainId),
  ]);
  const kept = [...(row ? (JSON.parse(row.value) as typeof blocks) : []), ...blocks].slice(-UNTRACED_KEPT);
  await tx.query(
    "INSERT INTO data_api_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    [untracedKey(chainId), JSON.stringify(kept)],
  );
}
