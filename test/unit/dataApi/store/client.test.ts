import {execFile} from "node:child_process";
import {mkdtemp, rm, writeFile} from "node:fs/promises";
import {tmpdir} from "node:os";
import path from "node:path";
import {fileURLToPath, pathToFileURL} from "node:url";
import {promisify} from "node:util";
import type {Worker} from "node:worker_threads";
import {afterAll, beforeAll, describe, expect, inject, it} from "vitest";
import {applicationName} from "../../../../src/dataApi/store/pg.js";
import {openSqlClient} from "../../../../src/dataApi/store/client.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {PgliteThreadClient} from "../../../../src/dataApi/store/pgliteThread.js";
import {pgliteTemplate, pgliteTemplateFile, seedPgliteDir} from "../../../helpers/pglite.js";
import {BACKENDS, quietLogger} from "../../../helpers/sql.js";

// The stores' backends (PGlite on its own thread, as the service runs it, and a server) and PGlite on the calling
// thread (the fallback without a compiled worker script): one contract.
const CLIENTS = [
  ...BACKENDS.map((b) => ({...b, label: b.name as string})),
  {
    name: "pglite" as const,
    label: "pglite on the calling thread",
    open: async (): Promise<SqlClient> =>
      openSqlClient(
        {url: "embedded", dataDir: null, pgliteThread: false, pgliteTemplate: await pgliteTemplate()},
        {logger: quietLogger()},
      ),
  },
];

describe.each(CLIENTS)("SqlClient ($label)", (backend) => {
  let db: SqlClient;
  beforeAll(async () => {
    db = await backend.open();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("reports its kind", () => {
    expect(db.kind).toBe(backend.name);
  });

  it("runs a parameterised read again after its table changed, and stays usable after a failed one", async () => {
    await db.exec("DROP TABLE IF EXISTS prep_t; CREATE TABLE prep_t (id int8 PRIMARY KEY, a text)");
    await db.query("INSERT INTO prep_t (id, a) VALUES ($1, $2)", [1n, "one"]);
    const read = "SELECT * FROM prep_t WHERE id = ANY($1::int8[]) ORDER BY id";
    for (let i = 0; i < 7; i++) expect(await db.query(read, [[1n, 2n]])).toEqual([{id: 1n, a: "one"}]);
    // A new column changes the statement's result type: it is prepared afresh, once.
    await db.exec("ALTER TABLE prep_t ADD COLUMN b int4 NOT NULL DEFAULT 5");
    expect(await db.query(read, [[1n]])).toEqual([{id: 1n, a: "one", b: 5}]);
    // A statement that fails (bad input for its parameter) leaves the session and the prepared statements working.
    await expect(db.query(read, [["x"]])).rejects.toThrow(/invalid input syntax/);
    await expect(db.query("SELECT * FROM no_such_table WHERE id = $1", [1])).rejects.toThrow(/no_such_table/);
    expect(await db.query(read, [[1n]])).toEqual([{id: 1n, a: "one", b: 5}]);
    // Reads wait for a transaction in progress rather than running inside it (PGlite), or run beside it on a
    // connection of their own and see none of it (a server: the transaction is held open until the read answers).
    let inside = false;
    let readAnswered!: () => void;
    const answered = new Promise<void>((r) => (readAnswered = r));
    const tx = db.transaction(async (t) => {
      inside = true;
      await t.query("INSERT INTO prep_t (id, a) VALUES ($1, $2)", [2n, "two"]);
      await (backend.name === "pglite" ? new Promise((r) => setTimeout(r, 50)) : answered);
      await t.query("UPDATE prep_t SET a = $2 WHERE id = $1", [2n, "TWO"]);
    });
    while (!inside) await new Promise((r) => setImmediate(r));
    const seen = await db.query<{a: string}>(read, [[2n]]);
    readAnswered();
    await tx;
    expect(seen.map((r) => r.a)).toEqual(backend.name === "pglite" ? ["TWO"] : []);
  });

  it.runIf(backend.name === "postgres")("names its connections for pg_stat_activity", async () => {
    expect(await db.query("SELECT current_setting('application_name') AS app")).toEqual([{app: applicationName()}]);
    expect(applicationName()).toMatch(new RegExp(`^avaext \\S+ pid ${process.pid}$`));
  });

  it("binds parameters and returns the store's value types", async () => {
    const [row] = await db.query(
      `SELECT $1::int8 AS big, $2::int4 AS small, $3::numeric AS num, $4::bytea AS bytes, $5::text AS txt,
              $6::bool AS flag, $7::text[] AS arr, '{"a":[1,2]}'::jsonb AS doc, 7::int8 AS seven, NULL::int8 AS nothing,
              ARRAY[1, 9223372036854775807]::int8[] AS bigs, ARRAY['\\x00ff'::bytea] AS blobs`,
      [2n ** 63n - 1n, 42, "12345678901234567890.000000001", new Uint8Array([0, 1, 255]), "", true, ["x", "", 'y"z']],
    );
    expect(row).toEqual({
      big: 2n ** 63n - 1n,
      small: 42,
      num: "12345678901234567890.000000001",
      bytes: new Uint8Array([0, 1, 255]),
      txt: "",
      flag: true,
      arr: ["x", "", 'y"z'],
      doc: {a: [1, 2]},
      seven: 7n,
      nothing: null,
      bigs: [1n, 2n ** 63n - 1n],
      blobs: [new Uint8Array([0, 255])],
    });
    // A plain Uint8Array on both drivers, not a Node Buffer.
    expect(Buffer.isBuffer(row.bytes)).toBe(false);
    expect(typeof row.seven).toBe("bigint");
  });

  it("reads a parameterised result as the driver's own reader does, large and multi-byte included", async () => {
    // 20,000 rows of every value type, multi-byte text, NULLs and a repeated column name: on PGlite the
    // parameterised read takes its rows from the backend's raw output, the plain read through PGlite's own reader.
    const body = `SELECT g AS n, g::int8 * 1000000007 AS big, 'é✓𝄞 ' || g AS txt, CASE WHEN g % 3 = 0 THEN NULL ELSE g % 2 = 0 END AS flag,
                    jsonb_build_object('g', g, 's', repeat('ü', g % 50)) AS doc, decode(md5(g::text), 'hex') AS bytes,
                    (g * 1.5)::numeric AS num, ARRAY[g, -g]::int8[] AS bigs, 'first' AS dup, 'second' AS dup
               FROM generate_series(1, 20000) g`;
    const fast = await db.query(`${body} WHERE g > $1 ORDER BY g`, [0]);
    const plain = await db.query(`${body} WHERE g > 0 ORDER BY g`);
    expect(fast.length).toBe(20_000);
    expect(fast).toEqual(plain);
    expect(fast[6]).toEqual({
      n: 7,
      big: 7_000_000_049n,
      txt: "é✓𝄞 7",
      flag: false,
      doc: {g: 7, s: "ü".repeat(7)},
      bytes: plain[6].bytes,
      num: "10.5",
      bigs: [7n, -7n],
      dup: "second",
    });
    expect(fast[2].flag).toBeNull();
  });
  it("rejects a failed statement with the database's fields: its code, constraint and detail", async () => {
    await db.exec("CREATE TABLE u (id int4 CONSTRAINT u_pkey PRIMARY KEY)");
    await db.query("INSERT INTO u VALUES ($1)", [1]);
    for (const run of [
      (): Promise<unknown> => db.query("INSERT INTO u VALUES ($1)", [1]),
      (): Promise<unknown> => db.transaction((tx) => tx.query("INSERT INTO u VALUES ($1)", [1])),
    ]) {
      const err = await run().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(err).toMatchObject({code: "23505", constraint: "u_pkey", message: expect.stringMatching(/duplicate key/)});
      expect((err as {detail: string}).detail).toMatch(/\(id\)=\(1\) already exists/);
    }
  });

  it("runs a multi-statement script with exec", async () => {
    await db.exec("CREATE TABLE s (v int4); INSERT INTO s VALUES (1); INSERT INTO s VALUES (2);");
    expect(await db.query("SELECT v FROM s ORDER BY v")).toEqual([{v: 1}, {v: 2}]);
  });

  it("commits a transaction that resolves and returns its value", async () => {
    await db.exec("CREATE TABLE c (v int4)");
    const out = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO c VALUES ($1)", [1]);
      await tx.exec("INSERT INTO c VALUES (2); INSERT INTO c VALUES (3)");
      return (await tx.query<{n: bigint}>("SELECT count(*) AS n FROM c"))[0].n;
    });
    expect(out).toBe(3n);
    expect(await db.query("SELECT count(*)::int4 AS n FROM c")).toEqual([{n: 3}]);
  });

  it("rolls back a transaction that throws and rethrows the error", async () => {
    await db.exec("CREATE TABLE r (v int4)");
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO r VALUES (1)");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    // A failing statement inside rolls back too.
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO r VALUES (2)");
        await tx.query("INSERT INTO no_such_table VALUES (1)");
      }),
    ).rejects.toThrow(/no_such_table/);
    expect(await db.query("SELECT count(*)::int4 AS n FROM r")).toEqual([{n: 0}]);
    // The client is still usable afterwards.
    await db.transaction(async (tx) => tx.query("INSERT INTO r VALUES (3)"));
    expect(await db.query("SELECT v FROM r")).toEqual([{v: 3}]);
  });

  it("keeps concurrent transactions apart", async () => {
    await db.exec("CREATE TABLE k (t int4, v int4)");
    // Each transaction writes then reads its own rows; statements of two transactions must not mix.
    const run = (t: number): Promise<number[]> =>
      db.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.query("INSERT INTO k VALUES ($1, $2)", [t, i]);
        if (t === 2) throw new Error("abort 2");
        return (await tx.query<{v: number}>("SELECT v FROM k WHERE t = $1 ORDER BY v", [t])).map((r) => r.v);
      });
    const results = await Promise.allSettled([run(1), run(2), run(3)]);
    expect(results[0]).toEqual({status: "fulfilled", value: [0, 1, 2, 3, 4]});
    expect(results[1].status).toBe("rejected");
    expect(results[2]).toEqual({status: "fulfilled", value: [0, 1, 2, 3, 4]});
    expect(await db.query("SELECT t, count(*)::int4 AS n FROM k GROUP BY t ORDER BY t")).toEqual([
      {t: 1, n: 5},
      {t: 3, n: 5},
    ]);
  });
});

describe("PGlite on its own thread", () => {
  it("is what openSqlClient opens for an embedded store", async () => {
    const db = await openSqlClient(
      {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
      {logger: quietLogger()},
    );
    try {
      expect(db).toBeInstanceOf(PgliteThreadClient);
      expect(db.offThread).toBe(true);
    } finally {
      await db.close();
    }
  });

  it("fails the calls waiting and every later one with the reason, without hanging, when its thread stops", async () => {
    const db = await openSqlClient(
      {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
      {logger: quietLogger()},
    );
    const waiting = db.query("SELECT pg_sleep(0.5)");
    await (db as unknown as {worker: Worker}).worker.terminate();
    await expect(waiting).rejects.toThrow(/PGlite's thread exited/);
    await expect(db.query("SELECT 1")).rejects.toThrow(/PGlite's thread exited/);
    await expect(db.transaction((tx) => tx.query("SELECT 1"))).rejects.toThrow(/PGlite's thread exited/);
    await db.close();
  });

  it("tells its owner once that the store is lost when its thread stops, and not when it is closed", async () => {
    const lost: string[] = [];
    const db = await openSqlClient(
      {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
      {logger: quietLogger(), onLost: (e) => lost.push(e.message)},
    );
    await (db as unknown as {worker: Worker}).worker.terminate();
    await expect(db.query("SELECT 1")).rejects.toThrow(/PGlite's thread exited/);
    expect(lost).toEqual(["PGlite's thread exited (code 1)"]);
    await db.close();
    const closed: string[] = [];
    const other = await openSqlClient(
      {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
      {logger: quietLogger(), onLost: (e) => closed.push(e.message)},
    );
    await other.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toEqual([]);
  });

  it("rejects a parameter it cannot copy to its thread, and goes on", async () => {
    const db = await openSqlClient(
      {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
      {logger: quietLogger()},
    );
    try {
      await expect(db.query("SELECT $1::text AS t", [(): number => 1])).rejects.toThrow(/could not be cloned/);
      expect(await db.query("SELECT $1::text AS t", ["ok"])).toEqual([{t: "ok"}]);
    } finally {
      await db.close();
    }
  });

  it("does not keep the process alive once its calls have answered", async () => {
    // As PGlite on the calling thread would not: a command that forgets to close it still exits.
    const client = path.resolve(
      path.dirname(fileURLToPath(import.meta.url)),
      "../../../../dist/src/dataApi/store/client.js",
    );
    const dir = await mkdtemp(path.join(tmpdir(), "avaext-pglite-exit-"));
    try {
      const script = path.join(dir, "forget-to-close.mjs");
      // From the run's empty cluster: an initdb of its own took past the 30 s bound on a busy machine.
      const template = pgliteTemplateFile();
      await writeFile(
        script,
        `const {openSqlClient} = await import(${JSON.stringify(pathToFileURL(client).href)});
        const {readFile} = await import("node:fs/promises");
        const template = ${JSON.stringify(template ?? null)};
        const pgliteTemplate = template === null ? undefined : new Blob([await readFile(template)]);
        const db = await openSqlClient({url: "embedded", dataDir: null, pgliteTemplate}, {logger: {debug() {}}});
        console.log(JSON.stringify(await db.query("SELECT $1::int4 AS n", [7])));`,
      );
      // A process that stays alive is killed here and fails the test; a busy machine took past 30 s to start one.
      const {stdout} = await promisify(execFile)(process.execPath, [script], {timeout: 100_000});
      expect(stdout.trim()).toBe('[{"n":7}]');
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  });
});

describe("PGlite on disk", () => {
  it("keeps its data across close and reopen", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "avaext-pglite-"));
    await seedPgliteDir(dir);
    try {
      const a = await openSqlClient({url: "embedded", dataDir: dir}, {logger: quietLogger()});
      await a.exec("CREATE TABLE p (v int8)");
      await a.query("INSERT INTO p VALUES ($1)", [2n ** 60n]);
      await a.close();
      const b = await openSqlClient({url: "embedded", dataDir: dir}, {logger: quietLogger()});
      expect(await b.query("SELECT v FROM p")).toEqual([{v: 2n ** 60n}]);
      await b.close();
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  });

  it("takes its page cache size at every start, on its thread and on the calling thread", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "avaext-pglite-"));
    await seedPgliteDir(dir);
    const sharedBuffers = async (opts: {pgliteSharedBuffersMb?: number; pgliteThread?: boolean}): Promise<unknown> => {
      const db = await openSqlClient({url: "embedded", dataDir: dir, ...opts}, {logger: quietLogger()});
      try {
        return (await db.query<{shared_buffers: string}>("SHOW shared_buffers"))[0]!.shared_buffers;
      } finally {
        await db.close();
      }
    };
    try {
      expect(await sharedBuffers({})).toBe("128MB");
      // Not written into the cluster: the next start with another value (or none) has that one.
      expect(await sharedBuffers({pgliteSharedBuffersMb: 32})).toBe("32MB");
      expect(await sharedBuffers({pgliteSharedBuffersMb: 256, pgliteThread: false})).toBe("256MB");
      expect(await sharedBuffers({})).toBe("128MB");
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  });

  it("makes a new cluster with a thread that then exits, and opens it with another (without the build's template)", async () => {
    // What PGlite builds to run initdb stays reachable as long as its instance: the thread that made the cluster
    // exits, freeing it. Each Worker takes this process's next thread ID, so the IDs count the threads started.
    const threadId = (db: SqlClient): number => (db as unknown as {worker: Worker}).worker.threadId;
    const open = (dir: string): Promise<SqlClient> =>
      openSqlClient({url: "embedded", dataDir: dir, pgliteTemplate: null}, {logger: quietLogger()});
    const fresh = await mkdtemp(path.join(tmpdir(), "avaext-pglite-"));
    const other = await mkdtemp(path.join(tmpdir(), "avaext-pglite-"));
    try {
      const a = await open(fresh);
      const made = threadId(a);
      await a.exec("CREATE TABLE p (v int4)");
      await a.close();
      const b = await open(fresh);
      const reopened = threadId(b);
      expect(await b.query("SELECT count(*)::int4 AS n FROM p")).toEqual([{n: 0}]);
      await b.close();
      const c = await open(other);
      const madeAgain = threadId(c);
      await c.close();
      expect(reopened - made).toBe(1);
      expect(madeAgain - reopened).toBe(2);
    } finally {
      await rm(fresh, {recursive: true, force: true});
      await rm(other, {recursive: true, force: true});
    }
    // Two clusters made (PGlite's initdb, 5-15 s each on a busy 2-core machine) and three opened.
  }, 120_000);
});

describe("openSqlClient on a server that refuses", () => {
  it("fails at open with the server's reason", async () => {
    const url = new URL(inject("pgUrl"));
    url.password = "wrong";
    await expect(openSqlClient({url: url.toString(), dataDir: null}, {logger: quietLogger()})).rejects.toThrow(
      /password/,
    );
  });
});
