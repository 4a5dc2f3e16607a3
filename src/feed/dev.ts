/**
 * `--feed dev` (the default): a deterministic local network. Every tick it accepts a block on each of C and X and
 * one or more on P (a reward's proposal and commit blocks come before the tick's standard block), carrying the real
 * signed transactions of src/dev/primaryNetwork.ts; the X block's transactions also go to X/tx. On a fresh database
 * it first backfills `backfillMs` of history at a coarser pace, so every view has data at once, then follows real
 * time. The schedule's start and next tick are stored in the position; a restart replays the schedule (it is
 * deterministic) to rebuild the wallets, heights and parents, and continues the same network.
 */
import type {NetworkInfo} from "../chains/index.js";
import {buildAvmBlock, buildBanffBlock, buildCBlock} from "../decode/builders.js";
import {decodeEvmBlock} from "../decode/coreth.js";
import {buildProposerBlock} from "../decode/proposervm.js";
import {DevPrimaryNetwork} from "../dev/primaryNetwork.js";
import {decodeProposerBlock} from "../decode/proposervm.js";
import {idFromString, sha256} from "../util/cb58.js";
import {findEndpoint} from "../index/endpoints.js";
import type {FeedStatus} from "./status.js";
import {sleep, type FeedBatch, type FeedItem, type FeedSource} from "./types.js";

export interface DevFeedOptions {
  /** History to backfill on a fresh database, ms (0 = none). */
  backfillMs: number;
  /** Time between backfilled ticks, ms. */
  backfillStepMs: number;
  /** Time between live ticks, ms. */
  liveStepMs: number;
  /** Ticks per committed batch during backfill. */
  batchTicks: number;
}

export const defaultDevFeedOptions: DevFeedOptions = {
  backfillMs: 7 * 24 * 3_600_000,
  backfillStepMs: 5 * 60_000,
  liveStepMs: 2000,
  batchTicks: 200,
};

export interface DevFeedModules {
  status: FeedStatus;
  network: NetworkInfo;
  now?: () => number;
}

/** The last block IDs each chain's next block names as its parent (kept in the position, so restarts link up). */
interface Parents {
  p: Uint8Array;
  x: Uint8Array;
  c: Uint8Array;
  /** The previous EVM block's hash (the inner coreth block's parent). */
  eth: Uint8Array;
  /** The previous inner P and X blocks' IDs (the inner blocks' parents, as on mainnet). */
  pInner: Uint8Array;
  xInner: Uint8Array;
}

interface DevPosition {
  startMs: number;
  liveMs: number;
  tick: number;
  parents: Parents;
}

const POSITION_LEN = 24 + 6 * 32;
/** Positions written before the inner parents were kept: their next inner blocks name a zero parent. */
const OLD_POSITION_LEN = 24 + 4 * 32;

/** Position: schedule start (ms), live start (ms), next tick (u64 each), then the six parent IDs. */
function encode(p: DevPosition): Uint8Array {
  const b = new Uint8Array(POSITION_LEN);
  const v = new DataView(b.buffer);
  v.setBigUint64(0, BigInt(p.startMs));
  v.setBigUint64(8, BigInt(p.liveMs));
  v.setBigUint64(16, BigInt(p.tick));
  [p.parents.p, p.parents.x, p.parents.c, p.parents.eth, p.parents.pInner, p.parents.xInner].forEach((id, i) => b.set(id, 24 + 32 * i));
  return b;
}

function decode(b: Uint8Array): DevPosition {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const id = (i: number): Uint8Array => (b.length >= 56 + 32 * i ? b.slice(24 + 32 * i, 56 + 32 * i) : new Uint8Array(32));
  return {
    startMs: Number(v.getBigUint64(0)),
    liveMs: Number(v.getBigUint64(8)),
    tick: Number(v.getBigUint64(16)),
    parents: {p: id(0), x: id(1), c: id(2), eth: id(3), pInner: id(4), xInner: id(5)},
  };
}

/** The dev network's chain state while the feed runs: rebuilt on every start by replaying the schedule. */
interface DevChains {
  net: DevPrimaryNetwork;
  pHeight: bigint;
  xHeight: bigint;
}

export class DevFeed implements FeedSource {
  readonly key = "dev";
  private readonly now: () => number;
  private chains: DevChains | null = null;

  constructor(
    private readonly opts: DevFeedOptions,
    private readonly modules: DevFeedModules,
  ) {
    this.now = modules.now ?? Date.now;
  }

  async run(position: Uint8Array | null, sink: (batch: FeedBatch) => Promise<void>, signal: AbortSignal): Promise<void> {
    const {status} = this.modules;
    let pos: DevPosition;
    if (position && (position.length === POSITION_LEN || position.length === OLD_POSITION_LEN)) {
      pos = decode(position);
    } else {
      const now = this.now();
      const backfillTicks = Math.floor(this.opts.backfillMs / this.opts.backfillStepMs);
      const zero = new Uint8Array(32);
      pos = {startMs: now - backfillTicks * this.opts.backfillStepMs, liveMs: now, tick: 0, parents: {p: zero, x: zero, c: zero, eth: zero, pInner: zero, xInner: zero}};
    }
    const backfillTicks = Math.round((pos.liveMs - pos.startMs) / this.opts.backfillStepMs);
    const tickTime = (t: number): number =>
      t < backfillTicks ? pos.startMs + t * this.opts.backfillStepMs : pos.liveMs + (t - backfillTicks) * this.opts.liveStepMs;
    // The wallets, heights and parents after the committed ticks: the schedule replayed (it is deterministic).
    this.chains = {net: new DevPrimaryNetwork(this.modules.network, devGenesisTime(pos.startMs)), pHeight: 0n, xHeight: 0n};
    const zero = new Uint8Array(32);
    const replayed: Parents = {p: zero, x: zero, c: zero, eth: zero, pInner: zero, xInner: zero};
    for (let t = 0; t < pos.tick; t++) this.tickItems(t, tickTime(t), replayed);
    pos = {...pos, parents: replayed};

    status.sent();
    status.received();
    while (!signal.aborted) {
      const now = this.now();
      const items: FeedItem[] = [];
      let t = pos.tick;
      const parents = {...pos.parents};
      // Everything due is accepted at once (the backfill, or ticks missed while stopped), in bounded batches.
      while (tickTime(t) <= now && t - pos.tick < this.opts.batchTicks) {
        items.push(...this.tickItems(t, tickTime(t), parents));
        t++;
      }
      if (items.length > 0) {
        pos = {...pos, tick: t, parents};
        await sink({items, position: encode(pos)});
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

  /** The containers of one tick, in acceptance order; advances `parents`. */
  private tickItems(tickNo: number, timeMs: number, parents: Parents): FeedItem[] {
    const ns = BigInt(timeMs) * 1_000_000n;
    const ts = Math.floor(timeMs / 1000);
    const height = tickNo + 1;
    const net = this.modules.network;
    const chainId = (c: "P" | "X" | "C"): Uint8Array => idFromString(net.chainIds[c]);
    const base = {networkId: net.id, height, timestamp: ts, pChainHeight: BigInt(height)};
    const out: FeedItem[] = [];
    const add = (chain: "P" | "X" | "C", kind: "block" | "tx", bytes: Uint8Array, id: Uint8Array, checksum: Uint8Array | null = null): void => {
      out.push({chain, kind, endpoint: findEndpoint(chain, kind)!, bytes, id, timestampNs: ns + BigInt(out.length), checksum});
    };

    const chains = this.chains!;
    const tick = chains.net.tick(tickNo, BigInt(ts));
    for (const b of tick.pBlocks) {
      const height = ++chains.pHeight;
      const inner = buildBanffBlock(b.kind, {time: b.time, parentId: parents.pInner, height, txs: b.txs});
      const p = buildProposerBlock(parents.p, Number(b.time), height, inner);
      parents.p = decodeProposerBlock(p).id;
      parents.pInner = sha256(inner);
      add("P", "block", p, parents.p);
    }

    const c = buildCBlock({...base, chainId: chainId("C"), parentId: parents.c, parentHash: parents.eth, txs: 2 + (tickNo % 5), extData: tick.cAtomic ?? undefined});
    const wrapped = decodeProposerBlock(c);
    parents.c = wrapped.id;
    parents.eth = decodeEvmBlock(wrapped.inner).hash;
    add("C", "block", c, parents.c);

    const xHeight = ++chains.xHeight;
    const xInner = buildAvmBlock({time: BigInt(ts), parentId: parents.xInner, height: xHeight, txs: tick.xTxs});
    const x = buildProposerBlock(parents.x, ts, chains.pHeight, xInner);
    parents.x = decodeProposerBlock(x).id;
    parents.xInner = sha256(xInner);
    add("X", "block", x, parents.x);
    for (const tx of tick.xTxs) {
      const id = sha256(tx);
      add("X", "tx", tx, id, id.subarray(28));
    }
    return out;
  }
}

/** The dev network's genesis time (seconds): a minute before its schedule's first tick. */
export function devGenesisTime(startMs: number): bigint {
  return BigInt(Math.floor(startMs / 1000) - 60);
}
