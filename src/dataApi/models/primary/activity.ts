/** The last activity of a set of addresses on a primary-network chain (Glacier `LastActivityTimestamp`). */
import {num, type DbNum} from "./common.js";

export interface LastActivityTimestamp {
  /** Unix seconds of the transaction that created or consumed one of the addresses' UTXOs. */
  timestamp: number;
  /** Its block's height (the vertex's, for a transaction of the X-chain's DAG). */
  blockNumber: string;
  txHash: string;
  utxoId: string;
  isConsumed: boolean;
  chainName: "p-chain" | "x-chain" | "c-chain";
  network: string;
}

export interface ActivityRow {
  tx_id: string;
  ts: DbNum;
  block_height: DbNum;
  utxo_id: string;
  consumed: boolean;
}

export function lastActivityFromRow(
  r: ActivityRow,
  chainName: LastActivityTimestamp["chainName"],
  network: string,
): LastActivityTimestamp {
  return {
    timestamp: num(r.ts),
    blockNumber: String(r.block_height),
    txHash: r.tx_id,
    utxoId: r.utxo_id,
    isConsumed: r.consumed,
    chainName,
    network,
  };
}
