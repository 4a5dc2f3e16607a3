/**
 * Requests in flight, in arrival order, as an intrusive doubly linked list: the oldest is the head, and adding or
 * removing one allocates nothing. A Set did the same job, but V8 rehashed its table as it swung between empty and
 * a few entries on every request, and the Set living in the old generation put each new table there too: about
 * 110 bytes of old-generation garbage per request (sampled with the heap profiler), collected only by full GCs.
 */
import type {IncomingMessage} from "node:http";

/** One request being served. */
export class Exchange {
  /** The route template for the metrics (`unmatched` before routing). */
  template = "unmatched";
  prev: Exchange | null = null;
  next: Exchange | null = null;
  linked = false;

  constructor(
    readonly req: IncomingMessage,
    /** performance.now() at arrival, ms. */
    readonly start: number,
  ) {}
}

export class Inflight {
  private head: Exchange | null = null;
  private tail: Exchange | null = null;
  size = 0;

  add(x: Exchange): void {
    // Linking an exchange twice would cut the list; each request is added once, on arrival.
    if (x.linked) throw new Error("exchange already in flight");
    x.prev = this.tail;
    x.next = null;
    if (this.tail === null) this.head = x;
    else this.tail.next = x;
    this.tail = x;
    x.linked = true;
    this.size++;
  }

  /** Idempotent: an exchange whose socket closed is removed then, and again when its late answer is written. */
  remove(x: Exchange): void {
    if (!x.linked) return;
    if (x.prev === null) this.head = x.next;
    else x.prev.next = x.next;
    if (x.next === null) this.tail = x.prev;
    else x.next.prev = x.prev;
    x.prev = x.next = null;
    x.linked = false;
    this.size--;
  }

  /** The earliest arrival still in flight. */
  oldest(): Exchange | null {
    return this.head;
  }

  /** Removes every exchange that `drop` selects (`drop` must not change the list itself). */
  removeWhere(drop: (x: Exchange) => boolean): void {
    for (let x = this.head; x !== null; ) {
      const next = x.next;
      if (drop(x)) this.remove(x);
      x = next;
    }
  }
}
