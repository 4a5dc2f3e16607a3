import {spawnSync} from "node:child_process";
import {mkdtemp, readdir, readFile, rm, writeFile} from "node:fs/promises";
import {tmpdir} from "node:os";
import path from "node:path";
import {afterAll, afterEach, beforeAll, describe, expect, it} from "vitest";
import {applicationName} from "../../../../src/dataApi/store/pg.js";
import {openSqlClient} from "../../../../src/dataApi/store/client.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {acquireWriterLock, LOCK_FILE_NAME, WriterLockError} from "../../../../src/dataApi/store/lock.js";
import {pgliteTemplate} from "../../../helpers/pglite.js";
import {createTestDatabase, quietLogger} from "../../../helpers/sql.js";

const modules = {logger: quietLogger()};

describe("writer lock on a PostgreSQL server", () => {
  let url: string;
  const clients: SqlClient[] = [];
  const open = async (): Promise<SqlClient> => {
    const c = await openSqlClient({url, dataDir: null, poolSize: 2}, modules);
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    url = await createTestDatabase();
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
  });

  it("refuses a second writer, naming the holder, and frees on release", async () => {
    const a = await open();
    const b = await open();
    const lost: Error[] = [];
    const lock = await acquireWriterLock(a, {dataDir: null, onLost: (e) => lost.push(e)});
    const err = await acquireWriterLock(b, {dataDir: null}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WriterLockError);
    const msg = (err as Error).message;
    expect(msg).toContain(`"${applicationName()}"`);
    expect(msg).toMatch(/backend pid \d+, client 127\.0\.0\.1/);
    // The refusal left no connection of b's behind holding anything; a's lock is still there.
    await expect(acquireWriterLock(a, {dataDir: null})).rejects.toThrow(WriterLockError);
    await lock.release();
    await lock.release();
    // A release is no loss.
    expect(lost).toEqual([]);
    const again = await acquireWriterLock(b, {dataDir: null});
    await again.release();
  });

  it("is freed when the holder's client closes, without a loss report", async () => {
    const a = await openSqlClient({url, dataDir: null, poolSize: 1}, modules);
    const b = await open();
    const lost: Error[] = [];
    await acquireWriterLock(a, {dataDir: null, onLost: (e) => lost.push(e)});
    await expect(acquireWriterLock(b, {dataDir: null})).rejects.toThrow(WriterLockError);
    await a.close();
    const lock = await acquireWriterLock(b, {dataDir: null});
    await lock.release();
    expect(lost).toEqual([]);
  });

  it("is per database: another database has its own writer", async () => {
    const a = await open();
    const lock = await acquireWriterLock(a, {dataDir: null});
    const other = await openSqlClient({url: await createTestDatabase(), dataDir: null}, modules);
    clients.push(other);
    const lock2 = await acquireWriterLock(other, {dataDir: null});
    await lock2.release();
    await lock.release();
  });

  it("is freed when the holder's connection dies", async () => {
    const a = await open();
    const b = await open();
    const lostErrors: Error[] = [];
    const held = await acquireWriterLock(a, {dataDir: null, onLost: (e) => lostErrors.push(e)});
    // Kill the holder's backend as a crash would.
    await b.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    let lock = null;
    // Until the server has ended the holder's session (a count of tries ran out on a busy machine).
    for (const deadline = Date.now() + 20_000; lock === null && Date.now() < deadline; ) {
      lock = await acquireWriterLock(b, {dataDir: null}).catch(async () => {
        await new Promise((r) => setTimeout(r, 50));
        return null;
      });
    }
    expect(lock).not.toBeNull();
    // The first holder was told, once, that its lock is gone; its release is harmless.
    expect(lostErrors).toHaveLength(1);
    await held.release();
    await lock?.release();
  });
});

describe("writer lock file on PGlite", () => {
  let dir: string;
  const clients: SqlClient[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "avaext-lock-"));
    clients.push(
      await openSqlClient({url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()}, modules),
    );
  });
  afterEach(async () => {
    await rm(path.join(dir, LOCK_FILE_NAME), {force: true});
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await rm(dir, {recursive: true, force: true});
  });
  const file = (): string => path.join(dir, LOCK_FILE_NAME);

  it("writes our PID, refuses a second acquire, removes the file on release", async () => {
    const lock = await acquireWriterLock(clients[0], {dataDir: dir});
    expect((await readFile(file(), "utf8")).trim()).toBe(String(process.pid));
    await expect(acquireWriterLock(clients[0], {dataDir: dir})).rejects.toThrow(
      new RegExp(`in use by process ${process.pid} \\(this process\\)`),
    );
    await lock.release();
    await expect(readFile(file())).rejects.toMatchObject({code: "ENOENT"});
    await (await acquireWriterLock(clients[0], {dataDir: dir})).release();
  });

  it("refuses while the PID in the file is alive", async () => {
    // PID 1 always exists.
    await writeFile(file(), "1\n");
    const err = await acquireWriterLock(clients[0], {dataDir: dir}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WriterLockError);
    expect((err as Error).message).toContain("in use by process 1 ");
    expect((await readFile(file(), "utf8")).trim()).toBe("1");
  });

  it("takes over a file that holds no PID (left by a crash) and leaves no temporary file", async () => {
    await writeFile(file(), "");
    const lock = await acquireWriterLock(clients[0], {dataDir: dir});
    expect((await readFile(file(), "utf8")).trim()).toBe(String(process.pid));
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it("takes over the file of a dead PID", async () => {
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
    expect(dead).toBeGreaterThan(0);
    await writeFile(file(), `${dead}\n`);
    const lock = await acquireWriterLock(clients[0], {dataDir: dir});
    expect((await readFile(file(), "utf8")).trim()).toBe(String(process.pid));
    await lock.release();
  });

  it("takes no lock for a PGlite in memory", async () => {
    const a = await acquireWriterLock(clients[0], {dataDir: null});
    const b = await acquireWriterLock(clients[0], {dataDir: null});
    await a.release();
    await b.release();
  });
});
