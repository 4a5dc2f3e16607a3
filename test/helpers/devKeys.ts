/**
 * The dev network's BLS keys, computed by noble (a second library) from their public secret keys: the local
 * signers 1-5 (`AvalancheLocalNetworkValidator0n`) and the dev network's own stakers "s1".."s4"
 * (`avaext dev network staker key 0n`), and a check of a signed warp message against a canonical set of them.
 */
import {bls12_381} from "@noble/curves/bls12-381.js";
import type {SignedMessage} from "../../src/warp/message.js";

/** A local signer (1-5), or a dev staker ("s1".."s4"). */
export type DevKeyName = number | `s${number}`;

const noble = bls12_381.longSignatures;

export function devSecretKey(name: DevKeyName): Uint8Array {
  const text =
    typeof name === "number"
      ? `AvalancheLocalNetworkValidator0${name}`
      : `avaext dev network staker key 0${name.slice(1)}`;
  return new TextEncoder().encode(text);
}

export function devPublicKey(name: DevKeyName): ReturnType<typeof noble.getPublicKey> {
  return noble.getPublicKey(devSecretKey(name));
}

/**
 * Whether `m` is signed by entries of the canonical set of `set` (keys with weights; `keyless` weight counts in
 * the total only) holding at least `quorum` % of the weight, its aggregate checked by noble.
 */
export function verifiesWithSet(
  m: SignedMessage,
  set: Array<[DevKeyName, bigint]>,
  keyless = 0n,
  quorum = 67n,
): boolean {
  const keys = set.map(([name, weight]) => ({key: devPublicKey(name), weight}));
  keys.sort((x, y) => Buffer.compare(Buffer.from(x.key.toBytes(false)), Buffer.from(y.key.toBytes(false))));
  if (m.signerIndices.some((i) => i >= keys.length)) return false;
  const total = keys.reduce((a, k) => a + k.weight, keyless);
  const signed = m.signerIndices.reduce((a, i) => a + keys[i]!.weight, 0n);
  if (signed * 100n < total * quorum) return false;
  const aggregate = noble.aggregatePublicKeys(m.signerIndices.map((i) => keys[i]!.key));
  return noble.verify(
    bls12_381.G2.Point.fromBytes(m.signature),
    noble.hash(m.unsignedBytes, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"),
    aggregate,
  );
}
