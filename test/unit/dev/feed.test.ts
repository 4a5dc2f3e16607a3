/**
 * The dev feed's stored position: a network written by an earlier schedule (other accounts, contracts or traffic
 * on its EVMs, another genesis) cannot be replayed, so it is refused with a message naming what to do, before
 * anything starts. Its genesis file: written once, read back on a restart, refused when it is another network's.
 * Its X-chain: a DAG of vertices until the Cortina tick, the stop vertex, then blocks linked to it; a restart on
 * either side of that tick continues the same chain.
 */
import {readFileSync, writeFileSync} from "node:fs";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {devGenesisText} from "../../../src/dev/genesis.js";
import {genesisFromText} from "../../../src/genesis/resolve.js";
import {tempDir} from "../../helpers/node.js";
import {NETWORKS} from "../../../src/chains/index.js";
import {decodeAvmBlock, decodeVertex} from "../../../src/decode/avm.js";
import {buildAvmBlock} from "../../../src/decode/builders.js";
import {decodeProposerBlock} from "../../../src/decode/proposervm.js";
import {DevFeed, DevScheduleVersionError, cortinaTick, defaultDevFeedOptions} from "../../../src/dev/feed.js";
import {FeedStatus} from "../../../src/feed/status.js";
import type {FeedBatch, FeedItem} from "../../../src/feed/types.js";
import {idFromString} from "../../../src/util/cb58.js";
import {sha256} from "../../../src/util/sha256.js";

const feed = (): DevFeed =>
  new DevFeed(
    {...defaultDevFeedOptions, backfillMs: 0},
    {status: new FeedStatus(), network: NETWORKS.local, evm: null},
  );

describe("dev feed position", () => {
  it("refuses a position of an earlier schedule, naming the way out", async () => {
    for (const len of [24 + 6 * 32, 24 + 4 * 32]) {
      const err = await feed()
        .prepare(new Uint8Array(len))
        .catch((e: Error) => e);
      expect(err).toBeInstanceOf(DevScheduleVersionError);
      expect((err as Error).message).toMatch(
        /written by an earlier avaext \(schedule 1, this one runs 4\).*Delete the data directory, or start with another --data-dir/,
      );
    }
    // Schedule 2's X-chain was blocks from its first tick: its chains cannot be continued as a DAG; schedule 3 started
    // from a genesis of the dev network's own (another AVAX asset, other funds), with no validators of its own nodes.
    for (const version of [2, 3]) {
      const earlier = new Uint8Array(24 + 6 * 32 + 4);
      new DataView(earlier.buffer).setUint32(earlier.length - 4, version);
      await expect(feed().prepare(earlier)).rejects.toThrow(new RegExp(`schedule ${version}, this one runs 4`));
    }
    await expect(feed().prepare(new Uint8Array(7))).rejects.toThrow(/not one this version writes/);
  });

  it("starts a new schedule without a position, and takes its own position back", async () => {
    const f = feed();
    await f.prepare(null);
    const items: Uint8Array[] = [];
    const ctl = new AbortController();
    await f
      .run(
        null,
        async (batch) => {
          items.push(batch.position);
          ctl.abort();
        },
        ctl.signal,
      )
      .catch(() => undefined);
    expect(items.length).toBeGreaterThan(0);
    await expect(feed().prepare(items[0]!)).resolves.toBeUndefined();
  });
});

const STEP = defaultDevFeedOptions.backfillStepMs;
/** 40 backfilled ticks in batches of 10: Cortina at tick 20, a batch boundary on each side of it. */
const DAG = {...defaultDevFeedOptions, backfillMs: 40 * STEP, batchTicks: 10};
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** The first `n` batches a dev feed sends from `position`. */
async function batches(position: Uint8Array | null, n: number, now: number): Promise<FeedBatch[]> {
  const f = new DevFeed(DAG, {status: new FeedStatus(), network: NETWORKS.local, evm: null, now: () => now});
  await f.prepare(position);
  const out: FeedBatch[] = [];
  const ctl = new AbortController();
  await f.run(
    position,
    async (batch) => {
      out.push(batch);
      if (out.length === n) ctl.abort();
    },
    ctl.signal,
  );
  return out;
}

const of = (items: FeedItem[], chain: string, kind: string): FeedItem[] =>
  items.filter((i) => i.chain === chain && i.kind === kind);

describe("dev feed X-chain: a DAG until Cortina, then blocks", () => {
  it("links the first vertices, the stop vertex and the first block, and a restart on either side continues them", async () => {
    expect(cortinaTick(40)).toBe(20);
    expect(cortinaTick(2016)).toBe(300);
    expect(cortinaTick(0)).toBe(0);
    const now = Date.now();
    const all = await batches(null, 4, now);
    const items = all.flatMap((b) => b.items);
    const X = idFromString(NETWORKS.local.chainIds.X);

    const vtxs = of(items, "X", "vtx").map((i) => ({item: i, v: decodeVertex(i.bytes), version: i.bytes[1]}));
    const stop = vtxs.at(-1)!;
    const dag = vtxs.slice(0, -1);
    expect(dag.length).toBeGreaterThanOrEqual(20);
    expect(dag.every((x) => x.version === 0) && stop.version === 1).toBe(true);
    // The first vertex: height 0, no parents; every other names earlier vertices, one above the highest of them.
    expect(dag[0]!.v.height).toBe(0n);
    expect(dag[0]!.v.parentIds).toEqual([]);
    const seen = new Map<string, bigint>();
    const childless = new Set<string>();
    for (const {item, v} of vtxs) {
      expect(hex(item.id)).toBe(hex(sha256(item.bytes)));
      expect(hex(v.chainId)).toBe(hex(X));
      const heights = v.parentIds.map((p) => seen.get(hex(p)));
      expect(heights.every((h) => h !== undefined)).toBe(true);
      expect(v.height).toBe(heights.reduce<bigint>((m, h) => (h! + 1n > m ? h! + 1n : m), 0n));
      for (const p of v.parentIds) childless.delete(hex(p));
      const sorted = [...v.parentIds].map(hex).sort();
      expect(v.parentIds.map(hex)).toEqual(sorted);
      seen.set(hex(item.id), v.height);
      childless.add(hex(item.id));
    }
    // A real DAG: some vertex has two parents (independent txs of a tick are siblings).
    expect(dag.some((x) => x.v.parentIds.length > 1)).toBe(true);
    // The stop vertex ends the DAG: no txs, on the whole frontier, and nothing after it.
    expect(stop.v.txs).toEqual([]);
    expect(childless).toEqual(new Set([hex(stop.item.id)]));
    // X/tx holds exactly the DAG's txs, each accepted before its vertex; none after Cortina.
    const xTxs = of(items, "X", "tx");
    expect(xTxs.map((t) => hex(t.id))).toEqual(dag.flatMap((x) => x.v.txIds.map(hex)));
    expect(xTxs.every((t) => t.timestampNs < stop.item.timestampNs)).toBe(true);

    // The blocks: the first names the linearised chain's genesis block (parent: the stop vertex) as its parent.
    const blocks = of(items, "X", "block").map((i) => ({item: i, w: decodeProposerBlock(i.bytes)}));
    expect(blocks.length).toBe(20);
    expect(blocks[0]!.item.timestampNs).toBeGreaterThan(stop.item.timestampNs);
    const first = decodeAvmBlock(blocks[0]!.w.inner);
    const genesis = buildAvmBlock({
      time: BigInt(first.timestamp),
      parentId: stop.item.id,
      height: 0n,
      txs: [],
      root: new Uint8Array(32),
    });
    expect(first.height).toBe(1n);
    expect(hex(first.parentId)).toBe(hex(sha256(genesis)));
    expect(hex(blocks[0]!.w.parentId)).toBe(hex(sha256(genesis)));
    for (let i = 1; i < blocks.length; i++) {
      const b = decodeAvmBlock(blocks[i]!.w.inner);
      expect(b.height).toBe(BigInt(i + 1));
      expect(hex(b.parentId)).toBe(hex(sha256(blocks[i - 1]!.w.inner)));
      expect(hex(blocks[i]!.w.parentId)).toBe(hex(blocks[i - 1]!.item.id));
    }

    // Restarted after the 1st batch (tick 10, before Cortina) and after the 3rd (tick 30, after it): the same
    // containers follow, byte for byte.
    for (const k of [0, 2]) {
      const [next] = await batches(all[k]!.position, 1, now);
      expect(next!.items.map((i) => `${i.chain}/${i.kind}/${hex(i.bytes)}`)).toEqual(
        all[k + 1]!.items.map((i) => `${i.chain}/${i.kind}/${hex(i.bytes)}`),
      );
      expect(hex(next!.position)).toBe(hex(all[k + 1]!.position));
    }
  });

  it("without a backfill is linearised at its first tick: blocks from the start, no vertex, no X/tx", async () => {
    const f = new DevFeed(
      {...defaultDevFeedOptions, backfillMs: 0},
      {status: new FeedStatus(), network: NETWORKS.local, evm: null},
    );
    const ctl = new AbortController();
    const items: FeedItem[] = [];
    await f.run(
      null,
      async (batch) => {
        items.push(...batch.items);
        ctl.abort();
      },
      ctl.signal,
    );
    expect(of(items, "X", "vtx")).toEqual([]);
    expect(of(items, "X", "tx")).toEqual([]);
    const [block] = of(items, "X", "block");
    expect(decodeAvmBlock(decodeProposerBlock(block!.bytes).inner).height).toBe(1n);
  });
});

describe("dev feed genesis file", () => {
  const withFile = (file: string, now: () => number): DevFeed =>
    new DevFeed(
      {...defaultDevFeedOptions, backfillMs: 3_600_000, genesisPath: file},
      {status: new FeedStatus(), network: NETWORKS.local, evm: null, now},
    );

  it("writes genesis_local.json with its genesis time, reads it back on a restart, refuses another network's", async () => {
    const file = path.join(tempDir(), "data", "genesis.json");
    const start = 1_800_000_000_000;
    const f = withFile(file, () => start);
    await f.prepare(null);
    // The schedule starts an hour back (the backfill); its genesis a minute before that.
    const text = readFileSync(file, "utf8");
    expect(text).toBe(devGenesisText(NETWORKS.local.id, BigInt((start - 3_600_000) / 1000 - 60)));
    expect(f.genesisText()).toBe(text);
    const g = genesisFromText(text, "dev").build();
    expect(g.chainIds).toEqual(NETWORKS.local.chainIds);
    // A restart (a stored position) at another time reads the same file and keeps the same network.
    const items: Uint8Array[] = [];
    const ctl = new AbortController();
    await f
      .run(
        null,
        async (batch) => {
          items.push(batch.position);
          ctl.abort();
        },
        ctl.signal,
      )
      .catch(() => undefined);
    const again = withFile(file, () => start + 86_400_000);
    await again.prepare(items[0]!);
    expect(again.genesisText()).toBe(text);
    expect(readFileSync(file, "utf8")).toBe(text);
    // Another network's file in its place is refused.
    writeFileSync(file, devGenesisText(NETWORKS.local.id, 1_700_000_000n));
    await expect(withFile(file, () => start).prepare(items[0]!)).rejects.toThrow(
      /is not the genesis of the dev network this data directory holds/,
    );
  });
});
