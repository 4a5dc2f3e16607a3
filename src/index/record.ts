/** A stored container: `id(32) ‖ timestamp ns (u64 BE) ‖ bytes`. */
import {readU64be} from "../db/buckets.js";

export interface ContainerRecord {
  id: Uint8Array;
  timestampNs: bigint;
  bytes: Uint8Array;
}

export function encodeRecord(r: ContainerRecord): Uint8Array {
  const out = new Uint8Array(40 + r.bytes.length);
  out.set(r.id, 0);
  new DataView(out.buffer).setBigUint64(32, r.timestampNs);
  out.set(r.bytes, 40);
  return out;
}

export function decodeRecord(b: Uint8Array): ContainerRecord {
  if (b.length < 40) throw new Error(`corrupt container record of ${b.length} bytes`);
  return {id: b.subarray(0, 32), timestampNs: readU64be(b, 32), bytes: b.subarray(40)};
}
