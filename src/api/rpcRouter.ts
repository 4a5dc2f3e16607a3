/**
 * One JSON-RPC router for every `/ext` service, on json-rpc-2.0's JSONRPCServer.
 *
 * json-rpc-2.0 dispatches a single request to its method and maps errors; this wrapper owns what the contract
 * settles differently from that library and from AvalancheGo (docs/api/http.md): envelope checks with precise
 * messages, `id: null` as a notification, batches answered as arrays (even of one) with a size cap, the service
 * a path may reach, params validation, metrics, and the single error mapper.
 */
import {JSONRPCServer, type JSONRPCRequest, type JSONRPCResponse} from "json-rpc-2.0";
import type {Logger} from "../logger/index.js";
import type {CounterChild, HistogramChild} from "../metrics/fast.js";
import type {RpcMetrics} from "../metrics/index.js";
import {
  ErrorCode,
  RpcErrorReply,
  invalidRequest,
  methodNotFound,
  parseError,
  toRpcError,
  type RpcErrorObject,
} from "./errors.js";
import type {Validator} from "./validate.js";

type JsonRpcId = string | number | null;

/**
 * A result that is already JSON text: spliced into the response as is. For large results built from values
 * that need no escaping (hex, CB58, decimal strings), it spares serialising them twice. As bytes (UTF-8), a
 * multi-megabyte answer is assembled by copying cached buffers, never built as a string and encoded again.
 */
export class RawJson {
  constructor(readonly json: string | Buffer) {}
}

/**
 * An answer's text, or, when a large RawJson result came as bytes, the answer as byte chunks to be written in
 * order: a 2 MiB getContainerRange page is never copied into a joined buffer (it was copied twice, for the
 * envelope and for the trailing newline).
 */
export type Body = string | readonly Buffer[];

/** One method: its params validator and handler. `C` is the per-route context (e.g. which index endpoint). */
export interface MethodDef<C> {
  readonly params: Validator<unknown>;
  readonly handler: (params: never, ctx: C) => unknown;
}

/** Declares a method with its params type inferred from the validator. */
export function method<P, R, C>(params: Validator<P>, handler: (params: P, ctx: C) => R | Promise<R>): MethodDef<C> {
  return {params, handler: handler as (params: never, ctx: C) => unknown};
}

/** A service's methods by name (the part after `service.`). */
export type MethodTable<C> = Readonly<Record<string, MethodDef<C>>>;

export interface RpcRouterOptions {
  /** Most requests in one batch (100, docs/api/http.md). */
  maxBatch: number;
  /** Attach error stacks of unexpected failures to `data` (debugging only). */
  stacktraces: boolean;
  /**
   * Most bytes of answers one batch may gather. The first answer is always written (as a lone request would be);
   * later requests of a batch past this budget are not run and get -32000 `response too large`. Without it a
   * batch of 100 `getContainerRange` calls (a few hundred bytes) held 100 ranges in memory at once and could
   * exhaust the heap or overflow V8's string limit, which crashed the process.
   */
  maxBatchResponseBytes: number;
}

export const defaultRpcRouterOptions: RpcRouterOptions = {
  maxBatch: 100,
  stacktraces: false,
  maxBatchResponseBytes: 64 * 1024 * 1024,
};

export interface RpcRouterModules {
  logger: Logger;
  metrics: RpcMetrics | null;
}

/** What the HTTP layer writes back: 200 with a body, or 204 (notifications only). */
export interface RpcReply {
  status: 200 | 204;
  body: Body | null;
}

interface CallParams {
  service: string;
  ctx: unknown;
}

const UNKNOWN_METHOD_LABEL = "unknown";

export class RpcRouter {
  private readonly server: JSONRPCServer<CallParams>;
  private readonly services = new Map<string, MethodTable<unknown>>();
  private readonly logger: Logger;
  private readonly metrics: RpcMetrics | null;
  private readonly slab = new AnswerSlab();

  constructor(
    private readonly opts: RpcRouterOptions,
    modules: RpcRouterModules,
  ) {
    this.logger = modules.logger;
    this.metrics = modules.metrics;
    // Errors are logged by our mapper (expected ones at debug, unexpected at error), not by the library.
    this.server = new JSONRPCServer<CallParams>({errorListener: () => {}});
    this.server.mapErrorToJSONRPCErrorResponse = (id, err) => ({jsonrpc: "2.0", id, error: this.mapError(err)});
  }

  /** Registers a service's method table; method names are `<service>.<name>`. */
  register<C>(service: string, table: MethodTable<C>): void {
    if (this.services.has(service)) throw new Error(`service ${service} already registered`);
    this.services.set(service, table as MethodTable<unknown>);
    for (const [name, def] of Object.entries(table)) {
      const full = `${service}.${name}`;
      // Registered "advanced" so the response is built here: a trivial call then costs one promise, not the
      // several hops of json-rpc-2.0's plain-method wrapper (measured: a third of a trivial call's time).
      // The method's own metric children, resolved once: a call then only adds to numbers.
      const stats: MethodStats | null = this.metrics && {
        ok: this.metrics.calls.labels(full, "success"),
        duration: this.metrics.duration.labels(full),
      };
      const handler = def.handler as (p: unknown, ctx: unknown) => unknown;
      // No closure per call: a trivial call's answer is built with what is at hand.
      this.server.addMethodAdvanced(
        full,
        (request: JSONRPCRequest, call: CallParams): PromiseLike<JSONRPCResponse | null> => {
          const start = stats === null ? 0 : performance.now();
          let out: unknown;
          try {
            out = handler(def.params(request.params, "params"), call.ctx);
          } catch (e) {
            return Promise.reject(this.failed(full, stats, start, e));
          }
          if (!isThenable(out)) return Promise.resolve(succeeded(stats, start, request, out));
          return out.then(
            (r) => succeeded(stats, start, request, r),
            (e: unknown) => Promise.reject(this.failed(full, stats, start, e)),
          );
        },
      );
    }
  }

  /** Counts a failed call by its outcome; returns the error to reject with. */
  private failed(full: string, stats: MethodStats | null, start: number, e: unknown): unknown {
    if (stats !== null) {
      this.metrics!.calls.labels(full, outcomeOf(e)).inc();
      stats.duration.observe((performance.now() - start) / 1e3);
    }
    return e;
  }

  /** Method names of a service, for documentation and tests. */
  methods(service: string): string[] {
    return Object.keys(this.services.get(service) ?? {}).map((m) => `${service}.${m}`);
  }

  /** Handles one HTTP body posted to a route of `service`. Never rejects. */
  async handle(body: string, service: string, ctx: unknown): Promise<RpcReply> {
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch (e) {
      return reply(errorResponse(null, parseError((e as Error).message).toObject()));
    }
    const call: CallParams = {service, ctx};
    if (Array.isArray(payload)) {
      if (payload.length === 0) return reply(errorResponse(null, invalidRequest("empty batch").toObject()));
      if (payload.length > this.opts.maxBatch) {
        const msg = `batch of ${payload.length} requests exceeds ${this.opts.maxBatch}`;
        return reply(errorResponse(null, invalidRequest(msg).toObject()));
      }
      return this.batch(payload, call);
    }
    const single = this.single(payload, call);
    const response = isThenable(single) ? await single : single;
    if (response === null) return {status: 204, body: null};
    return {status: 200, body: this.serializeOne(response, "\n")};
  }

  /**
   * A batch runs one request at a time so that at most one answer is being built while the written ones are
   * counted against maxBatchResponseBytes; past the budget, requests are answered with an error without running.
   * Notifications still run (they write nothing).
   */
  private async batch(payload: unknown[], call: CallParams): Promise<RpcReply> {
    const parts: Body[] = [];
    let bytes = 0;
    for (const req of payload) {
      const over = parts.length > 0 && bytes > this.opts.maxBatchResponseBytes;
      const refused = over ? this.refuseOverBudget(req) : null;
      const response = refused ?? (await this.single(req, call));
      if (response === null) continue;
      const text = this.serializeOne(response);
      bytes += typeof text === "string" ? text.length : bodyLength(text);
      parts.push(text);
    }
    if (parts.length === 0) return {status: 204, body: null};
    try {
      const all: Body[] = ["["];
      for (let i = 0; i < parts.length; i++) {
        if (i > 0) all.push(",");
        all.push(parts[i]!);
      }
      all.push("]\n");
      return {status: 200, body: concatBody(all)};
    } catch {
      // Only reachable if the budget exceeds V8's string limit: answer with errors instead of throwing.
      return reply(errorResponse(null, responseTooLarge(this.opts.maxBatchResponseBytes)));
    }
  }

  /**
   * A batch request past the response budget: -32000 `response too large` without running it, or null when it
   * is a notification or an envelope error, which run as usual (they add nothing, or a short error).
   */
  private refuseOverBudget(req: unknown): JSONRPCResponse | null {
    const r = typeof req === "object" && req !== null && !Array.isArray(req) ? (req as Record<string, unknown>) : null;
    if (r === null || r.jsonrpc !== "2.0" || typeof r.method !== "string") return null;
    if (typeof r.id !== "string" && typeof r.id !== "number") return null;
    return errorResponse(r.id, responseTooLarge(this.opts.maxBatchResponseBytes));
  }

  /** One answer as text; an answer too large for a JS string becomes a -32000 error rather than a throw. */
  private serializeOne(r: JSONRPCResponse, end = ""): Body {
    try {
      return one(r, end, this.slab);
    } catch (err) {
      this.logger.warn({err: (err as Error).message}, "rpc answer could not be serialised");
      return one(errorResponse(r.id ?? null, responseTooLarge(null)), end);
    }
  }

  /** Checks one request's envelope; answers envelope errors at once, else dispatches through json-rpc-2.0. */
  private single(req: unknown, call: CallParams): JSONRPCResponse | null | PromiseLike<JSONRPCResponse | null> {
    if (typeof req !== "object" || req === null || Array.isArray(req)) {
      return errorResponse(null, invalidRequest("a request must be a JSON object").toObject());
    }
    const r = req as Record<string, unknown>;
    const idValid = r.id === undefined || r.id === null || typeof r.id === "string" || typeof r.id === "number";
    const id: JsonRpcId = idValid && r.id !== undefined ? (r.id as JsonRpcId) : null;
    // The contract treats `id: null` as a notification too (as AvalancheGo does): nothing is written back.
    const notification = r.id === undefined || r.id === null;
    if (r.jsonrpc !== "2.0") return errorResponse(id, invalidRequest('jsonrpc must be "2.0"').toObject());
    if (!idValid) return errorResponse(null, invalidRequest("id must be a string, a number or null").toObject());
    if (typeof r.method !== "string") return errorResponse(id, invalidRequest("method must be a string").toObject());
    const method = r.method;
    const dot = method.indexOf(".");
    // `<service>.<name>` of this route's service only (no substring is built to compare).
    if (dot !== call.service.length || !method.startsWith(call.service) || !this.server.hasMethod(method)) {
      this.metrics?.calls.labels(UNKNOWN_METHOD_LABEL, "not_found").inc();
      return notification ? null : errorResponse(id, methodNotFound(method).toObject());
    }
    const request: JSONRPCRequest = {jsonrpc: "2.0", method, params: r.params};
    if (!notification) request.id = id;
    return this.server.receive(request, call);
  }

  private mapError(err: unknown): RpcErrorObject {
    const {error, expected} = toRpcError(err);
    if (expected) {
      this.logger.debug({code: error.code, err: error.message}, "rpc call failed");
    } else {
      this.logger.error({err}, "unexpected failure in rpc method");
      if (this.opts.stacktraces && err instanceof Error) error.data = {stack: err.stack};
    }
    return error;
  }
}

/** A method's metric children for successful calls and the latency of all. */
interface MethodStats {
  ok: CounterChild;
  duration: HistogramChild;
}

/** Counts a successful call; its answer (null for a notification). */
function succeeded(
  stats: MethodStats | null,
  start: number,
  request: JSONRPCRequest,
  result: unknown,
): JSONRPCResponse | null {
  if (stats !== null) {
    stats.ok.inc();
    stats.duration.observe((performance.now() - start) / 1e3);
  }
  return request.id === undefined ? null : {jsonrpc: "2.0", id: request.id, result};
}

function outcomeOf(e: unknown): string {
  if (!(e instanceof RpcErrorReply)) return "internal_error";
  switch (e.code) {
    case ErrorCode.InvalidParams:
      return "invalid_params";
    case ErrorCode.Application:
      return "app_error";
    default:
      return "internal_error";
  }
}

/** -32000 for an answer that is not written: past the batch budget (`limit`), or too large for a string at all. */
function responseTooLarge(limit: number | null): RpcErrorObject {
  const message =
    limit === null
      ? "response too large"
      : `response too large: the answers to this batch exceed ${limit} bytes; send fewer or smaller requests per batch`;
  return {code: ErrorCode.Application, message};
}

function errorResponse(id: JsonRpcId, error: RpcErrorObject): JSONRPCResponse {
  return {jsonrpc: "2.0", id, error};
}

/** An error answer of the router itself, with Go's json.Encoder trailing newline. */
function reply(payload: JSONRPCResponse): RpcReply {
  return {status: 200, body: one(payload, "\n")};
}

/**
 * Key order as AvalancheGo (jsonrpc, result|error, id), then `end` (Go's trailing newline for a whole answer).
 * A small byte result is copied into bytes from `slab`; without one (error answers carry no bytes) text is built.
 */
function one(r: JSONRPCResponse, end = "", slab: AnswerSlab | null = null): Body {
  const id = JSON.stringify(r.id ?? null);
  if (r.error !== undefined) return `{"jsonrpc":"2.0","error":${JSON.stringify(r.error)},"id":${id}}${end}`;
  const json = r.result instanceof RawJson ? r.result.json : JSON.stringify(r.result ?? null);
  if (typeof json === "string") return `{"jsonrpc":"2.0","result":${json},"id":${id}}${end}`;
  const tail = `,"id":${id}}${end}`;
  // A large result is passed on as it is, between the envelope's pieces: a 2 MiB page is never copied to join them.
  if (json.length > 64 * 1024) return [RESULT_HEAD, json, Buffer.from(tail, "utf8")];
  // A small one is copied once into the whole answer, which goes to the socket as bytes: as text it was decoded,
  // joined, flattened and encoded again (a few copies of every byte; a sixth of a cached getContainerByIndex).
  const tailBytes = Buffer.byteLength(tail);
  const size = RESULT_HEAD.length + json.length + tailBytes;
  const out = slab === null ? Buffer.allocUnsafe(size) : slab.take(size);
  RESULT_HEAD.copy(out, 0);
  json.copy(out, RESULT_HEAD.length);
  const at = RESULT_HEAD.length + json.length;
  // The tail is a few ASCII bytes (`,"id":7}`): stored one by one, it spares a call into C++ per answer.
  if (tailBytes === tail.length) for (let i = 0; i < tailBytes; i++) out[at + i] = tail.charCodeAt(i);
  else out.write(tail, at, tailBytes, "utf8");
  return [out];
}

const RESULT_HEAD = Buffer.from('{"jsonrpc":"2.0","result":');

/**
 * Bytes for small answers, cut from 64 KiB slabs. Node's Buffer pool is 8 KiB, so a 2.3 KB answer (a cached
 * 1 KiB container) took a new pool every third answer: an ArrayBuffer, its malloc, and V8's tracking of it until
 * a GC swept it, 0.4 µs of a 2.1 µs call in the router's loop. A slab is freed once every answer cut from it
 * has been written; a client that stops reading pins the slab of its pending answer (64 KiB at most each) where
 * it pinned an 8 KiB pool. Answers above 8 KiB get their own allocation, as Node's pool would give them.
 */
class AnswerSlab {
  private static readonly SIZE = 64 * 1024;
  private buf = Buffer.allocUnsafeSlow(AnswerSlab.SIZE);
  private off = 0;

  take(n: number): Buffer {
    if (n > AnswerSlab.SIZE / 8) return Buffer.allocUnsafe(n);
    if (this.off + n > AnswerSlab.SIZE) {
      this.buf = Buffer.allocUnsafeSlow(AnswerSlab.SIZE);
      this.off = 0;
    }
    const out = this.buf.subarray(this.off, this.off + n);
    // Eight-byte aligned, as Node's pool: the next answer's copy starts on a word.
    this.off = (this.off + n + 7) & ~7;
    return out;
  }
}

/** Joins answers: a string while every part is one, else the chunks of all of them in order (text as UTF-8). */
function concatBody(parts: readonly Body[]): Body {
  if (parts.every((p) => typeof p === "string")) return (parts as string[]).join("");
  return parts.flatMap((p) => (typeof p === "string" ? [Buffer.from(p, "utf8")] : p));
}

/** Bytes of an answer (UTF-8 for text). */
export function bodyLength(b: Body): number {
  if (typeof b === "string") return Buffer.byteLength(b);
  let n = 0;
  for (const c of b) n += c.length;
  return n;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === "object" && v !== null && typeof (v as {then?: unknown}).then === "function";
}
