/**
 * The webhooks' outbox as delivery reads and moves it (schema 17; the EVM fold writes it,
 * views/evm/webhookOutbox.ts): the messages due, a claim before each attempt (the body frozen, the next attempt's
 * time set first, so a crash mid-POST retries it), each attempt's record, the transaction a message is about, and
 * the delivery log and replay that the hosted API lacks.
 */
import type {SqlClient, SqlTx} from "../store/sql.js";
import {pauseMessages} from "./webhooks.js";
import {Params} from "./sql.js";
import type {TxRow} from "../models/evm/index.js";

export interface DueMessage {
  message_id: string;
  webhook_id: string;
  chain_id: string;
  block_number: bigint;
  tx_index: number;
  attempts: number;
  attempt_base: number;
  body: string | null;
  reverses: string | null;
  created_at: bigint;
  logs: unknown[] | null;
  tx_hash: Uint8Array | null;
  icm_message_id: string | null;
  icm_sub_event: string | null;
  /** A primary message's transaction (P or X), and the facts the fold wrote (views/primary/webhookEvents.ts). */
  primary_tx_id: string | null;
  event: Record<string, unknown> | null;
  event_type: string;
  log_index?: number;
  url: string;
  secret: string | null;
  owner: string;
  include_logs: boolean;
  include_internal_txs: boolean;
  metadata: Record<string, unknown>;
}

/**
 * Messages whose attempt is due at `now` (Unix ms), of active webhooks, oldest first, at most `perWebhook` of a
 * webhook counting those it has in flight (`busy`): a webhook whose receiver never answers holds that many of
 * delivery's slots, and every other webhook's messages still go. A message of a webhook with internal transactions
 * waits for the chain's trace lane to cover its block (on a chain that serves traces). `skip` holds the messages in
 * flight: neither they nor a reversal of one are due, so a reversal never reaches a receiver before its original.
 */
export async function dueMessages(
  sql: SqlTx,
  now: number,
  limit: number,
  skip: readonly string[],
  o: {perWebhook: number; busy: ReadonlyMap<string, number>} = {perWebhook: limit, busy: new Map()},
): Promise<DueMessage[]> {
  return sql.query<DueMessage>(
    `SELECT o.message_id, o.webhook_id, o.chain_id, o.block_number, o.tx_index, o.attempts, o.attempt_base, o.body, o.reverses, o.created_at, o.logs, o.tx_hash, o.icm_message_id, o.icm_sub_event, o.primary_tx_id, o.event,
            h.event_type, h.url, COALESCE(h.secret, s.secret) AS secret, h.owner, h.include_logs, h.include_internal_txs, h.metadata
     FROM webhooks h
     LEFT JOIN unnest($4::text[], $5::int4[]) AS busy(id, n) ON busy.id = h.id
     CROSS JOIN LATERAL (
       SELECT o.* FROM webhook_outbox o
       LEFT JOIN evm_chains c ON c.chain_id = o.chain_id
       WHERE o.webhook_id = h.id AND o.state = 'pending' AND o.next_attempt_at <= $1 AND NOT (o.message_id = ANY($3::text[]))
         AND (o.reverses IS NULL OR NOT (o.reverses = ANY($3::text[])))
         AND (o.body IS NOT NULL OR NOT h.include_internal_txs OR c.traces IS NOT TRUE OR c.trace_lane >= o.block_number)
       ORDER BY o.next_attempt_at, o.created_at
       LIMIT greatest($6::int4 - COALESCE(busy.n, 0), 0)
     ) o
     LEFT JOIN webhook_secrets s ON s.owner = h.owner
     WHERE h.status = 'active'
     ORDER BY o.next_attempt_at, o.created_at
     LIMIT $2`,
    [now, limit, skip, [...o.busy.keys()], [...o.busy.values()], o.perWebhook],
  );
}

export interface Claim {
  id: string;
  attempts: number;
  body: string;
  nextAt: number;
}

/**
 * A message's state tested so that no plan reads it from the partial indexes of pending messages: the statements
 * that change given messages find them by ID (the primary key). An analysis that found none pending estimates those
 * indexes at one row, and a backlog made pending since (a receiver back, a replay) then had each claim and record
 * read every pending message: 70 ms a statement, 270 deliveries a second (bench/webhooks.mjs after the store's
 * maintenance), against 2,000 and more by the key.
 */
const PENDING = "coalesce(o.state, '') = 'pending'";

/**
 * Claims the next attempt of each message, in one statement: freezes its body (a first one's stays), and sets when
 * its next attempt is due should this one fail or the process die during it. Returns the IDs claimed (a message
 * that moved meanwhile is not).
 */
export async function claimAll(sql: SqlTx, claims: readonly Claim[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = await sql.query<{message_id: string}>(
    `UPDATE webhook_outbox o SET attempts = o.attempts + 1, body = COALESCE(o.body, u.body), next_attempt_at = u.next_at
     FROM unnest($1::text[], $2::int4[], $3::text[], $4::int8[]) AS u(id, attempts, body, next_at)
     WHERE o.message_id = u.id AND ${PENDING} AND o.attempts = u.attempts
     RETURNING o.message_id`,
    [claims.map((c) => c.id), claims.map((c) => c.attempts), claims.map((c) => c.body), claims.map((c) => c.nextAt)],
  );
  return new Set(rows.map((r) => r.message_id));
}

export interface AttemptRecord {
  at: number;
  statusCode: number;
  latencyMs: number;
  error: string | null;
}

export interface Outcome extends AttemptRecord {
  id: string;
  attempt: number;
  state: "delivered" | "failed" | "pending";
  /** Still pending: when the next attempt is due (the attempt's end + the schedule's wait), Unix ms. */
  nextAt?: number;
}

/**
 * Records attempts, and each message's new state: delivered, failed (the schedule's end), or still pending with its
 * next time. One statement (atomic by itself), so a batch costs the store one round trip: delivery's rate is bound
 * by the store's statements (bench/webhooks.mjs).
 */
export async function recordAttempts(sql: SqlClient, outcomes: readonly Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await sql.query(
    `WITH u AS (
       SELECT * FROM unnest($1::text[], $2::int4[], $3::int8[], $4::int4[], $5::int4[], $6::text[], $7::text[], $8::int8[])
         AS u(id, attempt, at, status_code, latency_ms, error, state, next_at)
     ), attempts AS (
       INSERT INTO webhook_attempts (message_id, attempt, at, status_code, latency_ms, error)
       SELECT id, attempt, at, status_code, latency_ms, error FROM u ON CONFLICT (message_id, attempt) DO NOTHING
     )
     UPDATE webhook_outbox o
     SET state = u.state,
         delivered_at = CASE WHEN u.state = 'delivered' THEN u.at ELSE o.delivered_at END,
         next_attempt_at = CASE WHEN u.state = 'pending' THEN u.next_at ELSE o.next_attempt_at END
     FROM u
     WHERE o.message_id = u.id AND ${PENDING}
       -- A retry's schedule counts from the failure, not the claim (the claim's time stands only if this is never
       -- recorded), and only for the attempt it is of; a message done is done whichever attempt it was.
       AND (u.state <> 'pending' OR (u.next_at IS NOT NULL AND o.attempts = u.attempt))`,
    [
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.attempt),
      outcomes.map((o) => o.at),
      outcomes.map((o) => o.statusCode),
      outcomes.map((o) => o.latencyMs),
      outcomes.map((o) => o.error),
      outcomes.map((o) => o.state),
      outcomes.map((o) => o.nextAt ?? null),
    ],
  );
}

/** A message not to deliver (its transaction is gone, or its event signatures did not match). */
/**
 * Deletes up to `limit` of the messages that are done (delivered, failed, dropped, skipped) and were made before
 * `before` (Unix ms), oldest first, with their attempts; returns how many went.
 */
export async function pruneFinished(sql: SqlTx, before: number, limit: number): Promise<number> {
  const rows = await sql.query<{n: number}>(
    `WITH gone AS (
       DELETE FROM webhook_outbox WHERE message_id IN (
         SELECT message_id FROM webhook_outbox WHERE state IN ('delivered', 'failed', 'dropped', 'skipped') AND created_at < $1
           -- A reversal not yet sent is made from its original's body: the original stays until it is.
           AND message_id NOT IN (SELECT reverses FROM webhook_outbox WHERE state IN ('pending', 'paused') AND reverses IS NOT NULL)
         ORDER BY created_at LIMIT $2)
       RETURNING message_id),
     attempts AS (DELETE FROM webhook_attempts a USING gone WHERE a.message_id = gone.message_id)
     SELECT count(*)::int4 AS n FROM gone`,
    [before, limit],
  );
  return rows[0]!.n;
}

export async function setState(sql: SqlTx, id: string, state: string): Promise<void> {
  await sql.query(`UPDATE webhook_outbox o SET state = $2 WHERE o.message_id = $1 AND ${PENDING}`, [id, state]);
}

/** Deactivates a webhook that kept failing, with the reason its GET shows. */
export async function deactivateFailing(sql: SqlTx, webhookId: string, reason: string): Promise<void> {
  await sql.query(
    "UPDATE webhooks SET status = 'inactive', deactivated_reason = $2 WHERE id = $1 AND status = 'active'",
    [webhookId, reason],
  );
  await pauseMessages(sql, webhookId, true);
}

export async function messageBody(sql: SqlTx, id: string): Promise<string | null> {
  const rows = await sql.query<{body: string | null}>("SELECT body FROM webhook_outbox WHERE message_id = $1", [id]);
  return rows[0]?.body ?? null;
}

/** The secret a delivery is signed with: the webhook's own, else its owner's shared one (made on first use). */
export async function signingSecret(
  sql: SqlTx,
  owner: string,
  own: string | null,
  fresh: () => string,
): Promise<string> {
  if (own !== null) return own;
  await sql.query("INSERT INTO webhook_secrets (owner, secret) VALUES ($1, $2) ON CONFLICT (owner) DO NOTHING", [
    owner,
    fresh(),
  ]);
  const rows = await sql.query<{secret: string}>("SELECT secret FROM webhook_secrets WHERE owner = $1", [owner]);
  return rows[0]!.secret;
}

/** A message's transaction: the read endpoints' transaction row (models/evm TxRow) and its receipt's cumulative gas. */
export type TxOfMessage = Pick<
  TxRow,
  | "block_hash"
  | "timestamp"
  | "hash"
  | "from_addr"
  | "to_addr"
  | "created"
  | "value"
  | "nonce"
  | "gas_limit"
  | "gas_used"
  | "gas_price"
  | "max_fee"
  | "max_priority_fee"
  | "tx_type"
  | "status"
  | "input"
> & {cumulative_gas: string};

export interface TxKey {
  chainId: string;
  block: bigint;
  txIndex: number;
}

const keyArrays = (keys: readonly TxKey[]): unknown[] => [
  keys.map((k) => k.chainId),
  keys.map((k) => k.block),
  keys.map((k) => k.txIndex),
];
export const txKey = (chainId: string, block: bigint, txIndex: number): string => `${chainId}:${block}:${txIndex}`;

/** The transactions messages are about, with their blocks' hash and time and the receipts' cumulative gas. */
export async function txsOfMessages(sql: SqlTx, keys: readonly TxKey[]): Promise<Map<string, TxOfMessage>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.query<TxOfMessage & {chain_id: string; block_number: bigint; tx_index: number}>(
    `SELECT t.chain_id, t.block_number, t.tx_index, b.hash AS block_hash, b.timestamp, t.hash, t.from_addr, t.to_addr, t.created, t.value::text, t.nonce,
            t.gas_limit::text, t.gas_used::text, t.gas_price::text, t.max_fee::text, t.max_priority_fee::text, t.tx_type, t.status, t.input,
            (SELECT sum(x.gas_used) FROM evm_txs x WHERE x.chain_id = t.chain_id AND x.block_number = t.block_number AND x.tx_index <= t.tx_index)::text AS cumulative_gas
     FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::int8[], $3::int4[])) AS u(c, n, i)
     JOIN evm_txs t ON t.chain_id = u.c AND t.block_number = u.n AND t.tx_index = u.i
     JOIN evm_blocks b ON b.chain_id = t.chain_id AND b.number = t.block_number`,
    keyArrays(keys),
  );
  return new Map(rows.map((r) => [txKey(r.chain_id, r.block_number, r.tx_index), r]));
}

export interface TransferOfMessage {
  log_index: number;
  erc: number;
  token: Uint8Array;
  from_addr: Uint8Array;
  to_addr: Uint8Array;
  token_id: string | null;
  value: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}

export async function transfersOfMessages(
  sql: SqlTx,
  keys: readonly TxKey[],
): Promise<Map<string, TransferOfMessage[]>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.query<TransferOfMessage & {chain_id: string; block_number: bigint; tx_index: number}>(
    `SELECT t.chain_id, t.block_number, t.tx_index, t.log_index, t.erc, t.token, t.from_addr, t.to_addr, t.token_id::text, t.value::text, k.name, k.symbol, k.decimals
     FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::int8[], $3::int4[])) AS u(c, n, i)
     JOIN evm_transfers t ON t.chain_id = u.c AND t.block_number = u.n AND t.tx_index = u.i
     LEFT JOIN evm_tokens k ON k.chain_id = t.chain_id AND k.address = t.token
     ORDER BY t.chain_id, t.block_number, t.tx_index, t.log_index, t.item`,
    keyArrays(keys),
  );
  return group(rows);
}

export interface InternalOfMessage {
  call_type: string;
  from_addr: Uint8Array;
  to_addr: Uint8Array | null;
  value: string;
  gas_limit: string;
  gas_used: string;
}

export async function internalsOfMessages(
  sql: SqlTx,
  keys: readonly TxKey[],
): Promise<Map<string, InternalOfMessage[]>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.query<InternalOfMessage & {chain_id: string; block_number: bigint; tx_index: number}>(
    `SELECT t.chain_id, t.block_number, t.tx_index, t.call_type, t.from_addr, t.to_addr, t.value::text, t.gas_limit::text, t.gas_used::text
     FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::int8[], $3::int4[])) AS u(c, n, i)
     JOIN evm_internal_txs t ON t.chain_id = u.c AND t.block_number = u.n AND t.tx_index = u.i
     ORDER BY t.chain_id, t.block_number, t.tx_index, t.idx`,
    keyArrays(keys),
  );
  return group(rows);
}

function group<T extends {chain_id: string; block_number: bigint; tx_index: number}>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = txKey(r.chain_id, r.block_number, r.tx_index);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

export interface MessageRow {
  message_id: string;
  block_number: bigint;
  tx_hash: Uint8Array | null;
  /** A primary message's P or X transaction (CB58). */
  primary_tx_id: string | null;
  reverses: string | null;
  state: string;
  attempts: number;
  created_at: bigint;
  delivered_at: bigint | null;
  next_attempt_at: bigint;
}

const MESSAGE_COLS =
  "message_id, block_number, tx_hash, primary_tx_id, reverses, state, attempts, created_at, delivered_at, next_attempt_at";

/** A webhook's delivery log, newest first, keyset-paged on (created_at, message_id). */
export async function listMessages(
  sql: SqlTx,
  webhookId: string,
  state: string | undefined,
  pageSize: number,
  cursor: [bigint, string] | null,
): Promise<{items: MessageRow[]; next: [bigint, string] | undefined}> {
  const p = new Params([webhookId, pageSize + 1]);
  let where = "webhook_id = $1";
  if (state !== undefined) where += ` AND state = ${p.add(state)}`;
  if (cursor) where += ` AND (created_at, message_id) < (${p.add(cursor[0])}, ${p.add(cursor[1])})`;
  const rows = await sql.query<MessageRow>(
    `SELECT ${MESSAGE_COLS} FROM webhook_outbox WHERE ${where} ORDER BY created_at DESC, message_id DESC LIMIT $2`,
    p.values,
  );
  const items = rows.slice(0, pageSize);
  const last = items[items.length - 1];
  return {items, next: rows.length > pageSize && last ? [last.created_at, last.message_id] : undefined};
}

export async function getMessage(
  sql: SqlTx,
  webhookId: string,
  messageId: string,
): Promise<(MessageRow & {body: string | null}) | null> {
  const rows = await sql.query<MessageRow & {body: string | null}>(
    `SELECT ${MESSAGE_COLS}, body FROM webhook_outbox WHERE webhook_id = $1 AND message_id = $2`,
    [webhookId, messageId],
  );
  return rows[0] ?? null;
}

export interface AttemptRow {
  attempt: number;
  at: bigint;
  status_code: number;
  latency_ms: number;
  error: string | null;
}

export async function attemptsOf(sql: SqlTx, messageId: string): Promise<AttemptRow[]> {
  return sql.query<AttemptRow>(
    "SELECT attempt, at, status_code, latency_ms, error FROM webhook_attempts WHERE message_id = $1 ORDER BY attempt",
    [messageId],
  );
}

/**
 * Replay: a webhook's messages from a block height (or from a message on, by the time it was made) are due again
 * at once (at `now`, so they queue behind the messages already due, not before every other webhook's) (paused while the webhook is inactive), with their frozen bodies and a fresh retry schedule; a message
 * dropped by a rollback stays dropped. Returns how many.
 */
export async function replay(
  sql: SqlTx,
  webhookId: string,
  from: {block: bigint} | {createdAt: bigint},
  now: number,
): Promise<number> {
  const [cond, value] = "block" in from ? ["o.block_number >= $2", from.block] : ["o.created_at >= $2", from.createdAt];
  const rows = await sql.query(
    `UPDATE webhook_outbox o SET state = CASE WHEN h.status = 'active' THEN 'pending' ELSE 'paused' END, next_attempt_at = $3, attempt_base = attempts, delivered_at = NULL
     FROM webhooks h WHERE h.id = o.webhook_id AND o.webhook_id = $1 AND ${cond} AND o.state IN ('delivered', 'failed', 'pending', 'paused') RETURNING 1`,
    [webhookId, value, now],
  );
  return rows.length;
}
