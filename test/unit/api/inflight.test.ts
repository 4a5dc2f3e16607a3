import type {IncomingMessage} from "node:http";
import {describe, expect, it} from "vitest";
import {Exchange, Inflight} from "../../../src/api/inflight.js";

const req = (socket: string): IncomingMessage => ({socket}) as unknown as IncomingMessage;

function starts(list: Inflight): number[] {
  const out: number[] = [];
  list.removeWhere((x) => (out.push(x.start), false));
  return out;
}

describe("Inflight", () => {
  it("keeps arrival order, the oldest first, through removals anywhere", () => {
    const list = new Inflight();
    const xs = [1, 2, 3, 4].map((t) => new Exchange(req("a"), t));
    for (const x of xs) list.add(x);
    expect(list.size).toBe(4);
    expect(list.oldest()).toBe(xs[0]);
    list.remove(xs[0]!);
    list.remove(xs[2]!);
    expect(starts(list)).toEqual([2, 4]);
    expect(list.oldest()).toBe(xs[1]);
    list.remove(xs[3]!);
    list.remove(xs[1]!);
    expect(list.size).toBe(0);
    expect(list.oldest()).toBeNull();
    list.add(xs[2]!);
    expect(starts(list)).toEqual([3]);
  });

  it("removes an exchange once: a late answer after its socket closed changes nothing", () => {
    const list = new Inflight();
    const [a, b] = [new Exchange(req("a"), 1), new Exchange(req("b"), 2)];
    list.add(a);
    list.add(b);
    list.removeWhere((x) => x.req.socket === ("a" as never));
    list.remove(a);
    expect(list.size).toBe(1);
    expect(starts(list)).toEqual([2]);
  });

  it("removes the head, the tail or every entry by predicate, and refuses a second add", () => {
    const list = new Inflight();
    const xs = [1, 2, 3, 4, 5].map((t) => new Exchange(req(t % 2 ? "odd" : "even"), t));
    for (const x of xs) list.add(x);
    list.removeWhere((x) => x.start === 1 || x.start === 5);
    expect(starts(list)).toEqual([2, 3, 4]);
    expect(list.oldest()).toBe(xs[1]);
    expect(() => list.add(xs[2]!)).toThrow(/already in flight/);
    expect(starts(list)).toEqual([2, 3, 4]);
    list.removeWhere(() => true);
    expect(list.size).toBe(0);
    expect(list.oldest()).toBeNull();
    list.add(xs[4]!);
    list.add(xs[0]!);
    expect(starts(list)).toEqual([5, 1]);
  });
});
