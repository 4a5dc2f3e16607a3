/** The avg TPS definition (docs/api/metrics-service.md) on hand-checkable series, page tokens and the rate limiter. */
import {describe, expect, it} from "vitest";
import {AvgTps} from "../../../src/metricsService/avgTps.js";
import {PositionTokens} from "../../../src/metricsService/positionTokens.js";
import {RateLimiter} from "../../../src/api/rateLimit.js";

const DAY = 86_400;
const D0 = 19_000 * DAY; // 2022-01-08T00:00:00Z

describe("AvgTps", () => {
  it("computes one point per UTC day of block time, newest first, by the contract's interval rule", () => {
    const a = new AvgTps(() => 1234);
    // Day 0 (the chain's first day): blocks at +100 (4 txs), +600 (6 txs) → 10 txs / (600 - 100) s = 0.02
    a.add("C", {timestamp: D0 + 100, txCount: 4});
    a.add("C", {timestamp: D0 + 600, txCount: 6});
    // Day 1: blocks at +1000 (30 txs), +86000 (70 txs) → 100 txs / ((D0+DAY+86000) - (D0+600)) s
    a.add("C", {timestamp: D0 + DAY + 1000, txCount: 30});
    a.add("C", {timestamp: D0 + DAY + 86_000, txCount: 70});
    // Day 2: no blocks → no point. Day 3: one block at +50 with 9 txs → 9 / ((D0+3DAY+50) - (D0+DAY+86000))
    a.add("C", {timestamp: D0 + 3 * DAY + 50, txCount: 9});
    const {points, lastRun} = a.series("C");
    expect(lastRun).toBe(1234);
    expect(points.map((p) => p.timestamp)).toEqual([D0 + 3 * DAY, D0 + DAY, D0]);
    expect(points[2]!.value).toBeCloseTo(10 / 500, 12);
    expect(points[1]!.value).toBeCloseTo(100 / (DAY + 86_000 - 600), 12);
    expect(points[0]!.value).toBeCloseTo(9 / (2 * DAY + 50 - 86_000), 12);
  });

  it("keeps chains apart and reports an empty series for a chain without blocks", () => {
    const a = new AvgTps(() => 5);
    a.add("P", {timestamp: D0 + 10, txCount: 1});
    a.add("P", {timestamp: D0 + 20, txCount: 1});
    expect(a.series("P").points).toEqual([{timestamp: D0, value: 2 / 10}]);
    expect(a.series("X")).toEqual({points: [], lastRun: 0});
  });

  it("counts a single block on the first day over one second, and blocks with zero txs", () => {
    const a = new AvgTps();
    a.add("X", {timestamp: D0 + 5, txCount: 3});
    expect(a.series("X").points).toEqual([{timestamp: D0, value: 3}]);
    a.add("X", {timestamp: D0 + DAY + 5, txCount: 0});
    expect(a.series("X").points[0]).toEqual({timestamp: D0 + DAY, value: 0});
  });
});

describe("PositionTokens", () => {
  it("issues UUIDs valid for 24 hours", () => {
    let now = 1_000_000;
    const t = new PositionTokens(() => now);
    const token = t.issue({chain: "C", offset: 10, pageSize: 10});
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(t.lookup(token)).toEqual({ok: true, position: {chain: "C", offset: 10, pageSize: 10}});
    now += 24 * 3_600_000 - 1;
    expect(t.lookup(token).ok).toBe(true);
    now += 1;
    expect(t.lookup(token)).toEqual({ok: false, reason: "expired"});
    expect(t.lookup("nope")).toEqual({ok: false, reason: "unknown"});
  });
});

describe("RateLimiter", () => {
  it("allows the per-minute budget, then answers with the wait, and refills", () => {
    let now = 0;
    const r = new RateLimiter({}, () => now);
    const take = (c: string, limit = 3): number => {
      const d = r.take(c, limit);
      return d.ok ? 0 : d.retryAfterS;
    };
    expect([take("a"), take("a"), take("a")]).toEqual([0, 0, 0]);
    expect(take("a")).toBe(20);
    expect(take("b")).toBe(0);
    now += 20_000;
    expect(take("a")).toBe(0);
    expect(take("x", 0)).toBe(0);
  });

  it("holds at most maxClients buckets, evicting the oldest client first", () => {
    const r = new RateLimiter({maxClients: 3}, () => 0);
    for (const c of ["a", "b", "c"]) r.take(c, 1);
    expect(r.take("a", 1).ok).toBe(false);
    r.take("d", 1);
    expect(r.size).toBe(3);
    // a, the oldest, was evicted: it starts again with a full bucket; d and c kept theirs.
    expect(r.take("a", 1).ok).toBe(true);
    expect(r.take("c", 1).ok).toBe(false);
  });
});
