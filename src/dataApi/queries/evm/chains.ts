/** The followed EVM chains as the store holds them (evm_chains, written by src/dataApi/views/evm/follower.ts). */
import type {SqlClientLike} from "../primary/common.js";

/** A chain's row: src/dataApi/evm/chains.ts `StoredChainState`. */
export interface StoredChainRow {
  chainId: string;
  blockchainId: string | null;
  head: bigint | null;
  traces: boolean;
}

/** Every chain's row: how a `serve` process, which runs no follower, knows the chains' heads (EvmChains.refresh). */
export async function storedChainStates(sql: SqlClientLike): Promise<StoredChainRow[]> {
  const rows = await sql.query<{chain_id: string; blockchain_id: string | null; head_number: bigint | null; traces: boolean}>(
    "SELECT chain_id, blockchain_id, head_number, traces FROM evm_chains",
  );
  return rows.map((r) => ({chainId: r.chain_id, blockchainId: r.blockchain_id, head: r.head_number, traces: r.traces}));
}
