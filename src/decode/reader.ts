/** Big-endian reader and writer for the Avalanche linear codec (u16 string lengths, u32 slice lengths). */

export class DecodeError extends Error {}

/** Most elements any one slice may declare: a bound against hostile lengths before anything is allocated. */
const MAX_SLICE = 1 << 20;

export class Reader {
  private readonly view: DataView;
  pos = 0;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  private need(n: number): void {
    if (n < 0 || this.pos + n > this.bytes.length)
      throw new DecodeError(`need ${n} bytes at ${this.pos}, have ${this.remaining}`);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return v;
  }

  /** Steps over `n` bytes without a view of them. */
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  fixed(n: number): Uint8Array {
    this.need(n);
    const v = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** `u32 length ‖ bytes`. */
  bytesU32(): Uint8Array {
    return this.fixed(this.u32());
  }

  /** `u16 length ‖ utf8`. */
  str(): string {
    return Buffer.from(this.fixed(this.u16())).toString("utf8");
  }

  /** A slice: `u32 count ‖ elements`. */
  list<T>(read: (r: Reader) => T): T[] {
    const n = this.sliceLength();
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(read(this));
    return out;
  }

  /** A slice's `u32 count`, bounded by what is left (every element takes at least a byte). */
  sliceLength(): number {
    const n = this.u32();
    if (n > MAX_SLICE || n > this.remaining) throw new DecodeError(`slice of ${n} elements exceeds the input`);
    return n;
  }

  /** Skips `count` elements of fixed size. */
  skipList(size: number): number {
    const n = this.u32();
    this.fixed(n * size);
    return n;
  }

  end(): void {
    if (this.remaining !== 0) throw new DecodeError(`${this.remaining} trailing bytes`);
  }
}

/**
 * Appends fields big-endian to one growing buffer. (Written a field at a time into buffers of their own, the
 * mainnet genesis's build, some 200,000 fields, left about 110 MB in the process: each field's DataView gave its
 * small array a backing store of its own.)
 */
export class Writer {
  private buf = new Uint8Array(64);
  private size = 0;

  private room(n: number): number {
    const at = this.size;
    if (at + n > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, at + n));
      next.set(this.buf.subarray(0, at));
      this.buf = next;
    }
    this.size = at + n;
    return at;
  }

  u8(v: number): this {
    const at = this.room(1);
    this.buf[at] = v;
    return this;
  }

  u16(v: number): this {
    const at = this.room(2);
    this.buf[at] = v >>> 8;
    this.buf[at + 1] = v;
    return this;
  }

  u32(v: number): this {
    const at = this.room(4);
    this.buf[at] = v >>> 24;
    this.buf[at + 1] = v >>> 16;
    this.buf[at + 2] = v >>> 8;
    this.buf[at + 3] = v;
    return this;
  }

  u64(v: bigint): this {
    return this.u32(Number((v >> 32n) & 0xffffffffn)).u32(Number(v & 0xffffffffn));
  }

  fixed(b: Uint8Array): this {
    const at = this.room(b.length);
    this.buf.set(b, at);
    return this;
  }

  bytesU32(b: Uint8Array): this {
    return this.u32(b.length).fixed(b);
  }

  /** `u16 length ‖ utf8`. */
  str(s: string): this {
    const b = Buffer.from(s, "utf8");
    return this.u16(b.length).fixed(b);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.size);
  }
}
