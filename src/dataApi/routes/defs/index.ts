/**
 * Every `/v1` route family (one object of entries each) and the OpenAPI document built from them. A new family is
 * one more entry here, with its handlers bound in routes/index.ts.
 */
import {openApiDocument} from "../../server/openapi.js";
import type {RouteDefs} from "../../server/route.js";
import type {JsonSchema} from "../../server/schema.js";
import {ERROR} from "./common.js";
import {EVM_ROUTES} from "./evm.js";
import {HEALTH_ROUTES} from "./health.js";
import {ICM_ROUTES} from "./icm.js";
import {META_ROUTES} from "./meta.js";
import {PRIMARY_ROUTES} from "./primary.js";
import {SIGNATURE_ROUTES} from "./signatures.js";
import {WEBHOOK_ROUTES} from "./webhooks.js";

export const V1_ROUTE_FAMILIES: readonly RouteDefs[] = [
  PRIMARY_ROUTES,
  EVM_ROUTES,
  ICM_ROUTES,
  SIGNATURE_ROUTES,
  WEBHOOK_ROUTES,
  HEALTH_ROUTES,
  META_ROUTES,
];

/** docs/api/openapi.json, and the answer of `GET /v1/openapi.json`. */
export function v1OpenApiDocument(): JsonSchema {
  return openApiDocument(
    {
      title: "avaext Data API",
      version: "1",
      description:
        "A self-hosted equivalent of Ava Labs' hosted Data API (Glacier) for the network this node follows: the paths, parameters and models of @avalabs/glacier-sdk and @avalanche-sdk/chainkit, answered from this node's own index. Generated from src/dataApi/routes/defs by scripts/openapi.mjs.",
    },
    V1_ROUTE_FAMILIES,
    ERROR,
  );
}
