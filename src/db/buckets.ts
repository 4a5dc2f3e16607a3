/**
 * Key layout of avaext's database. Every key starts with a one-byte bucket; numbers are 8-byte big-endian so
 * ranges scan in order. These values are fixed forever: a retired bucket stays listed here and is never reused.
 */
export enum Bucket {
  /** `[meta] ‖ utf8(name)` -> value. Names: "hasRun" -> empty (written on every start); "tpsDays:<chain>" (see tpsDay). */
  meta = 0x01,
  /** `[chainFlags] ‖ utf8(chain) ‖ flag` -> empty. Flags below (as AvalancheGo's 0x04/0x05 per chain). */
  chainFlags = 0x02,
  /** `[nextIndex] ‖ endpoint` -> u64 BE: the index the next accepted container gets. */
  nextIndex = 0x03,
  /** `[container] ‖ endpoint ‖ u64 BE index` -> container record (see index/record.ts). In its own store (controller.ts). */
  container = 0x04,
  /** `[containerIndex] ‖ endpoint ‖ id(32)` -> u64 BE index. */
  containerIndex = 0x05,
  /** `[feedPosition] ‖ utf8(source key)` -> opaque position of that feed source, written with its containers. */
  feedPosition = 0x06,
  /** `[probe]` -> empty: the key the database health check reads. */
  probe = 0x07,
  /**
   * `[chainState] ‖ utf8(chain)` -> u64 BE height ‖ id(32): the chain's last accepted block, for the health checks.
   * Written in the batch of the containers that moved it, with indexing on or off, so a restart (or a kill -9)
   * reports the same state as before it.
   */
  chainState = 0x08,
  /**
   * `[checksumsFrom] ‖ endpoint` -> u64 BE: the first index whose record may hold a checksum (index/record.ts).
   * Records below it were written before checksums were stored and are read as such, whatever their timestamp.
   * Written once, when a database is first opened by a version that stores checksums.
   */
  checksumsFrom = 0x09,
  /**
   * `[tpsDay] ‖ utf8(chain) ‖ u64 BE day start` -> a day of the chain's TPS series (metricsService/avgTps.ts
   * encodeDay), written in the batch of the blocks that changed it, with meta "tpsDays:<chain>" -> the ID of the
   * chain's last accepted block they include. Where that is not the chain state's block (a database written before
   * the days, or by a run that did not store them), the days are scanned from the index again.
   */
  tpsDay = 0x0a,
}

/** Chain flags (bucket chainFlags). */
export enum ChainFlag {
  /** The chain's index misses containers (sticky). */
  incomplete = 0x04,
  /** The chain was indexed in some earlier run. */
  previouslyIndexed = 0x05,
}

export function u64be(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

export function readU64be(b: Uint8Array, offset = 0): bigint {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(offset);
}

export function key(...parts: (number | Uint8Array | string)[]): Uint8Array {
  const chunks = parts.map((p) =>
    typeof p === "number" ? Uint8Array.of(p) : typeof p === "string" ? Buffer.from(p, "utf8") : p,
  );
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** `[container] ‖ endpoint ‖ u64 BE index`: built directly, it is on the ingest and read hot paths. */
export function containerKey(endpoint: number, index: bigint, out: Uint8Array = new Uint8Array(10)): Uint8Array {
  out[0] = Bucket.container;
  out[1] = endpoint;
  new DataView(out.buffer, out.byteOffset, out.byteLength).setBigUint64(2, index);
  return out;
}

/** `[containerIndex] ‖ endpoint ‖ id(32)`. */
export function containerIndexKey(
  endpoint: number,
  id: Uint8Array,
  out: Uint8Array = new Uint8Array(2 + id.length),
): Uint8Array {
  out[0] = Bucket.containerIndex;
  out[1] = endpoint;
  out.set(id, 2);
  return out;
}

/**
 * Keys and values of one batch carved from a single allocation. A Uint8Array per key costs an allocation, and a
 * small one lives on V8's heap, so handing it to LevelDB copies it off the heap first: about a tenth of the
 * ingest's main-thread time for a container's three small arrays and its record.
 */
export class Slab {
  private readonly buf: Buffer;
  private readonly view: DataView;
  private off = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafeSlow(size);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  take(n: number): Uint8Array {
    if (this.off + n > this.buf.length) throw new Error(`slab of ${this.buf.length} bytes exhausted`);
    const v = this.buf.subarray(this.off, this.off + n);
    this.off += n;
    return v;
  }

  u64(n: bigint): Uint8Array {
    this.view.setBigUint64(this.off, n);
    return this.take(8);
  }

  containerKey(endpoint: number, index: bigint): Uint8Array {
    return containerKey(endpoint, index, this.take(10));
  }

  containerIndexKey(endpoint: number, id: Uint8Array): Uint8Array {
    return containerIndexKey(endpoint, id, this.take(2 + id.length));
  }
}
