/**
 * The webhooks' outbox, written by the EVM fold in the transaction of its blocks (schema 17): one message for each
 * active address_activity webhook of the chain and each transaction that touches one of its addresses (sender,
 * recipient, created contract, a token transfer's ends; with internal transactions, the trace lane adds the calls'
 * ends). Written where the blocks are, a crash neither loses a message nor makes one for a block not folded. The
 * head writes a block's messages as one row (`webhook_outbox_blocks`), which delivery makes the messages' rows
 * (`expandOutboxBlocks`) before it reads the ones due.
 * A message's ID is derived from the webhook, chain, block hash and transaction index, so the same block folded
 * again makes the same message. ICM events (an icm_activity webhook) are enqueued by the ICM fold
 * (`enqueueIcmActivity`). A rollback deletes the messages of its blocks not attempted yet and answers each
 * one attempted with a reversal message (docs/api/webhooks.md, Reorgs). Delivery: src/dataApi/webhooks/.
 */
import {hash} from "node:crypto";
import type {SqlTx} from "../../store/sql.js";
import {bytesToHex} from "../../../util/hex.js";

/** A receipt's log, kept for webhooks: their deliveries carry a transaction's logs (derive.ts collects them). */
export interface LogRow {
  txIndex: number;
  logIndex: number;
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** A transaction's participant in a batch: who, where, and the block's hash (the message ID's part). */
export interface Touch {
  address: Uint8Array;
  block: bigint;
  txIndex: number;
  txHash: Uint8Array;
  blockHash: Uint8Array;
}

/**
 * A webhook gets the blocks from its from_block on (its chain's head + 1 when it was made, schema 19): a refold from
 * genesis, after `data-api rebuild`, does not send a kept webhook the history before it. `h` the webhook, `n` the
 * block's number.
 */
const MADE_BY = (n: string): string => `h.from_block <= ${n}`;

const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::int8";

/** The rollback count's part of a message ID, from a count (`messageId`'s `reorgs`). */
const REORGS_SUFFIX = (count: string): string => `CASE WHEN ${count} > 0 THEN ':r' || ${count} ELSE '' END`;
/**
 * What a message ID mixes in besides its webhook, chain, block hash and place: the chain's rollback count, once it
 * has had one (never, on a real network's accepted blocks, so those IDs are unchanged). A block dropped by a reorg
 * and folded again later (A, then B, then A) gets new IDs, so its events come again as new messages after their
 * reversals, not as duplicates of the dropped ones. The count is committed with the rollback: a kill -9 and a fold
 * again give the same IDs.
 */
const REORGS = (chain: string): string =>
  `coalesce((SELECT ${REORGS_SUFFIX("c.reorgs")} FROM evm_chains c WHERE c.chain_id = ${chain}), '')`;
/**
 * An address_activity message's ID in SQL, as `messageId` makes it: the webhook, chain, block hash (hex), transaction
 * index and the rollback part (REORGS or REORGS_SUFFIX), each an SQL expression.
 */
const ADDRESS_MESSAGE_ID = (
  webhook: string,
  chain: string,
  blockHex: string,
  txIndex: string,
  reorgs: string,
): string => `md5(${webhook} || ':' || ${chain} || ':' || ${blockHex} || ':' || ${txIndex} || ${reorgs})::uuid::text`;
const hex = (b: Uint8Array): string => "0x" + bytesToHex(b);

/**
 * Enqueues the messages of a batch's touches. The store is asked only which of the batch's distinct addresses
 * active address_activity webhooks of the chain watch (one small statement, and the end when none is). The fold
 * then writes one row per block with events (`webhook_outbox_blocks`, schema 30): its hash, its rollback count, and
 * each matched transaction once, with its hash, logs and the webhooks it is a message for. Delivery makes those rows
 * the outbox's messages, in a transaction of its own (`expandOutboxBlocks`). A message row for each webhook and
 * transaction, with its four indexes, cost the fold about a fifth of its rate where nearly every transaction is an
 * event; a block's row costs it a few per cent (docs/design/decisions.md 0015, bench/webhooks.mjs).
 */
export async function enqueueAddressActivity(
  tx: SqlTx,
  chainId: string,
  touches: readonly Touch[],
  logs: ReadonlyMap<string, LogRow[]>,
): Promise<void> {
  if (touches.length === 0) return;
  const keys = touches.map((t) => bytesToHex(t.address));
  const distinct = new Map<string, Uint8Array>();
  touches.forEach((t, k) => distinct.set(keys[k]!, t.address));
  // The addresses' index, probed for the batch's addresses (= ANY: a bitmap scan), whatever the number watched; a
  // join with the list sent was planned as a hash of every watched address, at every batch. Each watcher's address
  // comes back as hex, the batch's keys (no bytes to read back).
  const watchers = await tx.query<{a: string; id: string; from_block: bigint; reorgs: number | null}>(
    `SELECT encode(wa.address, 'hex') AS a, h.id, h.from_block, (SELECT c.reorgs FROM evm_chains c WHERE c.chain_id = $1) AS reorgs
     FROM webhook_addresses wa
     JOIN webhooks h ON h.id = wa.webhook_id AND h.status = 'active' AND h.event_type = 'address_activity' AND h.chain_id = $1
     WHERE wa.address = ANY($2::bytea[])`,
    [chainId, [...distinct.values()]],
  );
  if (watchers.length === 0) return;
  const byAddress = new Map<string, Array<{id: string; fromBlock: bigint}>>();
  for (const w of watchers) {
    let list = byAddress.get(w.a);
    if (!list) byAddress.set(w.a, (list = []));
    list.push({id: w.id, fromBlock: BigInt(w.from_block)});
  }
  const reorgs = Number(watchers[0]!.reorgs ?? 0);
  // One message per webhook and transaction, however many of its addresses the transaction touches. A block's row
  // holds each such transaction once, with its hash, its logs and the IDs of the webhooks it is a message for.
  const blocks = new Map<bigint, OutboxBlock>();
  for (const [k, t] of touches.entries()) {
    const watching = byAddress.get(keys[k]!);
    if (watching === undefined) continue;
    for (const w of watching) {
      if (w.fromBlock > t.block) continue; // made after this block (MADE_BY)
      let b = blocks.get(t.block);
      if (b === undefined) blocks.set(t.block, (b = {hash: bytesToHex(t.blockHash), txs: new Map(), messages: 0}));
      let m = b.txs.get(t.txIndex);
      if (m === undefined)
        b.txs.set(t.txIndex, (m = {hash: t.txHash, logs: logs.get(`${t.block}:${t.txIndex}`), webhooks: new Set()}));
      if (m.webhooks.has(w.id)) continue;
      m.webhooks.add(w.id);
      b.messages++;
    }
  }
  if (blocks.size === 0) return;
  // The blocks' documents go as one binary parameter, each row its slice: sent as text, the JSON cost the fold a
  // copy into the statement's text and a parse (about 5 % of its rate where nearly every transaction is an event,
  // docs/performance.md, Webhooks); delivery parses it, once, when it makes the messages (expandOutboxBlocks).
  const numbers: bigint[] = [];
  const hashes: string[] = [];
  const counts: number[] = [];
  const starts: number[] = [];
  const lengths: number[] = [];
  const docs: string[] = [];
  let at = 0;
  for (const [n, b] of blocks) {
    const doc = txsJson(b);
    numbers.push(n);
    hashes.push(b.hash);
    counts.push(b.messages);
    starts.push(at);
    const bytes = Buffer.byteLength(doc);
    lengths.push(bytes);
    at += bytes;
    docs.push(doc);
  }
  await tx.query(
    `INSERT INTO webhook_outbox_blocks (chain_id, block_number, block_hash, reorgs, messages, created_at, txs)
     SELECT $1, u.n, u.h, $2, u.m, ${NOW_MS}, substring($3::bytea FROM u.o + 1 FOR u.l)
     FROM unnest($4::int8[], $5::text[], $6::int4[], $7::int4[], $8::int4[]) AS u(n, h, m, o, l)
     ON CONFLICT (chain_id, block_number) DO NOTHING`,
    [chainId, reorgs, Buffer.from(docs.join("")), numbers, hashes, counts, starts, lengths],
  );
}

/** A block's matched transactions, by index: each one's hash, logs, and the webhooks it is a message for. */
interface OutboxBlock {
  hash: string;
  txs: Map<number, {hash: Uint8Array; logs: LogRow[] | undefined; webhooks: Set<string>}>;
  messages: number;
}

/**
 * A block's transactions as `expandOutboxBlocks` reads them: `[{"i": tx index, "h": tx hash hex, "l": [Log] or
 * null, "w": [webhook IDs]}]`.
 */
function txsJson(b: OutboxBlock): string {
  const txs: string[] = [];
  for (const [i, m] of b.txs) {
    const l = m.logs && m.logs.length > 0 ? `[${m.logs.map(logJson).join(",")}]` : "null";
    txs.push(`{"i":${i},"h":"${bytesToHex(m.hash)}","l":${l},"w":${JSON.stringify([...m.webhooks])}}`);
  }
  return `[${txs.join(",")}]`;
}

/** Messages one expansion makes, about (whole blocks; at least one): a short statement beside the fold. */
export const EXPAND_MESSAGES = 2_000;

/**
 * Makes the outbox's messages of the oldest blocks' rows (`enqueueAddressActivity`), at most `limit` blocks and
 * about `EXPAND_MESSAGES` messages, and deletes those rows, in one statement: a crash leaves a block's row or its
 * messages, never both or neither. `only`: all the rows of those blocks of that chain (the trace lane's, before it
 * looks for a block's messages). A message's ID is `messageId`'s, from the block's hash and the chain's rollback
 * count at the fold; its time (`created_at`) is the fold's; it is pending (a webhook made inactive meanwhile is not
 * read by delivery until it is active again, as any pending message of it). Delivery calls it beside its reads of
 * the messages due (webhooks/delivery.ts). Returns the blocks' rows it took and the messages it made (fewer than
 * their messages where some were made already: a block folded again). `limit` does not bound `only`.
 */
export async function expandOutboxBlocks(
  sql: SqlTx,
  limit: number,
  only?: {chainId: string; blocks: readonly bigint[]},
): Promise<{blocks: number; messages: number}> {
  // Delivery takes the rows no one holds (SKIP LOCKED), so it never waits on the trace lane, which waits for the
  // rows delivery holds and then finds their messages: neither can deadlock the other.
  const pick = only
    ? "SELECT chain_id, block_number, 0 AS before FROM webhook_outbox_blocks WHERE chain_id = $1 AND block_number = ANY($2::int8[])"
    : `SELECT chain_id, block_number, sum(messages) OVER (ORDER BY created_at, chain_id, block_number) - messages AS before
       FROM (SELECT chain_id, block_number, messages, created_at FROM webhook_outbox_blocks
             ORDER BY created_at, chain_id, block_number LIMIT $1 FOR UPDATE SKIP LOCKED) o`;
  const rows = await sql.query<{blocks: bigint; messages: bigint}>(
    `WITH p AS (${pick}),
     b AS (
       DELETE FROM webhook_outbox_blocks WHERE (chain_id, block_number) IN (
         SELECT chain_id, block_number FROM p WHERE before < ${EXPAND_MESSAGES})
       RETURNING chain_id, block_number, block_hash, reorgs, created_at, txs),
     m AS (
       INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, tx_hash, logs, created_at)
       SELECT ${ADDRESS_MESSAGE_ID("w.id", "b.chain_id", "b.block_hash", "t.i", REORGS_SUFFIX("b.reorgs"))},
              w.id, b.chain_id, b.block_number, t.i, decode(t.h, 'hex'), t.l, b.created_at
       FROM b
       CROSS JOIN LATERAL json_to_recordset(convert_from(b.txs, 'UTF8')::json) AS t(i int4, h text, l json, w text[])
       CROSS JOIN LATERAL unnest(t.w) AS w(id)
       ON CONFLICT (message_id) DO NOTHING
       RETURNING 1)
     SELECT (SELECT count(*) FROM b)::int8 AS blocks, (SELECT count(*) FROM m)::int8 AS messages`,
    only ? [only.chainId, [...only.blocks]] : [limit],
  );
  return {blocks: Number(rows[0]?.blocks ?? 0), messages: Number(rows[0]?.messages ?? 0)};
}

/**
 * A message's ID: md5 of `webhook:chain:block hash hex:tx index`, then `:rN` once the chain has had N rollbacks
 * (REORGS), as a UUID. The SQL of `expandOutboxBlocks` and the statements below make the same: the same block folded
 * again makes the same IDs.
 */
export function messageId(
  webhookId: string,
  chainId: string,
  blockHash: Uint8Array,
  txIndex: number,
  reorgs: string,
): string {
  const h = hash("md5", `${webhookId}:${chainId}:${bytesToHex(blockHash)}:${txIndex}${reorgs}`, "hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The trace lane's part: the transactions of folded blocks whose internal calls touch a watched address, for the
 * webhooks that include internal transactions (a message the head made already is kept as it is: its blocks' rows
 * are made messages first, so the head's message of a transaction is found, with its logs).
 */
export async function enqueueInternalActivity(
  tx: SqlTx,
  chainId: string,
  touches: ReadonlyArray<{address: Uint8Array; block: bigint; txIndex: number}>,
): Promise<void> {
  if (touches.length === 0) return;
  const params = [chainId, touches.map((t) => t.address), touches.map((t) => t.block), touches.map((t) => t.txIndex)];
  // The blocks with a call to an address a webhook with internal transactions watches: none, most often, and then
  // nothing is written. Their rows from the head become messages first.
  const blocks = await tx.query<{b: bigint}>(
    `SELECT DISTINCT u.b FROM unnest($2::bytea[], $3::int8[], $4::int4[]) AS u(a, b, i)
     JOIN webhook_addresses wa ON wa.address = u.a
     JOIN webhooks h ON h.id = wa.webhook_id AND h.status = 'active' AND h.event_type = 'address_activity' AND h.chain_id = $1 AND h.include_internal_txs AND ${MADE_BY("u.b")}`,
    params,
  );
  if (blocks.length === 0) return;
  await expandOutboxBlocks(tx, blocks.length, {chainId, blocks: blocks.map((r) => BigInt(r.b))});
  await tx.query(
    `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, tx_hash, created_at)
     SELECT DISTINCT ON (h.id, u.b, u.i) ${ADDRESS_MESSAGE_ID("h.id", "$1", "encode(b.hash, 'hex')", "u.i", REORGS("$1"))}, h.id, $1, u.b, u.i, t.hash, ${NOW_MS}
     FROM unnest($2::bytea[], $3::int8[], $4::int4[]) AS u(a, b, i)
     JOIN webhook_addresses wa ON wa.address = u.a
     JOIN webhooks h ON h.id = wa.webhook_id AND h.status = 'active' AND h.event_type = 'address_activity' AND h.chain_id = $1 AND h.include_internal_txs AND ${MADE_BY("u.b")}
     JOIN evm_blocks b ON b.chain_id = $1 AND b.number = u.b
     JOIN evm_txs t ON t.chain_id = $1 AND t.block_number = u.b AND t.tx_index = u.i
     -- The head's message of the transaction, made before a later rollback changed the IDs, is the one.
     WHERE NOT EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.chain_id = $1 AND o.block_number = u.b AND o.tx_index = u.i AND o.webhook_id = h.id
       AND o.reverses IS NULL AND o.icm_message_id IS NULL AND o.state <> 'dropped')
     ON CONFLICT (message_id) DO NOTHING`,
    params,
  );
}

/**
 * A rollback of the blocks after `to`: their messages not attempted yet are deleted (never delivered); each one
 * attempted (its receiver may have it) is dropped and answered by a reversal message, delivered as any other. The
 * blocks' rows not made messages yet go: none of their messages was ever seen.
 */
export async function rollbackOutbox(tx: SqlTx, chainId: string, to: bigint): Promise<void> {
  await tx.query("DELETE FROM webhook_outbox_blocks WHERE chain_id = $1 AND block_number > $2", [chainId, to]);
  await tx.query(
    "DELETE FROM webhook_outbox WHERE chain_id = $1 AND block_number > $2 AND attempts = 0 AND reverses IS NULL",
    [chainId, to],
  );
  await tx.query(
    `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, tx_hash, reverses, created_at)
     SELECT md5(message_id || ':reversal')::uuid::text, webhook_id, chain_id, block_number, tx_index, tx_hash, message_id, ${NOW_MS}
     FROM webhook_outbox WHERE chain_id = $1 AND block_number > $2 AND attempts > 0 AND reverses IS NULL AND state <> 'dropped'
     ON CONFLICT (message_id) DO NOTHING`,
    [chainId, to],
  );
  await tx.query(
    "UPDATE webhook_outbox SET state = 'dropped' WHERE chain_id = $1 AND block_number > $2 AND attempts > 0 AND reverses IS NULL AND state <> 'dropped'",
    [chainId, to],
  );
}

/** The hosted API's Log model as JSON text, `removed` false (a reversal sets it); every value is hex or a number. */
function logJson(l: LogRow): string {
  let out = `{"address":"${hex(l.address)}","topic0":"${l.topics[0] ? hex(l.topics[0]) : ""}"`;
  for (let k = 1; k < Math.min(4, l.topics.length); k++) out += `,"topic${k}":"${hex(l.topics[k]!)}"`;
  return `${out},"data":"${hex(l.data)}","transactionIndex":${l.txIndex},"logIndex":${l.logIndex},"removed":false}`;
}

/** The ICM sub-events of icm_activity webhooks (avaext's fourth event type), by the messenger's event. */
export const ICM_SUB_EVENTS: Readonly<Record<string, string>> = {
  SendCrossChainMessage: "message_sent",
  ReceiveCrossChainMessage: "message_delivered",
  MessageExecuted: "message_executed",
  MessageExecutionFailed: "message_execution_failed",
  ReceiptReceived: "receipt_received",
  AddFeeAmount: "fee_added",
};

/**
 * The ICM fold's part (views/evm/icmFold.ts, after the messages are folded again): one message for each messenger
 * event and each active icm_activity webhook of the chain that takes its sub-event and, when it names addresses,
 * whose message is from or to one of them.
 */
export async function enqueueIcmActivity(
  tx: SqlTx,
  events: ReadonlyArray<{
    chainId: string;
    block: bigint;
    logIndex: number;
    txIndex: number;
    messageId: string;
    kind: string;
  }>,
): Promise<void> {
  const known = events.filter((e) => ICM_SUB_EVENTS[e.kind] !== undefined);
  if (known.length === 0) return;
  await tx.query(
    `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, tx_hash, icm_message_id, icm_sub_event, created_at)
     SELECT md5(h.id || ':' || e.c || ':' || encode(b.hash, 'hex') || ':icm:' || e.l || ${REORGS("e.c")})::uuid::text, h.id, e.c, e.n, e.i, t.hash, e.m, e.s, ${NOW_MS}
     FROM unnest($1::text[], $2::int8[], $3::int4[], $4::int4[], $5::text[], $6::text[]) AS e(c, n, l, i, m, s)
     JOIN webhooks h ON h.event_type = 'icm_activity' AND h.status = 'active' AND h.chain_id = e.c AND ${MADE_BY("e.n")}
       AND jsonb_exists(h.metadata -> 'subEvents' -> 'icmActivitySubEvents', e.s)
     JOIN evm_blocks b ON b.chain_id = e.c AND b.number = e.n
     LEFT JOIN evm_txs t ON t.chain_id = e.c AND t.block_number = e.n AND t.tx_index = e.i
     LEFT JOIN icm_messages im ON im.message_id = e.m
     WHERE NOT jsonb_exists(h.metadata, 'addresses')
        OR jsonb_exists(h.metadata -> 'addresses', '0x' || encode(im.from_addr, 'hex'))
        OR jsonb_exists(h.metadata -> 'addresses', '0x' || encode(im.to_addr, 'hex'))
     ON CONFLICT (message_id) DO NOTHING`,
    [
      known.map((e) => e.chainId),
      known.map((e) => e.block),
      known.map((e) => e.logIndex),
      known.map((e) => e.txIndex),
      known.map((e) => e.messageId),
      known.map((e) => ICM_SUB_EVENTS[e.kind]!),
    ],
  );
}
