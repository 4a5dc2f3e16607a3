/**
 * The metrics service's rollups (schema 18: metrics_hours, metrics_seen, metrics_first, metrics_distinct), kept in
 * the transaction that writes a batch of EVM blocks (write.ts) and taken back by a reorg's rollback.
 *
 * Hours hold sums and maxima, so a longer bucket is read as the sum or maximum of its hours. Distinct counts need
 * more than sums: an address of a kind seen in a bucket gets a row naming the first block it was seen in there, and
 * the bucket's count goes up by the rows the batch inserted (a row already there is a no-op). Blocks fold in height
 * order and their timestamps do not decrease, so a rollback to block B deletes exactly the rows of blocks after B and
 * lowers the counts by what it deleted; the hours from the first dropped block's on are computed again from the
 * kept blocks (they are few: the dropped blocks' hours).
 *
 * Active addresses are the `from` and `to` of transactions and of token transfers (ERC-20, 721, 1155), the zero
 * address left out (it stands for a mint or a burn); senders are transactions' `from`; deployers the accounts whose
 * transactions created contracts.
 */
import type {SqlTx} from "../../store/client.js";
import {recomputeHoursSql} from "../../store/metricsRollups.js";
import {bytesToHex} from "../../../evm/hex.js";
import {GRAINS, GRAIN_CODE, bucketStart} from "../../../util/timeBuckets.js";
import type {DerivedBlock} from "./derive.js";

export const KIND = {address: 0, sender: 1, deployer: 2} as const;
/** metrics_distinct's grain for metrics_first's counts (new addresses per hour). */
export const FIRST_GRAIN = 4;

interface HourSums {
  txs: number;
  gasUsed: bigint;
  fees: bigint;
  gasPriceSum: bigint;
  maxGasPrice: bigint;
  maxTps: number;
  maxGps: bigint;
  contracts: number;
}

const isZero = (a: Uint8Array): boolean => a.every((b) => b === 0);

/** Adds `blocks` (consecutive, after the stored head) to the rollups. */
export async function foldMetrics(tx: SqlTx, chainId: string, blocks: readonly DerivedBlock[]): Promise<void> {
  if (blocks.length === 0) return;
  const hours = new Map<number, HourSums>();
  // Seconds of block time: one second's blocks may straddle two batches, so the stored blocks of the batch's first
  // second count in its total (evm_blocks_by_time finds them).
  const firstTs = blocks[0]!.block.timestamp;
  const [before] = await tx.query<{txs: bigint | null; gas: string | null}>(
    "SELECT sum(tx_count)::int8 AS txs, sum(gas_used)::text AS gas FROM evm_blocks WHERE timestamp = $1 AND chain_id = $2 AND number < $3",
    [firstTs, chainId, blocks[0]!.block.number],
  );
  const seconds = new Map<bigint, {txs: number; gas: bigint}>([[firstTs, {txs: Number(before?.txs ?? 0), gas: BigInt(before?.gas ?? 0)}]]);
  // (kind, grain, bucket, address) → first block; (kind, address) → first block and its hour.
  const seen = new Map<string, [number, number, number, Uint8Array, bigint]>();
  const first = new Map<string, [number, Uint8Array, number, bigint]>();
  const see = (kind: number, addr: Uint8Array | null, t: number, number: bigint): void => {
    if (addr === null || isZero(addr)) return;
    const hex = bytesToHex(addr);
    const fk = `${kind}:${hex}`;
    if (!first.has(fk)) first.set(fk, [kind, addr, bucketStart("hour", t), number]);
    for (const g of GRAINS) {
      const b = bucketStart(g, t);
      const k = `${kind}:${GRAIN_CODE[g]}:${b}:${hex}`;
      if (!seen.has(k)) seen.set(k, [kind, GRAIN_CODE[g], b, addr, number]);
    }
  };

  for (const d of blocks) {
    const b = d.block;
    const t = Number(b.timestamp);
    const hour = bucketStart("hour", t);
    let h = hours.get(hour);
    if (!h) hours.set(hour, (h = {txs: 0, gasUsed: 0n, fees: 0n, gasPriceSum: 0n, maxGasPrice: 0n, maxTps: 0, maxGps: 0n, contracts: 0}));
    h.txs += b.txCount;
    h.gasUsed += b.gasUsed;
    h.fees += b.feesSpent;
    h.contracts += d.contracts.length;
    let s = seconds.get(b.timestamp);
    if (!s) seconds.set(b.timestamp, (s = {txs: 0, gas: 0n}));
    s.txs += b.txCount;
    s.gas += b.gasUsed;
    if (s.txs > h.maxTps) h.maxTps = s.txs;
    if (s.gas > h.maxGps) h.maxGps = s.gas;
    for (const x of d.txs) {
      h.gasPriceSum += x.gasPrice;
      if (x.gasPrice > h.maxGasPrice) h.maxGasPrice = x.gasPrice;
      see(KIND.address, x.from, t, b.number);
      see(KIND.address, x.to, t, b.number);
      see(KIND.sender, x.from, t, b.number);
    }
    for (const tr of d.transfers) {
      see(KIND.address, tr.from, t, b.number);
      see(KIND.address, tr.to, t, b.number);
    }
    for (const ct of d.contracts) see(KIND.deployer, ct.deployer, t, b.number);
  }

  const hs = [...hours.entries()];
  await tx.query(
    `INSERT INTO metrics_hours (chain_id, hour, txs, gas_used, fees, gas_price_sum, max_gas_price, max_tps, max_gps, contracts)
     SELECT $1, * FROM unnest($2::int8[], $3::int8[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::int8[], $9::numeric[], $10::int8[])
     ON CONFLICT (chain_id, hour) DO UPDATE SET txs = metrics_hours.txs + excluded.txs, gas_used = metrics_hours.gas_used + excluded.gas_used,
       fees = metrics_hours.fees + excluded.fees, gas_price_sum = metrics_hours.gas_price_sum + excluded.gas_price_sum,
       max_gas_price = GREATEST(metrics_hours.max_gas_price, excluded.max_gas_price), max_tps = GREATEST(metrics_hours.max_tps, excluded.max_tps),
       max_gps = GREATEST(metrics_hours.max_gps, excluded.max_gps), contracts = metrics_hours.contracts + excluded.contracts`,
    [
      chainId,
      hs.map(([k]) => k),
      hs.map(([, h]) => h.txs),
      hs.map(([, h]) => h.gasUsed.toString()),
      hs.map(([, h]) => h.fees.toString()),
      hs.map(([, h]) => h.gasPriceSum.toString()),
      hs.map(([, h]) => h.maxGasPrice.toString()),
      hs.map(([, h]) => h.maxTps),
      hs.map(([, h]) => h.maxGps.toString()),
      hs.map(([, h]) => h.contracts),
    ],
  );

  // Rows already there are no-ops (an address seen earlier in the bucket); the counts go up by what is new.
  const sv = [...seen.values()];
  const fv = [...first.values()];
  if (sv.length === 0) return;
  await tx.query(
    `WITH ins AS (
       INSERT INTO metrics_seen (chain_id, kind, grain, bucket, address, block_number)
       SELECT $1, * FROM unnest($2::int2[], $3::int2[], $4::int8[], $5::bytea[], $6::int8[])
       ON CONFLICT DO NOTHING RETURNING kind, grain, bucket),
     ins_first AS (
       INSERT INTO metrics_first (chain_id, kind, address, hour, block_number)
       SELECT $1, * FROM unnest($7::int2[], $8::bytea[], $9::int8[], $10::int8[])
       ON CONFLICT DO NOTHING RETURNING kind, ${FIRST_GRAIN}::int2 AS grain, hour AS bucket)
     INSERT INTO metrics_distinct (chain_id, kind, grain, bucket, n)
     SELECT $1, kind, grain, bucket, count(*) FROM (SELECT * FROM ins UNION ALL SELECT * FROM ins_first) x GROUP BY kind, grain, bucket
     ON CONFLICT (chain_id, kind, grain, bucket) DO UPDATE SET n = metrics_distinct.n + excluded.n`,
    [
      chainId,
      sv.map((r) => r[0]),
      sv.map((r) => r[1]),
      sv.map((r) => r[2]),
      sv.map((r) => r[3]),
      sv.map((r) => r[4]),
      fv.map((r) => r[0]),
      fv.map((r) => r[1]),
      fv.map((r) => r[2]),
      fv.map((r) => r[3]),
    ],
  );
}

/**
 * Takes back what the blocks after `to` added (call before their rows are deleted): the distinct rows they
 * inserted and the counts of those, and the hours from the first dropped block's on, computed again from the kept
 * blocks' rows.
 */
export async function rollbackMetrics(tx: SqlTx, chainId: string, to: bigint): Promise<void> {
  const [first] = await tx.query<{ts: bigint | null}>("SELECT min(timestamp) AS ts FROM evm_blocks WHERE chain_id = $1 AND number > $2", [chainId, to]);
  if (first?.ts === null || first?.ts === undefined) return;
  // The dropped blocks' rows are in buckets from the first dropped block's on (timestamps do not decrease): by key.
  const ts = Number(first.ts);
  const seen = GRAINS.map((g) => `(grain = ${GRAIN_CODE[g]} AND bucket >= ${bucketStart(g, ts)})`).join(" OR ");
  await tx.query(
    `WITH del AS (DELETE FROM metrics_seen WHERE chain_id = $1 AND kind IN (0, 1, 2) AND (${seen}) AND block_number > $2 RETURNING kind, grain, bucket),
     counts AS (SELECT kind, grain, bucket, count(*) AS n FROM del GROUP BY kind, grain, bucket)
     UPDATE metrics_distinct m SET n = m.n - c.n FROM counts c WHERE m.chain_id = $1 AND m.kind = c.kind AND m.grain = c.grain AND m.bucket = c.bucket`,
    [chainId, to],
  );
  // metrics_first has no key by time: a scan of the chain's rows, once a reorg.
  await tx.query(
    `WITH del AS (DELETE FROM metrics_first WHERE chain_id = $1 AND block_number > $2 RETURNING kind, hour),
     counts AS (SELECT kind, hour, count(*) AS n FROM del GROUP BY kind, hour)
     UPDATE metrics_distinct m SET n = m.n - c.n FROM counts c WHERE m.chain_id = $1 AND m.kind = c.kind AND m.grain = ${FIRST_GRAIN} AND m.bucket = c.hour`,
    [chainId, to],
  );
  await tx.query("DELETE FROM metrics_distinct WHERE chain_id = $1 AND n = 0", [chainId]);
  const from = bucketStart("hour", ts);
  await tx.query("DELETE FROM metrics_hours WHERE chain_id = $1 AND hour >= $2", [chainId, from]);
  await tx.query(recomputeHoursSql("b.chain_id = $1 AND b.number <= $2 AND b.timestamp >= $3"), [chainId, to, from]);
}
