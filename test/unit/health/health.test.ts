/** The served health reports: cached serialisations that follow every result as it is set. */
import {Registry} from "prom-client";
import {describe, expect, it} from "vitest";
import {Health} from "../../../src/health/health.js";
import {LoggerRegistry} from "../../../src/logger/index.js";

const logger = new LoggerRegistry({logLevel: "OFF", displayLevel: "OFF", logDir: null}).get("main");

describe("Health.reportJson", () => {
  it("serves a result as soon as it is set, not only when the round ends; shutting down shows at once", async () => {
    let slowDone: () => void = () => {};
    let fastError: string | undefined;
    const health = new Health({frequencyMs: 60_000, checkTimeoutMs: 5_000}, {logger, register: null});
    health.registerHealth("fast", () => (fastError === undefined ? {} : {error: fastError}));
    health.registerHealth("slow", () => new Promise((resolve) => (slowDone = () => resolve({}))));
    const before = health.reportJson("health");
    expect(JSON.parse(before.json).checks.fast.error).toBe("not yet run");
    fastError = "broken";
    const round = health.runRound();
    // The round is still waiting on `slow`; `fast` has its result, and the served text shows it (once `fast` has
    // run: waited for, as a fixed pause was not enough on a busy machine).
    await expect
      .poll(
        () =>
          (JSON.parse(health.reportJson("health").json) as {checks: Record<string, {error?: string}>}).checks.fast!
            .error,
      )
      .not.toBe("not yet run");
    const mid = JSON.parse(health.reportJson("health").json) as {checks: Record<string, {error?: string}>};
    expect(mid.checks.fast!.error).toBe("broken");
    expect(mid.checks.slow!.error).toBe("not yet run");
    slowDone();
    await round;
    expect(JSON.parse(health.reportJson("health").json).checks.slow.error).toBeUndefined();
    await health.markShuttingDown();
    const down = health.reportJson("health");
    expect(down.healthy).toBe(false);
    expect(JSON.parse(down.json).checks.shuttingDown.error).toBe("server shutting down");
    expect(down.body).toBe(down.json + "\n");
  });

  it("keeps tag lists apart that a joined key would confuse", async () => {
    const health = new Health({frequencyMs: 60_000, checkTimeoutMs: 5_000}, {logger, register: null});
    health.registerHealth("x", () => ({}), ["a\u0000b"]);
    health.registerHealth("y", () => ({}), ["a"]);
    await health.runRound();
    const odd = JSON.parse(health.reportJson("health", ["a\u0000b"]).json) as {checks: object};
    const two = JSON.parse(health.reportJson("health", ["a", "b"]).json) as {checks: object};
    expect(Object.keys(odd.checks)).toEqual(["x"]);
    expect(Object.keys(two.checks)).toEqual(["y"]);
  });
});

describe("the failing-checks gauge", () => {
  it("agrees with the served report mid-round (it is read at scrape time)", async () => {
    let slowDone: () => void = () => {};
    const register = new Registry();
    const health = new Health({frequencyMs: 60_000, checkTimeoutMs: 5_000}, {logger, register});
    health.registerHealth("fast", () => ({}), ["a"]);
    health.registerHealth("slow", () => new Promise((resolve) => (slowDone = () => resolve({}))), ["b"]);
    const failing = async (tag: string): Promise<number | undefined> =>
      (await register.getSingleMetric("avaext_health_checks_failing")!.get()).values.find(
        (v) => v.labels.tag === tag && v.labels.check === "health",
      )?.value;
    expect(await failing("a")).toBe(1);
    const round = health.runRound();
    await expect
      .poll(
        () =>
          (JSON.parse(health.reportJson("health").json) as {checks: Record<string, {error?: string}>}).checks.fast!
            .error,
      )
      .not.toBe("not yet run");
    // `fast` has passed while the round still waits on `slow`: report and gauge both say so.
    expect(JSON.parse(health.reportJson("health", ["a"]).json).healthy).toBe(true);
    expect(await failing("a")).toBe(0);
    expect(await failing("b")).toBe(1);
    expect(await register.metrics()).toMatch(/avaext_health_checks_failing\{check="health",tag="a"\} 0/);
    slowDone();
    await round;
    expect(await failing("b")).toBe(0);
    await health.markShuttingDown();
    // The shuttingDown check is an application check: it counts under every tag, as in every report.
    expect([await failing("application"), await failing("all"), await failing("a"), await failing("b")]).toEqual([
      1, 1, 1, 1,
    ]);
  });
});
