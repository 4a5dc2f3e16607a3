/** Minimal RLP (Ethereum's recursive length prefix) decoding and encoding for EVM blocks. */
import {DecodeError} from "./reader.js";

export type RlpItem = Uint8Array | RlpList;
export interface RlpList {
  items: RlpItem[];
  /** The list's full encoding (prefix included), for hashing. */
  raw: Uint8Array;
}

export function isList(i: RlpItem): i is RlpList {
  return !(i instanceof Uint8Array);
}

/** Decodes one item that must span the whole input. */
export function rlpDecode(bytes: Uint8Array): RlpItem {
  const [item, end] = decodeAt(bytes, 0);
  if (end !== bytes.length) throw new DecodeError(`${bytes.length - end} trailing bytes after RLP item`);
  return item;
}

function readLen(b: Uint8Array, pos: number, n: number): number {
  if (n > 4) throw new DecodeError("RLP length too large");
  if (pos + n > b.length) throw new DecodeError("truncated RLP length");
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + b[pos + i]!;
  return len;
}

function decodeAt(b: Uint8Array, pos: number): [RlpItem, number] {
  if (pos >= b.length) throw new DecodeError("truncated RLP");
  const p = b[pos]!;
  if (p < 0x80) return [b.subarray(pos, pos + 1), pos + 1];
  if (p < 0xb8) return str(b, pos + 1, p - 0x80);
  if (p < 0xc0) {
    const n = p - 0xb7;
    return str(b, pos + 1 + n, readLen(b, pos + 1, n));
  }
  let start: number;
  let len: number;
  if (p < 0xf8) {
    start = pos + 1;
    len = p - 0xc0;
  } else {
    const n = p - 0xf7;
    start = pos + 1 + n;
    len = readLen(b, pos + 1, n);
  }
  const end = start + len;
  if (end > b.length) throw new DecodeError("truncated RLP list");
  const items: RlpItem[] = [];
  let q = start;
  while (q < end) {
    const [item, next] = decodeAt(b, q);
    items.push(item);
    q = next;
  }
  if (q !== end) throw new DecodeError("RLP list overruns its length");
  return [{items, raw: b.subarray(pos, end)}, end];
}

function str(b: Uint8Array, start: number, len: number): [Uint8Array, number] {
  if (start + len > b.length) throw new DecodeError("truncated RLP string");
  return [b.subarray(start, start + len), start + len];
}

function lengthPrefix(len: number, short: number): Uint8Array {
  if (len < 56) return Uint8Array.of(short + len);
  const bytes: number[] = [];
  for (let v = len; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Uint8Array.of(short + 55 + bytes.length, ...bytes);
}

/** Encodes bytes or (nested) arrays of them. */
export function rlpEncode(item: Uint8Array | RlpEncodable[]): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) return item;
    return Buffer.concat([lengthPrefix(item.length, 0x80), item]);
  }
  const body = Buffer.concat(item.map((i) => rlpEncode(i)));
  return Buffer.concat([lengthPrefix(body.length, 0xc0), body]);
}
export type RlpEncodable = Uint8Array | RlpEncodable[];

/** Big-endian unsigned integer of an RLP string. */
export function rlpUint(b: RlpItem): bigint {
  if (isList(b)) throw new DecodeError("expected an RLP integer, got a list");
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

/** Minimal big-endian encoding of an unsigned integer (0 = empty). */
export function uintBytes(v: bigint | number): Uint8Array {
  let n = BigInt(v);
  const out: number[] = [];
  while (n > 0n) {
    out.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return Uint8Array.from(out);
}
