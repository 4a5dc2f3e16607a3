/**
 * The ingester's pipeline when a commit fails (found in review): nothing committed after the failure may carry a
 * feed position past the batches that failed, and the restart re-delivers them. Real LevelDB; the failure is one
 * injected error in the database's commit write (a transient I/O error).
 */
import {rmSync} from "node:fs";
import {Writable} from "node:stream";
import {afterEach, describe, expect, it} from "vitest";
import {Bucket} from "../../../src/db/buckets.js";
import {openIndexDatabase} from "../../../src/containerIndex/database.js";
import {Ingester} from "../../../src/feed/ingest.js";
import {FeedStatus} from "../../../src/feed/status.js";
import type {FeedItem, FeedSource} from "../../../src/feed/types.js";
import {findEndpoint} from "../../../src/containerIndex/endpoints.js";
import {IndexStore} from "../../../src/containerIndex/store.js";
import {LoggerRegistry} from "../../../src/logger/index.js";
import {AvgTps} from "../../../src/metricsService/avgTps.js";
import {sha256} from "../../../src/util/sha256.js";
import {tempDir} from "../../helpers/node.js";

const xtx = findEndpoint("X", "tx")!;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

function item(n: number): FeedItem {
  const bytes = Buffer.from(`container ${n}`);
  return {chain: "X", kind: "tx", endpoint: xtx, id: sha256(bytes), bytes, timestampNs: 1n};
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("Ingester", () => {
  it.each([
    ["later batches are not committed past it", 4],
    ["a source idle at the tip is restarted at once, not at its next batch", 3],
  ])("after a failed commit, %s; the restart delivers every container in order", async (_what, count) => {
    const dir = tempDir();
    dirs.push(dir);
    const db = await openIndexDatabase(dir);
    const store = await IndexStore.open(db);
    // The second commit of a batch (the write with its feed position) fails once.
    const writeMain = db.writeMain.bind(db);
    let commits = 0;
    db.writeMain = async (ops) => {
      if (ops.some((o) => o.key[0] === Bucket.feedPosition) && ++commits === 2) throw new Error("injected I/O error");
      return writeMain(ops);
    };
    const items = [1, 2, 3, 4].slice(0, count).map(item);
    const runs: number[] = [];
    // A source that resumes from its position (the number of items delivered) and, on its first run, pauses at
    // the tip before the last item (the failure of batch 2 lands during the pause, unobserved by the sink).
    const source: FeedSource = {
      key: "test",
      async run(position, sink, signal) {
        const from = position === null ? 0 : position[0]!;
        runs.push(from);
        for (let i = from; i < items.length && !signal.aborted; i++) {
          if (runs.length === 1 && i === 3) await sleep(100);
          await sink({items: [items[i]!], position: Uint8Array.of(i + 1)});
        }
        while (!signal.aborted) await sleep(20);
      },
    };
    const lines: string[] = [];
    const loggers = new LoggerRegistry({
      logLevel: "OFF",
      displayLevel: "ERROR",
      logDir: null,
      displayStream: new Writable({write: (c, _e, cb) => (lines.push(String(c)), cb())}),
    });
    const ingester = new Ingester(
      {indexEnabled: true},
      {source, store, status: new FeedStatus(), avgTps: new AvgTps(), logger: loggers.get("feed"), register: null},
    );
    await ingester.start();
    const idx = store.index(xtx);
    for (const deadline = Date.now() + 30_000; idx.next < BigInt(count) && Date.now() < deadline; ) await sleep(25);
    await ingester.close();

    expect(idx.next).toBe(BigInt(count));
    for (const [n, it] of items.entries()) expect(await idx.getIndex(it.id)).toBe(BigInt(n));
    expect([...(await store.feedPosition("test"))!]).toEqual([count]);
    // Restarted from the committed position (after container 1), once.
    expect(runs).toEqual([0, 1]);
    // The log names the failure itself, not only "an earlier batch failed".
    expect(lines.some((l) => l.includes("injected I/O error"))).toBe(true);
    await db.close();
    await loggers.close();
  });
});

describe("Ingester's TPS series", () => {
  const DAY = 86_400;
  const D0 = 19_000 * DAY;
  const cblock = findEndpoint("C", "block")!;
  // Three days of C blocks, with a block dated back into the day before (kept in its own day).
  const facts = [
    {t: D0 + 100, txs: 2},
    {t: D0 + 400, txs: 4},
    {t: D0 + DAY + 50, txs: 10},
    {t: D0 + DAY + 70, txs: 1},
    {t: D0 + 300, txs: 3},
    {t: D0 + 2 * DAY + 10, txs: 7},
    {t: D0 + 2 * DAY + 3_000, txs: 5},
  ];

  async function blocks(): Promise<FeedItem[]> {
    const {buildCBlock} = await import("../../../src/decode/builders.js");
    const {decodeProposerBlock} = await import("../../../src/decode/proposervm.js");
    let parent: Uint8Array = new Uint8Array(32);
    return facts.map((b, i) => {
      const bytes = buildCBlock({
        networkId: 1,
        chainId: new Uint8Array(32),
        parentId: parent,
        parentHash: new Uint8Array(32),
        height: i + 1,
        timestamp: b.t,
        txs: b.txs,
        pChainHeight: 0n,
      });
      parent = decodeProposerBlock(bytes).id;
      return {chain: "C", kind: "block", endpoint: cblock, id: parent, bytes, timestampNs: 1n};
    });
  }

  /** Runs an Ingester on `dir` until every item is committed (a restart resumes after what the store holds). */
  async function run(
    dir: string,
    items: FeedItem[],
    opts: {indexEnabled: boolean; failSecondCommit?: boolean},
  ): Promise<AvgTps> {
    const db = await openIndexDatabase(dir);
    const store = await IndexStore.open(db);
    if (opts.failSecondCommit) {
      const writeMain = db.writeMain.bind(db);
      let commits = 0;
      db.writeMain = async (ops) => {
        if (ops.some((o) => o.key[0] === Bucket.feedPosition) && ++commits === 2) throw new Error("injected I/O error");
        return writeMain(ops);
      };
    }
    let delivered = false;
    const source: FeedSource = {
      key: "test",
      async run(position, sink, signal) {
        // Two blocks a batch, so a failed batch holds blocks of two days.
        for (let i = position === null ? 0 : position[0]!; i < items.length && !signal.aborted; i += 2) {
          await sink({items: items.slice(i, i + 2), position: Uint8Array.of(Math.min(i + 2, items.length))});
        }
        delivered = true;
        while (!signal.aborted) await sleep(20);
      },
    };
    const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "OFF", logDir: null});
    const avgTps = new AvgTps();
    const ingester = new Ingester(opts, {
      source,
      store,
      status: new FeedStatus(),
      avgTps,
      logger: loggers.get("feed"),
      register: null,
    });
    await ingester.start();
    const committed = async (): Promise<boolean> =>
      delivered && (await store.feedPosition("test"))?.[0] === items.length;
    for (const deadline = Date.now() + 30_000; !(await committed()) && Date.now() < deadline; ) await sleep(10);
    expect(await committed()).toBe(true);
    await ingester.close();
    await db.close();
    await loggers.close();
    return avgTps;
  }

  /** A new database directory, and the blocks. */
  async function setup(): Promise<{dir: string; items: FeedItem[]}> {
    const dir = tempDir();
    dirs.push(dir);
    return {dir, items: await blocks()};
  }

  /** The series of every block once, in order. */
  function reference(): AvgTps {
    const series = new AvgTps();
    for (const b of facts) series.add("C", {timestamp: b.t, txCount: b.txs});
    return series;
  }

  it("stores each changed day with its blocks, so a restart restores the series without reading the index, a failed batch counted once", async () => {
    const {dir, items} = await setup();
    const want = reference().series("C").points;
    expect(want).toHaveLength(3);

    expect((await run(dir, items, {indexEnabled: true, failSecondCommit: true})).series("C").points).toEqual(want);
    // Indexing off: nothing to scan, so the series can only come from the stored days.
    expect((await run(dir, items, {indexEnabled: false})).series("C").points).toEqual(want);
  });

  it.each([
    // As a database of an earlier version: no days, nothing they cover.
    [
      "a database written before the days were stored",
      async (store: IndexStore): Promise<void> => store.replaceTpsDays("C", [], null),
    ],
    // As after a run that did not store them: days that cover another block, one of them bogus.
    [
      "days that miss the chain's last block, one of them bogus",
      async (store: IndexStore): Promise<void> => {
        const bogus = {
          start: D0 + 9 * DAY,
          txs: 99,
          firstBlock: D0 + 9 * DAY,
          lastBlock: D0 + 9 * DAY + 1,
          prevLastBlock: null,
        };
        await store.replaceTpsDays("C", [...(await store.tpsDays("C")), bogus], new Uint8Array(32).fill(7));
      },
    ],
  ])(
    "does not trust %s: starts empty with indexing off, scans the index with it on and stores what it found",
    async (_what, tamper) => {
      const {dir, items} = await setup();
      const want = (await run(dir, items, {indexEnabled: true})).series("C").points;
      const db = await openIndexDatabase(dir);
      const store = await IndexStore.open(db);
      expect(await store.tpsDays("C")).toHaveLength(3);
      await tamper(store);
      await db.close();

      // Indexing off, nothing to scan: the series starts empty rather than from days that miss blocks.
      expect((await run(dir, items, {indexEnabled: false})).series("C").points).toEqual([]);
      expect((await run(dir, items, {indexEnabled: true})).series("C").points).toEqual(want);
      expect((await run(dir, items, {indexEnabled: false})).series("C").points).toEqual(want);
    },
  );

  it("scans an index written without chain state (as tools write one) once, then trusts the days it stored", async () => {
    const {dir, items} = await setup();
    const want = reference();
    let db = await openIndexDatabase(dir);
    let store = await IndexStore.open(db);
    await store.accept(items, {key: "test", value: Uint8Array.of(items.length)});
    expect(await store.chainState("C")).toBeNull();
    await db.close();

    expect((await run(dir, items, {indexEnabled: true})).series("C").points).toEqual(want.series("C").points);
    // The days name the index's last block: a day added to them without changing that is trusted, not rescanned.
    db = await openIndexDatabase(dir);
    store = await IndexStore.open(db);
    expect(await store.tpsCover("C")).toEqual(items.at(-1)!.id);
    const extra = {
      start: D0 + 9 * DAY,
      txs: 9,
      firstBlock: D0 + 9 * DAY,
      lastBlock: D0 + 9 * DAY + 9,
      prevLastBlock: D0 + 2 * DAY + 3_000,
    };
    await store.replaceTpsDays("C", [...(await store.tpsDays("C")), extra], items.at(-1)!.id);
    await db.close();
    want.add("C", {timestamp: D0 + 9 * DAY, txCount: 9});
    want.add("C", {timestamp: D0 + 9 * DAY + 9, txCount: 0});
    expect((await run(dir, items, {indexEnabled: true})).series("C").points).toEqual(want.series("C").points);
  });
});
