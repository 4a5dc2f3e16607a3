/**
 * V8 settings for the avaext process, applied by bin/avaext.js before the service is loaded. A library user
 * embedding AvaextNode keeps its own process settings: only the command owns the process.
 */
import v8 from "node:v8";

const PRETENURING = "allocation-site-pretenuring";

/**
 * Turns off V8's allocation-site pretenuring unless the operator chose either way (`node
 * --[no-]allocation-site-pretenuring`, in the command line or NODE_OPTIONS).
 *
 * Why: under load, V8 decided that object literals allocated on every request (json-rpc-2.0's transpiled
 * generator state, our envelopes) were long-lived and allocated them in the old generation, where they die:
 * 170-290 bytes per JSON-RPC call, a full mark-compact about every second at 45,000 requests/s. Measured on
 * this service: the router's own loop runs 26-33 % faster without it (getContainerByIndex 331k → 417k calls/s,
 * health.liveness 714k → 951k), a cached getContainerByIndex over HTTP costs ~0.9 µs less CPU, and a 1M-container
 * ingest keeps its rate and RSS. The flag is read at allocation and GC time, so setting it before the service's
 * modules are loaded takes full effect (Node documents late flag changes as unpredictable in general).
 */
export function tuneV8(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ""): string[] {
  const set: string[] = [];
  if (!operatorChose(PRETENURING, [...execArgv, ...nodeOptions.split(/\s+/)])) {
    const flag = `--no-${PRETENURING}`;
    v8.setFlagsFromString(flag);
    set.push(flag);
  }
  return set;
}

/** Whether `--name`, `--no-name` (or their `_` spellings, as V8 accepts) is among the arguments. */
export function operatorChose(name: string, args: readonly string[]): boolean {
  const forms = new Set([name, name.replaceAll("-", "_")].flatMap((n) => [`--${n}`, `--no-${n}`, `--no${n}`]));
  return args.some((a) => forms.has(a.split("=", 1)[0]!));
}
