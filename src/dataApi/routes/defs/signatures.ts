/**
 * Signature aggregation (the hosted API's SignatureAggregator service in node_modules/@avalabs/glacier-sdk,
 * chainkit's `data.signatureAggregator`): a warp message signed by its subnet's validators, answered 201 as the
 * hosted API does (chainkit accepts only 201). Handlers: routes/signatures.ts.
 */
import {route} from "../../server/route.js";
import {integer, model, optional, string} from "../../server/schema.js";
import {NETWORK} from "./common.js";

const TAGS = ["Signature Aggregator"];
/**
 * Requests a signature aggregation counts for in its client's rate limit: it may build a validator set (decoding
 * its BLS keys) and verify a signature per validator, some hundred times the work of a list page.
 */
export const AGGREGATION_COST = 20;
const SIGNED = model("SignatureAggregationResponse", {signedMessage: string("The signed warp message, hex")});

export const SIGNATURE_ROUTES = {
  getAggregatedSignatures: route({
    method: "GET",
    path: "/v1/signatureAggregator/:network/aggregateSignatures/:txHash",
    operationId: "getAggregatedSignatures",
    summary: "The P-chain's warp message for an L1 transaction, signed by the L1's validators",
    tags: TAGS,
    params: {
      network: NETWORK,
      txHash: {
        schema: {type: "string"},
        description: "A ConvertSubnetToL1Tx, RegisterL1ValidatorTx or SetL1ValidatorWeightTx ID (CB58)",
      },
    },
    query: {},
    paging: undefined,
    cost: AGGREGATION_COST,
    status: 201,
    response: SIGNED,
  }),
  aggregateSignatures: route({
    method: "POST",
    path: "/v1/signatureAggregator/:network/aggregateSignatures",
    operationId: "aggregateSignatures",
    summary: "An unsigned warp message of this network, signed by its subnet's validators at a P-chain height",
    tags: TAGS,
    params: {network: NETWORK},
    query: {},
    paging: undefined,
    cost: AGGREGATION_COST,
    body: model("SignatureAggregatorRequest", {
      message: string("The unsigned warp message, hex (0x optional)"),
      justification: optional(string("Hex (0x optional)")),
      signingSubnetId: optional(string("CB58 or hex; the source chain's subnet when absent")),
      quorumPercentage: optional(integer("0 to 100; 67 when absent or 0")),
      quorumPercentageBuffer: optional(integer("0 to 100")),
      pChainHeight: optional(integer("The validator set's P-chain height; 0, the current set, when absent")),
    }),
    status: 201,
    response: SIGNED,
  }),
};
