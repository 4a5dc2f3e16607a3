import {bls12_381} from "@noble/curves/bls12-381.js";
import {describe, expect, it} from "vitest";
import {
  BlsKeyCache,
  canonicalValidatorSet,
  hasQuorum,
  publicKeyOf,
  requiredWeight,
  WarpError,
} from "../../../src/warp/index.js";
import {localSecretKey} from "../../../src/dev/signers.js";
import {hex, LOCAL_NODE_IDS, localSet} from "./vectors.js";

/** The uncompressed key computed by @noble/curves, independently of blst. */
const uncompressed = (sk: Uint8Array): string =>
  hex(bls12_381.G1.Point.BASE.multiply(BigInt("0x" + hex(sk))).toBytes(false));

describe("canonical validator set", () => {
  it("orders by the uncompressed public key (as noble computes it)", () => {
    const set = localSet(5);
    const expected = [1, 2, 3, 4, 5]
      .map((n) => ({n, u: uncompressed(localSecretKey(n))}))
      .sort((a, b) => (a.u < b.u ? -1 : a.u > b.u ? 1 : 0));
    expect(set.validators.map((v) => hex(v.publicKeyUncompressed))).toEqual(expected.map((e) => e.u));
    expect(set.validators.map((v) => v.nodeIds[0])).toEqual(expected.map((e) => LOCAL_NODE_IDS[e.n - 1]));
    expect(set.validators.map((v) => hex(v.publicKey))).toEqual(
      expected.map((e) => hex(publicKeyOf(localSecretKey(e.n)))),
    );
    expect(set.totalWeight).toBe(500n);
    // The order is by uncompressed bytes: compressed bytes carry flag bits and may sort differently.
    const input = [5, 4, 3, 2, 1].map((n) => ({
      nodeId: `n${n}`,
      weight: 1n,
      blsPublicKey: publicKeyOf(localSecretKey(n)),
    }));
    expect(canonicalValidatorSet(input).validators.map((v) => hex(v.publicKey))).toEqual(
      set.validators.map((v) => hex(v.publicKey)),
    );
  });

  it("merges equal keys (weights summed, node IDs kept) and counts keyless validators in the total only", () => {
    const k1 = publicKeyOf(localSecretKey(1));
    const set = canonicalValidatorSet([
      {nodeId: "a", weight: 10n, blsPublicKey: k1},
      {nodeId: "b", weight: 7n, blsPublicKey: null},
      {nodeId: "c", weight: 5n, blsPublicKey: publicKeyOf(localSecretKey(2))},
      {nodeId: "d", weight: 3n, blsPublicKey: Uint8Array.from(k1)},
    ]);
    expect(set.validators).toHaveLength(2);
    const merged = set.validators.find((v) => hex(v.publicKey) === hex(k1))!;
    expect(merged.weight).toBe(13n);
    expect(merged.nodeIds).toEqual(["a", "d"]);
    expect(set.totalWeight).toBe(25n);
    expect(canonicalValidatorSet([]).validators).toEqual([]);
  });

  it("refuses an invalid key and a u64 overflow", () => {
    expect(() => canonicalValidatorSet([{nodeId: "x", weight: 1n, blsPublicKey: new Uint8Array(48).fill(1)}])).toThrow(
      WarpError,
    );
    expect(() =>
      canonicalValidatorSet([
        {nodeId: "x", weight: 2n ** 63n, blsPublicKey: null},
        {nodeId: "y", weight: 2n ** 63n, blsPublicKey: null},
      ]),
    ).toThrow(/overflows/);
  });

  it("decodes each BLS key once across sets with a key cache, and gives the same set as without one", () => {
    const keys = new BlsKeyCache(3);
    const inputs = (ns: number[]) =>
      ns.map((n) => ({nodeId: `n${n}`, weight: BigInt(n), blsPublicKey: publicKeyOf(localSecretKey(n))}));
    const plain = canonicalValidatorSet(inputs([1, 2, 3]));
    const first = canonicalValidatorSet(inputs([1, 2, 3]), keys);
    expect(keys.decoded).toBe(3);
    // Another height, the same validators and one more: only the new key is decoded.
    const again = canonicalValidatorSet(inputs([3, 2, 1]), keys);
    expect(keys.decoded).toBe(3);
    expect([first, again].map((s) => s.validators.map((v) => [hex(v.publicKey), v.weight]))).toEqual(
      [0, 0].map(() => plain.validators.map((v) => [hex(v.publicKey), v.weight])),
    );
    // Bounded: past 3 keys the oldest goes, and is decoded again when it comes back.
    canonicalValidatorSet(inputs([4]), keys);
    expect(keys.decoded).toBe(4);
    canonicalValidatorSet(inputs([1]), keys);
    expect(keys.decoded).toBe(5);
    // A key that does not decode is refused, not kept.
    expect(() =>
      canonicalValidatorSet([{nodeId: "x", weight: 1n, blsPublicKey: new Uint8Array(48).fill(1)}], keys),
    ).toThrow(WarpError);
    expect(keys.decoded).toBe(5);
  });

  it("quorum as AvalancheGo VerifyWeight", () => {
    expect(hasQuorum(67n, 100n, 67)).toBe(true);
    expect(hasQuorum(66n, 100n, 67)).toBe(false);
    expect(hasQuorum(2n, 3n, 67)).toBe(false); // 200 < 201
    expect(hasQuorum(2n, 3n, 66)).toBe(true);
    expect(requiredWeight(100n, 67)).toBe(67n);
    expect(requiredWeight(3n, 67)).toBe(3n);
    expect(requiredWeight(300n, 67)).toBe(201n);
    expect(hasQuorum(requiredWeight(12345n, 67), 12345n, 67)).toBe(true);
    expect(hasQuorum(requiredWeight(12345n, 67) - 1n, 12345n, 67)).toBe(false);
  });
});
