/**
 * Validator observations from the AvalancheGo node beside avaext (`--platform-rpc`): its view of each current
 * validator's uptime (`platform.getCurrentValidators`' `uptime` and `connected`, vms/platformvm/service.go) and of
 * its peers' benching (`info.peers`' `benched`, the chains' aliases, api/info/service.go). Polled every
 * `refreshMs`; each validator keeps its last `window` polls, from which reachability and benching are percentages.
 * A failed poll keeps what the last ones gave (and is logged), for a while: once the last successful poll is older
 * than STALE_POLLS intervals, nothing is served as observed (every validator is up, the no-source answer) until a
 * poll succeeds again. A validator the node does not report is up, as AvalancheGo assumes an unobserved one
 * (observations.ts). At most `maxNodes` validators are kept. close() aborts a poll in flight.
 */
import type {Logger} from "../../logger/index.js";
import {joinUrl, jsonRpc} from "../signatures/upstream.js";
import {UP, type ValidatorObservation, type ValidatorObservations} from "./observations.js";

export interface NodeObservationsOptions {
  /** The node's base URL (`http://127.0.0.1:9650`). */
  url: string;
  refreshMs: number;
  timeoutMs: number;
  /** Polls a validator's reachability and benching are computed over. */
  window: number;
  maxNodes: number;
}

export const defaultNodeObservationsOptions = {
  refreshMs: 60_000,
  timeoutMs: 10_000,
  window: 60,
  maxNodes: 20_000,
} as const;

export interface NodeObservationsModules {
  logger: Logger;
  /** Milliseconds (Date.now by default; tests pass their own clock). */
  now?: () => number;
}

/** Observations are served for this many refresh intervals after the last successful poll. */
export const STALE_POLLS = 5;

/** A poll of one validator: connected, and benched on P, X and C (bits 0, 1, 2). */
interface Sample {
  connected: boolean;
  benched: number;
}

interface Known {
  uptime: number | null;
  samples: Sample[];
}

const BENCH_BIT: Record<string, number> = {P: 1, X: 2, C: 4};

export class NodeObservations implements ValidatorObservations {
  private readonly validators = new Map<string, Known>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private closed = false;
  private readonly abort = new AbortController();
  /** When the last successful poll ended (ms), null before the first. */
  private lastSuccessAt: number | null = null;
  /** The last poll's error, null once one succeeds (the source's state, for logs and tests). */
  lastError: string | null = null;
  /** Polls that succeeded. */
  polls = 0;

  constructor(
    readonly opts: NodeObservationsOptions,
    private readonly modules: NodeObservationsModules,
  ) {}

  start(): void {
    if (this.timer !== null || this.closed) return;
    const tick = (): void => {
      this.polling = this.poll().finally(() => {
        this.polling = null;
        if (!this.closed) this.timer = setTimeout(tick, this.opts.refreshMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    await this.polling;
  }

  /** Whether the last successful poll is recent enough for its observations to be served. */
  current(): boolean {
    const now = (this.modules.now ?? Date.now)();
    return this.lastSuccessAt !== null && now - this.lastSuccessAt <= STALE_POLLS * this.opts.refreshMs;
  }

  observe(nodeId: string): ValidatorObservation {
    if (!this.current()) return UP;
    const k = this.validators.get(nodeId);
    if (k === undefined || k.samples.length === 0) return UP;
    const pct = (f: (s: Sample) => boolean): number => round2((100 * k.samples.filter(f).length) / k.samples.length);
    return {
      uptimePerformance: k.uptime ?? UP.uptimePerformance,
      validatorHealth: {
        reachabilityPercent: pct((s) => s.connected),
        benchedPChainRequestsPercent: pct((s) => (s.benched & 1) !== 0),
        benchedXChainRequestsPercent: pct((s) => (s.benched & 2) !== 0),
        benchedCChainRequestsPercent: pct((s) => (s.benched & 4) !== 0),
      },
    };
  }

  /** One poll: both calls, then a sample of every current validator. */
  async poll(): Promise<void> {
    const call = {timeoutMs: this.opts.timeoutMs, signal: this.abort.signal};
    try {
      const [current, peers] = await Promise.all([
        jsonRpc(joinUrl(this.opts.url, "/ext/bc/P"), "platform.getCurrentValidators", {}, call),
        jsonRpc(joinUrl(this.opts.url, "/ext/info"), "info.peers", {}, call),
      ]);
      const benched = new Map<string, number>();
      for (const p of arrayOf(peers, "peers")) {
        const id = (p as {nodeID?: unknown}).nodeID;
        const chains = (p as {benched?: unknown}).benched;
        if (typeof id !== "string" || !Array.isArray(chains)) continue;
        const bit = (c: unknown): number => (typeof c === "string" ? (BENCH_BIT[c] ?? 0) : 0);
        benched.set(
          id,
          chains.reduce((bits: number, c: unknown) => bits | bit(c), 0),
        );
      }
      const seen = new Set<string>();
      for (const v of arrayOf(current, "validators")) {
        const id = (v as {nodeID?: unknown}).nodeID;
        if (typeof id !== "string" || seen.has(id)) continue;
        seen.add(id);
        const uptime = percent((v as {uptime?: unknown}).uptime);
        const connected = (v as {connected?: unknown}).connected;
        // A node that does not track the primary network answers neither: nothing observed of this validator.
        if (uptime === null && typeof connected !== "boolean") continue;
        let k = this.validators.get(id);
        if (k === undefined) {
          if (this.validators.size >= this.opts.maxNodes) this.validators.delete(this.validators.keys().next().value!);
          k = {uptime: null, samples: []};
          this.validators.set(id, k);
        }
        if (uptime !== null) k.uptime = uptime;
        k.samples.push({connected: connected === true, benched: benched.get(id) ?? 0});
        if (k.samples.length > this.opts.window) k.samples.shift();
      }
      // A validator no longer current is forgotten: its period is over, and a later one starts afresh.
      for (const id of this.validators.keys()) if (!seen.has(id)) this.validators.delete(id);
      this.polls++;
      this.lastError = null;
      this.lastSuccessAt = (this.modules.now ?? Date.now)();
    } catch (e) {
      if (this.closed) return;
      const message = (e as Error).message;
      if (this.lastError !== message) {
        const what = "validator observations: polling the node (--platform-rpc) failed; keeping the last ones";
        this.modules.logger.warn({err: message}, what);
      }
      this.lastError = message;
    }
  }
}

function arrayOf(result: unknown, field: string): unknown[] {
  const a = result !== null && typeof result === "object" ? (result as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(a)) throw new Error(`no ${field} array in the answer`);
  return a.filter((x) => x !== null && typeof x === "object");
}

/** AvalancheGo's `uptime` is a JSON float (a percent, 0-100), written as a string by its json.Float32. */
function percent(v: unknown): number | null {
  const n = typeof v === "string" ? Number(v) : typeof v === "number" ? v : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 100 ? round2(n) : null;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
