/** FifoMap: at most `max` keys, the oldest set evicted first, with a Map's answers in between. */
import {expect, it} from "vitest";
import {FifoMap} from "../../../src/util/fifoMap.js";
import {prng} from "../../helpers/prng.js";

it("evicts the oldest key set once it holds max, and keeps a key set again in its place", () => {
  const m = new FifoMap<string, number>(3);
  m.set("a", 1);
  m.set("b", 2);
  m.set("c", 3);
  m.set("a", 10); // held: updated in place, nothing evicted
  expect([m.get("a"), m.size]).toEqual([10, 3]);
  m.set("d", 4); // evicts a, the oldest
  expect([m.has("a"), m.get("b"), m.get("c"), m.get("d"), m.size]).toEqual([false, 2, 3, 4, 3]);
  m.set("e", 5);
  expect([m.has("b"), m.size]).toEqual([false, 3]);
});

it("evicts past deleted keys to the oldest held, and a key deleted and set again is new", () => {
  const m = new FifoMap<string, number>(3);
  for (const [i, k] of ["a", "b", "c"].entries()) m.set(k, i);
  expect(m.delete("a")).toBe(true);
  expect(m.delete("a")).toBe(false);
  m.set("d", 3); // room left by a: nothing evicted
  expect([m.has("b"), m.has("c"), m.has("d"), m.size]).toEqual([true, true, true, 3]);
  m.set("b", 20); // held: updated in place
  m.set("e", 4); // evicts b, the oldest held
  expect([m.has("b"), m.size]).toEqual([false, 3]);
  m.delete("d");
  m.set("d", 5); // d again: the newest now
  m.set("f", 6); // evicts c
  m.set("g", 7); // evicts e, not d
  expect([m.has("c"), m.has("e"), m.get("d"), m.get("f"), m.get("g"), m.size]).toEqual([false, false, 5, 6, 7, 3]);
});

it("holds nothing at size 0 and refuses a bad size", () => {
  const m = new FifoMap<string, number>(0);
  m.set("a", 1);
  expect([m.has("a"), m.size]).toEqual([false, 0]);
  expect(() => new FifoMap(-1)).toThrow("FifoMap: bad size -1");
  expect(() => new FifoMap(1.5)).toThrow("FifoMap: bad size 1.5");
});

it("answers as a Map that drops its oldest key past max, over random sets, gets and deletes", () => {
  const random = prng(7);
  const int = (n: number): number => Math.floor(random() * n);
  const max = 64;
  const m = new FifoMap<number, number>(max);
  const model = new Map<number, number>();
  for (let step = 0; step < 50_000; step++) {
    const key = int(200);
    const op = int(3);
    if (op === 0) {
      if (!model.has(key) && model.size === max) model.delete(model.keys().next().value!);
      model.set(key, step);
      m.set(key, step);
    } else if (op === 1) {
      expect(m.delete(key)).toBe(model.delete(key));
    } else {
      expect(m.get(key)).toBe(model.get(key));
    }
    expect(m.size).toBe(model.size);
  }
  for (const k of model.keys()) expect(m.get(k)).toBe(model.get(k));
});
