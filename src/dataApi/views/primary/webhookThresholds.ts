/**
 * balance_threshold messages of primary_network_address_activity webhooks (schema 23), decided by the fold: a
 * transaction's message is written only when it moved a watched address's AVAX balance of the filter's kind across
 * the threshold (from under it to at or over it, or back), with the balances before and after it.
 *
 * The fold keeps, for each P/X address some balance_threshold webhook watches (of any status), its AVAX as the
 * chain's own unspent UTXOs summed by what decides their kind at a time (`webhook_balances`: staked, staking end,
 * staker start, locktime, stakeable locktime; models/primary/balances.ts decides the kinds). A batch reads the UTXOs
 * its transactions created and consumed, by ID, for the watched addresses among their owners; walks its
 * transactions in order, each one's balances before and after at its own time from those sums; writes the
 * crossings to the outbox and the sums back, all in the batch's SQL transaction (so a batch rolled back leaves
 * them as they were). The work is the batch's UTXOs and an address's few sums, never its history.
 *
 * An address's sums are computed once from the store, at the first batch that touches it after a webhook watches
 * it (and after a rebuild, which starts them afresh): its unspent UTXOs as the store holds them with the batch's
 * rows, less the batch's own changes. Balances that change only because time passed (a locktime or a stake ending)
 * make no message, as before: a message is a transaction's. Not followed: a stake output made plain by a proposal
 * aborted in a later batch (before Banff) keeps its staked sum until it is spent.
 */
import type {SqlTx} from "../../store/sql.js";

/** Where a change of balances happened: the transaction, its place in the view's order and its time. */
export interface BalancePlace {
  chainId: string;
  /** The webhooks' position (EventPlace.pos): P block height, X seq. */
  pos: bigint;
  txId: string;
  height: bigint;
  txIndex: number;
  /** Unix seconds: the kinds are decided at it. */
  ts: bigint;
}

/** What decides a UTXO's kind at a time (0: none), and the AVAX summed under it. */
interface Sum {
  staked: boolean;
  stakingEnd: bigint;
  startTs: bigint;
  locktime: bigint;
  stakeableLocktime: bigint;
  amount: bigint;
}

/** On the P-chain, `unlocked` and `locked` sum its kinds (models/primary/balances.ts pChainBalance). */
const P_SUMS: Record<string, readonly string[]> = {
  unlocked: ["unlockedUnstaked", "unlockedStaked"],
  locked: ["lockedPlatform", "lockedStakeable", "lockedStaked", "pendingStaked"],
};

/** The kind of a sum's UTXOs at `now`, as models/primary/balances.ts decides it (pChainBalance, xChainBalances). */
export function kindAt(chain: "P" | "X", s: Omit<Sum, "amount">, now: bigint): string {
  const locked = s.locktime > now;
  if (chain === "X") return locked ? "locked" : "unlocked";
  const stakeableLocked = s.stakeableLocktime > now;
  const staking = s.staked && s.stakingEnd > now;
  if (staking && s.startTs > now) return "pendingStaked";
  if (staking) return locked || stakeableLocked ? "lockedStaked" : "unlockedStaked";
  if (locked) return "lockedPlatform";
  if (stakeableLocked) return "lockedStakeable";
  return "unlockedUnstaked";
}

/** The balance of `balanceType` (a kind, or P's sum of kinds) that `sums` make at `now`. */
function balanceOf(chain: "P" | "X", sums: Iterable<Sum>, balanceType: string, now: bigint): bigint {
  const kinds = chain === "P" ? (P_SUMS[balanceType] ?? [balanceType]) : [balanceType];
  let total = 0n;
  for (const s of sums) if (kinds.includes(kindAt(chain, s, now))) total += s.amount;
  return total;
}

const sumKey = (s: Omit<Sum, "amount">): string =>
  `${s.staked}:${s.stakingEnd}:${s.startTs}:${s.locktime}:${s.stakeableLocktime}`;

interface SumRow {
  a: string;
  staked: boolean;
  staking_end: string;
  start_ts: string;
  locktime: string;
  stakeable_locktime: string;
  amount: string;
}

const sumOf = (r: SumRow, sign = 1n): Sum => ({
  staked: r.staked,
  stakingEnd: BigInt(r.staking_end),
  startTs: BigInt(r.start_ts),
  locktime: BigInt(r.locktime),
  stakeableLocktime: BigInt(r.stakeable_locktime),
  amount: sign * BigInt(r.amount),
});

/** A UTXO's sum columns (its staker's start when it is a stake output), 0 where it has none: `u` and its staker `s`. */
const SUM_COLUMNS = `COALESCE(u.staked, false) AS staked,
  CASE WHEN u.staked THEN COALESCE(u.staking_end, 0) ELSE 0 END::text AS staking_end,
  CASE WHEN u.staked THEN COALESCE(s.start_ts, 0) ELSE 0 END::text AS start_ts,
  COALESCE(u.locktime, 0)::text AS locktime, COALESCE(u.stakeable_locktime, 0)::text AS stakeable_locktime`;
const STAKER = "LEFT JOIN LATERAL (SELECT start_ts FROM stakers WHERE u.staked AND tx_id = u.tx_id OFFSET 0) s ON true";
/** Some balance_threshold webhook of the chain ($c) watches the address `addr` (bytea). */
const WATCHED = (addr: string, c: string): string =>
  `EXISTS (SELECT 1 FROM webhook_addresses wa JOIN webhooks h ON h.id = wa.webhook_id
           WHERE wa.address = ${addr} AND h.event_type = 'primary_network_address_activity' AND h.chain_id = ${c}
             AND jsonb_exists(h.metadata -> 'subEvents' -> 'addressActivitySubEvents', 'balance_threshold'))`;

/** A batch's UTXOs created and consumed, by transaction, collected while it is built (only with such a webhook). */
export class BalanceChanges {
  private readonly places: BalancePlace[] = [];
  private readonly ids: string[] = [];
  private readonly at: number[] = [];
  private readonly signs: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  /** The transaction at `place` created `created` and consumed `consumed` (UTXO IDs). */
  add(place: BalancePlace, created: readonly string[], consumed: readonly string[]): void {
    if (created.length === 0 && consumed.length === 0) return;
    const i = this.places.push(place) - 1;
    for (const id of created) this.push(id, i, 1);
    for (const id of consumed) this.push(id, i, -1);
  }

  private push(id: string, i: number, sign: number): void {
    this.ids.push(id);
    this.at.push(i);
    this.signs.push(sign);
  }

  /**
   * The batch's crossings into the outbox and its watched addresses' sums kept, in `tx` after the batch's rows (the
   * UTXOs it created are read back by ID). `chain` is the batch's.
   */
  async fold(tx: SqlTx, o: {chain: "P" | "X"; chainId: string; avaxAssetId: string}): Promise<number> {
    if (this.size === 0) return 0;
    const changes = await tx.query<SumRow & {i: number; sign: number}>(
      `SELECT x.i, x.sign, a.a, u.amount::text AS amount, ${SUM_COLUMNS}
       FROM unnest($1::text[], $2::int4[], $3::int4[]) AS x(id, i, sign)
       JOIN utxos u ON u.utxo_id = x.id
       ${STAKER}
       CROSS JOIN LATERAL (SELECT DISTINCT e AS a FROM jsonb_array_elements_text(u.addresses) AS e) AS a
       WHERE u.created_chain = $4 AND u.exported_to IS NULL AND u.asset_id = $5 AND u.amount IS NOT NULL
         AND ${WATCHED("decode(a.a, 'hex')", "$4")}`,
      [this.ids, this.at, this.signs, o.chainId, o.avaxAssetId],
    );
    if (changes.length === 0) return 0;
    const addresses = [...new Set(changes.map((c) => c.a))];
    const bytes = addresses.map((a) => Buffer.from(a, "hex"));
    const seeded = new Set(
      (
        await tx.query<{a: string}>(
          "SELECT encode(address, 'hex') AS a FROM webhook_balance_addresses WHERE chain = $1 AND address = ANY($2::bytea[])",
          [o.chain, bytes],
        )
      ).map((r) => r.a),
    );
    const fresh = addresses.filter((a) => !seeded.has(a));
    const state = new Map<string, Map<string, Sum>>(addresses.map((a) => [a, new Map()]));
    const addTo = (a: string, s: Sum): void => {
      const m = state.get(a)!;
      const k = sumKey(s);
      const had = m.get(k);
      if (had) had.amount += s.amount;
      else m.set(k, {...s});
    };
    const kept = await tx.query<SumRow>(
      `SELECT encode(address, 'hex') AS a, staked, staking_end::text, start_ts::text, locktime::text, stakeable_locktime::text, amount::text
       FROM webhook_balances WHERE chain = $1 AND address = ANY($2::bytea[])`,
      [o.chain, bytes.filter((_, i) => seeded.has(addresses[i]!))],
    );
    for (const r of kept) addTo(r.a, sumOf(r));
    if (fresh.length > 0) {
      // Computed once from the store, which holds the batch's rows: its unspent UTXOs now (unspent_owned, so not its
      // whole history), less the batch's changes.
      const now = await tx.query<SumRow>(
        `SELECT encode(uo.address, 'hex') AS a, ${SUM_COLUMNS}, sum(u.amount)::text AS amount
         FROM unspent_owned uo JOIN utxos u ON u.utxo_id = uo.utxo_id ${STAKER}
         WHERE uo.address = ANY($1::bytea[]) AND u.created_chain = $2 AND u.exported_to IS NULL AND u.asset_id = $3 AND u.created_ts IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.utxo_id)
         GROUP BY 1, 2, 3, 4, 5, 6`,
        [fresh.map((a) => Buffer.from(a, "hex")), o.chainId, o.avaxAssetId],
      );
      for (const r of now) addTo(r.a, sumOf(r));
      const isFresh = new Set(fresh);
      for (const c of changes) if (isFresh.has(c.a)) addTo(c.a, sumOf(c, -BigInt(c.sign)));
    }
    const hooks = await tx.query<{
      a: string;
      id: string;
      from_block: string;
      f: {balanceType: string; balanceThreshold: string};
    }>(
      `SELECT encode(wa.address, 'hex') AS a, h.id, h.from_block::text AS from_block, h.metadata -> 'balanceThresholdFilter' AS f
       FROM webhook_addresses wa JOIN webhooks h ON h.id = wa.webhook_id
       WHERE wa.address = ANY($1::bytea[]) AND h.status = 'active' AND h.event_type = 'primary_network_address_activity' AND h.chain_id = $2
         AND jsonb_exists(h.metadata -> 'subEvents' -> 'addressActivitySubEvents', 'balance_threshold') AND jsonb_exists(h.metadata, 'balanceThresholdFilter')`,
      [bytes, o.chainId],
    );
    const hooksOf = new Map<string, typeof hooks>();
    for (const h of hooks) hooksOf.set(h.a, [...(hooksOf.get(h.a) ?? []), h]);

    // The batch's transactions in order; each one's changes to each address, its balances before and after.
    const byPlace = new Map<number, typeof changes>();
    for (const c of changes) byPlace.set(c.i, [...(byPlace.get(c.i) ?? []), c]);
    const messages: unknown[][] = [];
    for (const i of [...byPlace.keys()].sort((x, y) => x - y)) {
      const place = this.places[i]!;
      const mine = byPlace.get(i)!;
      for (const a of new Set(mine.map((c) => c.a))) {
        const watchers = (hooksOf.get(a) ?? []).filter((h) => BigInt(h.from_block) <= place.pos);
        const before = watchers.map((h) => balanceOf(o.chain, state.get(a)!.values(), h.f.balanceType, place.ts));
        for (const c of mine) if (c.a === a) addTo(a, sumOf(c, BigInt(c.sign)));
        watchers.forEach((h, j) => {
          const after = balanceOf(o.chain, state.get(a)!.values(), h.f.balanceType, place.ts);
          const threshold = BigInt(h.f.balanceThreshold);
          if (before[j]! < threshold === after < threshold) return;
          const event = {
            subEvent: "balance_threshold",
            addresses: [a],
            address: a,
            balanceType: h.f.balanceType,
            balanceThreshold: h.f.balanceThreshold,
            previousBalance: before[j]!.toString(),
            balance: after.toString(),
            direction: after >= threshold ? "above" : "below",
          };
          messages.push([
            h.id,
            place.chainId,
            place.txId,
            a,
            place.height.toString(),
            place.txIndex,
            JSON.stringify(event),
          ]);
        });
      }
    }

    // The sums as of the batch's end, for the addresses it touched (an empty sum is no row).
    const rows = addresses.flatMap((a) =>
      [...state.get(a)!.values()].filter((s) => s.amount !== 0n).map((s) => ({a, ...s})),
    );
    await tx.query(
      "INSERT INTO webhook_balance_addresses (chain, address) SELECT $1, a FROM unnest($2::bytea[]) AS a ON CONFLICT DO NOTHING",
      [o.chain, fresh.map((a) => Buffer.from(a, "hex"))],
    );
    await tx.query("DELETE FROM webhook_balances WHERE chain = $1 AND address = ANY($2::bytea[])", [o.chain, bytes]);
    if (rows.length > 0) {
      await tx.query(
        `INSERT INTO webhook_balances (chain, address, staked, staking_end, start_ts, locktime, stakeable_locktime, amount)
         SELECT $1, decode(a, 'hex'), s, e, st, l, sl, amt::numeric FROM unnest($2::text[], $3::bool[], $4::int8[], $5::int8[], $6::int8[], $7::int8[], $8::text[]) AS u(a, s, e, st, l, sl, amt)`,
        [
          o.chain,
          rows.map((r) => r.a),
          rows.map((r) => r.staked),
          rows.map((r) => r.stakingEnd.toString()),
          rows.map((r) => r.startTs.toString()),
          rows.map((r) => r.locktime.toString()),
          rows.map((r) => r.stakeableLocktime.toString()),
          rows.map((r) => r.amount.toString()),
        ],
      );
    }
    if (messages.length > 0) {
      // The message ID of a webhook, chain, transaction, sub-event and address, as the candidates of schema 22 had.
      await tx.query(
        `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, primary_tx_id, event, created_at)
         SELECT md5(id || ':' || c || ':' || t || ':balance_threshold:' || a)::uuid::text, id, c, h, i, t, e::jsonb, (extract(epoch from clock_timestamp()) * 1000)::int8
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::int4[], $7::text[]) AS u(id, c, t, a, h, i, e)
         ON CONFLICT (message_id) DO NOTHING`,
        [0, 1, 2, 3, 4, 5, 6].map((k) => messages.map((m) => m[k])),
      );
    }
    return messages.length;
  }
}
