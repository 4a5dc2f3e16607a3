/**
 * The AVAX supply's running sums (`supply_totals`), kept by the primary view as it folds, in the statement that
 * writes each batch: what genesis, rewards and each chain's transactions created, what each chain's transactions
 * consumed, and what the C-chain's atomic transactions took from and gave to EVM balances. `/v1/avax/supply` then
 * reads a handful of rows instead of summing every UTXO of the store (queries/primary/supply.ts).
 *
 * A consumed amount is the input's own (AvalancheGo's `avax.TransferableInput` carries it), so an import folded
 * before the export that created its UTXO is counted at once, and no fold waits for another chain's.
 */
import type {SqlTx} from "../../store/sql.js";

/** The `data_api_meta` key that says the sums have been computed for this store (by `recomputeSupplyTotals`). */
export const SUPPLY_TOTALS_KEY = "supply.totals";

/**
 * The `data_api_meta` key (with the view's state, `view.%`) of the spends `recomputeSupplyTotals` could not count:
 * their UTXOs were not held yet (an import folded before its export), so their amounts were not known. Each is
 * counted when its UTXO is created, and leaves the list: a JSON array of [utxoId, consuming chain ID].
 */
export const LATE_SPENDS_KEY = "view.supply.late";

/** The keys of `supply_totals`. */
export const SUPPLY_KEY = {
  genesis: "genesis",
  rewards: "rewards",
  made: (chainId: string): string => `made:${chainId}`,
  spent: (chainId: string): string => `spent:${chainId}`,
  evmIn: "evm.in",
  evmOut: "evm.out",
} as const;

/** Which row a delta comes from: it is counted only if that row is not in the store already (a repeated batch). */
type Source = "utxo" | "spend" | "tx";

/** A batch's additions to the sums, each with the row it comes from. */
export class SupplyDeltas {
  private readonly rows: Array<[Source, string, string, bigint]> = [];

  /** A created AVAX UTXO (`created_seq` 0 is genesis, as the UTXO rows have it). */
  created(utxoId: string, amount: bigint, chainId: string, seq: bigint, rewardType: string | null | undefined): void {
    if (seq === 0n) this.rows.push(["utxo", utxoId, SUPPLY_KEY.genesis, amount]);
    if (rewardType) this.rows.push(["utxo", utxoId, SUPPLY_KEY.rewards, amount]);
    if (seq !== 0n && !rewardType) this.rows.push(["utxo", utxoId, SUPPLY_KEY.made(chainId), amount]);
  }

  /** A consumed AVAX UTXO, by the chain that consumed it. */
  consumed(utxoId: string, amount: bigint, chainId: string): void {
    this.rows.push(["spend", utxoId, SUPPLY_KEY.spent(chainId), amount]);
  }

  /**
   * A spend the recompute could not count (LATE_SPENDS_KEY), counted as its UTXO is created: as a created UTXO, so a
   * batch written again does not count it twice.
   */
  lateConsumed(utxoId: string, amount: bigint, chainId: string): void {
    this.rows.push(["utxo", utxoId, SUPPLY_KEY.spent(chainId), amount]);
  }

  /** AVAX a C-chain atomic transaction took from EVM balances (an export's inputs) or gave them (an import's outputs). */
  evm(txId: string, side: "in" | "out", amount: bigint): void {
    this.rows.push(["tx", txId, side === "in" ? SUPPLY_KEY.evmIn : SUPPLY_KEY.evmOut, amount]);
  }

  get size(): number {
    return this.rows.length;
  }

  /**
   * The upsert of these deltas, its arrays appended to `params`: a CTE of the batch's one statement (store/bulk.ts
   * runTogether), so it sees the store as it was before the batch. With `repeats` (a batch written again keeping the
   * rows the store holds), a delta whose row is held already is left out; otherwise they are summed here first.
   */
  upsertSql(params: unknown[], repeats: boolean): string {
    const upsert = "ON CONFLICT (key) DO UPDATE SET amount = supply_totals.amount + EXCLUDED.amount";
    if (!repeats) {
      const sums = new Map<string, bigint>();
      for (const [, , key, amount] of this.rows) sums.set(key, (sums.get(key) ?? 0n) + amount);
      const n = params.push([...sums.keys()], [...sums.values()].map(String));
      return `INSERT INTO supply_totals (key, amount) SELECT * FROM unnest($${n - 1}::text[], $${n}::numeric[]) ${upsert}`;
    }
    const n = params.push(
      this.rows.map((r) => r[0]),
      this.rows.map((r) => r[1]),
      this.rows.map((r) => r[2]),
      this.rows.map((r) => String(r[3])),
    );
    const [src, id, key, amount] = [n - 3, n - 2, n - 1, n].map((i) => `$${i}`);
    return (
      `INSERT INTO supply_totals (key, amount) SELECT d.key, sum(d.amount) ` +
      `FROM (SELECT DISTINCT ON (s, id, key) * FROM unnest(${src}::text[], ${id}::text[], ${key}::text[], ${amount}::numeric[]) AS u(s, id, key, amount)) d ` +
      `WHERE NOT CASE d.s WHEN 'utxo' THEN EXISTS (SELECT 1 FROM utxos h WHERE h.utxo_id = d.id) ` +
      `WHEN 'spend' THEN EXISTS (SELECT 1 FROM utxo_spends h WHERE h.utxo_id = d.id) ` +
      `ELSE EXISTS (SELECT 1 FROM txs h WHERE h.chain = 'C' AND h.tx_id = d.id) END ` +
      `GROUP BY d.key ${upsert}`
    );
  }
}

/**
 * The sums computed from the store whole, replacing what `supply_totals` holds: once per store, for one folded
 * before the sums were kept (the view's load), since a store's history is not folded again on an upgrade. A spend
 * counts here by its UTXO's amount, which the store holds once the creating transaction is folded; a spend whose
 * UTXO it does not hold yet is listed (LATE_SPENDS_KEY) and counted by the fold when the UTXO comes.
 */
export async function recomputeSupplyTotals(tx: Pick<SqlTx, "query">, avaxAssetId: string): Promise<void> {
  await tx.query("DELETE FROM supply_totals");
  await tx.query(
    `INSERT INTO supply_totals (key, amount)
     SELECT key, sum(amount) FROM (
       SELECT CASE WHEN created_seq = 0 THEN 'genesis' ELSE 'rewards' END AS key, amount FROM utxos
       WHERE asset_id = $1 AND (created_seq = 0 OR reward_type IS NOT NULL)
       UNION ALL SELECT 'rewards', amount FROM utxos WHERE asset_id = $1 AND created_seq = 0 AND reward_type IS NOT NULL
       UNION ALL SELECT 'made:' || created_chain, amount FROM utxos WHERE asset_id = $1 AND created_seq <> 0 AND reward_type IS NULL
       UNION ALL SELECT 'spent:' || sp.consumed_chain, u.amount FROM utxo_spends sp JOIN utxos u ON u.utxo_id = sp.utxo_id WHERE u.asset_id = $1
       UNION ALL SELECT CASE WHEN i.side = 'in' THEN 'evm.in' ELSE 'evm.out' END, (i.value->>'amount')::numeric
       FROM txs t CROSS JOIN LATERAL (
         SELECT 'in' AS side, value FROM jsonb_array_elements(coalesce(t.evm->'inputs', '[]'::jsonb))
         UNION ALL SELECT 'out', value FROM jsonb_array_elements(coalesce(t.evm->'outputs', '[]'::jsonb))
       ) i WHERE t.chain = 'C' AND i.value->>'assetId' = $1
     ) x WHERE amount IS NOT NULL GROUP BY key`,
    [avaxAssetId],
  );
  await tx.query(
    `INSERT INTO data_api_meta (key, value)
     SELECT $1, coalesce(json_agg(json_build_array(sp.utxo_id, sp.consumed_chain))::text, '[]') FROM utxo_spends sp
     WHERE NOT EXISTS (SELECT 1 FROM utxos u WHERE u.utxo_id = sp.utxo_id)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [LATE_SPENDS_KEY],
  );
  await tx.query(
    "INSERT INTO data_api_meta (key, value) VALUES ($1, '1') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
    [SUPPLY_TOTALS_KEY],
  );
}
