/**
 * An async readers-writer gate: `shared` sections run together, an `exclusive` one runs alone. Arrivals are served
 * in order, so once an exclusive section waits, shared sections that come after it wait too: a stream of shared
 * sections cannot starve it.
 */
export class ReadWriteGate {
  private readers = 0;
  private writer = false;
  private readonly queue: Array<{exclusive: boolean; start: () => void}> = [];

  /** Runs `fn` alongside other shared sections, never alongside an exclusive one. */
  shared<T>(fn: () => Promise<T>): Promise<T> {
    return this.run(false, fn);
  }

  /**
   * As `shared`, but a failure of `fn` for which `hold(error)` is a positive number of milliseconds keeps the section
   * held that long after `fn` failed; the caller has the error at once. For work given up on that may still run
   * where it was sent (a request whose timeout passed).
   */
  sharedHeldOnFailure<T>(fn: () => Promise<T>, hold: (error: unknown) => number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // A throwing `hold` releases the section at once; the caller already has fn's error (a second reject is a no-op).
      this.shared(async () => {
        try {
          resolve(await fn());
        } catch (e) {
          reject(e);
          const ms = hold(e);
          // Unref'd: a process on its way out does not wait for it.
          if (ms > 0) await new Promise<void>((r) => setTimeout(r, ms).unref());
        }
      }).catch(reject);
    });
  }

  /** Runs `fn` alone. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.run(true, fn);
  }

  /** Sections running now (for tests): shared ones, and whether an exclusive one runs. */
  state(): {shared: number; exclusive: boolean; waiting: number} {
    return {shared: this.readers, exclusive: this.writer, waiting: this.queue.length};
  }

  private async run<T>(exclusive: boolean, fn: () => Promise<T>): Promise<T> {
    if (this.queue.length === 0 && this.free(exclusive)) this.enter(exclusive);
    else await new Promise<void>((start) => this.queue.push({exclusive, start}));
    try {
      return await fn();
    } finally {
      if (exclusive) this.writer = false;
      else this.readers--;
      this.admit();
    }
  }

  private free(exclusive: boolean): boolean {
    return !this.writer && (!exclusive || this.readers === 0);
  }

  private enter(exclusive: boolean): void {
    if (exclusive) this.writer = true;
    else this.readers++;
  }

  /** Lets in the head of the queue: shared sections up to the next exclusive one, or that exclusive one alone. */
  private admit(): void {
    while (this.queue.length > 0 && this.free(this.queue[0]!.exclusive)) {
      const next = this.queue.shift()!;
      this.enter(next.exclusive);
      next.start();
      if (next.exclusive) return;
    }
  }
}
