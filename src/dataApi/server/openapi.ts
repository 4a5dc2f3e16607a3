/**
 * The OpenAPI 3.1 document of route tables (route.ts): each entry's path, parameters (with their types, ranges,
 * defaults, enums and array encoding), paging parameters, request body, answer model and error body. What
 * `GET /v1/openapi.json` answers and scripts/openapi.mjs writes to docs/api/openapi.json; built from the same
 * entries the router dispatches by, so the reference cannot drift from what is served. Blockscout's OpenApiSpex
 * specs (one per controller action, the document rendered from them) are the model.
 */
import type {ParamDoc} from "./querySpec.js";
import type {AnyRouteDef, RouteDefs} from "./route.js";
import type {JsonSchema, Schema} from "./schema.js";

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
}

const JSON_CT = "application/json";

/** `/a/:x/b:list` → `/a/{x}/b:list` (only a segment that starts with `:` is a parameter). */
export function openApiPath(template: string): string {
  return template
    .split("/")
    .map((s) => (s.startsWith(":") ? `{${s.slice(1)}}` : s))
    .join("/");
}

export function openApiDocument(info: OpenApiInfo, families: readonly RouteDefs[], error: Schema<unknown>): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas = new Map<string, JsonSchema>();
  const ids = new Set<string>();
  const collect = (s: Schema<unknown>): JsonSchema => {
    for (const [name, json] of s.components) {
      const had = schemas.get(name);
      if (had !== undefined && JSON.stringify(had) !== JSON.stringify(json))
        throw new Error(`model ${name} is declared twice, differently`);
      schemas.set(name, json);
    }
    return s.json;
  };
  const content = (s: Schema<unknown>) => ({[JSON_CT]: {schema: collect(s)}});
  const errors = {
    ClientError: {
      description:
        "A request this endpoint refuses (the message names the parameter and the reason), a resource not found, or a rate limit",
      content: content(error),
    },
    ServerError: {
      description: "A failure of this node or of a service it asks (the message says which)",
      content: content(error),
    },
  };
  for (const family of families) {
    for (const def of Object.values(family)) {
      const path = openApiPath(def.path);
      const method = def.method.toLowerCase();
      if (ids.has(def.operationId)) throw new Error(`operation ${def.operationId} is declared twice`);
      ids.add(def.operationId);
      checkPathParams(def);
      const item = (paths[path] ??= {});
      if (item[method] !== undefined) throw new Error(`${def.method} ${path} is declared twice`);
      const responses: Record<string, unknown> = {
        [String(def.status ?? 200)]: {description: "Successful response", content: content(def.response)},
      };
      for (const [status, s] of Object.entries(def.otherAnswers ?? {}))
        responses[status] = {description: "The same model, with the failing checks", content: content(s)};
      responses["4XX"] = {$ref: "#/components/responses/ClientError"};
      responses["5XX"] = {$ref: "#/components/responses/ServerError"};
      item[method] = {
        operationId: def.operationId,
        summary: def.summary,
        tags: [...def.tags],
        ...(def.deprecated ? {deprecated: true} : {}),
        parameters: parameters(def),
        ...(def.body ? {requestBody: {required: true, content: content(def.body)}} : {}),
        responses,
      };
    }
  }
  const sorted = Object.fromEntries([...schemas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {openapi: "3.1.0", info, paths, components: {schemas: sorted, responses: errors}};
}

function parameters(def: AnyRouteDef): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [name, doc] of Object.entries(def.params as Record<string, ParamDoc>))
    out.push({name, in: "path", required: true, ...docFields(doc)});
  for (const [name, p] of Object.entries(def.query))
    out.push({name, in: "query", ...(p.doc.required ? {required: true} : {}), ...docFields(p.doc)});
  if (def.paging) {
    out.push({
      name: "pageToken",
      in: "query",
      description: "The nextPageToken of the previous page (bound to this request's path and filters)",
      schema: {type: "string"},
    });
    out.push({
      name: "pageSize",
      in: "query",
      description: "Items a page",
      schema: {type: "integer", minimum: 1, maximum: def.paging.maxPageSize, default: 10},
    });
  }
  return out;
}

function docFields(doc: ParamDoc): JsonSchema {
  return {
    ...(doc.description ? {description: doc.description} : {}),
    schema: doc.schema,
    ...(doc.explode === false ? {style: "form", explode: false} : {}),
    ...(doc.extension ? {"x-avaext-extension": true} : {}),
  };
}

/** Every parameter of the template is declared, and no other. */
function checkPathParams(def: AnyRouteDef): void {
  const inPath = def.path
    .split("/")
    .filter((s) => s.startsWith(":"))
    .map((s) => s.slice(1))
    .sort();
  const declared = Object.keys(def.params).sort();
  if (inPath.join() !== declared.join())
    throw new Error(
      `${def.method} ${def.path}: path parameters ${inPath.join(", ")} but ${declared.join(", ")} declared`,
    );
}
