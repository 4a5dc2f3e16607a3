/** The data API's JSON: bigints anywhere become decimal strings; without them the output is JSON.stringify's. */
import {expect, it} from "vitest";
import {stringify} from "../../../../src/dataApi/server/router.js";

it("writes bigints, however deep, as decimal strings", () => {
  const v = {amount: 18_446_744_073_709_551_615n, items: [{n: 1, fee: -5n}, "x"], nested: {a: {b: [0n]}}};
  expect(stringify(v)).toBe(
    '{"amount":"18446744073709551615","items":[{"n":1,"fee":"-5"},"x"],"nested":{"a":{"b":["0"]}}}',
  );
});

it("writes what holds no bigint exactly as JSON.stringify does", () => {
  const v = {
    s: 'é\u2028"',
    n: 1.5,
    nul: null,
    undef: undefined,
    arr: [undefined, () => 1],
    date: new Date(0),
    bytes: {toJSON: () => "0x00"},
  };
  expect(stringify(v)).toBe(JSON.stringify(v));
});

it("still fails on a cycle", () => {
  const v: Record<string, unknown> = {};
  v.self = v;
  expect(() => stringify(v)).toThrow(TypeError);
});
