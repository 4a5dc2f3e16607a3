/** CB58 IDs: AvalancheGo's error texts, and a bounded cost for long inputs (found by the issue #8 review). */
import {describe, expect, it} from "vitest";
import {createHash} from "node:crypto";
import {MAX_ID_STRING_LENGTH, base58Decode, base58Encode, cb58Decode, cb58Encode, idFromString, idToString} from "../../../src/util/cb58.js";
import {SHA256_ONE_BLOCK_MAX, sha256Tail} from "../../../src/util/sha256.js";

describe("idFromString on long inputs", () => {
  it("refuses a 1 MiB id at once (base58 decoding is quadratic: 100k characters took ~8 s)", () => {
    const t0 = performance.now();
    expect(() => idFromString("2".repeat(1 << 20))).toThrow(/^invalid hash length: 1048576 characters is longer than any ID/);
    // Far above the ~1 ms it takes, far below the quadratic path (minutes at this length): no flake under load.
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it("keeps AvalancheGo's digit errors past the bound, and its exact texts up to it", () => {
    expect(() => idFromString("2".repeat(5000) + "0")).toThrow("base58 decoding error: Invalid base58 digit ('0')");
    expect(() => idFromString("2".repeat(5000) + "é")).toThrow("base58 decoding error: High-bit set on invalid digit");
    expect(() => idFromString("2".repeat(MAX_ID_STRING_LENGTH))).toThrow("invalid input checksum");
    expect(() => idFromString("")).toThrow("base58 decoding error: zero length string");
  });
});

/** Base58 by repeated division of a BigInt: slow and obviously right. */
function naiveBase58(bytes: Uint8Array): string {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = "";
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out;
    n /= 58n;
  }
  return "1".repeat(zeros) + out;
}

describe("base58Encode", () => {
  it("matches a plain BigInt encoder for every length up to 400 bytes (a fixed limb array once cut inputs ≥ 235 bytes)", () => {
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let len = 0; len <= 400; len++) {
      const bytes = Uint8Array.from({length: len}, rand);
      if (len % 7 === 0 && len > 0) bytes[0] = 0; // leading zeros
      expect(base58Encode(bytes)).toBe(naiveBase58(bytes));
      if (len > 0) expect(base58Decode(base58Encode(bytes))).toEqual(bytes);
    }
  });

  it("keeps every leading zero byte as a '1', whatever the parity of their count and the length after them", () => {
    // The encoder folds two bytes a step: odd and even counts of zeros, before odd and even tails, and all zeros.
    for (let zeros = 0; zeros <= 6; zeros++) {
      for (const tail of [[], [1], [0, 1], [255], [1, 0], [0xff, 0xfe, 0xfd], [0, 0, 0, 58]]) {
        const bytes = Uint8Array.from([...Array<number>(zeros).fill(0), ...tail]);
        expect(base58Encode(bytes), `${zeros} zeros, then [${tail}]`).toBe(naiveBase58(bytes));
        if (bytes.length > 0) expect(base58Decode(base58Encode(bytes))).toEqual(bytes);
      }
    }
    expect(base58Encode(new Uint8Array(32))).toBe("1".repeat(32));
  });
});

describe("sha256Tail (CB58's one-block checksum in JavaScript)", () => {
  it("equals node:crypto's sha256(bytes)[28:32] for every length it takes, and refuses longer inputs", () => {
    let seed = 11;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let len = 0; len <= SHA256_ONE_BLOCK_MAX; len++) {
      for (let k = 0; k < 8; k++) {
        const bytes = Uint8Array.from({length: len}, rand);
        expect(sha256Tail(bytes)).toBe(createHash("sha256").update(bytes).digest().readUInt32BE(28));
      }
    }
    expect(() => sha256Tail(new Uint8Array(56))).toThrow(RangeError);
  });

  it("gives CB58 checksums equal to node:crypto's, short and long inputs alike", () => {
    for (const len of [0, 1, 20, 32, 55, 56, 100]) {
      const bytes = Uint8Array.from({length: len}, (_, i) => (i * 37 + len) % 256);
      const sum = createHash("sha256").update(bytes).digest().subarray(28);
      expect(cb58Encode(bytes)).toBe(naiveBase58(Uint8Array.from([...bytes, ...sum])));
      expect(cb58Decode(cb58Encode(bytes))).toEqual(bytes);
    }
    // A real ID (the X-chain's on mainnet) survives the round trip.
    const x = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM";
    expect(idToString(idFromString(x))).toBe(x);
  });
});
