/**
 * The three health workers and their scheduler: every check runs at start, then every `--health-check-frequency`,
 * rounds never overlap, and each check has its own timeout so one hung check cannot stall the others (AvalancheGo
 * has no such guard). Reads (GET and JSON-RPC) only ever see cached results.
 */
import {setMaxListeners} from "node:events";
import {Gauge, type Registry} from "prom-client";
import type {Logger} from "../logger/index.js";
import {METRIC_PREFIX} from "../metrics/index.js";
import {HealthWorker, TAG_APPLICATION, type Check, type HealthReport} from "./worker.js";

const MAX_CACHED_REPORTS = 64;

/** A report as served: `json` for a JSON-RPC result, `body` (with the newline) for GET. */
export interface CachedReport {
  healthy: boolean;
  json: string;
  body: string;
  /** The worker's version it was made at. */
  version: number;
}

export type WorkerName = "health" | "readiness" | "liveness";

export interface HealthOptions {
  /** Time between the end of one round and the start of the next, ms. */
  frequencyMs: number;
  /** Longest a single check may run, ms. */
  checkTimeoutMs: number;
}

export interface HealthModules {
  logger: Logger;
  register: Registry | null;
}

export class Health {
  readonly workers: Record<WorkerName, HealthWorker>;
  private readonly gauge: Gauge<"check" | "tag"> | null;
  /**
   * Stops every worker's checks. Each running check listens on it and stops listening when it ends, so its listeners
   * are bounded by the checks registered: more than Node's warning threshold of ten with the data API's, no leak.
   */
  private readonly ctrl = unboundedController();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly jsonCache = new Map<string, CachedReport>();

  constructor(
    private readonly opts: HealthOptions,
    modules: HealthModules,
  ) {
    const logger = modules.logger;
    this.workers = {
      health: new HealthWorker("health", logger, opts.checkTimeoutMs),
      readiness: new HealthWorker("readiness", logger, opts.checkTimeoutMs),
      liveness: new HealthWorker("liveness", logger, opts.checkTimeoutMs),
    };
    this.gauge = modules.register
      ? new Gauge({
          name: `${METRIC_PREFIX}health_checks_failing`,
          help: "Number of failing health checks by worker (check) and tag",
          labelNames: ["check", "tag"],
          registers: [modules.register],
          // Read from the workers at scrape time: each check's result is set as it finishes, so a gauge set at
          // the end of a round could disagree with a report served mid-round.
          collect: () => this.updateGauge(),
        })
      : null;
  }

  /** Registers a check on the health worker (`monotonic` checks go on readiness; see registerReadiness). */
  registerHealth(name: string, check: Check, tags: string[] = []): void {
    this.workers.health.register(name, check, tags);
  }

  /** Readiness checks are monotonic: once passing, they pass forever. */
  registerReadiness(name: string, check: Check, tags: string[] = []): void {
    this.workers.readiness.register(name, check, tags, true);
  }

  registerLiveness(name: string, check: Check, tags: string[] = []): void {
    this.workers.liveness.register(name, check, tags);
  }

  report(worker: WorkerName, tags: readonly string[] = []): HealthReport {
    return this.workers[worker].report(tags);
  }

  /**
   * The report serialised, cached until a result changes (each check's result is set as it finishes): probes
   * hit these paths at high rates, GET and JSON-RPC alike. `json` is the report; `body` adds Go's newline.
   */
  reportJson(worker: WorkerName, tags: readonly string[] = []): CachedReport {
    const w = this.workers[worker];
    // Tags as JSON: joined with a separator, ["a\u0000b"] and ["a", "b"] would share an entry.
    const key = tags.length === 0 ? worker : worker + JSON.stringify(tags);
    let hit = this.jsonCache.get(key);
    if (hit === undefined || hit.version !== w.version) {
      const r = this.report(worker, tags);
      const json = JSON.stringify(r);
      hit = {healthy: r.healthy, json, body: json + "\n", version: w.version};
      // Tags come from clients; bound the cache so odd queries cannot grow it without limit.
      if (this.jsonCache.size >= MAX_CACHED_REPORTS) this.jsonCache.clear();
      this.jsonCache.set(key, hit);
    }
    return hit;
  }

  /** Runs the first round now, then schedules the next rounds. */
  start(): void {
    if (this.timer !== null || this.running !== null || this.stopped) return;
    this.loop();
  }

  /** Runs one round of every worker now (also used by tests); rounds never overlap. */
  async runRound(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      await Promise.all(Object.values(this.workers).map((w) => w.runAll(this.ctrl.signal)));
    })();
    try {
      await this.running;
    } finally {
      this.running = null;
    }
  }

  /**
   * Marks the process as shutting down: a failing `shuttingDown` check (tag application) shows at once on every
   * report, so load balancers stop sending traffic while requests drain.
   */
  async markShuttingDown(): Promise<void> {
    const w = this.workers.health;
    if (!w.has("shuttingDown")) {
      w.register("shuttingDown", () => ({details: {isShuttingDown: true}, error: "server shutting down"}), [
        TAG_APPLICATION,
      ]);
    }
    await w.runNow("shuttingDown");
  }

  /** Stops scheduling; results stay frozen. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.ctrl.abort();
    await this.running;
  }

  private loop(): void {
    const started = Date.now();
    this.timer = null;
    void this.runRound().then(() => {
      if (this.stopped) return;
      // Self-rescheduling timer: the next round starts one period after this one started, or at once if the
      // round overran; rounds therefore never overlap (ticks AvalancheGo would drop are simply not scheduled).
      const delay = Math.max(0, this.opts.frequencyMs - (Date.now() - started));
      this.timer = setTimeout(() => this.loop(), delay);
      this.timer.unref();
    });
  }

  private updateGauge(): void {
    if (!this.gauge) return;
    for (const [name, w] of Object.entries(this.workers)) {
      for (const tag of w.tags()) this.gauge.set({check: name, tag}, w.failing(tag));
    }
  }
}

function unboundedController(): AbortController {
  const ctrl = new AbortController();
  setMaxListeners(0, ctrl.signal);
  return ctrl;
}
