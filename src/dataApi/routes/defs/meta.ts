/** avaext's own `/v1` routes about the API itself: its OpenAPI document. Handler: routes/meta.ts. */
import {route} from "../../server/route.js";
import {named} from "../../server/schema.js";

export const META_ROUTES = {
  getOpenApiDocument: route({
    method: "GET",
    path: "/v1/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This document (avaext's own; the hosted API publishes its reference elsewhere)",
    tags: ["Reference"],
    params: {},
    query: {},
    paging: undefined,
    response: named("OpenApiDocument", "An OpenAPI 3.1 document"),
  }),
};
