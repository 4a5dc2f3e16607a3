import {bls12_381} from "@noble/curves/bls12-381.js";
import {describe, expect, it} from "vitest";
import {localSigner} from "../../../src/dev/primaryNetwork.js";
import {
  aggregatePublicKeys,
  aggregateSignatures,
  aggregateVerified,
  batchVerify,
  batchVerifyPointsAsync,
  publicKeyFromBytes,
  publicKeyOf,
  sign,
  SIGNATURE_DST,
  verify,
  verifyAggregate,
  verifyProofOfPossession,
  type BatchStats,
} from "../../../src/warp/index.js";
import {localSecretKey} from "../../../src/dev/signers.js";
import {hex, unhex, VECTOR_SIGNATURE, VECTOR_UNSIGNED} from "./vectors.js";

const noble = bls12_381.longSignatures;
/** x = 2 (in Fp2): on the G2 curve, outside the prime-order subgroup (checked below with noble's field). */
const OFF_SUBGROUP = unhex("80" + "00".repeat(47) + "00".repeat(47) + "02");
const INFINITY = unhex("c0" + "00".repeat(95));
const msg = unhex(VECTOR_UNSIGNED);

describe("BLS (min-pk, POP suite)", () => {
  it("the local keys sign as noble does under AvalancheGo's DST", () => {
    for (let n = 1; n <= 5; n++) {
      const sk = localSecretKey(n);
      expect(hex(publicKeyOf(sk))).toBe(localSigner(n).credentials.publicKey);
      const sig = sign(sk, msg);
      expect(hex(sig)).toBe(hex(noble.sign(noble.hash(msg, SIGNATURE_DST), sk).toBytes(true)));
      expect(verify(publicKeyOf(sk), msg, sig)).toBe(true);
      expect(verify(publicKeyOf(sk), Uint8Array.of(...msg, 0), sig)).toBe(false);
    }
  });

  it("aggregates: the vector's signature is signer1..3's aggregate", () => {
    const sigs = [1, 2, 3].map((n) => sign(localSecretKey(n), msg));
    expect(hex(aggregateSignatures(sigs))).toBe(VECTOR_SIGNATURE);
    const pks = [1, 2, 3].map((n) => publicKeyOf(localSecretKey(n)));
    expect(verifyAggregate(pks, msg, unhex(VECTOR_SIGNATURE))).toBe(true);
    expect(verifyAggregate(pks.slice(0, 2), msg, unhex(VECTOR_SIGNATURE))).toBe(false);
    expect(verifyAggregate([], msg, unhex(VECTOR_SIGNATURE))).toBe(false);
    expect(hex(aggregatePublicKeys(pks).toBytes(true))).toBe(
      hex(noble.aggregatePublicKeys(pks.map((p) => bls12_381.G1.Point.fromBytes(p))).toBytes(true)),
    );
  });

  it("never throws on garbage signatures", () => {
    const pk = publicKeyOf(localSecretKey(1));
    expect(verify(pk, msg, new Uint8Array(96))).toBe(false);
    expect(verify(pk, msg, new Uint8Array(95))).toBe(false);
    const inf = new Uint8Array(96);
    inf[0] = 0xc0;
    expect(verify(pk, msg, inf)).toBe(false);
    expect(() => publicKeyFromBytes(new Uint8Array(48))).toThrow();
  });

  it("batch verification finds exactly the bad signatures with few checks", () => {
    const n = 64;
    const sks = Array.from({length: n}, (_, i) => {
      const sk = new Uint8Array(32);
      sk[0] = 0x11;
      sk[31] = i + 1;
      return sk;
    });
    const items = sks.map((sk) => ({publicKey: publicKeyFromBytes(publicKeyOf(sk)), signature: sign(sk, msg)}));
    const all: BatchStats = {verifications: 0};
    expect(batchVerify(msg, items, all).every(Boolean)).toBe(true);
    expect(all.verifications).toBe(1);
    items[5] = {...items[5]!, signature: sign(sks[6]!, msg)}; // another key's signature
    items[40] = {...items[40]!, signature: sign(sks[40]!, Uint8Array.of(1))}; // another message's
    items[41] = {...items[41]!, signature: new Uint8Array(96).fill(0xff)}; // not a point
    const some: BatchStats = {verifications: 0};
    const ok = batchVerify(msg, items, some);
    expect(ok.flatMap((g, i) => (g ? [] : [i]))).toEqual([5, 40, 41]);
    expect(some.verifications).toBeLessThan(30);
  });

  it("a point on the curve outside the subgroup, or at infinity, is never valid (sync and async batches)", async () => {
    const Fp2 = bls12_381.fields.Fp2;
    const x = Fp2.fromBigTuple([2n, 0n]);
    expect(() => Fp2.sqrt(Fp2.add(Fp2.mul(Fp2.sqr(x), x), Fp2.fromBigTuple([4n, 4n])))).not.toThrow(); // on the curve
    const pk = publicKeyOf(localSecretKey(1));
    expect(verify(pk, msg, OFF_SUBGROUP)).toBe(false);
    expect(verify(pk, msg, INFINITY)).toBe(false);
    for (const n of [5, 80]) {
      const sks = Array.from({length: n}, (_, i) => new Uint8Array(32).fill(i + 1));
      const items = sks.map((sk) => ({publicKey: publicKeyFromBytes(publicKeyOf(sk)), signature: sign(sk, msg)}));
      items[1] = {...items[1]!, signature: OFF_SUBGROUP};
      items[3] = {...items[3]!, signature: INFINITY};
      const expected = items.map((_, i) => i !== 1 && i !== 3);
      expect(batchVerify(msg, items)).toEqual(expected);
      expect((await batchVerifyPointsAsync(msg, items)).valid).toEqual(expected);
    }
  });

  it("the async batch check agrees, and finds bad signatures", async () => {
    const sks = Array.from({length: 100}, (_, i) => new Uint8Array(32).fill(i + 1));
    const items = sks.map((sk) => ({publicKey: publicKeyFromBytes(publicKeyOf(sk)), signature: sign(sk, msg)}));
    const stats: BatchStats = {verifications: 0};
    const good = await batchVerifyPointsAsync(msg, items, stats);
    expect(good.valid.every(Boolean)).toBe(true);
    expect(stats.verifications).toBe(1);
    // The points aggregate to the same signature as the compressed bytes.
    expect(hex(aggregateVerified(good.points as Uint8Array[]))).toBe(
      hex(aggregateSignatures(items.map((x) => x.signature))),
    );
    items[99] = {...items[99]!, signature: sign(sks[0]!, msg)};
    const bad = await batchVerifyPointsAsync(msg, items);
    expect(bad.valid.flatMap((g, i) => (g ? [] : [i]))).toEqual([99]);
    expect(bad.points[99]).toBeNull();
  });

  it("proofs of possession (noble, PoP DST)", () => {
    const {credentials} = localSigner(2);
    expect(verifyProofOfPossession(unhex(credentials.publicKey), unhex(credentials.proofOfPossession))).toBe(true);
    expect(
      verifyProofOfPossession(unhex(localSigner(1).credentials.publicKey), unhex(credentials.proofOfPossession)),
    ).toBe(false);
    // A signature under the message DST is not a proof of possession.
    const pk = publicKeyOf(localSecretKey(2));
    expect(verifyProofOfPossession(pk, sign(localSecretKey(2), pk))).toBe(false);
  });
});
