/**
 * Webhook messages that are done are deleted past `--webhooks-retention`, with their delivery logs (review finding,
 * issue 47: the outbox grew for good): on both stores, of messages made before the cutoff only the finished ones
 * go, in batches, and pending or paused ones and newer finished ones stay.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {WebhookDelivery, defaultWebhookDeliveryOptions} from "../../../../src/dataApi/webhooks/delivery.js";
import {BACKENDS, quietLogger} from "../../../helpers/sql.js";

const DAY = 86_400_000;
const NOW = 100 * DAY;

describe.each(BACKENDS)("webhook message retention ($name)", (backend) => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
  }, 120_000);
  afterAll(async () => sql?.close());

  it("deletes the finished messages made before the retention, with their attempts, and keeps the rest", async () => {
    const states = ["delivered", "failed", "dropped", "skipped", "pending", "paused"];
    // 25,003 old finished messages (past one batch of 10,000), then one of each state old and new.
    await sql.query(
      `INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at, state)
       SELECT 'bulk-' || i, 'w', 'c', i, 0, $1::int8 - i, 'delivered' FROM generate_series(1, 25003) i`,
      [NOW - 20 * DAY],
    );
    for (const [age, tag] of [
      [20 * DAY, "old"],
      [DAY, "new"],
    ] as const) {
      for (const s of states) {
        await sql.query(
          "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at, state) VALUES ($1, 'w', 'c', 1, 0, $2, $3)",
          [`${tag}-${s}`, NOW - age, s],
        );
        await sql.query(
          "INSERT INTO webhook_attempts (message_id, attempt, at, status_code, latency_ms) VALUES ($1, 1, 0, 200, 1)",
          [`${tag}-${s}`],
        );
      }
    }
    // An old dropped original whose reversal is not sent yet (its webhook paused): the reversal is made from it.
    await sql.query(
      "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at, state) VALUES ('old-reversed', 'w', 'c', 1, 0, $1, 'dropped')",
      [NOW - 20 * DAY],
    );
    await sql.query(
      "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at, state, reverses) VALUES ('old-reversal', 'w', 'c', 1, 0, $1, 'paused', 'old-reversed')",
      [NOW - 20 * DAY],
    );
    const delivery = new WebhookDelivery(
      {...defaultWebhookDeliveryOptions, retentionMs: 14 * DAY},
      {sql, logger: quietLogger(), now: () => NOW, networkToken: () => ({name: "", symbol: "", decimals: 18})},
    );
    expect(await delivery.prune()).toBe(25_003 + 4);
    const kept = await sql.query<{message_id: string}>("SELECT message_id FROM webhook_outbox ORDER BY message_id");
    expect(kept.map((r) => r.message_id)).toEqual(
      [...states.map((s) => `new-${s}`), "old-paused", "old-pending", "old-reversal", "old-reversed"].sort(),
    );
    const attempts = await sql.query<{message_id: string}>(
      "SELECT message_id FROM webhook_attempts ORDER BY message_id",
    );
    expect(attempts.map((r) => r.message_id)).toEqual(
      kept.map((r) => r.message_id).filter((id) => !id.startsWith("old-revers")),
    );
    expect(await delivery.prune()).toBe(0);
  });
});
