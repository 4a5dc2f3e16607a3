/**
 * At most `max` tasks at once; up to `maxWaiting` more wait their turn in order, and past them `run` refuses at
 * once with what `refuse` makes (a 503 for a route: work that would only queue up is not taken on).
 */
export class Slots {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly opts: {max: number; maxWaiting: number},
    private readonly refuse: (busy: number, waiting: number) => Error,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.busy < this.opts.max) this.busy++;
    else if (this.waiting.length >= this.opts.maxWaiting) throw this.refuse(this.busy, this.waiting.length);
    // The slot a finished task hands over (busy stays counted).
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }
}
