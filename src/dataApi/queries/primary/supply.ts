/**
 * The AVAX supply (Glacier `getAvaxSupply`), from what the views hold: the running sums of what was created and
 * consumed (`supply_totals`, views/primary/supplyTotals.ts) and each EVM chain's fees (`evm_chains.fees_total`),
 * so no answer reads every UTXO; then the parts that depend on the moment, each over a set a real network keeps
 * small: the current stakers' weight, the still time-locked UTXOs (a partial index), the L1 validators' balances.
 * One statement, so every field comes from one snapshot; on a PostgreSQL server it runs with a statement timeout
 * (`SET LOCAL`) all the same.
 *
 * The C-chain's genesis allocation (the `alloc` of the genesis's `cChainGenesis`) is EVM balance from the start and
 * never a UTXO: the view keeps its sum in `data_api_meta` when it folds the genesis (view.ts foldGenesis).
 */
import {remainingBalance} from "../../views/primary/l1.js";
import {type AvaxSupply, type SupplySums, avaxSupplyFromSums} from "../../models/primary/supply.js";
import type {NetworkCtx, SqlClientLike} from "./common.js";
import {PRIMARY_NETWORK_ID} from "./stakers.js";
import {C_GENESIS_ALLOCATION_KEY} from "../../views/primary/model.js";
import {SUPPLY_KEY, SUPPLY_TOTALS_KEY} from "../../views/primary/supplyTotals.js";
import type {SqlClient} from "../../store/sql.js";

type Num = string | number | bigint | null;

/** The store's supply sums are not computed yet: its ingest process computes them once when it next starts. */
export class SupplyPendingError extends Error {
  constructor() {
    super("the AVAX supply's sums are being computed from the store; retry later");
  }
}

export async function getAvaxSupply(
  sql: SqlClientLike | SqlClient,
  net: NetworkCtx,
  args: {now: number; timeoutMs?: number},
): Promise<AvaxSupply> {
  const {P, X, C} = net.chainIds;
  const params = [net.avaxAssetId, C, PRIMARY_NETWORK_ID, args.now];
  const timeout = args.timeoutMs;
  const [r] =
    "kind" in sql && sql.kind === "postgres" && timeout !== undefined
      ? await sql.transaction(async (tx) => {
          await tx.exec(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeout))}`);
          return tx.query<Record<string, Num>>(SUPPLY_SQL, params);
        })
      : await sql.query<Record<string, Num>>(SUPPLY_SQL, params);
  if (r!.totals_ready === null || r!.totals_ready === undefined) throw new SupplyPendingError();
  const totals = (typeof r!.totals === "string" ? JSON.parse(r!.totals) : (r!.totals ?? {})) as Record<string, string>;
  const t = (k: string): bigint => BigInt(totals[k] ?? "0");
  const b = (k: string): bigint => BigInt(String(r![k] ?? 0));
  const accrued = BigInt(String(r!.accrued_fees ?? "0"));
  const ends = (typeof r!.l1_ends === "string" ? JSON.parse(r!.l1_ends) : r!.l1_ends) as string[];
  const l1Outstanding = ends.reduce((s, e) => s + remainingBalance({endAccumulatedFee: BigInt(e)}, accrued), 0n);
  const sums: SupplySums = {
    genesis: t(SUPPLY_KEY.genesis),
    cGenesisWei: b("c_genesis_wei"),
    rewards: t(SUPPLY_KEY.rewards),
    p: {in: t(SUPPLY_KEY.spent(P)), out: t(SUPPLY_KEY.made(P))},
    x: {in: t(SUPPLY_KEY.spent(X)), out: t(SUPPLY_KEY.made(X))},
    c: {in: t(SUPPLY_KEY.spent(C)) + t(SUPPLY_KEY.evmIn), out: t(SUPPLY_KEY.made(C)) + t(SUPPLY_KEY.evmOut)},
    evmFeesWei: b("evm_fees_wei"),
    l1Deposits: b("l1_deposits"),
    l1Outstanding,
    staked: b("staked"),
    locked: b("locked"),
  };
  return avaxSupplyFromSums(sums, new Date(args.now * 1000));
}

const SUPPLY_SQL = `SELECT
       (SELECT json_object_agg(key, amount::text) FROM supply_totals) AS totals,
       (SELECT value FROM data_api_meta WHERE key = '${SUPPLY_TOTALS_KEY}') AS totals_ready,
       -- The C-chain's EVM fees, in wei (all burned: coreth pays no fee to a block producer).
       (SELECT coalesce(sum(fees_total), 0) FROM evm_chains WHERE blockchain_id = $2) AS evm_fees_wei,
       -- AVAX moved into L1 validators' balances, less what came back (each L1 transaction's balance changes).
       (SELECT coalesce(sum((e.value->>'balanceChange')::numeric), 0)
        FROM (SELECT DISTINCT seq FROM l1_validation_txs) l
        JOIN txs t ON t.chain = 'P' AND t.seq = l.seq
        CROSS JOIN LATERAL jsonb_array_elements(coalesce(t.details->'l1Effects', '[]'::jsonb)) e) AS l1_deposits,
       (SELECT coalesce(sum(weight), 0) FROM stakers
        WHERE status = 'current' AND subnet_id = $3 AND kind IN ('validator', 'delegator')) AS staked,
       -- The time-locked UTXOs by their partial index (migration 15), the still-locked unspent ones summed.
       (SELECT coalesce(sum(u.amount), 0) FROM utxos u
        WHERE (u.locktime > 0 OR u.stakeable_locktime > 0)
          AND u.asset_id = $1 AND NOT coalesce(u.staked, false)
          AND (coalesce(u.locktime, 0) > $4 OR coalesce(u.stakeable_locktime, 0) > $4)
          AND NOT EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.utxo_id)) AS locked,
       (SELECT value FROM data_api_meta WHERE key = 'view.l1.accruedFees') AS accrued_fees,
       (SELECT value FROM data_api_meta WHERE key = '${C_GENESIS_ALLOCATION_KEY}') AS c_genesis_wei,
       (SELECT coalesce(json_agg(end_accumulated_fee::text), '[]') FROM l1_validators WHERE active) AS l1_ends`;
