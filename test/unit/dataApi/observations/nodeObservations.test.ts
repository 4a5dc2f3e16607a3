/**
 * Validator observations from a node beside avaext, against a real HTTP server playing AvalancheGo's
 * `platform.getCurrentValidators` and `info.peers` (test/helpers/fakeUpstreams.ts).
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {NodeObservations, STALE_POLLS} from "../../../../src/dataApi/observations/nodeObservations.js";
import {UP} from "../../../../src/dataApi/observations/observations.js";
import pino from "pino";
import type {Logger} from "../../../../src/logger/index.js";
import {fakePChain, type FakePChain} from "../../../helpers/fakeUpstreams.js";

describe("NodeObservations", () => {
  let p: FakePChain;
  beforeAll(async () => {
    p = await fakePChain();
  });
  afterAll(async () => p.close());

  const make = (
    over: Partial<ConstructorParameters<typeof NodeObservations>[0]> = {},
    now?: () => number,
  ): NodeObservations =>
    new NodeObservations(
      {url: p.url, refreshMs: 60_000, timeoutMs: 2_000, window: 4, maxNodes: 10, ...over},
      {logger: pino({level: "silent"}) as unknown as Logger, now},
    );

  it("gives the node's uptime, and reachability and benching over the last polls", async () => {
    const o = make();
    p.observed = new Map([
      ["NodeID-A", {uptime: "99.5", connected: true, benched: []}],
      ["NodeID-B", {uptime: "80.25", connected: true, benched: ["X"]}],
    ]);
    await o.poll();
    p.observed.set("NodeID-A", {uptime: "97", connected: false, benched: []});
    p.observed.set("NodeID-B", {uptime: "81", connected: true, benched: ["P", "C"]});
    await o.poll();
    expect(o.observe("NodeID-A")).toEqual({
      uptimePerformance: 97,
      validatorHealth: {
        reachabilityPercent: 50,
        benchedPChainRequestsPercent: 0,
        benchedXChainRequestsPercent: 0,
        benchedCChainRequestsPercent: 0,
      },
    });
    expect(o.observe("NodeID-B")).toEqual({
      uptimePerformance: 81,
      validatorHealth: {
        reachabilityPercent: 100,
        benchedPChainRequestsPercent: 50,
        benchedXChainRequestsPercent: 50,
        benchedCChainRequestsPercent: 50,
      },
    });
    // A validator the node does not report: up, as AvalancheGo assumes an unobserved one.
    expect(o.observe("NodeID-Z")).toEqual(UP);
    // The window is bounded: after four more polls connected, A's earlier miss is gone.
    p.observed.set("NodeID-A", {uptime: "97", connected: true, benched: []});
    for (let i = 0; i < 4; i++) await o.poll();
    expect(o.observe("NodeID-A").validatorHealth.reachabilityPercent).toBe(100);
  });

  it("keeps the last observations when a poll fails, and forgets a validator no longer current", async () => {
    const o = make();
    p.observed = new Map([["NodeID-A", {uptime: "90", connected: true, benched: []}]]);
    await o.poll();
    p.failing = true;
    await o.poll();
    p.failing = false;
    expect(o.lastError).toMatch(/HTTP 500/);
    expect(o.observe("NodeID-A").uptimePerformance).toBe(90);
    p.observed = new Map();
    await o.poll();
    expect(o.lastError).toBeNull();
    expect(o.observe("NodeID-A")).toEqual(UP);
  });

  it("keeps at most maxNodes validators, and ignores malformed entries", async () => {
    const o = make({maxNodes: 3});
    p.observed = new Map(
      Array.from({length: 5}, (_, i) => [`NodeID-${i}`, {uptime: "50", connected: true, benched: []}]),
    );
    p.observed.set("NodeID-bad", {uptime: "150", connected: "yes" as unknown as boolean, benched: []});
    await o.poll();
    const observed = [0, 1, 2, 3, 4].filter((i) => o.observe(`NodeID-${i}`).uptimePerformance === 50);
    expect(observed).toHaveLength(3);
    expect(o.observe("NodeID-bad")).toEqual(UP);
  });

  it("polls on its own once started, and stops on close", async () => {
    // A clock that stands still: the observation read after close is not stale however slow the machine (at 20 ms
    // polls, real time made it stale after 100 ms).
    const o = make({refreshMs: 20}, () => 1_000_000);
    p.observed = new Map([["NodeID-A", {uptime: "42", connected: true, benched: []}]]);
    o.start();
    await expect.poll(() => o.polls, {timeout: 20_000}).toBeGreaterThan(2);
    await o.close();
    const n = o.polls;
    expect(o.observe("NodeID-A").uptimePerformance).toBe(42);
    await new Promise((r) => setTimeout(r, 100));
    expect(o.polls).toBe(n);
  });

  it("serves no observation as current once the last successful poll is older than STALE_POLLS intervals", async () => {
    let clock = 1_000_000;
    const o = make({refreshMs: 1_000}, () => clock);
    p.observed = new Map([["NodeID-A", {uptime: "60", connected: false, benched: ["P"]}]]);
    await o.poll();
    p.failing = true;
    try {
      clock += STALE_POLLS * 1_000;
      await o.poll();
      expect(o.observe("NodeID-A").uptimePerformance).toBe(60);
      clock += 1;
      await o.poll();
      expect(o.current()).toBe(false);
      expect(o.observe("NodeID-A")).toEqual(UP);
    } finally {
      p.failing = false;
    }
    // A poll that succeeds again serves what it observed.
    await o.poll();
    expect(o.observe("NodeID-A").uptimePerformance).toBe(60);
  });

  it("aborts a poll in flight on close, rather than waiting for its timeout", async () => {
    const o = make({refreshMs: 60_000, timeoutMs: 10_000});
    p.hanging = true;
    const before = p.calls.length;
    try {
      o.start();
      await expect.poll(() => p.calls.length - before, {timeout: 20_000}).toBe(2);
      const t0 = Date.now();
      await o.close();
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(o.polls).toBe(0);
    } finally {
      p.hanging = false;
    }
  });
});
