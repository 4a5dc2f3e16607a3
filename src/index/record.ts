/**
 * A stored container record:
 *
 *     id (32) ‖ timestamp ns, u64 BE, top bit = "checksum follows" ‖ [checksum (4)] ‖ bytes
 *
 * The checksum is sha256(bytes)[28:32], the 4 bytes AvalancheGo's `hex` encoding appends. Stored, it spares
 * each read a sha256 of the whole container (a tenth of a random getContainerRange page's CPU); ingest mostly
 * has it for free (an ID that is sha256 of the bytes, an upstream's checked `hex`). Timestamps are below 2^63 ns
 * (Go's UnixNano range, until 2262), so the top bit is free; records written before it have it clear and no
 * checksum, and are read as before.
 */
import {readU64be} from "../db/buckets.js";
import {MAX_TIMESTAMP_NS} from "../util/time.js";

export interface ContainerRecord {
  id: Uint8Array;
  timestampNs: bigint;
  bytes: Uint8Array;
}

/** A record to write: its checksum is required. */
export interface RecordToWrite extends ContainerRecord {
  checksum: Uint8Array;
}

/** A record read back, with its index, and its checksum when the record holds one. */
export interface ReadRecord extends ContainerRecord {
  index: bigint;
  checksum: Uint8Array | null;
}

const CHECKSUM_FLAG = 1n << 63n;
const HEAD = 40;
const CHECKSUM_LEN = 4;

/** Bytes a record of this container takes. */
export function recordSize(r: {bytes: Uint8Array}): number {
  return HEAD + CHECKSUM_LEN + r.bytes.length;
}

/** Encodes into `out` (recordSize bytes, e.g. from a batch's Slab) or a new array. */
export function encodeRecord(r: RecordToWrite, out: Uint8Array = new Uint8Array(recordSize(r))): Uint8Array {
  if (r.timestampNs < 0n || r.timestampNs > MAX_TIMESTAMP_NS) throw new RangeError(`timestamp ${r.timestampNs} ns is outside [0, 2^63)`);
  if (r.checksum.length !== CHECKSUM_LEN) throw new RangeError(`checksum of ${r.checksum.length} bytes`);
  out.set(r.id, 0);
  new DataView(out.buffer, out.byteOffset, out.byteLength).setBigUint64(32, r.timestampNs | CHECKSUM_FLAG);
  out.set(r.checksum, HEAD);
  out.set(r.bytes, HEAD + CHECKSUM_LEN);
  return out;
}

/** Decodes a record read at `index` (views into `b`, no copies). */
export function decodeRecord(b: Uint8Array, index: bigint): ReadRecord {
  if (b.length < HEAD) throw new Error(`corrupt container record of ${b.length} bytes`);
  const ts = readU64be(b, 32);
  if (ts < CHECKSUM_FLAG) return {id: b.subarray(0, 32), timestampNs: ts, bytes: b.subarray(HEAD), index, checksum: null};
  if (b.length < HEAD + CHECKSUM_LEN) throw new Error(`corrupt container record of ${b.length} bytes`);
  return {
    id: b.subarray(0, 32),
    timestampNs: ts ^ CHECKSUM_FLAG,
    bytes: b.subarray(HEAD + CHECKSUM_LEN),
    index,
    checksum: b.subarray(HEAD, HEAD + CHECKSUM_LEN),
  };
}
