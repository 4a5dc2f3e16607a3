/**
 * The abort signal of the request a piece of work runs for, without passing it down every call: the /v1 router
 * runs each handler inside `run`, and the store's client reads `current()` to cancel a statement whose client went
 * away (store/pg.ts). One instance, made by the data API's composition (dataApi/service.ts), shared by both.
 */
import {AsyncLocalStorage} from "node:async_hooks";

export class RequestSignals {
  private readonly storage = new AsyncLocalStorage<AbortSignal>();

  run<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    return this.storage.run(signal, fn);
  }

  /** The signal of the request this runs for; undefined outside one (the fold, the lanes). */
  current(): AbortSignal | undefined {
    return this.storage.getStore();
  }
}
