/** The hot-path metrics: series by label values, scraped through prom-client's Registry, and reset. */
import {Registry} from "prom-client";
import {describe, expect, it} from "vitest";
import {FastCounter, FastHistogram} from "../../../src/metrics/fast.js";

describe("fast metrics", () => {
  it("keeps one series per label values, in the Prometheus text of the registry", async () => {
    const register = new Registry();
    const calls = new FastCounter({
      name: "calls_total",
      help: "calls",
      labelNames: ["method", "outcome"],
      registers: [register],
    });
    const none = new FastCounter({name: "ticks_total", help: "ticks", labelNames: [], registers: [register]});
    calls.labels("a.b", "success").inc();
    calls.labels("a.b", "success").inc(2);
    calls.labels("a.b", "app_error").inc();
    calls.labels("a.c", "success").inc();
    // A value that joined keys would confuse with another pair stays its own series.
    calls.labels("a.b\u0000success", "").inc(5);
    none.labels().inc(4);
    expect(calls.labels("a.b", "success")).toBe(calls.labels("a.b", "success"));
    const text = await register.metrics();
    expect(text).toContain('calls_total{method="a.b",outcome="success"} 3');
    expect(text).toContain('calls_total{method="a.b",outcome="app_error"} 1');
    expect(text).toContain('calls_total{method="a.c",outcome="success"} 1');
    expect(text).toContain('calls_total{method="a.b\u0000success",outcome=""} 5');
    expect(text).toContain("ticks_total 4");
  });

  it("histograms: cumulative buckets, sum and count per series", async () => {
    const register = new Registry();
    const h = new FastHistogram({
      name: "lat_seconds",
      help: "latency",
      labelNames: ["method"],
      buckets: [0.1, 0.01, 1],
      registers: [register],
    });
    for (const v of [0.005, 0.05, 0.5, 5]) h.labels("m").observe(v);
    const text = await register.metrics();
    expect(text).toContain('lat_seconds_bucket{le="0.01",method="m"} 1');
    expect(text).toContain('lat_seconds_bucket{le="0.1",method="m"} 2');
    expect(text).toContain('lat_seconds_bucket{le="1",method="m"} 3');
    expect(text).toContain('lat_seconds_bucket{le="+Inf",method="m"} 4');
    expect(text).toContain('lat_seconds_count{method="m"} 4');
    expect(text).toMatch(/lat_seconds_sum\{method="m"\} 5\.55/);
  });

  it("reset zeroes every series, and a child held from before keeps counting where scrapes see it", async () => {
    const register = new Registry();
    const calls = new FastCounter({name: "calls_total", help: "calls", labelNames: ["method"], registers: [register]});
    const h = new FastHistogram({
      name: "lat_seconds",
      help: "latency",
      labelNames: ["method"],
      buckets: [1],
      registers: [register],
    });
    const held = calls.labels("m");
    held.inc(7);
    h.labels("m").observe(0.5);
    register.resetMetrics();
    expect(await register.metrics()).toContain('calls_total{method="m"} 0');
    expect(await register.metrics()).toContain('lat_seconds_count{method="m"} 0');
    held.inc();
    expect(await register.metrics()).toContain('calls_total{method="m"} 1');
  });
});
