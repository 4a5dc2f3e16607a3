/**
 * Interchain messages (contract data-api §8): endpoint 17 (`/v1/icm/addresses/{address}/messages`), one message,
 * and the list with its filters; the SDK's deprecated `/v1/teleporter/...` names answer the same. Newest first by
 * the source transaction's time (the destination's when the source is not known), keyset-paged.
 */
import {checksumAddress} from "../../evm/hex.js";
import type {SqlClient} from "../store/client.js";
import type {DataApiRouter, RequestCtx} from "../server/router.js";
import {badRequest, notFound} from "../server/errors.js";
import {parseEvmAddress, servedNetworkQuery} from "../server/names.js";
import type {EvmChains} from "../evm/chains.js";
import type {IcmRecord} from "../views/evm/icmFold.js";
import {idFromString} from "../../util/cb58.js";

export interface IcmRoutesModules {
  sql: SqlClient;
  chains: EvmChains;
}

const MESSAGE_ID_RE = /^(0x)?[0-9a-fA-F]{64}$/;
const ZERO_ADDRESS = "0x" + "0".repeat(40);

interface Row {
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

export function registerIcmRoutes(router: DataApiRouter, m: IcmRoutesModules): void {
  /** The hosted API's message model, with the EVM chain IDs of the ends this node follows ("" for the others). */
  const model = (r: Row): Record<string, unknown> => {
    const rec = r.record;
    const out: Record<string, unknown> = {
      messageId: rec.messageId,
      icmContractAddress: checksumAddress(rec.icmContractAddress),
      sourceBlockchainId: rec.sourceBlockchainId,
      destinationBlockchainId: rec.destinationBlockchainId,
      sourceEvmChainId: rec.sourceChainId ?? (rec.sourceBlockchainId ? (m.chains.evmChainIdOfBlockchain(rec.sourceBlockchainId) ?? "") : ""),
      destinationEvmChainId: rec.destinationChainId ?? (rec.destinationBlockchainId ? (m.chains.evmChainIdOfBlockchain(rec.destinationBlockchainId) ?? "") : ""),
      messageNonce: rec.messageNonce,
      from: checksumAddress(rec.from),
      to: checksumAddress(rec.to),
      data: rec.data,
      messageExecuted: rec.messageExecuted,
      receipts: rec.receipts.map((x) => ({receivedMessageNonce: x.receivedMessageNonce, relayerRewardAddress: checksumAddress(x.relayerRewardAddress)})),
      receiptDelivered: rec.receiptDelivered,
      rewardDetails:
        rec.fee.token === ZERO_ADDRESS
          ? {address: ZERO_ADDRESS, name: "", symbol: "", decimals: 0, ercType: "ERC-20", value: "0"}
          : {address: checksumAddress(rec.fee.token), name: r.name ?? "", symbol: r.symbol ?? "", decimals: r.decimals ?? 0, ercType: "ERC-20", value: rec.fee.amount},
    };
    if (rec.sourceTransaction) out.sourceTransaction = rec.sourceTransaction;
    if (rec.destinationTransaction) out.destinationTransaction = {...rec.destinationTransaction, rewardRedeemer: checksumAddress(rec.destinationTransaction.rewardRedeemer), delivererAddress: checksumAddress(rec.destinationTransaction.delivererAddress)};
    out.status = rec.status;
    return out;
  };

  /** A blockchain filter: a CB58 blockchain ID, or the EVM chain ID of a followed chain. */
  const blockchainParam = (ctx: RequestCtx<unknown>, name: string): string | undefined => {
    const v = ctx.query.string(name);
    if (v === undefined) return undefined;
    if (/^[0-9]{1,19}$/.test(v)) {
      const c = m.chains.chains.find((x) => m.chains.chainIdOf(x) === v);
      const id = c ? m.chains.blockchainIdOf(c) : null;
      if (!id) throw badRequest(name, `EVM chain ${v} is not followed here (give its blockchain ID)`);
      return id;
    }
    try {
      idFromString(v);
    } catch {
      throw badRequest(name, `not a blockchain ID or an EVM chain ID: ${JSON.stringify(v)}`);
    }
    return v;
  };

  /** `network`: absent or the served network; another network is not served here (404), as in paths. */
  const servedNetwork = (ctx: RequestCtx<unknown>): void =>
    servedNetworkQuery(ctx.query.string("network"), m.chains.network);

  /**
   * One page: each `branch` is a set of conditions one index serves; several branches (either end, from or to)
   * are walked separately and merged, so the page never sorts more than pageSize rows per branch.
   */
  const page = async (ctx: RequestCtx<unknown>, branches: string[][], params: unknown[]): Promise<{messages: Record<string, unknown>[]; nextPageToken?: string}> => {
    const pageSize = ctx.query.pageSize();
    const cursor = ctx.cursor();
    const p = [...params];
    const common: string[] = [];
    if (cursor) {
      if (cursor.length !== 2 || typeof cursor[1] !== "string") throw badRequest("pageToken", "not a token of this list");
      p.push(cursor[0], cursor[1]);
      common.push(`(sort_ts, message_id) < ($${p.length - 1}::int8, $${p.length})`);
    }
    p.push(pageSize + 1);
    const limit = `$${p.length}`;
    const selects = branches.map((conds) => {
      const where = [...conds, ...common];
      return `(SELECT message_id, sort_ts FROM icm_messages ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY sort_ts DESC, message_id DESC LIMIT ${limit})`;
    });
    // One branch is the page itself; several are merged (a lone parenthesised SELECT cannot take a second ORDER BY).
    const keys = selects.length === 1 ? selects[0]!.slice(1, -1) : `${selects.join(" UNION ")} ORDER BY sort_ts DESC, message_id DESC LIMIT ${limit}`;
    const rows = await m.sql.query<Row>(`WITH k AS (${keys}) ${DETAILS} ORDER BY m.sort_ts DESC, m.message_id DESC`, p);
    const more = rows.length > pageSize;
    const items = rows.slice(0, pageSize);
    const last = items[items.length - 1];
    return {nextPageToken: more && last ? ctx.pageToken([last.sort_ts.toString(), last.message_id]) : undefined, messages: items.map(model)};
  };

  const one = async (ctx: RequestCtx<{messageId: string}>): Promise<Record<string, unknown>> => {
    const raw = ctx.params.messageId;
    if (!MESSAGE_ID_RE.test(raw)) throw badRequest("messageId", `not a message ID (64 hex digits): ${JSON.stringify(raw)}`);
    const id = raw.replace(/^0x/, "").toLowerCase();
    const rows = await m.sql.query<Row>(`WITH k AS (SELECT $1::text AS message_id) ${DETAILS}`, [id]);
    if (rows.length === 0) throw notFound(`ICM message ${id} not found`);
    return model(rows[0]!);
  };

  const list = async (ctx: RequestCtx<unknown>): Promise<unknown> => {
    servedNetwork(ctx);
    const params: unknown[] = [];
    const add = (v: unknown): string => {
      params.push(v);
      return `$${params.length}`;
    };
    const conds: string[] = [];
    const source = blockchainParam(ctx, "sourceBlockchainId");
    const destination = blockchainParam(ctx, "destinationBlockchainId");
    const either = blockchainParam(ctx, "blockchainId");
    const from = ctx.query.string("from");
    const to = ctx.query.string("to");
    if (source) conds.push(`source_blockchain_id = ${add(source)}`);
    if (destination) conds.push(`destination_blockchain_id = ${add(destination)}`);
    if (from) conds.push(`from_addr = ${add(parseEvmAddress("from", from))}`);
    if (to) conds.push(`to_addr = ${add(parseEvmAddress("to", to))}`);
    if (either) {
      const e = add(either);
      return page(ctx, [[...conds, `source_blockchain_id = ${e}`], [...conds, `destination_blockchain_id = ${e}`]], params);
    }
    return page(ctx, [conds], params);
  };

  const byAddress = async (ctx: RequestCtx<{address: string}>): Promise<unknown> => {
    const a = parseEvmAddress("address", ctx.params.address);
    servedNetwork(ctx);
    return page(ctx, [["from_addr = $1"], ["to_addr = $1"]], [a]);
  };

  for (const base of ["/v1/icm", "/v1/teleporter"] as const) {
    // The SDK's Teleporter models name the contract `teleporterContractAddress`: the deprecated paths add that
    // name beside the ICM one, and answer the same otherwise.
    const named = <P>(h: (ctx: RequestCtx<P>) => Promise<unknown>) => (base === "/v1/icm" ? h : async (ctx: RequestCtx<P>) => teleporterNamed(await h(ctx)));
    router.get(`${base}/messages/:messageId`, named(one));
    router.get(`${base}/messages`, named(list));
    // 17: messages from or to an address.
    router.get(`${base}/addresses/:address/messages`, named(byAddress));
  }
}

/** A message, or a list's messages, with the contract also under its Teleporter name. */
function teleporterNamed(answer: unknown): unknown {
  const name = (msg: Record<string, unknown>): Record<string, unknown> => ({...msg, teleporterContractAddress: msg.icmContractAddress});
  const a = answer as {messages?: Array<Record<string, unknown>>} & Record<string, unknown>;
  return Array.isArray(a.messages) ? {...a, messages: a.messages.map(name)} : name(a);
}

/** Endpoint 15's interchain message info of a transaction: the message it sent or delivered, if any. */
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
