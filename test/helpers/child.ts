/** A real avaext process (bin/avaext.js, built dist/) for restart, crash and exit-code tests. */
import {spawn, type ChildProcess} from "node:child_process";
import path from "node:path";
import {childPgliteDir, seedPgliteDir} from "./pglite.js";

export const BIN = path.resolve(__dirname, "../../bin/avaext.js");

/** The dev feed unless the test names a feed (--feed has no default) or a config file that may. */
function withFeed(flags: string[]): string[] {
  return flags.some((f) => f.startsWith("--feed") || f.startsWith("--config-file")) ? flags : ["--feed=dev", ...flags];
}

export interface Child {
  proc: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts avaext with flags; resolves once it listens (its first log line names the URL). `seedStore: false` leaves
 * a new PGlite store for avaext to make, as it makes it on a user's first start.
 */
export async function startChild(
  flags: string[],
  timeoutMs = 60_000,
  opts: {seedStore?: boolean} = {},
): Promise<Child> {
  // The data API's PGlite store starts as a copy of the run's empty cluster, not an initdb of its own.
  const pgliteDir = childPgliteDir(flags);
  if (pgliteDir !== null && opts.seedStore !== false) await seedPgliteDir(pgliteDir);
  const proc = spawn(
    process.execPath,
    [BIN, "--http-host=127.0.0.1", "--http-port=0", "--log-display-level=INFO", ...withFeed(flags)],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`avaext did not start: ${out}`)), timeoutMs);
    const check = (): void => {
      const m = /"url":"(http:\/\/[^"]+?)\/?"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`avaext exited with ${code}: ${out}`));
    });
  });
  return {proc, url, output: () => out, exited};
}

/**
 * Runs avaext to completion (for refusals); resolves with exit code and output. A command (`data-api rebuild`)
 * goes first, before the test's loopback and log flags.
 */
export function runChild(
  flags: string[],
  timeoutMs = 60_000,
  command: string[] = [],
): Promise<{code: number | null; output: string}> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [BIN, ...command, "--http-host=127.0.0.1", "--http-port=0", "--log-display-level=INFO", ...withFeed(flags)],
      {stdio: ["ignore", "pipe", "pipe"]},
    );
    let out = "";
    proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
    proc.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`avaext did not exit: ${out}`));
    }, timeoutMs);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      resolve({code, output: out});
    });
  });
}

export async function rpc(
  url: string,
  p: string,
  method: string,
  params?: unknown,
): Promise<{result?: unknown; error?: {code: number; message: string}}> {
  const res = await fetch(url + p, {
    method: "POST",
    headers: {"content-type": "application/json"},
    body: JSON.stringify({jsonrpc: "2.0", id: 1, method, params}),
  });
  return (await res.json()) as {result?: unknown; error?: {code: number; message: string}};
}
