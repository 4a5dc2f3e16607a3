// The primary-network decoders alone, no store: the data API's (decodePrimaryContainer, as the view calls it, keys of
// inputs deferred) and the index's framing (decodeContainer), on proposervm-wrapped X blocks of the fold bench's
// synthetic history (20 signed 2-in/2-out BaseTxs each) and P blocks of the dev network's BaseTxs. In txs per second
// of this process's CPU time (on a shared machine wall time counts other work).
// BENCH_BASELINE=<checkout> (built) runs that checkout's decoders too, alternating with this one's pass by pass, and
// reports this one's ratio to it. `node bench/run.js decode` (needs `npm run build`). Half a minute.
import path from "node:path";
import {ROOT, RUNS, fmt, median} from "./lib.mjs";
import {makeKeys, xHistory} from "../dist/src/dev/syntheticHistory.js";
import {buildPBlock} from "../dist/src/decode/builders.js";
import {NETWORKS} from "../dist/src/chains/index.js";
import {idFromString} from "../dist/src/util/cb58.js";

const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : null;
const PASS_MS = 400;

async function decoders(root) {
  const view = await import(path.join(root, "dist/src/dataApi/views/primary/decode.js"));
  const index = await import(path.join(root, "dist/src/decode/index.js"));
  return {view: view.decodePrimaryContainer, index: index.decodeContainer};
}

function corpus() {
  const net = NETWORKS.local;
  const x = [
    ...xHistory({
      txs: 4_000,
      keys: makeKeys(1_000, "bench-decode"),
      networkId: net.id,
      chainId: idFromString(net.chainIds.X),
      assetId: idFromString("2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"),
      startSeconds: 1_700_000_000,
    }),
  ];
  const p = Array.from({length: 200}, (_, i) =>
    buildPBlock({
      networkId: net.id,
      chainId: idFromString(net.chainIds.P),
      parentId: new Uint8Array(32),
      height: i + 1,
      timestamp: 1_700_000_000 + i,
      txs: 20,
      pChainHeight: 1n,
    }),
  );
  return {X: x.map((b) => ({bytes: b.bytes, id: "x"})), P: p.map((bytes) => ({bytes, id: "p"}))};
}

/** CPU milliseconds this process has used (the machine may be shared: wall time would count others' work). */
function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** txs per CPU second of one pass of `decode` over `blocks` (at least PASS_MS of CPU). */
function pass(blocks, decode) {
  let txs = 0;
  const t0 = cpuMs();
  let t = t0;
  while (t - t0 < PASS_MS) {
    for (const b of blocks) txs += decode(b);
    t = cpuMs();
  }
  return (txs * 1000) / (t - t0);
}

export async function benchDecode() {
  const blocks = corpus();
  const impls = [["this", await decoders(ROOT)]];
  if (BASELINE) impls.push(["baseline", await decoders(BASELINE)]);
  const cases = [];
  for (const chain of ["X", "P"]) {
    cases.push({
      name: `data API decoder, ${chain} blocks of 20 signed BaseTxs`,
      blocks: blocks[chain],
      run: (d) => (b) => d.view(chain, "block", b.bytes, {containerId: b.id, deferInputKeys: true}).txs.length,
    });
    cases.push({
      name: `index framing, ${chain} blocks of 20 signed BaseTxs`,
      blocks: blocks[chain],
      run: (d) => (b) => d.index(chain, "block", b.bytes).txCount,
    });
  }
  const rows = [];
  for (const c of cases) {
    const rates = impls.map(() => []);
    for (const [, d] of impls) pass(c.blocks, c.run(d)); // warm-up
    for (let r = 0; r < Math.max(RUNS, 5); r++) {
      const order = r % 2 === 0 ? impls.map((_, i) => i) : impls.map((_, i) => impls.length - 1 - i);
      for (const i of order) rates[i].push(pass(c.blocks, c.run(impls[i][1])));
    }
    const [mine, base] = rates.map(median);
    rows.push({
      name: `${c.name} (txs/s)`,
      value: fmt(mine),
      reference: base === undefined ? "-" : `baseline ${fmt(base)}`,
      ratio: base === undefined ? "-" : `${fmt((mine / base) * 100)} %`,
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`)
  for (const r of await benchDecode()) console.log(`| ${r.name} | ${r.value} | ${r.reference} | ${r.ratio} |`);
