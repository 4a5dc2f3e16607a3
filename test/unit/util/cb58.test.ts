/** CB58 IDs: AvalancheGo's error texts, and a bounded cost for long inputs (found by the issue #8 review). */
import {describe, expect, it} from "vitest";
import {createHash} from "node:crypto";
import {readFileSync} from "node:fs";
import path from "node:path";
import {base58} from "@scure/base";
import {sha256 as nobleSha256} from "@noble/hashes/sha2.js";
import {
  MAX_ID_STRING_LENGTH,
  base58Decode,
  base58Encode,
  cb58Decode,
  cb58Encode,
  idFromString,
  idToString,
} from "../../../src/util/cb58.js";
import {SHA256_ONE_BLOCK_MAX, sha256Tail} from "../../../src/util/sha256.js";

describe("idFromString on long inputs", () => {
  it("refuses a 1 MiB id at once (base58 decoding is quadratic: 100k characters took ~8 s)", () => {
    const t0 = performance.now();
    expect(() => idFromString("2".repeat(1 << 20))).toThrow(
      /^invalid hash length: 1048576 characters is longer than any ID/,
    );
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

/**
 * The hand-written encoders stay for speed (bench/primitives.mjs): each must give exactly what the audited
 * libraries give, on thousands of random inputs and on every ID the fixtures hold.
 */
describe("hand-written primitives against the libraries", () => {
  let seed = 2024;
  const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
  const randomBytes = (n: number): Uint8Array => Uint8Array.from({length: n}, rand);
  /** CB58 by the libraries: @scure/base of bytes ‖ @noble/hashes sha256(bytes)[28:32]. */
  const libraryCb58 = (b: Uint8Array): string => base58.encode(Uint8Array.from([...b, ...nobleSha256(b).subarray(28)]));

  it("sha256Tail equals @noble/hashes sha256(bytes)[28:32]: 200 random inputs of every length 0-55", () => {
    for (let len = 0; len <= SHA256_ONE_BLOCK_MAX; len++) {
      for (let k = 0; k < 200; k++) {
        const b = randomBytes(len);
        const d = nobleSha256(b);
        expect(sha256Tail(b)).toBe(((d[28]! << 24) | (d[29]! << 16) | (d[30]! << 8) | d[31]!) >>> 0);
      }
    }
  });

  it("base58Encode and cb58Encode equal @scure/base: 5,000 random 32-byte IDs, 2,000 inputs of 0-100 bytes with leading zeros", () => {
    for (let k = 0; k < 5000; k++) {
      const id = randomBytes(32);
      if (k % 50 === 0) id.fill(0, 0, 1 + (k % 7)); // leading zero bytes
      expect(base58Encode(id)).toBe(base58.encode(id));
      const text = cb58Encode(id);
      expect(text).toBe(libraryCb58(id));
      expect(idFromString(text)).toEqual(id);
    }
    for (let k = 0; k < 2000; k++) {
      const b = randomBytes(k % 101);
      if (k % 3 === 0) b.fill(0, 0, Math.min(b.length, k % 5));
      expect(base58Encode(b)).toBe(base58.encode(b));
      expect(cb58Encode(b)).toBe(libraryCb58(b));
      if (b.length > 0) expect(base58Decode(base58Encode(b))).toEqual(b);
    }
  });

  it("gives every ID of test/fixtures/containers.json as the libraries do", () => {
    const fixtures = readFileSync(path.resolve(__dirname, "../../fixtures/containers.json"), "utf8");
    const ids = new Set<string>();
    for (const m of fixtures.matchAll(/"([1-9A-HJ-NP-Za-km-z]{45,52})"/g)) {
      try {
        idFromString(m[1]!);
        ids.add(m[1]!);
      } catch {
        // not a CB58 ID (a base58-looking hash of another kind)
      }
    }
    expect(ids.size).toBeGreaterThanOrEqual(20);
    for (const text of ids) {
      const id = idFromString(text);
      expect(cb58Encode(id)).toBe(text);
      expect(libraryCb58(id)).toBe(text);
      const d = nobleSha256(id);
      expect(sha256Tail(id)).toBe(((d[28]! << 24) | (d[29]! << 16) | (d[30]! << 8) | d[31]!) >>> 0);
    }
  });

  it("decodes with AvalancheGo's texts for bad digits, first bad digit first", () => {
    expect(() => base58Decode("")).toThrow("zero length string");
    expect(() => base58Decode("abc0l")).toThrow("Invalid base58 digit ('0')");
    expect(() => base58Decode("abcé0")).toThrow("High-bit set on invalid digit");
    expect(() => cb58Decode("abcI")).toThrow("base58 decoding error: Invalid base58 digit ('I')");
    expect(base58Decode("1112")).toEqual(Uint8Array.of(0, 0, 0, 1));
  });
});
