/**
 * A new PGlite store on disk starts from the build's empty cluster (src/dataApi/store/pgliteTemplate.ts), and an
 * existing one is opened as it is.
 */
import {createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync} from "node:fs";
import {Readable} from "node:stream";
import {buffer} from "node:stream/consumers";
import {createGunzip} from "node:zlib";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {openSqlClient} from "../../../../src/dataApi/store/client.js";
import {pgliteTemplateFile, seedNewStore, untarInto} from "../../../../src/dataApi/store/pgliteTemplate.js";
import {quietLogger} from "../../../helpers/sql.js";

describe("a new PGlite store", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-pglite-template-"));
  beforeAll(() => {
    if (!existsSync(pgliteTemplateFile()))
      throw new Error(`${pgliteTemplateFile()} is missing: npm run build makes it`);
  });
  afterAll(() => rmSync(root, {recursive: true, force: true}));

  it("starts from the build's empty cluster, and keeps what it holds across a reopen", async () => {
    const dir = path.join(root, "data-api");
    expect(await seedNewStore(null)).toBe(false);
    const sql = await openSqlClient({url: "embedded", dataDir: dir}, {logger: quietLogger()});
    await sql.exec("CREATE TABLE kept (v int4); INSERT INTO kept VALUES (7)");
    await sql.close();
    expect(existsSync(path.join(dir, "PG_VERSION"))).toBe(true);
    // A cluster is there now: left as it is, and the row is still there.
    expect(await seedNewStore(dir)).toBe(true);
    const again = await openSqlClient({url: "embedded", dataDir: dir}, {logger: quietLogger()});
    expect(await again.query("SELECT v FROM kept")).toEqual([{v: 7}]);
    // Made from the template, not by an initdb: a second new store has the same system identifier (an initdb
    // draws a new one).
    const id = async (db: typeof again): Promise<string> =>
      (await db.query<{id: string}>("SELECT system_identifier::text AS id FROM pg_control_system()"))[0]!.id;
    const first = await id(again);
    await again.close();
    const other = await openSqlClient({url: "embedded", dataDir: path.join(root, "other")}, {logger: quietLogger()});
    expect(await id(other)).toBe(first);
    await other.close();
  }, 120_000);

  it("writes the cluster again over a copy that a kill cut short, and refuses an entry outside the directory", async () => {
    const dir = path.join(root, "cut-short");
    expect(await seedNewStore(dir)).toBe(true);
    // As a kill before the last step leaves it: files, but no PG_VERSION, one of them truncated.
    unlinkSync(path.join(dir, "PG_VERSION"));
    const control = path.join(dir, "global", "pg_control");
    writeFileSync(control, "");
    expect(await seedNewStore(dir)).toBe(true);
    expect(readFileSync(control).length).toBeGreaterThan(0);
    const sql = await openSqlClient({url: "embedded", dataDir: dir}, {logger: quietLogger()});
    expect(await sql.query("SELECT 1 AS one")).toEqual([{one: 1}]);
    await sql.close();

    // A ustar header naming ../escaped: refused before anything is written.
    const header = Buffer.alloc(1024);
    header.write("../escaped", 0);
    header.write("00000000001\0", 124);
    header.write("0", 156);
    header.write("ustar\u000000", 257);
    await expect(untarInto(Readable.from([header]), path.join(root, "refused"))).rejects.toThrow(
      /unreadable entry at byte 0: "..\/escaped"/,
    );
    // Cut short inside a file: an error, and no PG_VERSION.
    const archive = await buffer(createReadStream(pgliteTemplateFile()).pipe(createGunzip()));
    const cut = path.join(root, "cut");
    await expect(
      untarInto(Readable.from([archive.subarray(0, 2048), archive.subarray(2048, 300_000)]), cut),
    ).rejects.toThrow(/ends part way/);
    expect(existsSync(path.join(cut, "PG_VERSION"))).toBe(false);
    expect(existsSync(path.join(root, "escaped"))).toBe(false);

    // A dump that cannot be read (here a directory: EISDIR) is an error of the open, not a wait for more bytes.
    await expect(seedNewStore(path.join(root, "unreadable"), root)).rejects.toThrow(/EISDIR/);
    expect(existsSync(path.join(root, "unreadable", "PG_VERSION"))).toBe(false);
  }, 120_000);
});
