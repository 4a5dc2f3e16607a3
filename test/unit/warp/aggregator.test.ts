import {bls12_381} from "@noble/curves/bls12-381.js";
import {describe, expect, it} from "vitest";
import {
  aggregate,
  parseSignedMessage,
  serializeSignedMessage,
  sign,
  SIGNATURE_DST,
  verifySignedMessage,
  VerifiedSignatures,
  WarpError,
  type CanonicalSet,
  type CanonicalValidator,
  type SignatureAnswer,
  type SignatureSource,
} from "../../../src/warp/index.js";
import {devSigners, keySigners, localSecretKey} from "../../../src/dev/signers.js";
import {hex, localSet, unhex, VECTOR_SIGNED, VECTOR_UNSIGNED} from "./vectors.js";

const noble = bls12_381.longSignatures;
const unsigned = unhex(VECTOR_UNSIGNED);
const everyone = (): null => null;

/** Verifies a signed message with @noble/curves only: its own parse of the bit set, its own key aggregation. */
function nobleVerify(signed: Uint8Array, set: CanonicalSet): {signers: number[]; ok: boolean} {
  const m = parseSignedMessage(signed);
  const pks = m.signerIndices.map((i) => bls12_381.G1.Point.fromBytes(set.validators[i]!.publicKey));
  const ok = noble.verify(
    bls12_381.G2.Point.fromBytes(m.signature),
    noble.hash(m.unsignedBytes, SIGNATURE_DST),
    noble.aggregatePublicKeys(pks),
  );
  return {signers: m.signerIndices, ok};
}

function listSource(
  name: string,
  answers: (set: CanonicalSet) => SignatureAnswer[],
  set: CanonicalSet,
  counter?: {yielded: number},
): SignatureSource {
  return {
    name,
    async *signatures() {
      for (const a of answers(set)) {
        if (counter) counter.yielded++;
        yield a;
      }
    },
  };
}

describe("aggregate", () => {
  it("reproduces issue 20's signed vector, and noble verifies it", async () => {
    const set = localSet(3);
    const r = await aggregate({unsigned, set, quorumNum: 67, bufferPercent: 0, sources: [devSigners(everyone)]});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // 67% of 300 is 201: the three signers are needed.
    expect(hex(r.signed)).toBe(VECTOR_SIGNED);
    expect(r.signedWeight).toBe(300n);
    expect(r.invalid).toBe(0);
    expect(nobleVerify(r.signed, set)).toEqual({signers: [0, 1, 2], ok: true});
    expect(verifySignedMessage(r.signed, set, 67).ok).toBe(true);
  });

  it("succeeds exactly at quorum and fails one short, naming the weights", async () => {
    // 20 + 20 + 20 with keys, 40 without: 60 of 100 can sign.
    const set = localSet(3, [20n, 20n, 20n], [{nodeId: "NodeID-keyless", weight: 40n, blsPublicKey: null}]);
    expect(set.totalWeight).toBe(100n);
    const at = await aggregate({unsigned, set, quorumNum: 60, bufferPercent: 0, sources: [devSigners(everyone)]});
    expect(at.ok && at.signedWeight).toBe(60n);
    expect(at.ok && nobleVerify(at.signed, set).ok).toBe(true);
    const short = await aggregate({unsigned, set, quorumNum: 61, bufferPercent: 0, sources: [devSigners(everyone)]});
    expect(short).toMatchObject({
      ok: false,
      collectedWeight: 60n,
      requiredWeight: 61n,
      totalWeight: 100n,
      refusals: [],
    });
  });

  it("stops at quorum + buffer, and collects the buffer when it can", async () => {
    const set = localSet(5);
    const counter = {yielded: 0};
    const source = listSource(
      "dev",
      (s) =>
        s.validators.map((v) => ({
          publicKey: v.publicKey,
          signature: sign(localSecretKey(keyNumber(v.publicKey)), unsigned),
        })),
      set,
      counter,
    );
    const r = await aggregate({unsigned, set, quorumNum: 20, bufferPercent: 20, sources: [source]});
    expect(r.ok && r.signerIndices).toEqual([0, 1]);
    expect(counter.yielded).toBe(2);
    expect(r.refusals).toEqual([]); // those not asked did not refuse
    const noBuffer = await aggregate({unsigned, set, quorumNum: 20, bufferPercent: 0, sources: [devSigners(everyone)]});
    expect(noBuffer.ok && noBuffer.signerIndices).toEqual([0]);
    const full = await aggregate({unsigned, set, quorumNum: 67, bufferPercent: 33, sources: [devSigners(everyone)]});
    expect(full.ok && full.signerIndices).toEqual([0, 1, 2, 3, 4]);
    expect(full.ok && nobleVerify(full.signed, set)).toEqual({signers: [0, 1, 2, 3, 4], ok: true});
    // Quorum reached but not the buffer: everyone answered, the message is signed anyway.
    const refuse = (_u: Uint8Array, _j: Uint8Array | undefined, v: CanonicalValidator) =>
      v === set.validators[4] ? "busy" : null;
    const partial = await aggregate({unsigned, set, quorumNum: 67, bufferPercent: 33, sources: [devSigners(refuse)]});
    expect(partial.ok && partial.signedWeight).toBe(400n);
    expect(partial.refusals).toEqual([{nodeIds: set.validators[4]!.nodeIds, reason: "busy"}]);
  });

  it("reports refusals and the weight collected", async () => {
    const set = localSet(5);
    const refused = new Set([set.validators[1], set.validators[3]]);
    const willSign = (_u: Uint8Array, j: Uint8Array | undefined, v: CanonicalValidator) =>
      refused.has(v) ? `message not seen (justification ${j ? hex(j) : "none"})` : null;
    const r = await aggregate({
      unsigned,
      set,
      quorumNum: 67,
      bufferPercent: 0,
      sources: [devSigners(willSign)],
      justification: unhex("beef"),
    });
    expect(r).toMatchObject({ok: false, collectedWeight: 300n, requiredWeight: 335n, invalid: 0});
    expect(r.refusals).toEqual([
      {nodeIds: set.validators[1]!.nodeIds, reason: "message not seen (justification beef)"},
      {nodeIds: set.validators[3]!.nodeIds, reason: "message not seen (justification beef)"},
    ]);
    // Validators no source answers for are reported too.
    const few = await aggregate({unsigned, set, quorumNum: 67, bufferPercent: 0, sources: [devSigners(everyone, 2)]});
    expect(few.ok).toBe(false);
    expect(few.refusals.map((x) => x.reason).sort()).toEqual(["no answer", "no answer", "no answer"]);
  });

  it("rejects and counts bad signatures; quorum is still reached with the others", async () => {
    const set = localSet(5);
    const key = (i: number) => localSecretKey(keyNumber(set.validators[i]!.publicKey));
    const evil = listSource(
      "evil",
      (s) => [
        {publicKey: s.validators[0]!.publicKey, signature: sign(key(0), Uint8Array.of(1, 2, 3))}, // another message
        {publicKey: s.validators[1]!.publicKey, signature: new Uint8Array(96).fill(0xaa)}, // not a point
        {publicKey: s.validators[2]!.publicKey, signature: sign(key(3), unsigned)}, // another validator's
        {publicKey: s.validators[1]!.publicKey, signature: sign(key(1), unsigned)}, // then a good one
        {publicKey: s.validators[3]!.publicKey, signature: sign(key(3), unsigned)},
        {publicKey: s.validators[4]!.publicKey, signature: sign(key(4), unsigned)},
        {publicKey: new Uint8Array(48), signature: new Uint8Array(96)}, // not in the set: ignored
      ],
      set,
    );
    const r = await aggregate({unsigned, set, quorumNum: 60, bufferPercent: 0, sources: [evil]});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.invalid).toBe(3);
    expect(r.signerIndices).toEqual([1, 3, 4]);
    expect(nobleVerify(r.signed, set)).toEqual({signers: [1, 3, 4], ok: true});
    expect(r.refusals).toEqual([
      {nodeIds: set.validators[0]!.nodeIds, reason: "invalid signature"},
      {nodeIds: set.validators[2]!.nodeIds, reason: "invalid signature"},
    ]);
    // With an honest source beside it, the bad answers never enter the aggregate.
    const both = await aggregate({
      unsigned,
      set,
      quorumNum: 100,
      bufferPercent: 0,
      sources: [evil, devSigners(everyone)],
    });
    expect(both.ok && both.signerIndices).toEqual([0, 1, 2, 3, 4]);
    expect(both.ok && nobleVerify(both.signed, set).ok).toBe(true);
    expect(both.invalid).toBeGreaterThanOrEqual(1);
  });

  it("counts a signature verified before without a second check, and never remembers a bad one", async () => {
    const set = localSet(5);
    const key = (i: number) => localSecretKey(keyNumber(set.validators[i]!.publicKey));
    const verified = new VerifiedSignatures();
    const first = await aggregate({
      unsigned,
      set,
      quorumNum: 100,
      bufferPercent: 0,
      sources: [devSigners(everyone)],
      verified,
    });
    expect(first.ok).toBe(true);
    // The same bytes again: every one is known, the same signed message comes out, nothing is checked anew.
    const again = await aggregate({
      unsigned,
      set,
      quorumNum: 100,
      bufferPercent: 0,
      sources: [devSigners(everyone)],
      verified,
    });
    expect(again.ok && hex(again.signed)).toBe(first.ok && hex(first.signed));
    // A bad signature for a validator whose good one is cached is still a bad one: checked, refused, not cached.
    const bad = listSource(
      "bad",
      (s) => [{publicKey: s.validators[0]!.publicKey, signature: sign(key(1), unsigned)}],
      set,
    );
    const r = await aggregate({unsigned, set, quorumNum: 20, bufferPercent: 0, sources: [bad], verified});
    expect(r).toMatchObject({ok: false, invalid: 1});
    // Another message: nothing cached for it.
    const other = Uint8Array.from(unsigned);
    other[other.length - 1]! ^= 1;
    const forOther = listSource(
      "replay",
      (s) => s.validators.map((v, i) => ({publicKey: v.publicKey, signature: sign(key(i), unsigned)})),
      set,
    );
    const replayed = await aggregate({
      unsigned: other,
      set,
      quorumNum: 20,
      bufferPercent: 0,
      sources: [forOther],
      verified,
    });
    expect(replayed).toMatchObject({ok: false, invalid: 5});
  });
  it("a failing or silent source does not stop the others; the caller's signal ends a wait", async () => {
    const set = localSet(5);
    const failing: SignatureSource = {
      name: "down",
      // biome-ignore lint/correctness/useYield: a source that fails before its first signature.
      async *signatures() {
        throw new Error("connection refused");
      },
    };
    const silent: SignatureSource = {
      name: "silent",
      async *signatures(req) {
        await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
        yield* [];
      },
    };
    const r = await aggregate({
      unsigned,
      set,
      quorumNum: 67,
      bufferPercent: 0,
      sources: [failing, silent, devSigners(everyone)],
    });
    expect(r.ok && r.signedWeight).toBe(400n);
    const t0 = Date.now();
    const stuck = await aggregate({
      unsigned,
      set,
      quorumNum: 67,
      bufferPercent: 0,
      sources: [failing, silent],
      signal: AbortSignal.timeout(100),
    });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(stuck).toMatchObject({
      ok: false,
      collectedWeight: 0n,
      requiredWeight: 335n,
      sourceErrors: [{source: "down", error: "connection refused"}],
    });
    expect(stuck.refusals).toHaveLength(5);
  });

  it("works with any keys (keySigners) and unequal weights", async () => {
    const sks = Array.from({length: 8}, (_, i) => new Uint8Array(32).fill(i + 1));
    const {canonicalValidatorSet, publicKeyOf} = await import("../../../src/warp/index.js");
    const set = canonicalValidatorSet(
      sks.map((sk, i) => ({nodeId: `n${i}`, weight: BigInt(1 + i * i), blsPublicKey: publicKeyOf(sk)})),
    );
    const r = await aggregate({
      unsigned,
      set,
      quorumNum: 100,
      bufferPercent: 0,
      sources: [keySigners("keys", sks, everyone)],
    });
    expect(r.ok && r.signedWeight).toBe(set.totalWeight);
    expect(r.ok && nobleVerify(r.signed, set)).toEqual({signers: [0, 1, 2, 3, 4, 5, 6, 7], ok: true});
  });

  it("ignores malformed answers and counts signatures that are not bytes; sources see the stop", async () => {
    const set = localSet(5);
    let sawAbort = false;
    const sloppy: SignatureSource = {
      name: "sloppy",
      async *signatures(req) {
        yield null as never;
        yield {publicKey: "not bytes", signature: new Uint8Array(96)} as never;
        yield {publicKey: set.validators[0]!.publicKey, signature: "c0ffee"} as never;
        yield* devSigners(everyone).signatures(req);
        await new Promise((resolve) => setTimeout(resolve, 10));
        sawAbort = req.signal.aborted;
      },
    };
    const r = await aggregate({unsigned, set, quorumNum: 67, bufferPercent: 0, sources: [sloppy]});
    expect(r.ok && r.signerIndices).toEqual([0, 1, 2, 3]);
    expect(r.invalid).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sawAbort).toBe(false); // the generator was closed at quorum: it never got past its last yield
  });

  it("large sets are checked off the event loop, bad signatures still found", async () => {
    const {canonicalValidatorSet, publicKeyOf} = await import("../../../src/warp/index.js");
    const sks = Array.from({length: 150}, (_, i) => {
      const sk = new Uint8Array(32).fill(i + 1);
      sk[0] = 0x22;
      return sk;
    });
    const set = canonicalValidatorSet(
      sks.map((sk, i) => ({nodeId: `n${i}`, weight: 10n, blsPublicKey: publicKeyOf(sk)})),
    );
    const bySet = new Map(sks.map((sk) => [hex(publicKeyOf(sk)), sk]));
    const answers = set.validators.map((v, i) => ({
      publicKey: v.publicKey,
      signature:
        i % 50 === 7
          ? sign(bySet.get(hex(v.publicKey))!, Uint8Array.of(9))
          : sign(bySet.get(hex(v.publicKey))!, unsigned),
    }));
    const r = await aggregate({
      unsigned,
      set,
      quorumNum: 67,
      bufferPercent: 33,
      sources: [listSource("many", () => answers, set)],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.invalid).toBe(3);
    expect(r.signerIndices).toHaveLength(147);
    expect(r.signerIndices).not.toContain(7);
    expect(r.refusals.map((x) => x.reason)).toEqual(["invalid signature", "invalid signature", "invalid signature"]);
    expect(nobleVerify(r.signed, set).ok).toBe(true);
  });

  it("refuses bad arguments", async () => {
    const set = localSet(1);
    const args = {unsigned, set, sources: []};
    await expect(aggregate({...args, quorumNum: 0, bufferPercent: 0})).rejects.toThrow(WarpError);
    await expect(aggregate({...args, quorumNum: 67.5, bufferPercent: 0})).rejects.toThrow(/quorumPercentage/);
    await expect(aggregate({...args, quorumNum: 67, bufferPercent: 34})).rejects.toThrow(/exceeds 100/);
    await expect(aggregate({...args, unsigned: unsigned.subarray(1), quorumNum: 67, bufferPercent: 0})).rejects.toThrow(
      WarpError,
    );
  });
});

describe("verifySignedMessage", () => {
  const set = localSet(3);
  const signed = unhex(VECTOR_SIGNED);
  const m = parseSignedMessage(signed);

  it("accepts the vector and checks what was asked", () => {
    const r = verifySignedMessage(signed, set, 67, unsigned);
    expect(r.ok && r.signedWeight).toBe(300n);
    expect(verifySignedMessage(signed, set, 67, Uint8Array.of(...unsigned, 0))).toMatchObject({
      ok: false,
      reason: /not the message asked/,
    });
  });

  it("rejects a forged signature, unknown signers, too little weight, garbage", () => {
    const forged = serializeSignedMessage(unsigned, [0, 1, 2], sign(localSecretKey(1), unsigned));
    expect(verifySignedMessage(forged, set, 67)).toMatchObject({ok: false, reason: /does not verify/});
    const past = serializeSignedMessage(unsigned, [0, 1, 3], m.signature);
    expect(verifySignedMessage(past, set, 67)).toMatchObject({ok: false, reason: /index 3 >= 3/});
    const two = serializeSignedMessage(unsigned, [0, 1], m.signature);
    expect(verifySignedMessage(two, set, 67)).toMatchObject({ok: false, reason: /insufficient weight/});
    expect(verifySignedMessage(two, set, 66)).toMatchObject({ok: false, reason: /does not verify/});
    expect(verifySignedMessage(signed.subarray(0, 100), set, 67).ok).toBe(false);
    // Another set (a fourth validator): the bits name other keys and the weight falls short.
    expect(verifySignedMessage(signed, localSet(4), 67).ok).toBe(false);
  });
});

/** Which local key (1..5) a compressed public key is. */
function keyNumber(publicKey: Uint8Array): number {
  for (let n = 1; n <= 5; n++)
    if (hex(noble.getPublicKey(localSecretKey(n)).toBytes(true)) === hex(publicKey)) return n;
  throw new Error("not a local key");
}
