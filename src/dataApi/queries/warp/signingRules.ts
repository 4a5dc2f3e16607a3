/**
 * What the dev network's signing rules (src/dev/signingRules.ts) check against the store: a message
 * an EVM chain sent, a subnet's L1 conversion, an L1 validator's registration, weight and nonce.
 */
import type {SqlClient} from "../../store/sql.js";

/** Whether a followed chain sent the message whose ID (sha256 of its unsigned bytes) is `messageId`. */
export async function warpMessageSent(sql: SqlClient, messageId: Uint8Array): Promise<boolean> {
  const rows = await sql.query<{chain_id: string}>("SELECT chain_id FROM warp_messages WHERE message_id = $1", [
    messageId,
  ]);
  return rows.length > 0;
}

/** The conversion ID the subnet was converted to an L1 with; null when it was not (or is not known). */
export async function subnetConversionId(sql: SqlClient, subnetId: string): Promise<string | null> {
  const [s] = await sql.query<{l1_conversion_id: string | null}>(
    "SELECT l1_conversion_id FROM subnets WHERE subnet_id = $1",
    [subnetId],
  );
  return s?.l1_conversion_id ?? null;
}

/** An L1 validator's current weight and nonce; null when the validation ID was never registered. */
export async function l1ValidatorState(
  sql: SqlClient,
  validationId: string,
): Promise<{weight: bigint; nonce: bigint} | null> {
  const [v] = await sql.query<{nonce: bigint | string; weight: string}>(
    "SELECT nonce, weight::text AS weight FROM l1_validators WHERE validation_id = $1",
    [validationId],
  );
  return v ? {weight: BigInt(v.weight), nonce: BigInt(v.nonce)} : null;
}
