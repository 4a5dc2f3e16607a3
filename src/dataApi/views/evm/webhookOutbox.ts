/**
 * The webhooks' outbox, written by the EVM fold in the transaction of its blocks (schema 17): one message for each
 * active address_activity webhook of the chain and each transaction that touches one of its addresses (sender,
 * recipient, created contract, a token transfer's ends; with internal transactions, the trace lane adds the calls'
 * ends). Written where the blocks are, a crash neither loses a message nor makes one for a block not folded.
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

/**
 * What a message ID mixes in besides its webhook, chain, block hash and place: the chain's rollback count, once it
 * has had one (never, on a real network's accepted blocks, so those IDs are unchanged). A block dropped by a reorg
 * and folded again later (A, then B, then A) gets new IDs, so its events come again as new messages after their
 * reversals, not as duplicates of the dropped ones. The count is committed with the rollback: a kill -9 and a fold
 * again give the same IDs.
 */
const REORGS = (chain: string): string =>
  `coalesce((SELECT CASE WHEN c.reorgs > 0 THEN ':r' || c.reorgs ELSE '' END FROM evm_chains c WHERE c.chain_id = ${chain}), '')`;
const hex = (b: Uint8Array): string => "0x" + bytesToHex(b);

/**
 * Enqueues the messages of a batch's touches. The store is asked only which of the batch's distinct addresses
 * active address_activity webhooks of the chain watch (one small statement, and the end when none is); the
 * messages, their IDs and logs are made here and written in one insert. So the fold sends the store its watched
 * part, not every touch with its hashes, and writes each message once (bench/webhooks.mjs measures the fold with
 * and without webhooks).
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
  const watchers = await tx.query<{address: Uint8Array; id: string; from_block: bigint; reorgs: number | null}>(
    `SELECT wa.address, h.id, h.from_block, (SELECT c.reorgs FROM evm_chains c WHERE c.chain_id = $1) AS reorgs
     FROM unnest($2::bytea[]) AS u(a)
     JOIN webhook_addresses wa ON wa.address = u.a
     JOIN webhooks h ON h.id = wa.webhook_id AND h.status = 'active' AND h.event_type = 'address_activity' AND h.chain_id = $1`,
    [chainId, [...distinct.values()]],
  );
  if (watchers.length === 0) return;
  const byAddress = new Map<string, Array<{id: string; fromBlock: bigint}>>();
  for (const w of watchers) {
    const key = bytesToHex(w.address);
    let list = byAddress.get(key);
    if (!list) byAddress.set(key, (list = []));
    list.push({id: w.id, fromBlock: BigInt(w.from_block)});
  }
  const reorgs = Number(watchers[0]!.reorgs ?? 0);
  const suffix = reorgs > 0 ? `:r${reorgs}` : "";
  // One message per webhook and transaction, however many of its addresses the transaction touches. A message row
  // names its webhook and transaction by their places in two lists sent beside it: a transaction's hash and logs
  // go once, however many webhooks watch it (the statement's bytes are most of what the fold pays for the outbox
  // past the rows themselves, bench/webhooks.mjs).
  const ids = new Set<string>();
  const messages: string[] = [];
  const webhooks = new Map<string, number>();
  const txs = new Map<string, number>();
  const txDocs: string[] = [];
  const blockHex = new Map<bigint, string>();
  for (const [k, t] of touches.entries()) {
    const watching = byAddress.get(keys[k]!);
    if (watching === undefined) continue;
    let bh = blockHex.get(t.block);
    if (bh === undefined) blockHex.set(t.block, (bh = bytesToHex(t.blockHash)));
    for (const w of watching) {
      if (w.fromBlock > t.block) continue; // made after this block (MADE_BY)
      const id = messageIdOf(w.id, chainId, bh, t.txIndex, suffix);
      if (ids.has(id)) continue;
      ids.add(id);
      let wi = webhooks.get(w.id);
      if (wi === undefined) webhooks.set(w.id, (wi = webhooks.size + 1));
      const key = `${t.block}:${t.txIndex}`;
      let ti = txs.get(key);
      if (ti === undefined) {
        txs.set(key, (ti = txs.size));
        const l = logs.get(key);
        txDocs.push(
          `{"k":${ti},"b":${t.block},"i":${t.txIndex},"th":"${bytesToHex(t.txHash)}","l":${l && l.length > 0 ? JSON.stringify(l.map(logJson)) : "null"}}`,
        );
      }
      messages.push(`{"id":"${id}","w":${wi},"t":${ti}}`);
    }
  }
  if (messages.length === 0) return;
  // The rows go as JSON documents: a text[] of JSON logs would be escaped quote by quote both ways. The logs stay
  // the text sent (a json column, schema 29).
  await tx.query(
    `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, tx_hash, logs, created_at)
     SELECT u.id, ($4::text[])[u.w], $1, t.b, t.i, decode(t.th, 'hex'), t.l, ${NOW_MS}
     FROM json_to_recordset($2::json) AS u(id text, w int4, t int4)
     JOIN json_to_recordset($3::json) AS t(k int4, b int8, i int4, th text, l json) ON t.k = u.t
     ON CONFLICT (message_id) DO NOTHING`,
    [chainId, `[${messages.join(",")}]`, `[${txDocs.join(",")}]`, [...webhooks.keys()]],
  );
}

/**
 * A message's ID, as the statements here make it in SQL (`md5(webhook || ':' || chain || ':' || block hash hex ||
 * ':' || tx index || REORGS)::uuid::text`): the same block folded again, by either, makes the same ID.
 */
export function messageId(
  webhookId: string,
  chainId: string,
  blockHash: Uint8Array,
  txIndex: number,
  reorgs: string,
): string {
  return messageIdOf(webhookId, chainId, bytesToHex(blockHash), txIndex, reorgs);
}

function messageIdOf(webhookId: string, chainId: string, blockHex: string, txIndex: number, reorgs: string): string {
  const h = hash("md5", `${webhookId}:${chainId}:${blockHex}:${txIndex}${reorgs}`, "hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The trace lane's part: the transactions of folded blocks whose internal calls touch a watched address, for the
 * webhooks that include internal transactions (a message the head made already is kept as it is).
 */
export async function enqueueInternalActivity(
  tx: SqlTx,
  chainId: string,
  touches: ReadonlyArray<{address: Uint8Array; block: bigint; txIndex: number}>,
): Promise<void> {
  if (touches.length === 0) return;
  await tx.query(
    `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, tx_hash, created_at)
     SELECT DISTINCT ON (h.id, u.b, u.i) md5(h.id || ':' || $1 || ':' || encode(b.hash, 'hex') || ':' || u.i || ${REORGS("$1")})::uuid::text, h.id, $1, u.b, u.i, t.hash, ${NOW_MS}
     FROM unnest($2::bytea[], $3::int8[], $4::int4[]) AS u(a, b, i)
     JOIN webhook_addresses wa ON wa.address = u.a
     JOIN webhooks h ON h.id = wa.webhook_id AND h.status = 'active' AND h.event_type = 'address_activity' AND h.chain_id = $1 AND h.include_internal_txs AND ${MADE_BY("u.b")}
     JOIN evm_blocks b ON b.chain_id = $1 AND b.number = u.b
     JOIN evm_txs t ON t.chain_id = $1 AND t.block_number = u.b AND t.tx_index = u.i
     -- The head's message of the transaction, made before a later rollback changed the IDs, is the one.
     WHERE NOT EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.chain_id = $1 AND o.block_number = u.b AND o.tx_index = u.i AND o.webhook_id = h.id
       AND o.reverses IS NULL AND o.icm_message_id IS NULL AND o.state <> 'dropped')
     ON CONFLICT (message_id) DO NOTHING`,
    [chainId, touches.map((t) => t.address), touches.map((t) => t.block), touches.map((t) => t.txIndex)],
  );
}

/**
 * A rollback of the blocks after `to`: their messages not attempted yet are deleted (never delivered); each one
 * attempted (its receiver may have it) is dropped and answered by a reversal message, delivered as any other.
 */
export async function rollbackOutbox(tx: SqlTx, chainId: string, to: bigint): Promise<void> {
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

/** The hosted API's Log model, `removed` false (a reversal sets it). */
function logJson(l: LogRow): Record<string, unknown> {
  const out: Record<string, unknown> = {address: hex(l.address), topic0: l.topics[0] ? hex(l.topics[0]) : ""};
  for (let k = 1; k < Math.min(4, l.topics.length); k++) out[`topic${k}`] = hex(l.topics[k]!);
  out.data = hex(l.data);
  out.transactionIndex = l.txIndex;
  out.logIndex = l.logIndex;
  out.removed = false;
  return out;
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
