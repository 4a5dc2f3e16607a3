/**
 * SHA-256: the one helper every layer hashes with (IDs, checksums, warp message and validation IDs).
 *
 * `sha256` is node:crypto's one-shot `hash` (Node >= 20.12), about half the cost of createHash().update().digest()
 * on small inputs. `sha256Tail` is SHA-256 of one short message (at most 55 bytes: one padded block), returning
 * only the last 4 bytes of the digest: the checksum of CB58 (IDs) and of AvalancheGo's `hex` encoding. For a
 * 32-byte ID, node:crypto's one-shot hash costs ~2 µs, nearly all of it call overhead; one compression in
 * JavaScript costs a fraction of that, and every container a getContainerRange page formats carries an ID. Longer
 * inputs go to `sha256`.
 */
import {hash} from "node:crypto";

/** The 32-byte digest of `bytes` (a Buffer, typed as the Uint8Array callers may rely on). */
export function sha256(bytes: Uint8Array): Uint8Array {
  return hash("sha256", bytes, "buffer");
}

const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const IV = Int32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const W = new Int32Array(64);

/** The largest input sha256Tail handles. */
export const SHA256_ONE_BLOCK_MAX = 55;

/** sha256(bytes)[28:32] as a big-endian uint32, for bytes.length <= 55. */
export function sha256Tail(bytes: Uint8Array): number {
  const n = bytes.length;
  if (n > SHA256_ONE_BLOCK_MAX)
    throw new RangeError(`sha256Tail takes at most ${SHA256_ONE_BLOCK_MAX} bytes, got ${n}`);
  W.fill(0, 0, 16);
  for (let i = 0; i < n; i++) W[i >> 2]! |= bytes[i]! << (24 - 8 * (i & 3));
  W[n >> 2]! |= 0x80 << (24 - 8 * (n & 3));
  W[15] = n * 8;
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15]!;
    const y = W[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = IV[0]!,
    b = IV[1]!,
    c = IV[2]!,
    d = IV[3]!,
    e = IV[4]!,
    f = IV[5]!,
    g = IV[6]!,
    h = IV[7]!;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  return (IV[7]! + h) >>> 0;
}
