/**
 * Delivery's writes of given messages find them by ID, on both stores, whatever the statistics say. The store's
 * maintenance analyses the outbox (store/maintenance.ts); an analysis that found no message pending estimated the
 * partial indexes of pending messages at one row, and when a backlog became pending afterwards (a receiver back, a
 * replay) the claim and the record read every pending message through one of them: 70 ms a statement and 270
 * deliveries a second in bench/webhooks.mjs. Each statement is planned here in that state, as delivery sends it.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import type {SqlClient, SqlTx} from "../../../../src/dataApi/store/sql.js";
import {claimAll, recordAttempts, setState} from "../../../../src/dataApi/queries/webhookOutbox.js";
import {BACKENDS, quietLogger} from "../../../helpers/sql.js";

const MESSAGES = 5_000;

describe.each(BACKENDS)("delivery's writes by message ID ($name)", (backend) => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
    await sql.query(
      "INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, status, metadata, created_at) VALUES ('w', 'o', 'address_activity', 'http://x/', '', '', '1', 'active', '{}', 0)",
    );
    await sql.query(
      `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at, state, attempts, body)
       SELECT 'm' || i, 'w', '1', i, 0, i, 'delivered', 1, repeat('x', 1000) FROM generate_series(1, ${MESSAGES}) AS i`,
    );
    // Analysed with nothing pending, then all of it pending again (a replay).
    await sql.query("ANALYZE webhook_outbox");
    await sql.query("UPDATE webhook_outbox SET state = 'pending', next_attempt_at = 0, attempt_base = attempts");
  }, 120_000);
  afterAll(async () => sql?.close());

  /** The plan of each statement `write` sends, as PostgreSQL would run it with those parameters. */
  const plans = async (write: (tx: SqlTx) => Promise<unknown>): Promise<string[]> => {
    const sent: Array<{text: string; params: unknown[] | undefined}> = [];
    const seen: SqlTx = {
      query: (text, params) => {
        sent.push({text, params});
        return Promise.resolve([]);
      },
      exec: () => Promise.resolve(),
    };
    await write(seen);
    expect(sent.length).toBeGreaterThan(0);
    const out: string[] = [];
    for (const s of sent) {
      const rows = await sql.query<Record<string, string>>(`EXPLAIN ${s.text}`, s.params);
      out.push(rows.map((r) => Object.values(r)[0]).join("\n"));
    }
    return out;
  };
  const ids = Array.from({length: 20}, (_, k) => `m${k * 97 + 1}`);

  it("claims by the primary key", async () => {
    const [plan] = await plans((tx) =>
      claimAll(
        tx,
        ids.map((id) => ({id, attempts: 1, body: "{}", nextAt: 5})),
      ),
    );
    expect(plan).toContain("webhook_outbox_pkey");
    expect(plan).not.toMatch(/due_by_webhook|Seq Scan on webhook_outbox/);
  });

  it("records attempts by the primary key", async () => {
    const [plan] = await plans((tx) =>
      recordAttempts(
        tx as SqlClient,
        ids.map((id) => ({id, attempt: 2, at: 5, statusCode: 200, latencyMs: 1, error: null, state: "delivered"})),
      ),
    );
    expect(plan).toContain("webhook_outbox_pkey");
    expect(plan).not.toMatch(/due_by_webhook|Seq Scan on webhook_outbox/);
  });

  it("sets a message's state by the primary key", async () => {
    const [plan] = await plans((tx) => setState(tx, "m7", "skipped"));
    expect(plan).toContain("webhook_outbox_pkey");
    expect(plan).not.toMatch(/due_by_webhook|Seq Scan on webhook_outbox/);
  });
});
