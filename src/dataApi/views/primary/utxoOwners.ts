/**
 * The owners of recently created UTXOs, so that a spend finds its UTXO's owner without reading the store: most UTXOs
 * are spent a while after their creation (change, the next transfer), and a read is one index probe a spend in the
 * store's thread. The last `max` creations are held, a spent UTXO leaves (it is spent once). What is not here is read.
 *
 * Owners are held packed, their 20-byte addresses concatenated in one latin1 string (~40 bytes on V8's heap), not
 * as the decoder's arrays: those are views into the decoded container's bytes, so each entry kept a whole
 * container alive (heap snapshots of a fold: ~0.6 KB an entry, 58 MB for the default 100,000).
 */
import {FifoMap} from "../../../util/fifoMap.js";
import {bytesToLatin1 as latin1} from "../../../util/hex.js";

const ADDRESS_LEN = 20;

export class UtxoOwners {
  /** UTXO ID → packed addresses, or a copy of them when one is not ADDRESS_LEN bytes. */
  private readonly owners: FifoMap<string, string | Uint8Array[]>;
  hits = 0;
  misses = 0;

  constructor(max = 100_000) {
    this.owners = new FifoMap(max);
  }

  add(utxoId: string, addresses: readonly Uint8Array[]): void {
    if (this.owners.max === 0) return;
    this.owners.set(utxoId, pack(addresses));
  }

  /** Moves the owners held of `ids` into `out`; returns the IDs not held. */
  take(ids: readonly string[], out: Map<string, Uint8Array[]>): string[] {
    const missing: string[] = [];
    for (const id of ids) {
      const o = this.owners.get(id);
      if (o === undefined) {
        missing.push(id);
        continue;
      }
      out.set(id, unpack(o));
      this.owners.delete(id);
    }
    this.hits += ids.length - missing.length;
    this.misses += missing.length;
    return missing;
  }

  clear(): void {
    this.owners.clear();
  }

  get size(): number {
    return this.owners.size;
  }
}

function pack(addresses: readonly Uint8Array[]): string | Uint8Array[] {
  // Uint8Array.from copies (a Buffer's slice() is a view).
  if (addresses.some((a) => a.length !== ADDRESS_LEN)) return addresses.map((a) => Uint8Array.from(a));
  if (addresses.length === 1) return latin1(addresses[0]!);
  // One flat string (a `+=` chain would be a rope holding each part).
  return latin1(Buffer.concat(addresses));
}

function unpack(o: string | Uint8Array[]): Uint8Array[] {
  if (typeof o !== "string") return o;
  const b = Buffer.from(o, "latin1");
  const out: Uint8Array[] = [];
  for (let i = 0; i < b.length; i += ADDRESS_LEN) out.push(new Uint8Array(b.buffer, b.byteOffset + i, ADDRESS_LEN));
  return out;
}
