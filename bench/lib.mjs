// Shared benchmark machinery: servers in child processes (so the load generator does not share their event
// loop), autocannon runs alternated between avaext and the reference, medians of several runs.
import autocannon from "autocannon";
import {spawn} from "node:child_process";
import {randomFillSync} from "node:crypto";
import {mkdtempSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, "..");

/** Runs from the environment: BENCH_RUNS (default 3) runs of BENCH_SECONDS (default 5) each. */
export const RUNS = Number(process.env.BENCH_RUNS ?? 3);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** The connection counts the request figures are measured at (BENCH_CONNECTION_SET, default 10 and 16). */
export const CONNECTION_SET = (process.env.BENCH_CONNECTION_SET ?? "10,16").split(",").map(Number);

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Waits for a child's stdout line that matches `re`; resolves with the match. */
function waitForLine(child, re, what) {
  return new Promise((resolve, reject) => {
    let buf = "";
    // Generous: a PGlite store is created (initdb) before the URL is logged, which a busy machine slows.
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${buf.slice(-500)}`)), 300_000);
    child.stdout.on("data", (d) => {
      buf += d.toString();
      const m = re.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once("exit", (code) => reject(new Error(`${what} exited with ${code}: ${buf.slice(-500)}`)));
  });
}

/** A `--data-api-role=serve` process without the index: it follows no feed (src/node.ts). */
function serveReplica(flags) {
  return (
    flags.includes("--data-api-role=serve") &&
    !flags.some((f) => f === "--index-enabled" || f === "--index-enabled=true")
  );
}

/**
 * Starts avaext on 127.0.0.1:0 in a child process with the given flags; returns {url, child, dataDir, stop}. `root`
 * is the checkout whose bin/avaext.js runs (default this one; a bench comparing two commits passes the other's).
 */
export async function startAvaext(flags = [], {dataDir, root = ROOT} = {}) {
  const dir = dataDir ?? mkdtempSync(path.join(os.tmpdir(), "avaext-bench-"));
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(" ") : []),
      path.join(root, "bin/avaext.js"),
      "--http-port=0",
      "--http-host=127.0.0.1",
      `--data-dir=${dir}`,
      "--log-display-level=INFO",
      "--log-level=WARN",
      // --feed has no default: the dev network unless the bench names its feed, or starts a serve replica (no
      // index), which runs none.
      ...(flags.some((f) => f.startsWith("--feed")) || serveReplica(flags) ? [] : ["--feed=dev"]),
      ...flags,
    ],
    {stdio: ["ignore", "pipe", "inherit"]},
  );
  const m = await waitForLine(child, /"url":"(http:\/\/[^"]+)"/, "avaext");
  const url = m[1].replace(/\/$/, "");
  return {
    url,
    child,
    dataDir: dir,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      if (!dataDir) rmSync(dir, {recursive: true, force: true});
    },
  };
}

/** Starts the reference: a bare node:http server answering every request with a fixed body. */
export async function startBare(body, contentType = "application/json; charset=utf-8", status = 200) {
  const child = spawn(process.execPath, [path.join(here, "bareServer.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
    env: {...process.env, BARE_BODY: body, BARE_CT: contentType, BARE_STATUS: String(status)},
  });
  const m = await waitForLine(child, /listening (\d+)/, "bare server");
  return {
    url: `http://127.0.0.1:${m[1]}`,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** One autocannon run; returns {rps, p99} (p99 latency in ms). */
export async function load({allowNon2xx = false, ...opts}) {
  const r = await autocannon({connections: CONNECTIONS, duration: SECONDS, ...opts});
  if (r.errors > 0 || (r.non2xx > 0 && !allowNon2xx))
    throw new Error(`load run had ${r.errors} errors and ${r.non2xx} non-2xx answers`);
  return {rps: r.requests.average, p99: r.latency.p99};
}

/** GET (or `init`) `url` and its JSON body; throws on an answer not 2xx (endpoint 1 answers 201, as the hosted API). */
export async function getJson(url, init) {
  const res = await fetch(url, init);
  const body = await res.json();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** Follows nextPageToken from page 1 (`url`, with a query) to page `deep` or the last page; returns {url, page}. */
export async function deepPage(url, deep) {
  let token;
  let page = 1;
  for (; page < deep; page++) {
    const body = await getJson(token ? `${url}&pageToken=${encodeURIComponent(token)}` : url);
    if (!body.nextPageToken) break;
    token = body.nextPageToken;
  }
  return {url: token ? `${url}&pageToken=${encodeURIComponent(token)}` : url, page};
}

/** One autocannon run that must answer 2xx only; returns {p50, p99, rps} (latencies in ms). */
export async function latency(url, {connections = CONNECTIONS, method = "GET", body, headers} = {}) {
  const r = await autocannon({url, connections, duration: SECONDS, method, body, headers});
  if (r.errors > 0 || r.non2xx > 0) throw new Error(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  return {p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average};
}

let pool = new Uint8Array(0);
let poolAt = 0;
/** `n` random (incompressible) bytes, a copy, from a pool refilled 1 MiB at a time. */
export function randomBytes(n) {
  if (poolAt + n > pool.length) {
    pool = randomFillSync(new Uint8Array(1 << 20));
    poolAt = 0;
  }
  const out = pool.slice(poolAt, poolAt + n);
  poolAt += n;
  return out;
}

/** A sampler of `items` with a Zipf skew (s = 1: P(rank k) ∝ 1/k), drawing from `rand` (uniform in [0, 1)). */
export function zipf(items, rand) {
  const cdf = new Float64Array(items.length);
  let sum = 0;
  for (let k = 0; k < items.length; k++) cdf[k] = sum += 1 / (k + 1);
  return () => {
    const u = rand() * sum;
    let lo = 0;
    let hi = items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return items[lo];
  };
}

/** Runs `subject` and `reference` alternately RUNS times; returns medians and the ratio. */
export async function compare(name, subject, reference) {
  const s = [];
  const ref = [];
  // A short warm-up so the JIT has compiled the hot paths before anything is measured.
  await load({...subject, duration: 1});
  await load({...reference, duration: 1});
  for (let i = 0; i < RUNS; i++) {
    s.push(await load(subject));
    ref.push(await load(reference));
  }
  const out = {
    name,
    rps: median(s.map((x) => x.rps)),
    p99: median(s.map((x) => x.p99)),
    refRps: median(ref.map((x) => x.rps)),
    refP99: median(ref.map((x) => x.p99)),
  };
  out.ratio = out.rps / out.refRps;
  return out;
}

export function fmt(n, digits = 0) {
  return n.toLocaleString("en-US", {maximumFractionDigits: digits, minimumFractionDigits: digits});
}

/** A JSON-RPC call's result; an error answer (or an HTTP status not 2xx) throws, naming the method. */
export async function rpcResult(url, method, params) {
  const body = await getJson(url, {
    method: "POST",
    headers: {"content-type": "application/json"},
    body: JSON.stringify({jsonrpc: "2.0", id: 1, method, params}),
  });
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Fetches a JSON-RPC answer once (to size the reference body identically). */
export async function rpcOnce(url, method, params) {
  const res = await fetch(url, {
    method: "POST",
    headers: {"content-type": "application/json"},
    body: JSON.stringify({jsonrpc: "2.0", id: 1, method, ...(params ? {params} : {})}),
  });
  return res.text();
}
