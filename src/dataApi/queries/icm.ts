/**
 * Interchain messages read from the store (icm_messages, icm_events; written by views/evm/icmFold.ts): one message,
 * a page of them newest first by the source transaction's time (the destination's when the source is not known),
 * keyset-paged by (sort_ts, message_id), and the message a transaction sent or delivered.
 */
import type {IcmRecord} from "../store/icmRecord.js";
import {CursorError, type Cursor} from "./evm/transactions.js";
import {Params, type SqlClientLike, scanBound} from "./sql.js";

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
export async function getIcmMessage(sql: SqlClientLike, id: string): Promise<IcmRow | null> {
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

/** The column of each filter, each with an index on (column, sort_ts, message_id) (schema: icm_messages_*). */
type IcmColumn = "source_blockchain_id" | "destination_blockchain_id" | "from_addr" | "to_addr";

/**
 * One page: each branch is a set of equalities, walked on the index of its first in (sort_ts, message_id) order;
 * the filters with two ends (`blockchainId`, `party`) are walked as two branches and merged, so the page never
 * sorts more than pageSize rows per branch. A branch with a second equality checks it on the walked rows, so it
 * reads at most `scanBudget` entries (queries/sql.ts): the page then ends where the walks stopped, the latest of
 * their bounds, short or empty, and the next page goes on from there. A cursor of another list's shape is a
 * CursorError.
 */
export async function listIcmMessages(
  sql: SqlClientLike,
  args: {filter: IcmFilter; pageSize: number; cursor: Cursor | null; scanBudget?: number},
): Promise<{items: IcmRow[]; next?: Cursor}> {
  const f = args.filter;
  const conds: Array<[IcmColumn, unknown]> = [];
  if (f.sourceBlockchainId) conds.push(["source_blockchain_id", f.sourceBlockchainId]);
  if (f.destinationBlockchainId) conds.push(["destination_blockchain_id", f.destinationBlockchainId]);
  if (f.from) conds.push(["from_addr", f.from]);
  if (f.to) conds.push(["to_addr", f.to]);
  let branches = [conds];
  // The two-ended filter leads its branches: its index is the walk.
  if (f.blockchainId)
    branches = [
      [["source_blockchain_id", f.blockchainId], ...conds],
      [["destination_blockchain_id", f.blockchainId], ...conds],
    ];
  else if (f.party)
    branches = [
      [["from_addr", f.party], ...conds],
      [["to_addr", f.party], ...conds],
    ];
  const cursor = args.cursor;
  if (cursor && (cursor.length !== 2 || typeof cursor[1] !== "string")) throw new CursorError();
  // Where each filtered branch's walk ends; the page ends at the latest of them, every branch cut there.
  let bound: {sort_ts: string; message_id: string} | null = null;
  for (const b of branches) {
    if (b.length < 2) continue;
    const params: unknown[] = [b[0]![1]];
    if (cursor) params.push(cursor[0], cursor[1]);
    // Named apart from the columns: an ORDER BY of the output's text `sort_ts` sorted every entry of the walk.
    const found = await scanBound<{ts: string; id: string}>(
      sql,
      `SELECT sort_ts::text AS ts, message_id AS id FROM icm_messages WHERE ${b[0]![0]} = $1${cursor ? " AND (sort_ts, message_id) < ($2::int8, $3)" : ""}
       ORDER BY sort_ts DESC, message_id DESC`,
      params,
      args.scanBudget,
    );
    const end = found === null ? null : {sort_ts: found.ts, message_id: found.id};
    if (
      end !== null &&
      (bound === null ||
        BigInt(end.sort_ts) > BigInt(bound.sort_ts) ||
        (end.sort_ts === bound.sort_ts && end.message_id > bound.message_id))
    )
      bound = end;
  }
  const p = new Params();
  const common: string[] = [];
  if (cursor) common.push(`(sort_ts, message_id) < (${p.add(cursor[0])}::int8, ${p.add(cursor[1])})`);
  if (bound) common.push(`(sort_ts, message_id) >= (${p.add(bound.sort_ts)}::int8, ${p.add(bound.message_id)})`);
  const limit = p.add(args.pageSize + 1);
  const selects = branches.map((b) => {
    const where = [...b.map(([col, v]) => `${col} = ${p.add(v)}`), ...common];
    return `(SELECT message_id, sort_ts FROM icm_messages ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY sort_ts DESC, message_id DESC LIMIT ${limit})`;
  });
  // One branch is the page itself; several are merged (a lone parenthesised SELECT cannot take a second ORDER BY).
  const keys =
    selects.length === 1
      ? selects[0]!.slice(1, -1)
      : `${selects.join(" UNION ")} ORDER BY sort_ts DESC, message_id DESC LIMIT ${limit}`;
  const rows = await sql.query<IcmRow>(
    `WITH k AS (${keys}) ${DETAILS} ORDER BY m.sort_ts DESC, m.message_id DESC`,
    p.values,
  );
  const items = rows.slice(0, args.pageSize);
  const last = items[items.length - 1];
  if (rows.length > args.pageSize && last) return {items, next: [last.sort_ts.toString(), last.message_id]};
  return bound ? {items, next: [bound.sort_ts, bound.message_id]} : {items};
}

/** The interchain message info of a transaction (GetTransactionResponse): the message it sent or delivered, if any. */
export async function icmInfoOfTx(
  sql: SqlClientLike,
  chainId: string,
  blockNumber: bigint,
  txIndex: number,
): Promise<Record<string, unknown> | null> {
  const rows = await sql.query<{message_id: string; kind: string; record: IcmRecord}>(
    `SELECT e.message_id, e.kind, m.record FROM icm_events e JOIN icm_messages m ON m.message_id = e.message_id
     WHERE e.chain_id = $1 AND e.block_number = $2 AND e.tx_index = $3 AND e.kind IN ('SendCrossChainMessage', 'ReceiveCrossChainMessage') ORDER BY e.log_index LIMIT 1`,
    [chainId, blockNumber, txIndex],
  );
  const r = rows[0];
  if (!r) return null;
  return r.kind === "SendCrossChainMessage"
    ? {
        teleporterMessageId: r.message_id,
        direction: "SOURCE_TRANSACTION",
        destinationChainId: r.record.destinationBlockchainId,
      }
    : {
        teleporterMessageId: r.message_id,
        direction: "DESTINATION_TRANSACTION",
        sourceChainId: r.record.sourceBlockchainId,
      };
}
