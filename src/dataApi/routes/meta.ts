/** `GET /v1/openapi.json` (defs/meta.ts): the document of every `/v1` route, built once. */
import {implement, type BoundRoute} from "../server/route.js";
import {v1OpenApiDocument} from "./defs/index.js";
import {META_ROUTES} from "./defs/meta.js";

export function metaRoutes(): BoundRoute[] {
  let doc: object | undefined;
  return implement(META_ROUTES, {getOpenApiDocument: async () => (doc ??= v1OpenApiDocument())});
}
