/**
 * A new PGlite store on disk starts from the build's empty cluster (src/dataApi/store/pgliteTemplate.ts), and an
 * existing one is opened as it is.
 */
import {existsSync, mkdtempSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {openSqlClient} from "../../../../src/dataApi/store/client.js";
import {newStoreTemplate, pgliteTemplateFile} from "../../../../src/dataApi/store/pgliteTemplate.js";
import {quietLogger} from "../../../helpers/sql.js";

describe("a new PGlite store", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "avaext-pglite-template-"));
  beforeAll(() => {
    if (!existsSync(pgliteTemplateFile())) throw new Error(`${pgliteTemplateFile()} is missing: npm run build makes it`);
  });
  afterAll(() => rmSync(root, {recursive: true, force: true}));

  it("starts from the build's empty cluster, and keeps what it holds across a reopen", async () => {
    const dir = path.join(root, "data-api");
    expect(newStoreTemplate(dir)).toBeInstanceOf(Blob);
    expect(newStoreTemplate(null)).toBeUndefined();
    const sql = await openSqlClient({url: "embedded", dataDir: dir}, {logger: quietLogger()});
    await sql.exec("CREATE TABLE kept (v int4); INSERT INTO kept VALUES (7)");
    await sql.close();
    expect(existsSync(path.join(dir, "PG_VERSION"))).toBe(true);
    // A cluster is there now: no template, and the row is still there.
    expect(newStoreTemplate(dir)).toBeUndefined();
    const again = await openSqlClient({url: "embedded", dataDir: dir}, {logger: quietLogger()});
    expect(await again.query("SELECT v FROM kept")).toEqual([{v: 7}]);
    // Made from the template, not by an initdb: a second new store has the same system identifier (an initdb
    // draws a new one).
    const id = async (db: typeof again): Promise<string> => (await db.query<{id: string}>("SELECT system_identifier::text AS id FROM pg_control_system()"))[0]!.id;
    const first = await id(again);
    await again.close();
    const other = await openSqlClient({url: "embedded", dataDir: path.join(root, "other")}, {logger: quietLogger()});
    expect(await id(other)).toBe(first);
    await other.close();
  }, 120_000);
});
