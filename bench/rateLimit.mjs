// The shared rate limiter (src/api/rateLimit.ts) at 1,000,000 distinct clients: time per check and the heap it
// holds, as the data API and the metrics service use it (100,000 clients kept, the oldest evicted first). Each
// run checks 1,000,000 new IPv6 /64 keys once, then 1,000,000 checks of clients it holds; medians of
// BENCH_LIMITER_RUNS runs (default 5), each in a fresh limiter after a GC. `node --expose-gc bench/rateLimit.mjs`
// (needs `npm run build`), or part of `npm run bench` (where the heap figure is left out without --expose-gc).
import {RateLimiter} from "../dist/src/api/rateLimit.js";
import {fmt, median} from "./lib.mjs";

const RUNS = Number(process.env.BENCH_LIMITER_RUNS ?? 5);
const CLIENTS = 1_000_000;
const gc = globalThis.gc ?? null;

function run(r) {
  // Keys as clientAddress.ts makes them (one IPv6 /64 each), built outside the timed part: the figure is the limiter's.
  const fresh = Array.from({length: CLIENTS}, (_, i) => `ip6:2001:db8:${r}:${i.toString(16)}::/64`);
  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const limiter = new RateLimiter();
  let t0 = performance.now();
  for (let i = 0; i < CLIENTS; i++) limiter.take(fresh[i], 600);
  const newNs = ((performance.now() - t0) * 1e6) / CLIENTS;
  gc?.();
  const heap = process.memoryUsage().heapUsed - heap0;
  // Clients it holds: the last 100,000 seen.
  const held = fresh.slice(CLIENTS - limiter.size);
  t0 = performance.now();
  for (let i = 0; i < CLIENTS; i++) limiter.take(held[i % held.length], 600);
  const heldNs = ((performance.now() - t0) * 1e6) / CLIENTS;
  return {newNs, heldNs, heap, size: limiter.size};
}

export async function benchRateLimit() {
  const xs = [];
  for (let r = 0; r < RUNS + 1; r++) xs.push(run(r));
  const rs = xs.slice(1); // the first warms the JIT
  const newNs = median(rs.map((x) => x.newNs));
  const heldNs = median(rs.map((x) => x.heldNs));
  const heap = gc
    ? `${fmt(median(rs.map((x) => x.heap)) / 2 ** 20, 1)} MB held (${rs[0].size} clients kept)`
    : "(run with --expose-gc for the heap)";
  return [
    {name: `rate limiter, 1,000,000 new clients: a check`, value: `${fmt(newNs)} ns`, reference: heap},
    {name: `rate limiter, 1,000,000 checks of held clients`, value: `${fmt(heldNs)} ns`},
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchRateLimit()) console.log(`${r.name}: ${r.value}${r.reference ? `, ${r.reference}` : ""}`);
}
