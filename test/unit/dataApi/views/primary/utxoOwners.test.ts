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
