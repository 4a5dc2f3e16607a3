/**
 * What the feed knows about its source and the chains, kept up to date by whichever source runs (dev, file,
 * http) and read by the health checks: connection (the `network` check's one peer), caught up (`bootstrapped`),
 * and the last accepted block per chain (the chain checks). Kept even with indexing off.
 */
import type {ChainName} from "../chains/index.js";
import type {FeedConnection, FeedHealthSource} from "../health/checks.js";

/** Requests remembered for the send-failure rate. */
const FAIL_WINDOW = 20;

export class FeedStatus implements FeedHealthSource {
  private connected = false;
  private lastReceivedAt: number | null = null;
  private lastSentAt: number | null = null;
  private readonly outcomes: boolean[] = [];
  private isCaughtUp = false;
  private readonly last = new Map<ChainName, {height: bigint; id: string}>();

  /** A request to the source was sent. */
  sent(): void {
    this.lastSentAt = Date.now();
  }

  /** An answer (or data) arrived from the source. */
  received(): void {
    this.lastReceivedAt = Date.now();
    this.connected = true;
    this.record(true);
  }

  /** A request to the source failed (connection refused, timeout, bad answer). */
  failed(): void {
    this.connected = false;
    this.record(false);
  }

  setCaughtUp(value: boolean): void {
    this.isCaughtUp = value;
  }

  /** A block was accepted on a chain (X-chain txs do not count). */
  accepted(chain: ChainName, height: bigint, id: string): void {
    this.last.set(chain, {height, id});
  }

  connection(): FeedConnection {
    const fails = this.outcomes.filter((ok) => !ok).length;
    return {
      connected: this.connected,
      lastReceivedAt: this.lastReceivedAt,
      lastSentAt: this.lastSentAt,
      sendFailRate: this.outcomes.length === 0 ? 0 : fails / this.outcomes.length,
    };
  }

  caughtUp(): boolean {
    return this.isCaughtUp;
  }

  lastAccepted(chain: ChainName): {height: bigint; id: string} | null {
    return this.last.get(chain) ?? null;
  }

  private record(ok: boolean): void {
    this.outcomes.push(ok);
    if (this.outcomes.length > FAIL_WINDOW) this.outcomes.shift();
  }
}
