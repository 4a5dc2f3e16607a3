/**
 * V8 settings for the avaext process, applied by the command (`run`) once its flags are parsed. A library user
 * embedding AvaextNode keeps its own process settings: only the command owns the process.
 */
import v8 from "node:v8";

const PRETENURING = "allocation-site-pretenuring";

export interface V8Tuning {
  /** `--v8-pretenuring`: keep V8's allocation-site pretenuring (its default) instead of turning it off. */
  pretenuring: boolean;
}

/**
 * Turns off V8's allocation-site pretenuring unless `--v8-pretenuring` asks to keep it, or Node was started with
 * `--[no-]allocation-site-pretenuring` (Node refuses that flag in NODE_OPTIONS, so only its command line counts).
 * Returns the V8 flags set.
 *
 * Why: under load, V8 decided that object literals allocated on every request (json-rpc-2.0's transpiled
 * generator state, our envelopes) were long-lived and allocated them in the old generation, where they die:
 * 170-290 bytes per JSON-RPC call, a full mark-compact about every second at 45,000 requests/s. Measured on
 * this service: the router's own loop runs 26-33 % faster without it (getContainerByIndex 331k → 417k calls/s,
 * health.liveness 714k → 951k), a cached getContainerByIndex over HTTP costs ~0.9 µs less CPU, and a 1M-container
 * ingest keeps its rate and RSS. V8 reads the flag when it allocates and collects, so it takes full effect when
 * set after the modules are loaded (measured: no old-generation garbage left per call).
 */
export function tuneV8(t: V8Tuning, execArgv: readonly string[] = process.execArgv, setFlags = (f: string) => v8.setFlagsFromString(f)): string[] {
  if (t.pretenuring || operatorChose(PRETENURING, execArgv)) return [];
  const flag = `--no-${PRETENURING}`;
  setFlags(flag);
  return [flag];
}

/**
 * Whether a V8 flag was given either way among Node's arguments: `--name`, `--no-name` or `--noname`, with `_`
 * and `-` interchangeable anywhere (Node normalises them), and with or without `=value`.
 */
export function operatorChose(name: string, args: readonly string[]): boolean {
  const wanted = name.replaceAll("_", "-");
  return args.some((a) => {
    const n = a.split("=", 1)[0]!.replaceAll("_", "-");
    return n === `--${wanted}` || n === `--no-${wanted}` || n === `--no${wanted}`;
  });
}
