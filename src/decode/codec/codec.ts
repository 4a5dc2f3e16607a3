/**
 * Combinators for AvalancheGo's linear codec (codec/linearcodec, codec/reflectcodec): big-endian integers, `u32
 * length ‖ bytes` slices, `u16 length ‖ utf8` strings, fixed arrays, structs as their fields in order, and interface
 * values as `u32 typeID ‖ value` by the codec's registration order. One definition of a format gives its three
 * uses: `read` builds the value, `skip` steps over it without building anything (framing: where a tx ends), `write`
 * encodes a value back to the same bytes. As ChainSafe/ssz's types do for SSZ, a field's type carries all three.
 */
import {DecodeError, Reader, Writer} from "../reader.js";

export interface Codec<T> {
  read(r: Reader): T;
  skip(r: Reader): void;
  write(w: Writer, v: T): void;
  /** Encoded size when every value has the same one (a fixed struct is then skipped in one step), else null. */
  readonly size: number | null;
}

export type ValueOf<C> = C extends Codec<infer T> ? T : never;

function codec<T>(size: number | null, read: (r: Reader) => T, write: (w: Writer, v: T) => void, skip?: (r: Reader) => void): Codec<T> {
  const s = skip ?? (size !== null ? (r: Reader) => r.skip(size) : (r: Reader) => void read(r));
  return {size, read, skip: s, write};
}

export const u8: Codec<number> = codec(1, (r) => r.u8(), (w, v) => w.u8(v));
export const u16: Codec<number> = codec(2, (r) => r.u16(), (w, v) => w.u16(v));
export const u32: Codec<number> = codec(4, (r) => r.u32(), (w, v) => w.u32(v));
export const u64: Codec<bigint> = codec(8, (r) => r.u64(), (w, v) => w.u64(v));

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
  return codec(
    n,
    (r) => r.fixed(n),
    (w, v) => {
      if (v.length !== n) throw new RangeError(`expected ${n} bytes, not ${v.length}`);
      w.fixed(v);
    },
  );
}

/** `[]byte`: `u32 length ‖ bytes`. */
export const bytes: Codec<Uint8Array> = codec(
  null,
  (r) => r.bytesU32(),
  (w, v) => w.bytesU32(v),
  (r) => r.skip(r.u32()),
);

/** `string`: `u16 length ‖ utf8`. */
export const str: Codec<string> = codec(
  null,
  (r) => r.str(),
  (w, v) => w.str(v),
  (r) => r.skip(r.u16()),
);

/** A slice: `u32 count ‖ elements`; the count is bounded by the input before anything is allocated. */
export function array<T>(of: Codec<T>): Codec<T[]> {
  const size = of.size;
  return codec(
    null,
    (r) => {
      const n = r.sliceLength();
      const out = new Array<T>(n);
      for (let i = 0; i < n; i++) out[i] = of.read(r);
      return out;
    },
    (w, v) => {
      w.u32(v.length);
      for (const x of v) of.write(w, x);
    },
    size !== null
      ? (r) => r.skip(r.sliceLength() * size)
      : (r) => {
          const n = r.sliceLength();
          for (let i = 0; i < n; i++) of.skip(r);
        },
  );
}

type Fields = Record<string, Codec<any>>;
export type StructValue<F extends Fields> = {[K in keyof F]: ValueOf<F[K]>};
export type StructCodec<F extends Fields> = Codec<StructValue<F>> & {readonly fields: F};

/**
 * A struct: its fields in declaration order, nothing between them (an embedded Go struct is a field of its own
 * here, as `base` for avax.BaseTx). Runs of fixed-size fields are skipped in one step.
 */
export function struct<F extends Fields>(fields: F): StructCodec<F> {
  const keys = Object.keys(fields);
  const codecs = keys.map((k) => fields[k]!);
  const fixedSize = codecs.every((c) => c.size !== null) ? codecs.reduce((n, c) => n + c.size!, 0) : null;
  // The skip plan: byte counts for runs of fixed fields, codecs for the rest.
  const plan: Array<number | Codec<unknown>> = [];
  for (const c of codecs) {
    const last = plan[plan.length - 1];
    if (c.size !== null && typeof last === "number") plan[plan.length - 1] = last + c.size;
    else plan.push(c.size !== null ? c.size : c);
  }
  const n = keys.length;
  const s = codec<StructValue<F>>(
    fixedSize,
    (r) => {
      const o: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) o[keys[i]!] = codecs[i]!.read(r);
      return o as StructValue<F>;
    },
    (w, v) => {
      for (let i = 0; i < n; i++) codecs[i]!.write(w, (v as Record<string, unknown>)[keys[i]!]);
    },
    fixedSize !== null
      ? (r) => r.skip(fixedSize)
      : (r) => {
          for (const p of plan) {
            if (typeof p === "number") r.skip(p);
            else p.skip(r);
          }
        },
  );
  return {...s, fields};
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
  const table = new Array<Entry<string, unknown> | undefined>(Math.max(...ids) + 1);
  for (const id of ids) table[id] = entries[id];
  const lookup = (t: number): Entry<string, unknown> => {
    const e = table[t];
    if (e === undefined) throw new DecodeError(`unknown ${label} ${t}`);
    return e;
  };
  const u = codec<UnionValue<E>>(
    null,
    (r) => {
      const typeId = tag.read(r);
      const e = lookup(typeId);
      return {typeId, type: e.name, value: e.codec.read(r)} as UnionValue<E>;
    },
    (w, v) => {
      tag.write(w, v.typeId);
      lookup(v.typeId).codec.write(w, v.value);
    },
    (r) => lookup(tag.read(r)).codec.skip(r),
  );
  return {...u, entries};
}

/** A value with the bytes it was read from (a UTXO's output, kept as is for `utxoBytes`). Writes the value. */
export interface Spanned<T> {
  readonly value: T;
  readonly bytes: Uint8Array;
}

export function spanned<T>(of: Codec<T>): Codec<Spanned<T>> {
  return codec(
    of.size,
    (r) => {
      const start = r.pos;
      const value = of.read(r);
      return {value, bytes: r.bytes.subarray(start, r.pos)};
    },
    (w, v) => of.write(w, v.value),
    of.skip,
  );
}

/**
 * A value left encoded: its bytes, found by stepping over it with `of` (framing: a block's txs as byte ranges).
 * Writes the bytes as they are.
 */
export function raw(of: Codec<unknown>): Codec<Uint8Array> {
  return codec(
    of.size,
    (r) => {
      const start = r.pos;
      of.skip(r);
      return r.bytes.subarray(start, r.pos);
    },
    (w, v) => w.fixed(v),
    of.skip,
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
