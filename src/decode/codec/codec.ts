/**
 * Combinators for AvalancheGo's linear codec (codec/linearcodec, codec/reflectcodec): big-endian integers, `u32
 * length ‖ bytes` slices, `u16 length ‖ utf8` strings, fixed arrays, structs as their fields in order, and interface
 * values as `u32 typeID ‖ value` by the codec's registration order. One definition of a format gives its three
 * uses: `read` builds the value, `skip` steps over it without building anything (framing: where a tx ends), `write`
 * encodes a value back to the same bytes. As ChainSafe/ssz's types do for SSZ, a field's type carries all three.
 *
 * The readers and skippers of structs, slices and unions are generated, one function each with its fields' calls
 * written out (as protobufjs and avsc generate theirs): a generic loop over fields would share one call site among
 * every struct, which V8 then cannot inline, and build each value's object key by key. Only this file's own field
 * names and numbers go into the generated code.
 */
import {DecodeError, Reader, Writer} from "../reader.js";

export interface Codec<T> {
  read(r: Reader): T;
  skip(r: Reader): void;
  write(w: Writer, v: T): void;
  /** Encoded size when every value has the same one (a fixed struct is then skipped in one step), else null. */
  readonly size: number | null;
  /** For a primitive: the expression that reads it from `r`, written into the generated readers. */
  readonly expr?: string;
}

export type ValueOf<C> = C extends Codec<infer T> ? T : never;

function codec<T>(
  size: number | null,
  read: (r: Reader) => T,
  write: (w: Writer, v: T) => void,
  skip?: (r: Reader) => void,
  expr?: string,
): Codec<T> {
  const s = skip ?? (size !== null ? (r: Reader) => r.skip(size) : (r: Reader) => void read(r));
  return expr === undefined ? {size, read, skip: s, write} : {size, read, skip: s, write, expr};
}

/** A function generated from `body`, with `bound` as the constants it refers to. */
function generate<F>(bound: Record<string, unknown>, body: string): F {
  return new Function(...Object.keys(bound), body)(...Object.values(bound)) as F;
}

/** The expression reading one value of `c`, bound as `name` when it is not a primitive. */
function readExpr(c: Codec<unknown>, name: string, bound: Record<string, unknown>): string {
  if (c.expr !== undefined) return c.expr;
  bound[name] = c;
  return `${name}.read(r)`;
}

/** The statement stepping over one value of `c`. */
function skipStmt(c: Codec<unknown>, name: string, bound: Record<string, unknown>): string {
  if (c.size !== null) return `r.skip(${c.size});`;
  bound[name] = c;
  return `${name}.skip(r);`;
}

export const u8: Codec<number> = codec(
  1,
  (r) => r.u8(),
  (w, v) => w.u8(v),
  undefined,
  "r.u8()",
);
export const u16: Codec<number> = codec(
  2,
  (r) => r.u16(),
  (w, v) => w.u16(v),
  undefined,
  "r.u16()",
);
export const u32: Codec<number> = codec(
  4,
  (r) => r.u32(),
  (w, v) => w.u32(v),
  undefined,
  "r.u32()",
);
export const u64: Codec<bigint> = codec(
  8,
  (r) => r.u64(),
  (w, v) => w.u64(v),
  undefined,
  "r.u64()",
);

/** A byte that is 0 or 1 (utils/wrappers Packer.UnpackBool). */
export const bool: Codec<boolean> = codec(
  1,
  (r) => {
    const b = r.u8();
    if (b > 1) throw new DecodeError(`bool byte ${b}`);
    return b === 1;
  },
  (w, v) => w.u8(v ? 1 : 0),
);

/** `n` bytes (an ID, a key, a signature); read as a view into the input, not a copy. */
export function fixed(n: number): Codec<Uint8Array> {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`fixed(${n})`);
  const write = (w: Writer, v: Uint8Array): void => {
    if (v.length !== n) throw new RangeError(`expected ${n} bytes, not ${v.length}`);
    w.fixed(v);
  };
  return codec(n, (r) => r.fixed(n), write, undefined, `r.fixed(${n})`);
}

/** `[]byte`: `u32 length ‖ bytes`. */
export const bytes: Codec<Uint8Array> = codec(
  null,
  (r) => r.bytesU32(),
  (w, v) => w.bytesU32(v),
  (r) => r.skip(r.u32()),
  "r.bytesU32()",
);

/** `string`: `u16 length ‖ utf8`. */
export const str: Codec<string> = codec(
  null,
  (r) => r.str(),
  (w, v) => w.str(v),
  (r) => r.skip(r.u16()),
  "r.str()",
);

/** A slice: `u32 count ‖ elements`; the count is bounded by the input before anything is allocated. */
export function array<T>(of: Codec<T>): Codec<T[]> {
  const bound: Record<string, unknown> = {};
  const read = generate<(r: Reader) => T[]>(
    bound,
    `return function readArray(r) {
      const n = r.sliceLength();
      const out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = ${readExpr(of, "of", bound)};
      return out;
    };`,
  );
  const size = of.size;
  const skip =
    size !== null
      ? (r: Reader): void => r.skip(r.sliceLength() * size)
      : generate<(r: Reader) => void>(
          {of},
          `return function skipArray(r) {
            const n = r.sliceLength();
            for (let i = 0; i < n; i++) of.skip(r);
          };`,
        );
  const write = (w: Writer, v: T[]): void => {
    w.u32(v.length);
    for (const x of v) of.write(w, x);
  };
  return codec(null, read, write, skip);
}

// biome-ignore lint/suspicious/noExplicitAny: a struct's fields are codecs of their own types, read by Struct<F>.
type Fields = Record<string, Codec<any>>;
export type StructValue<F extends Fields> = {[K in keyof F]: ValueOf<F[K]>};
export type StructCodec<F extends Fields> = Codec<StructValue<F>> & {readonly fields: F};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A struct: its fields in declaration order, nothing between them (an embedded Go struct is a field of its own
 * here, as `base` for avax.BaseTx). Runs of fixed-size fields are skipped in one step.
 */
export function struct<F extends Fields>(fields: F): StructCodec<F> {
  const keys = Object.keys(fields);
  for (const k of keys) if (!IDENTIFIER.test(k)) throw new Error(`struct field name ${JSON.stringify(k)}`);
  const codecs = keys.map((k) => fields[k]!);
  const fixedSize = codecs.every((c) => c.size !== null) ? codecs.reduce((n, c) => n + c.size!, 0) : null;

  const readBound: Record<string, unknown> = {};
  const members = keys.map((k, i) => `${k}: ${readExpr(codecs[i]!, `c${i}`, readBound)}`);
  // Object literal members are evaluated in order: the fields are read in the order of the bytes.
  const read = generate<(r: Reader) => StructValue<F>>(
    readBound,
    `return function readStruct(r) { return {${members.join(", ")}}; };`,
  );

  // Runs of fixed fields become one skip.
  const skipBound: Record<string, unknown> = {};
  const steps: string[] = [];
  let run = 0;
  codecs.forEach((c, i) => {
    if (c.size !== null) run += c.size;
    else {
      if (run > 0) steps.push(`r.skip(${run});`);
      run = 0;
      steps.push(skipStmt(c, `c${i}`, skipBound));
    }
  });
  if (run > 0) steps.push(`r.skip(${run});`);
  const skip = generate<(r: Reader) => void>(skipBound, `return function skipStruct(r) { ${steps.join(" ")} };`);

  const write = (w: Writer, v: StructValue<F>): void => {
    for (let i = 0; i < keys.length; i++) codecs[i]!.write(w, (v as Record<string, unknown>)[keys[i]!]);
  };
  return {...codec(fixedSize, read, write, skip), fields};
}

/** One registered type of an interface: its name (AvalancheGo's Go type) and its codec. */
export interface Entry<N extends string, T> {
  readonly name: N;
  readonly codec: Codec<T>;
}

export function entry<N extends string, T>(name: N, c: Codec<T>): Entry<N, T> {
  return {name, codec: c};
}

/** A value of an interface: the type ID it was registered under, that type's name and its value. */
export interface Variant<Id extends number, N extends string, T> {
  readonly typeId: Id;
  readonly type: N;
  readonly value: T;
}

// biome-ignore lint/suspicious/noExplicitAny: a union's entries are codecs of their own types, read by Union<E>.
type Entries = Record<number, Entry<string, any>>;
export type UnionValue<E extends Entries> = {
  [K in keyof E & number]: E[K] extends Entry<infer N, infer T> ? Variant<K, N, T> : never;
}[keyof E & number];
export type UnionCodec<E extends Entries> = Codec<UnionValue<E>> & {readonly entries: E};

/**
 * An interface field (`u32 typeID ‖ value`), with the types the codec accepts there by their registration IDs. A type
 * ID outside the table does not decode: "unknown `label` N". `tag` is u16 for a choice by codec version.
 */
export function union<E extends Entries>(label: string, entries: E, tag: Codec<number> = u32): UnionCodec<E> {
  const ids = Object.keys(entries).map(Number);
  const unknown = (t: number): never => {
    throw new DecodeError(`unknown ${label} ${t}`);
  };
  const lookup = (t: number): Entry<string, unknown> => entries[t] ?? unknown(t);
  const tagExpr = tag.expr ?? "tag.read(r)";

  const readBound: Record<string, unknown> = {unknown, tag};
  const readCases = ids.map((id) => {
    const e = entries[id]!;
    readBound[`n${id}`] = e.name;
    return `case ${id}: return {typeId: ${id}, type: n${id}, value: ${readExpr(e.codec, `c${id}`, readBound)}};`;
  });
  const read = generate<(r: Reader) => UnionValue<E>>(
    readBound,
    `return function readUnion(r) { const t = ${tagExpr}; switch (t) { ${readCases.join(" ")} default: return unknown(t); } };`,
  );

  const skipBound: Record<string, unknown> = {unknown, tag};
  const skipCases = ids.map((id) => `case ${id}: ${skipStmt(entries[id]!.codec, `c${id}`, skipBound)} return;`);
  const skip = generate<(r: Reader) => void>(
    skipBound,
    `return function skipUnion(r) { const t = ${tagExpr}; switch (t) { ${skipCases.join(" ")} default: unknown(t); } };`,
  );

  const write = (w: Writer, v: UnionValue<E>): void => {
    tag.write(w, v.typeId);
    lookup(v.typeId).codec.write(w, v.value);
  };
  return {...codec(null, read, write, skip), entries};
}

/** A value with the bytes it was read from (a UTXO's output, kept as is for `utxoBytes`). Writes the value. */
export interface Spanned<T> {
  readonly value: T;
  readonly bytes: Uint8Array;
}

export function spanned<T>(of: Codec<T>): Codec<Spanned<T>> {
  const bound: Record<string, unknown> = {};
  const read = generate<(r: Reader) => Spanned<T>>(
    bound,
    `return function readSpanned(r) {
      const start = r.pos;
      const value = ${readExpr(of, "of", bound)};
      return {value, bytes: r.bytes.subarray(start, r.pos)};
    };`,
  );
  return codec(of.size, read, (w, v) => of.write(w, v.value), of.skip);
}

/**
 * A value left encoded: its bytes, found by stepping over it with `of` (framing: a block's txs as byte ranges).
 * Writes the bytes as they are.
 */
export function raw(of: Codec<unknown>): Codec<Uint8Array> {
  const skip = of.skip;
  return codec(
    of.size,
    (r) => {
      const start = r.pos;
      skip(r);
      return r.bytes.subarray(start, r.pos);
    },
    (w, v) => w.fixed(v),
    skip,
  );
}

/** `u16 codec version ‖ value`, with version 0 the only one (every primary-network codec's today). */
export function versioned<T>(label: string, of: Codec<T>): Codec<T> {
  const check = (r: Reader): void => {
    const v = r.u16();
    if (v !== 0) throw new DecodeError(`unknown ${label} codec version ${v}`);
  };
  return codec(
    of.size === null ? null : of.size + 2,
    (r) => {
      check(r);
      return of.read(r);
    },
    (w, v) => {
      w.u16(0);
      of.write(w, v);
    },
    (r) => {
      check(r);
      of.skip(r);
    },
  );
}

/** Decodes `bytes` in full with `c`: trailing bytes do not decode. */
export function decode<T>(c: Codec<T>, bytes: Uint8Array): T {
  const r = new Reader(bytes);
  const v = c.read(r);
  r.end();
  return v;
}

/** Encodes one value. */
export function encode<T>(c: Codec<T>, v: T): Uint8Array {
  const w = new Writer();
  c.write(w, v);
  return w.finish();
}
