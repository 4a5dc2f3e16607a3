/** The container JSON cache: bounded by bytes, oldest out first, a container read since the last eviction spared. */
import {describe, expect, it} from "vitest";
import {ENDPOINTS} from "../../../src/containerIndex/endpoints.js";
import {ContainerJsonCache, containerJson} from "../../../src/containerIndex/service.js";
import type {EndpointIndex, StoredContainer} from "../../../src/containerIndex/store.js";

const idx = {endpoint: ENDPOINTS[3]!} as EndpointIndex;
const container = (i: number): StoredContainer => ({
  id: new Uint8Array(32).fill(i),
  bytes: new Uint8Array(100).fill(i),
  timestampNs: 1_700_000_000_000_000_000n,
  index: BigInt(i),
  checksum: null,
});

describe("ContainerJsonCache", () => {
  it("holds the JSON as bytes, stays within its budget, evicts oldest first and spares what was read", () => {
    const sizes = Array.from({length: 17}, (_, i) => Buffer.byteLength(containerJson(container(i), "hex")));
    const budget = sizes.slice(0, 16).reduce((a, b) => a + b, 0); // room for exactly 16
    const cache = new ContainerJsonCache(budget);
    for (let i = 0; i < 16; i++)
      expect(cache.put(idx, container(i), "hex").toString()).toBe(containerJson(container(i), "hex"));
    expect(cache.peek(idx, 0n, "hex")).toBeDefined();
    expect(cache.peek(idx, 3n, "hex")).toBeDefined(); // 0 and 3 are read: spared by the next eviction
    cache.put(idx, container(16), "hex"); // over budget: down to 7/8 of it, the oldest unread first
    const held = Array.from({length: 17}, (_, i) => cache.peek(idx, BigInt(i), "hex") !== undefined);
    const evicted = held.flatMap((h, i) => (h ? [] : [i]));
    expect(evicted.slice(0, 2)).toEqual([1, 2]);
    expect(held[0] && held[3] && held[16]).toBe(true);
    const kept = sizes.reduce((n, s, i) => n + (held[i] ? s : 0), 0);
    expect(kept).toBeLessThanOrEqual(budget - budget / 8);
    expect(kept + sizes[evicted[evicted.length - 1]!]!).toBeGreaterThan(budget - budget / 8);
    // Another encoding is another entry.
    expect(cache.peek(idx, 16n, "hexnc")).toBeUndefined();
  });

  it("keys entries by endpoint, index and encoding apart, and never caches an index past its exact keys", () => {
    const cache = new ContainerJsonCache(1 << 20);
    const other = {endpoint: ENDPOINTS[4]!} as EndpointIndex;
    cache.put(idx, container(1), "hex");
    expect(cache.peek(other, 1n, "hex")).toBeUndefined();
    expect(cache.peek(idx, 1n, "hexc")).toBeUndefined();
    expect(cache.peek(idx, 2n, "hex")).toBeUndefined();
    // Indexes from 2^47 on would round to shared keys: they are formatted but neither stored nor looked up.
    const far = {...container(2), index: (1n << 63n) + 1n};
    const near = {...container(3), index: 1n << 63n};
    expect(cache.put(idx, far, "hex").toString()).toBe(containerJson(far, "hex"));
    expect(cache.peek(idx, far.index, "hex")).toBeUndefined();
    expect(cache.peek(idx, near.index, "hex")).toBeUndefined();
    expect(cache.admit(idx, far, "hex")).toBeNull();
    expect(cache.admit(idx, far, "hex")).toBeNull();
    // The last exact key, and the first index past it.
    const last = {...container(4), index: (1n << 47n) - 1n};
    const first = {...container(5), index: 1n << 47n};
    cache.put(idx, last, "hex");
    cache.put(idx, first, "hex");
    expect(cache.peek(idx, last.index, "hex")?.toString()).toBe(containerJson(last, "hex"));
    expect(cache.peek(idx, first.index, "hex")).toBeUndefined();
  });

  it("keeps the entry just added when every older one was read (the tip container of a polling mirror)", () => {
    // Sizes differ by a byte or two (CB58 lengths): the budget takes 8 of the largest, so the ninth is over it.
    const size = Math.max(...Array.from({length: 9}, (_, i) => Buffer.byteLength(containerJson(container(i), "hex"))));
    const cache = new ContainerJsonCache(size * 8);
    for (let i = 0; i < 8; i++) cache.put(idx, container(i), "hex");
    for (let i = 0; i < 8; i++) cache.peek(idx, BigInt(i), "hex");
    cache.put(idx, container(8), "hex");
    expect(cache.peek(idx, 8n, "hex")?.toString()).toBe(containerJson(container(8), "hex"));
  });

  it("gives each entry its own memory, not a slice of Node's shared pool that it would keep alive", () => {
    const cache = new ContainerJsonCache(1 << 20);
    const json = cache.put(idx, container(1), "hex");
    expect(json.buffer.byteLength).toBe(json.length);
  });

  it("admits a container read through offer() on its second read, so a crawl through history flushes nothing", () => {
    const size = Math.max(...Array.from({length: 40}, (_, i) => Buffer.byteLength(containerJson(container(i), "hex"))));
    const cache = new ContainerJsonCache(size * 8);
    for (let i = 0; i < 4; i++) cache.put(idx, container(i), "hex"); // the hot set
    // A crawl: 36 containers read once each. Answers are right, nothing is cached, the hot set stays.
    for (let i = 4; i < 40; i++)
      expect(cache.offer(idx, container(i), "hex").toString()).toBe(containerJson(container(i), "hex"));
    expect(
      Array.from({length: 40}, (_, i) => cache.peek(idx, BigInt(i), "hex") !== undefined).filter(Boolean),
    ).toHaveLength(4);
    // Read again: now cached.
    cache.offer(idx, container(7), "hex");
    expect(cache.peek(idx, 7n, "hex")?.toString()).toBe(containerJson(container(7), "hex"));
  });
});
