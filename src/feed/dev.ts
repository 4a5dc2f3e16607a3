/**
 * `--feed dev` (the default): a deterministic local network. Every tick it accepts one block on each of P, C and
 * X and `xTxsPerTick` X-chain transactions. On a fresh database it first backfills `backfillMs` of history at a
 * coarser pace, so every view has data at once, then follows real time. The schedule's start is stored in the
 * position, so a restart continues the same network.
 */
import type {ChainName} from "../chains/index.js";
import type {ContainerKind} from "../index/endpoints.js";
import {devContainer} from "./devContainers.js";
import type {FeedStatus} from "./status.js";
import {sleep, type FeedBatch, type FeedItem, type FeedSource} from "./types.js";
import {deriveId} from "./derive.js";

export interface DevFeedOptions {
  /** History to backfill on a fresh database, ms (0 = none). */
  backfillMs: number;
  /** Time between backfilled ticks, ms. */
  backfillStepMs: number;
  /** Time between live ticks, ms. */
  liveStepMs: number;
  xTxsPerTick: number;
  /** Ticks per committed batch during backfill. */
  batchTicks: number;
}

export const defaultDevFeedOptions: DevFeedOptions = {
  backfillMs: 7 * 24 * 3_600_000,
  backfillStepMs: 5 * 60_000,
  liveStepMs: 2000,
  xTxsPerTick: 2,
  batchTicks: 200,
};

export interface DevFeedModules {
  status: FeedStatus;
  now?: () => number;
}

/** Position: schedule start (ms), live start (ms), next tick (all u64). */
function encode(startMs: number, liveMs: number, tick: number): Uint8Array {
  const b = new Uint8Array(24);
  const v = new DataView(b.buffer);
  v.setBigUint64(0, BigInt(startMs));
  v.setBigUint64(8, BigInt(liveMs));
  v.setBigUint64(16, BigInt(tick));
  return b;
}

function decode(b: Uint8Array): {startMs: number; liveMs: number; tick: number} {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return {startMs: Number(v.getBigUint64(0)), liveMs: Number(v.getBigUint64(8)), tick: Number(v.getBigUint64(16))};
}

export class DevFeed implements FeedSource {
  readonly key = "dev";
  private readonly now: () => number;

  constructor(
    private readonly opts: DevFeedOptions,
    private readonly modules: DevFeedModules,
  ) {
    this.now = modules.now ?? Date.now;
  }

  async run(position: Uint8Array | null, sink: (batch: FeedBatch) => Promise<void>, signal: AbortSignal): Promise<void> {
    const {status} = this.modules;
    let pos: {startMs: number; liveMs: number; tick: number};
    if (position && position.length === 24) {
      pos = decode(position);
    } else {
      const now = this.now();
      const backfillTicks = Math.floor(this.opts.backfillMs / this.opts.backfillStepMs);
      pos = {startMs: now - backfillTicks * this.opts.backfillStepMs, liveMs: now, tick: 0};
    }
    const backfillTicks = Math.round((pos.liveMs - pos.startMs) / this.opts.backfillStepMs);
    const tickTime = (t: number): number =>
      t < backfillTicks ? pos.startMs + t * this.opts.backfillStepMs : pos.liveMs + (t - backfillTicks) * this.opts.liveStepMs;

    status.sent();
    status.received();
    while (!signal.aborted) {
      const now = this.now();
      const items: FeedItem[] = [];
      let t = pos.tick;
      // Everything due is accepted at once (the backfill, or ticks missed while stopped), in bounded batches.
      while (tickTime(t) <= now && t - pos.tick < this.opts.batchTicks) {
        items.push(...this.tickItems(t, tickTime(t)));
        t++;
      }
      if (items.length > 0) {
        pos = {...pos, tick: t};
        await sink({items, position: encode(pos.startMs, pos.liveMs, pos.tick)});
        status.sent();
        status.received();
        continue;
      }
      status.setCaughtUp(true);
      status.sent();
      status.received();
      await sleep(Math.max(10, Math.min(tickTime(t) - now, 1000)), signal);
    }
  }

  private tickItems(tick: number, timeMs: number): FeedItem[] {
    const ns = BigInt(timeMs) * 1_000_000n;
    const out: FeedItem[] = [];
    const add = (chain: ChainName, kind: ContainerKind, n: number, k: number): void => {
      const bytes = devContainer({chain, kind, height: tick + 1, index: n, timestampSec: Math.floor(timeMs / 1000), txs: k});
      out.push({chain, kind, bytes, id: deriveId(chain, kind, bytes), timestampNs: ns + BigInt(out.length)});
    };
    add("P", "block", 0, 1 + (tick % 3));
    add("C", "block", 0, 2 + (tick % 5));
    add("X", "block", 0, this.opts.xTxsPerTick);
    for (let i = 0; i < this.opts.xTxsPerTick; i++) add("X", "tx", i, 1);
    return out;
  }
}
