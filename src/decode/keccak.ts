/**
 * keccak256 (the pre-standard SHA-3 padding Ethereum uses; node:crypto's sha3-256 pads differently). Lanes are
 * held as 32-bit halves so the permutation runs on plain numbers. Used for EVM block and transaction hashes.
 */

// Round constants, [hi, lo] pairs.
const RC = [
  0x00000000, 0x00000001, 0x00000000, 0x00008082, 0x80000000, 0x0000808a, 0x80000000, 0x80008000, 0x00000000,
  0x0000808b, 0x00000000, 0x80000001, 0x80000000, 0x80008081, 0x80000000, 0x00008009, 0x00000000, 0x0000008a,
  0x00000000, 0x00000088, 0x00000000, 0x80008009, 0x00000000, 0x8000000a, 0x00000000, 0x8000808b, 0x80000000,
  0x0000008b, 0x80000000, 0x00008089, 0x80000000, 0x00008003, 0x80000000, 0x00008002, 0x80000000, 0x00000080,
  0x00000000, 0x0000800a, 0x80000000, 0x8000000a, 0x80000000, 0x80008081, 0x80000000, 0x00008080, 0x00000000,
  0x80000001, 0x80000000, 0x80008008,
];
// Rotation offsets and the pi permutation, per lane index x + 5y.
const ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const PI = [0, 10, 20, 5, 15, 16, 1, 11, 21, 6, 7, 17, 2, 12, 22, 23, 8, 18, 3, 13, 14, 24, 9, 19, 4];

function permute(hi: Uint32Array, lo: Uint32Array): void {
  const cHi = new Uint32Array(5);
  const cLo = new Uint32Array(5);
  const bHi = new Uint32Array(25);
  const bLo = new Uint32Array(25);
  for (let round = 0; round < 24; round++) {
    // theta
    for (let x = 0; x < 5; x++) {
      cHi[x] = hi[x]! ^ hi[x + 5]! ^ hi[x + 10]! ^ hi[x + 15]! ^ hi[x + 20]!;
      cLo[x] = lo[x]! ^ lo[x + 5]! ^ lo[x + 10]! ^ lo[x + 15]! ^ lo[x + 20]!;
    }
    for (let x = 0; x < 5; x++) {
      const h1 = cHi[(x + 1) % 5]!;
      const l1 = cLo[(x + 1) % 5]!;
      const dHi = cHi[(x + 4) % 5]! ^ ((h1 << 1) | (l1 >>> 31));
      const dLo = cLo[(x + 4) % 5]! ^ ((l1 << 1) | (h1 >>> 31));
      for (let y = 0; y < 25; y += 5) {
        hi[x + y] = hi[x + y]! ^ dHi;
        lo[x + y] = lo[x + y]! ^ dLo;
      }
    }
    // rho and pi
    for (let i = 0; i < 25; i++) {
      const r = ROT[i]!;
      const h = hi[i]!;
      const l = lo[i]!;
      let nh: number;
      let nl: number;
      if (r === 0) {
        nh = h;
        nl = l;
      } else if (r < 32) {
        nh = (h << r) | (l >>> (32 - r));
        nl = (l << r) | (h >>> (32 - r));
      } else {
        nh = (l << (r - 32)) | (h >>> (64 - r));
        nl = (h << (r - 32)) | (l >>> (64 - r));
      }
      bHi[PI[i]!] = nh;
      bLo[PI[i]!] = nl;
    }
    // chi
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) {
        hi[x + y] = bHi[x + y]! ^ (~bHi[((x + 1) % 5) + y]! & bHi[((x + 2) % 5) + y]!);
        lo[x + y] = bLo[x + y]! ^ (~bLo[((x + 1) % 5) + y]! & bLo[((x + 2) % 5) + y]!);
      }
    }
    // iota
    hi[0] = hi[0]! ^ RC[2 * round]!;
    lo[0] = lo[0]! ^ RC[2 * round + 1]!;
  }
}

const RATE = 136;

export function keccak256(data: Uint8Array): Uint8Array {
  const hi = new Uint32Array(25);
  const lo = new Uint32Array(25);
  const blocks = Math.floor(data.length / RATE) + 1;
  const padded = new Uint8Array(blocks * RATE);
  padded.set(data);
  padded[data.length] ^= 0x01;
  padded[padded.length - 1]! ^= 0x80;
  for (let b = 0; b < blocks; b++) {
    const off = b * RATE;
    for (let i = 0; i < RATE / 8; i++) {
      const p = off + i * 8;
      lo[i] = lo[i]! ^ (padded[p]! | (padded[p + 1]! << 8) | (padded[p + 2]! << 16) | (padded[p + 3]! << 24));
      hi[i] = hi[i]! ^ (padded[p + 4]! | (padded[p + 5]! << 8) | (padded[p + 6]! << 16) | (padded[p + 7]! << 24));
    }
    permute(hi, lo);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 4; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    out[i * 8] = l & 0xff;
    out[i * 8 + 1] = (l >>> 8) & 0xff;
    out[i * 8 + 2] = (l >>> 16) & 0xff;
    out[i * 8 + 3] = l >>> 24;
    out[i * 8 + 4] = h & 0xff;
    out[i * 8 + 5] = (h >>> 8) & 0xff;
    out[i * 8 + 6] = (h >>> 16) & 0xff;
    out[i * 8 + 7] = h >>> 24;
  }
  return out;
}
