/**
 * An EVM JSON-RPC client for followers (docs/operations/evm-chains.md): batched requests (split at `maxBatch`,
 * AvalancheGo allows 1,000 a batch), bounded adaptive concurrency (additive increase on success, halved on a timeout,
 * an HTTP error or garbage), retries with exponential backoff and jitter, and errors that say what went wrong. A
 * JSON-RPC error answer is not retried: it is the node's answer, and the caller decides what it means.
 */
import {sleep} from "../util/sleep.js";
import type {Logger} from "../logger/index.js";
import {RetryableError} from "../util/errors.js";
import {redactUrl, withoutCredentials} from "../util/url.js";

export interface EvmRpcOptions {
  url: string;
  /** Per HTTP request. */
  timeoutMs: number;
  /** Largest batch sent in one HTTP request. */
  maxBatch: number;
  /** Most HTTP requests in flight at once (the adaptive limit never exceeds it). */
  maxConcurrency: number;
  /** Retries of a failed HTTP request (transport, timeout, 5xx/408/429, malformed answer; not other 4xx). */
  retries: number;
  /** First backoff, doubled each retry (with jitter), capped at 30 s. */
  retryBaseMs: number;
}

export const defaultEvmRpcOptions: Omit<EvmRpcOptions, "url"> = {
  timeoutMs: 20_000,
  maxBatch: 200,
  maxConcurrency: 8,
  retries: 5,
  retryBaseMs: 250,
};

export interface EvmRpcModules {
  logger: Logger;
  /** Counts every failed HTTP request by kind (`transport`, `http`, `malformed`). */
  onError?: (kind: RpcCallErrorKind) => void;
  /** Runs each HTTP exchange, knowing its methods (the dev network's EVM keeps its traces apart from its mining). */
  guard?: RpcGuard;
}

/** Runs one HTTP exchange of JSON-RPC calls with these methods, when it may. */
export type RpcGuard = <T>(methods: readonly string[], exchange: () => Promise<T>) => Promise<T>;

export type RpcCallErrorKind = "transport" | "http" | "malformed" | "rpc";

/**
 * A call this process made to a node's JSON-RPC that failed (`kind`), or that the node answered with an error (`rpc`,
 * with its code); the errors this process's own JSON-RPC server replies with are api/errors.ts's RpcErrorReply.
 * Retryable: whatever the node answered or failed to answer, it may answer otherwise later (an RPC outage).
 */
export class RpcCallError extends RetryableError {
  constructor(
    message: string,
    readonly kind: RpcCallErrorKind,
    readonly code?: number,
    /** Given up on at its timeout rather than failed: the node may still be working on the request. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** Whether a request was given up on at a timeout (an RpcCallError's, or fetch's own `TimeoutError`), not answered. */
export function timedOut(e: unknown): boolean {
  return e instanceof RpcCallError ? e.timedOut : e instanceof Error && e.name === "TimeoutError";
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

export type RpcOutcome = {ok: true; result: unknown} | {ok: false; error: RpcCallError};

interface Envelope {
  id?: unknown;
  result?: unknown;
  error?: {code?: unknown; message?: unknown};
}

export class EvmRpc {
  /**
   * The URL as errors, logs, health checks and answers show it (util/url.ts redactUrl): RPC URLs carry API keys in
   * their credentials, query and path, and every RpcCallError message reaches a health check or an error body.
   */
  get label(): string {
    return this.target().label;
  }
  /**
   * Where requests go: the URL without credentials, which go in `authorization` (Node's fetch refuses them); made
   * again when `opts.url` changes (the dev network's EVM is given by a getter, and restarts on another port).
   */
  private split: {url: string; endpoint: URL; auth: Record<string, string>; label: string} | null = null;
  private limit: number;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private nextId = 1;

  constructor(
    readonly opts: EvmRpcOptions,
    private readonly modules: EvmRpcModules,
  ) {
    this.limit = Math.max(1, Math.min(2, opts.maxConcurrency));
  }

  private target(): {endpoint: URL; auth: Record<string, string>; label: string} {
    const url = this.opts.url;
    if (this.split?.url !== url) {
      const {url: endpoint, headers: auth} = withoutCredentials(url);
      this.split = {url, endpoint, auth, label: redactUrl(url)};
    }
    return this.split;
  }

  /** The current adaptive concurrency limit (for metrics and tests). */
  concurrency(): number {
    return Math.floor(this.limit);
  }

  /** One call; a JSON-RPC error answer throws RpcCallError of kind `rpc` with the node's code and message. */
  async call<T = unknown>(method: string, params: unknown[], signal?: AbortSignal): Promise<T> {
    const [r] = await this.batch([{method, params}], signal);
    if (!r!.ok) throw r!.error;
    return r!.result as T;
  }

  /** Many calls, in order; each is its result or its JSON-RPC error. Transport failures throw after the retries. */
  async batch(calls: RpcCall[], signal?: AbortSignal): Promise<RpcOutcome[]> {
    const chunks: RpcCall[][] = [];
    for (let i = 0; i < calls.length; i += this.opts.maxBatch) chunks.push(calls.slice(i, i + this.opts.maxBatch));
    const parts = await Promise.all(chunks.map((c) => this.withRetries(c, signal)));
    return parts.flat();
  }

  private async withRetries(calls: RpcCall[], signal?: AbortSignal): Promise<RpcOutcome[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.send(calls, signal);
      } catch (e) {
        const err = e instanceof RpcCallError ? e : new RpcCallError(String(e), "transport");
        this.modules.onError?.(err.kind);
        if (signal?.aborted || attempt >= this.opts.retries || !retryable(err)) throw err;
        const delay = Math.min(30_000, this.opts.retryBaseMs * 2 ** attempt) * (0.5 + Math.random() / 2);
        this.modules.logger.debug(
          {rpc: this.label, attempt, delay: Math.round(delay), err: err.message},
          "EVM RPC request failed; retrying",
        );
        await sleep(delay, signal);
      }
    }
  }

  /** A slot under the adaptive limit; an abort while waiting for one throws (nothing was sent). */
  private async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw new RpcCallError(`${this.label}: aborted`, "transport");
      if (this.inFlight < Math.floor(this.limit)) break;
      await new Promise<void>((r) => {
        const wake = (): void => {
          signal?.removeEventListener("abort", wake);
          r();
        };
        this.waiting.push(wake);
        signal?.addEventListener("abort", wake, {once: true});
      });
    }
    this.inFlight++;
  }

  private release(ok: boolean): void {
    this.inFlight--;
    this.limit = ok ? Math.min(this.opts.maxConcurrency, this.limit + 1 / this.limit) : Math.max(1, this.limit / 2);
    this.waiting.splice(0).forEach((w) => w());
  }

  private async send(calls: RpcCall[], signal?: AbortSignal): Promise<RpcOutcome[]> {
    await this.acquire(signal);
    let ok = false;
    try {
      const first = this.nextId;
      this.nextId += calls.length;
      const body = JSON.stringify(
        calls.map((c, i) => ({jsonrpc: "2.0", id: first + i, method: c.method, params: c.params})),
      );
      const exchange = async (): Promise<{res: Response; text: string}> => {
        // The timeout starts once the guard lets the exchange go: waiting for it is not the node being slow.
        const timeout = AbortSignal.timeout(this.opts.timeoutMs);
        let res: Response;
        try {
          const {endpoint, auth} = this.target();
          res = await fetch(endpoint, {
            method: "POST",
            headers: {"content-type": "application/json", ...auth},
            body,
            signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          });
        } catch (e) {
          const why = timeout.aborted
            ? `timed out after ${this.opts.timeoutMs} ms`
            : (e as Error).cause
              ? String((e as Error).cause)
              : (e as Error).message;
          throw new RpcCallError(`${this.label}: ${why}`, "transport", undefined, timeout.aborted);
        }
        const text = await res.text().catch((e: Error) => {
          // The timeout covers the whole answer: a body that stalls after the headers times out too.
          const why = timeout.aborted ? `timed out after ${this.opts.timeoutMs} ms` : e.message;
          throw new RpcCallError(`${this.label}: reading the answer: ${why}`, "transport", undefined, timeout.aborted);
        });
        return {res, text};
      };
      const guard = this.modules.guard;
      const {res, text} = guard
        ? await guard(
            calls.map((c) => c.method),
            exchange,
          )
        : await exchange();
      if (!res.ok)
        throw new RpcCallError(`${this.label}: HTTP ${res.status} ${text.slice(0, 200)}`, "http", res.status);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new RpcCallError(`${this.label}: the answer is not JSON: ${text.slice(0, 100)}`, "malformed");
      }
      // A node that refuses the whole batch answers one error object instead of an array.
      if (!Array.isArray(parsed)) {
        const env = parsed as Envelope;
        if (env && typeof env === "object" && env.error)
          throw new RpcCallError(`${this.label}: batch refused: ${String(env.error.message)}`, "malformed");
        throw new RpcCallError(`${this.label}: the answer to a batch is not an array`, "malformed");
      }
      const byId = new Map<number, Envelope>();
      for (const e of parsed as Envelope[])
        if (e && typeof e === "object" && typeof e.id === "number") byId.set(e.id, e);
      const out = calls.map((c, i): RpcOutcome => {
        const env = byId.get(first + i);
        if (!env) throw new RpcCallError(`${this.label}: no answer to ${c.method} in the batch`, "malformed");
        if (env.error) {
          const code = typeof env.error.code === "number" ? env.error.code : undefined;
          return {ok: false, error: new RpcCallError(`${c.method}: ${String(env.error.message)}`, "rpc", code)};
        }
        if (!("result" in env))
          throw new RpcCallError(`${this.label}: ${c.method} answered neither result nor error`, "malformed");
        return {ok: true, result: env.result};
      });
      ok = true;
      return out;
    } finally {
      this.release(ok);
    }
  }
}

/** A 4xx other than 408 (timeout) and 429 (rate limit) will be answered again: retrying it only delays the error. */
function retryable(err: RpcCallError): boolean {
  if (err.kind !== "http" || err.code === undefined) return true;
  return !(err.code >= 400 && err.code < 500 && err.code !== 408 && err.code !== 429);
}
