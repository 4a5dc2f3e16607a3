/**
 * The canonical validator set of a subnet, as AvalancheGo's `warp.GetCanonicalValidatorSet` builds it: only
 * validators with a BLS key take part; validators sharing a key are merged into one entry (weights summed, node IDs
 * kept in input order); entries are sorted by the key's UNCOMPRESSED bytes (bytes.Compare); the total weight counts
 * every validator, keyless ones included. Bit i of a signed message's signer set is entry i of this list.
 */
import type {PublicKey} from "@chainsafe/blst";
import {FifoMap} from "../util/fifoMap.js";
import {publicKeyFromBytes} from "./bls.js";
import {WarpError} from "./message.js";

export interface ValidatorInput {
  nodeId: string;
  weight: bigint;
  /** 48-byte compressed BLS public key, or null for a validator without one. */
  blsPublicKey: Uint8Array | null;
}

export interface CanonicalValidator {
  /** 48-byte compressed key. */
  publicKey: Uint8Array;
  /** 96-byte uncompressed key (the sort key). */
  publicKeyUncompressed: Uint8Array;
  weight: bigint;
  nodeIds: string[];
  /** The decoded, validated key (for aggregation). */
  key: PublicKey;
}

export interface CanonicalSet {
  validators: CanonicalValidator[];
  /** The weight of every validator of the subnet, keyless ones included. */
  totalWeight: bigint;
}

const U64_MAX = 0xffffffffffffffffn;

interface DecodedKey {
  key: PublicKey;
  uncompressed: Uint8Array;
  compressed: Uint8Array;
}

/**
 * BLS public keys decoded once: decompressing and checking a key (on the curve, in G1) is most of a set's build
 * (79 ms per 500 keys measured, issue 49), and the same validators' keys come back at every P-chain height. The
 * last `max` keys seen are kept (util/fifoMap.ts); a key that does not decode is not kept.
 */
export class BlsKeyCache {
  private readonly keys: FifoMap<string, DecodedKey>;
  /** Keys decoded (cache misses), for tests and metrics. */
  decoded = 0;

  constructor(max = 100_000) {
    this.keys = new FifoMap(max);
  }

  get(bytes: Uint8Array): DecodedKey {
    const id = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
    let k = this.keys.get(id);
    if (k === undefined) {
      const key = publicKeyFromBytes(bytes);
      this.decoded++;
      k = {key, uncompressed: key.toBytes(false), compressed: key.toBytes(true)};
      this.keys.set(id, k);
    }
    return k;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** `keys`: where decoded keys are kept across sets (a fresh one decodes each key of this set once). */
export function canonicalValidatorSet(
  validators: ValidatorInput[],
  keys: BlsKeyCache = new BlsKeyCache(0),
): CanonicalSet {
  let totalWeight = 0n;
  const byKey = new Map<string, CanonicalValidator>();
  for (const v of validators) {
    if (typeof v.weight !== "bigint" || v.weight < 0n)
      throw new WarpError("weight", `validator ${v.nodeId} has weight ${String(v.weight)}`);
    totalWeight += v.weight;
    if (totalWeight > U64_MAX) throw new WarpError("weight", "total weight overflows a u64");
    if (v.blsPublicKey === null) continue;
    let decoded: DecodedKey;
    try {
      decoded = keys.get(v.blsPublicKey);
    } catch (e) {
      throw new WarpError("blsPublicKey", `validator ${v.nodeId}: ${(e as Error).message}`);
    }
    const publicKeyUncompressed = decoded.uncompressed;
    const id = Buffer.from(publicKeyUncompressed).toString("hex");
    let entry = byKey.get(id);
    if (!entry) {
      entry = {publicKey: decoded.compressed, publicKeyUncompressed, weight: 0n, nodeIds: [], key: decoded.key};
      byKey.set(id, entry);
    }
    entry.weight += v.weight;
    entry.nodeIds.push(v.nodeId);
  }
  const list = [...byKey.values()].sort((a, b) => compareBytes(a.publicKeyUncompressed, b.publicKeyUncompressed));
  return {validators: list, totalWeight};
}

/** The sum of the weights of the entries at `indices`; an index past the set is an error (AvalancheGo `FilterValidators`). */
export function weightOf(set: CanonicalSet, indices: number[]): bigint {
  let w = 0n;
  for (const i of indices) {
    const v = set.validators[i];
    if (!v) throw new WarpError("signers", `signer index ${i} >= ${set.validators.length} validators`);
    w += v.weight;
  }
  return w;
}

/** AvalancheGo `VerifyWeight`: signedWeight · den >= totalWeight · num (integers, no rounding). */
export function hasQuorum(
  signedWeight: bigint,
  totalWeight: bigint,
  quorumNum: number | bigint,
  quorumDen: number | bigint = 100,
): boolean {
  return signedWeight * BigInt(quorumDen) >= totalWeight * BigInt(quorumNum);
}

/** The least weight that reaches num/den of the total. */
export function requiredWeight(
  totalWeight: bigint,
  quorumNum: number | bigint,
  quorumDen: number | bigint = 100,
): bigint {
  const num = totalWeight * BigInt(quorumNum);
  const den = BigInt(quorumDen);
  return (num + den - 1n) / den;
}
