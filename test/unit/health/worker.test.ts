/** The health worker's semantics (AvalancheGo api/health): results, failures, monotonic checks, tags, timeouts. */
import {describe, expect, it} from "vitest";
import {routerCheck, defaultCheckThresholds, networkCheck, bootstrappedCheck} from "../../../src/health/checks.js";
import {HealthWorker} from "../../../src/health/worker.js";
import {FeedStatus} from "../../../src/feed/status.js";
import {LoggerRegistry} from "../../../src/logger/index.js";

const logger = new LoggerRegistry({logLevel: "OFF", displayLevel: "OFF", logDir: null}).get("main");
const signal = new AbortController().signal;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

describe("HealthWorker", () => {
  it("reports 'not yet run' before the first round, failing", () => {
    const w = new HealthWorker("health", logger, 1000);
    w.register("a", () => ({}));
    expect(w.report()).toEqual({
      checks: {a: {error: "not yet run", timestamp: "0001-01-01T00:00:00Z", duration: 0}},
      healthy: false,
    });
  });

  it("counts contiguous failures, keeps the first failure time, resets on success", async () => {
    let fail = true;
    const w = new HealthWorker("health", logger, 1000);
    w.register("a", () => (fail ? {details: {x: 1}, error: "bad"} : {details: {x: 2}}));
    await w.runAll(signal);
    const r1 = w.report().checks.a!;
    expect(r1.error).toBe("bad");
    expect(r1.message).toEqual({x: 1});
    expect(r1.contiguousFailures).toBe(1);
    expect(r1.timestamp).toMatch(RFC3339);
    expect(r1.timeOfFirstFailure).toBe(r1.timestamp);
    expect(Object.keys(r1)).toEqual([
      "message",
      "error",
      "timestamp",
      "duration",
      "contiguousFailures",
      "timeOfFirstFailure",
    ]);
    await w.runAll(signal);
    const r2 = w.report().checks.a!;
    expect(r2.contiguousFailures).toBe(2);
    expect(r2.timeOfFirstFailure).toBe(r1.timeOfFirstFailure);
    fail = false;
    await w.runAll(signal);
    const r3 = w.report().checks.a!;
    expect(Object.keys(r3)).toEqual(["message", "timestamp", "duration"]);
    expect(w.report().healthy).toBe(true);
    expect(typeof r3.duration).toBe("number");
  });

  it("turns a thrown error into a failing result", async () => {
    const w = new HealthWorker("health", logger, 1000);
    w.register("a", () => {
      throw new Error("boom");
    });
    await w.runAll(signal);
    expect(w.report().checks.a!.error).toBe("boom");
  });

  it("times out a hung check without stalling the others", async () => {
    const w = new HealthWorker("health", logger, 50);
    let aborted = false;
    w.register("hung", (s) => new Promise(() => s.addEventListener("abort", () => (aborted = true))));
    w.register("fine", () => ({}));
    const t0 = Date.now();
    await w.runAll(signal);
    expect(Date.now() - t0).toBeLessThan(5000); // the hung check would hold the round forever
    expect(w.report().checks.hung!.error).toBe("health check timed out after 50ms");
    expect(w.report().checks.fine!.error).toBeUndefined();
    expect(aborted).toBe(true);
  });

  it("keeps a monotonic check passing with its first details", async () => {
    let ok = false;
    let n = 0;
    const w = new HealthWorker("readiness", logger, 1000);
    w.register("boot", () => (ok ? {details: ++n} : {error: "not yet"}), [], true);
    await w.runAll(signal);
    expect(w.report().healthy).toBe(false);
    ok = true;
    await w.runAll(signal);
    ok = false;
    await w.runAll(signal);
    const r = w.report().checks.boot!;
    expect(r.error).toBeUndefined();
    expect(r.message).toBe(1);
  });

  it("filters by tag, always includes application checks, and rejects bad registrations", async () => {
    const w = new HealthWorker("health", logger, 1000);
    w.register("app", () => ({}), ["application"]);
    w.register("P", () => ({error: "x"}), ["subnet1"]);
    w.register("X", () => ({}), ["subnet2"]);
    await w.runAll(signal);
    expect(Object.keys(w.report().checks)).toEqual(["P", "X", "app"]);
    expect(Object.keys(w.report(["subnet2"]).checks)).toEqual(["X", "app"]);
    expect(w.report(["subnet2"]).healthy).toBe(true);
    expect(Object.keys(w.report(["nope"]).checks)).toEqual(["app"]);
    expect(Object.keys(w.report(["subnet1", "subnet2"]).checks)).toEqual(["P", "X", "app"]);
    expect(w.failing("all")).toBe(1);
    expect(w.failing("subnet1")).toBe(1);
    expect(w.failing("subnet2")).toBe(0);
    // An application check counts under every tag, as every report includes it (AvalancheGo's gauge does too).
    w.register("app2", () => ({error: "down"}), ["application", "subnet2"]);
    await w.runAll(signal);
    expect([w.failing("all"), w.failing("application"), w.failing("subnet1"), w.failing("subnet2")]).toEqual([
      2, 1, 2, 1,
    ]);
    expect(() => w.register("app", () => ({}))).toThrow('duplicate check: "app"');
    expect(() => w.register("z", () => ({}), ["all"])).toThrow('restricted tag: "all"');
  });
});

describe("checks", () => {
  it("router fails over the outstanding-request and age limits", () => {
    const t = {...defaultCheckThresholds, maxOutstandingRequests: 2, maxRequestAgeMs: 1000};
    expect(routerCheck(() => ({outstanding: 1, longestNs: 1_000_000n}), t)(signal)).toEqual({
      details: {longestRunningRequest: "1ms", outstandingRequests: 1},
    });
    const bad = routerCheck(() => ({outstanding: 3, longestNs: 2_000_000_000n}), t)(signal) as {error: string};
    expect(bad.error).toBe(
      "the router is not healthy reason: number of outstanding requests 3 > 2, time for outstanding requests 2s > 1s",
    );
  });

  it("network fails while the source is unreachable, and reports the times since messages", () => {
    const feed = new FeedStatus();
    const check = networkCheck(feed, defaultCheckThresholds);
    expect((check(signal) as {error: string}).error).toBe(
      "network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0, no messages received from network",
    );
    feed.sent();
    feed.received();
    const ok = check(signal) as {details: Record<string, unknown>; error?: string};
    expect(ok.error).toBeUndefined();
    expect(ok.details.connectedPeers).toBe(1);
    expect(ok.details.timeSinceLastMsgReceived).toMatch(/^\d+(\.\d+)?(ns|µs|ms|s)$/);
    feed.failed();
    expect((check(signal) as {details: {sendFailRate: number}}).details.sendFailRate).toBe(0.5);
  });

  it("bootstrapped lists the primary network until the feed has caught up", () => {
    const feed = new FeedStatus();
    expect(bootstrappedCheck(feed)(signal)).toEqual({
      details: ["11111111111111111111111111111111LpoYY"],
      error: "subnets not bootstrapped",
    });
    feed.setCaughtUp(true);
    expect(bootstrappedCheck(feed)(signal)).toEqual({details: []});
  });
});
