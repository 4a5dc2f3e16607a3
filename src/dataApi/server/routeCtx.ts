/**
 * What a handler of the route table is given (route.ts `RouteCtx`): its declared query parameters, each parsed when
 * first read (querySpec.ts), and its page (`pageSize`, the cursor of `pageToken`, the next page's token), by the
 * entry's paging kind. The path parameters' own checks (querySpec.ts `ParamDoc.check`) run first.
 */
import type {IncomingMessage} from "node:http";
import {badRequest} from "./errors.js";
import type {CursorValue, CursorTokens} from "./cursorTokens.js";
import type {Query} from "./params.js";
import type {ParamDoc, QuerySpec} from "./querySpec.js";
import type {AnyRouteDef, Paging, RouteCtx, TextPage, ValuesPage} from "./route.js";

export function routeCtx(
  def: AnyRouteDef,
  o: {
    params: Record<string, string>;
    query: Query;
    body: unknown;
    req: IncomingMessage;
    apiKey: string | undefined;
    tokens: CursorTokens;
    scope: () => string;
  },
): RouteCtx<AnyRouteDef> {
  for (const [name, doc] of Object.entries(def.params as Record<string, ParamDoc>)) {
    const v = o.params[name];
    if (doc.check && v !== undefined) doc.check(name, v);
  }
  return {
    params: o.params,
    query: lazyQuery(def.query, o.query),
    page: (def.paging === undefined ? undefined : page(def.paging, o.query, o.tokens, o.scope)) as never,
    body: o.body,
    req: o.req,
    apiKey: o.apiKey,
  };
}

function lazyQuery(spec: QuerySpec, q: Query): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(spec)) {
    let parsed = false;
    let value: unknown;
    Object.defineProperty(out, name, {
      enumerable: true,
      get: () => {
        if (!parsed) {
          value = p.parse(q, name);
          parsed = true;
        }
        return value;
      },
    });
  }
  return out;
}

function page(paging: Paging, q: Query, tokens: CursorTokens, scope: () => string): TextPage | ValuesPage {
  let size: number | undefined;
  const pageSize = (): number => (size ??= q.pageSize(paging.maxPageSize));
  const decoded = (): CursorValue[] | null => {
    const t = q.string("pageToken");
    return t === undefined ? null : tokens.decode(scope(), t);
  };
  if (paging.kind === "values") {
    const values: ValuesPage = {
      get size() {
        return pageSize();
      },
      get cursor() {
        return decoded();
      },
      next: (c) => (c === undefined ? undefined : tokens.encode(scope(), c)),
    };
    return values;
  }
  const text: TextPage = {
    get size() {
      return pageSize();
    },
    get cursor() {
      const c = decoded();
      if (c === null) return undefined;
      if (c.length !== 1 || typeof c[0] !== "string") throw badRequest("pageToken", "malformed");
      return c[0];
    },
    next: (c) => (c === undefined ? undefined : tokens.encode(scope(), [c])),
  };
  return text;
}
