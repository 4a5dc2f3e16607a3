// Slow readers (issue "Data API under hostile input"): 1,000 clients at once ask the dev network's avaext for a
// large /v1 page and never read the answer, as a client on a stalled link does. What each unread answer costs is
// held by the process until the socket write timeout (or the client) ends it: avaext's RSS is sampled from /proc
// every 100 ms, at rest and while the clients hold their sockets, and a well-behaved client's health check is timed
// meanwhile. BENCH_SLOW_READERS sets how many (1,000 by default), BENCH_SLOW_SECONDS how long they hold on (30).
import net from "node:net";
import {readFileSync} from "node:fs";
import {fmt, median, startAvaext} from "./lib.mjs";

const READERS = Number(process.env.BENCH_SLOW_READERS ?? 1000);
const HOLD_S = Number(process.env.BENCH_SLOW_SECONDS ?? 30);
const PAGE = "/v1/networks/local/blockchains/p-chain/transactions?pageSize=100";

function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Opens a socket, sends the request, and reads nothing: the server's writes fill the kernel's buffers, then wait. */
function stalledReader(port) {
  return new Promise((resolve) => {
    const s = net.connect({host: "127.0.0.1", port}, () => {
      s.write(`GET ${PAGE} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
      s.pause();
      resolve(s);
    });
    // A small receive buffer, as a slow link's: most of the answer stays on the server's side.
    s.on("error", () => resolve(s));
  });
}

/** Reads what `s` gives until it closes or `ms` pass; the bytes read. */
function readRest(s, ms) {
  return new Promise((resolve) => {
    let n = 0;
    const done = () => resolve(n);
    s.on("data", (d) => (n += d.length));
    s.once("close", done);
    s.once("end", done);
    setTimeout(done, ms);
    s.resume();
  });
}

export async function benchSlowReaders() {
  const node = await startAvaext([
    "--network-id=local",
    "--index-enabled",
    "--feed=dev",
    "--dev-evm=false",
    "--data-api-enabled",
    "--data-api-rate-limit=0",
  ]);
  try {
    // Wait for a page of 100 P-chain transactions (the dev network's history folds first).
    let bytes = 0;
    for (let i = 0; i < 600; i++) {
      const r = await fetch(node.url + PAGE);
      const text = await r.text();
      if (r.status === 200 && JSON.parse(text).transactions.length === 100) {
        bytes = Buffer.byteLength(text);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    if (bytes === 0) throw new Error("the dev network has no page of 100 P-chain transactions");
    const port = Number(new URL(node.url).port);
    const atRest = rssMb(node.child.pid);
    let peak = atRest;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(node.child.pid))), 100);
    const sockets = [];
    for (let i = 0; i < READERS; i += 50)
      sockets.push(...(await Promise.all(Array.from({length: Math.min(50, READERS - i)}, () => stalledReader(port)))));
    // Meanwhile a client that reads: its health check and a small page, timed.
    const times = [];
    const until = Date.now() + HOLD_S * 1000;
    while (Date.now() < until) {
      const t0 = performance.now();
      const r = await fetch(node.url + "/v1/networks/local/blockchains/p-chain/blocks?pageSize=1").catch(() => null);
      if (r) await r.arrayBuffer();
      times.push(r?.status === 200 ? performance.now() - t0 : Infinity);
      await new Promise((r) => setTimeout(r, 200));
    }
    const held = rssMb(node.child.pid);
    clearInterval(sampler);
    // Then every client reads what it can: a whole answer means the server still held it; a cut one, that the
    // server dropped the connection (its write timeout), freeing the rest.
    const whole = (await Promise.all(sockets.map((s) => readRest(s, 5000)))).filter((n) => n >= bytes).length;
    for (const s of sockets) s.destroy();
    const sorted = [...times].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
    return [
      {
        name: `${READERS} clients that never read a ${fmt(bytes / 1024)} KiB page, for ${HOLD_S} s`,
        value: `peak RSS ${fmt(peak)} MB (${fmt(held)} MB at the end); ${whole} of ${READERS} answers still held whole at the end`,
        reference: `${fmt(atRest)} MB at rest; a reading client's page meanwhile: median ${fmt(median(times), 1)} ms, p99 ${fmt(p99, 1)} ms`,
      },
    ];
  } finally {
    await node.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchSlowReaders()) console.log(`| ${r.name} | ${r.value} | ${r.reference} |`);
}
