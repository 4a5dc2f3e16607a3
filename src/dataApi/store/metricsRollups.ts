/**
 * The metrics rollups (schema 18) computed in SQL from the EVM rows already stored: the whole of them when the
 * schema adds the tables to a store folded before (its blocks were folded without them), and the hours a reorg
 * touched (views/evm/metricsFold.ts rollbackMetrics). The fold keeps the same rows incrementally; test
 * test/unit/dataApi/views/evm/metricsRollups.test.ts holds the two against each other and against the history.
 */

/** The start of the bucket of grain code `grain` (0 hour ... 3 month) holding Unix second `ts` (an int8 expression). */
export function bucketSql(grain: number, ts: string): string {
  switch (grain) {
    case 0:
      return `(${ts} - ${ts} % 3600)`;
    case 1:
      return `(${ts} - ${ts} % 86400)`;
    case 2:
      // Day 0 is a Thursday: Mondays are the days d with (d + 3) % 7 = 0 (src/util/timeBuckets.ts).
      return `((${ts} / 86400 - (${ts} / 86400 + 3) % 7) * 86400)`;
    default:
      return `extract(epoch FROM date_trunc('month', to_timestamp(${ts}) AT TIME ZONE 'UTC'))::int8`;
  }
}

/** Bucket starts of a Unix-seconds expression, a row a grain (grain, bucket). */
const bucketExprs = (ts: string): string =>
  `(VALUES ${[0, 1, 2, 3].map((g) => `(${g}::int2, ${bucketSql(g, ts)})`).join(", ")})`;

/** metrics_hours rows for the stored blocks `where` selects (on evm_blocks b), whole hours only. */
export function recomputeHoursSql(where: string): string {
  return `
    WITH blk AS (SELECT b.chain_id, b.number, b.timestamp, b.tx_count, b.gas_used, b.fees_spent FROM evm_blocks b WHERE ${where}),
    secs AS (SELECT chain_id, timestamp, sum(tx_count) AS txs, sum(gas_used) AS gas FROM blk GROUP BY chain_id, timestamp),
    sec_max AS (SELECT chain_id, timestamp - timestamp % 3600 AS hour, max(txs) AS max_tps, max(gas) AS max_gps FROM secs GROUP BY 1, 2),
    blk_sums AS (SELECT chain_id, timestamp - timestamp % 3600 AS hour, sum(tx_count) AS txs, sum(gas_used) AS gas_used, sum(fees_spent) AS fees FROM blk GROUP BY 1, 2),
    tx_sums AS (SELECT blk.chain_id, blk.timestamp - blk.timestamp % 3600 AS hour, sum(t.gas_price) AS gps, max(t.gas_price) AS mgp
                FROM blk JOIN evm_txs t ON t.chain_id = blk.chain_id AND t.block_number = blk.number GROUP BY 1, 2),
    ct_sums AS (SELECT blk.chain_id, blk.timestamp - blk.timestamp % 3600 AS hour, count(*) AS n
                FROM blk JOIN evm_txs t ON t.chain_id = blk.chain_id AND t.block_number = blk.number AND t.created IS NOT NULL
                JOIN evm_contracts c ON c.chain_id = t.chain_id AND c.address = t.created AND c.block_number = t.block_number AND c.tx_index = t.tx_index GROUP BY 1, 2)
    INSERT INTO metrics_hours (chain_id, hour, txs, gas_used, fees, gas_price_sum, max_gas_price, max_tps, max_gps, contracts)
    SELECT s.chain_id, s.hour, s.txs, s.gas_used, s.fees, coalesce(x.gps, 0), coalesce(x.mgp, 0), m.max_tps, m.max_gps, coalesce(c.n, 0)
    FROM blk_sums s JOIN sec_max m USING (chain_id, hour) LEFT JOIN tx_sums x USING (chain_id, hour) LEFT JOIN ct_sums c USING (chain_id, hour)`;
}

/**
 * Every rollup from every stored EVM row (into empty tables). Who took part: kind 0 the from and to (or created
 * contract) of transactions and the parties of transfers, kind 1 senders, kind 2 the senders of transactions that
 * created contracts; the zero address left out.
 */
export const METRICS_BACKFILL_SQL = `
${recomputeHoursSql("true")};
CREATE TEMP TABLE metrics_parts AS
  SELECT x.chain_id, b.timestamp AS ts, x.kind, x.address FROM (
    SELECT chain_id, block_number, 0::int2 AS kind, from_addr AS address FROM evm_txs
    UNION ALL SELECT chain_id, block_number, 0::int2, coalesce(to_addr, created) FROM evm_txs WHERE coalesce(to_addr, created) IS NOT NULL
    UNION ALL SELECT chain_id, block_number, 1::int2, from_addr FROM evm_txs
    UNION ALL SELECT chain_id, block_number, 0::int2, from_addr FROM evm_transfers
    UNION ALL SELECT chain_id, block_number, 0::int2, to_addr FROM evm_transfers
    UNION ALL SELECT t.chain_id, t.block_number, 2::int2, t.from_addr FROM evm_txs t
      JOIN evm_contracts c ON c.chain_id = t.chain_id AND c.address = t.created AND c.block_number = t.block_number AND c.tx_index = t.tx_index
  ) x JOIN evm_blocks b ON b.chain_id = x.chain_id AND b.number = x.block_number
  WHERE x.address <> '\\x0000000000000000000000000000000000000000'::bytea;
INSERT INTO metrics_distinct (chain_id, kind, grain, bucket, n)
  SELECT chain_id, kind, grain, bucket, count(*) FROM (
    SELECT DISTINCT p.chain_id, p.kind, g.grain, g.bucket, p.address FROM metrics_parts p CROSS JOIN LATERAL ${bucketExprs("p.ts")} AS g(grain, bucket)
  ) x GROUP BY 1, 2, 3, 4
  UNION ALL
  SELECT chain_id, kind, 4::int2, hour, count(*) FROM (SELECT chain_id, kind, address, min(ts) - min(ts) % 3600 AS hour FROM metrics_parts GROUP BY 1, 2, 3) f GROUP BY 1, 2, 4;
INSERT INTO metrics_addr (chain_id, address, a_hour, a_day, a_week, a_month, s_hour, s_day, s_week, s_month, d_hour, d_day, d_week, d_month)
  SELECT chain_id, address, ${[0, 1, 2].flatMap((k) => [0, 1, 2, 3].map((g) => bucketSql(g, `max(ts) FILTER (WHERE kind = ${k})`))).join(", ")}
  FROM metrics_parts GROUP BY chain_id, address;
DROP TABLE metrics_parts;
`;
