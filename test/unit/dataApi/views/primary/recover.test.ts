/**
 * Credential key recovery: libsecp256k1 (native) against @noble/curves on random keys and digests, and on
 * signatures that recover to no key.
 */
import {randomBytes} from "node:crypto";
import {describe, expect, it} from "vitest";
import {secp256k1} from "@noble/curves/secp256k1.js";
import {nativeRecovery, recoverPublicKey} from "../../../../../src/dataApi/views/primary/recover.js";

describe("recoverPublicKey", () => {
  it("loads the native library on this platform", () => {
    expect(nativeRecovery).toBe(true);
  });

  it("recovers the signer's compressed key, natively and with @noble/curves alike, on 500 random signatures", () => {
    for (let i = 0; i < 500; i++) {
      const sk = secp256k1.utils.randomSecretKey();
      const digest = randomBytes(32);
      const rec = secp256k1.sign(digest, sk, {prehash: false, format: "recovered"});
      // Avalanche credentials are [r ‖ s ‖ v]; noble's recovered format is [v ‖ r ‖ s].
      const sig = new Uint8Array(65);
      sig.set(rec.subarray(1), 0);
      sig[64] = rec[0]!;
      const want = secp256k1.getPublicKey(sk, true);
      expect(recoverPublicKey(sig, digest, true)).toEqual(want);
      expect(recoverPublicKey(sig, digest, false)).toEqual(want);
    }
  });

  it("gives null, on both paths, for a signature that recovers to no key", () => {
    const digest = randomBytes(32);
    const zero = new Uint8Array(65);
    const badV = new Uint8Array(65).fill(1);
    badV[64] = 7;
    for (const sig of [zero, badV, new Uint8Array(64)]) {
      expect(recoverPublicKey(sig, digest, true)).toBeNull();
      expect(recoverPublicKey(sig, digest, false)).toBeNull();
    }
  });
});
