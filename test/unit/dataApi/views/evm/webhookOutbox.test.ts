/**
 * The webhooks' outbox through a rollback (views/evm/webhookOutbox.ts), on both store backends: a message of a
 * dropped block never attempted is deleted (never delivered); one attempted, delivered or still pending, is dropped
 * and answered by one reversal message; a second rollback over the same blocks adds none; blocks kept are untouched.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {openSqlClient, type SqlClient} from "../../../../../src/dataApi/store/client.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import {rollbackOutbox} from "../../../../../src/dataApi/views/evm/webhookOutbox.js";
import {quietLogger, STORE_BACKENDS} from "../../../../helpers/sql.js";

describe.each(STORE_BACKENDS)("the webhooks' outbox through a rollback ($name)", (backend) => {
  let sql: SqlClient;
  beforeAll(async () => {
    const url = await backend.db();
    sql = await openSqlClient({url, dataDir: null}, {logger: quietLogger()});
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
  }, 60_000);
  afterAll(async () => sql?.close());

  it("deletes the unattempted, reverses the attempted, once", async () => {
    await sql.query("INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, status, metadata, created_at) VALUES ('w', 'o', 'address_activity', 'http://x/', '', '', '1', 'active', '{}', 0)");
    const put = (id: string, block: number, state: string, attempts: number) =>
      sql.query("INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at, state, attempts, body) VALUES ($1, 'w', '1', $2, 0, 0, $3, $4, $5)", [id, block, state, attempts, attempts > 0 ? "{}" : null]);
    await put("kept", 5, "pending", 0);
    await put("fresh", 6, "pending", 0);
    await put("tried", 6, "pending", 2);
    await put("done", 7, "delivered", 1);
    await put("other-chain", 9, "pending", 0);
    await sql.query("UPDATE webhook_outbox SET chain_id = '2' WHERE message_id = 'other-chain'");
    for (let i = 0; i < 2; i++) await sql.transaction((tx) => rollbackOutbox(tx, "1", 5n));
    const rows = await sql.query<{message_id: string; state: string; reverses: string | null}>("SELECT message_id, state, reverses FROM webhook_outbox ORDER BY reverses NULLS FIRST, message_id");
    const byId = Object.fromEntries(rows.filter((r) => r.reverses === null).map((r) => [r.message_id, r.state]));
    expect(byId).toEqual({kept: "pending", tried: "dropped", done: "dropped", "other-chain": "pending"});
    expect(rows.filter((r) => r.reverses !== null).map((r) => `${r.reverses}:${r.state}`).sort()).toEqual(["done:pending", "tried:pending"]);
  });
});
