/**
 * What the P-chain view's store holds of validator sets for warp signatures: the P-chain head, a block's time, a
 * subnet's L1 state, an L1's validators, the validators staking on a subnet at a time, a blockchain's subnet. The
 * canonical sets are built from them by src/dataApi/signatures/validatorSets.ts.
 */
import type {SqlClient} from "../../store/sql.js";

/** A validator's row: its node, its weight (decimal text), its BLS key when it has one. */
export interface ValidatorRow {
  node_id: string;
  weight: string;
  bls: {publicKey: string} | null;
}

/** The last folded P-chain block's height and time; null when the view has folded none. */
export async function pChainHead(sql: SqlClient): Promise<{height: bigint; ts: bigint} | null> {
  const [head] = await sql.query<{height: bigint; ts: bigint}>(
    "SELECT height, ts FROM blocks WHERE chain = 'P' ORDER BY height DESC LIMIT 1",
  );
  return head ?? null;
}

/** The time of the P-chain block at `height`; null when the view holds none there. */
export async function pChainBlockTs(sql: SqlClient, height: bigint): Promise<bigint | null> {
  const [block] = await sql.query<{ts: bigint}>("SELECT ts FROM blocks WHERE chain = 'P' AND height = $1", [height]);
  return block?.ts ?? null;
}

/** Whether the subnet was converted to an L1 (false for an unknown subnet). */
export async function subnetIsL1(sql: SqlClient, subnetId: string): Promise<boolean> {
  const [subnet] = await sql.query<{is_l1: boolean}>("SELECT is_l1 FROM subnets WHERE subnet_id = $1", [subnetId]);
  return subnet?.is_l1 === true;
}

/** An L1's validators with weight (a removed one has none): active ones sign, inactive ones' weight counts. */
export async function l1ValidatorRows(
  sql: SqlClient,
  subnetId: string,
): Promise<Array<ValidatorRow & {active: boolean}>> {
  return sql.query<ValidatorRow & {active: boolean}>(
    "SELECT node_id, weight::text AS weight, bls, active FROM l1_validators WHERE subnet_id = $1 AND weight > 0",
    [subnetId],
  );
}

/**
 * The validators staking on `subnetId` at time `ts`. Genesis and permissionless validators carry their BLS key; a
 * subnet validator signs with its key on `primarySubnetId`. A validator's weight is its stake plus its delegators'
 * then (AvalancheGo's validator set, which warp counts).
 */
export async function subnetValidatorRowsAt(
  sql: SqlClient,
  subnetId: string,
  primarySubnetId: string,
  ts: bigint,
): Promise<ValidatorRow[]> {
  return sql.query<ValidatorRow>(
    `SELECT s.node_id, (s.weight + COALESCE((SELECT sum(d.weight) FROM stakers d WHERE d.validator_tx_id = s.tx_id AND d.kind = 'delegator'
                                              AND d.start_ts <= $3 AND d.end_ts > $3), 0))::text AS weight,
            COALESCE(s.bls, p.bls) AS bls FROM stakers s
     LEFT JOIN LATERAL (SELECT bls FROM stakers p WHERE p.node_id = s.node_id AND p.subnet_id = $2 AND p.kind = 'validator' AND p.bls IS NOT NULL
                        AND p.start_ts <= $3 AND p.end_ts > $3 LIMIT 1) p ON true
     WHERE s.subnet_id = $1 AND s.kind = 'validator' AND s.start_ts <= $3 AND s.end_ts > $3`,
    [subnetId, primarySubnetId, ts],
  );
}

/** The subnet a blockchain was created on; null when the view does not know the chain. */
export async function subnetOfBlockchain(sql: SqlClient, blockchainId: string): Promise<string | null> {
  const [row] = await sql.query<{subnet_id: string}>("SELECT subnet_id FROM blockchains WHERE blockchain_id = $1", [
    blockchainId,
  ]);
  return row?.subnet_id ?? null;
}
