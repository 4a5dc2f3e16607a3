/**
 * Response models of the `/v1` route table: each is a JSON Schema (what docs/api/openapi.json publishes) and a
 * TypeScript type (what the route's handler must return), from one declaration. The top level of each answer is
 * spelled out, field by field, as the hosted API's models name them (node_modules/@avalabs/glacier-sdk's
 * `generated/models`); the items inside it are named models (`named`), published by name.
 */

export type JsonSchema = Record<string, unknown>;

export interface Schema<T> {
  readonly json: JsonSchema;
  /** A field an answer may leave out (the model's `field?:`). */
  readonly optional: boolean;
  /** Named models this one refers to, by name: the document's `components.schemas`. */
  readonly components: ReadonlyMap<string, JsonSchema>;
  /** Never set: carries T for `Infer`. */
  readonly _type?: T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

const NONE: ReadonlyMap<string, JsonSchema> = new Map();

function leaf<T>(json: JsonSchema, components = NONE): Schema<T> {
  return {json, optional: false, components};
}

function merged(schemas: Iterable<Schema<unknown>>, own?: [string, JsonSchema]): ReadonlyMap<string, JsonSchema> {
  const out = new Map<string, JsonSchema>();
  for (const s of schemas) for (const [k, v] of s.components) out.set(k, v);
  if (own) out.set(own[0], own[1]);
  return out;
}

export const string = (description?: string): Schema<string> =>
  leaf({type: "string", ...(description ? {description} : {})});
export const integer = (description?: string): Schema<number> =>
  leaf({type: "integer", ...(description ? {description} : {})});
export const boolean = (): Schema<boolean> => leaf({type: "boolean"});

export function literals<const T extends readonly string[]>(values: T): Schema<T[number]> {
  return leaf({type: "string", enum: [...values]});
}

export function array<T>(item: Schema<T>): Schema<T[]> {
  return leaf({type: "array", items: item.json}, item.components);
}

export function optional<T>(s: Schema<T>): Schema<T | undefined> {
  return {...s, optional: true} as Schema<T | undefined>;
}

type Fields = Record<string, Schema<unknown>>;
type RequiredKeys<F extends Fields> = {[K in keyof F]: undefined extends Infer<F[K]> ? never : K}[keyof F];
type OptionalKeys<F extends Fields> = Exclude<keyof F, RequiredKeys<F>>;
type Flat<T> = {[K in keyof T]: T[K]};
export type ObjectOf<F extends Fields> = Flat<
  {[K in RequiredKeys<F>]: Infer<F[K]>} & {[K in OptionalKeys<F>]?: Infer<F[K]>}
>;

/** An object of these fields; the answer may carry more (avaext's documented extensions). */
function objectJson(fields: Fields, description?: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [k, s] of Object.entries(fields)) {
    properties[k] = s.json;
    if (!s.optional) required.push(k);
  }
  return {
    type: "object",
    ...(description ? {description} : {}),
    properties,
    ...(required.length > 0 ? {required} : {}),
  };
}

export function object<F extends Fields>(fields: F, description?: string): Schema<ObjectOf<F>> {
  return leaf(objectJson(fields, description), merged(Object.values(fields)));
}

/** A named model with its fields: published once under components.schemas, referred to by `$ref`. */
export function model<F extends Fields>(name: string, fields: F, description?: string): Schema<ObjectOf<F>> {
  return leaf({$ref: ref(name)}, merged(Object.values(fields), [name, objectJson(fields, description)]));
}

/**
 * A named model whose fields are the hosted API's (the SDK model of that name): `required` lists the fields every
 * answer carries, the rest are not spelled out here, and the handler's value passes through, typed by the query
 * that built it.
 */
export function named<T extends object = object>(
  name: string,
  description: string,
  required: readonly string[] = [],
): Schema<T> {
  const json: JsonSchema = {
    type: "object",
    description: `${description} (the hosted API's ${name})`,
    ...(required.length > 0 ? {required: [...required]} : {}),
  };
  return leaf({$ref: ref(name)}, new Map([[name, json]]));
}

/** Any of these models (the SDK's `A | B` answers, such as the P-chain's and the X-chain's UTXO lists). */
export function anyOf<S extends Schema<unknown>[]>(...members: S): Schema<Infer<S[number]>> {
  return leaf({anyOf: members.map((m) => m.json)}, merged(members));
}

function ref(name: string): string {
  return `#/components/schemas/${name}`;
}
