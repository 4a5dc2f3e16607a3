/**
 * The index API, `POST /ext/index/<chain>/<kind>` (AvalancheGo indexer/service.go; docs/api/index.md): six methods with
 * AvalancheGo's result shapes and error texts. `<chain>` may be any alias of a primary-network chain.
 */
import {appError, invalidParams} from "../api/errors.js";
import {RawJson, method, type MethodTable} from "../api/rpcRouter.js";
import type {Route, RouteResolver} from "../api/routes.js";
import {cb58Id, object, optional, required, string, uint64, type Validator} from "../api/validate.js";
import type {ChainRegistry} from "../chains/index.js";
import {idToString} from "../util/cb58.js";
import {sha256} from "../util/sha256.js";
import {bytesToHex, writeHex} from "../util/hex.js";
import {formatRfc3339Nano} from "../util/time.js";
import {ENDPOINTS, findEndpoint} from "./endpoints.js";
import {MAX_FETCHED_BY_RANGE, type EndpointIndex, type IndexStore, type StoredContainer} from "./store.js";

export type Encoding = "hex" | "hexc" | "hexnc" | "json";

/** AvalancheGo's formatting.Encoding: case-insensitive; `json` parses but cannot encode containers. */
export const encoding: Validator<Encoding> = (v, field) => {
  const s = string(v, field).toLowerCase();
  if (s === "hex" || s === "hexc" || s === "hexnc" || s === "json") return s;
  throw invalidParams(field, `invalid encoding ${JSON.stringify(v)}; expected hex, hexc or hexnc`);
};

/**
 * A container's JSON in AvalancheGo's key order, as the text before the bytes, the bytes (and for `hex`/`hexc`
 * their 4-byte checksum), and the text after. Every value is hex, CB58, RFC 3339 or decimal, none of which needs
 * escaping, so the JSON is written directly; its length is known before a byte is written, so a page of 1024 is
 * written into one buffer with no string per container.
 */
export interface ContainerText {
  readonly head: string;
  readonly bytes: Uint8Array;
  readonly checksum: Uint8Array | null;
  readonly tail: string;
  /** Bytes of the JSON (all ASCII). */
  readonly length: number;
}

export function containerText(c: StoredContainer, enc: Encoding): ContainerText {
  if (enc === "json") throw appError("unsupported encoding in method");
  const head = `{"id":"${idToString(c.id)}","bytes":"0x`;
  const checksum = enc === "hexnc" ? null : (c.checksum ?? sha256(c.bytes).subarray(28));
  const tail = `","timestamp":"${formatRfc3339Nano(c.timestampNs)}","encoding":"${enc}","index":"${c.index}"}`;
  return {
    head,
    bytes: c.bytes,
    checksum,
    tail,
    length: head.length + 2 * c.bytes.length + (checksum ? 8 : 0) + tail.length,
  };
}

/** Writes the JSON at `off` (t.length bytes must fit); returns the offset past it. */
export function writeContainerText(t: ContainerText, out: Buffer, off: number): number {
  off += out.write(t.head, off, "latin1");
  // Node's native hex beats a JavaScript loop on a kilobyte here (measured in a page benchmark), string and all.
  off += out.write(bytesToHex(t.bytes), off, "latin1");
  if (t.checksum) off = writeHex(t.checksum, out, off);
  return off + out.write(t.tail, off, "latin1");
}

/** The container's JSON as text, written as the served answers are (tests). */
export function containerJson(c: StoredContainer, enc: Encoding): string {
  const t = containerText(c, enc);
  const out = Buffer.allocUnsafe(t.length);
  if (writeContainerText(t, out, 0) !== t.length) throw new Error("container JSON length mismatch");
  return out.toString("latin1");
}

const NO_CONTAINERS = "no containers have been accepted";
const enc = optional(encoding, "hex" as Encoding);

/**
 * Indexed containers never change, so their JSON is cached per endpoint, index and encoding, bounded by total
 * size: explorers and mirrors read the same recent containers again and again. Entries are bytes (the JSON is
 * ASCII): a page of 1024 is answered by copying them, with no 2 MB string to build, encode and collect per
 * request.
 *
 * Eviction is second-chance (CLOCK) in insertion order rather than strict LRU: a hit only sets a flag. Moving
 * the entry to the end of the Map on every hit (delete + set) cost ~12 µs on a cache of 8,000 entries in V8,
 * a fifth of a cached getContainerByIndex call.
 */
interface CacheEntry {
  readonly json: Buffer;
  used: boolean;
}

export class ContainerJsonCache {
  private readonly entries = new Map<number, CacheEntry>();
  private size = 0;
  /**
   * Admission (a doorkeeper): a container read through get() or offer() is cached on its second read within
   * the last `maxSeen` first reads. A crawl through history (a mirror, random pages) then passes by without
   * flushing what is read again and again (the tip, popular containers), and without the cost of caching
   * entries never read twice: a sixth of a random page's CPU went to inserting, evicting and collecting them.
   */
  private readonly seen = new Set<number>();
  private readonly maxSeen: number;

  constructor(private readonly maxBytes: number) {
    this.maxSeen = Math.max(1024, Math.floor(maxBytes / 1024));
  }

  /** Formats a container read from the database; caches it if it was read recently before (see `seen`). */
  offer(idx: EndpointIndex, c: StoredContainer, enc: Encoding): Buffer {
    const cached = this.admit(idx, c, enc);
    if (cached !== null) return cached;
    const t = containerText(c, enc);
    const json = Buffer.allocUnsafe(t.length);
    writeContainerText(t, json, 0);
    return json;
  }

  /**
   * A container read from the database: on its second recent read it is formatted, cached and returned; on its
   * first, it is remembered and null comes back (the caller formats it where it needs it, e.g. into a page).
   */
  admit(idx: EndpointIndex, c: StoredContainer, enc: Encoding): Buffer | null {
    if (c.index >= KEYED_BELOW) return null;
    const key = cacheKey(idx, c.index, enc);
    if (this.seen.delete(key)) return this.put(idx, c, enc);
    if (this.seen.size >= this.maxSeen) this.seen.clear();
    this.seen.add(key);
    return null;
  }

  /** The cached JSON, marked as used (kept through the next eviction); undefined on a miss. */
  peek(idx: EndpointIndex, index: bigint, enc: Encoding): Buffer | undefined {
    if (index >= KEYED_BELOW) return undefined;
    const e = this.entries.get(cacheKey(idx, index, enc));
    if (e === undefined) return undefined;
    e.used = true;
    return e.json;
  }

  /** Formats and caches a container (no admission); returns its JSON. */
  put(idx: EndpointIndex, c: StoredContainer, enc: Encoding): Buffer {
    const key = cacheKey(idx, c.index, enc);
    const t = containerText(c, enc);
    // Its own allocation: Buffer.allocUnsafe would carve a small entry out of Node's shared 8 KiB pool, and a
    // cached entry would then keep a whole pool slab alive (63 MiB held for a 16 MiB budget, found in review).
    const json = Buffer.allocUnsafeSlow(t.length);
    writeContainerText(t, json, 0);
    if (json.length <= this.maxBytes / 8 && c.index < KEYED_BELOW && !this.entries.has(key)) {
      // Room is made before the entry goes in, so a pass where every older entry was used cannot evict it.
      if (this.size + json.length > this.maxBytes) this.evict(this.maxBytes - this.maxBytes / 8 - json.length);
      this.entries.set(key, {json, used: false});
      this.size += json.length;
    }
    return json;
  }

  /**
   * Drops entries, oldest first, down to `target` bytes (7/8 of the budget less the entry coming in); an entry used since the last pass is spared once
   * (its flag cleared). One pass, not one entry per insert: each fresh Map iterator walks past the slots of every
   * entry deleted before it (V8 compacts a Map only when it grows), which was a sixth of the CPU on random pages.
   */
  private evict(target: number): void {
    for (let pass = 0; pass < 2 && this.size > target; pass++) {
      for (const [k, e] of this.entries) {
        if (this.size <= target) break;
        if (e.used && pass === 0) {
          e.used = false;
          continue;
        }
        this.entries.delete(k);
        this.size -= e.json.length;
      }
    }
  }
}

/**
 * One number per (endpoint, index, encoding): a string key was built and hashed on every lookup (1,024 a page).
 * Exact below KEYED_BELOW (2^47 indexes, far past any chain); larger indexes are never cached or looked up.
 */
function cacheKey(idx: EndpointIndex, index: bigint, enc: Encoding): number {
  return (Number(index) * 16 + idx.endpoint.id) * 4 + ENCODING_CODE[enc];
}

const ENCODING_CODE: Record<Encoding, number> = {hex: 0, hexc: 1, hexnc: 2, json: 3};
const KEYED_BELOW = 1n << 47n;
// The key gives the endpoint four bits.
if (ENDPOINTS.some((e) => e.id < 0 || e.id >= 16)) throw new Error("container cache keys need endpoint ids in [0, 16)");

const CACHE_BYTES = 16 * 1024 * 1024;

/** A getContainerRange answer stops after the container that takes it past this many bytes of JSON. */
export const MAX_RANGE_ANSWER_BYTES = 64 * 1024 * 1024;

export function createIndexMethods(
  cache = new ContainerJsonCache(CACHE_BYTES),
  maxRangeAnswerBytes = MAX_RANGE_ANSWER_BYTES,
): MethodTable<EndpointIndex> {
  // A cache hit is answered without a promise of its own (a third of the methods' own time on a hit).
  const one = (idx: EndpointIndex, index: bigint, enc: Encoding): RawJson | Promise<RawJson | null> => {
    if (enc === "json") throw appError("unsupported encoding in method");
    const hit = cache.peek(idx, index, enc);
    if (hit !== undefined) return new RawJson(hit);
    return idx.getByIndex(index).then((c) => (c === null ? null : new RawJson(cache.offer(idx, c, enc))));
  };
  return {
    getLastAccepted: method(object({encoding: enc}), (p, idx) => {
      if (idx.next === 0n) throw appError(NO_CONTAINERS);
      return then(one(idx, idx.next - 1n, p.encoding), (c) => c ?? notFound(NO_CONTAINERS));
    }),
    getContainerByIndex: method(object({index: required(uint64), encoding: enc}), (p, idx) =>
      // The error text is built only for a miss (it formats a bigint: a tenth of a microsecond on every hit).
      then(one(idx, p.index, p.encoding), (c) => c ?? notFound(`no container at index ${p.index}`)),
    ),
    getContainerRange: method(
      object({startIndex: required(uint64), numToFetch: required(uint64), encoding: enc}),
      async (p, idx) => {
        // docs/api/index.md: 0 is an empty list before any other check (AvalancheGo refuses 0; its docs allow it).
        if (p.numToFetch === 0n) return {containers: []};
        if (p.numToFetch > BigInt(MAX_FETCHED_BY_RANGE)) {
          throw appError(`numToFetch must be in [0,${MAX_FETCHED_BY_RANGE}] but is ${p.numToFetch}`);
        }
        if (idx.next === 0n) throw appError(NO_CONTAINERS);
        const last = idx.next - 1n;
        if (p.startIndex > last) throw appError(`start index (${p.startIndex}) > last accepted index (${last})`);
        if (p.encoding === "json") throw appError("unsupported encoding in method");
        // Served from the cache when every container is there; otherwise one range read fills it.
        const end = p.startIndex + p.numToFetch <= idx.next ? p.startIndex + p.numToFetch : idx.next;
        // The answer stops early (at least one container) once it passes MAX_RANGE_ANSWER_BYTES: 1024 containers of
        // a few MiB would not fit in a JS string, and the failure surfaced as -32603. Clients page on the indexes
        // returned, as they do at the tip.
        const parts: Array<Buffer | ContainerText> = [];
        let bytes = 0;
        for (let i = p.startIndex; i < end && bytes <= maxRangeAnswerBytes; i++) {
          const hit = cache.peek(idx, i, p.encoding);
          if (hit === undefined) break;
          parts.push(hit);
          bytes += hit.length + 1;
        }
        if (BigInt(parts.length) < end - p.startIndex && bytes <= maxRangeAnswerBytes) {
          parts.length = 0;
          bytes = 0;
          for (const c of await idx.getRange(p.startIndex, Number(p.numToFetch))) {
            if (bytes > maxRangeAnswerBytes) break;
            // Containers read for the first time are written straight into the page.
            const part = cache.admit(idx, c, p.encoding) ?? containerText(c, p.encoding);
            parts.push(part);
            bytes += part.length + 1;
          }
        }
        return new RawJson(writePage(parts));
      },
    ),
    // `encoding` is accepted and ignored on the next three, as AvalancheGo.
    getIndex: method(object({id: required(cb58Id)}), async (p, idx) => {
      const i = await idx.getIndex(p.id);
      if (i === null) throw appError("not found");
      return {index: i.toString()};
    }),
    isAccepted: method(object({id: required(cb58Id)}), async (p, idx) => ({
      isAccepted: (await idx.getIndex(p.id)) !== null,
    })),
    getContainerByID: method(object({id: required(cb58Id), encoding: enc}), async (p, idx) => {
      const i = await idx.getIndex(p.id);
      const c = i === null ? null : await one(idx, i, p.encoding);
      if (!c) throw appError("not found");
      return c;
    }),
  };
}

/** `f` of a value now, or of a promised one when it comes (a method answers a cache hit without a promise). */
function then<T, R>(v: T | Promise<T>, f: (t: T) => R): R | Promise<R> {
  return v instanceof Promise ? v.then(f) : f(v);
}

/** The method's not-found error. */
function notFound(message: string): never {
  throw appError(message);
}

const INDEX_PREFIX = "/ext/index/";

/** Routes `/ext/index/<chain alias>/<kind>` to its endpoint's index. */
export function indexRouteResolver(store: IndexStore, chains: ChainRegistry): RouteResolver {
  const routes = new Map<number, Route>(
    ENDPOINTS.map((e) => [e.id, {template: "/ext/index/:chain/:kind", rpc: {service: "index", ctx: store.index(e)}}]),
  );
  return {
    resolve: (path) => {
      if (!path.startsWith(INDEX_PREFIX)) return null;
      const rest = path.slice(INDEX_PREFIX.length);
      const slash = rest.lastIndexOf("/");
      if (slash <= 0) return null;
      const chain = chains.resolveChain(rest.slice(0, slash));
      const e = chain === null ? null : findEndpoint(chain, rest.slice(slash + 1));
      return e === null ? null : routes.get(e.id)!;
    },
    list: () => ENDPOINTS.map((e) => INDEX_PREFIX + e.name),
  };
}

const OPEN = Buffer.from('{"containers":[');
const CLOSE = Buffer.from("]}");

/** `{"containers":[a,b,…]}` in one buffer: cached JSON copied once, the rest written in place. */
function writePage(parts: ReadonlyArray<Buffer | ContainerText>): Buffer {
  let size = OPEN.length + CLOSE.length + Math.max(0, parts.length - 1);
  for (const part of parts) size += part.length;
  const out = Buffer.allocUnsafe(size);
  let off = OPEN.copy(out, 0);
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) out[off++] = 0x2c; // ","
    const part = parts[i]!;
    off = Buffer.isBuffer(part) ? off + part.copy(out, off) : writeContainerText(part, out, off);
  }
  CLOSE.copy(out, off);
  return out;
}
