/**
 * One answer computed at a time and kept for a while: requests that arrive while a computation runs share it
 * (single flight), and an answer's age counts from when it was computed, not from when its computation started (a
 * computation slower than the lifetime would otherwise let the next request start another beside it). A failed
 * computation is not kept: the next request tries again.
 */
export interface SharedAnswerOptions {
  /** How long an answer is served after its computation finished, ms. */
  ttlMs: number;
}

export interface SharedAnswerModules<T> {
  compute: () => Promise<T>;
  /** Milliseconds (Date.now by default; tests pass their own clock). */
  now?: () => number;
}

export class SharedAnswer<T> {
  private kept: {at: number; answer: T} | null = null;
  private running: Promise<T> | null = null;

  constructor(
    private readonly opts: SharedAnswerOptions,
    private readonly modules: SharedAnswerModules<T>,
  ) {}

  get(): Promise<T> {
    const now = this.modules.now ?? Date.now;
    if (this.kept !== null && now() - this.kept.at < this.opts.ttlMs) return Promise.resolve(this.kept.answer);
    if (this.running !== null) return this.running;
    const run = this.modules.compute().then(
      (answer) => {
        this.kept = {at: now(), answer};
        this.running = null;
        return answer;
      },
      (err: unknown) => {
        this.running = null;
        throw err;
      },
    );
    this.running = run;
    return run;
  }
}
