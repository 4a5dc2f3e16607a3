/**
 * The structured ABI coder (tuples, arrays of tuples, nested dynamic types): hand-computed encodings as solc's
 * abi.encode makes them, round trips, and decoding untrusted data: every truncation, offsets and lengths past the
 * data (of a subarray of a larger buffer), overlapping offsets that would multiply the output, and a fuzz of mutated
 * inputs that must never raise anything but AbiError.
 */
import {describe, expect, it} from "vitest";
import {
  AbiError,
  decodeAbiSpec,
  encodeAbiSpec,
  encodeCallSpec,
  type AbiSpec,
  type AbiStructValue,
} from "../../../src/evm/abi.js";
import {bytesToHex, hexToBytes} from "../../../src/evm/hex.js";
import {mulberry32 as prng} from "../../../src/util/prng.js";

const w = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, "0");
const A = "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65";
const B = "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc";
const wa = (a: string): string => a.slice(2).padStart(64, "0");

const MESSAGE: AbiSpec = {
  tuple: [
    "uint256",
    "address",
    "bytes32",
    "address",
    "uint256",
    "address[]",
    {array: {tuple: ["uint256", "address"]}},
    "bytes",
  ],
};
const FEE: AbiSpec = {tuple: ["address", "uint256"]};
const sample: AbiStructValue = [
  7n,
  A,
  hexToBytes("11".repeat(32)),
  B,
  200000n,
  [A, B],
  [
    [1n, A],
    [2n, B],
  ],
  hexToBytes("68656c6c6f"),
];

describe("structured ABI encoding", () => {
  it("a static tuple is inline, a dynamic one behind an offset", () => {
    expect(bytesToHex(encodeAbiSpec([FEE, "uint256"], [[A, 5n], 9n]))).toBe(wa(A) + w(5) + w(9));
    expect(bytesToHex(encodeAbiSpec([{tuple: ["uint256", "bytes"]}], [[1n, hexToBytes("abcd")]]))).toBe(
      w(0x20) + w(1) + w(0x40) + w(2) + "abcd".padEnd(64, "0"),
    );
  });

  it("arrays of static tuples are inline after the length; arrays of dynamic ones use offsets from the array's start", () => {
    expect(
      bytesToHex(
        encodeAbiSpec(
          [{array: FEE}],
          [
            [
              [A, 1n],
              [B, 2n],
            ],
          ],
        ),
      ),
    ).toBe(w(0x20) + w(2) + wa(A) + w(1) + wa(B) + w(2));
    expect(bytesToHex(encodeAbiSpec([{array: "bytes"}], [[hexToBytes("01"), hexToBytes("0203")]]))).toBe(
      w(0x20) + w(2) + w(0x40) + w(0x80) + w(1) + "01".padEnd(64, "0") + w(2) + "0203".padEnd(64, "0"),
    );
  });

  it("a TeleporterMessage and a fee, as SendCrossChainMessage's data, round trip", () => {
    const data = encodeAbiSpec([MESSAGE, FEE], [sample, [B, 150n]]);
    // Head: the message's offset, then the fee inline.
    expect(bytesToHex(data.subarray(0, 96))).toBe(w(0x60) + wa(B) + w(150));
    expect(decodeAbiSpec([MESSAGE, FEE], data)).toEqual([sample, [B, 150n]]);
    expect(encodeCallSpec("f()", [FEE], [[A, 1n]]).slice(0, 10)).toBe("0x26121ff0");
  });

  it("refuses values that do not fit the spec", () => {
    expect(() => encodeAbiSpec([FEE], [[A]])).toThrow(AbiError);
    expect(() => encodeAbiSpec([{array: "uint256"}], [5n])).toThrow(AbiError);
    expect(() => encodeAbiSpec([FEE], [5n])).toThrow(AbiError);
  });
});

describe("structured ABI decoding of untrusted data", () => {
  const good = encodeAbiSpec([MESSAGE, FEE], [sample, [B, 150n]]);

  it("every truncation fails with AbiError, never reading past a subarray", () => {
    for (let n = 0; n < good.length; n += 1) {
      const big = new Uint8Array(good.length + 64).fill(0);
      big.set(good.subarray(0, n));
      const view = big.subarray(0, n);
      let r: unknown;
      try {
        r = decodeAbiSpec([MESSAGE, FEE], view);
      } catch (e) {
        expect(e).toBeInstanceOf(AbiError);
        continue;
      }
      // Only a cut inside the last bytes' zero padding can still decode, to the same value.
      expect(n).toBeGreaterThan(good.length - 32);
      expect(r).toEqual([sample, [B, 150n]]);
    }
  });

  it("offsets and lengths past the data, huge array lengths, dirty addresses", () => {
    const bad = (hex: string, specs: AbiSpec[]): void =>
      expect(() => decodeAbiSpec(specs, hexToBytes(hex))).toThrow(AbiError);
    bad(w(0x1000), [{tuple: ["uint256", "bytes"]}]);
    bad(w(0x20) + w(2n ** 255n), [{array: FEE}]);
    bad(w(0x20) + w(3) + wa(A) + w(1), [{array: FEE}]);
    bad(w(0x20) + w(1) + "ff" + wa(A).slice(2) + w(1), [{array: FEE}]);
    bad(w(0x20) + w(0x20) + w(1000), [{tuple: ["bytes"]}]);
  });

  it("overlapping offsets cannot multiply a small input into a large output", () => {
    // 100 elements all pointing at the same 3,200 bytes: 320,000 bytes out of 10 KB in.
    const n = 100;
    const body = w(n) + w(n * 32).repeat(n) + w(3200) + "aa".repeat(3200);
    expect(() => decodeAbiSpec([{array: "bytes"}], hexToBytes(w(0x20) + body))).toThrow(/overlapping/);
    // The same data without overlap decodes.
    const ok = encodeAbiSpec([{array: "bytes"}], [[hexToBytes("aa".repeat(3200))]]);
    expect(decodeAbiSpec([{array: "bytes"}], ok)).toHaveLength(1);
  });

  it("a fuzz of mutated messages raises nothing but AbiError", () => {
    const rand = prng(20);
    for (let i = 0; i < 3000; i++) {
      const d = good.slice(0, Math.floor(rand() * (good.length + 1)));
      const flips = 1 + Math.floor(rand() * 4);
      for (let k = 0; k < flips && d.length; k++) {
        const at = Math.floor(rand() * d.length);
        d[at] = rand() < 0.5 ? Math.floor(rand() * 256) : d[at]! ^ (1 << Math.floor(rand() * 8));
      }
      try {
        decodeAbiSpec([MESSAGE, FEE], d);
      } catch (e) {
        expect(e).toBeInstanceOf(AbiError);
      }
    }
  });
});
