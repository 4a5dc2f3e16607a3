/**
 * Table statistics on PGlite, which runs PostgreSQL without autovacuum: the analyzer analyses the tables whose
 * rows changed past autovacuum's threshold, and the planner then sees their real sizes.
 */
import {afterEach, expect, it} from "vitest";
import {openSqlClient, type SqlClient} from "../../../../src/dataApi/store/client.js";
import {migrate} from "../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import {StoreAnalyzer} from "../../../../src/dataApi/store/analyze.js";
import {quietLogger} from "../../../helpers/sql.js";

let sql: SqlClient | null = null;
afterEach(async () => sql?.close());

const estimate = async (db: SqlClient, table: string): Promise<number> =>
  Number((await db.query<{n: number}>("SELECT reltuples::float8 AS n FROM pg_class WHERE relname = $1", [table]))[0]!.n);

it("analyses the tables that changed past the threshold, once, and the planner sees their rows", async () => {
  const db = await openSqlClient({url: "embedded", dataDir: null}, {logger: quietLogger()});
  sql = db;
  await migrate(db, MIGRATIONS, {logger: quietLogger()});
  const analyzer = new StoreAnalyzer({intervalMs: 60_000}, {sql: db, logger: quietLogger()});
  await analyzer.runOnce(); // what the migrations wrote
  await db.query("INSERT INTO asset_txs (asset_id, seq) SELECT 'a', g FROM generate_series(1, 20000) g");
  await db.query("INSERT INTO blocks (chain, height, block_id, container_id, parent_id, block_type, ts, tx_count, size_bytes, tx_ids) VALUES ('X', 1, 'b', 'b', 'p', '', 0, 0, 0, '[]')");
  // Never analysed since the 20,000 rows: the planner's estimate is not their count (-1: never analysed).
  expect(await estimate(db, "asset_txs")).not.toBe(20_000);
  // Both changed past 50 rows + 10 %? asset_txs did; one row in blocks did not.
  expect(await analyzer.runOnce()).toEqual(["asset_txs"]);
  expect(await estimate(db, "asset_txs")).toBe(20_000);
  expect(await analyzer.runOnce()).toEqual([]);
  // 10 % more rows: analysed again.
  await db.query("INSERT INTO asset_txs (asset_id, seq) SELECT 'b', g FROM generate_series(1, 2100) g");
  expect(await analyzer.runOnce()).toEqual(["asset_txs"]);
  expect(await estimate(db, "asset_txs")).toBe(22_100);
  await analyzer.close();
});
