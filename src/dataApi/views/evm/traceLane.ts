/**
 * The trace lane (lanes.ts): the call traces of folded blocks (`debug_traceBlockByHash` with `callTracer`, so the
 * trace is of the very block stored; `debug_traceBlockByNumber` on a node without it, each trace then checked
 * against the stored transaction hashes), folded into internal transactions, the contracts contracts deployed and
 * the internal bit of who took part. A block without transactions has nothing to trace (and geth-based nodes
 * cannot trace the genesis block at all). Until the lane covers a block, reads show no internal transactions of it,
 * and an address that took part in one of its transactions only through an internal call does not list it yet.
 */
import {bytesToHex, toQuantity} from "../../../evm/hex.js";
import {RpcError, type EvmRpc, type RpcCall} from "../../../evm/rpc.js";
import type {Logger} from "../../../logger/index.js";
import type {SqlClient} from "../../store/client.js";
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
}

export const defaultTraceLaneOptions: TraceLaneOptions = {maxBlocks: 1000, maxTraced: 50, batchBlocks: 5};

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
    const derived = blocks.map((b, i) => {
      const n = BigInt(b.number);
      return {number: n, traced: deriveTraces(n, traces[i], txs.get(n) ?? [])};
    });
    return {to: upTo, write: (tx) => writeTraces(tx, chainId, derived)};
  }

  /** The traces of `blocks`, in order; a node's refusal to trace a block throws (the lane retries). */
  private async trace(blocks: StoredBlock[], signal: AbortSignal): Promise<unknown[]> {
    const {rpc, logger} = this.modules;
    const byHash = this.byHash;
    const call = (b: StoredBlock): RpcCall =>
      byHash ? {method: "debug_traceBlockByHash", params: ["0x" + bytesToHex(b.hash), CALL_TRACER]} : {method: "debug_traceBlockByNumber", params: [toQuantity(BigInt(b.number)), CALL_TRACER]};
    const batches: StoredBlock[][] = [];
    for (let i = 0; i < blocks.length; i += this.opts.batchBlocks) batches.push(blocks.slice(i, i + this.opts.batchBlocks));
    const res = (await Promise.all(batches.map((bs) => rpc.batch(bs.map(call), signal)))).flat();
    if (byHash && res.some((r) => !r.ok && r.error.code === METHOD_NOT_FOUND)) {
      this.byHash = false;
      logger.info({rpc: rpc.label}, "EVM RPC has no debug_traceBlockByHash: tracing blocks by number");
      return this.trace(blocks, signal);
    }
    return res.map((r, i) => {
      if (!r.ok) throw new RpcError(`tracing block ${blocks[i]!.number}: ${r.error.message}`, "rpc", r.error.code);
      return r.result;
    });
  }
}
