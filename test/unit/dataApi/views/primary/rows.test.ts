/** Rows' helpers: the distinct addresses a transaction or an output touches. */
import {expect, it} from "vitest";
import {distinctBytes} from "../../../../../src/dataApi/views/primary/rows.js";

const addr = (n: number, length = 20): Uint8Array => new Uint8Array(length).fill(n);

it("distinctBytes keeps the first of each byte string, in order, by content (not identity)", () => {
  const a = addr(1);
  const b = addr(2);
  expect(distinctBytes([])).toEqual([]);
  expect(distinctBytes([a])).toEqual([a]);
  const got = distinctBytes([a, b, addr(1), b, addr(3)]);
  expect(got).toEqual([a, b, addr(3)]);
  expect(got[0]).toBe(a);
  // A prefix is another string, and so is a byte string differing only in its last byte.
  const last = addr(1);
  last[19] = 9;
  expect(distinctBytes([a, a.subarray(0, 19), last])).toHaveLength(3);
});

it("distinctBytes gives the same answer for long lists (deduplicated through a set), bytes past 0x7f included", () => {
  // Bytes of 0x80 and up: a key encoding that folded them (UTF-8 would) would merge distinct addresses.
  const list = Array.from({length: 100}, (_, i) => addr(0x80 + (i % 37)));
  const got = distinctBytes(list);
  expect(got).toHaveLength(37);
  expect(got.map((x) => x[0])).toEqual(Array.from({length: 37}, (_, i) => 0x80 + i));
  expect(got[5]).toBe(list[5]);
});
