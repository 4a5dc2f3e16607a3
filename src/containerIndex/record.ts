/**
 * A stored container record:
 *
 *     id (32) ‖ timestamp ns, u64 BE, top bit = "checksum follows" ‖ [checksum (4)] ‖ bytes
 *
 * The checksum is sha256(bytes)[28:32], the 4 bytes AvalancheGo's `hex` encoding appends. Stored, it spares
 * each read a sha256 of the whole container (a tenth of a random getContainerRange page's CPU); ingest mostly
 * has it for free (an ID that is sha256 of the bytes, an upstream's checked `hex`). Timestamps are below 2^63 ns
 * (Go's UnixNano range, until 2262), so the top bit is free. Records written before checksums were stored
 * (layout 1: id ‖ timestamp ‖ bytes) sit below a per-endpoint index recorded when the database was first opened
 * by a version that stores checksums (Bucket.checksumsFrom); they are read as layout 1 whatever their timestamp,
 * since earlier versions accepted any u64 timestamp.
 */
import {readU64be} from "../db/buckets.js";
import {sha256} from "../util/sha256.js";
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
  if (r.timestampNs < 0n || r.timestampNs > MAX_TIMESTAMP_NS)
    throw new RangeError(`timestamp ${r.timestampNs} ns is outside [0, 2^63)`);
  if (r.checksum.length !== CHECKSUM_LEN) throw new RangeError(`checksum of ${r.checksum.length} bytes`);
  out.set(r.id, 0);
  new DataView(out.buffer, out.byteOffset, out.byteLength).setBigUint64(32, r.timestampNs | CHECKSUM_FLAG);
  out.set(r.checksum, HEAD);
  out.set(r.bytes, HEAD + CHECKSUM_LEN);
  return out;
}

/**
 * Decodes a record read at `index` (views into `b`, no copies); records below `checksumsFrom` are of layout 1.
 */
export function decodeRecord(b: Uint8Array, index: bigint, checksumsFrom: bigint): ReadRecord {
  if (b.length < HEAD) throw new Error(`corrupt container record of ${b.length} bytes`);
  const ts = readU64be(b, 32);
  if (ts < CHECKSUM_FLAG || index < checksumsFrom)
    return {id: b.subarray(0, 32), timestampNs: ts, bytes: b.subarray(HEAD), index, checksum: null};
  if (b.length < HEAD + CHECKSUM_LEN) throw new Error(`corrupt container record of ${b.length} bytes`);
  return {
    id: b.subarray(0, 32),
    timestampNs: ts ^ CHECKSUM_FLAG,
    bytes: b.subarray(HEAD + CHECKSUM_LEN),
    index,
    checksum: b.subarray(HEAD, HEAD + CHECKSUM_LEN),
  };
}

/**
 * Whether a record holds a checksum that matches its bytes: how a database written before Bucket.checksumsFrom
 * existed is told apart (a layout-1 record with the top bit set in its timestamp matches by chance 1 in 2^32).
 */
export function holdsChecksum(b: Uint8Array): boolean {
  if (b.length < HEAD + CHECKSUM_LEN || readU64be(b, 32) < CHECKSUM_FLAG) return false;
  return Buffer.from(sha256(b.subarray(HEAD + CHECKSUM_LEN)).subarray(28)).equals(
    b.subarray(HEAD, HEAD + CHECKSUM_LEN),
  );
}
