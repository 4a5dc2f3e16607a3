/**
 * Query parameters of the data API, parsed into typed values or a 400 naming the parameter: integers with ranges,
 * block numbers, sort order, enums, arrays given as a repeated key or a comma list. What each route takes is its
 * entry's (querySpec.ts builds on these); unknown parameters are ignored.
 */
import {badRequest} from "./errors.js";

const INT_RE = /^(0|[1-9][0-9]*)$/;

/**
 * The largest block number the stores take: their columns are PostgreSQL `int8` (store/schema.ts), where a larger
 * value fails the query (22003, numeric out of range). A larger number is the client's fault, so a 400 before SQL.
 */
export const MAX_BLOCK_NUMBER = 2n ** 63n - 1n;

/** Whether `v` is written as a block number (decimal digits, no leading zero), whatever its size. */
export function looksLikeBlockNumber(v: string): boolean {
  return INT_RE.test(v);
}

/** A 400 naming `name` when `v` is all digits and past 2^63-1 (a path parameter that is a number or an ID). */
export function checkBlockNumberBound(name: string, v: string): void {
  if (/^[0-9]+$/.test(v) && BigInt(v.length <= 40 ? v : "1" + "0".repeat(40)) > MAX_BLOCK_NUMBER) {
    throw badRequest(name, `must be a block number at most ${MAX_BLOCK_NUMBER} (2^63-1)`);
  }
}

/** `v` as a block number in [0, 2^63-1], else a 400 naming `name`. */
export function parseBlockNumber(name: string, v: string): bigint {
  if (!INT_RE.test(v)) throw badRequest(name, "must be a block number (an integer >= 0)");
  // 20 digits at most before BigInt, so a megabyte of digits costs nothing.
  const n = v.length <= 20 ? BigInt(v) : MAX_BLOCK_NUMBER + 1n;
  if (n > MAX_BLOCK_NUMBER) throw badRequest(name, `must be a block number at most ${MAX_BLOCK_NUMBER} (2^63-1)`);
  return n;
}

export class Query {
  constructor(readonly raw: URLSearchParams) {}

  /** The last value given for `name`, or undefined (an empty value counts as absent). */
  string(name: string): string | undefined {
    const all = this.raw.getAll(name);
    const v = all[all.length - 1];
    return v === undefined || v === "" ? undefined : v;
  }

  requiredString(name: string): string {
    const v = this.string(name);
    if (v === undefined) throw badRequest(name, "required");
    return v;
  }

  /** A non-negative integer within [min, max]. */
  int(name: string, o: {min?: number; max?: number; default?: number} = {}): number | undefined {
    const v = this.string(name);
    if (v === undefined) return o.default;
    const min = o.min ?? 0;
    const max = o.max ?? Number.MAX_SAFE_INTEGER;
    if (!INT_RE.test(v) || Number(v) < min || Number(v) > max) {
      throw badRequest(
        name,
        o.max !== undefined ? `must be an integer in [${min},${max}]` : `must be an integer >= ${min}`,
      );
    }
    return Number(v);
  }

  requiredInt(name: string, o: {min?: number; max?: number} = {}): number {
    const v = this.int(name, o);
    if (v === undefined) throw badRequest(name, "required");
    return v;
  }

  pageSize(max = 100): number {
    return this.int("pageSize", {min: 1, max, default: 10})!;
  }

  sortOrder(): "asc" | "desc" {
    const v = this.string("sortOrder");
    if (v === undefined) return "desc";
    if (v !== "asc" && v !== "desc") throw badRequest("sortOrder", `must be asc or desc, not ${JSON.stringify(v)}`);
    return v;
  }

  /** A block number in [0, 2^63-1] (`parseBlockNumber`). */
  blockNumber(name: string): bigint | undefined {
    const v = this.string(name);
    return v === undefined ? undefined : parseBlockNumber(name, v);
  }

  boolean(name: string, dflt = false): boolean {
    const v = this.string(name);
    if (v === undefined) return dflt;
    if (v === "true") return true;
    if (v === "false") return false;
    throw badRequest(name, `must be true or false, not ${JSON.stringify(v)}`);
  }

  enumValue<T extends string>(name: string, allowed: readonly T[], dflt?: T): T | undefined {
    const v = this.string(name);
    if (v === undefined) return dflt;
    if (!(allowed as readonly string[]).includes(v))
      throw badRequest(name, `unknown value ${JSON.stringify(v)} (one of ${allowed.join(", ")})`);
    return v as T;
  }

  /** Values of an array parameter: repeated keys and comma lists alike, empty items dropped. */
  list(name: string): string[] {
    return this.raw
      .getAll(name)
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter((v) => v !== "");
  }

  /** An array parameter whose values must be among `allowed` (400 naming the first unknown one). */
  enumList<T extends string>(name: string, allowed: readonly T[]): T[] {
    const values = this.list(name);
    for (const v of values)
      if (!(allowed as readonly string[]).includes(v)) throw badRequest(name, `unknown value ${JSON.stringify(v)}`);
    return values as T[];
  }
}
