/**
 * Interchain messages (docs/api/icm.md): the TeleporterMessenger events of every followed EVM chain are kept
 * as they come (`icm_events`, by chain and position), and each message they name is folded from all of its events
 * into one record (`icm_messages`), in the same SQL transaction as the block. Both ends of a message arrive from
 * different chains in any order; a reorg deletes the dropped blocks' events and folds their messages again, so it
 * takes back exactly what those blocks added.
 */
import type {IcmRecord} from "../../store/icmRecord.js";
import {cb58Encode} from "../../../util/cb58.js";
import {hexToBytes} from "../../../evm/hex.js";
import {enqueueIcmActivity} from "./webhookOutbox.js";
import type {SqlTx} from "../../store/sql.js";
import {bulkInsert, type BulkColumn} from "../../store/bulk.js";
import type {IcmEvent, TeleporterMessage} from "../../evm/icm.js";

/** An ICM event with where it happened (the log's transaction, block and chain). */
export interface IcmEventRow {
  txIndex: number;
  event: IcmEvent;
}

/** icm_events.event: the decoded event, JSON-safe, plus its transaction's facts. */
interface StoredEvent {
  kind: IcmEvent["kind"];
  chainId: string;
  /** The blockchain ID (CB58) of the chain the log is on; "" when not known. */
  blockchainId: string;
  blockNumber: string;
  logIndex: number;
  txHash: string;
  timestamp: number;
  gasUsed: string;
  contract: string;
  e: Record<string, unknown>;
}

const c = (name: string, type: BulkColumn["type"]): BulkColumn => ({name, type});
const EVENT_COLS = [
  c("chain_id", "text"),
  c("block_number", "int8"),
  c("log_index", "int4"),
  c("tx_index", "int4"),
  c("message_id", "text"),
  c("kind", "text"),
  c("event", "jsonb"),
];

const jsonSafe = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x)));

export interface IcmBlockFacts {
  chainId: string;
  blockchainId: string | null;
  blockNumber: bigint;
  timestamp: bigint;
  /** Per transaction index: its hash (0x) and gas used (the receipt's). */
  txs: Map<number, {hash: string; gasUsed: bigint}>;
}

/** Stores a batch's ICM events and folds the messages they name. */
export async function foldIcmEvents(
  tx: SqlTx,
  blocks: Array<{facts: IcmBlockFacts; events: IcmEventRow[]}>,
): Promise<void> {
  const rows: unknown[][] = [];
  const touched = new Set<string>();
  for (const {facts, events} of blocks) {
    for (const {txIndex, event} of events) {
      const t = facts.txs.get(txIndex);
      const {kind, contract, logIndex, messageId, ...rest} = event;
      const stored: StoredEvent = {
        kind,
        chainId: facts.chainId,
        blockchainId: facts.blockchainId ?? "",
        blockNumber: facts.blockNumber.toString(),
        logIndex,
        txHash: t?.hash ?? "",
        timestamp: Number(facts.timestamp),
        gasUsed: (t?.gasUsed ?? 0n).toString(),
        contract,
        e: jsonSafe(rest) as Record<string, unknown>,
      };
      rows.push([facts.chainId, facts.blockNumber, logIndex, txIndex, messageId, kind, stored]);
      touched.add(messageId);
    }
  }
  if (rows.length === 0) return;
  await bulkInsert(tx, "icm_events", EVENT_COLS, rows, {onConflict: "DO NOTHING"});
  await refold(tx, [...touched]);
  await enqueueIcmActivity(
    tx,
    rows.map((r) => ({
      chainId: r[0] as string,
      block: r[1] as bigint,
      logIndex: r[2] as number,
      txIndex: r[3] as number,
      messageId: r[4] as string,
      kind: r[5] as string,
    })),
  );
}

/** Deletes the ICM events of a chain's blocks after `to`, and folds the messages they named again. */
export async function rollbackIcm(tx: SqlTx, chainId: string, to: bigint): Promise<void> {
  const gone = await tx.query<{message_id: string}>(
    "DELETE FROM icm_events WHERE chain_id = $1 AND block_number > $2 RETURNING message_id",
    [chainId, to],
  );
  if (gone.length > 0) await refold(tx, [...new Set(gone.map((g) => g.message_id))]);
}

/** The CB58 of a 32-byte ID given as 64 hex characters. */
const cb58OfHex = (h: string): string => cb58Encode(hexToBytes(h));

/** The class of the per-message transaction locks (the (int4, int4) advisory key space; the writer lock is int8). */
const ICM_LOCK_CLASS = 0x1c3;

/** Folds each message from all of its events: upserted, or deleted when none is left. */
async function refold(tx: SqlTx, ids: string[]): Promise<void> {
  // On a server, two chains' followers can fold the same message at once (its send, its receipt) in concurrent
  // transactions: each would read only its own uncommitted events, and the later commit would drop the other's.
  // A transaction lock per message, taken in one order by everyone (no deadlock), serialises them: the second
  // reads the events the first committed. (PGlite runs one transaction at a time: the locks are free there.)
  await tx.query(
    `SELECT pg_advisory_xact_lock(${ICM_LOCK_CLASS}, k) FROM (SELECT DISTINCT hashtext(id) AS k FROM unnest($1::text[]) AS id ORDER BY 1) AS s`,
    [ids],
  );
  const events = await tx.query<{message_id: string; event: StoredEvent}>(
    "SELECT message_id, event FROM icm_events WHERE message_id = ANY($1::text[]) ORDER BY chain_id, block_number, log_index",
    [ids],
  );
  const byId = new Map<string, StoredEvent[]>();
  for (const e of events) (byId.get(e.message_id) ?? byId.set(e.message_id, []).get(e.message_id)!).push(e.event);
  const keep: unknown[][] = [];
  for (const id of ids) {
    const evs = byId.get(id);
    if (evs) keep.push(foldMessage(id, evs));
  }
  const dropped = ids.filter((id) => !byId.has(id));
  if (dropped.length > 0) await tx.query("DELETE FROM icm_messages WHERE message_id = ANY($1::text[])", [dropped]);
  if (keep.length > 0) {
    await bulkInsert(tx, "icm_messages", MESSAGE_COLS, keep, {
      onConflict:
        "(message_id) DO UPDATE SET messenger = excluded.messenger, source_blockchain_id = excluded.source_blockchain_id, destination_blockchain_id = excluded.destination_blockchain_id, " +
        "from_addr = excluded.from_addr, to_addr = excluded.to_addr, status = excluded.status, sort_ts = excluded.sort_ts, record = excluded.record",
    });
  }
}

const MESSAGE_COLS = [
  c("message_id", "text"),
  c("messenger", "bytea"),
  c("source_blockchain_id", "text"),
  c("destination_blockchain_id", "text"),
  c("from_addr", "bytea"),
  c("to_addr", "bytea"),
  c("status", "text"),
  c("sort_ts", "int8"),
  c("record", "jsonb"),
];

function foldMessage(id: string, events: StoredEvent[]): unknown[] {
  const send = events.find((e) => e.kind === "SendCrossChainMessage");
  const receive = events.find((e) => e.kind === "ReceiveCrossChainMessage");
  const failed = events.find((e) => e.kind === "MessageExecutionFailed");
  const message = (send?.e.message ?? receive?.e.message ?? failed?.e.message) as
    | Jsonified<TeleporterMessage>
    | undefined;
  // Fees only grow: the largest total an AddFeeAmount reported, else the send's.
  let fee = (send?.e.feeInfo as {feeTokenAddress: string; amount: string} | undefined) ?? {
    feeTokenAddress: "0x" + "0".repeat(40),
    amount: "0",
  };
  for (const e of events) {
    const f = e.kind === "AddFeeAmount" ? (e.e.feeInfo as {feeTokenAddress: string; amount: string}) : null;
    if (f && BigInt(f.amount) > BigInt(fee.amount)) fee = f;
  }
  const source = send ? send.blockchainId : receive ? cb58OfHex(receive.e.sourceBlockchainId as string) : "";
  const destination = send ? cb58OfHex(send.e.destinationBlockchainId as string) : (receive?.blockchainId ?? "");
  const record: IcmRecord = {
    messageId: id,
    icmContractAddress: (send ?? receive ?? events[0]!).contract,
    sourceBlockchainId: source,
    destinationBlockchainId: destination,
    sourceChainId: send?.chainId ?? null,
    destinationChainId: receive?.chainId ?? null,
    messageNonce: message?.messageNonce ?? "0",
    from: message?.originSenderAddress ?? "0x" + "0".repeat(40),
    to: message?.destinationAddress ?? "0x" + "0".repeat(40),
    data: message?.message ?? "0x",
    messageExecuted: events.some((e) => e.kind === "MessageExecuted"),
    receipts: (message?.receipts ?? []).map((r) => ({
      receivedMessageNonce: r.receivedMessageNonce,
      relayerRewardAddress: r.relayerRewardAddress,
    })),
    receiptDelivered: events.some((e) => e.kind === "ReceiptReceived"),
    fee: {token: fee.feeTokenAddress, amount: fee.amount},
    status: send && receive ? "delivered" : receive ? "delivered_source_not_indexed" : "pending",
  };
  if (send) record.sourceTransaction = {txHash: send.txHash, timestamp: send.timestamp, gasSpent: send.gasUsed};
  if (receive) {
    record.destinationTransaction = {
      txHash: receive.txHash,
      timestamp: receive.timestamp,
      gasSpent: receive.gasUsed,
      rewardRedeemer: receive.e.rewardRedeemer as string,
      delivererAddress: receive.e.deliverer as string,
    };
  }
  const sortTs = send?.timestamp ?? receive?.timestamp ?? 0;
  return [
    id,
    hexToBytes(record.icmContractAddress),
    source,
    destination,
    hexToBytes(record.from),
    hexToBytes(record.to),
    record.status,
    sortTs,
    record,
  ];
}

/** A decoded structure after JSON: bigints as decimal strings. */
type Jsonified<T> = {
  [K in keyof T]: T[K] extends bigint ? string : T[K] extends readonly (infer U)[] ? Array<Jsonified<U>> : T[K];
};
