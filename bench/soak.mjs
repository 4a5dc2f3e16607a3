// Bounded soak (issue 8): mixed traffic against an avaext child that ingests the dev feed with indexing on, for
// SOAK_SECONDS (default 600). Samples the server's RSS and event-loop delay from /ext/metrics every few seconds
// and compares the first minute with the last. Loopback only; every loop is bounded in time.
import autocannon from "autocannon";
import {startAvaext} from "./lib.mjs";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SAMPLE_MS = 5000;

function metric(text, name) {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, "m").exec(text);
  return m ? Number(m[1]) : NaN;
}

export async function benchSoak() {
  // Real time for the dev feed: one tick per 2 s, plus the 7-day backfill at start.
  const node = await startAvaext(["--index-enabled", "--feed=dev", "--health-check-frequency=2s", "--metrics-service-rate-limit=0", "--api-admin-enabled"]);
  const samples = [];
  const t0 = Date.now();
  const stopAt = t0 + SECONDS * 1000;
  const json = {"content-type": "application/json"};
  const rpc = (method, params) => JSON.stringify({jsonrpc: "2.0", id: 1, method, ...(params ? {params} : {})});
  const load = autocannon({
    url: node.url,
    connections: 4,
    duration: SECONDS,
    requests: [
      {method: "GET", path: "/ext/health"},
      {method: "GET", path: "/ext/health/liveness"},
      {method: "POST", path: "/ext/health", headers: json, body: rpc("health.health")},
      {method: "POST", path: "/ext/health", headers: json, body: JSON.stringify([1, 2, 3].map((id) => ({jsonrpc: "2.0", id, method: "health.readiness"})))},
      {method: "POST", path: "/ext/index/C/block", headers: json, body: rpc("index.getLastAccepted")},
      {method: "POST", path: "/ext/index/X/tx", headers: json, body: rpc("index.getContainerByIndex", {index: 100})},
      {method: "POST", path: "/ext/index/P/block", headers: json, body: rpc("index.getContainerRange", {startIndex: 0, numToFetch: 100})},
      {method: "GET", path: "/v1/avg_tps/C"},
      {method: "POST", path: "/ext/admin", headers: json, body: rpc("admin.getLoggerLevel")},
    ],
  });
  try {
    while (Date.now() < stopAt) {
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, Math.max(0, stopAt - Date.now()))));
      const text = await (await fetch(`${node.url}/ext/metrics`)).text();
      samples.push({
        t: Math.round((Date.now() - t0) / 1000),
        rssMb: metric(text, "avaext_process_resident_memory_bytes") / 2 ** 20,
        lagP99Ms: metric(text, "avaext_nodejs_eventloop_lag_p99_seconds") * 1000,
        containers: metric(text, 'avaext_index_containers\\{chain="C",kind="block"\\}'),
      });
      const s = samples.at(-1);
      console.error(`soak t=${s.t}s rss=${s.rssMb.toFixed(0)}MB lag.p99=${s.lagP99Ms.toFixed(1)}ms C blocks=${s.containers}`);
    }
    const result = await load;
    const window = Math.min(60, SECONDS / 4);
    const first = samples.filter((s) => s.t <= window);
    const last = samples.filter((s) => s.t >= SECONDS - window);
    const avg = (xs, k) => xs.reduce((a, s) => a + s[k], 0) / Math.max(1, xs.length);
    const rows = [
      {name: `soak ${SECONDS}s mixed traffic + dev feed: requests`, value: `${Math.round(result.requests.average)} req/s, ${result.non2xx} non-2xx (503s while not bootstrapped), ${result.errors} errors`, reference: "-", ratio: "-"},
      {name: "soak RSS first vs last window", value: `${avg(first, "rssMb").toFixed(0)} MB → ${avg(last, "rssMb").toFixed(0)} MB`, reference: "flat", ratio: "-"},
      {name: "soak event-loop lag p99 first vs last window", value: `${avg(first, "lagP99Ms").toFixed(1)} ms → ${avg(last, "lagP99Ms").toFixed(1)} ms`, reference: "flat", ratio: "-"},
    ];
    return rows;
  } finally {
    load.stop?.();
    await node.stop();
  }
}
