/**
 * Crash safety (docs/api/index.md): a real avaext process ingesting a file feed is killed with SIGKILL at random
 * moments, several times in a row, then restarted; the index must hold every container of the feed exactly
 * once, in feed order, contiguous from 0, with every ID mapping back to its index; and, fed real blocks, the
 * avg_tps series stored with them must be exactly the feed's.
 */
import {appendFileSync, mkdirSync, rmSync, writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, describe, expect, it} from "vitest";
import {containerBytes, feedLine, sha256Id} from "../helpers/feed.js";
import {tempDir} from "../helpers/node.js";
import {rpc, startChild} from "../helpers/child.js";
import {prng} from "../helpers/prng.js";

const ENDPOINTS = [
  {chain: "X", kind: "tx"},
  {chain: "P", kind: "block"},
  {chain: "C", kind: "block"},
] as const;
const dir = tempDir();
afterAll(() => rmSync(dir, {recursive: true, force: true}));

function chunk(from: number, count: number): string {
  let out = "";
  for (let n = from; n < from + count; n++) {
    const e = ENDPOINTS[n % ENDPOINTS.length]!;
    out += feedLine({chain: e.chain, kind: e.kind, n, size: 256});
  }
  return out;
}

describe("kill -9 during ingest", () => {
  it("resumes exactly after repeated SIGKILLs: nothing lost, nothing twice, contiguous", async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100000);
    console.log(`crash test seed ${seed}`);
    const rand = prng(seed);
    const feed = path.join(dir, "feed.ndjson");
    const data = path.join(dir, "data");
    const PER_ROUND = 15_000;
    const ROUNDS = 4;
    writeFileSync(feed, chunk(0, PER_ROUND));
    let total = PER_ROUND;
    const flags = [
      `--data-dir=${data}`,
      "--index-enabled",
      `--feed=file:${feed}`,
      "--health-check-frequency=1s",
      "--log-level=WARN",
    ];
    let kills = 0;
    let midIngest = 0;
    // Up to EXTRA more rounds, each appending, when no random kill happened to land mid-ingest.
    const EXTRA = 6;
    for (let round = 0; round < ROUNDS || (midIngest === 0 && round < ROUNDS + EXTRA); round++) {
      const child = await startChild(flags);
      // Kill at a random moment: while the backlog is being ingested, sometimes while more is appended.
      // Extra rounds wait longer too, for a machine so slow that nothing is committed within 420 ms.
      const delay = (round < ROUNDS ? 20 : 100) + Math.floor(rand() * (round < ROUNDS ? 400 : 1500));
      if (rand() < 0.5 || round >= ROUNDS) {
        const from = total;
        setTimeout(() => appendFileSync(feed, chunk(from, PER_ROUND)), delay / 2);
        total += PER_ROUND;
      }
      await new Promise((r) => setTimeout(r, delay));
      const last = await rpc(child.url, "/ext/index/X/tx", "index.getLastAccepted").catch(() => null);
      const indexed = Number((last?.result as {index?: string} | undefined)?.index ?? -1) + 1;
      if (indexed > 0 && indexed < total / ENDPOINTS.length) midIngest++;
      child.proc.kill("SIGKILL");
      await child.exited;
      kills++;
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    // The kills must land while containers are being written, or the test proves nothing.
    console.log(`kills: ${kills}, during ingest: ${midIngest}`);
    expect(midIngest).toBeGreaterThanOrEqual(1);

    // A last, clean run catches up; then every endpoint is checked against the feed.
    const child = await startChild(flags);
    try {
      const want = new Map<string, string[]>(ENDPOINTS.map((e) => [`${e.chain}/${e.kind}`, []]));
      for (let n = 0; n < total; n++) {
        const e = ENDPOINTS[n % ENDPOINTS.length]!;
        want.get(`${e.chain}/${e.kind}`)!.push(sha256Id(containerBytes(e.chain, e.kind, n, 256)));
      }
      for (const e of ENDPOINTS) {
        const p = `/ext/index/${e.chain}/${e.kind}`;
        const ids = want.get(`${e.chain}/${e.kind}`)!;
        const deadline = Date.now() + 60_000;
        for (;;) {
          const last = await rpc(child.url, p, "index.getLastAccepted");
          if ((last.result as {index?: string} | undefined)?.index === String(ids.length - 1)) break;
          if (Date.now() > deadline) throw new Error(`${p} did not catch up: ${JSON.stringify(last)}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        const got: string[] = [];
        for (let start = 0; start < ids.length; start += 1024) {
          const r = await rpc(child.url, p, "index.getContainerRange", {
            startIndex: start,
            numToFetch: 1024,
            encoding: "hexnc",
          });
          const cs = (r.result as {containers: {id: string; index: string}[]}).containers;
          cs.forEach((c, i) => expect(c.index).toBe(String(start + i)));
          got.push(...cs.map((c) => c.id));
        }
        // Exactly the feed's containers, in feed order: none lost, none twice.
        expect(got.length).toBe(ids.length);
        const firstBad = got.findIndex((g, i) => g !== ids[i]);
        if (firstBad >= 0)
          console.log(
            `${p} first mismatch at ${firstBad}: got ${got.slice(firstBad, firstBad + 3)} want ${ids.slice(firstBad, firstBad + 3)}; got[i] is want[${ids.indexOf(got[firstBad]!)}]`,
          );
        expect(got).toEqual(ids);
        for (const k of [0, Math.floor(ids.length / 2), ids.length - 1]) {
          expect((await rpc(child.url, p, "index.getIndex", {id: ids[k]})).result).toEqual({index: String(k)});
        }
      }
    } finally {
      child.proc.kill("SIGTERM");
      expect(await child.exited).toBe(0);
    }
  }, 180_000);
});

describe("kill -9 while blocks change the avg_tps series", () => {
  it("stores each day with its blocks: after repeated SIGKILLs the series is exactly that of the feed, and is stored whole", async () => {
    const {buildCBlock} = await import("../../src/decode/builders.js");
    const {decodeProposerBlock} = await import("../../src/decode/proposervm.js");
    const {AvgTps} = await import("../../src/metricsService/avgTps.js");
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100000);
    console.log(`tps crash test seed ${seed}`);
    const rand = prng(seed);
    // Real-format C blocks over about a month: irregular gaps, 0-40 transactions each.
    const N = 20_000;
    const expected = new AvgTps();
    let parent: Uint8Array = new Uint8Array(32);
    let t = 1_700_000_000;
    let lines = "";
    for (let i = 0; i < N; i++) {
      t += 1 + Math.floor(rand() * 260);
      const txs = Math.floor(rand() * 41);
      const bytes = buildCBlock({
        networkId: 1,
        chainId: new Uint8Array(32),
        parentId: parent,
        parentHash: new Uint8Array(32),
        height: i + 1,
        timestamp: t,
        txs,
        pChainHeight: 0n,
      });
      parent = decodeProposerBlock(bytes).id;
      expected.add("C", {timestamp: t, txCount: txs});
      lines += JSON.stringify({chain: "C", kind: "block", bytes: "0x" + Buffer.from(bytes).toString("hex")}) + "\n";
    }
    const want = expected.series("C").points;
    expect(want.length).toBeGreaterThan(25);
    const sub = path.join(dir, "tps");
    const feed = path.join(sub, "feed.ndjson");
    const data = path.join(sub, "data");
    mkdirSync(sub, {recursive: true});
    writeFileSync(feed, lines);
    const flags = [`--data-dir=${data}`, "--index-enabled", `--feed=file:${feed}`, "--log-level=WARN"];
    let midIngest = 0;
    for (let round = 0; round < 4 || (midIngest === 0 && round < 10); round++) {
      const child = await startChild(flags);
      await new Promise((r) => setTimeout(r, 20 + Math.floor(rand() * (round < 4 ? 600 : 1500))));
      const last = await rpc(child.url, "/ext/index/C/block", "index.getLastAccepted").catch(() => null);
      const indexed = Number((last?.result as {index?: string} | undefined)?.index ?? -1) + 1;
      if (indexed > 0 && indexed < N) midIngest++;
      child.proc.kill("SIGKILL");
      await child.exited;
    }
    console.log(`tps kills landing mid-ingest: ${midIngest}`);
    expect(midIngest).toBeGreaterThanOrEqual(1);

    const child = await startChild(flags);
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const last = await rpc(child.url, "/ext/index/C/block", "index.getLastAccepted");
        if ((last.result as {index?: string} | undefined)?.index === String(N - 1)) break;
        if (Date.now() > deadline) throw new Error(`the index did not catch up: ${JSON.stringify(last)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // The feed commits a batch before the series takes its blocks: wait for the last day's last block.
      let got: unknown[] = [];
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
        got =
          ((await (await fetch(`${child.url}/v1/avg_tps/C?pageSize=100`)).json()) as {results?: unknown[]}).results ??
          [];
        if (JSON.stringify(got) === JSON.stringify(want)) break;
      }
      expect(got).toEqual(want);
    } finally {
      child.proc.kill("SIGTERM");
      expect(await child.exited).toBe(0);
    }
    // With indexing off nothing can be scanned: the series is the stored days', and they include every block.
    const again = await startChild([
      `--data-dir=${data}`,
      "--index-allow-incomplete",
      `--feed=file:${feed}`,
      "--log-level=WARN",
    ]);
    try {
      let got: unknown[] = [];
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
        got =
          ((await (await fetch(`${again.url}/v1/avg_tps/C?pageSize=100`)).json()) as {results?: unknown[]}).results ??
          [];
        if (got.length > 0) break;
      }
      expect(got).toEqual(want);
    } finally {
      again.proc.kill("SIGTERM");
      expect(await again.exited).toBe(0);
    }
  }, 180_000);
});
