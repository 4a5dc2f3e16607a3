/**
 * Interchain messages (defs/icm.ts declares them): one message, the list with its filters, the messages of an
 * address; the SDK's deprecated `/v1/teleporter/...` names answer the same. The store's reads are queries/icm.ts.
 */
import {checksumAddress} from "../../evm/hex.js";
import type {SqlClient} from "../store/sql.js";
import {implement, type BoundRoute, type RouteCtx, type ValuesPage} from "../server/route.js";
import {CursorError} from "../queries/evm/transactions.js";
import {getIcmMessage, listIcmMessages, type IcmFilter, type IcmRow} from "../queries/icm.js";
import {ICM_ROUTES} from "./defs/icm.js";
import {badRequest, notFound} from "../server/errors.js";
import {parseEvmAddress, servedNetworkQuery} from "../server/names.js";
import type {EvmChains} from "../evm/chains.js";
import {idFromString} from "../../util/cb58.js";

export interface IcmRoutesModules {
  sql: SqlClient;
  chains: EvmChains;
}

const MESSAGE_ID_RE = /^(0x)?[0-9a-fA-F]{64}$/;
const ZERO_ADDRESS = "0x" + "0".repeat(40);

type R = typeof ICM_ROUTES;

/** The hosted API's message model, with the EVM chain IDs of the ends this node follows ("" for the others); webhooks' ICM events carry it too. */
export function icmMessageModel(m: {chains: EvmChains}, r: IcmRow): Record<string, unknown> {
  const rec = r.record;
  const out: Record<string, unknown> = {
    messageId: rec.messageId,
    icmContractAddress: checksumAddress(rec.icmContractAddress),
    sourceBlockchainId: rec.sourceBlockchainId,
    destinationBlockchainId: rec.destinationBlockchainId,
    sourceEvmChainId:
      rec.sourceChainId ??
      (rec.sourceBlockchainId ? (m.chains.evmChainIdOfBlockchain(rec.sourceBlockchainId) ?? "") : ""),
    destinationEvmChainId:
      rec.destinationChainId ??
      (rec.destinationBlockchainId ? (m.chains.evmChainIdOfBlockchain(rec.destinationBlockchainId) ?? "") : ""),
    messageNonce: rec.messageNonce,
    from: checksumAddress(rec.from),
    to: checksumAddress(rec.to),
    data: rec.data,
    messageExecuted: rec.messageExecuted,
    receipts: rec.receipts.map((x) => ({
      receivedMessageNonce: x.receivedMessageNonce,
      relayerRewardAddress: checksumAddress(x.relayerRewardAddress),
    })),
    receiptDelivered: rec.receiptDelivered,
    rewardDetails:
      rec.fee.token === ZERO_ADDRESS
        ? {address: ZERO_ADDRESS, name: "", symbol: "", decimals: 0, ercType: "ERC-20", value: "0"}
        : {
            address: checksumAddress(rec.fee.token),
            name: r.name ?? "",
            symbol: r.symbol ?? "",
            decimals: r.decimals ?? 0,
            ercType: "ERC-20",
            value: rec.fee.amount,
          },
  };
  if (rec.sourceTransaction) out.sourceTransaction = rec.sourceTransaction;
  if (rec.destinationTransaction)
    out.destinationTransaction = {
      ...rec.destinationTransaction,
      rewardRedeemer: checksumAddress(rec.destinationTransaction.rewardRedeemer),
      delivererAddress: checksumAddress(rec.destinationTransaction.delivererAddress),
    };
  out.status = rec.status;
  return out;
}

/** The ICM routes (defs/icm.ts) answered from the store (queries/icm.ts). */
export function icmRoutes(m: IcmRoutesModules): BoundRoute[] {
  const model = (r: IcmRow): Record<string, unknown> => icmMessageModel(m, r);

  /** A blockchain filter: a CB58 blockchain ID, or the EVM chain ID of a followed chain. */
  const blockchainParam = (v: string | undefined, name: string): string | undefined => {
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
  const servedNetwork = (network: string | undefined): void => servedNetworkQuery(network, m.chains.network);

  const page = async (ctx: {page: ValuesPage}, filter: IcmFilter) => {
    const pageSize = ctx.page.size;
    const cursor = ctx.page.cursor;
    let found;
    try {
      found = await listIcmMessages(m.sql, {filter, pageSize, cursor});
    } catch (e) {
      if (e instanceof CursorError) throw badRequest("pageToken", "not a token of this list");
      throw e;
    }
    return {nextPageToken: ctx.page.next(found.next), messages: found.items.map(model)};
  };

  const one = async (ctx: RouteCtx<R["getIcmMessage"]>) => {
    const raw = ctx.params.messageId;
    if (!MESSAGE_ID_RE.test(raw))
      throw badRequest("messageId", `not a message ID (64 hex digits): ${JSON.stringify(raw)}`);
    const id = raw.replace(/^0x/, "").toLowerCase();
    const row = await getIcmMessage(m.sql, id);
    if (!row) throw notFound(`ICM message ${id} not found`);
    return model(row);
  };

  const list = async (ctx: RouteCtx<R["listIcmMessages"]>) => {
    const qv = ctx.query;
    servedNetwork(qv.network);
    const sourceBlockchainId = blockchainParam(qv.sourceBlockchainId, "sourceBlockchainId");
    const destinationBlockchainId = blockchainParam(qv.destinationBlockchainId, "destinationBlockchainId");
    const blockchainId = blockchainParam(qv.blockchainId, "blockchainId");
    const from = qv.from;
    const to = qv.to;
    return page(ctx, {
      sourceBlockchainId,
      destinationBlockchainId,
      blockchainId,
      from: from ? parseEvmAddress("from", from) : undefined,
      to: to ? parseEvmAddress("to", to) : undefined,
    });
  };

  const byAddress = async (ctx: RouteCtx<R["listIcmMessagesByAddress"]>) => {
    const a = parseEvmAddress("address", ctx.params.address);
    servedNetwork(ctx.query.network);
    return page(ctx, {party: a});
  };

  // The SDK's Teleporter models name the contract `teleporterContractAddress`: the older paths add that name beside
  // the ICM one, and answer the same otherwise.
  const named = (msg: Record<string, unknown>) => ({...msg, teleporterContractAddress: msg.icmContractAddress});
  return implement(ICM_ROUTES, {
    getIcmMessage: one,
    listIcmMessages: list,
    listIcmMessagesByAddress: byAddress,
    getTeleporterMessage: async (ctx) => named(await one(ctx)),
    listTeleporterMessages: async (ctx) => {
      const a = await list(ctx);
      return {...a, messages: a.messages.map(named)};
    },
    listTeleporterMessagesByAddress: async (ctx) => {
      const a = await byAddress(ctx);
      return {...a, messages: a.messages.map(named)};
    },
  });
}
