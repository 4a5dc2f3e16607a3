/**
 * The data API's writer lock lost under a running writer (issue 49): on a real PostgreSQL server, the lock's session
 * is killed with `pg_terminate_backend`, as a server restart or an operator would. The writer must stop writing at
 * once, say so in health, and (as a process) exit non-zero; a second ingest process started meanwhile takes the
 * lock, so there are never two writers (docs/operations/scaling.md).
 */
import {rmSync} from "node:fs";
import path from "node:path";
import pg from "pg";
import {afterAll, describe, expect, it} from "vitest";
import {openSqlClient} from "../../src/dataApi/store/client.js";
import {WritesFencedError} from "../../src/dataApi/store/pg.js";
import {acquireWriterLock, takeWriterEpoch, WRITER_LOCK_KEY} from "../../src/dataApi/store/lock.js";
import {migrate} from "../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../src/dataApi/store/schema.js";
import {startChild, type Child} from "../helpers/child.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";
import {createTestDatabase, quietLogger} from "../helpers/sql.js";

const dir = tempDir();
const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
  rmSync(dir, {recursive: true, force: true});
});

const HIGH = Number(WRITER_LOCK_KEY >> 32n);
const LOW = Number(WRITER_LOCK_KEY & 0xffff_ffffn);

/** The lock holder's backend: its pid and application_name (`avaext <host> pid <pid>`), or null when free. */
async function holder(admin: pg.Client): Promise<{pid: number; app: string} | null> {
  const r = await admin.query<{pid: number; application_name: string}>(
    `SELECT a.pid, a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.classid = $1::int8::oid AND l.objid = $2::int8::oid
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [HIGH, LOW],
  );
  const h = r.rows[0];
  return h ? {pid: h.pid, app: h.application_name} : null;
}

async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type HealthBody = {checks: Record<string, {message?: Record<string, unknown>; error?: {message?: string} | string}>};

describe("the data API writer lock, lost on a real PostgreSQL server", () => {
  it("a writer process whose lock session is killed stops and exits non-zero; a second ingest process takes the lock: never two writers", async () => {
    const db = await createTestDatabase();
    const admin = new pg.Client({connectionString: db});
    await admin.connect();
    try {
      const flags = (d: string): string[] => [
        `--data-dir=${path.join(dir, d)}`,
        "--network-id=local",
        "--index-enabled",
        "--feed=dev",
        "--dev-backfill=30m",
        "--dev-evm=false",
        "--data-api-enabled",
        "--data-api-role=ingest",
        `--data-api-db=${db}`,
        "--health-check-frequency=1s",
      ];
      const a = await startChild(flags("a"));
      children.push(a);
      const first = await until("the first writer's lock", () => holder(admin));
      expect(first.app).toContain(`pid ${a.proc.pid}`);

      const t0 = Date.now();
      await admin.query("SELECT pg_terminate_backend($1)", [first.pid]);
      // The second ingest process starts at once, while the first may still be noticing.
      const b = await startChild(flags("b"));
      children.push(b);
      const code = await Promise.race([a.exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 60_000))]);
      expect(code, a.output()).toBe(1);
      expect(a.output()).toContain("writer lock lost");
      console.log(`first writer exited ${code} ${Date.now() - t0} ms after its lock session was killed`);

      // The second holds the lock and folds; no session of the first is left.
      const second = await until("the second writer's lock", () => holder(admin));
      expect(second.app).toContain(`pid ${b.proc.pid}`);
      const sessions = await admin.query<{n: string}>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE $1",
        [`% pid ${a.proc.pid}`],
      );
      expect(Number(sessions.rows[0]!.n)).toBe(0);
      const health = await until("the second writer healthy", async () => {
        const h = (await (await fetch(`${b.url}/ext/health`)).json()) as HealthBody;
        return h.checks["data-api"] && h.checks["data-api"].error === undefined ? h : null;
      });
      expect(health.checks["data-api"]?.message).toMatchObject({role: "ingest"});
      b.proc.kill("SIGTERM");
      expect(await b.exited).toBe(0);
    } finally {
      await admin.end();
    }
  }, 180_000);

  it("fences an embedded writer's writes at once and fails its health check, naming the loss", async () => {
    const db = await createTestDatabase();
    const admin = new pg.Client({connectionString: db});
    await admin.connect();
    let t: TestNode | undefined;
    try {
      // In-process, with no fatal handler: the node goes on serving, its writes refused.
      t = await startNode({
        "network-id": "local",
        "index-enabled": true,
        feed: "dev",
        "dev-backfill": "30m",
        "dev-evm": false,
        "data-api-enabled": true,
        "data-api-db": db,
        "health-check-frequency": "200ms",
      });
      const h = await until("the lock", () => holder(admin));
      const sql = t.node.dataApi!.sql;
      await sql.transaction(async (tx) => tx.query("SELECT 1"));
      await admin.query("SELECT pg_terminate_backend($1)", [h.pid]);
      await until("writes fenced", async () => {
        const err = await sql
          .transaction(async (tx) => tx.query("UPDATE data_api_meta SET value = value WHERE false"))
          .then(
            () => null,
            (e: unknown) => e,
          );
        return err instanceof WritesFencedError ? err : null;
      });
      await expect(sql.query("INSERT INTO data_api_meta (key, value) VALUES ('x', 'y')")).rejects.toThrow(
        WritesFencedError,
      );
      // Reads go on: the node still serves.
      expect(await sql.query("SELECT 1 AS one")).toEqual([{one: 1}]);
      const check = await until("the health check to fail", async () => {
        const body = (await t!.get("/ext/health")).json() as HealthBody;
        const c = body.checks["data-api"];
        return c?.error ? c : null;
      });
      expect(JSON.stringify(check.error)).toContain("writer lock lost");
      expect(check.message).toMatchObject({writerLock: "lost"});
      expect(((await t.get("/v1/health-check")).json() as {status: string}).status).toBe("error");
      // Nothing of this process holds the lock again behind the caller's back.
      expect(await holder(admin)).toBeNull();
    } finally {
      await t?.close();
      await admin.end();
    }
  }, 180_000);

  it("refuses the old writer's next transaction once another took the store, even when the loss was never reported to it", async () => {
    const db = await createTestDatabase();
    const logger = quietLogger();
    const a = await openSqlClient({url: db, dataDir: null, poolSize: 4}, {logger});
    const b = await openSqlClient({url: db, dataDir: null, poolSize: 4}, {logger});
    try {
      await migrate(a, MIGRATIONS, {logger});
      const staleA: Error[] = [];
      const lockA = await acquireWriterLock(a, {dataDir: null});
      await takeWriterEpoch(a, (e) => staleA.push(e));
      // A transaction of the first writer in flight, holding its epoch check.
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const inFlight = a.transaction(async (tx) => {
        await tx.query("INSERT INTO data_api_meta (key, value) VALUES ('written-by', 'a')");
        await gate;
      });
      await new Promise((r) => setTimeout(r, 200));
      // Its lock goes without a word to it (as an idle connection dropped by a proxy would: here, released), and a
      // second writer takes the lock and the store: its epoch waits for the transaction in flight.
      await lockA.release();
      const lockB = await acquireWriterLock(b, {dataDir: null});
      let bumped = false;
      const epochB = takeWriterEpoch(b, () => undefined).then(() => void (bumped = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(bumped).toBe(false);
      release();
      await inFlight;
      await epochB;
      // The first writer's next transaction, and any write after it, is refused; the second writes.
      await expect(
        a.transaction(async (tx) => tx.query("UPDATE data_api_meta SET value = 'a2' WHERE key = 'written-by'")),
      ).rejects.toThrow(WritesFencedError);
      expect(staleA.map((e) => e.message)).toEqual([
        "another writer took the store (writer epoch 2, this process's 1)",
      ]);
      await expect(a.query("DELETE FROM data_api_meta WHERE key = 'written-by'")).rejects.toThrow(WritesFencedError);
      await b.transaction(async (tx) => tx.query("UPDATE data_api_meta SET value = 'b' WHERE key = 'written-by'"));
      expect(await b.query("SELECT value FROM data_api_meta WHERE key = 'written-by'")).toEqual([{value: "b"}]);
      await lockB.release();
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
