/**
 * V8 settings for the avaext process, applied by the command (`run`, and `data-api rebuild`) once its flags are
 * parsed. A library user embedding AvaextNode keeps its own process settings: only the command owns the process.
 */
import v8 from "node:v8";

const PRETENURING = "allocation-site-pretenuring";
const HEAP_GROWING = "heap-growing-percent";

export interface V8Tuning {
  /** `--v8-pretenuring`: keep V8's allocation-site pretenuring (its default) instead of turning it off. */
  pretenuring: boolean;
  /** `--v8-heap-growing-percent`: how far past the live heap V8 lets the heap grow before its next full GC; 0 = V8's own factor. */
  heapGrowingPercent: number;
}

/**
 * Applies `t` and returns the V8 flags set. A flag Node was started with, in any spelling
 * (`node --heap-growing-percent=50 ...`, `--no-allocation-site-pretenuring`), is the operator's choice and is left alone.
 */
export function tuneV8(
  t: V8Tuning,
  execArgv: readonly string[] = process.execArgv,
  setFlags = (f: string) => v8.setFlagsFromString(f),
): string[] {
  const wanted: Array<[name: string, flag: string | null]> = [
    [PRETENURING, pretenuring(t)],
    [HEAP_GROWING, heapGrowing(t)],
  ];
  const flags = wanted.flatMap(([name, flag]) => (flag !== null && !operatorChose(name, execArgv) ? [flag] : []));
  for (const f of flags) setFlags(f);
  return flags;
}

/**
 * Turns off V8's allocation-site pretenuring unless `--v8-pretenuring` asks to keep it (Node refuses that flag in
 * NODE_OPTIONS, so only its command line can set it otherwise).
 *
 * Why: under load, V8 decided that object literals allocated on every request (json-rpc-2.0's transpiled
 * generator state, our envelopes) were long-lived and allocated them in the old generation, where they die:
 * 170-290 bytes per JSON-RPC call, a full mark-compact about every second at 45,000 requests/s. Measured on
 * this service: the router's own loop runs 26-33 % faster without it (getContainerByIndex 331k → 417k calls/s,
 * health.liveness 714k → 951k), a cached getContainerByIndex over HTTP costs ~0.9 µs less CPU, and a 1M-container
 * ingest keeps its rate and RSS. V8 reads the flag when it allocates and collects, so it takes full effect when
 * set after the modules are loaded (measured: no old-generation garbage left per call).
 */
function pretenuring(t: V8Tuning): string | null {
  return t.pretenuring ? null : `--no-${PRETENURING}`;
}

/**
 * Fixes V8's heap growing factor at 1 + percent/100 of the live heap after each full GC (0: V8's own, 1.1 to 4).
 *
 * Why: folding a data API backlog allocates fast and keeps little (a live heap under 100 MB), and V8's own factor
 * let the heap grow to 300-350 MB of mostly garbage. Node reads a heap limit only at start, but V8 reads this factor
 * at every full GC, so the command can set it as it starts. Off by default: the index's ingest and range reads,
 * which also allocate fast, slow more than the fold does (docs/operations/memory.md).
 */
function heapGrowing(t: V8Tuning): string | null {
  return t.heapGrowingPercent > 0 ? `--${HEAP_GROWING}=${t.heapGrowingPercent}` : null;
}

/**
 * Whether a V8 flag was given either way among Node's arguments: `--name`, `--no-name` or `--noname`, with one
 * leading dash or two (V8 takes both), `_` and `-` interchangeable anywhere (Node normalises them), and with or
 * without `=value`.
 */
export function operatorChose(name: string, args: readonly string[]): boolean {
  const wanted = name.replaceAll("_", "-");
  return args.some((a) => {
    const n = a
      .split("=", 1)[0]!
      .replaceAll("_", "-")
      .replace(/^-(?=-)/, "");
    return n === `-${wanted}` || n === `-no-${wanted}` || n === `-no${wanted}`;
  });
}
