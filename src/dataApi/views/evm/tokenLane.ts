/**
 * The token lane (lanes.ts): the kind and metadata of each token contract that a folded block's transfers show for
 * the first time, read by eth_call (src/dataApi/evm/tokenMetadata.ts) behind the head. Until the lane covers a
 * block, its new tokens have no evm_tokens row: reads show their transfers and balances without name, symbol or
 * decimals (the LEFT JOINs of src/dataApi/queries/evm/), then with them.
 */
import {bytesToHex} from "../../../evm/hex.js";
import type {SqlClient} from "../../store/sql.js";
import type {LaneKind, LaneWork} from "./lanes.js";
import {writeTokens, type TokenInfo} from "./write.js";

/** Reads a token contract's kind and metadata; the kind its first transfer log suggests when it claims none. */
export type TokenInfoReader = (address: Uint8Array, seenAs: 20 | 721 | 1155, signal: AbortSignal) => Promise<TokenInfo>;

export interface TokenLaneOptions {
  maxBlocks: number;
  /** Most new tokens read in one step (each is eight eth_calls, all at once). */
  maxTokens: number;
}

export const defaultTokenLaneOptions: TokenLaneOptions = {maxBlocks: 1000, maxTokens: 32};

interface Seen {
  token: Uint8Array;
  erc: 20 | 721 | 1155;
  block_number: bigint;
}

export class TokenLane implements LaneKind {
  readonly name = "tokens";
  readonly column = "token_lane";
  readonly maxBlocks: number;

  constructor(
    private readonly opts: TokenLaneOptions,
    private readonly modules: {sql: SqlClient; tokenInfo: TokenInfoReader},
  ) {
    this.maxBlocks = opts.maxBlocks;
  }

  async prepare(chainId: string, from: bigint, to: bigint, signal: AbortSignal): Promise<LaneWork> {
    // The first transfer of each token in the range that has no row yet, in chain order (its kind as first seen).
    const seen = await this.modules.sql.query<Seen>(
      `SELECT token, erc, block_number FROM (
         SELECT DISTINCT ON (tr.token) tr.token, tr.erc, tr.block_number, tr.log_index, tr.item FROM evm_transfers tr
         WHERE tr.chain_id = $1 AND tr.block_number BETWEEN $2 AND $3
           AND NOT EXISTS (SELECT 1 FROM evm_tokens tk WHERE tk.chain_id = $1 AND tk.address = tr.token)
         ORDER BY tr.token, tr.block_number, tr.log_index, tr.item) f
       ORDER BY block_number, log_index, item LIMIT $4`,
      [chainId, from, to, this.opts.maxTokens + 1],
    );
    let upTo = to;
    let take = seen;
    if (seen.length > this.opts.maxTokens) {
      // Too many at once: up to the block before the first one left over, or that whole block if it is the first.
      const over = BigInt(seen[this.opts.maxTokens]!.block_number);
      upTo = over > from ? over - 1n : from;
      take = over > from ? seen.filter((s) => BigInt(s.block_number) <= upTo) : await this.allOf(chainId, from);
    }
    const read = await Promise.all(
      take.map(async (s) => ({address: s.token, ...(await this.modules.tokenInfo(s.token, s.erc, signal))})),
    );
    return {to: upTo, write: (tx) => writeTokens(tx, chainId, dedupe(read))};
  }

  /** Every new token of one block. */
  private async allOf(chainId: string, block: bigint): Promise<Seen[]> {
    return this.modules.sql.query<Seen>(
      `SELECT DISTINCT ON (tr.token) tr.token, tr.erc, tr.block_number FROM evm_transfers tr
       WHERE tr.chain_id = $1 AND tr.block_number = $2
         AND NOT EXISTS (SELECT 1 FROM evm_tokens tk WHERE tk.chain_id = $1 AND tk.address = tr.token)
       ORDER BY tr.token, tr.log_index, tr.item`,
      [chainId, block],
    );
  }
}

function dedupe<T extends {address: Uint8Array}>(rows: T[]): T[] {
  const out = new Map<string, T>();
  for (const r of rows) if (!out.has(bytesToHex(r.address))) out.set(bytesToHex(r.address), r);
  return [...out.values()];
}
