/**
 * PGlite runs PostgreSQL without autovacuum and without a checkpointer. The writer's maintenance vacuums and analyses
 * the tables whose rows changed past autovacuum's thresholds (the planner then sees their real sizes, and index-only
 * scans read no heap), and checkpoints once enough WAL has been written (the WAL is recycled only at checkpoints).
 */
import {afterEach, expect, it} from "vitest";
import {openSqlClient} from "../../../../src/dataApi/store/client.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {migrate} from "../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import {StoreMaintenance} from "../../../../src/dataApi/store/maintenance.js";
import {pgliteTemplate} from "../../../helpers/pglite.js";
import {quietLogger} from "../../../helpers/sql.js";

let sql: SqlClient | null = null;
afterEach(async () => sql?.close());

const estimate = async (db: SqlClient, table: string): Promise<number> =>
  Number(
    (await db.query<{n: number}>("SELECT reltuples::float8 AS n FROM pg_class WHERE relname = $1", [table]))[0]!.n,
  );

it("analyses the tables that changed past the threshold, once, and the planner sees their rows", async () => {
  const db = await openSqlClient(
    {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
    {logger: quietLogger()},
  );
  sql = db;
  await migrate(db, MIGRATIONS, {logger: quietLogger()});
  const analyzer = new StoreMaintenance(
    {intervalMs: 60_000, checkpointBytes: 2 ** 40},
    {sql: db, logger: quietLogger()},
  );
  await analyzer.runOnce(); // what the migrations wrote
  await db.query("INSERT INTO asset_txs (asset_id, seq) SELECT 'a', g FROM generate_series(1, 20000) g");
  await db.query(
    "INSERT INTO blocks (chain, height, block_id, container_id, parent_id, block_type, ts, tx_count, size_bytes, tx_ids) VALUES ('X', 1, 'b', 'b', 'p', '', 0, 0, 0, '[]')",
  );
  // Never analysed since the 20,000 rows: the planner's estimate is not their count (-1: never analysed).
  expect(await estimate(db, "asset_txs")).not.toBe(20_000);
  // 20,000 rows inserted is past 1,000 + 20 %: vacuumed, and analysed with it; one row in blocks is past neither.
  expect(await analyzer.runOnce()).toMatchObject({vacuumed: ["asset_txs"], analysed: []});
  expect(await estimate(db, "asset_txs")).toBe(20_000);
  expect(await analyzer.runOnce()).toMatchObject({vacuumed: [], analysed: []});
  // Its pages all-visible now: an index walk reads the index alone.
  await db.query("SET enable_seqscan = off");
  const plan = (
    await db.query<{"QUERY PLAN": string}>(
      "EXPLAIN (ANALYZE) SELECT seq FROM asset_txs WHERE asset_id = 'a' ORDER BY seq DESC OFFSET 9999 LIMIT 1",
    )
  )
    .map((r) => r["QUERY PLAN"])
    .join("\n");
  await db.query("SET enable_seqscan = on");
  expect(plan).toMatch(/Index Only Scan/);
  expect(plan).toMatch(/Heap Fetches: 0\b/);
  // 10 % more rows (less than 20 %): analysed again, not vacuumed.
  await db.query("INSERT INTO asset_txs (asset_id, seq) SELECT 'b', g FROM generate_series(1, 2100) g");
  expect(await analyzer.runOnce()).toMatchObject({vacuumed: [], analysed: ["asset_txs"]});
  expect(await estimate(db, "asset_txs")).toBe(22_100);
  await analyzer.close();
});

it("checkpoints once the WAL written since the last checkpoint passes the threshold, and not before", async () => {
  const db = await openSqlClient(
    {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
    {logger: quietLogger()},
  );
  sql = db;
  await migrate(db, MIGRATIONS, {logger: quietLogger()});
  const walSince = async (): Promise<number> =>
    Number(
      (
        await db.query<{b: string}>(
          "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS b FROM pg_control_checkpoint()",
        )
      )[0]!.b,
    );
  const maintenance = new StoreMaintenance(
    {intervalMs: 60_000, checkpointBytes: 4 * 2 ** 20},
    {sql: db, logger: quietLogger()},
  );
  await db.query("CHECKPOINT");
  await db.query("INSERT INTO asset_txs (asset_id, seq) SELECT 'a', g FROM generate_series(1, 1000) g");
  expect(await walSince()).toBeLessThan(4 * 2 ** 20);
  expect((await maintenance.runOnce()).checkpoint).toBe(false);
  // Incompressible rows, well past 4 MiB of WAL.
  await db.query(
    "INSERT INTO data_api_meta (key, value) SELECT 'k' || g, (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 50) WHERE g > 0) FROM generate_series(1, 3000) g",
  );
  expect(await walSince()).toBeGreaterThan(4 * 2 ** 20);
  expect((await maintenance.runOnce()).checkpoint).toBe(true);
  expect(await walSince()).toBeLessThan(2 ** 20);
  await maintenance.close();
});
