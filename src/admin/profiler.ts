/**
 * The admin profiles, through an in-process `node:inspector` session and `perf_hooks` (docs/api/admin.md), with
 * AvalancheGo's file names in `--profile-dir` (utils/profiler/profiler.go):
 *
 * - `cpu.profile`: a V8 CPU profile (`Profiler.start` … `Profiler.stop`), the `.cpuprofile` JSON that Chrome
 *   DevTools (Performance panel, "Load profile") and VS Code open: `{nodes, startTime, endTime, samples, timeDeltas}`.
 * - `mem.profile`: a V8 heap snapshot (`HeapProfiler.takeHeapSnapshot` after a forced GC), the `.heapsnapshot`
 *   JSON that DevTools' Memory panel loads (`{snapshot, nodes, edges, strings, ...}`). Chosen over the sampling heap
 *   profile because it needs no profiler running beforehand and shows retainers; it pauses the process while it is
 *   taken (about half a second per 100 MB of heap).
 * - `lock.profile`: Node has no mutexes; the contention that matters is the event loop's. JSON with the event-loop
 *   delay histogram (`monitorEventLoopDelay`, ns) and event-loop utilisation, both since the profiler was created.
 * - `stacktrace.json`: a Node diagnostic report (`process.report`: JS and native stacks, libuv handles, resource
 *   usage) without the environment variables, which may hold secrets.
 *
 * Every method runs under one mutex, so concurrent calls cannot interleave a start with a stop or two writes of
 * the same file.
 */
import {Session} from "node:inspector/promises";
import {monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram} from "node:perf_hooks";
import {appError} from "../api/errors.js";
import {writeOutput} from "./files.js";
import {Mutex} from "./mutex.js";

export const CPU_PROFILE = "cpu.profile";
export const MEM_PROFILE = "mem.profile";
export const LOCK_PROFILE = "lock.profile";
export const STACKTRACE = "stacktrace.json";

/** Resolution of the event-loop delay sampler, ms (Node's default is 10). */
const EVENT_LOOP_RESOLUTION_MS = 10;

export interface ProfilerOptions {
  /** `--profile-dir`: created (0750) on first use. */
  dir: string;
}

export class Profiler {
  private readonly mutex = new Mutex();
  private cpuSession: Session | null = null;
  private readonly loopDelay: IntervalHistogram;
  private readonly eluStart: EventLoopUtilization;
  private readonly since = new Date();
  private closed = false;

  constructor(private readonly opts: ProfilerOptions) {
    this.loopDelay = monitorEventLoopDelay({resolution: EVENT_LOOP_RESOLUTION_MS});
    this.loopDelay.enable();
    this.eluStart = performance.eventLoopUtilization();
  }

  /** admin.startCPUProfiler: starts sampling; `cpu.profile` is created now (so OS errors show at once). */
  startCPU(): Promise<void> {
    return this.mutex.run(async () => {
      if (this.cpuSession !== null) throw appError("cpu profiler already running");
      await writeOutput(this.opts.dir, CPU_PROFILE, "");
      const session = new Session();
      session.connect();
      try {
        await session.post("Profiler.enable");
        await session.post("Profiler.start");
      } catch (e) {
        session.disconnect();
        throw e;
      }
      this.cpuSession = session;
    });
  }

  /** admin.stopCPUProfiler: stops sampling and writes `cpu.profile`. */
  stopCPU(): Promise<string> {
    return this.mutex.run(() => this.stopCPULocked());
  }

  /** admin.memoryProfile: forces a GC, then writes a heap snapshot to `mem.profile`. */
  memory(): Promise<string> {
    return this.mutex.run(async () => {
      const session = new Session();
      session.connect();
      const chunks: string[] = [];
      session.on("HeapProfiler.addHeapSnapshotChunk", (m) => chunks.push(m.params.chunk));
      try {
        await session.post("HeapProfiler.enable");
        await session.post("HeapProfiler.collectGarbage");
        await session.post("HeapProfiler.takeHeapSnapshot", {reportProgress: false});
      } finally {
        session.disconnect();
      }
      return writeOutput(this.opts.dir, MEM_PROFILE, chunks.join(""));
    });
  }

  /** admin.lockProfile: writes event-loop contention statistics to `lock.profile`. */
  lock(): Promise<string> {
    return this.mutex.run(() =>
      writeOutput(this.opts.dir, LOCK_PROFILE, JSON.stringify(this.lockStats(), null, 2) + "\n"),
    );
  }

  /** admin.stacktrace: writes a diagnostic report to `stacktrace.json`. */
  stacktrace(): Promise<string> {
    return this.mutex.run(async () => {
      const report = process.report.getReport() as unknown as Record<string, unknown>;
      delete report.environmentVariables;
      return writeOutput(this.opts.dir, STACKTRACE, JSON.stringify(report, null, 2) + "\n");
    });
  }

  /** Whether the CPU profiler is running (for logs and tests). */
  cpuRunning(): boolean {
    return this.cpuSession !== null;
  }

  /** Stops the samplers; a running CPU profile is written out rather than lost. */
  close(): Promise<string | null> {
    return this.mutex.run(async () => {
      if (this.closed) return null;
      this.closed = true;
      this.loopDelay.disable();
      return this.cpuSession === null ? null : this.stopCPULocked();
    });
  }

  private async stopCPULocked(): Promise<string> {
    const session = this.cpuSession;
    if (session === null) throw appError("cpu profiler doesn't exist");
    this.cpuSession = null;
    try {
      const {profile} = await session.post("Profiler.stop");
      return await writeOutput(this.opts.dir, CPU_PROFILE, JSON.stringify(profile));
    } finally {
      session.disconnect();
    }
  }

  private lockStats(): Record<string, unknown> {
    const h = this.loopDelay;
    const elu = performance.eventLoopUtilization(this.eluStart);
    const pct = (p: number): number => (h.count === 0 ? 0 : h.percentile(p));
    return {
      type: "event-loop-contention",
      description:
        "Node.js has no mutexes; this is the event loop's contention: how late timers fired (delay, ns) and how busy the loop was, both since the time in `since`",
      since: this.since.toISOString(),
      now: new Date().toISOString(),
      eventLoopDelay: {
        resolutionMs: EVENT_LOOP_RESOLUTION_MS,
        unit: "ns",
        count: h.count,
        min: h.count === 0 ? 0 : h.min,
        max: h.max,
        mean: Number.isNaN(h.mean) ? 0 : h.mean,
        stddev: Number.isNaN(h.stddev) ? 0 : h.stddev,
        exceeds: h.exceeds,
        percentiles: {p50: pct(50), p75: pct(75), p90: pct(90), p99: pct(99), p999: pct(99.9)},
      },
      eventLoopUtilization: {utilization: elu.utilization, activeMs: elu.active, idleMs: elu.idle},
    };
  }
}
