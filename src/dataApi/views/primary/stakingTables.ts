/**
 * The staking fold's tables, one writer per family: `stakers` with `staker_addresses`, `l1_validators` with
 * `l1_validation_txs`, `subnets` with `blockchains`, and the staking transactions' UTXOs and rewards. Each holds
 * its row types and every statement the fold makes on those tables (schema.ts has their columns); stakingFold.ts
 * decides what changes and calls these.
 */
import {bulkInsert, type BulkColumn} from "../../store/bulk.js";
import type {SqlTx} from "../../store/sql.js";
import {TX_ADDRESS_COLUMNS, UNSPENT_OWNED_COLUMNS, UTXO_ADDRESS_COLUMNS, UTXO_CREATE_COLUMNS} from "./rows.js";

/** A `stakers` row as the fold reads it back. */
export interface StakerRow {
  tx_id: string;
  kind: string;
  node_id: string;
  subnet_id: string;
  start_ts: bigint | string;
  end_ts: bigint | string;
  weight: string;
  potential_reward: string;
  delegation_shares: number;
  reward_owner: unknown;
  delegation_reward_owner: unknown;
  validator_tx_id: string | null;
  accrued_delegatee_reward: string | null;
  output_count: number | null;
}

/** A new staker (status `current`; `pendingPriority` set while it waits in the pending set). */
export interface NewStaker {
  txId: string;
  kind: string;
  nodeId: string;
  subnetId: string;
  startTs: bigint;
  endTs: bigint;
  weight: bigint;
  potentialReward: bigint;
  delegationShares: number;
  /** Owners as stored (rows.ts ownerJson), JSON text. */
  rewardOwner: string;
  delegationRewardOwner: string;
  bls: string | null;
  validatorTxId: string | null;
  outputCount: number;
  pendingPriority: number | null;
}

/** Whose pending reward a staker is: its reward owners, or its validator's fee owners (VALIDATOR_FEE). */
export type StakerRole = "VALIDATOR" | "DELEGATOR" | "VALIDATOR_FEE";

const STAKER_ADDRESS_COLUMNS: BulkColumn[] = [
  {name: "address", type: "bytea"},
  {name: "tx_id", type: "text"},
  {name: "role", type: "text"},
];

export const stakersTable = {
  async insert(tx: SqlTx, s: NewStaker): Promise<void> {
    await tx.query(
      `INSERT INTO stakers (tx_id, kind, node_id, subnet_id, start_ts, end_ts, weight, potential_reward, delegation_shares,
         reward_owner, delegation_reward_owner, bls, status, validator_tx_id, output_count, pending_priority)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'current', $13, $14, $15) ON CONFLICT DO NOTHING`,
      [
        s.txId,
        s.kind,
        s.nodeId,
        s.subnetId,
        s.startTs,
        s.endTs,
        s.weight.toString(),
        s.potentialReward.toString(),
        s.delegationShares,
        s.rewardOwner,
        s.delegationRewardOwner,
        s.bls,
        s.validatorTxId,
        s.outputCount,
        s.pendingPriority,
      ],
    );
  },

  /** Who sees a staker's reward in the pending list: [address, staking tx ID, role]. */
  async insertAddresses(tx: SqlTx, rows: Array<[Uint8Array, string, StakerRole]>): Promise<void> {
    await bulkInsert(tx, "staker_addresses", STAKER_ADDRESS_COLUMNS, rows, {onConflict: "DO NOTHING"});
  },

  /** A staker whose proposal was aborted: it never was. */
  async delete(tx: SqlTx, txId: string): Promise<void> {
    await tx.query("DELETE FROM staker_addresses WHERE tx_id = $1", [txId]);
    await tx.query("DELETE FROM stakers WHERE tx_id = $1", [txId]);
  },

  async byTx(tx: SqlTx, txId: string): Promise<StakerRow | null> {
    const rows = await tx.query<StakerRow>("SELECT * FROM stakers WHERE tx_id = $1", [txId]);
    return rows[0] ?? null;
  },

  /** The staking tx of the node's current primary validator (the latest ending one): a delegator's validator. */
  async currentValidatorTx(tx: SqlTx, nodeId: string, subnetId: string): Promise<string | null> {
    const v = await tx.query<{tx_id: string}>(
      "SELECT tx_id FROM stakers WHERE node_id = $1 AND subnet_id = $2 AND kind = 'validator' AND status = 'current' ORDER BY end_ts DESC LIMIT 1",
      [nodeId, subnetId],
    );
    return v[0]?.tx_id ?? null;
  },

  /** A validator's delegation fee share and the owner it pays the fee to. */
  async delegationTerms(
    tx: SqlTx,
    txId: string,
  ): Promise<{delegationShares: number; delegationRewardOwner: unknown} | null> {
    const v = await tx.query<{delegation_shares: number; delegation_reward_owner: unknown}>(
      "SELECT delegation_shares, delegation_reward_owner FROM stakers WHERE tx_id = $1",
      [txId],
    );
    return v[0]
      ? {delegationShares: v[0].delegation_shares, delegationRewardOwner: v[0].delegation_reward_owner}
      : null;
  },

  /** The pending stakers whose start the chain time `time` reaches. */
  async pendingStarted(tx: SqlTx, time: bigint): Promise<Array<StakerRow & {pending_priority: number}>> {
    return tx.query<StakerRow & {pending_priority: number}>(
      "SELECT * FROM stakers WHERE pending_priority IS NOT NULL AND start_ts <= $1",
      [time],
    );
  },

  /** A pending staker entered the current set with its potential reward. */
  async promote(tx: SqlTx, txId: string, potentialReward: bigint): Promise<void> {
    await tx.query("UPDATE stakers SET potential_reward = $2::numeric, pending_priority = NULL WHERE tx_id = $1", [
      txId,
      potentialReward.toString(),
    ]);
  },

  async setAccruedDelegateeReward(tx: SqlTx, txId: string, amount: bigint): Promise<void> {
    await tx.query("UPDATE stakers SET accrued_delegatee_reward = $2::numeric WHERE tx_id = $1", [
      txId,
      amount.toString(),
    ]);
  },

  /** A RewardValidatorTx decided the staker's end: `rewarded` (committed) or `aborted`. */
  async settle(tx: SqlTx, txId: string, status: "rewarded" | "aborted", rewardTxId: string): Promise<void> {
    await tx.query("UPDATE stakers SET status = $2, reward_tx_id = $3 WHERE tx_id = $1", [txId, status, rewardTxId]);
  },

  /** A RemoveSubnetValidatorTx: the permissioned validator leaves the current set, with no reward. */
  async removeSubnetValidator(tx: SqlTx, subnetId: string, nodeId: string, removeTxId: string): Promise<void> {
    await tx.query(
      "UPDATE stakers SET status = 'removed', remove_tx_id = $3 " +
        "WHERE subnet_id = $1 AND node_id = $2 AND kind = 'subnetValidator' AND status = 'current'",
      [subnetId, nodeId, removeTxId],
    );
  },
};

/** An active L1 validator as the fee's time advance reads it. */
export interface ActiveL1Validator {
  validationId: string;
  endAccumulatedFee: bigint;
  nodeId: string;
  subnetId: string;
  weight: bigint;
}

/** A stored L1 validator as a change to it reads it. */
export interface L1ValidatorRow {
  subnetId: string;
  nodeId: string;
  weight: bigint;
  endAccumulatedFee: bigint;
  remainingBalanceOwner: unknown;
}

/** A converted or registered L1 validator; owners and BLS as stored (JSON text). */
export interface NewL1Validator {
  validationId: string;
  subnetId: string;
  nodeId: string;
  weight: bigint;
  balance: bigint;
  bls: string | null;
  remainingBalanceOwner: string;
  deactivationOwner: string;
  createdTx: string;
  createdTs: bigint;
  /** Its `end_accumulated_fee` (l1.ts): active when not 0. */
  endAccumulatedFee: bigint;
}

export const l1ValidatorsTable = {
  async active(tx: SqlTx): Promise<ActiveL1Validator[]> {
    const rows = await tx.query<{
      validation_id: string;
      end_accumulated_fee: string | bigint;
      node_id: string;
      subnet_id: string;
      weight: string;
    }>("SELECT validation_id, end_accumulated_fee, node_id, subnet_id, weight FROM l1_validators WHERE active");
    return rows.map((r) => ({
      validationId: r.validation_id,
      endAccumulatedFee: BigInt(r.end_accumulated_fee),
      nodeId: r.node_id,
      subnetId: r.subnet_id,
      weight: BigInt(r.weight),
    }));
  },

  async countActive(tx: SqlTx): Promise<number> {
    const n = await tx.query<{n: bigint | string | number}>("SELECT count(*) AS n FROM l1_validators WHERE active");
    return Number(n[0]?.n ?? 0);
  },

  async byValidationId(tx: SqlTx, validationId: string): Promise<L1ValidatorRow | null> {
    const rows = await tx.query<{
      subnet_id: string;
      node_id: string;
      weight: string;
      end_accumulated_fee: string | bigint;
      remaining_balance_owner: unknown;
    }>(
      "SELECT subnet_id, node_id, weight, end_accumulated_fee, remaining_balance_owner FROM l1_validators WHERE validation_id = $1",
      [validationId],
    );
    const r = rows[0];
    return r
      ? {
          subnetId: r.subnet_id,
          nodeId: r.node_id,
          weight: BigInt(r.weight),
          endAccumulatedFee: BigInt(r.end_accumulated_fee),
          remainingBalanceOwner: r.remaining_balance_owner,
        }
      : null;
  },

  async insert(tx: SqlTx, v: NewL1Validator): Promise<void> {
    await tx.query(
      `INSERT INTO l1_validators (validation_id, subnet_id, node_id, weight, balance, bls, remaining_balance_owner, deactivation_owner, created_tx, created_ts,
         end_accumulated_fee, active)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
      [
        v.validationId,
        v.subnetId,
        v.nodeId,
        v.weight.toString(),
        v.balance.toString(),
        v.bls,
        v.remainingBalanceOwner,
        v.deactivationOwner,
        v.createdTx,
        v.createdTs,
        v.endAccumulatedFee.toString(),
        v.endAccumulatedFee !== 0n,
      ],
    );
  },

  /** Validators the fees ran out of balance: inactive, nothing left. */
  async deactivate(tx: SqlTx, validationIds: string[]): Promise<void> {
    await tx.query(
      "UPDATE l1_validators SET active = false, end_accumulated_fee = 0, balance = 0 WHERE validation_id = ANY($1::text[])",
      [validationIds],
    );
  },

  /** An IncreaseL1ValidatorBalanceTx: active again, with its new end and balance. */
  async fund(tx: SqlTx, validationId: string, endAccumulatedFee: bigint, balance: bigint): Promise<void> {
    await tx.query(
      "UPDATE l1_validators SET end_accumulated_fee = $2::numeric, balance = $3::numeric, active = true WHERE validation_id = $1",
      [validationId, endAccumulatedFee.toString(), balance.toString()],
    );
  },

  async setWeight(tx: SqlTx, validationId: string, weight: bigint, nonce: bigint): Promise<void> {
    await tx.query("UPDATE l1_validators SET weight = $2::numeric, nonce = $3 WHERE validation_id = $1", [
      validationId,
      weight.toString(),
      nonce,
    ]);
  },

  /** Disabled (`removedAtNonce` null) or removed by a weight of 0 at that nonce: inactive, nothing left. */
  async end(tx: SqlTx, validationId: string, removedAtNonce: bigint | null): Promise<void> {
    await tx.query(
      `UPDATE l1_validators SET active = false, end_accumulated_fee = 0, balance = 0${removedAtNonce !== null ? ", weight = 0, nonce = $2" : ""} WHERE validation_id = $1`,
      removedAtNonce !== null ? [validationId, removedAtNonce] : [validationId],
    );
  },

  /** A transaction about the validator, at its P-chain seq (its transactions list). */
  async addTx(tx: SqlTx, validationId: string, seq: bigint): Promise<void> {
    await tx.query("INSERT INTO l1_validation_txs (validation_id, seq) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
      validationId,
      seq,
    ]);
  },
};

export const subnetsTable = {
  /** A CreateSubnetTx's subnet; its owner as stored (JSON text). */
  async insert(tx: SqlTx, subnetId: string, createdTs: bigint, owner: string): Promise<void> {
    await tx.query(
      "INSERT INTO subnets (subnet_id, created_tx, created_ts, owner) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
      [subnetId, subnetId, createdTs, owner],
    );
  },

  async setOwner(tx: SqlTx, subnetId: string, owner: string): Promise<void> {
    await tx.query("UPDATE subnets SET owner = $2 WHERE subnet_id = $1", [subnetId, owner]);
  },

  /** A ConvertSubnetToL1Tx; the manager address as 0x-hex. */
  async convert(
    tx: SqlTx,
    subnetId: string,
    c: {chainId: string; manager: string; conversionId: string; ts: bigint},
  ): Promise<void> {
    await tx.query(
      "UPDATE subnets SET is_l1 = true, l1_chain_id = $2, l1_manager = $3, l1_conversion_id = $4, l1_converted_ts = $5 WHERE subnet_id = $1",
      [subnetId, c.chainId, c.manager, c.conversionId, c.ts],
    );
  },

  /** A CreateChainTx's blockchain. */
  async insertBlockchain(
    tx: SqlTx,
    b: {
      blockchainId: string;
      subnetId: string;
      name: string;
      vmId: string;
      genesisData: unknown;
      createdTs: bigint;
      createdHeight: bigint;
    },
  ): Promise<void> {
    await tx.query(
      "INSERT INTO blockchains (blockchain_id, subnet_id, name, vm_id, genesis_data, created_ts, created_height) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
      [b.blockchainId, b.subnetId, b.name, b.vmId, b.genesisData, b.createdTs, b.createdHeight],
    );
  },
};

/**
 * The UTXOs a staking transaction created (its outputs and stake), found where the index of creations (migration 12)
 * has them: at its seq on the P-chain, or at 0 for a genesis staker, which has no `txs` row.
 */
function stakingTxUtxos(txId: string, chainId: string): string {
  return `created_chain = ${chainId} AND created_seq = coalesce((SELECT seq FROM txs WHERE chain = 'P' AND tx_id = ${txId}), 0) AND tx_id = ${txId}`;
}

export const stakingTxUtxosTable = {
  /** An aborted proposal's stake outputs become plain UTXOs of the given types (locked, unlocked). */
  async unstake(
    tx: SqlTx,
    txId: string,
    chainIdP: string,
    types: {stakeableLocked: string; unlocked: string},
  ): Promise<void> {
    await tx.query(
      `UPDATE utxos SET staked = false, utxo_type = CASE WHEN stakeable_locktime <> 0 THEN $2 ELSE $3 END
        WHERE ${stakingTxUtxos("$1", "$4")} AND staked`,
      [txId, types.stakeableLocked, types.unlocked, chainIdP],
    );
  },

  async count(tx: SqlTx, txId: string, chainIdP: string): Promise<number> {
    const rows = await tx.query<{n: bigint | string | number}>(
      `SELECT count(*) AS n FROM utxos WHERE ${stakingTxUtxos("$1", "$2")}`,
      [txId, chainIdP],
    );
    return Number(rows[0]?.n ?? 0);
  },
};

/**
 * A reward's UTXOs (stakingFold.ts settle), written in the decision's batch transaction on their own: [UTXO row],
 * [address, ts, UTXO ID] of their owners, and the reward transaction's [chain, address, seq]. Reward UTXOs are
 * unspent when made, so each owner also gets its unspent_owned row (schema 25), which the balances read.
 */
export async function insertRewardUtxos(
  tx: SqlTx,
  creates: unknown[][],
  owners: Array<[Uint8Array, bigint, string]>,
  txAddresses: Array<[string, Uint8Array, bigint]>,
): Promise<void> {
  await bulkInsert(tx, "utxos", UTXO_CREATE_COLUMNS, creates, {absentKey: "utxo_id"});
  await bulkInsert(tx, "utxo_addresses", UTXO_ADDRESS_COLUMNS, owners, {onConflict: "DO NOTHING"});
  await bulkInsert(
    tx,
    "unspent_owned",
    UNSPENT_OWNED_COLUMNS,
    owners.map(([a, , id]) => [a, id]),
    {onConflict: "DO NOTHING"},
  );
  await bulkInsert(tx, "tx_addresses", TX_ADDRESS_COLUMNS, txAddresses, {onConflict: "DO NOTHING"});
}
