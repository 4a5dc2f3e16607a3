/** Stakers and rewards: the `stakers`, `staker_addresses` and reward `utxos` rows. */
import type {RewardType} from "../../models/primary/pchain.js";
import {
  type DelegatorDetails,
  type DelegatorRow,
  type HistoricalReward,
  type HistoricalRewardRow,
  type PendingReward,
  type PendingRewardRow,
  type ValidatorDetails,
  type ValidatorRow,
  delegatorFromRow,
  historicalRewardFromRow,
  pendingRewardFromRow,
  validatorFromRow,
} from "../../models/primary/stakers.js";
import {type DbNum, big} from "../../models/primary/common.js";
import {type NetworkCtx, type Page, type PageArgs, Params, type SortOrder, type SqlClientLike} from "./common.js";
import {loadAssets} from "./utxos.js";
import {assumedUp, type ValidatorObservations} from "../../observations/observations.js";

/** The primary network's subnet ID. */
export const PRIMARY_NETWORK_ID = "11111111111111111111111111111111LpoYY";

function splitCursor(cursor: string, parts: number): string[] {
  const out = cursor.split(":");
  if (out.length !== parts) throw new Error(`malformed cursor ${cursor}`);
  return out;
}

export interface PendingRewardsArgs extends PageArgs {
  /** 20-byte short IDs: rewards paid to them (as validator, delegator or validator fee owner). */
  addresses?: Uint8Array[];
  /** `NodeID-...`: the rewards of the node's own stakers (its validation and its delegators). */
  nodeIds?: string[];
  now: number;
}

/**
 * Endpoint 10: rewards of current primary-network stakers, ending soonest first; cursor `end:txId:role`.
 * The router requires addresses or nodeIds.
 */
export async function listPendingRewards(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: PendingRewardsArgs,
): Promise<Page<PendingReward>> {
  const p = new Params();
  const sources: string[] = [];
  if (args.addresses !== undefined && args.addresses.length > 0) {
    sources.push(
      `SELECT sa.tx_id, sa.role FROM staker_addresses sa WHERE sa.address = ANY(${p.add(args.addresses)}::bytea[])`,
    );
  }
  if (args.nodeIds !== undefined && args.nodeIds.length > 0) {
    sources.push(`SELECT n.tx_id, CASE WHEN n.kind = 'delegator' THEN 'DELEGATOR' ELSE 'VALIDATOR' END AS role
      FROM stakers n WHERE n.node_id = ANY(${p.add(args.nodeIds)}::text[]) AND n.status = 'current'`);
  }
  if (sources.length === 0) return {items: []};
  const where = ["s.status = 'current'", "s.kind <> 'subnetValidator'"];
  if (args.cursor !== undefined) {
    const [end, tx, role] = splitCursor(args.cursor, 3);
    where.push(`(s.end_ts, s.tx_id, m.role) > (${p.add(end)}::int8, ${p.add(tx)}, ${p.add(role)})`);
  }
  const rows = await sql.query<PendingRewardRow>(
    `SELECT s.*, m.role, v.delegation_shares AS validator_shares, v.delegation_reward_owner AS validator_fee_owner
     FROM (${sources.join(" UNION ")}) m JOIN stakers s ON s.tx_id = m.tx_id LEFT JOIN stakers v ON v.tx_id = s.validator_tx_id
     WHERE ${where.join(" AND ")}
     ORDER BY s.end_ts, s.tx_id, m.role LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const page = rows.slice(0, args.pageSize);
  const assets = await loadAssets(sql, [net.avaxAssetId]);
  const items = page.map((r) => pendingRewardFromRow(r, net.hrp, net.avaxAssetId, assets, args.now));
  if (!more) return {items};
  const last = page[page.length - 1];
  return {items, nextCursor: `${String(last.end_ts)}:${last.tx_id}:${last.role as RewardType}`};
}

export interface HistoricalRewardsArgs extends PageArgs {
  addresses: Uint8Array[];
  sortOrder?: SortOrder;
}

/** Reward UTXOs paid to the addresses, newest first by default; cursor `createdTs:utxoId`. */
export async function listHistoricalRewards(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: HistoricalRewardsArgs,
): Promise<Page<HistoricalReward>> {
  const p = new Params();
  const desc = (args.sortOrder ?? "desc") === "desc";
  const dir = desc ? "DESC" : "ASC";
  const where = [`ua.address = ANY(${p.add(args.addresses)}::bytea[])`, "u.reward_type IS NOT NULL"];
  if (args.cursor !== undefined) {
    const [ts, id] = splitCursor(args.cursor, 2);
    where.push(`(u.created_ts, u.utxo_id) ${desc ? "<" : ">"} (${p.add(ts)}::int8, ${p.add(id)})`);
  }
  const rows = await sql.query<HistoricalRewardRow>(
    `SELECT DISTINCT ON (u.created_ts, u.utxo_id) u.utxo_id, u.output_index, u.asset_id, u.amount, u.addresses,
       u.reward_type, u.created_ts, s.reward_tx_id AS reward_tx, s.tx_id, s.node_id, s.weight, s.start_ts, s.end_ts
     FROM utxo_addresses ua JOIN utxos u ON u.utxo_id = ua.utxo_id JOIN stakers s ON s.tx_id = u.tx_id
     WHERE ${where.join(" AND ")}
     ORDER BY u.created_ts ${dir}, u.utxo_id ${dir} LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const page = rows.slice(0, args.pageSize);
  const assets = await loadAssets(
    sql,
    page.map((r) => r.asset_id),
  );
  const items = page.map((r) => historicalRewardFromRow(r, net.hrp, assets));
  if (!more) return {items};
  const last = page[page.length - 1];
  return {items, nextCursor: `${String(last.created_ts)}:${last.utxo_id}`};
}

export interface ListValidatorsArgs extends PageArgs {
  /**
   * `active`/`pending`: current stakers (started or not); `completed`: rewarded or aborted; `removed`: removed by a
   * RemoveSubnetValidatorTx. Default: all.
   */
  validationStatus?: "active" | "pending" | "completed" | "removed";
  nodeIds?: string[];
  /** Default: the primary network. */
  subnetId?: string;
  now: number;
  /** An active validator's uptime and health; default: up, as nothing is observed (observations.ts). */
  observations?: ValidatorObservations;
}

/** Current primary-network stake: validators' own and delegated. */
async function currentStake(
  sql: SqlClientLike,
): Promise<{validators: number; validatorStake: bigint; delegators: number; delegatorStake: bigint}> {
  const rows = await sql.query<{kind: string; n: DbNum; w: DbNum | null}>(
    `SELECT kind, count(*) AS n, sum(weight) AS w FROM stakers
     WHERE status = 'current' AND subnet_id = $1 AND kind IN ('validator', 'delegator') GROUP BY kind`,
    [PRIMARY_NETWORK_ID],
  );
  const get = (k: string): {n: number; w: bigint} => {
    const r = rows.find((x) => x.kind === k);
    return {n: r === undefined ? 0 : Number(r.n), w: r?.w == null ? 0n : big(r.w)};
  };
  const v = get("validator");
  const d = get("delegator");
  return {validators: v.n, validatorStake: v.w, delegators: d.n, delegatorStake: d.w};
}

/**
 * Validators, ending soonest first; cursor `end:txId`. Each with its delegators (current ones for a current
 * validator, all for a completed one) and the fees they pay it.
 */
export async function listValidators(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: ListValidatorsArgs,
): Promise<Page<ValidatorDetails>> {
  const p = new Params();
  const where = [
    `s.subnet_id = ${p.add(args.subnetId ?? PRIMARY_NETWORK_ID)}`,
    "s.kind IN ('validator', 'subnetValidator')",
  ];
  if (args.validationStatus === "completed") where.push("s.status IN ('rewarded', 'aborted')");
  else if (args.validationStatus === "removed") where.push("s.status = 'removed'");
  else if (args.validationStatus !== undefined) {
    where.push(
      "s.status = 'current'",
      `s.start_ts ${args.validationStatus === "pending" ? ">" : "<="} ${p.add(args.now)}::int8`,
    );
  }
  if (args.nodeIds !== undefined && args.nodeIds.length > 0)
    where.push(`s.node_id = ANY(${p.add(args.nodeIds)}::text[])`);
  if (args.cursor !== undefined) {
    const [end, tx] = splitCursor(args.cursor, 2);
    where.push(`(s.end_ts, s.tx_id) > (${p.add(end)}::int8, ${p.add(tx)})`);
  }
  const rows = await sql.query<ValidatorRow>(
    `SELECT s.*, d.delegator_count, d.amount_delegated, d.delegator_rewards,
       CASE WHEN s.status = 'removed'
         THEN (SELECT t.ts FROM txs t WHERE t.chain = 'P' AND t.tx_id = s.remove_tx_id) END AS remove_ts
     FROM stakers s
     CROSS JOIN LATERAL (
       SELECT count(*) AS delegator_count, coalesce(sum(x.weight), 0) AS amount_delegated,
         coalesce(sum(CASE WHEN x.status = 'aborted' THEN 0 ELSE div(x.potential_reward * s.delegation_shares, 1000000) END), 0)
           AS delegator_rewards
       FROM stakers x WHERE x.validator_tx_id = s.tx_id AND (s.status <> 'current' OR x.status = 'current')
     ) d
     WHERE ${where.join(" AND ")}
     ORDER BY s.end_ts, s.tx_id LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const page = rows.slice(0, args.pageSize);
  const stake = await currentStake(sql);
  const observations = args.observations ?? assumedUp;
  const items = page.map((r) => validatorFromRow(r, net.hrp, args.now, stake.validatorStake, observations));
  if (!more) return {items};
  const last = page[page.length - 1];
  return {items, nextCursor: `${String(last.end_ts)}:${last.tx_id}`};
}

export interface ListDelegatorsArgs extends PageArgs {
  delegationStatus?: "active" | "pending" | "completed";
  nodeIds?: string[];
  /** 20-byte short IDs of reward owners. */
  rewardAddresses?: Uint8Array[];
  now: number;
}

/** Primary-network delegators, ending soonest first; cursor `end:txId`. */
export async function listDelegators(
  sql: SqlClientLike,
  net: NetworkCtx,
  args: ListDelegatorsArgs,
): Promise<Page<DelegatorDetails>> {
  const p = new Params();
  const where = ["s.kind = 'delegator'"];
  if (args.delegationStatus === "completed") where.push("s.status IN ('rewarded', 'aborted')");
  else if (args.delegationStatus !== undefined) {
    where.push(
      "s.status = 'current'",
      `s.start_ts ${args.delegationStatus === "pending" ? ">" : "<="} ${p.add(args.now)}::int8`,
    );
  }
  if (args.nodeIds !== undefined && args.nodeIds.length > 0)
    where.push(`s.node_id = ANY(${p.add(args.nodeIds)}::text[])`);
  if (args.rewardAddresses !== undefined && args.rewardAddresses.length > 0) {
    where.push(`s.tx_id IN (SELECT sa.tx_id FROM staker_addresses sa
      WHERE sa.address = ANY(${p.add(args.rewardAddresses)}::bytea[]) AND sa.role = 'DELEGATOR')`);
  }
  if (args.cursor !== undefined) {
    const [end, tx] = splitCursor(args.cursor, 2);
    where.push(`(s.end_ts, s.tx_id) > (${p.add(end)}::int8, ${p.add(tx)})`);
  }
  const rows = await sql.query<DelegatorRow>(
    `SELECT s.*, v.delegation_shares AS validator_shares FROM stakers s LEFT JOIN stakers v ON v.tx_id = s.validator_tx_id
     WHERE ${where.join(" AND ")} ORDER BY s.end_ts, s.tx_id LIMIT ${p.add(args.pageSize + 1)}`,
    p.values,
  );
  const more = rows.length > args.pageSize;
  const page = rows.slice(0, args.pageSize);
  const items = page.map((r) => delegatorFromRow(r, net.hrp, args.now));
  if (!more) return {items};
  const last = page[page.length - 1];
  return {items, nextCursor: `${String(last.end_ts)}:${last.tx_id}`};
}

/** Glacier `GetNetworkDetailsResponse`. */
export interface NetworkDetails {
  validatorDetails: {
    validatorCount: number;
    totalAmountStaked: string;
    estimatedAnnualStakingReward: string;
    stakingDistributionByVersion: Array<{version: string; amountStaked: string; validatorCount: number}>;
    stakingRatio: string;
  };
  delegatorDetails: {delegatorCount: number; totalAmountStaked: string};
}

const YEAR = 365 * 24 * 3600;

/**
 * Validator and delegator counts and stake of the current primary-network stakers. `stakingRatio`: all current
 * stake over the P-chain's latest supply; `estimatedAnnualStakingReward`: the current stakers' potential rewards,
 * each scaled to a year of its period. Node versions are not known here: `stakingDistributionByVersion` is empty.
 */
export async function getNetworkDetails(sql: SqlClientLike): Promise<NetworkDetails> {
  const stake = await currentStake(sql);
  const [supply] = await sql.query<{current_supply: DbNum | null}>(
    "SELECT current_supply FROM blocks WHERE chain = 'P' AND current_supply IS NOT NULL ORDER BY height DESC LIMIT 1",
  );
  const [annual] = await sql.query<{r: DbNum | null}>(
    `SELECT sum(div(potential_reward * ${YEAR}, greatest(end_ts - start_ts, 1))) AS r FROM stakers
     WHERE status = 'current' AND subnet_id = $1 AND kind IN ('validator', 'delegator')`,
    [PRIMARY_NETWORK_ID],
  );
  const total = stake.validatorStake + stake.delegatorStake;
  const s = supply?.current_supply == null ? 0n : big(supply.current_supply);
  return {
    validatorDetails: {
      validatorCount: stake.validators,
      totalAmountStaked: stake.validatorStake.toString(),
      estimatedAnnualStakingReward: annual?.r == null ? "0" : String(annual.r),
      stakingDistributionByVersion: [],
      stakingRatio: s === 0n ? "0" : (Number((total * 1_000_000n) / s) / 1_000_000).toString(),
    },
    delegatorDetails: {delegatorCount: stake.delegators, totalAmountStaked: stake.delegatorStake.toString()},
  };
}
