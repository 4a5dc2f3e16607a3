/** Issue 20's AvalancheGo-compatible vector: local keys signer1..3, equal weights, canonical order. */
import {canonicalValidatorSet, publicKeyOf} from "../../../src/warp/index.js";
import {localSecretKey} from "../../../src/dev/signers.js";

export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
export const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "hex"));

export const VECTOR_UNSIGNED =
  "00000000303982900e9ff184b708895a39e5ba12491de180ca649e67c6393e64f4e18751cfcd0000002c00000000000100000014253b2784c75e510dd0ff1da844684a1ac0aa5fcf0000000a68656c6c6f2077617270";
export const VECTOR_SIGNATURE =
  "93528a95673f52e4de000708f823a2344d7c623842127b83831d487338d7db5688ef5f90644a578be745d67eea1bb211000b6729df843572aa786676158c6844f5e867b3ff48e7446a70e03f693e242f7e7db56fe56a0ac259ea5ce707f471a3";
export const VECTOR_SIGNED = VECTOR_UNSIGNED + "000000000000000107" + VECTOR_SIGNATURE;

export const LOCAL_NODE_IDS = [
  "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg",
  "NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ",
  "NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN",
  "NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu",
  "NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5",
];

/** signer1..n with the given weights (default 100 each). */
export function localSet(
  n: number,
  weights: bigint[] = [],
  extra: Array<{nodeId: string; weight: bigint; blsPublicKey: Uint8Array | null}> = [],
) {
  return canonicalValidatorSet([
    ...Array.from({length: n}, (_, i) => ({
      nodeId: LOCAL_NODE_IDS[i]!,
      weight: weights[i] ?? 100n,
      blsPublicKey: publicKeyOf(localSecretKey(i + 1)),
    })),
    ...extra,
  ]);
}
