/**
 * `/v1/live-check` (src/dataApi/routes/health.ts) on real stores: a store that fails answers a generic reason (its
 * own error, which may name its address, is only logged); a store busy in a long transaction (PGlite runs one at a
 * time) answers 503 within the timeout instead of holding the request.
 */
import pg from "pg";
import {describe, expect, inject, it} from "vitest";
import {openSqlClient} from "../../../../src/dataApi/store/client.js";
import {liveCheck} from "../../../../src/dataApi/routes/health.js";
import {UnavailableWithBody} from "../../../../src/dataApi/server/errors.js";
import {pgliteTemplate} from "../../../helpers/pglite.js";
import {createTestDatabase, quietLogger} from "../../../helpers/sql.js";

const body = (e: unknown): unknown => (e as UnavailableWithBody).body();

describe("live check", () => {
  it("answers a failing store with a generic reason, not the store's error", async () => {
    const url = await createTestDatabase();
    const sql = await openSqlClient({url, dataDir: null}, {logger: quietLogger()});
    try {
      expect(await liveCheck(sql, quietLogger(), 2000)).toMatchObject({status: "ok"});
      // The database goes away under the client (its connections terminated): a real outage with a raw message.
      const admin = new pg.Client({connectionString: inject("pgUrl")});
      await admin.connect();
      await admin.query(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
      const err = await liveCheck(sql, quietLogger(), 2000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnavailableWithBody);
      const down = {store: {status: "down", message: "the store does not answer"}};
      expect(body(err)).toMatchObject({status: "error", error: down});
      expect(JSON.stringify(body(err))).not.toMatch(/t_[0-9a-f]{16}|terminat|does not exist/);
    } finally {
      await sql.close().catch(() => {});
    }
  });

  it("answers 503 within its timeout while the store is held by a long transaction", async () => {
    const sql = await openSqlClient(
      {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
      {logger: quietLogger()},
    );
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let holding!: () => void;
      const begun = new Promise<void>((r) => (holding = r));
      const txn = sql.transaction(async (tx) => {
        await tx.query("SELECT 1");
        holding();
        await held;
      });
      // Once the transaction holds the store (a fixed pause was not enough on a busy machine).
      await begun;
      const t0 = Date.now();
      const err = await Promise.race([
        liveCheck(sql, quietLogger(), 500).catch((e: unknown) => e),
        new Promise((r) => setTimeout(() => r("still waiting"), 3000)),
      ]);
      expect(err).toBeInstanceOf(UnavailableWithBody);
      expect(Date.now() - t0).toBeLessThan(2000);
      release();
      await txn;
      expect(await liveCheck(sql, quietLogger(), 500)).toMatchObject({status: "ok"});
    } finally {
      await sql.close();
    }
  });
});
