/**
 * The metrics service's rollups (schema 18: metrics_hours, metrics_addr, metrics_distinct), kept in the transaction
 * that writes a batch of EVM blocks (write.ts) and taken back by a reorg's rollback.
 *
 * Hours hold sums and maxima, so a longer bucket is read as the sum or maximum of its hours. Distinct counts need
 * more than sums: each address has one row with the last bucket of every grain it was seen in (as any party, as a
 * sender, as a deployer), and an appearance in a later bucket counts it new there (metrics_distinct). One row an
 * address a batch, rewritten in place, is what keeps the fold's cost low: a row a bucket and grain would be five.
 *
 * Active addresses are the `from` and `to` (or created contract) of transactions and the `from` and `to` of token
 * transfers (ERC-20, 721, 1155), the zero address left out (it stands for a mint or a burn): the parties
 * evm_address_txs records but internal calls'; senders are transactions' `from`; deployers the accounts whose
 * transactions created contracts.
 */
import type {SqlTx} from "../../store/sql.js";
import {recomputeHoursSql} from "../../store/metricsRollups.js";
import {arrayParam, insertSql, paramArrayType, runTogether, type BulkColumn} from "../../store/bulk.js";
import {bytesToHex} from "../../../evm/hex.js";
import {GRAINS, bucketStart} from "../../../util/timeBuckets.js";
import type {DerivedBlock} from "./derive.js";

export const KIND = {address: 0, sender: 1, deployer: 2} as const;
/** metrics_distinct's grain for the addresses new ever, by hour. */
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
  const seconds = new Map<bigint, {txs: number; gas: bigint}>([
    [firstTs, {txs: Number(before?.txs ?? 0), gas: BigInt(before?.gas ?? 0)}],
  ]);
  // Per address, per kind: the buckets of each grain it was seen in (ascending: timestamps do not decrease) and
  // the first time.
  const seen = new Map<string, {addr: Uint8Array; kinds: Array<Appearances | undefined>}>();
  // The block's bucket starts, by grain (computed once a block: a month's start is a Date).
  let starts: number[] = [];
  const see = (kind: number, addr: Uint8Array | null, t: number): void => {
    if (addr === null || isZero(addr)) return;
    const key = Buffer.from(addr.buffer, addr.byteOffset, addr.byteLength).toString("latin1");
    let e = seen.get(key);
    if (!e) seen.set(key, (e = {addr, kinds: []}));
    let k = e.kinds[kind];
    if (!k) e.kinds[kind] = k = {first: t, buckets: [[], [], [], []]};
    for (let i = 0; i < 4; i++) {
      const list = k.buckets[i]!;
      if (list[list.length - 1] !== starts[i]) list.push(starts[i]!);
    }
  };

  for (const d of blocks) {
    const b = d.block;
    const t = Number(b.timestamp);
    starts = GRAINS.map((g) => bucketStart(g, t));
    const hour = starts[0]!;
    let h = hours.get(hour);
    if (!h)
      hours.set(
        hour,
        (h = {txs: 0, gasUsed: 0n, fees: 0n, gasPriceSum: 0n, maxGasPrice: 0n, maxTps: 0, maxGps: 0n, contracts: 0}),
      );
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
      see(KIND.address, x.from, t);
      see(KIND.address, x.to ?? x.created, t);
      see(KIND.sender, x.from, t);
    }
    for (const tr of d.transfers) {
      see(KIND.address, tr.from, t);
      see(KIND.address, tr.to, t);
    }
    for (const ct of d.contracts) see(KIND.deployer, ct.deployer, t);
  }

  // The writes go together, one statement (runTogether): the hours, the addresses' states, the counts.
  const statements: string[] = [];
  const params: unknown[] = [];
  const hourRows = [...hours.entries()].map(([hour, h]) => [
    chainId,
    hour,
    h.txs,
    h.gasUsed,
    h.fees,
    h.gasPriceSum,
    h.maxGasPrice,
    h.maxTps,
    h.maxGps,
    h.contracts,
  ]);
  statements.push(
    insertSql(
      "metrics_hours",
      HOUR_COLS,
      hourRows,
      {
        onConflict: `(chain_id, hour) DO UPDATE SET txs = metrics_hours.txs + excluded.txs, gas_used = metrics_hours.gas_used + excluded.gas_used,
       fees = metrics_hours.fees + excluded.fees, gas_price_sum = metrics_hours.gas_price_sum + excluded.gas_price_sum,
       max_gas_price = GREATEST(metrics_hours.max_gas_price, excluded.max_gas_price), max_tps = GREATEST(metrics_hours.max_tps, excluded.max_tps),
       max_gps = GREATEST(metrics_hours.max_gps, excluded.max_gps), contracts = metrics_hours.contracts + excluded.contracts`,
      },
      params,
    ),
  );
  if (seen.size > 0) {
    const entries = [...seen.values()];
    const states = await readStates(
      tx,
      chainId,
      entries.map((e) => e.addr),
    );
    const counts = new Counts();
    const changed: Array<[Uint8Array, State]> = [];
    for (const e of entries) {
      const state = states.get(bytesToHex(e.addr)) ?? emptyState();
      let change = false;
      e.kinds.forEach((k, kind) => {
        if (!k) return;
        const last = state[kind]!;
        if (last[0] === null) counts.add(kind, FIRST_GRAIN, bucketStart("hour", k.first), 1);
        k.buckets.forEach((list, g) => {
          for (const b of list) {
            if (last[g] === null || b > last[g]!) {
              counts.add(kind, g, b, 1);
              last[g] = b;
              change = true;
            }
          }
        });
      });
      // An address seen again in buckets it was already counted in changes nothing: no write.
      if (change) changed.push([e.addr, state]);
    }
    statements.push(...stateStatements(chainId, changed, params), ...counts.statements(chainId, params));
  }
  await runTogether(tx, statements, params);
}

const col = (name: string, type: BulkColumn["type"]): BulkColumn => ({name, type});
const HOUR_COLS = [
  col("chain_id", "text"),
  col("hour", "int8"),
  col("txs", "int8"),
  col("gas_used", "numeric"),
  col("fees", "numeric"),
  col("gas_price_sum", "numeric"),
  col("max_gas_price", "numeric"),
  col("max_tps", "int8"),
  col("max_gps", "numeric"),
  col("contracts", "int8"),
];
interface Appearances {
  /** The first timestamp in the batch. */
  first: number;
  /** By grain (GRAINS' order), the bucket starts, ascending. */
  buckets: number[][];
}

/** An address's last bucket by kind (KIND) and grain (GRAINS' order); null: never. */
type State = Array<Array<number | null>>;
const emptyState = (): State => [0, 1, 2].map(() => [null, null, null, null]);
const STATE_COLS = [
  "a_hour",
  "a_day",
  "a_week",
  "a_month",
  "s_hour",
  "s_day",
  "s_week",
  "s_month",
  "d_hour",
  "d_day",
  "d_week",
  "d_month",
];

async function readStates(tx: SqlTx, chainId: string, addrs: Uint8Array[]): Promise<Map<string, State>> {
  const rows = await tx.query<Record<string, unknown> & {address: Uint8Array}>(
    `SELECT address, ${STATE_COLS.join(", ")} FROM metrics_addr WHERE chain_id = $1 AND address = ANY($2::${paramArrayType("bytea")})`,
    [chainId, arrayParam("bytea", addrs)],
  );
  const out = new Map<string, State>();
  for (const r of rows) {
    out.set(
      bytesToHex(r.address),
      [0, 1, 2].map((k) =>
        [0, 1, 2, 3].map((g) => (r[STATE_COLS[k * 4 + g]!] == null ? null : Number(r[STATE_COLS[k * 4 + g]!]))),
      ),
    );
  }
  return out;
}

const ADDR_COLS = [col("chain_id", "text"), col("address", "bytea"), ...STATE_COLS.map((c) => col(c, "int8"))];

/** The statements that write the addresses' states; an address no longer seen at all (after a rollback) is deleted. */
function stateStatements(chainId: string, states: Array<[Uint8Array, State]>, params: unknown[]): string[] {
  const out: string[] = [];
  const live = states.filter(([, s]) => s.some((k) => k[0] !== null));
  const gone = states.filter(([, s]) => s.every((k) => k[0] === null)).map(([a]) => a);
  if (live.length > 0) {
    const rows = live.map(([a, s]) => [chainId, a, ...s.flat()]);
    out.push(
      insertSql(
        "metrics_addr",
        ADDR_COLS,
        rows,
        {onConflict: `(chain_id, address) DO UPDATE SET ${STATE_COLS.map((c) => `${c} = excluded.${c}`).join(", ")}`},
        params,
      ),
    );
  }
  if (gone.length > 0) {
    const c = params.push(chainId);
    const a = params.push(arrayParam("bytea", gone));
    out.push(`DELETE FROM metrics_addr WHERE chain_id = $${c} AND address = ANY($${a}::${paramArrayType("bytea")})`);
  }
  return out;
}

/** Changes to metrics_distinct, summed before they are written. */
class Counts {
  private readonly m = new Map<string, [number, number, number, number]>();
  add(kind: number, grain: number, bucket: number, n: number): void {
    const k = `${kind}:${grain}:${bucket}`;
    const e = this.m.get(k);
    if (e) e[3] += n;
    else this.m.set(k, [kind, grain, bucket, n]);
  }
  /** The upsert of the changes (and, when some count down, nothing else: rollbackMetrics drops the zeros after). */
  statements(chainId: string, params: unknown[]): string[] {
    const v = [...this.m.values()].filter((e) => e[3] !== 0);
    if (v.length === 0) return [];
    return [
      insertSql(
        "metrics_distinct",
        DISTINCT_COLS,
        v.map((e) => [chainId, ...e]),
        {onConflict: "(chain_id, kind, grain, bucket) DO UPDATE SET n = metrics_distinct.n + excluded.n"},
        params,
      ),
    ];
  }
}

const DISTINCT_COLS = [
  col("chain_id", "text"),
  col("kind", "int4"),
  col("grain", "int4"),
  col("bucket", "int8"),
  col("n", "int8"),
];

/**
 * Takes back what the blocks after `to` added (call before their rows are deleted). The hours from the first dropped
 * block's on are computed again from the kept blocks. Each address the dropped blocks saw gets its state from its
 * last kept appearance (by the address indexes of the EVM view), and the buckets the dropped blocks made it new in
 * are counted down: with timestamps that never decrease, a bucket of a dropped appearance was new by a kept block
 * only if it is the bucket of the last kept appearance.
 */
export async function rollbackMetrics(tx: SqlTx, chainId: string, to: bigint): Promise<void> {
  const [first] = await tx.query<{ts: bigint | null}>(
    "SELECT min(timestamp) AS ts FROM evm_blocks WHERE chain_id = $1 AND number > $2",
    [chainId, to],
  );
  if (first?.ts === null || first?.ts === undefined) return;
  if (to < 0n) {
    for (const t of ["metrics_hours", "metrics_addr", "metrics_distinct"])
      await tx.query(`DELETE FROM ${t} WHERE chain_id = $1`, [chainId]);
    return;
  }
  const ts = Number(first.ts);
  const from = bucketStart("hour", ts);
  await tx.query("DELETE FROM metrics_hours WHERE chain_id = $1 AND hour >= $2", [chainId, from]);
  await tx.query(recomputeHoursSql("b.chain_id = $1 AND b.number <= $2 AND b.timestamp >= $3"), [chainId, to, from]);

  const dropped = await tx.query<{kind: number; address: Uint8Array; ts: bigint}>(
    `SELECT DISTINCT x.kind, x.address, b.timestamp AS ts FROM (${partsSql("$1", "> $2")}) x JOIN evm_blocks b ON b.chain_id = $1 AND b.number = x.block_number
     WHERE x.address <> '\\x0000000000000000000000000000000000000000'::bytea`,
    [chainId, to],
  );
  // (kind, address) → the dropped appearances' timestamps.
  const byKind: Array<Map<string, {addr: Uint8Array; ts: number[]}>> = [new Map(), new Map(), new Map()];
  for (const r of dropped) {
    const hex = bytesToHex(r.address);
    const m = byKind[r.kind]!;
    const e = m.get(hex) ?? m.set(hex, {addr: r.address, ts: []}).get(hex)!;
    e.ts.push(Number(r.ts));
  }
  const all = new Map<string, Uint8Array>();
  for (const m of byKind) for (const [hex, e] of m) all.set(hex, e.addr);
  const states = await readStates(tx, chainId, [...all.values()]);
  const counts = new Counts();
  for (let kind = 0; kind < 3; kind++) {
    const m = byKind[kind]!;
    if (m.size === 0) continue;
    const rows = await tx.query<{address: Uint8Array; ts: bigint | null}>(LAST_KEPT[kind]!, [
      chainId,
      to,
      [...m.values()].map((e) => e.addr),
    ]);
    for (const r of rows) {
      const hex = bytesToHex(r.address);
      const e = m.get(hex)!;
      const kept = r.ts === null ? null : Number(r.ts);
      const state = states.get(hex) ?? emptyState();
      GRAINS.forEach((g, i) => {
        const keptBucket = kept === null ? null : bucketStart(g, kept);
        for (const b of new Set(e.ts.map((t) => bucketStart(g, t)))) if (b !== keptBucket) counts.add(kind, i, b, -1);
        state[kind]![i] = keptBucket;
      });
      if (kept === null) counts.add(kind, FIRST_GRAIN, bucketStart("hour", Math.min(...e.ts)), -1);
      states.set(hex, state);
    }
  }
  const params: unknown[] = [];
  await runTogether(
    tx,
    [
      ...stateStatements(
        chainId,
        [...all].map(([hex, addr]) => [addr, states.get(hex) ?? emptyState()]),
        params,
      ),
      ...counts.statements(chainId, params),
    ],
    params,
  );
  await tx.query("DELETE FROM metrics_distinct WHERE chain_id = $1 AND n = 0", [chainId]);
}

/** The appearances of addresses, by kind, in the blocks `range` selects (`> $2`, all: `IS NOT NULL`), chain `chain`. */
function partsSql(chain: string, range: string): string {
  const w = `chain_id = ${chain} AND block_number ${range}`;
  return `SELECT block_number, 0::int2 AS kind, from_addr AS address FROM evm_txs WHERE ${w}
    UNION ALL SELECT block_number, 0::int2, coalesce(to_addr, created) FROM evm_txs WHERE ${w} AND coalesce(to_addr, created) IS NOT NULL
    UNION ALL SELECT block_number, 1::int2, from_addr FROM evm_txs WHERE ${w}
    UNION ALL SELECT block_number, 0::int2, from_addr FROM evm_transfers WHERE ${w}
    UNION ALL SELECT block_number, 0::int2, to_addr FROM evm_transfers WHERE ${w}
    UNION ALL SELECT t.block_number, 2::int2, t.from_addr FROM evm_txs t
      JOIN evm_contracts c ON c.chain_id = t.chain_id AND c.address = t.created AND c.block_number = t.block_number AND c.tx_index = t.tx_index
      WHERE t.chain_id = ${chain} AND t.block_number ${range}`;
}

/**
 * The timestamp of each address's last appearance of a kind in the blocks up to $2, by the EVM view's address
 * indexes: kind 0 by evm_address_txs (kinds 1-8: a transaction's from, to or created contract, a transfer's
 * parties), 1 by the same rows whose transaction it sent, 2 by evm_contracts' deployer index.
 */
const LAST_KEPT = [
  `SELECT u.a AS address, (SELECT b.timestamp FROM evm_address_txs x JOIN evm_blocks b ON b.chain_id = x.chain_id AND b.number = x.block_number
     WHERE x.chain_id = $1 AND x.address = u.a AND x.block_number <= $2 AND x.kinds & 15 <> 0 ORDER BY x.block_number DESC LIMIT 1) AS ts
   FROM unnest($3::bytea[]) u(a)`,
  `SELECT u.a AS address, (SELECT b.timestamp FROM evm_address_txs x JOIN evm_txs t ON t.chain_id = x.chain_id AND t.block_number = x.block_number AND t.tx_index = x.tx_index
       JOIN evm_blocks b ON b.chain_id = x.chain_id AND b.number = x.block_number
     WHERE x.chain_id = $1 AND x.address = u.a AND x.block_number <= $2 AND x.kinds & 1 <> 0 AND t.from_addr = u.a ORDER BY x.block_number DESC LIMIT 1) AS ts
   FROM unnest($3::bytea[]) u(a)`,
  `SELECT u.a AS address, (SELECT b.timestamp FROM evm_contracts c JOIN evm_txs t ON t.chain_id = c.chain_id AND t.block_number = c.block_number AND t.tx_index = c.tx_index AND t.created = c.address
       JOIN evm_blocks b ON b.chain_id = c.chain_id AND b.number = c.block_number
     WHERE c.chain_id = $1 AND c.deployer = u.a AND c.block_number <= $2 ORDER BY c.block_number DESC LIMIT 1) AS ts
   FROM unnest($3::bytea[]) u(a)`,
];
