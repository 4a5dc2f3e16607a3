/**
 * Interchain messages read from the store (icm_messages, icm_events; written by views/evm/icmFold.ts): one message,
 * a page of them newest first by the source transaction's time (the destination's when the source is not known),
 * keyset-paged by (sort_ts, message_id), and the message a transaction sent or delivered.
 */
import type {SqlClient} from "../store/client.js";
import type {IcmRecord} from "../store/icmRecord.js";
import {CursorError, type Cursor} from "./evm/transactions.js";

/** A message with the fee token's metadata on the source chain (null when the token is not known). */
export interface IcmRow {
  message_id: string;
  sort_ts: bigint;
  record: IcmRecord;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}

/** The SELECT of a page of messages, joined with the fee token's metadata on the source chain. */
const DETAILS = `SELECT m.message_id, m.sort_ts, m.record, tk.name, tk.symbol, tk.decimals FROM k JOIN icm_messages m ON m.message_id = k.message_id
  LEFT JOIN evm_tokens tk ON tk.chain_id = m.record->>'sourceChainId' AND tk.address = decode(substr(m.record->'fee'->>'token', 3), 'hex')`;

/** A message by its ID (64 lowercase hex digits), or null. */
export async function getIcmMessage(sql: SqlClient, id: string): Promise<IcmRow | null> {
  const rows = await sql.query<IcmRow>(`WITH k AS (SELECT $1::text AS message_id) ${DETAILS}`, [id]);
  return rows[0] ?? null;
}

export interface IcmFilter {
  sourceBlockchainId?: string;
  destinationBlockchainId?: string;
  /** Either end is this blockchain. */
  blockchainId?: string;
  from?: Uint8Array;
  to?: Uint8Array;
  /** Sent from or to this address. */
  party?: Uint8Array;
}

/**
 * One page: each branch is a set of conditions one index serves; the filters with two ends (`blockchainId`,
 * `party`) are walked as two branches and merged, so the page never sorts more than pageSize rows per branch. A
 * cursor of another list's shape is a CursorError.
 */
export async function listIcmMessages(sql: SqlClient, args: {filter: IcmFilter; pageSize: number; cursor: Cursor | null}): Promise<{items: IcmRow[]; next?: Cursor}> {
  const f = args.filter;
  const p: unknown[] = [];
  const add = (v: unknown): string => {
    p.push(v);
    return `$${p.length}`;
  };
  const conds: string[] = [];
  if (f.sourceBlockchainId) conds.push(`source_blockchain_id = ${add(f.sourceBlockchainId)}`);
  if (f.destinationBlockchainId) conds.push(`destination_blockchain_id = ${add(f.destinationBlockchainId)}`);
  if (f.from) conds.push(`from_addr = ${add(f.from)}`);
  if (f.to) conds.push(`to_addr = ${add(f.to)}`);
  let branches = [conds];
  if (f.blockchainId) {
    const e = add(f.blockchainId);
    branches = [[...conds, `source_blockchain_id = ${e}`], [...conds, `destination_blockchain_id = ${e}`]];
  } else if (f.party) {
    const a = add(f.party);
    branches = [[...conds, `from_addr = ${a}`], [...conds, `to_addr = ${a}`]];
  }
  const common: string[] = [];
  const cursor = args.cursor;
  if (cursor) {
    if (cursor.length !== 2 || typeof cursor[1] !== "string") throw new CursorError();
    p.push(cursor[0], cursor[1]);
    common.push(`(sort_ts, message_id) < ($${p.length - 1}::int8, $${p.length})`);
  }
  const limit = add(args.pageSize + 1);
  const selects = branches.map((conds) => {
    const where = [...conds, ...common];
    return `(SELECT message_id, sort_ts FROM icm_messages ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY sort_ts DESC, message_id DESC LIMIT ${limit})`;
  });
  // One branch is the page itself; several are merged (a lone parenthesised SELECT cannot take a second ORDER BY).
  const keys = selects.length === 1 ? selects[0]!.slice(1, -1) : `${selects.join(" UNION ")} ORDER BY sort_ts DESC, message_id DESC LIMIT ${limit}`;
  const rows = await sql.query<IcmRow>(`WITH k AS (${keys}) ${DETAILS} ORDER BY m.sort_ts DESC, m.message_id DESC`, p);
  const items = rows.slice(0, args.pageSize);
  const last = items[items.length - 1];
  return rows.length > args.pageSize && last ? {items, next: [last.sort_ts.toString(), last.message_id]} : {items};
}

/** The interchain message info of a transaction (GetTransactionResponse): the message it sent or delivered, if any. */
export async function icmInfoOfTx(sql: SqlClient, chainId: string, blockNumber: bigint, txIndex: number): Promise<Record<string, unknown> | null> {
  const rows = await sql.query<{message_id: string; kind: string; record: IcmRecord}>(
    `SELECT e.message_id, e.kind, m.record FROM icm_events e JOIN icm_messages m ON m.message_id = e.message_id
     WHERE e.chain_id = $1 AND e.block_number = $2 AND e.tx_index = $3 AND e.kind IN ('SendCrossChainMessage', 'ReceiveCrossChainMessage') ORDER BY e.log_index LIMIT 1`,
    [chainId, blockNumber, txIndex],
  );
  const r = rows[0];
  if (!r) return null;
  return r.kind === "SendCrossChainMessage"
    ? {teleporterMessageId: r.message_id, direction: "SOURCE_TRANSACTION", destinationChainId: r.record.destinationBlockchainId}
    : {teleporterMessageId: r.message_id, direction: "DESTINATION_TRANSACTION", sourceChainId: r.record.sourceBlockchainId};
}
