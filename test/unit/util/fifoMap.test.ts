/** FifoMap: the last `max` keys set, evicted in the order they were set, with a Map's answers in between. */
import v8 from "node:v8";
import vm from "node:vm";
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

it("frees no slot on delete: the ring still evicts in the order keys were set", () => {
  const m = new FifoMap<string, number>(3);
  for (const [i, k] of ["a", "b", "c"].entries()) m.set(k, i);
  expect(m.delete("b")).toBe(true);
  expect(m.delete("b")).toBe(false);
  m.set("d", 3); // takes a's slot
  expect([m.has("a"), m.has("c"), m.has("d"), m.size]).toEqual([false, true, true, 2]);
  m.set("e", 4); // b's slot: b is gone already, nothing else leaves
  expect([m.has("c"), m.has("d"), m.has("e"), m.size]).toEqual([true, true, true, 3]);
});

it("holds nothing after clear, and evicts from a fresh ring", () => {
  const m = new FifoMap<string, number>(2);
  m.set("a", 1);
  m.set("b", 2);
  m.clear();
  expect([m.has("a"), m.has("b"), m.size]).toEqual([false, false, 0]);
  m.set("c", 3);
  m.set("d", 4);
  m.set("e", 5); // evicts c, the oldest since the clear
  expect([m.has("c"), m.get("d"), m.get("e"), m.size]).toEqual([false, 4, 5, 2]);
});

it("holds nothing at size 0 and refuses a bad size", () => {
  const m = new FifoMap<string, number>(0);
  m.set("a", 1);
  expect([m.has("a"), m.size]).toEqual([false, 0]);
  expect(() => new FifoMap(-1)).toThrow("FifoMap: bad size -1");
  expect(() => new FifoMap(1.5)).toThrow("FifoMap: bad size 1.5");
});

it("answers as a Map that drops the key set max new keys before, over random sets, gets and deletes", () => {
  const random = prng(7);
  const int = (n: number): number => Math.floor(random() * n);
  const max = 64;
  const m = new FifoMap<number, number>(max);
  // The model: a Map, and the ring's slots as a queue of the keys set while not held.
  const model = new Map<number, number>();
  const slots: number[] = [];
  for (let step = 0; step < 50_000; step++) {
    const key = int(200);
    const op = int(3);
    if (op === 0) {
      if (!model.has(key)) {
        if (slots.length === max) model.delete(slots.shift()!);
        slots.push(key);
      }
      model.set(key, step);
      m.set(key, step);
    } else if (op === 1) {
      // A deleted key keeps its slot in the model too: set again, it takes a new one, and leaves at its first.
      expect(m.delete(key)).toBe(model.delete(key));
    } else {
      expect(m.get(key)).toBe(model.get(key));
    }
    expect(m.size).toBe(model.size);
  }
  for (const k of model.keys()) expect(m.get(k)).toBe(model.get(k));
});

it("keeps no more than its keys, whatever it deleted: a million keys set and soon deleted", () => {
  // A Map iterator kept across evictions would hold every table the Map grew out of (about 250 MB here).
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  gc();
  const before = v8.getHeapStatistics().used_heap_size;
  const m = new FifoMap<number, Uint8Array>(100_000);
  for (let i = 0; i < 1_000_000; i++) {
    m.set(i, new Uint8Array(64));
    if (i >= 500) m.delete(i - 500);
  }
  gc();
  const grown = v8.getHeapStatistics().used_heap_size - before;
  expect(m.size).toBe(500);
  expect(grown).toBeLessThan(20 * 2 ** 20);
});
