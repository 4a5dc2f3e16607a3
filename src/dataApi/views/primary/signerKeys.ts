/**
 * The public keys behind the credentials of UTXO inputs, without a recovery per signature where possible.
 *
 * secp256k1fx checks signature k of an input against the spent UTXO's owner address `sigIndices[k]`, and a
 * container in the index was accepted, so that signature was made by that address's key. Once an address's key
 * has been recovered, every later credential it signs (for a UTXO whose owner is known) takes it from here.
 * Recovery is most of a transaction's decode cost (~24 µs a signature with libsecp256k1) and addresses sign
 * again and again; the keys not found here (an address's first signature, a UTXO whose creation is not folded
 * yet, as an import folded before its export) are recovered.
 */
import {ripemd160} from "@noble/hashes/legacy.js";
import {sha256} from "@noble/hashes/sha2.js";
import type {TxInput} from "./model.js";
import {FifoMap} from "../../../util/fifoMap.js";
import {bytesToLatin1 as latin1} from "../../../util/hex.js";
import {recoverPublicKey} from "./recover.js";

export class SignerKeys {
  /** Address (20 bytes as a latin1 string) → 33-byte compressed key, the last `max` addresses recovered. */
  private readonly keys: FifoMap<string, Uint8Array>;
  hits = 0;
  recovered = 0;

  constructor(max = 100_000) {
    this.keys = new FifoMap(max);
  }

  /**
   * Fills in the keys of `input`'s credentials left null by the decoder (TxDecodeOptions.deferInputKeys), given
   * the spent UTXO's owner addresses when known. Returns the addresses of the keys it had to recover (for an
   * unknown owner, the only account of who spent it).
   */
  fill(input: TxInput, owner: readonly Uint8Array[] | undefined, unsignedHash: Uint8Array): Uint8Array[] {
    const signers: Uint8Array[] = [];
    input.credentials.forEach((c, k) => {
      if (c.publicKey !== null) return;
      const slot = input.sigIndices[k];
      const address = owner !== undefined && slot !== undefined ? owner[slot] : undefined;
      if (address !== undefined) {
        const known = this.keys.get(latin1(address));
        if (known !== undefined) {
          c.publicKey = known;
          this.hits++;
          return;
        }
      }
      const key = recoverPublicKey(c.signature, unsignedHash);
      if (key === null) return;
      this.recovered++;
      c.publicKey = key;
      const signer = ripemd160(sha256(key));
      signers.push(signer);
      // The same address always recovers the same key: setting it again changes nothing.
      this.keys.set(latin1(signer), key);
    });
    return signers;
  }
}
