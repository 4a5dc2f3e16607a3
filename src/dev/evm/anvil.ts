/**
 * Foundry's `anvil` as a child process (the dev network's EVM, docs/development.md): started on 127.0.0.1 on a
 * port it picks itself, checked (`eth_chainId` must answer the chain ID asked for), and stopped by its process ID
 * by whoever started it. Its binary comes from npm (`@foundry-rs/anvil-<platform>`); a missing binary or an exit
 * is a clear error, never a hang.
 */
import {spawn, type ChildProcess} from "node:child_process";
import {mkdtempSync, rmSync} from "node:fs";
import {createRequire} from "node:module";
import os from "node:os";
import path from "node:path";
import type {Logger} from "../../logger/index.js";

export interface AnvilOptions {
  chainId: number;
  /** Genesis block time, Unix seconds (the dev network's genesis, so block times line up with the other chains). */
  genesisTimestamp: number;
  /** `manual`: blocks are mined only on `evm_mine` (the dev feed's ticks); `auto`: a block per transaction. */
  mining: "manual" | "auto";
  /** EVM hardfork; cancun is what the C-chain runs since Etna (ACP-131). */
  hardfork?: string;
  /** Default accounts to create (anvil's default: 10). */
  accounts?: number;
  /** Give up waiting for the listening line after this many ms. */
  startTimeoutMs?: number;
  /** An explicit binary (tests, operators); default: the npm platform package's. */
  binary?: string;
  /**
   * How long `rawCall` waits for an answer, ms (default 30 s). Anvil can stall for tens of seconds under load and then
   * answer (foundry-rs/foundry#6036): a test whose own calls must not fail on that gives them longer.
   */
  callTimeoutMs?: number;
}

export interface AnvilModules {
  logger: Logger;
}

const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64",
  "win32-x64": "@foundry-rs/anvil-win32-amd64",
};

/** The anvil binary installed by `npm install` for this platform. */
export function anvilBinary(): string {
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`anvil: no @foundry-rs/anvil package for ${process.platform}-${process.arch}`);
  try {
    const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
    return path.join(path.dirname(manifest), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
  } catch {
    throw new Error(
      `anvil: ${pkg} is not installed (run npm install; it is an optional dependency of @foundry-rs/anvil)`,
    );
  }
}

/**
 * Spawns the binary so that it dies with avaext, even when avaext is killed with SIGKILL: on POSIX systems a
 * small sh wrapper holds a pipe from avaext on its stdin and kills anvil when that pipe closes (avaext gone), or
 * when the wrapper itself gets SIGTERM (a normal stop by process ID). Without it, every kill -9 of avaext would
 * leave an anvil behind.
 *
 * Anvil's graceful exit on SIGTERM can hang (seen after a week of dev history: asleep on a futex, deaf to further
 * SIGTERMs), so the wrapper follows its SIGTERM with a SIGKILL after END_GRACE_S. The wrapper leads a process group
 * of its own (`detached`), which Anvil.stop kills whole as a last resort.
 *
 * Anvil keeps older states in a folder under `$HOME/.foundry/anvil/tmp` (gigabytes for a long chain) and removes
 * it only on a graceful exit. So it runs with `home` as its HOME, and the wrapper removes that folder once anvil
 * has exited, whichever way.
 */
function spawnTied(binary: string, args: string[], home: string): ChildProcess {
  const env = {...process.env, HOME: home, AVAEXT_ANVIL_HOME: home};
  if (process.platform === "win32")
    return spawn(binary, args, {stdio: ["ignore", "pipe", "pipe"], env: {...env, USERPROFILE: home}});
  const script = [
    "exec 3<&0",
    '"$0" "$@" <&- & a=$!',
    'clean() { [ -n "$AVAEXT_ANVIL_HOME" ] && rm -rf "$AVAEXT_ANVIL_HOME"; }',
    `end() { kill $a 2>/dev/null; ( sleep ${END_GRACE_S}; kill -9 $a 2>/dev/null ) & }`,
    "trap 'end; wait $a; clean; exit 0' TERM INT",
    "{ read _ <&3; end; } &",
    "wait $a",
    "clean",
  ].join("\n");
  return spawn("/bin/sh", ["-c", script, binary, ...args], {stdio: ["pipe", "pipe", "pipe"], env, detached: true});
}

/** Seconds the wrapper gives anvil to exit on SIGTERM before it sends SIGKILL. */
const END_GRACE_S = 3;

/** SIGKILL to the wrapper's process group (the wrapper, its reader, anvil); to the process alone where there is none. */
function killTree(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(process.platform === "win32" ? child.pid : -child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

export class Anvil {
  private exitInfo: {code: number | null; signal: string | null} | null = null;
  private readonly exitListeners: Array<(why: string) => void> = [];
  private stopping = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    private readonly logger: Logger,
    /** Anvil's HOME, holding its on-disk states (see spawnTied). */
    readonly home: string,
    private readonly callTimeoutMs: number,
  ) {
    child.on("exit", (code, signal) => {
      this.exitInfo = {code, signal};
      // The wrapper removes it after anvil; a wrapper killed outright (SIGKILL) cannot.
      rmSync(home, {recursive: true, force: true});
      const why = `anvil (pid ${child.pid}) exited ${signal ? `on ${signal}` : `with code ${code}`}`;
      if (!this.stopping) logger.error({pid: child.pid, code, signal}, "dev EVM (anvil) exited");
      for (const l of this.exitListeners) l(why);
    });
  }

  static async start(opts: AnvilOptions, modules: AnvilModules): Promise<Anvil> {
    const binary = opts.binary ?? anvilBinary();
    const args = [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--chain-id",
      String(opts.chainId),
      "--timestamp",
      String(opts.genesisTimestamp),
      "--hardfork",
      opts.hardfork ?? "cancun",
      ...(opts.accounts !== undefined ? ["--accounts", String(opts.accounts)] : []),
      ...(opts.mining === "manual" ? ["--no-mining"] : []),
    ];
    const home = mkdtempSync(path.join(os.tmpdir(), "avaext-anvil-"));
    const child = spawnTied(binary, args, home);
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      let err = "";
      const timer = setTimeout(
        () => fail(`anvil did not start within ${opts.startTimeoutMs ?? 15_000} ms`),
        opts.startTimeoutMs ?? 15_000,
      );
      const fail = (why: string): void => {
        clearTimeout(timer);
        killTree(child);
        rmSync(home, {recursive: true, force: true});
        reject(new Error(`${why}${err ? `: ${err.trim().slice(-500)}` : ""}`));
      };
      child.once("error", (e) => fail(`anvil could not be started (${binary}): ${e.message}`));
      child.once("exit", (code, signal) => fail(`anvil exited before listening (${signal ?? `code ${code}`})`));
      child.stderr!.on("data", (c: Buffer) => {
        err += c.toString("utf8");
      });
      child.stdout!.on("data", function onData(c: Buffer) {
        out += c.toString("utf8");
        const m = /Listening on (127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          child.removeAllListeners("exit");
          child.stdout!.off("data", onData);
          resolve(`http://${m[1]}`);
        }
      });
    });
    // Keep draining its output (a full pipe would stall it); it logs every request, so only at debug.
    child.stdout!.on("data", (c: Buffer) => modules.logger.debug({anvil: c.toString("utf8").trim()}, "anvil"));
    child.stderr!.on("data", (c: Buffer) => modules.logger.warn({anvil: c.toString("utf8").trim()}, "anvil"));
    const anvil = new Anvil(child, url, modules.logger, home, opts.callTimeoutMs ?? 30_000);
    const chainId = await anvil.rawCall("eth_chainId", []).catch((e: Error) => e);
    if (chainId instanceof Error || BigInt(chainId as string) !== BigInt(opts.chainId)) {
      await anvil.stop();
      throw new Error(`anvil at ${url} did not answer eth_chainId ${opts.chainId}: ${String(chainId)}`);
    }
    modules.logger.info({pid: child.pid, rpc: url, chainId: opts.chainId}, "dev EVM (anvil) started");
    return anvil;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Why it stopped, when it did; null while it runs. */
  exited(): string | null {
    if (!this.exitInfo) return null;
    return `anvil exited ${this.exitInfo.signal ? `on ${this.exitInfo.signal}` : `with code ${this.exitInfo.code}`}`;
  }

  onExit(listener: (why: string) => void): void {
    this.exitListeners.push(listener);
  }

  /** A JSON-RPC call without retries (start-up checks and the dev feed's own calls). */
  async rawCall(method: string, params: unknown[]): Promise<unknown> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: {"content-type": "application/json"},
      body: JSON.stringify({jsonrpc: "2.0", id: 1, method, params}),
      signal: AbortSignal.timeout(this.callTimeoutMs),
    });
    const body = (await res.json()) as {result?: unknown; error?: {message: string}};
    if (body.error) throw new Error(`anvil ${method}: ${body.error.message}`);
    return body.result;
  }

  /**
   * SIGTERM by process ID (the wrapper ends anvil, with SIGKILL after END_GRACE_S), SIGKILL to the wrapper's whole
   * process group if it has not exited within `graceMs`.
   */
  async stop(graceMs = (END_GRACE_S + 2) * 1000): Promise<void> {
    this.stopping = true;
    if (this.exitInfo) return;
    const done = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    process.kill(this.pid, "SIGTERM");
    this.child.stdin?.end();
    const timer = setTimeout(() => {
      if (!this.exitInfo) killTree(this.child);
    }, graceMs);
    await done;
    clearTimeout(timer);
    this.logger.debug({pid: this.pid}, "dev EVM (anvil) stopped");
  }
}
