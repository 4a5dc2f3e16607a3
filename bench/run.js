#!/usr/bin/env node
// `npm run bench`: every figure, as the median of BENCH_RUNS runs, with the ratio to its reference measured in
// the same run. Prints a Markdown table (docs/performance.md holds the current figures).
// `node bench/run.js <section>` runs one section: primitives, ratelimit, decode, transport, index, dataapi, genesis,
// evm, metrics, icm, warp, webhooks, heavyreads, slowreaders, soak.
import os from "node:os";
import {CONNECTION_SET, RUNS, SECONDS, fmt} from "./lib.mjs";
import {benchIndex} from "./index.mjs";
import {benchDataApi} from "./dataApi.mjs";
import {benchGenesis} from "./genesis.mjs";
import {benchEvm} from "./evm.mjs";
import {benchMetrics} from "./metrics.mjs";
import {benchIcm} from "./icm.mjs";
import {benchWarp} from "./warp.mjs";
import {benchPrimitives} from "./primitives.mjs";
import {benchDecode} from "./decode.mjs";
import {benchSoak} from "./soak.mjs";
import {benchTransport} from "./transport.mjs";
import {benchSlowReaders} from "./slowReaders.mjs";
import {benchRateLimit} from "./rateLimit.mjs";
import {benchWebhooks} from "./webhooks.mjs";
import {benchHeavyReads} from "./heavyReads.mjs";

// The soak runs only when asked for (`node bench/run.js soak`): it takes 10 minutes.
const sections = [
  benchPrimitives,
  benchRateLimit,
  benchDecode,
  benchTransport,
  benchIndex,
  benchDataApi,
  benchGenesis,
  benchEvm,
  benchMetrics,
  benchIcm,
  benchWarp,
  benchWebhooks,
  benchHeavyReads,
  benchSlowReaders,
  benchSoak,
];
const only = process.argv[2];

const rows = [];
for (const s of sections) {
  if (only ? !s.name.toLowerCase().includes(only.toLowerCase()) : s === benchSoak) continue;
  for (const r of await s()) {
    rows.push(r);
    console.error(`done: ${r.name}`);
  }
}

console.log(
  `\nMachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${fmt(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);
console.log(`Median of ${RUNS} runs of ${SECONDS}s; request figures at ${CONNECTION_SET.join(" and ")} connections.\n`);
console.log("| figure | avaext | reference | ratio | p99 avaext | p99 reference |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const r of rows) {
  if (r.refRps !== undefined) {
    console.log(
      `| ${r.name} | ${fmt(r.rps)} req/s | ${fmt(r.refRps)} req/s | ${fmt(r.ratio * 100)} % | ${fmt(r.p99, 1)} ms | ${fmt(r.refP99, 1)} ms |`,
    );
  } else {
    console.log(`| ${r.name} | ${r.value} | ${r.reference ?? "-"} | ${r.ratio ?? "-"} | ${r.p99 ?? "-"} | - |`);
  }
}
