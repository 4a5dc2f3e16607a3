/** The followed EVM chains as the store holds them (evm_chains, written by src/dataApi/views/evm/follower.ts), and the names the P-chain gave them. */
import type {SqlClientLike} from "../primary/common.js";
import type {SqlClient} from "../../store/sql.js";

/** A chain's row: src/dataApi/evm/chains.ts `StoredChainState`. */
export interface StoredChainRow {
  chainId: string;
  blockchainId: string | null;
  head: bigint | null;
  traces: boolean;
}

/** Every chain's row: how a `serve` process, which runs no follower, knows the chains' heads (EvmChains.refresh). */
export async function storedChainStates(sql: SqlClientLike): Promise<StoredChainRow[]> {
  const rows = await sql.query<{
    chain_id: string;
    blockchain_id: string | null;
    head_number: bigint | null;
    traces: boolean;
  }>("SELECT chain_id, blockchain_id, head_number, traces FROM evm_chains");
  return rows.map((r) => ({chainId: r.chain_id, blockchainId: r.blockchain_id, head: r.head_number, traces: r.traces}));
}

/** The names the P-chain gave these blockchains, by blockchain ID. */
export async function blockchainNames(sql: SqlClient, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.query<{blockchain_id: string; name: string}>(
    "SELECT blockchain_id, name FROM blockchains WHERE blockchain_id = ANY($1)",
    [ids],
  );
  return new Map(rows.map((r) => [r.blockchain_id, r.name]));
}
