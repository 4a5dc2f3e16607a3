/**
 * Public-key recovery of Avalanche secp256k1 credentials ([r ‖ s ‖ v] over sha256 of the unsigned transaction).
 * libsecp256k1 (the `secp256k1` package, prebuilt native) recovers ~25x faster than @noble/curves here
 * (docs/performance.md), and ingest recovers every input's key; @noble/curves is the fallback when the native
 * module cannot load, and the reference the tests compare against.
 */
import {createRequire} from "node:module";
import {secp256k1 as noble} from "@noble/curves/secp256k1.js";

interface NativeSecp {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
}

function loadNative(): NativeSecp | null {
  try {
    return createRequire(import.meta.url)("secp256k1") as NativeSecp;
  } catch {
    return null;
  }
}

const native = loadNative();

/** The 33-byte compressed public key that made `signature` over `digest`, or null when none did. */
export function recoverPublicKey(
  signature: Uint8Array,
  digest: Uint8Array,
  useNative = native !== null,
): Uint8Array | null {
  if (signature.length !== 65 || digest.length !== 32) return null;
  const recid = signature[64]!;
  if (recid > 3) return null;
  try {
    if (useNative && native) return native.ecdsaRecover(signature.subarray(0, 64), recid, digest, true);
    const sig = new Uint8Array(65);
    sig[0] = recid;
    sig.set(signature.subarray(0, 64), 1);
    return noble.recoverPublicKey(sig, digest, {prehash: false});
  } catch {
    return null;
  }
}

export const nativeRecovery = native !== null;
