/**
 * Signature sources backed by secret keys held here: the dev network's validators (AvalancheGo's local-network
 * keys `AvalancheLocalNetworkValidator01..05`), and any set of keys (tests, benchmarks). A validator signs only
 * what `willSign` allows, as a real validator signs only what its VM accepts; otherwise it refuses with the reason.
 */
import {publicKeyOf, secretKeyFromBytes, sign, type SecretKey} from "../warp/bls.js";
import {messageId} from "../warp/message.js";
import type {SignatureAnswer, SignatureRequest, SignatureSource} from "../warp/aggregator.js";
import type {CanonicalValidator} from "../warp/validators.js";

/** null: the validator signs; a string: it refuses, for that reason. */
export type WillSign = (
  unsigned: Uint8Array,
  justification: Uint8Array | undefined,
  validator: CanonicalValidator,
) => string | null | Promise<string | null>;

/** The 32-byte BLS secret key of AvalancheGo's local validator `signer{n}` (n = 1..5). */
export function localSecretKey(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 1 || n > 99) throw new RangeError(`local signer ${n}`);
  return new TextEncoder().encode(`AvalancheLocalNetworkValidator${String(n).padStart(2, "0")}`);
}

const SIGNATURE_CACHE = 4096;

/** A source that answers for every validator whose key is one of `secretKeys`. */
export function keySigners(name: string, secretKeys: Uint8Array[], willSign: WillSign): SignatureSource {
  const keys = new Map<string, SecretKey>();
  for (const sk of secretKeys) keys.set(Buffer.from(publicKeyOf(sk)).toString("hex"), secretKeyFromBytes(sk));
  // A message is usually asked for more than once (retries, endpoint 2's repeated GETs): signing costs ~0.5 ms.
  const cache = new Map<string, Uint8Array>();
  const signed = (sk: SecretKey, pk: string, unsigned: Uint8Array): Uint8Array => {
    const k = pk + Buffer.from(messageId(unsigned)).toString("hex");
    let sig = cache.get(k);
    if (!sig) {
      sig = sign(sk, unsigned);
      if (cache.size >= SIGNATURE_CACHE) cache.delete(cache.keys().next().value!);
      cache.set(k, sig);
    }
    return sig;
  };
  return {
    name,
    async *signatures(req: SignatureRequest): AsyncIterable<SignatureAnswer> {
      for (const v of req.validators) {
        if (req.signal.aborted) return;
        const pk = Buffer.from(v.publicKey).toString("hex");
        const sk = keys.get(pk);
        if (!sk) continue;
        const refusal = await willSign(req.unsigned, req.justification, v);
        if (refusal !== null) yield {publicKey: v.publicKey, refused: refusal};
        else yield {publicKey: v.publicKey, signature: signed(sk, pk, req.unsigned)};
      }
    },
  };
}

/**
 * The 32-byte BLS secret key of the dev network's own staker n (1..4, the nodes that stake by transaction beyond
 * the genesis ones, src/dev/primaryNetwork.ts): the 32 ASCII bytes `avaext dev network staker key 0n`, made as the
 * local signers' are, so anyone can check what they sign.
 */
export function devStakerSecretKey(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 1 || n > 99) throw new RangeError(`dev staker ${n}`);
  return new TextEncoder().encode(`avaext dev network staker key ${String(n).padStart(2, "0")}`);
}

/** How many nodes the dev network stakes by transaction (src/dev/primaryNetwork.ts). */
export const DEV_STAKER_NODES = 4;

/** Every key the dev network's validators sign with: the local signers 1-`local`, then the dev stakers 1-4. */
export function devNetworkSecretKeys(local = 5): Uint8Array[] {
  return [
    ...Array.from({length: local}, (_, i) => localSecretKey(i + 1)),
    ...Array.from({length: DEV_STAKER_NODES}, (_, i) => devStakerSecretKey(i + 1)),
  ];
}

/** The dev network's validators: the local keys `signer1..local` (all five by default) and the dev stakers' keys. */
export function devSigners(willSign: WillSign, local = 5): SignatureSource {
  return keySigners("dev network validators", devNetworkSecretKeys(local), willSign);
}
