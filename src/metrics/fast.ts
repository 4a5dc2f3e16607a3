/**
 * Hot-path counters and histograms that plug into a prom-client Registry as custom metrics.
 *
 * prom-client validates and hashes the label set on every observe(), which cost half of the throughput of a
 * trivial request in the transport benchmark. These keep one pre-resolved child per label combination (looked up
 * once by a joined key) whose inc/observe only add to numbers; the Registry formats them at scrape time through
 * the same `get()` interface as its own metrics.
 */
import type {Registry} from "prom-client";

interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

interface MetricSnapshot {
  name: string;
  help: string;
  type: "counter" | "histogram";
  values: MetricValue[];
  aggregator: "sum";
}

interface FastMetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
}

abstract class FastMetric<L extends string, C> {
  readonly name: string;
  readonly help: string;
  protected readonly labelNames: readonly L[];
  /** Every child with its labels, for scrapes. */
  protected readonly children: {labels: Record<string, string>; child: C}[] = [];
  /**
   * Children found by their label values one level at a time: a key joined from the values was a new string to
   * build and hash on every call (a tenth of the gap between a trivial JSON-RPC call and a bare server).
   */
  private readonly tree = new Map<string, unknown>();

  constructor(cfg: FastMetricConfig<L>) {
    this.name = cfg.name;
    this.help = cfg.help;
    this.labelNames = cfg.labelNames;
    for (const r of cfg.registers) r.registerMetric(this as never);
  }

  /** The child for these label values (in labelNames order); created once, then a lookup per label. */
  labels(...values: string[]): C {
    const depth = this.labelNames.length;
    let node = this.tree;
    for (let i = 0; i < depth - 1; i++) {
      const v = values[i] ?? "";
      let next = node.get(v) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(v, next);
      }
      node = next;
    }
    const leaf = depth === 0 ? "" : (values[depth - 1] ?? "");
    let child = node.get(leaf) as C | undefined;
    if (child === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i] ?? ""));
      child = this.create();
      this.children.push({labels, child});
      node.set(leaf, child);
    }
    return child;
  }

  /** Convenience for cold paths: labels given as an object. */
  with(labels: Record<L, string>): C {
    return this.labels(...this.labelNames.map((n) => labels[n]));
  }

  protected abstract create(): C;
  abstract get(): Promise<MetricSnapshot>;

  /**
   * Zeroes every series. The children stay: callers hold them (the router resolves a method's once), and a
   * dropped child would count on without ever being scraped again.
   */
  reset(): void {
    for (const e of this.children) this.zero(e.child);
  }

  protected abstract zero(child: C): void;
}

export interface CounterChild {
  inc(n?: number): void;
  readonly value: number;
}

class CounterChildImpl implements CounterChild {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

export class FastCounter<L extends string> extends FastMetric<L, CounterChild> {
  protected create(): CounterChild {
    return new CounterChildImpl();
  }

  protected zero(child: CounterChild): void {
    (child as CounterChildImpl).value = 0;
  }

  async get(): Promise<MetricSnapshot> {
    const values = this.children.map((e) => ({labels: e.labels, value: e.child.value}));
    return {name: this.name, help: this.help, type: "counter", values, aggregator: "sum"};
  }
}

export interface HistogramChild {
  observe(v: number): void;
}

class HistogramChildImpl implements HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(v: number): void {
    this.sum += v;
    this.count++;
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

export class FastHistogram<L extends string> extends FastMetric<L, HistogramChild> {
  private readonly bounds: readonly number[];

  constructor(cfg: FastMetricConfig<L> & {buckets: readonly number[]}) {
    super(cfg);
    this.bounds = [...cfg.buckets].sort((a, b) => a - b);
  }

  protected create(): HistogramChild {
    return new HistogramChildImpl(this.bounds);
  }

  protected zero(child: HistogramChild): void {
    const h = child as HistogramChildImpl;
    h.counts.fill(0);
    h.sum = 0;
    h.count = 0;
  }

  async get(): Promise<MetricSnapshot> {
    const values: MetricValue[] = [];
    for (const {labels, child} of this.children) {
      const h = child as HistogramChildImpl;
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += h.counts[i]!;
        values.push({metricName: `${this.name}_bucket`, labels: {le, ...labels}, value: cumulative});
      });
      values.push({metricName: `${this.name}_bucket`, labels: {le: "+Inf", ...labels}, value: h.count});
      values.push({metricName: `${this.name}_sum`, labels, value: h.sum});
      values.push({metricName: `${this.name}_count`, labels, value: h.count});
    }
    return {name: this.name, help: this.help, type: "histogram", values, aggregator: "sum"};
  }
}
