/**
 * BLS12-381 as AvalancheGo's `utils/crypto/bls` uses it: min-pk (48-byte compressed public keys in G1, 96-byte
 * compressed signatures in G2), signatures under the proof-of-possession suite's DST
 * `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_` (fixed in @chainsafe/blst), proofs of possession under
 * `BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_` (checked with @noble/curves: blst's DST is not selectable).
 *
 * Nothing here throws on bad signature bytes: a signature that does not decode, is not in the subgroup or is the
 * point at infinity simply does not verify.
 */
import blst from "@chainsafe/blst";
import type {PublicKey, SecretKey, Signature} from "@chainsafe/blst";
import {bls12_381} from "@noble/curves/bls12-381.js";
import {PUBLIC_KEY_LEN, SIGNATURE_LEN, WarpError} from "./message.js";

export type {PublicKey, SecretKey, Signature} from "@chainsafe/blst";

export const SIGNATURE_DST = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";
export const POP_DST = "BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";

/** A public key from its 48 compressed (or 96 uncompressed) bytes, validated (on the curve, in G1, not infinity). */
export function publicKeyFromBytes(b: Uint8Array): PublicKey {
  if (b.length !== PUBLIC_KEY_LEN && b.length !== 2 * PUBLIC_KEY_LEN) throw new WarpError("publicKey", `must be 48 or 96 bytes, got ${b.length}`);
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
export function verifyAggregate(publicKeys: Array<Uint8Array | PublicKey>, msg: Uint8Array, signature: Uint8Array): boolean {
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

/**
 * Which of many signatures of ONE message are valid, at the cost of about one verification when all are: each
 * signature is decoded and subgroup-checked, then the random linear combination Σ rᵢ·sigᵢ is checked against
 * Σ rᵢ·pkᵢ (blst's `aggregateWithRandomness`, 64-bit random scalars) with one pairing check. A failing batch is
 * split in halves, recursively, down to one-by-one checks of small groups, so a single bad signature among n costs
 * about 2·log2(n) checks and never taints the others.
 */
export function batchVerify(msg: Uint8Array, items: BatchItem[], stats?: BatchStats): boolean[] {
  const ok = new Array<boolean>(items.length).fill(false);
  const decoded: number[] = [];
  for (let i = 0; i < items.length; i++) if (signatureFromBytes(items[i]!.signature)) decoded.push(i);
  const check = (idx: number[]): void => {
    if (idx.length === 0) return;
    if (idx.length <= 2) {
      for (const i of idx) {
        if (stats) stats.verifications++;
        ok[i] = verifyDecoded(items[i]!.publicKey, msg, items[i]!.signature);
      }
      return;
    }
    if (stats) stats.verifications++;
    let good = false;
    try {
      const agg = blst.aggregateWithRandomness(idx.map((i) => ({pk: items[i]!.publicKey, sig: items[i]!.signature})));
      good = blst.verify(msg, agg.pk, agg.sig);
    } catch {
      good = false;
    }
    if (good) {
      for (const i of idx) ok[i] = true;
      return;
    }
    const mid = idx.length >> 1;
    check(idx.slice(0, mid));
    check(idx.slice(mid));
  };
  check(decoded);
  return ok;
}

function verifyDecoded(pk: PublicKey, msg: Uint8Array, signature: Uint8Array): boolean {
  try {
    return blst.verify(msg, pk, blst.Signature.fromBytes(signature, true, true));
  } catch {
    return false;
  }
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
