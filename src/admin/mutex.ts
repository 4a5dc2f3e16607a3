/**
 * A FIFO async mutex: admin methods that touch shared state across awaits (the profilers, the VM registry) run one
 * at a time, in arrival order, as AvalancheGo's admin service serialises on one lock.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `fn` once every earlier holder has finished; a failure releases the lock like a success. */
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
