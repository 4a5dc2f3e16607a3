/**
 * The EVM follower's own rows: its chain's `evm_chains` row (the head it folded, whether it has traces) and the
 * stored blocks' hashes it checks a reorg against. follower.ts decides; write.ts writes the blocks themselves.
 */
import type {SqlClient} from "../../store/sql.js";

/** The head the store folded, with the chain's transaction count up to it. */
export interface StoredHead {
  number: bigint;
  hash: Uint8Array;
  cumulativeTxs: bigint;
}

/**
 * The chain's stored head: undefined when the chain has no row yet, null when it has one but no block folded.
 */
export async function storedHead(sql: SqlClient, chainId: string): Promise<StoredHead | null | undefined> {
  const rows = await sql.query<{head_number: bigint | null; head_hash: Uint8Array | null}>(
    "SELECT head_number, head_hash FROM evm_chains WHERE chain_id = $1",
    [chainId],
  );
  const r = rows[0];
  if (r === undefined) return undefined;
  if (r.head_number == null || r.head_hash == null) return null;
  const number = BigInt(r.head_number);
  const c = await sql.query<{cumulative_txs: bigint}>(
    "SELECT cumulative_txs FROM evm_blocks WHERE chain_id = $1 AND number = $2",
    [chainId, number],
  );
  return {number, hash: r.head_hash, cumulativeTxs: BigInt(c[0]?.cumulative_txs ?? 0n)};
}

/** The chain's row, made when the follower first meets it. */
export async function registerChain(sql: SqlClient, chainId: string, blockchainId: string | null): Promise<void> {
  await sql.query(
    "INSERT INTO evm_chains (chain_id, blockchain_id, updated_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
    [chainId, blockchainId, BigInt(Math.floor(Date.now() / 1000))],
  );
}

/** Whether the chain's RPC serves call traces, and its blockchain ID once known. */
export async function setChainInfo(
  sql: SqlClient,
  chainId: string,
  traces: boolean,
  blockchainId: string | null,
): Promise<void> {
  await sql.query(
    "UPDATE evm_chains SET traces = $2, blockchain_id = COALESCE($3, blockchain_id) WHERE chain_id = $1",
    [chainId, traces, blockchainId],
  );
}

/** The stored hash of block `n`, if the store holds it. */
export async function storedHash(sql: SqlClient, chainId: string, n: bigint): Promise<Uint8Array | null> {
  return (await storedHashes(sql, chainId, n, n))[0]?.hash ?? null;
}

/** The stored blocks' hashes from `high` down to `low`. */
export async function storedHashes(
  sql: SqlClient,
  chainId: string,
  low: bigint,
  high: bigint,
): Promise<Array<{number: bigint; hash: Uint8Array}>> {
  return sql.query<{number: bigint; hash: Uint8Array}>(
    "SELECT number, hash FROM evm_blocks WHERE chain_id = $1 AND number BETWEEN $2 AND $3 ORDER BY number DESC",
    [chainId, low, high],
  );
}
