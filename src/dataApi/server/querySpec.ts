/**
 * The query parameters of a `/v1` route, declared once: how the router parses each (params.ts `Query`, whose 400
 * messages name the parameter) and how docs/api/openapi.json describes it (type, range, default, enum, array
 * encoding). A route's handler reads only what its entry declares (`ctx.query.<name>`), each parsed when first read,
 * so the handler's order of checks, and so which 400 or 404 a request with several faults gets, is the handler's.
 */
import {badRequest} from "./errors.js";
import type {Query} from "./params.js";
import type {JsonSchema} from "./schema.js";

export interface ParamDoc {
  schema: JsonSchema;
  required?: boolean;
  description?: string;
  /** Arrays: a comma list (`a,b`); the router takes repeated keys (`?k=a&k=b`) as well. */
  explode?: false;
  /** avaext's own parameter, beyond the hosted API's. */
  extension?: boolean;
  /**
   * A path parameter's check, run by the router before the handler (a 400 naming it): for what every route that
   * takes the parameter must refuse, such as a block number the store's int8 columns cannot hold.
   */
  check?: (name: string, value: string) => void;
}

export interface QueryParam<T> {
  parse(q: Query, name: string): T;
  doc: ParamDoc;
}

export type QuerySpec = Record<string, QueryParam<unknown>>;
export type QueryValues<Q extends QuerySpec> = {readonly [K in keyof Q]: Q[K] extends QueryParam<infer T> ? T : never};

const described = (description: string | undefined): {description?: string} => (description ? {description} : {});

/** An integer in [min, max] (min 0 by default). */
export function int(
  o: {min?: number; max?: number; default?: number; description?: string} = {},
): QueryParam<number | undefined> {
  return {
    parse: (q, name) => q.int(name, o),
    doc: {
      schema: {
        type: "integer",
        minimum: o.min ?? 0,
        ...(o.max !== undefined ? {maximum: o.max} : {}),
        ...(o.default !== undefined ? {default: o.default} : {}),
      },
      ...described(o.description),
    },
  };
}

export function requiredInt(o: {min?: number; max?: number; description?: string} = {}): QueryParam<number> {
  return {
    parse: (q, name) => q.requiredInt(name, o),
    doc: {
      schema: {type: "integer", minimum: o.min ?? 0, ...(o.max !== undefined ? {maximum: o.max} : {})},
      required: true,
      ...described(o.description),
    },
  };
}

/** A string (an empty value counts as absent); its format is the handler's to check. */
export function text(description?: string): QueryParam<string | undefined> {
  return {parse: (q, name) => q.string(name), doc: {schema: {type: "string"}, ...described(description)}};
}

export function flag(dflt: boolean, description?: string): QueryParam<boolean> {
  return {
    parse: (q, name) => q.boolean(name, dflt),
    doc: {schema: {type: "boolean", default: dflt}, ...described(description)},
  };
}

/** true or false, undefined when absent (a flag whose default is another's value). */
export function maybeFlag(description?: string): QueryParam<boolean | undefined> {
  return {
    parse: (q, name) => (q.string(name) === undefined ? undefined : q.boolean(name)),
    doc: {schema: {type: "boolean"}, ...described(description)},
  };
}

/** A list of strings that must not be empty (400 `<name>: required`). */
export function requiredList(description?: string): QueryParam<string[]> {
  return {
    parse: (q, name) => {
      const v = q.list(name);
      if (v.length === 0) throw badRequest(name, "required");
      return v;
    },
    doc: {schema: {type: "array", items: {type: "string"}}, explode: false, required: true, ...described(description)},
  };
}

/** avaext's own parameter: the hosted API has no such one. */
export function extension<T>(p: QueryParam<T>): QueryParam<T> {
  return {...p, doc: {...p.doc, extension: true}};
}

/** One of `values`, or `dflt` when absent. */
export function choice<const T extends readonly string[], D extends T[number] | undefined = undefined>(
  values: T,
  o: {default?: D; description?: string} = {},
): QueryParam<D extends string ? T[number] : T[number] | undefined> {
  return {
    parse: (q, name) => q.enumValue(name, values, o.default) as D extends string ? T[number] : T[number] | undefined,
    doc: {
      schema: {type: "string", enum: [...values], ...(o.default !== undefined ? {default: o.default} : {})},
      ...described(o.description),
    },
  };
}

/** `sortOrder`: asc or desc, desc when absent. */
export function sortOrder(description?: string): QueryParam<"asc" | "desc"> {
  return {
    parse: (q) => q.sortOrder(),
    doc: {schema: {type: "string", enum: ["asc", "desc"], default: "desc"}, ...described(description)},
  };
}

/** An array of strings: a comma list or repeated keys, empty items dropped; their format is the handler's. */
export function list(description?: string): QueryParam<string[]> {
  return {
    parse: (q, name) => q.list(name),
    doc: {schema: {type: "array", items: {type: "string"}}, explode: false, ...described(description)},
  };
}

/** An array of values among `values` (400 naming the first unknown one). */
export function choices<const T extends readonly string[]>(values: T, description?: string): QueryParam<T[number][]> {
  return {
    parse: (q, name) => q.enumList(name, values),
    doc: {
      schema: {type: "array", items: {type: "string", enum: [...values]}},
      explode: false,
      ...described(description),
    },
  };
}

/** A Unix timestamp (an integer >= 0), inclusive; `notAfter` names the bound it must not pass. */
export function timestamp(o: {notAfter?: string; description?: string} = {}): QueryParam<number | undefined> {
  return {
    parse: (q, name) => {
      const v = q.int(name);
      if (o.notAfter !== undefined) {
        const other = q.int(o.notAfter);
        if (v !== undefined && other !== undefined && v > other) throw orderError(name, o.notAfter, v, other);
      }
      return v;
    },
    doc: {schema: {type: "integer", minimum: 0}, ...described(o.description)},
  };
}

/** A block number (an integer in [0, 2^63-1], as a bigint); `notAfter` names the bound it must not pass. */
export function blockNumber(o: {notAfter?: string; description?: string} = {}): QueryParam<bigint | undefined> {
  return {
    parse: (q, name) => {
      const v = q.blockNumber(name);
      if (o.notAfter !== undefined) {
        const other = q.blockNumber(o.notAfter);
        if (v !== undefined && other !== undefined && v > other) throw orderError(name, o.notAfter, v, other);
      }
      return v;
    },
    // int64: the bound, which a JSON number cannot spell exactly (2^63-1 is not a double).
    doc: {schema: {type: "integer", format: "int64", minimum: 0}, ...described(o.description)},
  };
}

/**
 * A parameter of the hosted API that avaext accepts and does not apply (it keeps no prices, no spam list): listed so
 * that a client's request is documented as served, and `reason` says what is answered instead.
 */
export function ignored(reason: string, schema: JsonSchema = {type: "string"}): QueryParam<never> {
  return {
    parse: () => {
      throw new Error("an ignored parameter is not read");
    },
    doc: {schema, description: `Accepted and ignored: ${reason}`},
  };
}

function orderError(name: string, other: string, v: number | bigint, o: number | bigint): Error {
  return badRequest(name, `must be <= ${other} (${v} > ${o})`);
}
