/**
 * This process's checks (docs/api/health.md): each reads real state (the database, the disk, the feed, the HTTP
 * server's in-flight requests) and fails for a real reason, with AvalancheGo's message shapes and error texts.
 */
import {statfs} from "node:fs/promises";
import type {InflightStats} from "../api/server.js";
import {CHAIN_NAMES, type ChainName} from "../chains/index.js";
import {formatDuration} from "../util/duration.js";
import {EMPTY_ID} from "../util/cb58.js";
import type {Health} from "./health.js";
import {TAG_APPLICATION, type Check} from "./worker.js";

/** The primary network's subnet ID: the tag of the chain checks, and what `bootstrapped` lists while not done. */
export const PRIMARY_NETWORK_ID = EMPTY_ID;

/** What the `database` check needs: whether the database is open, and a cheap read that proves it answers. */
export interface DatabaseProbe {
  isOpen(): boolean;
  probe(): Promise<void>;
}

/** The feed's connection to its source: the `network` check's one peer (docs/api/health.md). */
export interface FeedConnection {
  connected: boolean;
  /** Wall-clock ms of the last message received from / sent to the source; null if never. */
  lastReceivedAt: number | null;
  lastSentAt: number | null;
  /** Fraction of requests to the source that failed recently, 0..1. */
  sendFailRate: number;
}

/** The feed as the health checks see it. */
export interface FeedHealthSource {
  connection(): FeedConnection;
  /** True once the feed has caught up with its source (readiness). */
  caughtUp(): boolean;
  /** Last accepted block of a chain; null before any. */
  lastAccepted(chain: ChainName): {height: bigint; id: string} | null;
}

export interface CheckThresholds {
  /** Below this % of free disk the check fails (AvalancheGo's required-available-space default: 3 %). */
  diskRequiredPercent: number;
  /** Below this % the check fails with a warning text (AvalancheGo default: 10 %). */
  diskWarningPercent: number;
  /** Router check limits. */
  maxOutstandingRequests: number;
  maxRequestAgeMs: number;
  /** Network check: the source must have answered within this long. */
  maxTimeSinceMsgReceivedMs: number;
  maxSendFailRate: number;
}

export const defaultCheckThresholds: CheckThresholds = {
  diskRequiredPercent: 3,
  diskWarningPercent: 10,
  maxOutstandingRequests: 1024,
  maxRequestAgeMs: 60_000,
  maxTimeSinceMsgReceivedMs: 60_000,
  maxSendFailRate: 0.9,
};

export interface CheckSources {
  db: DatabaseProbe | null;
  dataDir: string;
  /** null: no feed in this process (a serve replica). */
  feed: FeedHealthSource | null;
  inflight: () => InflightStats;
}

export function databaseCheck(db: DatabaseProbe): Check {
  return async () => {
    if (!db.isOpen()) return {error: "closed"};
    await db.probe();
    return {};
  };
}

export function diskspaceCheck(dir: string, t: CheckThresholds): Check {
  return async () => {
    const s = await statfs(dir);
    const available = s.bavail * s.bsize;
    const total = s.blocks * s.bsize;
    const percent = total === 0 ? 0 : Math.floor((available * 100) / total);
    const details = {availableDiskBytes: available, availableDiskPercentage: percent};
    if (percent < t.diskRequiredPercent) {
      return {
        details,
        error: `remaining available disk space percentage (${percent}%) is below minimum required available space percentage (${t.diskRequiredPercent}%)`,
      };
    }
    if (percent < t.diskWarningPercent) {
      return {
        details,
        error: `remaining available disk space percentage (${percent}%) is below warning threshold available space percentage (${t.diskWarningPercent}%)`,
      };
    }
    return {details};
  };
}

export function networkCheck(feed: FeedHealthSource, t: CheckThresholds): Check {
  return () => {
    const c = feed.connection();
    const now = Date.now();
    const details: Record<string, unknown> = {connectedPeers: c.connected ? 1 : 0, sendFailRate: c.sendFailRate};
    if (c.lastReceivedAt !== null) details.timeSinceLastMsgReceived = formatDuration(now - c.lastReceivedAt);
    if (c.lastSentAt !== null) details.timeSinceLastMsgSent = formatDuration(now - c.lastSentAt);
    const reasons: string[] = [];
    if (!c.connected) reasons.push("not connected to a minimum of 1 peer(s) only 0");
    if (c.lastReceivedAt === null) reasons.push("no messages received from network");
    else if (now - c.lastReceivedAt > t.maxTimeSinceMsgReceivedMs) {
      reasons.push(
        `no messages from network received in ${formatDuration(now - c.lastReceivedAt)} > ${formatDuration(t.maxTimeSinceMsgReceivedMs)}`,
      );
    }
    if (c.sendFailRate > t.maxSendFailRate)
      reasons.push(`messages failure send rate ${c.sendFailRate} > ${t.maxSendFailRate}`);
    return reasons.length === 0
      ? {details}
      : {details, error: `network layer is unhealthy reason: ${reasons.join(", ")}`};
  };
}

export function routerCheck(inflight: () => InflightStats, t: CheckThresholds): Check {
  return () => {
    const s = inflight();
    const longestMs = Number(s.longestNs) / 1e6;
    const details = {longestRunningRequest: formatDuration(longestMs), outstandingRequests: s.outstanding};
    const reasons: string[] = [];
    if (s.outstanding > t.maxOutstandingRequests)
      reasons.push(`number of outstanding requests ${s.outstanding} > ${t.maxOutstandingRequests}`);
    if (longestMs > t.maxRequestAgeMs)
      reasons.push(`time for outstanding requests ${formatDuration(longestMs)} > ${formatDuration(t.maxRequestAgeMs)}`);
    return reasons.length === 0
      ? {details}
      : {details, error: `the router is not healthy reason: ${reasons.join(", ")}`};
  };
}

export function bootstrappedCheck(feed: FeedHealthSource): Check {
  return () => (feed.caughtUp() ? {details: []} : {details: [PRIMARY_NETWORK_ID], error: "subnets not bootstrapped"});
}

export function chainCheck(feed: FeedHealthSource, chain: ChainName): Check {
  return () => {
    const last = feed.lastAccepted(chain);
    const connected = feed.connection().connected;
    const details = {
      engine: {
        consensus: {
          lastAcceptedHeight: last === null ? 0 : Number(last.height),
          lastAcceptedID: last === null ? EMPTY_ID : last.id,
          longestProcessingBlock: "0s",
          processingBlocks: 0,
        },
        vm: null,
      },
      networking: {percentConnected: connected ? 1 : 0},
    };
    if (!connected) {
      return {
        details,
        error: "networking: not connected to enough stake: connected to 0.000000%; required at least 80.000000%",
      };
    }
    return {details};
  };
}

/** Registers this process's checks on the three workers. */
export function registerChecks(health: Health, src: CheckSources, t: CheckThresholds = defaultCheckThresholds): void {
  const app = [TAG_APPLICATION];
  if (src.db) health.registerHealth("database", databaseCheck(src.db), app);
  health.registerHealth("diskspace", diskspaceCheck(src.dataDir, t), app);
  // Without a feed (a serve replica) the network, bootstrapped and chain checks are the ingest process's.
  const feed = src.feed;
  if (feed !== null) health.registerHealth("network", networkCheck(feed, t), app);
  health.registerHealth("router", routerCheck(src.inflight, t), app);
  if (feed === null) return;
  health.registerHealth("bootstrapped", bootstrappedCheck(feed), app);
  health.registerReadiness("bootstrapped", bootstrappedCheck(feed), app);
  for (const chain of CHAIN_NAMES) health.registerHealth(chain, chainCheck(feed, chain), [PRIMARY_NETWORK_ID]);
}
