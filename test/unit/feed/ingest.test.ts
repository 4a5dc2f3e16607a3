/**
 * The ingester's pipeline when a commit fails (found in review): nothing committed after the failure may carry a
 * feed position past the batches that failed, and the restart re-delivers them. Real LevelDB; the failure is one
 * injected error in the database's commit write (a transient I/O error).
 */
import {rmSync} from "node:fs";
import {Writable} from "node:stream";
import {afterEach, describe, expect, it} from "vitest";
import {Database} from "../../../src/db/controller.js";
import {Ingester} from "../../../src/feed/ingest.js";
import {FeedStatus} from "../../../src/feed/status.js";
import type {FeedItem, FeedSource} from "../../../src/feed/types.js";
import {findEndpoint} from "../../../src/index/endpoints.js";
import {IndexStore} from "../../../src/index/store.js";
import {LoggerRegistry} from "../../../src/logger/index.js";
import {AvgTps} from "../../../src/metricsService/avgTps.js";
import {sha256} from "../../../src/util/cb58.js";
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
    const db = await Database.open(dir);
    const store = await IndexStore.open(db);
    // The second commit fails once.
    const writeMain = db.writeMain.bind(db);
    let commits = 0;
    db.writeMain = async (ops) => {
      if (++commits === 2) throw new Error("injected I/O error");
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
    for (let i = 0; i < 200 && idx.next < BigInt(count); i++) await sleep(25);
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
