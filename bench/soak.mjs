// Bounded soak (issue 8): mixed traffic against an avaext child that ingests the dev feed with indexing on, for
// SOAK_SECONDS (default 600). Samples the server's RSS and event-loop delay from its own /ext/metrics every
// SOAK_SAMPLE_SECONDS (default 5), prints a table over time, and a verdict: first minute vs last minute, and the
// least-squares slope after the first minute (warm-up and backfill excluded).
//
// Bounded: autocannon stops after SOAK_SECONDS and after SOAK_RATE × SOAK_SECONDS requests (SOAK_RATE default
// 1000 req/s over SOAK_CONNECTIONS, default 4); the sampler stops at the same deadline. Loopback only.
import autocannon from "autocannon";
import {startAvaext} from "./lib.mjs";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 5) * 1000;
const RATE = Number(process.env.SOAK_RATE ?? 1000);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 4);
/** Verdict thresholds: RSS may grow this much from the first to the last minute, and this much per minute. */
const RSS_GROWTH_MB = 32;
const RSS_SLOPE_MB_PER_MIN = 2;
const LAG_P99_LIMIT_MS = 100;

function metric(text, name, labels = "") {
  const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`^${esc(name)}${labels ? esc(labels) : "(?:\\{[^}]*\\})?"} ([0-9.e+-]+|NaN)$`, "m").exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Least-squares slope of y over x. */
function slope(points) {
  if (points.length < 2) return NaN;
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const num = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return den === 0 ? NaN : num / den;
}

const avg = (xs, k) => (xs.length ? xs.reduce((a, s) => a + s[k], 0) / xs.length : NaN);
const max = (xs, k) => xs.reduce((a, s) => Math.max(a, s[k]), -Infinity);
const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : "-");

export async function benchSoak() {
  // The dev feed backfills 7 days of history at start, then accepts blocks at a steady pace.
  const node = await startAvaext([
    "--index-enabled",
    "--feed=dev",
    "--health-check-frequency=2s",
    "--metrics-service-rate-limit=0",
    "--api-admin-enabled",
  ]);
  const samples = [];
  const t0 = Date.now();
  const stopAt = t0 + SECONDS * 1000;
  // Highest X-chain tx index seen by the sampler: getContainerByIndex reads spread over what exists.
  let lastXTx = 0;
  let seq = 0;
  const json = {"content-type": "application/json"};
  const rpc = (method, params) => JSON.stringify({jsonrpc: "2.0", id: 1, method, ...(params ? {params} : {})});
  const load = autocannon({
    url: node.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    overallRate: RATE,
    amount: RATE * SECONDS,
    requests: [
      {method: "GET", path: "/ext/health"},
      {method: "GET", path: "/ext/health/liveness"},
      {method: "POST", path: "/ext/health", headers: json, body: rpc("health.liveness")},
      {method: "POST", path: "/ext/health", headers: json, body: rpc("health.health")},
      {
        method: "POST",
        path: "/ext/health",
        headers: json,
        body: JSON.stringify([1, 2, 3].map((id) => ({jsonrpc: "2.0", id, method: "health.readiness"}))),
      },
      {method: "POST", path: "/ext/index/C/block", headers: json, body: rpc("index.getLastAccepted")},
      {
        method: "POST",
        path: "/ext/index/X/tx",
        headers: json,
        // A spread of indexes (deterministic), so reads are not all cache hits.
        setupRequest: (req) => ({
          ...req,
          body: rpc("index.getContainerByIndex", {index: lastXTx === 0 ? 0 : (seq++ * 7919) % (lastXTx + 1)}),
        }),
      },
      {
        method: "POST",
        path: "/ext/index/P/block",
        headers: json,
        body: JSON.stringify(
          [rpc("index.getLastAccepted"), rpc("index.getContainerRange", {startIndex: 0, numToFetch: 10})].map(
            (s, i) => ({...JSON.parse(s), id: i}),
          ),
        ),
      },
      {method: "GET", path: "/v1/avg_tps/C"},
      {method: "GET", path: "/v1/avg_tps/X"},
      {method: "POST", path: "/ext/admin", headers: json, body: rpc("admin.getLoggerLevel")},
    ],
  });
  const header = "    t (s) |  RSS (MB) | heap (MB) | lag p99 (ms) | lag max (ms) | C blocks | X txs | requests";
  console.error(`soak: ${SECONDS}s, ${CONNECTIONS} connections, ≤ ${RATE} req/s, sampling every ${SAMPLE_MS / 1000}s`);
  console.error(header);
  try {
    while (Date.now() < stopAt) {
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, Math.max(0, stopAt - Date.now()))));
      const text = await (await fetch(`${node.url}/ext/metrics`, {signal: AbortSignal.timeout(10_000)})).text();
      const requests = [...text.matchAll(/^avaext_http_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
        (a, m) => a + Number(m[1]),
        0,
      );
      const s = {
        t: (Date.now() - t0) / 1000,
        rssMb: metric(text, "avaext_process_resident_memory_bytes") / 2 ** 20,
        heapMb: metric(text, "avaext_nodejs_heap_size_used_bytes") / 2 ** 20,
        lagP99Ms: metric(text, "avaext_nodejs_eventloop_lag_p99_seconds") * 1000,
        lagMaxMs: metric(text, "avaext_nodejs_eventloop_lag_max_seconds") * 1000,
        cBlocks: metric(text, "avaext_index_containers", '{chain="C",kind="block"}'),
        xTxs: metric(text, "avaext_index_containers", '{chain="X",kind="tx"}'),
        requests,
      };
      if (Number.isFinite(s.xTxs) && s.xTxs > 0) lastXTx = s.xTxs - 1;
      samples.push(s);
      console.error(
        `${s.t.toFixed(0).padStart(9)} | ${f1(s.rssMb).padStart(9)} | ${f1(s.heapMb).padStart(9)} | ${f1(s.lagP99Ms).padStart(12)} | ${f1(s.lagMaxMs).padStart(12)} | ${String(s.cBlocks).padStart(8)} | ${String(s.xTxs).padStart(5)} | ${requests}`,
      );
    }
    const result = await load;
    const window = Math.min(60, SECONDS / 4);
    const first = samples.filter((s) => s.t <= window);
    const last = samples.filter((s) => s.t >= SECONDS - window);
    // Slopes exclude the first window: it holds the backfill and JIT warm-up, not steady state.
    const steady = samples.filter((s) => s.t > window);
    const rssSlope = slope(steady.map((s) => ({x: s.t / 60, y: s.rssMb})));
    const lagSlope = slope(steady.map((s) => ({x: s.t / 60, y: s.lagP99Ms})));
    const rssGrowth = avg(last, "rssMb") - avg(first, "rssMb");
    const problems = [];
    if (rssGrowth > RSS_GROWTH_MB) problems.push(`RSS grew ${f1(rssGrowth)} MB from the first to the last window`);
    if (steady.length >= 6 && rssSlope > RSS_SLOPE_MB_PER_MIN)
      problems.push(`RSS slope ${f1(rssSlope)} MB/min after warm-up`);
    if (avg(last, "lagP99Ms") > LAG_P99_LIMIT_MS)
      problems.push(`event-loop lag p99 ${f1(avg(last, "lagP99Ms"))} ms in the last window`);
    if (result.errors > 0) problems.push(`${result.errors} request errors`);
    const verdict = problems.length === 0 ? "PASS: flat, no growth" : `CHECK: ${problems.join("; ")}`;
    console.error(`\nsoak verdict: ${verdict}`);
    const w = `${window.toFixed(0)} s`;
    return [
      {
        name: `soak ${SECONDS}s mixed traffic + dev feed, ${CONNECTIONS} connections`,
        value: `${Math.round(result.requests.average)} req/s, ${result.requests.total} requests, ${result.non2xx} non-2xx (503 probes until bootstrapped), ${result.errors} errors`,
      },
      {
        name: `soak RSS, first ${w} → last ${w} (max)`,
        value: `${f1(avg(first, "rssMb"))} MB → ${f1(avg(last, "rssMb"))} MB (max ${f1(max(samples, "rssMb"))} MB)`,
        reference: `< +${RSS_GROWTH_MB} MB`,
      },
      {
        name: "soak RSS slope after warm-up",
        value: `${f1(rssSlope)} MB/min over ${steady.length} samples`,
        reference: `< ${RSS_SLOPE_MB_PER_MIN} MB/min`,
      },
      {
        name: `soak event-loop lag p99, first ${w} → last ${w}`,
        value: `${f1(avg(first, "lagP99Ms"))} ms → ${f1(avg(last, "lagP99Ms"))} ms (slope ${f1(lagSlope)} ms/min)`,
        reference: `< ${LAG_P99_LIMIT_MS} ms`,
      },
      {name: "soak verdict", value: verdict},
    ];
  } finally {
    load.stop?.();
    await node.stop();
  }
}
