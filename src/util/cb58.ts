/**
 * CB58: base58 (Bitcoin alphabet) of `bytes ‖ sha256(bytes)[28:32]`, AvalancheGo's text form of IDs
 * (utils/cb58/cb58.go). Error texts match AvalancheGo's so they can be surfaced to API clients unchanged.
 *
 * Encoding stays hand-written (base58Encode here, the one-block checksum in ./sha256.ts): every container an
 * index answer carries has its ID in CB58, and @scure/base with node:crypto costs 2.6 times as much, about a
 * quarter of formatting a 1 KiB container (bench/primitives.mjs, docs/performance.md). Both are checked against
 * those libraries on thousands of random inputs and every fixture (test/unit/util/cb58.test.ts). Decoding is
 * @scure/base.
 */
import {base58} from "@scure/base";
import {SHA256_ONE_BLOCK_MAX, sha256, sha256Tail} from "./sha256.js";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const DECODE_MAP = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE_MAP[ALPHABET.charCodeAt(i)] = i;

const CHECKSUM_LEN = 4;
export const ID_LEN = 32;

/** sha256(bytes)[28:32], written into `out` at `at`. IDs (32 bytes) take the one-block path in JavaScript. */
function putChecksum(bytes: Uint8Array, out: Uint8Array, at: number): void {
  if (bytes.length <= SHA256_ONE_BLOCK_MAX) {
    const t = sha256Tail(bytes);
    out[at] = t >>> 24;
    out[at + 1] = (t >>> 16) & 0xff;
    out[at + 2] = (t >>> 8) & 0xff;
    out[at + 3] = t & 0xff;
  } else {
    out.set(sha256(bytes).subarray(32 - CHECKSUM_LEN), at);
  }
}

/** 58^5: base-58 digits are produced five at a time (limb * 65536 + two bytes stays below 2^53). */
const LIMB = 656_356_768;
const LIMBS = new Float64Array(64);
const DIGITS = new Uint8Array(LIMBS.length * 5);
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // A limb holds log2(58^5) ≈ 29.29 bits: 8 bits a byte need 0.274 limbs (a typed array drops writes past its end).
  const need = Math.ceil((bytes.length * 8) / 29.29) + 1;
  const limbs = need <= LIMBS.length ? LIMBS : new Float64Array(need);
  let len = 0;
  // Two bytes a step (limb * 65536 + 16 bits stays below 2^46): half the passes over the limbs. An odd byte
  // count takes its first byte alone.
  let i = zeros;
  let mul = (bytes.length - zeros) % 2 === 1 ? 256 : 65536;
  while (i < bytes.length) {
    let carry = mul === 256 ? bytes[i++]! : bytes[i++]! * 256 + bytes[i++]!;
    for (let j = 0; j < len; j++) {
      carry += limbs[j]! * mul;
      const q = Math.floor(carry / LIMB);
      limbs[j] = carry - q * LIMB;
      carry = q;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB);
      limbs[len++] = carry - q * LIMB;
      carry = q;
    }
    mul = 65536;
  }
  // Expand limbs into base-58 digit characters, most significant first, into bytes made a string once (building
  // the string a character at a time was half of the encoding's cost).
  const digits = len * 5 <= DIGITS.length ? DIGITS : new Uint8Array(len * 5);
  let n = 0;
  for (let j = len - 1; j >= 0; j--) {
    let v = limbs[j]!;
    for (let k = 4; k >= 0; k--) {
      const q = Math.floor(v / 58);
      digits[n + k] = CODES[v - q * 58]!;
      v = q;
    }
    n += 5;
  }
  let first = 0;
  while (first < n && digits[first] === 0x31) first++;
  return "1".repeat(zeros) + Buffer.from(digits.buffer, digits.byteOffset + first, n - first).toString("latin1");
}

/**
 * Decodes base58 with @scure/base (faster than a hand-written loop on an ID's 50 characters: bench/primitives.mjs),
 * after checking the digits so that bad input gets AvalancheGo's texts, first bad digit first.
 */
export function base58Decode(s: string): Uint8Array {
  if (s.length === 0) throw new Error("zero length string");
  checkDigits(s);
  return base58.decode(s);
}

/** Throws AvalancheGo's base58 text for the first character that is not a base58 digit. */
function checkDigits(s: string): void {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 127) throw new Error("High-bit set on invalid digit");
    if (DECODE_MAP[c]! < 0) throw new Error(`Invalid base58 digit ('${s[i]}')`);
  }
}

/** Scratch for cb58Encode: an ID and its checksum (base58Encode does not keep its input). */
const ENCODE_BUF = new Uint8Array(64);

/** Encodes bytes as CB58. */
export function cb58Encode(bytes: Uint8Array): string {
  const buf =
    bytes.length + CHECKSUM_LEN <= ENCODE_BUF.length
      ? ENCODE_BUF.subarray(0, bytes.length + CHECKSUM_LEN)
      : new Uint8Array(bytes.length + CHECKSUM_LEN);
  buf.set(bytes);
  putChecksum(bytes, buf, bytes.length);
  return base58Encode(buf);
}

/** Decodes CB58 to bytes; throws with AvalancheGo's error texts. */
export function cb58Decode(s: string): Uint8Array {
  let raw: Uint8Array;
  try {
    raw = base58Decode(s);
  } catch (e) {
    throw new Error(`base58 decoding error: ${(e as Error).message}`);
  }
  if (raw.length < CHECKSUM_LEN) throw new Error("input string is smaller than the checksum size");
  const body = raw.subarray(0, raw.length - CHECKSUM_LEN);
  const sum = raw.subarray(raw.length - CHECKSUM_LEN);
  const want = new Uint8Array(CHECKSUM_LEN);
  putChecksum(body, want, 0);
  for (let i = 0; i < CHECKSUM_LEN; i++) {
    if (sum[i] !== want[i]) throw new Error("invalid input checksum");
  }
  return body;
}

/**
 * Longest text idFromString decodes. base58 decoding is quadratic in the length: a 100,000-character `id` param
 * held the event loop for about 8 s (a 1 MiB one, minutes). An ID's CB58 is at most 50 characters; up to this
 * bound longer strings still get AvalancheGo's exact error text (almost always `invalid input checksum`).
 */
export const MAX_ID_STRING_LENGTH = 1024;

/** Decodes a CB58 ID (32 bytes); throws with AvalancheGo's error texts (ids.FromString). */
export function idFromString(s: string): Uint8Array {
  if (s.length > MAX_ID_STRING_LENGTH) {
    // The digit checks are linear: keep AvalancheGo's texts for them, refuse the rest without decoding.
    try {
      checkDigits(s);
    } catch (e) {
      throw new Error(`base58 decoding error: ${(e as Error).message}`);
    }
    throw new Error(
      `invalid hash length: ${s.length} characters is longer than any ID (at most ${MAX_ID_STRING_LENGTH} are decoded)`,
    );
  }
  const bytes = cb58Decode(s);
  if (bytes.length !== ID_LEN) throw new Error(`invalid hash length: expected ${ID_LEN} bytes but got ${bytes.length}`);
  return bytes;
}

export function idToString(id: Uint8Array): string {
  return cb58Encode(id);
}

/** The zero ID: the primary network's subnet ID and the P-chain's ID. */
export const EMPTY_ID = "11111111111111111111111111111111LpoYY";
