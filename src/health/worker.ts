/**
 * A health worker (health, readiness or liveness): named checks with tags and cached results, with AvalancheGo's
 * semantics (api/health/worker.go): every check starts "not yet run" and failing; a failing run counts
 * contiguous failures and keeps the time of the first; monotonic checks, once passing, keep their first passing
 * details; every check is in tag `all`, and `application` checks are always reported.
 */
import type {Logger} from "../logger/index.js";
import {ZERO_TIME, formatRfc3339Nano, nowNs} from "../util/time.js";

export const TAG_ALL = "all";
export const TAG_APPLICATION = "application";

/** What a check returns: optional details (the result's `message`) and, when failing, an error text. */
export interface CheckOutcome {
  details?: unknown;
  error?: string;
}

/** A check; throwing is the same as returning `{error: err.message}`. The signal aborts on timeout or stop. */
export type Check = (signal: AbortSignal) => Promise<CheckOutcome> | CheckOutcome;

/** One cached result, serialised with the field order and omissions of AvalancheGo's health.Result. */
export interface CheckResult {
  message?: unknown;
  error?: string;
  timestamp: string;
  duration: number;
  contiguousFailures?: number;
  timeOfFirstFailure?: string;
}

export interface HealthReport {
  checks: Record<string, CheckResult>;
  healthy: boolean;
}

interface Entry {
  name: string;
  check: Check;
  tags: string[];
  monotonic: boolean;
  result: CheckResult;
  /** Details of the first passing run of a monotonic check, reported forever after. */
  passedDetails?: {details: unknown};
  /** Outcome of the last run; null before the first. */
  failing: boolean | null;
}

const NOT_YET_RUN: CheckResult = {error: "not yet run", timestamp: ZERO_TIME, duration: 0};

export class HealthWorker {
  private readonly entries = new Map<string, Entry>();
  private readonly tagIndex = new Map<string, Set<string>>([
    [TAG_ALL, new Set()],
    [TAG_APPLICATION, new Set()],
  ]);
  /** Bumped whenever a report could change (a check registered, a result set): serialisations keyed by it. */
  version = 0;

  constructor(
    readonly name: string,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  register(name: string, check: Check, tags: string[] = [], monotonic = false): void {
    if (this.entries.has(name)) throw new Error(`duplicate check: ${JSON.stringify(name)}`);
    if (tags.includes(TAG_ALL)) throw new Error(`restricted tag: ${JSON.stringify(TAG_ALL)}`);
    const all = [TAG_ALL, ...new Set(tags)];
    this.entries.set(name, {name, check, tags: all, monotonic, result: {...NOT_YET_RUN}, failing: null});
    this.version++;
    for (const t of all) {
      let set = this.tagIndex.get(t);
      if (!set) this.tagIndex.set(t, (set = new Set()));
      set.add(name);
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Every tag that has (or always reports) checks, for the failing-checks gauge. */
  tags(): string[] {
    return [...this.tagIndex.keys()];
  }

  /** Runs every check concurrently, each under the timeout; resolves when all have settled. Never throws. */
  async runAll(signal: AbortSignal): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => this.runOne(e, signal)));
  }

  /** Sets a result without running the check (used for `shuttingDown`, which must show at once). */
  async runNow(name: string): Promise<void> {
    const e = this.entries.get(name);
    if (e) await this.runOne(e, new AbortController().signal);
  }

  /** The cached results of the checks under the given tags (none = all), `application` always included. */
  report(tags: readonly string[] = []): HealthReport {
    const checks: Record<string, CheckResult> = {};
    let healthy = true;
    // Sorted keys, as Go's encoding/json emits maps.
    for (const n of [...this.selected(tags)].sort()) {
      const r = this.entries.get(n)!.result;
      checks[n] = r;
      if (r.error !== undefined) healthy = false;
    }
    return {checks, healthy};
  }

  /**
   * Number of failing checks in the report for a tag (for the gauge): the tag's own checks and, as in AvalancheGo
   * (api/health/worker.go updateMetrics), the application checks, which every report includes.
   */
  failing(tag: string): number {
    let n = 0;
    for (const name of this.selected([tag])) if (this.entries.get(name)!.result.error !== undefined) n++;
    return n;
  }

  /** The checks a report for these tags holds: theirs (none = all) and the application checks. */
  private selected(tags: readonly string[]): Set<string> {
    const wanted = tags.length === 0 ? [TAG_ALL, TAG_APPLICATION] : [...tags, TAG_APPLICATION];
    const names = new Set<string>();
    for (const t of wanted) for (const n of this.tagIndex.get(t) ?? []) names.add(n);
    return names;
  }

  private async runOne(e: Entry, parent: AbortSignal): Promise<void> {
    const ctrl = new AbortController();
    const onAbort = (): void => ctrl.abort();
    parent.addEventListener("abort", onAbort, {once: true});
    const start = process.hrtime.bigint();
    let timer: NodeJS.Timeout | undefined;
    let outcome: CheckOutcome;
    try {
      const timeout = new Promise<CheckOutcome>((resolve) => {
        timer = setTimeout(() => {
          ctrl.abort();
          resolve({error: `health check timed out after ${this.timeoutMs}ms`});
        }, this.timeoutMs);
      });
      outcome = await Promise.race([Promise.resolve().then(() => e.check(ctrl.signal)), timeout]);
    } catch (err) {
      outcome = {error: err instanceof Error ? err.message : String(err)};
    } finally {
      clearTimeout(timer);
      parent.removeEventListener("abort", onAbort);
    }
    const end = nowNs();
    const duration = Number(process.hrtime.bigint() - start);

    if (e.monotonic) {
      if (e.passedDetails) outcome = {details: e.passedDetails.details};
      else if (outcome.error === undefined) e.passedDetails = {details: outcome.details};
    }

    const prev = e.result;
    // Built field by field so JSON keeps AvalancheGo's order: message, error, timestamp, duration, ...
    const result = {} as CheckResult;
    if (outcome.details !== undefined && outcome.details !== null) result.message = outcome.details;
    if (outcome.error !== undefined) result.error = outcome.error;
    result.timestamp = formatRfc3339Nano(end);
    result.duration = duration;
    if (outcome.error !== undefined) {
      result.contiguousFailures = (prev.contiguousFailures ?? 0) + 1;
      result.timeOfFirstFailure = prev.contiguousFailures ? prev.timeOfFirstFailure! : formatRfc3339Nano(end);
    }
    e.result = result;
    this.version++;

    // Log transitions only (as AvalancheGo), not every round.
    const failing = outcome.error !== undefined;
    if (failing !== e.failing) {
      if (failing) this.logger.warn({worker: this.name, check: e.name, error: outcome.error}, "health check failing");
      else this.logger.info({worker: this.name, check: e.name}, "health check passing");
      e.failing = failing;
    }
  }
}
