/** A stored container: `id(32) ‖ timestamp ns (u64 BE) ‖ bytes`. */
import {readU64be} from "../db/buckets.js";

export interface ContainerRecord {
  id: Uint8Array;
  timestampNs: bigint;
  bytes: Uint8Array;
}

/** Bytes a record of this container takes. */
export function recordSize(r: {bytes: Uint8Array}): number {
  return 40 + r.bytes.length;
}

/** Encodes into `out` (recordSize bytes, e.g. from a batch's Slab) or a new array. */
export function encodeRecord(r: ContainerRecord, out: Uint8Array = new Uint8Array(recordSize(r))): Uint8Array {
  out.set(r.id, 0);
  new DataView(out.buffer, out.byteOffset, out.byteLength).setBigUint64(32, r.timestampNs);
  out.set(r.bytes, 40);
  return out;
}

export function decodeRecord(b: Uint8Array): ContainerRecord {
  if (b.length < 40) throw new Error(`corrupt container record of ${b.length} bytes`);
  return {id: b.subarray(0, 32), timestampNs: readU64be(b, 32), bytes: b.subarray(40)};
}
