/**
 * The webhooks' outbox through a rollback (views/evm/webhookOutbox.ts), on both store backends: a message of a
 * dropped block never attempted is deleted (never delivered); one attempted, delivered or still pending, is dropped
 * and answered by one reversal message; a second rollback over the same blocks adds none; blocks kept are untouched.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {openSqlClient} from "../../../../../src/dataApi/store/client.js";
import type {SqlClient, SqlTx} from "../../../../../src/dataApi/store/sql.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import {
  enqueueAddressActivity,
  expandOutboxBlocks,
  rollbackOutbox,
  type Touch,
} from "../../../../../src/dataApi/views/evm/webhookOutbox.js";
import {remakeTables} from "../../../../../src/dataApi/rebuild.js";
import {insertWebhook} from "../../../../../src/dataApi/queries/webhooks.js";
import {dueMessages} from "../../../../../src/dataApi/queries/webhookOutbox.js";
import {quietLogger, STORE_BACKENDS} from "../../../../helpers/sql.js";

/** The fold's write, then delivery's expansion of it into messages (webhooks/delivery.ts). */
async function enqueue(tx: SqlTx, chainId: string, touches: Touch[]): Promise<void> {
  await enqueueAddressActivity(tx, chainId, touches, new Map());
  await expandOutboxBlocks(tx, 1000);
}

describe.each(STORE_BACKENDS)("the webhooks' outbox through a rollback ($name)", (backend) => {
  let sql: SqlClient;
  beforeAll(async () => {
    const url = await backend.db();
    sql = await openSqlClient({url, dataDir: null}, {logger: quietLogger()});
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
  }, 60_000);
  afterAll(async () => sql?.close());

  /** A chain at `head`, and active address_activity webhooks of it from block 0, each watching `address`. */
  const chainWatching = async (chain: string, head: number, ids: string[], address: string): Promise<void> => {
    await sql.query(
      "INSERT INTO evm_chains (chain_id, head_number, head_hash, updated_at) VALUES ($1, $2, '\\x00', 0) ON CONFLICT DO NOTHING",
      [chain, head],
    );
    for (const id of ids) {
      await sql.query(
        "INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, status, metadata, created_at, from_block) VALUES ($1, 'o', 'address_activity', 'http://x/', '', '', $2, 'active', '{}', 0, 0)",
        [id, chain],
      );
      await sql.query("INSERT INTO webhook_addresses (webhook_id, address) VALUES ($1, decode($2, 'hex'))", [
        id,
        address,
      ]);
    }
  };

  it("deletes the unattempted, reverses the attempted, once", async () => {
    await sql.query(
      "INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, status, metadata, created_at) VALUES ('w', 'o', 'address_activity', 'http://x/', '', '', '1', 'active', '{}', 0)",
    );
    const put = (id: string, block: number, state: string, attempts: number) =>
      sql.query(
        "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at, state, attempts, body) VALUES ($1, 'w', '1', $2, 0, 0, $3, $4, $5)",
        [id, block, state, attempts, attempts > 0 ? "{}" : null],
      );
    await put("kept", 5, "pending", 0);
    await put("fresh", 6, "pending", 0);
    await put("tried", 6, "pending", 2);
    await put("done", 7, "delivered", 1);
    await put("other-chain", 9, "pending", 0);
    await sql.query("UPDATE webhook_outbox SET chain_id = '2' WHERE message_id = 'other-chain'");
    for (let i = 0; i < 2; i++) await sql.transaction((tx) => rollbackOutbox(tx, "1", 5n));
    const rows = await sql.query<{message_id: string; state: string; reverses: string | null}>(
      "SELECT message_id, state, reverses FROM webhook_outbox ORDER BY reverses NULLS FIRST, message_id",
    );
    const byId = Object.fromEntries(rows.filter((r) => r.reverses === null).map((r) => [r.message_id, r.state]));
    expect(byId).toEqual({kept: "pending", tried: "dropped", done: "dropped", "other-chain": "pending"});
    expect(
      rows
        .filter((r) => r.reverses !== null)
        .map((r) => `${r.reverses}:${r.state}`)
        .sort(),
    ).toEqual(["done:pending", "tried:pending"]);
  });

  it("a rebuild's remade store keeps the webhooks, their addresses, secrets, outbox and log; the derived rows go", async () => {
    await sql.query("INSERT INTO webhook_addresses (webhook_id, address) VALUES ('w', '\\x01')");
    await sql.query("INSERT INTO webhook_secrets (owner, secret) VALUES ('o', 'shh')");
    await sql.query(
      "INSERT INTO webhook_attempts (message_id, attempt, at, status_code, latency_ms) VALUES ('done', 1, 5, 200, 3)",
    );
    await sql.query(
      "INSERT INTO evm_blocks (chain_id, number, hash, parent_hash, timestamp, tx_count, base_fee, gas_used, gas_limit, fees_spent, cumulative_txs) VALUES ('1', 1, '\\x01', '\\x00', 0, 0, 0, 0, 0, 0, 0)",
    );
    const count = async (t: string) =>
      Number((await sql.query<{n: bigint}>(`SELECT count(*)::int8 AS n FROM ${t}`))[0]!.n);
    await sql.query("INSERT INTO evm_chains (chain_id, head_number, updated_at) VALUES ('1', 9, 0)");
    // A folded block's row not made messages yet: they are made and kept (the refold will not see the block again).
    const staged = {
      address: Uint8Array.of(1),
      block: 9n,
      txIndex: 2,
      txHash: Uint8Array.of(3),
      blockHash: Uint8Array.of(9),
    };
    await sql.transaction((tx) => enqueueAddressActivity(tx, "1", [staged], new Map()));
    expect(await count("webhook_outbox_blocks")).toBe(1);
    const before = (await count("webhook_outbox")) + 1;
    await remakeTables(sql, quietLogger());
    expect(await count("webhook_outbox_blocks")).toBe(0);
    expect(
      await sql.query("SELECT webhook_id, tx_index FROM webhook_outbox WHERE chain_id = '1' AND block_number = 9"),
    ).toEqual([{webhook_id: "w", tx_index: 2}]);
    // Its first event moved up to what was folded: the refold sends it none of that again, kept messages or not.
    expect(
      (await sql.query<{from_block: bigint}>("SELECT from_block FROM webhooks WHERE id = 'w'"))[0]!.from_block,
    ).toBe(10n);
    expect({
      w: await count("webhooks"),
      a: await count("webhook_addresses"),
      s: await count("webhook_secrets"),
      o: await count("webhook_outbox"),
      t: await count("webhook_attempts"),
      b: await count("evm_blocks"),
    }).toEqual({w: 1, a: 1, s: 1, o: before, t: 1, b: 0});
    // No copy is left, and the remade tables have their constraints again.
    expect(await sql.query("SELECT 1 FROM information_schema.tables WHERE table_name LIKE 'rebuild_kept_%'")).toEqual(
      [],
    );
    await expect(sql.query("INSERT INTO webhook_secrets (owner, secret) VALUES ('o', 'again')")).rejects.toThrow();
  });

  it("enqueues a block's events only for the webhooks made by then (a refold does not send them history)", async () => {
    await sql.query(
      "INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, status, metadata, created_at, from_block) VALUES ('old', 'o', 'address_activity', 'http://x/', '', '', '1', 'active', '{}', 0, 50), ('new', 'o', 'address_activity', 'http://x/', '', '', '1', 'active', '{}', 0, 51)",
    );
    await sql.query("INSERT INTO webhook_addresses (webhook_id, address) VALUES ('old', '\\xaa'), ('new', '\\xaa')");
    const touch = {
      address: Uint8Array.of(0xaa),
      block: 50n,
      txIndex: 0,
      txHash: Uint8Array.of(1),
      blockHash: Uint8Array.of(2),
    };
    await sql.transaction((tx) => enqueue(tx, "1", [touch]));
    const rows = await sql.query<{webhook_id: string}>("SELECT webhook_id FROM webhook_outbox WHERE block_number = 50");
    expect(rows.map((r) => r.webhook_id)).toEqual(["old"]);
  });

  it("gives a block folded again after it was dropped (A, B, then A again) new message IDs, so its events come again", async () => {
    await chainWatching("3", 60, ["aba"], "bb");
    const touchA = {
      address: Uint8Array.of(0xbb),
      block: 61n,
      txIndex: 0,
      txHash: Uint8Array.of(7),
      blockHash: Uint8Array.of(0xa1),
    };
    const ids = async (): Promise<Array<{message_id: string; state: string; reverses: string | null}>> =>
      sql.query(
        "SELECT message_id, state, reverses FROM webhook_outbox WHERE webhook_id = 'aba' ORDER BY created_at, message_id",
      );
    await sql.transaction((tx) => enqueue(tx, "3", [touchA]));
    const [first] = await ids();
    // Delivered, then its block dropped (a rollback counts one on the chain's row, as rollbackTo does).
    await sql.query("UPDATE webhook_outbox SET attempts = 1, state = 'delivered', body = '{}' WHERE message_id = $1", [
      first!.message_id,
    ]);
    await sql.transaction(async (tx) => {
      await tx.query("UPDATE evm_chains SET reorgs = reorgs + 1 WHERE chain_id = '3'");
      await rollbackOutbox(tx, "3", 60n);
    });
    // A's block again, the same hash and place: a new message, beside the dropped one and its reversal.
    await sql.transaction((tx) => enqueue(tx, "3", [touchA]));
    const rows = await ids();
    expect(rows.map((r) => [r.state, r.reverses])).toEqual(
      expect.arrayContaining([
        ["dropped", null],
        ["pending", first!.message_id],
        ["pending", null],
      ]),
    );
    const again = rows.find((r) => r.state === "pending" && r.reverses === null)!;
    expect(again.message_id).not.toBe(first!.message_id);
    // Folded again at the same count (a kill -9 before the commit): the same ID, no second message.
    await sql.transaction((tx) => enqueue(tx, "3", [touchA]));
    expect((await ids()).length).toBe(rows.length);
  });

  it("a rollback deletes the blocks' rows not made messages yet: none of their messages is ever made", async () => {
    await chainWatching("4", 70, ["rb"], "cc");
    const at = (block: bigint): Touch => ({
      address: Uint8Array.of(0xcc),
      block,
      txIndex: 0,
      txHash: Uint8Array.of(9),
      blockHash: Uint8Array.of(Number(block)),
    });
    await sql.transaction((tx) => enqueueAddressActivity(tx, "4", [at(71n), at(72n), at(73n)], new Map()));
    await sql.transaction((tx) => rollbackOutbox(tx, "4", 71n));
    expect((await sql.transaction((tx) => expandOutboxBlocks(tx, 1000))).messages).toBe(1);
    const rows = await sql.query<{block_number: bigint}>(
      "SELECT block_number FROM webhook_outbox WHERE webhook_id = 'rb' ORDER BY block_number",
    );
    expect(rows.map((r) => Number(r.block_number))).toEqual([71]);
    expect(await sql.query("SELECT count(*)::int8 AS n FROM webhook_outbox_blocks WHERE chain_id = '4'")).toEqual([
      {n: 0n},
    ]);
  });

  it("a webhook made inactive between the fold and its messages gets them once it is active again", async () => {
    await chainWatching("5", 80, ["on", "off"], "dd");
    const touch: Touch = {
      address: Uint8Array.of(0xdd),
      block: 81n,
      txIndex: 0,
      txHash: Uint8Array.of(8),
      blockHash: Uint8Array.of(81),
    };
    await sql.transaction((tx) => enqueueAddressActivity(tx, "5", [touch], new Map()));
    await sql.query("UPDATE webhooks SET status = 'inactive' WHERE id = 'off'");
    expect((await sql.transaction((tx) => expandOutboxBlocks(tx, 1000))).messages).toBe(2);
    const due = async (): Promise<string[]> =>
      (await dueMessages(sql, Date.now() + 1, 100, []))
        .filter((m) => m.chain_id === "5")
        .map((m) => m.webhook_id)
        .sort();
    expect(await due()).toEqual(["on"]);
    await sql.query("UPDATE webhooks SET status = 'active' WHERE id = 'off'");
    expect(await due()).toEqual(["off", "on"]);
  });

  it("a webhook made records its chain's head + 1 as its first block", async () => {
    await sql.query("INSERT INTO evm_chains (chain_id, head_number, updated_at) VALUES ('77', 41, 0)");
    await sql.transaction((tx) =>
      insertWebhook(tx, {
        id: "h77",
        owner: "o",
        eventType: "address_activity",
        url: "http://x/",
        name: "",
        description: "",
        chainId: "77",
        network: null,
        metadata: {},
        includeInternalTxs: false,
        includeLogs: false,
        secret: null,
        createdAt: 0,
        addresses: [],
      }),
    );
    expect(
      (await sql.query<{from_block: bigint}>("SELECT from_block FROM webhooks WHERE id = 'h77'"))[0]!.from_block,
    ).toBe(42n);
  });

  it("takes at most a few due messages of a webhook, counting its in-flight ones: a hog does not starve the others", async () => {
    await sql.query(
      "INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, status, metadata, created_at) VALUES ('hog', 'o', 'address_activity', 'http://x/', '', '', '9', 'active', '{}', 0), ('fair', 'o', 'address_activity', 'http://x/', '', '', '9', 'active', '{}', 0)",
    );
    for (let i = 0; i < 10; i++)
      await sql.query(
        "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at) VALUES ($1, 'hog', '9', 1, $2::int4, $2::int4)",
        [`hog-${i}`, i],
      );
    for (let i = 0; i < 2; i++)
      await sql.query(
        "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, created_at) VALUES ($1, 'fair', '9', 1, $2::int4, 100 + $2::int4)",
        [`fair-${i}`, i],
      );
    const due = await dueMessages(sql, 1000, 64, ["hog-0"], {perWebhook: 4, busy: new Map([["hog", 1]])});
    const of = (w: string) => due.filter((m) => m.webhook_id === w).map((m) => m.message_id);
    expect(of("hog")).toEqual(["hog-1", "hog-2", "hog-3"]);
    expect(of("fair")).toEqual(["fair-0", "fair-1"]);
  });
});
