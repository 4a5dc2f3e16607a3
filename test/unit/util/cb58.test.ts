/** CB58 IDs: AvalancheGo's error texts, and a bounded cost for long inputs (found by the issue #8 review). */
import {describe, expect, it} from "vitest";
import {MAX_ID_STRING_LENGTH, idFromString} from "../../../src/util/cb58.js";

describe("idFromString on long inputs", () => {
  it("refuses a 1 MiB id at once (base58 decoding is quadratic: 100k characters took ~8 s)", () => {
    const t0 = performance.now();
    expect(() => idFromString("2".repeat(1 << 20))).toThrow(/^invalid hash length: 1048576 characters is longer than any ID/);
    expect(performance.now() - t0).toBeLessThan(100);
  });

  it("keeps AvalancheGo's digit errors past the bound, and its exact texts up to it", () => {
    expect(() => idFromString("2".repeat(5000) + "0")).toThrow("base58 decoding error: Invalid base58 digit ('0')");
    expect(() => idFromString("2".repeat(5000) + "é")).toThrow("base58 decoding error: High-bit set on invalid digit");
    expect(() => idFromString("2".repeat(MAX_ID_STRING_LENGTH))).toThrow("invalid input checksum");
    expect(() => idFromString("")).toThrow("base58 decoding error: zero length string");
  });
});
