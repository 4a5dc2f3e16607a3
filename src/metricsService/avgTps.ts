/**
 * Daily average transactions per second per chain, the series of `/v1/avg_tps/{chainId}` (docs/api/metrics-service.md).
 *
 * One point per UTC day of the block timestamp (the decoded block's time, not the acceptance time). A day's value
 * is the transactions of that day's blocks divided by the seconds from the last block before that day (however far
 * back) to the day's last block; on the chain's first day the interval starts at that day's first block. A day
 * without blocks has no point. Kept incrementally as blocks are accepted, so a request never scans the index, and
 * stored day by day with the blocks that change it (bucket tpsDay), so a restart does not scan it either.
 */
import type {ChainName} from "../chains/index.js";

export const DAY_SECONDS = 86_400;

/** What the aggregator needs of a decoded block. */
export interface BlockFacts {
  /** Block timestamp, Unix seconds. */
  timestamp: number;
  txCount: number;
}

/** A day of a chain's series: what its point is computed from, and what the index stores of it (Bucket.tpsDay). */
export interface Day {
  /** 00:00 UTC of the day, Unix seconds. */
  start: number;
  txs: number;
  firstBlock: number;
  lastBlock: number;
  /** Timestamp of the last block before this day, or null on the chain's first day. */
  prevLastBlock: number | null;
}

export interface TpsPoint {
  timestamp: number;
  value: number;
}

class ChainSeries {
  /** Days in ascending order. */
  readonly days: Day[] = [];
  lastUpdate = 0;

  /** Adds a block; returns the day it changed (null when none: a block of a day before the series' days). */
  add(b: BlockFacts, now: number): Day | null {
    const start = Math.floor(b.timestamp / DAY_SECONDS) * DAY_SECONDS;
    const last = this.days[this.days.length - 1];
    let day: Day | null;
    if (last && start === last.start) {
      day = last;
      last.txs += b.txCount;
      // Blocks arrive in acceptance (height) order; a timestamp that goes backwards within the day is kept out
      // of the interval's end so the interval never shrinks.
      if (b.timestamp > last.lastBlock) last.lastBlock = b.timestamp;
    } else if (!last || start > last.start) {
      day = {
        start,
        txs: b.txCount,
        firstBlock: b.timestamp,
        lastBlock: b.timestamp,
        prevLastBlock: last ? last.lastBlock : null,
      };
      this.days.push(day);
    } else {
      // A block dated before the newest day (clock skew across days): count it in its own day if that day exists.
      day = this.days.find((d) => d.start === start) ?? null;
      if (day) day.txs += b.txCount;
    }
    this.lastUpdate = now;
    return day;
  }

  /** Points newest first. */
  points(): TpsPoint[] {
    const out: TpsPoint[] = [];
    for (let i = this.days.length - 1; i >= 0; i--) {
      const d = this.days[i]!;
      const from = d.prevLastBlock ?? d.firstBlock;
      // A zero-length interval (a single block on the chain's first day) counts as one second.
      const seconds = Math.max(1, d.lastBlock - from);
      out.push({timestamp: d.start, value: d.txs / seconds});
    }
    return out;
  }
}

export class AvgTps {
  private readonly chains = new Map<ChainName, ChainSeries>();

  constructor(private readonly clock: () => number = () => Math.floor(Date.now() / 1000)) {}

  /** Adds an accepted block of a chain, in acceptance order; returns the day it changed, if any (see ChainSeries). */
  add(chain: ChainName, block: BlockFacts): Day | null {
    let s = this.chains.get(chain);
    if (!s) this.chains.set(chain, (s = new ChainSeries()));
    return s.add(block, this.clock());
  }

  /** The chain's days, ascending (the series' own objects: not to be changed). */
  days(chain: ChainName): readonly Day[] {
    return this.chains.get(chain)?.days ?? [];
  }

  /** Replaces a chain's days (ascending, as stored) with copies of `days`, as of now. */
  load(chain: ChainName, days: readonly Day[]): void {
    const s = new ChainSeries();
    for (const d of days) s.days.push({...d});
    if (days.length > 0) s.lastUpdate = this.clock();
    this.chains.set(chain, s);
  }

  /** The chain's daily points, newest first, and when the series last changed (Unix seconds; 0 = never). */
  series(chain: ChainName): {points: TpsPoint[]; lastRun: number} {
    const s = this.chains.get(chain);
    return s ? {points: s.points(), lastRun: s.lastUpdate} : {points: [], lastRun: 0};
  }
}
