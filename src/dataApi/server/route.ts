/**
 * One `/v1` endpoint, declared: method, path, path and query parameters, request body, paging, response model.
 * The router dispatches, parses and pages by it; openapi.ts publishes it. A family of routes (the primary network,
 * the EVM chains, ...) is one object of these entries (routes/defs/), with no module behind it, so the reference can
 * be built without a store; its handlers are bound to it apart (`implement`), checked against it by the compiler:
 * each entry has one handler, which reads the declared parameters only and returns the declared model. Lodestar's
 * route definitions (`getDefinitions`, with the handlers bound by `getRoutes`) follow the same split.
 */
import type {IncomingMessage} from "node:http";
import type {CursorValue} from "./cursorTokens.js";
import type {ParamDoc, QuerySpec, QueryValues} from "./querySpec.js";
import type {Infer, Schema} from "./schema.js";

/** The path parameters of a template: `/a/:x/b/:y` → {x: string; y: string} (a segment that starts with `:`). */
export type Params<T extends string> = {[K in ParamName<Segments<T>>]: string};
type Segments<T extends string> = T extends `${infer A}/${infer B}` ? A | Segments<B> : T;
type ParamName<S> = S extends `:${infer P}` ? P : never;

/** PATCH and DELETE: the webhooks' management (routes/defs/webhooks.ts), as the hosted API has them. */
export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * How a list pages: `text`, a query's one-string cursor (queries/primary); `values`, a cursor of several values
 * (queries/evm, the ICM list). Either way the page token is bound to the request (cursorTokens.ts), and `pageSize`
 * is an integer in [1, maxPageSize], 10 by default.
 */
export interface Paging {
  kind: "text" | "values";
  maxPageSize: number;
}

export interface RouteDef<
  P extends string = string,
  Q extends QuerySpec = QuerySpec,
  R = unknown,
  G extends Paging | undefined = Paging | undefined,
> {
  method: Method;
  path: P;
  /** The hosted API's operation ID (chainkit's `operationID`); avaext's own for its extensions. */
  operationId: string;
  summary: string;
  tags: readonly string[];
  /** A name the SDK keeps for an older client (`/v1/teleporter/...`, `/v1/chains/allBlocks`). */
  deprecated?: boolean;
  params: {[K in keyof Params<P>]: ParamDoc};
  query: Q;
  paging: G;
  /** The JSON body a POST takes (its fields are checked by the handler, whose messages name them). */
  body?: Schema<unknown>;
  response: Schema<R>;
  /**
   * Requests of the client's rate limit one request takes (default 1; at most the whole limit): a route whose work
   * is many times a page's costs that many.
   */
  cost?: number;
  /** The success status: 200, or 201 as the hosted API answers signature aggregation. */
  status?: 200 | 201;
  /** Answers besides the error body (`/v1/health-check`'s 503 is its own model). */
  otherAnswers?: Readonly<Record<number, Schema<unknown>>>;
}

// biome-ignore lint/suspicious/noExplicitAny: a table of routes of every response type; each route checks its own.
export type AnyRouteDef = RouteDef<string, QuerySpec, any, Paging | undefined>;

/** An entry, typed from its literal: its path's parameters must be declared, its response is the handler's type. */
export function route<const P extends string, Q extends QuerySpec, R, G extends Paging | undefined = undefined>(
  def: RouteDef<P, Q, R, G>,
): RouteDef<P, Q, R, G> {
  return def;
}

export interface TextPage {
  /** `pageSize`. */
  readonly size: number;
  /** The previous page's cursor, from `pageToken`; undefined on page 1. */
  readonly cursor: string | undefined;
  /** The `nextPageToken` of a query's next cursor (undefined on the last page). */
  next(cursor: string | undefined): string | undefined;
}

export interface ValuesPage {
  readonly size: number;
  readonly cursor: CursorValue[] | null;
  next(cursor: CursorValue[] | undefined): string | undefined;
}

export type PageOf<G> = G extends {kind: "text"} ? TextPage : G extends {kind: "values"} ? ValuesPage : never;

export interface RouteCtx<D extends AnyRouteDef> {
  params: Params<D["path"]>;
  query: QueryValues<D["query"]>;
  page: PageOf<D["paging"]>;
  /** The parsed JSON body (POST, PATCH and DELETE routes; undefined when one without a declared body sent none). */
  body: unknown;
  req: IncomingMessage;
  /** The request's API key when the keys file lists it (the router refused an unlisted one), else undefined. */
  apiKey: string | undefined;
}

export type Handler<D extends AnyRouteDef> = (ctx: RouteCtx<D>) => Promise<Infer<D["response"]>>;

export type RouteDefs = Readonly<Record<string, AnyRouteDef>>;
export type Handlers<T extends RouteDefs> = {[K in keyof T]: Handler<T[K]>};

/** A route with its handler, as the router mounts it. */
export interface BoundRoute {
  def: AnyRouteDef;
  handler: (ctx: RouteCtx<AnyRouteDef>) => Promise<unknown>;
}

export function implement<T extends RouteDefs>(defs: T, handlers: Handlers<T>): BoundRoute[] {
  return Object.keys(defs).map((k) => ({def: defs[k]!, handler: handlers[k] as BoundRoute["handler"]}));
}
