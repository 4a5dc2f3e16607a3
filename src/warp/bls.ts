/**
 * BLS12-381 as AvalancheGo's `utils/crypto/bls` uses it: min-pk (48-byte compressed public keys in G1, 96-byte
 * compressed signatures in G2), signatures under the proof-of-possession suite's DST
 * `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_` (fixed in @chainsafe/blst), proofs of possession under
 * `BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_` (checked with @noble/curves: blst's DST is not selectable).
 *
 * Nothing here throws on bad signature bytes: a signature that does not decode, is not in the subgroup or is the
 * point at infinity simply does not verify.
 */
import {availableParallelism} from "node:os";
import blst from "@chainsafe/blst";
import type {PublicKey, SecretKey, Signature} from "@chainsafe/blst";
import {bls12_381} from "@noble/curves/bls12-381.js";
import {PUBLIC_KEY_LEN, SIGNATURE_LEN, WarpError} from "./message.js";

export type {PublicKey, SecretKey, Signature} from "@chainsafe/blst";

export const SIGNATURE_DST = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";
export const POP_DST = "BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";

/** A public key from its 48 compressed (or 96 uncompressed) bytes, validated (on the curve, in G1, not infinity). */
export function publicKeyFromBytes(b: Uint8Array): PublicKey {
  if (b.length !== PUBLIC_KEY_LEN && b.length !== 2 * PUBLIC_KEY_LEN)
    throw new WarpError("publicKey", `must be 48 or 96 bytes, got ${b.length}`);
  try {
    return blst.PublicKey.fromBytes(b, true);
  } catch (e) {
    throw new WarpError("publicKey", `invalid BLS public key: ${(e as Error).message}`);
  }
}

/** A signature from its 96 bytes, validated (in G2, not infinity); null if it is not one. */
export function signatureFromBytes(b: Uint8Array): Signature | null {
  if (b.length !== SIGNATURE_LEN) return null;
  try {
    return blst.Signature.fromBytes(b, true, true);
  } catch {
    return null;
  }
}

/** The compressed public key of a 32-byte secret key. */
export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return blst.SecretKey.fromBytes(secretKey).toPublicKey().toBytes(true);
}

/** A secret key object, for signers that sign many messages. */
export function secretKeyFromBytes(secretKey: Uint8Array): SecretKey {
  try {
    return blst.SecretKey.fromBytes(secretKey);
  } catch (e) {
    throw new WarpError("secretKey", `invalid BLS secret key: ${(e as Error).message}`);
  }
}

/** Signs `msg` (the unsigned warp message's bytes): 96-byte compressed signature. */
export function sign(secretKey: Uint8Array | SecretKey, msg: Uint8Array): Uint8Array {
  const sk = secretKey instanceof Uint8Array ? secretKeyFromBytes(secretKey) : secretKey;
  return sk.sign(msg).toBytes(true);
}

const asKey = (pk: Uint8Array | PublicKey): PublicKey => (pk instanceof Uint8Array ? publicKeyFromBytes(pk) : pk);

/** One signature of one key. */
export function verify(publicKey: Uint8Array | PublicKey, msg: Uint8Array, signature: Uint8Array): boolean {
  const sig = signatureFromBytes(signature);
  if (!sig) return false;
  try {
    return blst.verify(msg, asKey(publicKey), sig);
  } catch {
    return false;
  }
}

/** The sum of signatures (each validated); throws on an empty list or a bad signature. */
export function aggregateSignatures(signatures: Uint8Array[]): Uint8Array {
  if (signatures.length === 0) throw new WarpError("signatures", "nothing to aggregate");
  const sigs = signatures.map((s, i) => {
    const sig = signatureFromBytes(s);
    if (!sig) throw new WarpError("signatures", `signature ${i} is not a valid G2 point`);
    return sig;
  });
  return blst.aggregateSignatures(sigs).toBytes(true);
}

/** The sum of public keys (as AvalancheGo's AggregatePublicKeys); throws on an empty list. */
export function aggregatePublicKeys(publicKeys: Array<Uint8Array | PublicKey>): PublicKey {
  if (publicKeys.length === 0) throw new WarpError("publicKeys", "nothing to aggregate");
  return blst.aggregatePublicKeys(publicKeys.map(asKey));
}

/** An aggregate signature of one message by all of `publicKeys` (AvalancheGo: aggregate the keys, then verify). */
export function verifyAggregate(
  publicKeys: Array<Uint8Array | PublicKey>,
  msg: Uint8Array,
  signature: Uint8Array,
): boolean {
  if (publicKeys.length === 0) return false;
  const sig = signatureFromBytes(signature);
  if (!sig) return false;
  try {
    return blst.verify(msg, aggregatePublicKeys(publicKeys), sig);
  } catch {
    return false;
  }
}

export interface BatchItem {
  publicKey: PublicKey;
  signature: Uint8Array;
}

export interface BatchStats {
  /** Pairing checks done (1 when every signature is good). */
  verifications: number;
}

export interface BatchResult {
  /** Per item: the signature is a valid signature of the message by its key. */
  valid: boolean[];
  /** Per valid item: its signature, uncompressed (192 bytes), for a cheap aggregation (`aggregateVerified`). */
  points: Array<Uint8Array | null>;
}

/**
 * Which of many signatures of ONE message are valid, at the cost of about one verification when all are. Each
 * signature is decompressed once (the costly square root) and kept uncompressed; then the random linear
 * combination Σ rᵢ·sigᵢ is checked against Σ rᵢ·pkᵢ with one pairing check (blst's `aggregateWithRandomness`,
 * non-zero 64-bit random scalars, each signature subgroup- and infinity-checked). A failing batch is split in
 * halves, recursively, down to one-by-one checks of pairs; when the first half of a failing batch passes, the second
 * is known to fail and is split without being checked. One bad signature among n costs about log2(n) + 1 batch
 * checks over n points in all, and never taints the others.
 */
export function batchVerifyPoints(msg: Uint8Array, items: BatchItem[], stats?: BatchStats): BatchResult {
  const b = new Batch(msg, items, stats);
  b.check(b.candidates, false);
  return b.result();
}

/** Below this many signatures, the async variant checks on the main thread: the thread pool's hop costs more. */
const ASYNC_MIN = 64;
const PARALLELISM = Math.max(1, Math.min(4, availableParallelism()));

/**
 * `batchVerifyPoints` with the first (usually only) batch check's scalar multiplications on libuv's thread pool,
 * split across the cores (`asyncAggregateWithRandomness`; the partial sums add up to one random linear
 * combination), so a 1,000-signature check does not hold the event loop. Decompression stays on the caller's thread.
 * After a failure, groups of the batch are checked at once on the pool and only the failing groups are halved.
 */
export async function batchVerifyPointsAsync(
  msg: Uint8Array,
  items: BatchItem[],
  stats?: BatchStats,
): Promise<BatchResult> {
  const b = new Batch(msg, items, stats);
  const idx = b.candidates;
  if (idx.length < ASYNC_MIN) {
    b.check(idx, false);
    return b.result();
  }
  if (await b.batchAsync(idx, PARALLELISM)) {
    for (const i of idx) b.valid[i] = true;
    return b.result();
  }
  // Something is bad: check groups of the batch at once on the pool, then halve only the failing groups.
  const groups: number[][] = [];
  const size = Math.ceil(idx.length / (4 * PARALLELISM));
  for (let k = 0; k < idx.length; k += size) groups.push(idx.slice(k, k + size));
  const verdicts = await Promise.all(groups.map((g) => (g.length > 2 ? b.batchAsync(g, 1) : Promise.resolve(false))));
  groups.forEach((g, k) => {
    if (verdicts[k]) for (const i of g) b.valid[i] = true;
    else b.check(g, g.length > 2);
  });
  return b.result();
}

class Batch {
  readonly valid: boolean[];
  readonly points: Array<Uint8Array | null>;
  readonly candidates: number[] = [];

  constructor(
    private readonly msg: Uint8Array,
    private readonly items: BatchItem[],
    private readonly stats: BatchStats | undefined,
  ) {
    this.valid = new Array<boolean>(items.length).fill(false);
    this.points = new Array<Uint8Array | null>(items.length).fill(null);
    for (let i = 0; i < items.length; i++) {
      const sig = items[i]!.signature;
      if (!(sig instanceof Uint8Array) || sig.length !== SIGNATURE_LEN) continue;
      try {
        this.points[i] = blst.Signature.fromBytes(sig).toBytes(false); // on the curve; the subgroup is checked below
        this.candidates.push(i);
      } catch {
        // not a curve point: invalid
      }
    }
  }

  private one(i: number): boolean {
    if (this.stats) this.stats.verifications++;
    try {
      return blst.verify(this.msg, this.items[i]!.publicKey, blst.Signature.fromBytes(this.points[i]!, true, true));
    } catch {
      return false;
    }
  }

  private batch(idx: number[]): boolean {
    if (this.stats) this.stats.verifications++;
    try {
      const agg = blst.aggregateWithRandomness(idx.map((i) => ({pk: this.items[i]!.publicKey, sig: this.points[i]!})));
      return blst.verify(this.msg, agg.pk, agg.sig);
    } catch {
      return false; // a point outside the subgroup or at infinity
    }
  }

  /** One batch check of `idx` with its multiplications on the thread pool, split in `parts`. */
  async batchAsync(idx: number[], parts: number): Promise<boolean> {
    if (this.stats) this.stats.verifications++;
    try {
      const chunk = Math.ceil(idx.length / parts);
      const slices: number[][] = [];
      for (let k = 0; k < idx.length; k += chunk) slices.push(idx.slice(k, k + chunk));
      const sums = await Promise.all(
        slices.map((p) =>
          blst.asyncAggregateWithRandomness(p.map((i) => ({pk: this.items[i]!.publicKey, sig: this.points[i]!}))),
        ),
      );
      const pk = sums.length === 1 ? sums[0]!.pk : blst.aggregatePublicKeys(sums.map((x) => x.pk));
      const sig = sums.length === 1 ? sums[0]!.sig : blst.aggregateSignatures(sums.map((x) => x.sig));
      return blst.verify(this.msg, pk, sig);
    } catch {
      return false; // a point outside the subgroup or at infinity
    }
  }

  /** Marks the valid ones among `idx`; `knownBad`: `idx` is known to hold a bad one (no need to check it whole). */
  check(idx: number[], knownBad: boolean): void {
    if (idx.length === 0) return;
    if (idx.length <= 2) {
      for (const i of idx) this.valid[i] = this.one(i);
      return;
    }
    if (!knownBad && this.batch(idx)) {
      for (const i of idx) this.valid[i] = true;
      return;
    }
    const left = idx.slice(0, idx.length >> 1);
    const right = idx.slice(idx.length >> 1);
    if (left.length > 2 && this.batch(left)) {
      for (const i of left) this.valid[i] = true;
      this.check(right, true);
    } else {
      this.check(left, left.length > 2);
      this.check(right, false);
    }
  }

  result(): BatchResult {
    for (let i = 0; i < this.items.length; i++) if (!this.valid[i]) this.points[i] = null;
    return {valid: this.valid, points: this.points};
  }
}

/** `batchVerifyPoints`'s verdicts alone. */
export function batchVerify(msg: Uint8Array, items: BatchItem[], stats?: BatchStats): boolean[] {
  return batchVerifyPoints(msg, items, stats).valid;
}

/** The compressed sum of signatures already verified (uncompressed points from `batchVerifyPoints`): no checks again. */
export function aggregateVerified(points: Uint8Array[]): Uint8Array {
  if (points.length === 0) throw new WarpError("signatures", "nothing to aggregate");
  return blst.aggregateSerializedSignatures(points, false).toBytes(true);
}

/** A proof of possession: the key's signature of its own compressed bytes under the PoP DST (@noble/curves). */
export function verifyProofOfPossession(publicKey: Uint8Array, proof: Uint8Array): boolean {
  try {
    const bls = bls12_381.longSignatures;
    const pk = bls12_381.G1.Point.fromBytes(publicKey);
    const sig = bls12_381.G2.Point.fromBytes(proof);
    pk.assertValidity();
    sig.assertValidity();
    if (pk.is0() || sig.is0()) return false;
    return bls.verify(sig, bls.hash(publicKey, POP_DST), pk);
  } catch {
    return false;
  }
}
