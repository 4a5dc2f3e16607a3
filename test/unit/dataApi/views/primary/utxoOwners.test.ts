/** UtxoOwners: a spend takes its UTXO's owner once; the oldest creations leave first; size 0 keeps nothing. */
import {expect, it} from "vitest";
import {UtxoOwners} from "../../../../../src/dataApi/views/primary/utxoOwners.js";

const owner = (b: number): Uint8Array[] => [new Uint8Array(20).fill(b)];

it("gives an owner once, and reports the IDs it does not hold", () => {
  const o = new UtxoOwners(10);
  o.add("a", owner(1));
  o.add("b", owner(2));
  const out = new Map<string, Uint8Array[]>();
  expect(o.take(["a", "c"], out)).toEqual(["c"]);
  expect(out.get("a")).toEqual(owner(1));
  // A UTXO is spent once: it has left.
  expect(o.take(["a"], new Map())).toEqual(["a"]);
  expect([o.hits, o.misses, o.size]).toEqual([1, 2, 1]);
});

it("evicts the oldest creation past its size", () => {
  const o = new UtxoOwners(3);
  for (const [i, id] of ["a", "b", "c", "d"].entries()) o.add(id, owner(i));
  expect(o.size).toBe(3);
  const out = new Map<string, Uint8Array[]>();
  expect(o.take(["a", "b", "c", "d"], out)).toEqual(["a"]);
  expect([...out.keys()]).toEqual(["b", "c", "d"]);
});

it("holds nothing at size 0", () => {
  const o = new UtxoOwners(0);
  o.add("a", owner(1));
  expect(o.take(["a"], new Map())).toEqual(["a"]);
  expect(o.size).toBe(0);
});

it("keeps copies, not views into the decoded container's bytes", () => {
  const container = new Uint8Array(600).map((_, i) => i);
  const addresses = [container.subarray(100, 120), container.subarray(300, 320)];
  const o = new UtxoOwners(10);
  o.add("a", addresses);
  container.fill(0);
  const out = new Map<string, Uint8Array[]>();
  o.take(["a"], out);
  const [first, second] = out.get("a")!;
  expect([...first!]).toEqual(Array.from({length: 20}, (_, i) => 100 + i));
  expect([...second!]).toEqual(Array.from({length: 20}, (_, i) => (300 + i) & 0xff));
  expect(first!.buffer).not.toBe(container.buffer);
});

it("keeps a copy of an owner whose address is not 20 bytes, a Buffer's included", () => {
  const o = new UtxoOwners(10);
  const container = Buffer.alloc(64, 7);
  o.add("a", [container.subarray(0, 21), container.subarray(30, 50)]);
  container.fill(0);
  const out = new Map<string, Uint8Array[]>();
  o.take(["a"], out);
  expect(out.get("a")!.map((a) => [...a])).toEqual([Array(21).fill(7), Array(20).fill(7)]);
});
