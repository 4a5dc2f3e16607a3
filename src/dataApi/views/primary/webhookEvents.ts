/**
 * The primary-network view's part of the webhooks' outbox (schema 17, 22): the messages of
 * `primary_network_address_activity` and `validator_activity` webhooks, collected while a batch is built and written
 * by its statement (batchSql.ts batchStatements), so they commit or roll back with the batch's rows: a kill -9 neither
 * loses one nor makes one for a batch not folded. Accepted P and X blocks are final (no reorg), so nothing here is
 * ever reversed.
 *
 * Matching is in SQL, against the webhooks the statement sees, by index: an address event joins `webhook_addresses`
 * (the webhook's keys as 20-byte addresses), a validator event `webhook_keys` (its keys, nodeIds and subnetIds as
 * rows, schema 23), and reads the webhook's small `metadata` (sub-events, L1 balance threshold). A 50,000-key
 * webhook costs a matched row what a one-key one does. A webhook gets the events from its `from_block` on (queries/webhooks.ts):
 * on P the block height, on X the transaction's place in the view's order (`seq`), so a refold after
 * `data-api rebuild` sends it no history.
 *
 * A message's ID is derived from the webhook, chain, transaction (or block, for an event of a block), sub-event and,
 * where one transaction makes several, the address or validator: a batch folded again makes the same IDs (ON
 * CONFLICT DO NOTHING keeps the first). The body is built at the first attempt (webhooks/primaryPayload.ts). A
 * balance_threshold message is written only when the balance crossed (webhookThresholds.ts, after the batch's rows).
 */
import {arrayParam, type BulkColumnType} from "../../store/bulk.js";
import type {PrimaryTx} from "./model.js";
import type {L1EffectRow} from "./rows.js";

/** Where an event happened: its chain, transaction (null: the block's), block, and the webhook position it is at. */
export interface EventPlace {
  chainId: string;
  /** The P block height, or the X transaction's seq: compared with a webhook's from_block. */
  pos: bigint;
  txId: string | null;
  /** The block (or vertex) ID: an event of a block is named by it. */
  blockId: string;
  height: bigint;
  txIndex: number;
}

/** A primary_network_address_activity sub-event an address takes part in. */
type AddressSub = "balance_change" | "reward_distribution";

export type ValidatorSub =
  | "validator_stake"
  | "delegator_stake"
  | "reward_distribution"
  | "l1_validator_balance_increased"
  | "l1_validator_disabled"
  | "l1_validator_removed"
  | "l1_validator_balance_threshold";

const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::int8";

/** What a batch's transactions and blocks did that primary webhooks may watch; written with the batch. */
export class WebhookEvents {
  private readonly addr: unknown[][] = [];
  private readonly validator: unknown[][] = [];

  get size(): number {
    return this.addr.length + this.validator.length;
  }

  /**
   * A transaction consumed or created UTXOs of `addresses` (balance_change, and a balance_threshold candidate for
   * each); a reward transaction's payouts add reward_distribution, with `facts` (the payouts) in the event.
   */
  addresses(
    place: EventPlace,
    addresses: readonly Uint8Array[],
    sub: AddressSub = "balance_change",
    facts: Record<string, unknown> = {},
  ): void {
    const seen = new Set<string>();
    for (const a of addresses) {
      const k = Buffer.from(a).toString("hex");
      if (seen.has(k)) continue;
      seen.add(k);
      this.addr.push([
        a,
        place.chainId,
        place.pos,
        place.txId,
        place.blockId,
        place.height,
        place.txIndex,
        sub,
        JSON.stringify(facts),
      ]);
    }
  }

  /**
   * A validator's event: `key` tells apart the messages one transaction makes for one webhook (the validation ID of
   * an L1 validator, else the node). `balance` [before, after] for l1_validator_balance_threshold.
   */
  validatorEvent(
    place: EventPlace,
    sub: ValidatorSub,
    v: {nodeId: string; subnetId: string; key?: string; balance?: [bigint, bigint]},
    facts: Record<string, unknown>,
  ): void {
    this.validator.push([
      v.nodeId,
      v.subnetId,
      place.chainId,
      place.pos,
      place.txId,
      place.blockId,
      place.height,
      place.txIndex,
      sub,
      v.key ?? v.nodeId,
      JSON.stringify({...facts, subEvent: sub, nodeId: v.nodeId, subnetId: v.subnetId}),
      v.balance ? v.balance[0].toString() : null,
      v.balance ? v.balance[1].toString() : null,
    ]);
  }

  /** The batch's INSERTs into the outbox (data-modifying CTEs of its statement), their arrays appended to `params`. */
  statements(params: unknown[]): string[] {
    const out: string[] = [];
    const arrays = (rows: unknown[][], types: BulkColumnType[]): string[] =>
      types.map((t, c) => {
        params.push(
          arrayParam(
            t,
            rows.map((r) => r[c]),
          ),
        );
        return `$${params.length}::${t === "text[]" || t === "jsonb" || t === "numeric" ? "text" : t}[]`;
      });
    if (this.addr.length > 0) {
      const [a, c, pos, tx, blk, h, i, sub, facts] = arrays(this.addr, [
        "bytea",
        "text",
        "int8",
        "text",
        "text",
        "int8",
        "int4",
        "text",
        "text",
      ]);
      // balance_change: one message a webhook and transaction, naming the watched addresses it touched;
      // reward_distribution: one a webhook and reward transaction. (balance_threshold: webhookThresholds.ts.) The
      // webhook's sub-events are small metadata (its keys are rows: schema 23), read once a matched row.
      out.push(
        `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, primary_tx_id, event, created_at)
         SELECT md5(m.id || ':' || m.c || ':' || m.tx || ':' || m.sub)::uuid::text, m.id, m.c, min(m.h), min(m.i), m.tx,
                jsonb_build_object('subEvent', m.sub, 'addresses', jsonb_agg(DISTINCT m.a ORDER BY m.a)) || min(m.f)::jsonb, ${NOW_MS}
         FROM (
           SELECT h.id, u.c, u.tx, u.sub, encode(u.a, 'hex') AS a, u.h, u.i, u.f
           FROM unnest(${a}, ${c}, ${pos}, ${tx}, ${blk}, ${h}, ${i}, ${sub}, ${facts}) AS u(a, c, pos, tx, blk, h, i, sub, f)
           JOIN webhook_addresses wa ON wa.address = u.a
           JOIN webhooks h ON h.id = wa.webhook_id AND h.status = 'active' AND h.event_type = 'primary_network_address_activity' AND h.chain_id = u.c AND h.from_block <= u.pos
             AND jsonb_exists(h.metadata -> 'subEvents' -> 'addressActivitySubEvents', u.sub)
         ) AS m
         GROUP BY m.id, m.c, m.tx, m.sub
         ON CONFLICT (message_id) DO NOTHING`,
      );
    }
    if (this.validator.length > 0) {
      const [node, subnet, c, pos, tx, blk, h, i, sub, k, e, before, after] = arrays(this.validator, [
        "text",
        "text",
        "text",
        "int8",
        "text",
        "text",
        "int8",
        "int4",
        "text",
        "text",
        "text",
        "numeric",
        "numeric",
      ]);
      out.push(
        `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, primary_tx_id, event, created_at)
         SELECT md5(h.id || ':' || u.c || ':' || COALESCE(u.tx, 'block:' || u.blk) || ':' || u.sub || ':' || u.k)::uuid::text, h.id, u.c, u.h, u.i, u.tx,
                CASE WHEN u.sub = 'l1_validator_balance_threshold' THEN u.e::jsonb || jsonb_build_object('l1ValidatorFeeBalanceThreshold', h.metadata ->> 'l1ValidatorFeeBalanceThreshold') ELSE u.e::jsonb END,
                ${NOW_MS}
         FROM unnest(${node}, ${subnet}, ${c}, ${pos}, ${tx}, ${blk}, ${h}, ${i}, ${sub}, ${k}, ${e}, ${before}, ${after}) AS u(node, subnet, c, pos, tx, blk, h, i, sub, k, e, before, after)
         JOIN webhook_keys wk ON wk.kind = 'key' AND wk.key IN (u.node, u.subnet)
         JOIN webhooks h ON h.id = wk.webhook_id AND h.status = 'active' AND h.event_type = 'validator_activity' AND h.chain_id = u.c AND h.from_block <= u.pos
           AND wk.key = CASE WHEN h.metadata ->> 'keyType' = 'subnetId' THEN u.subnet ELSE u.node END
           AND jsonb_exists(h.metadata -> 'subEvents' -> 'validatorActivitySubEvents', u.sub)
           AND (NOT EXISTS (SELECT 1 FROM webhook_keys f WHERE f.webhook_id = h.id AND f.kind = 'nodeId')
                OR EXISTS (SELECT 1 FROM webhook_keys f WHERE f.webhook_id = h.id AND f.kind = 'nodeId' AND f.key = u.node))
           AND (NOT EXISTS (SELECT 1 FROM webhook_keys f WHERE f.webhook_id = h.id AND f.kind = 'subnetId')
                OR EXISTS (SELECT 1 FROM webhook_keys f WHERE f.webhook_id = h.id AND f.kind = 'subnetId' AND f.key = u.subnet))
         WHERE u.sub <> 'l1_validator_balance_threshold'
            OR (u.before::numeric >= (h.metadata ->> 'l1ValidatorFeeBalanceThreshold')::numeric AND u.after::numeric < (h.metadata ->> 'l1ValidatorFeeBalanceThreshold')::numeric)
         ON CONFLICT (message_id) DO NOTHING`,
      );
    }
    return out;
  }
}

/** What the primary webhooks ask of a batch, read once a batch (webhooksOfBatch). */
export interface BatchWebhooks {
  /** Some active primary webhook of the chain: its events are collected and written (else none is). */
  events: boolean;
  /** Some balance_threshold webhook of the chain, of any status: its addresses' balances are kept (webhookThresholds.ts). */
  thresholds: boolean;
  /**
   * The L1 fee balance thresholds active validator_activity webhooks watch: the fold reports a validator's balance
   * only when it falls under one of them (every P block charges every active L1 validator).
   */
  l1Thresholds: bigint[];
  /**
   * The endpoint's count of primary webhook changes (view_positions.webhooks, schema 26) as read with the rest: the
   * batch's statement is written only if it is still that (view.ts writeBuilt). Null: the batch reads no webhooks (C).
   */
  version: bigint | null;
}

export const NO_WEBHOOKS: BatchWebhooks = {events: false, thresholds: false, l1Thresholds: [], version: null};

/**
 * What the primary webhooks of `chainId` ask of a batch of `endpoint`: one small read (the keys are rows, not
 * metadata), so a store without primary webhooks pays it and nothing else. It reads the endpoint's count of webhook
 * changes in the same snapshot: a webhook made after this read (its first event may be in the batch) changes it,
 * and the batch is built again (foldError.ts HooksChangedError).
 */
export async function webhooksOfBatch(
  tx: {query: <T>(sql: string, params?: unknown[]) => Promise<T[]>},
  chainId: string,
  endpoint: string,
): Promise<BatchWebhooks> {
  const [r] = await tx.query<{
    events: boolean | null;
    thresholds: boolean | null;
    l1: string[] | null;
    version: string | null;
  }>(
    `SELECT (SELECT webhooks FROM view_positions WHERE endpoint = $2)::text AS version,
            bool_or(status = 'active') AS events,
            bool_or(event_type = 'primary_network_address_activity' AND jsonb_exists(metadata -> 'subEvents' -> 'addressActivitySubEvents', 'balance_threshold')) AS thresholds,
            array_agg(DISTINCT metadata ->> 'l1ValidatorFeeBalanceThreshold') FILTER (
              WHERE status = 'active' AND event_type = 'validator_activity' AND metadata ->> 'l1ValidatorFeeBalanceThreshold' IS NOT NULL
                AND jsonb_exists(metadata -> 'subEvents' -> 'validatorActivitySubEvents', 'l1_validator_balance_threshold')) AS l1
     FROM webhooks WHERE chain_id = $1 AND event_type IN ('primary_network_address_activity', 'validator_activity')`,
    [chainId, endpoint],
  );
  return {
    events: r?.events === true,
    thresholds: r?.thresholds === true,
    l1Thresholds: (r?.l1 ?? []).map((t) => BigInt(t)),
    version: BigInt(r?.version ?? "0"),
  };
}

/**
 * A P transaction's validator events: a staker added (validator_stake for a validator of the primary network or a
 * subnet, delegator_stake for a delegator), and what it did to L1 validators (their balance increased, disabled,
 * removed by weight 0), from the staking fold's effects.
 */
export function validatorEvents(
  events: WebhookEvents,
  place: EventPlace,
  t: PrimaryTx,
  effects: {l1: readonly L1EffectRow[]},
): void {
  const s = t.details.staker;
  if (s) {
    const facts = {
      weight: s.weight.toString(),
      endTimestamp: Number(s.endTime),
      ...(s.startTime !== null ? {startTimestamp: Number(s.startTime)} : {}),
    };
    events.validatorEvent(
      place,
      s.kind === "delegator" ? "delegator_stake" : "validator_stake",
      {nodeId: s.nodeId, subnetId: s.subnetId},
      facts,
    );
  }
  const sub: ValidatorSub | null =
    t.txType === "IncreaseL1ValidatorBalanceTx"
      ? "l1_validator_balance_increased"
      : t.txType === "DisableL1ValidatorTx"
        ? "l1_validator_disabled"
        : t.txType === "SetL1ValidatorWeightTx"
          ? "l1_validator_removed"
          : null;
  if (sub === null) return;
  for (const e of effects.l1) {
    if (sub === "l1_validator_removed" && e.weight !== 0n) continue;
    events.validatorEvent(place, sub, {nodeId: e.nodeId, subnetId: e.subnetId, key: e.validationId}, l1Facts(e));
  }
}

/** An L1 validator's figures in an event (nAVAX as decimal strings). */
export function l1Facts(e: {
  validationId: string;
  weight: bigint;
  remainingBalance: bigint;
  balanceChange?: bigint;
}): Record<string, unknown> {
  return {
    validationId: e.validationId,
    weight: e.weight.toString(),
    remainingBalance: e.remainingBalance.toString(),
    ...(e.balanceChange !== undefined ? {balanceChange: e.balanceChange.toString()} : {}),
  };
}
