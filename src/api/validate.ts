/**
 * Typed params validators: each turns an untrusted JSON value into a typed value or throws -32602 naming the
 * field. Composed per method, so a method's table entry says exactly what it accepts (docs/api/http.md).
 *
 * JSON `null` counts as absent, as Go's encoding/json leaves a field at its zero value for null.
 */
import {parseLogLevel, type LogLevel} from "../logger/index.js";
import {idFromString} from "../util/cb58.js";
import {invalidParams} from "./errors.js";

/** Parses a value or throws RpcErrorReply(-32602). `field` is the dotted path used in the message. */
export type Validator<T> = (value: unknown, field: string) => T;

interface Field<T> {
  validate: Validator<T>;
  required: boolean;
  default?: T;
}

type Shape = Record<string, Field<unknown>>;
export type Infer<S extends Shape> = {[K in keyof S]: S[K] extends Field<infer T> ? T : never};

export function required<T>(validate: Validator<T>): Field<T> {
  return {validate, required: true};
}

/** Optional field; absent or null gives `fallback`. */
export function optional<T>(validate: Validator<T>): Field<T | undefined>;
export function optional<T>(validate: Validator<T>, fallback: T): Field<T>;
export function optional<T>(validate: Validator<T>, fallback?: T): Field<T | undefined> {
  return {validate, required: false, default: fallback};
}

/**
 * Normalises JSON-RPC `params` to an object: absent/null/[] → {}; an object; or an array whose first element is
 * that object (AvalancheGo's by-position fallback; later elements are ignored).
 */
export function paramsObject(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (Array.isArray(raw)) {
    if (raw.length === 0 || raw[0] === null) return {};
    if (isPlainObject(raw[0])) return raw[0];
    throw invalidParams(null, "params must be an object or an array holding one object");
  }
  if (isPlainObject(raw)) return raw;
  throw invalidParams(null, "params must be an object or an array holding one object");
}

/** An object params validator; unknown keys are ignored (as AvalancheGo). */
export function object<S extends Shape>(shape: S): Validator<Infer<S>> {
  const entries = Object.entries(shape);
  return (raw: unknown): Infer<S> => {
    const obj = paramsObject(raw);
    const out: Record<string, unknown> = {};
    for (const [key, field] of entries) {
      const v = obj[key];
      if (v === undefined || v === null) {
        if (field.required) throw invalidParams(key, "missing required field");
        out[key] = field.default;
      } else {
        out[key] = field.validate(v, key);
      }
    }
    return out as Infer<S>;
  };
}

/** Params for methods that take none: anything object-shaped is accepted and ignored. */
export const noParams: Validator<Record<string, never>> = (raw) => {
  paramsObject(raw);
  return {};
};

export const string: Validator<string> = (v, field) => {
  if (typeof v !== "string") throw invalidParams(field, `expected a string, got ${jsonType(v)}`);
  return v;
};

export function arrayOf<T>(item: Validator<T>): Validator<T[]> {
  return (v, field) => {
    if (!Array.isArray(v)) throw invalidParams(field, `expected an array, got ${jsonType(v)}`);
    return v.map((x, i) => item(x, `${field}[${i}]`));
  };
}

const UINT64_MAX = (1n << 64n) - 1n;
const DECIMAL_RE = /^[0-9]+$/;
/** Digits of 2^64-1 (18446744073709551615). */
const UINT64_MAX_DIGITS = 20;

function countLeadingZeros(s: string): number {
  let i = 0;
  while (i < s.length && s.charCodeAt(i) === 48) i++;
  return i;
}

/** uint64 as a JSON number or a decimal string (leading zeros allowed), as AvalancheGo's json.Uint64. */
export const uint64: Validator<bigint> = (v, field) => {
  let n: bigint;
  if (typeof v === "number") {
    if (!Number.isInteger(v) || v < 0) throw invalidParams(field, `expected a non-negative integer, got ${v}`);
    if (!Number.isSafeInteger(v))
      throw invalidParams(field, `${v} loses precision as a JSON number; pass it as a decimal string`);
    n = BigInt(v);
  } else if (typeof v === "string") {
    if (!DECIMAL_RE.test(v))
      throw invalidParams(field, `expected a decimal unsigned integer, got ${JSON.stringify(v)}`);
    // BigInt() is superlinear in the digits (a 1 MiB string took 0.2 s): anything past 20 significant digits
    // cannot fit, so it is refused without converting it.
    if (v.length > UINT64_MAX_DIGITS && v.length - countLeadingZeros(v) > UINT64_MAX_DIGITS) {
      throw invalidParams(field, `${v.length > 64 ? v.slice(0, 64) + "..." : v} does not fit in uint64`);
    }
    n = BigInt(v);
  } else {
    throw invalidParams(field, `expected an unsigned integer (number or decimal string), got ${jsonType(v)}`);
  }
  if (n > UINT64_MAX) throw invalidParams(field, `${v} does not fit in uint64`);
  return n;
};

/** A string parsed by `parse`, whose thrown message (AvalancheGo's text) becomes the -32602 reason. */
export function parsedString<T>(parse: (s: string) => T): Validator<T> {
  return (v, field) => {
    const s = string(v, field);
    try {
      return parse(s);
    } catch (e) {
      throw invalidParams(field, (e as Error).message);
    }
  };
}

/** A CB58 ID (32 bytes + checksum); the reason is AvalancheGo's ids.FromString text. */
export const cb58Id: Validator<Uint8Array> = parsedString(idFromString);

/** One of a fixed set of strings, matched case-insensitively, returned in canonical form. */
export function oneOf<T extends string>(values: readonly T[], what: string): Validator<T> {
  const byLower = new Map(values.map((x) => [x.toLowerCase(), x]));
  return (v, field) => {
    const s = string(v, field);
    const hit = byLower.get(s.toLowerCase());
    if (hit === undefined)
      throw invalidParams(field, `${what} ${JSON.stringify(s)}; expected one of ${values.join(", ")}`);
    return hit;
  };
}

/** A log level name, case-insensitive; the reason is AvalancheGo's `unknown log level: "<s>"`. */
export const logLevel: Validator<LogLevel> = parsedString(parseLogLevel);

export function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
