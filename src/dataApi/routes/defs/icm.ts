/**
 * Interchain messages (the hosted API's InterchainMessaging and Teleporter services in
 * node_modules/@avalabs/glacier-sdk, chainkit's `data.icm` and `data.teleporter`): one message, the list with its
 * filters, the messages of an address; the `/v1/teleporter/...` names are the SDK's older ones and answer the same,
 * with the contract also under its Teleporter name. Handlers: routes/icm.ts.
 */
import * as q from "../../server/querySpec.js";
import {route} from "../../server/route.js";
import {array, model, named} from "../../server/schema.js";
import {EVM_ADDRESS, EVM_PAGE, nextPageToken} from "./common.js";

const MESSAGE_ID = {
  schema: {type: "string", pattern: "^(0x)?[0-9a-fA-F]{64}$"},
  description: "A message ID (64 hex digits)",
};
const network = q.text("mainnet, fuji (or testnet) or local: this node's network, else 404");
const blockchain = (end: string) => q.text(`The ${end}: a blockchain ID (CB58), or a followed chain's EVM chain ID`);
const listQuery = {
  network,
  sourceBlockchainId: blockchain("source"),
  destinationBlockchainId: blockchain("destination"),
  blockchainId: blockchain("source or the destination"),
  from: q.text("The sender, a 0x address"),
  to: q.text("The recipient, a 0x address"),
};

const MESSAGE_FIELDS = [
  "destinationBlockchainId",
  "destinationEvmChainId",
  "from",
  "messageExecuted",
  "messageId",
  "messageNonce",
  "receiptDelivered",
  "receipts",
  "rewardDetails",
  "sourceBlockchainId",
  "sourceEvmChainId",
  "status",
  "to",
];
const ICM_MESSAGE = named("IcmMessage", "A pending or delivered message", [...MESSAGE_FIELDS, "icmContractAddress"]);
const TELEPORTER_MESSAGE = named("TeleporterMessage", "A pending or delivered message", [
  ...MESSAGE_FIELDS,
  "teleporterContractAddress",
]);
const icmList = model("ListIcmMessagesResponse", {nextPageToken, messages: array(ICM_MESSAGE)});
const teleporterList = model("ListTeleporterMessagesResponse", {nextPageToken, messages: array(TELEPORTER_MESSAGE)});

const TAGS = ["Interchain Messaging"];
const OLD = ["Teleporter"];

export const ICM_ROUTES = {
  getIcmMessage: route({
    method: "GET",
    path: "/v1/icm/messages/:messageId",
    operationId: "getIcmMessage",
    summary: "One interchain message",
    tags: TAGS,
    params: {messageId: MESSAGE_ID},
    query: {},
    paging: undefined,
    response: ICM_MESSAGE,
  }),
  listIcmMessages: route({
    method: "GET",
    path: "/v1/icm/messages",
    operationId: "listIcmMessages",
    summary: "Interchain messages, newest first",
    tags: TAGS,
    params: {},
    query: listQuery,
    paging: EVM_PAGE,
    response: icmList,
  }),
  listIcmMessagesByAddress: route({
    method: "GET",
    path: "/v1/icm/addresses/:address/messages",
    operationId: "listIcmMessagesByAddress",
    summary: "Interchain messages from or to an address",
    tags: TAGS,
    params: {address: EVM_ADDRESS},
    query: {network},
    paging: EVM_PAGE,
    response: icmList,
  }),
  getTeleporterMessage: route({
    method: "GET",
    path: "/v1/teleporter/messages/:messageId",
    operationId: "getTeleporterMessage",
    summary: "One interchain message (the older name of /v1/icm/messages/{messageId})",
    tags: OLD,
    deprecated: true,
    params: {messageId: MESSAGE_ID},
    query: {},
    paging: undefined,
    response: TELEPORTER_MESSAGE,
  }),
  listTeleporterMessages: route({
    method: "GET",
    path: "/v1/teleporter/messages",
    operationId: "listTeleporterMessages",
    summary: "Interchain messages (the older name of /v1/icm/messages)",
    tags: OLD,
    deprecated: true,
    params: {},
    query: listQuery,
    paging: EVM_PAGE,
    response: teleporterList,
  }),
  listTeleporterMessagesByAddress: route({
    method: "GET",
    path: "/v1/teleporter/addresses/:address/messages",
    operationId: "listTeleporterMessagesByAddress",
    summary: "Interchain messages from or to an address (the older name of /v1/icm/addresses/{address}/messages)",
    tags: OLD,
    deprecated: true,
    params: {address: EVM_ADDRESS},
    query: {network},
    paging: EVM_PAGE,
    response: teleporterList,
  }),
};
