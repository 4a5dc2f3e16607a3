/**
 * Which webhook messages delivery reads as due, on both stores: not those in flight, and not a reversal whose
 * original is in flight (review finding, issue 47: a reorg during the original's POST made its reversal due at
 * once, so a receiver could get the reversal first and then the message it takes back).
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {insertWebhook} from "../../../../src/dataApi/queries/webhooks.js";
import {dueMessages} from "../../../../src/dataApi/queries/webhookOutbox.js";
import {BACKENDS, quietLogger} from "../../../helpers/sql.js";

describe.each(BACKENDS)("due webhook messages ($name)", (backend) => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
    await sql.transaction((tx) =>
      insertWebhook(tx, {
        id: "w",
        owner: "o",
        eventType: "address_activity",
        url: "http://127.0.0.1:9/",
        name: "",
        description: "",
        chainId: "1",
        network: null,
        metadata: {},
        includeInternalTxs: false,
        includeLogs: false,
        secret: null,
        createdAt: 0,
        addresses: [],
      }),
    );
    for (const [id, reverses, created] of [
      ["orig", null, 1],
      ["rev", "orig", 2],
      ["other", null, 3],
    ] as const) {
      await sql.query(
        "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, reverses, created_at, attempts) VALUES ($1, 'w', '1', 5, 0, $2, $3, $4)",
        [id, reverses, created, id === "orig" ? 1 : 0],
      );
    }
  }, 120_000);
  afterAll(async () => sql?.close());

  it("holds back a reversal while its original is in flight", async () => {
    const due = async (skip: string[]): Promise<string[]> =>
      (await dueMessages(sql, 10, 10, skip)).map((m) => m.message_id);
    expect(await due([])).toEqual(["orig", "rev", "other"]);
    expect(await due(["orig"])).toEqual(["other"]);
    expect(await due(["other"])).toEqual(["orig", "rev"]);
  });
});
