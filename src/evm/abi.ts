/**
 * The few Solidity ABI shapes the data API reads and the dev network writes: 32-byte words (uint, address, bool,
 * bytes32), dynamic `bytes`/`string`, and arrays of words. Decoding checks every offset and length against the
 * data (a contract's return value or a log is untrusted input) and throws AbiError instead of reading past it.
 */
import {keccak_256} from "@noble/hashes/sha3.js";
import {bytesToHex, hexToBytes} from "./hex.js";

export class AbiError extends Error {}

export type AbiType = "uint256" | "uint8" | "address" | "bool" | "bytes32" | "bytes" | "string" | "uint256[]" | "address[]";
export type AbiValue = bigint | number | string | boolean | Uint8Array | readonly (bigint | string)[];

/** The 4-byte selector of a function signature (`transfer(address,uint256)`), 0x-hex. */
export function selector(signature: string): string {
  return "0x" + bytesToHex(keccak_256(new TextEncoder().encode(signature)).subarray(0, 4));
}

/** The topic of an event signature (`Transfer(address,address,uint256)`), 0x-hex. */
export function eventTopic(signature: string): string {
  return "0x" + bytesToHex(keccak_256(new TextEncoder().encode(signature)));
}

function word(v: bigint): Uint8Array {
  if (v < 0n || v >= 1n << 256n) throw new AbiError(`value out of range: ${v}`);
  return hexToBytes(v.toString(16).padStart(64, "0"));
}

/** Bytes of a hex string or a Uint8Array; AbiError for anything else. */
function bytesOf(v: AbiValue, what: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v !== "string") throw new AbiError(`${what}: not hex or bytes: ${String(v)}`);
  try {
    return hexToBytes(v);
  } catch {
    throw new AbiError(`${what}: not hex: ${v.slice(0, 80)}`);
  }
}

function integer(v: AbiValue): bigint {
  if (typeof v !== "bigint" && !(typeof v === "number" && Number.isSafeInteger(v))) throw new AbiError(`not an integer: ${String(v)}`);
  return BigInt(v);
}

function staticWord(type: AbiType, v: AbiValue): Uint8Array {
  switch (type) {
    case "uint256":
      return word(integer(v));
    case "uint8": {
      const n = integer(v);
      if (n > 255n) throw new AbiError(`uint8 out of range: ${n}`);
      return word(n);
    }
    case "bool":
      return word(v ? 1n : 0n);
    case "address": {
      const b = typeof v === "string" ? bytesOf(v, "address") : new Uint8Array();
      if (b.length !== 20) throw new AbiError(`not an address: ${String(v)}`);
      const out = new Uint8Array(32);
      out.set(b, 12);
      return out;
    }
    case "bytes32": {
      const b = bytesOf(v, "bytes32");
      if (b.length !== 32) throw new AbiError("bytes32 must be 32 bytes");
      return b;
    }
    default:
      throw new AbiError(`${type} is not a static type`);
  }
}

const isDynamic = (t: AbiType): boolean => t === "bytes" || t === "string" || t.endsWith("[]");

function tail(type: AbiType, v: AbiValue): Uint8Array {
  if (type === "bytes" || type === "string") {
    if (type === "string" && typeof v !== "string") throw new AbiError(`string: not a string: ${String(v)}`);
    const b = type === "string" ? new TextEncoder().encode(v as string) : bytesOf(v, "bytes");
    const padded = new Uint8Array(Math.ceil(b.length / 32) * 32);
    padded.set(b);
    return concat([word(BigInt(b.length)), padded]);
  }
  const inner = type.slice(0, -2) as AbiType;
  if (!Array.isArray(v)) throw new AbiError(`${type}: not an array`);
  const items = v as readonly (bigint | string)[];
  return concat([word(BigInt(items.length)), ...items.map((x) => staticWord(inner, x))]);
}

/** ABI-encodes `values` as a tuple of `types` (function arguments, return values). */
export function encodeAbi(types: readonly AbiType[], values: readonly AbiValue[]): Uint8Array {
  if (types.length !== values.length) throw new AbiError("types and values differ in length");
  const heads: Uint8Array[] = [];
  const tails: Uint8Array[] = [];
  let offset = 32 * types.length;
  types.forEach((t, i) => {
    if (isDynamic(t)) {
      const body = tail(t, values[i]!);
      heads.push(word(BigInt(offset)));
      tails.push(body);
      offset += body.length;
    } else heads.push(staticWord(t, values[i]!));
  });
  return concat([...heads, ...tails]);
}

/** Calldata: selector ‖ encoded arguments, 0x-hex. */
export function encodeCall(signature: string, types: readonly AbiType[], values: readonly AbiValue[]): string {
  return selector(signature) + bytesToHex(encodeAbi(types, values));
}

function readWord(data: Uint8Array, at: number): bigint {
  if (at < 0 || at + 32 > data.length) throw new AbiError(`word at ${at} is past the data's ${data.length} bytes`);
  return BigInt("0x" + bytesToHex(data.subarray(at, at + 32)));
}

function readOffset(data: Uint8Array, at: number): number {
  const v = readWord(data, at);
  if (v > BigInt(data.length)) throw new AbiError(`offset ${v} is past the data's ${data.length} bytes`);
  return Number(v);
}

function decodeStatic(type: AbiType, data: Uint8Array, at: number): AbiValue {
  const w = readWord(data, at);
  switch (type) {
    case "uint256":
      return w;
    case "uint8":
      if (w > 255n) throw new AbiError("uint8 out of range");
      return Number(w);
    case "bool":
      if (w > 1n) throw new AbiError("bool out of range");
      return w === 1n;
    case "address":
      if (w >> 160n !== 0n) throw new AbiError("address has dirty high bytes");
      return "0x" + w.toString(16).padStart(40, "0");
    case "bytes32":
      return data.slice(at, at + 32);
    default:
      throw new AbiError(`${type} is not a static type`);
  }
}

/** Decodes a tuple of `types` from ABI data; AbiError for anything that does not fit. */
export function decodeAbi(types: readonly AbiType[], data: Uint8Array): AbiValue[] {
  return types.map((t, i) => {
    if (!isDynamic(t)) return decodeStatic(t, data, 32 * i);
    const start = readOffset(data, 32 * i);
    const len = readWord(data, start);
    if (t === "bytes" || t === "string") {
      if (len > BigInt(data.length - start - 32)) throw new AbiError(`${t} length ${len} is past the data`);
      const b = data.slice(start + 32, start + 32 + Number(len));
      if (t === "bytes") return b;
      return new TextDecoder("utf-8", {fatal: false}).decode(b);
    }
    if (len * 32n > BigInt(data.length - start - 32)) throw new AbiError(`array length ${len} is past the data`);
    const inner = t.slice(0, -2) as AbiType;
    const out: (bigint | string)[] = [];
    for (let k = 0; k < Number(len); k++) out.push(decodeStatic(inner, data, start + 32 + 32 * k) as bigint | string);
    return out;
  });
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
