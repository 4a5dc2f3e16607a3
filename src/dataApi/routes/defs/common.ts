/** What several `/v1` route families share: path parameters, paging, the models inside answers. */
import {checkBlockNumberBound} from "../../server/params.js";
import type {ParamDoc} from "../../server/querySpec.js";
import type {Paging} from "../../server/route.js";
import {integer, model, optional, string} from "../../server/schema.js";

const param = (description: string, schema: Record<string, unknown> = {type: "string"}): ParamDoc => ({
  schema,
  description,
});

export const NETWORK = param("The network: mainnet, fuji (or testnet) or local; this node serves one", {
  type: "string",
  enum: ["mainnet", "fuji", "testnet", "local"],
});
export const BLOCKCHAIN_ID = param("A primary-network blockchain ID, or p-chain, x-chain, c-chain");
export const EVM_CHAIN_ID = param("An EVM chain ID (43114), or a followed chain's blockchain ID");
export const EVM_ADDRESS = param("A 0x EVM address, in any case");
export const NODE_ID = param("A node ID (NodeID-...)");
export const CB58_ID = (what: string): ParamDoc => param(`${what} (CB58)`);
/** A block number or a block's ID or hash: a number past 2^63-1 is a 400 on every route that takes one. */
export const BLOCK_ID = (description: string): ParamDoc => ({
  ...param(`${description}; a number is at most 2^63-1`),
  check: checkBlockNumberBound,
});

/** The primary-network lists (queries/primary): a one-string cursor, at most 100 a page. */
export const PRIMARY_PAGE = {kind: "text", maxPageSize: 100} as const satisfies Paging;
/** The EVM and ICM lists (queries/evm, queries/icm.ts): a cursor of several values. */
export const EVM_PAGE = {kind: "values", maxPageSize: 100} as const satisfies Paging;
/** The EVM balance lists: up to 500 a page, as the hosted API allows. */
export const BALANCE_PAGE = {kind: "values", maxPageSize: 500} as const satisfies Paging;

export const nextPageToken = optional(string("The next page's pageToken; absent on the last page"));

/** The primary-network chain an answer is of (the hosted API's PrimaryNetworkChainInfo). */
export const CHAIN_INFO = model("PrimaryNetworkChainInfo", {
  chainName: string("p-chain, x-chain or c-chain"),
  network: string(),
});

/** The data API's error body (src/dataApi/server/errors.ts). */
export const ERROR = model("Error", {
  message: string("The parameter and the reason, or what was not found"),
  statusCode: integer(),
  error: string("The status's name"),
});
