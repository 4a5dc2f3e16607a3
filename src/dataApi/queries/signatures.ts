/**
 * What signature aggregation reads of the P-chain's view (routes/signatures.ts): a P-chain transaction that carries
 * a warp message's facts, and an L1 validator's current state.
 */
import type {SqlClient} from "../store/sql.js";

/** The facts of a P-chain transaction its warp message is built from (txs.details, models/primary/pchain.ts). */
export interface WarpTxDetails {
  subnetId?: string;
  conversion?: {conversionId: string};
  l1Validator?: {validationId: string; nonce?: string | number; weight?: string | number};
}

export async function pChainTransaction(
  sql: SqlClient,
  txId: string,
): Promise<{tx_type: string; details: WarpTxDetails} | null> {
  const [tx] = await sql.query<{tx_type: string; details: WarpTxDetails}>(
    "SELECT tx_type, details FROM txs WHERE chain = 'P' AND tx_id = $1",
    [txId],
  );
  return tx ?? null;
}

/** An L1 validator's subnet, nonce and weight (a decimal string) now, or null when it is not known. */
export async function l1ValidatorState(
  sql: SqlClient,
  validationId: string,
): Promise<{subnet_id: string; nonce: bigint; weight: string} | null> {
  const [row] = await sql.query<{subnet_id: string; nonce: bigint; weight: string}>(
    "SELECT subnet_id, nonce, weight::text AS weight FROM l1_validators WHERE validation_id = $1",
    [validationId],
  );
  return row ?? null;
}
