/**
 * The few Solidity ABI shapes the data API reads and the dev network writes: 32-byte words (uint, address, bool,
 * bytes32), dynamic `bytes`/`string`, and arrays of words. Decoding checks every offset and length against the
 * data (a contract's return value or a log is untrusted input) and throws AbiError instead of reading past it.
 */
import {keccak_256} from "@noble/hashes/sha3.js";
import {bytesToHex, hexToBytes} from "./hex.js";

export class AbiError extends Error {}

export type AbiType =
  | "uint256"
  | "uint8"
  | "address"
  | "bool"
  | "bytes32"
  | "bytes"
  | "string"
  | "uint256[]"
  | "address[]";
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
  if (typeof v !== "bigint" && !(typeof v === "number" && Number.isSafeInteger(v)))
    throw new AbiError(`not an integer: ${String(v)}`);
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

// ---- Structured types: tuples (structs), arrays of tuples, nested arrays ----

/**
 * A Solidity type for the structured coder: any AbiType, a tuple (a struct, its components in order) or a dynamic
 * array of any spec. `{array: {tuple: [...]}}` is `(…)[]`.
 */
export type AbiSpec = AbiType | "bytes32[]" | {readonly tuple: readonly AbiSpec[]} | {readonly array: AbiSpec};

/** A value of an AbiSpec: tuples and arrays are arrays (a tuple's components in order). */
export type AbiStructValue = bigint | number | string | boolean | Uint8Array | readonly AbiStructValue[];

type Norm =
  | {readonly k: "word"; readonly t: AbiType}
  | {readonly k: "bytes" | "string"}
  | {readonly k: "array"; readonly of: Norm}
  | {readonly k: "tuple"; readonly of: readonly Norm[]};

function norm(s: AbiSpec): Norm {
  if (typeof s === "string") {
    if (s === "bytes" || s === "string") return {k: s};
    if (s.endsWith("[]")) return {k: "array", of: norm(s.slice(0, -2) as AbiType)};
    return {k: "word", t: s as AbiType};
  }
  if ("tuple" in s) return {k: "tuple", of: s.tuple.map(norm)};
  return {k: "array", of: norm(s.array)};
}

const dyn = (n: Norm): boolean =>
  n.k === "bytes" || n.k === "string" || n.k === "array" || (n.k === "tuple" && n.of.some(dyn));

/** Bytes a value of `n` takes in its enclosing tuple's head: 32 for words and dynamic types, the sum for static tuples. */
function headSize(n: Norm): number {
  if (n.k === "tuple" && !dyn(n)) return n.of.reduce((a, c) => a + headSize(c), 0);
  return 32;
}

function encodeTupleN(comps: readonly Norm[], values: readonly AbiStructValue[]): Uint8Array {
  if (comps.length !== values.length)
    throw new AbiError(`tuple of ${comps.length} components given ${values.length} values`);
  const heads: Uint8Array[] = [];
  const tails: Uint8Array[] = [];
  let offset = comps.reduce((a, c) => a + headSize(c), 0);
  comps.forEach((c, i) => {
    const body = encodeN(c, values[i]!);
    if (dyn(c)) {
      heads.push(word(BigInt(offset)));
      tails.push(body);
      offset += body.length;
    } else heads.push(body);
  });
  return concat([...heads, ...tails]);
}

function encodeN(n: Norm, v: AbiStructValue): Uint8Array {
  switch (n.k) {
    case "word":
      return staticWord(n.t, v as AbiValue);
    case "bytes":
    case "string":
      return tail(n.k, v as AbiValue);
    case "array":
      if (!Array.isArray(v)) throw new AbiError("array: not an array");
      return concat([
        word(BigInt(v.length)),
        encodeTupleN(
          v.map(() => n.of),
          v as readonly AbiStructValue[],
        ),
      ]);
    case "tuple":
      if (!Array.isArray(v)) throw new AbiError("tuple: not an array of components");
      return encodeTupleN(n.of, v as readonly AbiStructValue[]);
  }
}

/** ABI-encodes `values` as a tuple of `specs` (as abi.encode(...) does; a struct argument is a tuple). */
export function encodeAbiSpec(specs: readonly AbiSpec[], values: readonly AbiStructValue[]): Uint8Array {
  return encodeTupleN(specs.map(norm), values);
}

/** Calldata with structured arguments: selector ‖ encodeAbiSpec(specs, values), 0x-hex. */
export function encodeCallSpec(
  signature: string,
  specs: readonly AbiSpec[],
  values: readonly AbiStructValue[],
): string {
  return selector(signature) + bytesToHex(encodeAbiSpec(specs, values));
}

interface DecodeState {
  readonly data: Uint8Array;
  /** Work left: bounds what overlapping offsets can make a decoder produce from a small input. */
  budget: number;
}

function spend(st: DecodeState, units: number): void {
  st.budget -= units;
  if (st.budget < 0) throw new AbiError("the data decodes to more than it holds (overlapping offsets)");
}

function decodeTupleN(st: DecodeState, comps: readonly Norm[], base: number): AbiStructValue[] {
  const out: AbiStructValue[] = [];
  let p = base;
  for (const c of comps) {
    if (dyn(c)) {
      const off = readWord(st.data, p);
      if (off > BigInt(st.data.length - base))
        throw new AbiError(`offset ${off} is past the data's ${st.data.length} bytes`);
      out.push(decodeN(st, c, base + Number(off)));
    } else out.push(decodeN(st, c, p));
    p += headSize(c);
  }
  return out;
}

function decodeN(st: DecodeState, n: Norm, at: number): AbiStructValue {
  spend(st, 1);
  const data = st.data;
  switch (n.k) {
    case "word":
      return decodeStatic(n.t, data, at) as AbiStructValue;
    case "bytes":
    case "string": {
      const len = readWord(data, at);
      if (len > BigInt(data.length - at - 32)) throw new AbiError(`${n.k} length ${len} is past the data`);
      spend(st, Math.ceil(Number(len) / 32));
      const b = data.slice(at + 32, at + 32 + Number(len));
      return n.k === "bytes" ? b : new TextDecoder("utf-8", {fatal: false}).decode(b);
    }
    case "array": {
      const len = readWord(data, at);
      const size = headSize(n.of);
      if (len * BigInt(size) > BigInt(data.length - at - 32))
        throw new AbiError(`array length ${len} is past the data`);
      const count = Number(len);
      spend(st, count);
      return decodeTupleN(
        st,
        Array.from({length: count}, () => n.of),
        at + 32,
      );
    }
    case "tuple":
      return decodeTupleN(st, n.of, at);
  }
}

/**
 * Decodes a tuple of `specs` from ABI data (a log's data, a return value), checking every offset and length against
 * the data; AbiError for anything that does not fit. Tuples and arrays come back as arrays.
 */
export function decodeAbiSpec(specs: readonly AbiSpec[], data: Uint8Array): AbiStructValue[] {
  const st: DecodeState = {data, budget: 2 * Math.ceil(data.length / 32) + 16};
  return decodeTupleN(st, specs.map(norm), 0);
}
