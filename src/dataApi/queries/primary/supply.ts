/**
 * The AVAX supply (Glacier `getAvaxSupply`), summed from what the views hold. Every sum is over the store whole
 * (its UTXOs, spends, atomic transactions, C-chain blocks): it reads every UTXO, so the route keeps an answer for
 * a while rather than running this per request. One statement, so every field comes from one snapshot; on a
 * PostgreSQL server it runs in a transaction of its own with a statement timeout (`SET LOCAL`), so that a store too
 * big to sum in time costs the server a bounded while (PGlite, one backend, has no timeout to set).
 *
 * The C-chain's genesis allocation (the `alloc` of the genesis's `cChainGenesis`) is EVM balance from the start and
 * never a UTXO: the view keeps its sum in `data_api_meta` when it folds the genesis (view.ts foldGenesis).
 */
import {remainingBalance} from "../../views/primary/l1.js";
import {type AvaxSupply, type SupplySums, avaxSupplyFromSums} from "../../models/primary/supply.js";
import type {NetworkCtx, SqlClientLike} from "./common.js";
import {PRIMARY_NETWORK_ID} from "./stakers.js";
import {C_GENESIS_ALLOCATION_KEY} from "../../views/primary/model.js";
import type {SqlClient} from "../../store/client.js";

type Num = string | number | bigint | null;

export async function getAvaxSupply(
  sql: SqlClientLike | SqlClient,
  net: NetworkCtx,
  args: {now: number; timeoutMs?: number},
): Promise<AvaxSupply> {
  const {P, X, C} = net.chainIds;
  const params = [net.avaxAssetId, P, X, C, PRIMARY_NETWORK_ID, args.now];
  const timeout = args.timeoutMs;
  const [r] =
    "kind" in sql && sql.kind === "postgres" && timeout !== undefined
      ? await sql.transaction(async (tx) => {
          await tx.exec(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeout))}`);
          return tx.query<Record<string, Num>>(SUPPLY_SQL, params);
        })
      : await sql.query<Record<string, Num>>(SUPPLY_SQL, params);
  const b = (k: string): bigint => BigInt(String(r![k] ?? 0));
  const accrued = BigInt(String(r!.accrued_fees ?? "0"));
  const ends = (typeof r!.l1_ends === "string" ? JSON.parse(r!.l1_ends) : r!.l1_ends) as string[];
  const l1Outstanding = ends.reduce((s, e) => s + remainingBalance({endAccumulatedFee: BigInt(e)}, accrued), 0n);
  const sums: SupplySums = {
    genesis: b("genesis"),
    cGenesisWei: b("c_genesis_wei"),
    rewards: b("rewards"),
    p: {in: b("p_in"), out: b("p_out")},
    x: {in: b("x_in"), out: b("x_out")},
    c: {in: b("c_in") + b("evm_in"), out: b("c_out") + b("evm_out")},
    evmFeesWei: b("evm_fees_wei"),
    l1Deposits: b("l1_deposits"),
    l1Outstanding,
    staked: b("staked"),
    locked: b("locked"),
  };
  return avaxSupplyFromSums(sums, new Date(args.now * 1000));
}

const SUPPLY_SQL = `WITH made AS (
       -- AVAX UTXOs by chain of creation: at genesis (seq 0, vm genesis), minted as rewards, or a transaction's.
       SELECT created_chain AS chain, created_seq = 0 AS genesis, reward_type IS NOT NULL AS reward,
              sum(amount) AS amount
       FROM utxos WHERE asset_id = $1 AND created_ts IS NOT NULL GROUP BY 1, 2, 3
     ), spent AS (
       SELECT sp.consumed_chain AS chain, sum(u.amount) AS amount
       FROM utxo_spends sp JOIN utxos u ON u.utxo_id = sp.utxo_id
       WHERE u.asset_id = $1 GROUP BY 1
     ), evm AS (
       -- The C-chain atomic transactions' EVM side: what exports take from EVM balances, imports give them.
       SELECT coalesce(sum((i.value->>'amount')::numeric) FILTER (WHERE i.side = 'in'), 0) AS evm_in,
              coalesce(sum((i.value->>'amount')::numeric) FILTER (WHERE i.side = 'out'), 0) AS evm_out
       FROM txs t
       CROSS JOIN LATERAL (
         SELECT 'in' AS side, value FROM jsonb_array_elements(coalesce(t.evm->'inputs', '[]'::jsonb))
         UNION ALL SELECT 'out', value FROM jsonb_array_elements(coalesce(t.evm->'outputs', '[]'::jsonb))
       ) i
       WHERE t.chain = 'C' AND i.value->>'assetId' = $1
     )
     SELECT
       (SELECT coalesce(sum(amount), 0) FROM made WHERE genesis) AS genesis,
       (SELECT coalesce(sum(amount), 0) FROM made WHERE reward) AS rewards,
       (SELECT coalesce(sum(amount), 0) FROM made WHERE chain = $2 AND NOT genesis AND NOT reward) AS p_out,
       (SELECT coalesce(sum(amount), 0) FROM made WHERE chain = $3 AND NOT genesis AND NOT reward) AS x_out,
       (SELECT coalesce(sum(amount), 0) FROM made WHERE chain = $4 AND NOT genesis AND NOT reward) AS c_out,
       (SELECT coalesce(sum(amount), 0) FROM spent WHERE chain = $2) AS p_in,
       (SELECT coalesce(sum(amount), 0) FROM spent WHERE chain = $3) AS x_in,
       (SELECT coalesce(sum(amount), 0) FROM spent WHERE chain = $4) AS c_in,
       (SELECT evm_in FROM evm) AS evm_in,
       (SELECT evm_out FROM evm) AS evm_out,
       -- The C-chain's EVM fees, in wei (all burned: coreth pays no fee to a block producer).
       (SELECT coalesce(sum(b.fees_spent), 0)
        FROM evm_blocks b JOIN evm_chains c ON c.chain_id = b.chain_id WHERE c.blockchain_id = $4) AS evm_fees_wei,
       -- AVAX moved into L1 validators' balances, less what came back (each L1 transaction's balance changes).
       (SELECT coalesce(sum((e.value->>'balanceChange')::numeric), 0)
        FROM (SELECT DISTINCT seq FROM l1_validation_txs) l
        JOIN txs t ON t.chain = 'P' AND t.seq = l.seq
        CROSS JOIN LATERAL jsonb_array_elements(coalesce(t.details->'l1Effects', '[]'::jsonb)) e) AS l1_deposits,
       (SELECT coalesce(sum(weight), 0) FROM stakers
        WHERE status = 'current' AND subnet_id = $5 AND kind IN ('validator', 'delegator')) AS staked,
       (SELECT coalesce(sum(u.amount), 0) FROM utxos u
        WHERE u.asset_id = $1 AND u.created_ts IS NOT NULL AND NOT coalesce(u.staked, false)
          AND (coalesce(u.locktime, 0) > $6 OR coalesce(u.stakeable_locktime, 0) > $6)
          AND NOT EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.utxo_id)) AS locked,
       (SELECT value FROM data_api_meta WHERE key = 'view.l1.accruedFees') AS accrued_fees,
       (SELECT value FROM data_api_meta WHERE key = '${C_GENESIS_ALLOCATION_KEY}') AS c_genesis_wei,
       (SELECT coalesce(json_agg(end_accumulated_fee::text), '[]') FROM l1_validators WHERE active) AS l1_ends`;
