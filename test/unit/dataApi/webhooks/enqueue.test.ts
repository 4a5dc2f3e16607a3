/**
 * The fold's enqueue of address_activity messages (views/evm/webhookOutbox.ts), on both stores: the IDs it makes in
 * the process are the ones the SQL formula makes (so a block folded before and after the change, or by the trace
 * lane's statement, gets one ID), one message per webhook and transaction, none for a block before the webhook's
 * from_block or for an inactive webhook, the transaction's logs written with the message, and new IDs after a
 * rollback (evm_chains.reorgs). The fold writes a block's messages as one row; delivery's expansion makes them.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {insertWebhook} from "../../../../src/dataApi/queries/webhooks.js";
import {
  enqueueAddressActivity,
  enqueueInternalActivity,
  EXPAND_MESSAGES,
  expandOutboxBlocks,
  messageId,
  type LogRow,
  type Touch,
} from "../../../../src/dataApi/views/evm/webhookOutbox.js";
import type {SqlTx} from "../../../../src/dataApi/store/sql.js";
import {BACKENDS, quietLogger} from "../../../helpers/sql.js";

const addr = (n: number): Uint8Array => Uint8Array.from({length: 20}, (_, k) => (k === 19 ? n : 0xa0));
const hash = (n: number): Uint8Array => Uint8Array.from({length: 32}, (_, k) => (k * 7 + n) & 0xff);

describe.each(BACKENDS)("address_activity enqueue ($name)", (backend) => {
  let sql: SqlClient;
  const webhook = (id: string, addresses: Uint8Array[]) =>
    sql.transaction((tx) =>
      insertWebhook(tx, {
        id,
        owner: "o",
        eventType: "address_activity",
        url: "http://127.0.0.1:9/",
        name: "",
        description: "",
        chainId: "43112",
        network: null,
        metadata: {},
        includeInternalTxs: false,
        includeLogs: true,
        secret: null,
        createdAt: 0,
        addresses,
      }),
    );
  beforeAll(async () => {
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
    await sql.query("INSERT INTO evm_chains (chain_id, blockchain_id, updated_at) VALUES ('43112', NULL, 0)");
    await webhook("w1", [addr(1), addr(2)]);
    await webhook("w2", [addr(2)]);
    await webhook("late", [addr(1)]);
    await webhook("off", [addr(1)]);
    await sql.query("UPDATE webhooks SET from_block = 11 WHERE id = 'late'");
    await sql.query("UPDATE webhooks SET status = 'inactive' WHERE id = 'off'");
  });
  afterAll(() => sql.close());

  const touch = (a: number, block: number, txIndex: number): Touch => ({
    address: addr(a),
    block: BigInt(block),
    txIndex,
    txHash: hash(block * 100 + txIndex),
    blockHash: hash(block),
  });
  // The fold's write, then delivery's expansion of it (webhooks/delivery.ts), in one transaction.
  const enqueue = async (tx: SqlTx, chainId: string, touches: Touch[], logs: Map<string, LogRow[]>) => {
    await enqueueAddressActivity(tx, chainId, touches, logs);
    await expandOutboxBlocks(tx, 1000);
  };
  const log = {txIndex: 0, logIndex: 3, address: addr(9), topics: [hash(5), hash(6)], data: Uint8Array.of(1, 2)};

  it("makes the SQL formula's IDs, one per webhook and transaction, with logs, by from_block and status", async () => {
    // Block 10, tx 0 touches addresses 1 and 2 (w1 twice: one message); tx 1 touches 3, which nobody watches.
    // Block 11, tx 0 touches address 1: w1 and, from its from_block, late.
    await sql.transaction((tx) =>
      enqueue(
        tx,
        "43112",
        [touch(1, 10, 0), touch(2, 10, 0), touch(3, 10, 1), touch(1, 11, 0)],
        new Map([["10:0", [log]]]),
      ),
    );
    const rows = await sql.query<{message_id: string; webhook_id: string; block_number: bigint; logs: unknown}>(
      "SELECT message_id, webhook_id, block_number, logs FROM webhook_outbox ORDER BY block_number, webhook_id",
    );
    expect(rows.map((r) => [r.webhook_id, Number(r.block_number)])).toEqual([
      ["w1", 10],
      ["w2", 10],
      ["late", 11],
      ["w1", 11],
    ]);
    for (const r of rows) {
      const bh = Buffer.from(hash(Number(r.block_number))).toString("hex");
      const [{id}] = await sql.query<{id: string}>(
        `SELECT md5($1 || ':' || $2 || ':' || $3 || ':' || $4)::uuid::text AS id`,
        [r.webhook_id, "43112", bh, "0"],
      );
      expect(r.message_id).toBe(id);
      expect(messageId(r.webhook_id, "43112", hash(Number(r.block_number)), 0, "")).toBe(id);
    }
    expect(rows[0]!.logs).toEqual([
      {
        address: "0x" + Buffer.from(addr(9)).toString("hex"),
        topic0: "0x" + Buffer.from(hash(5)).toString("hex"),
        topic1: "0x" + Buffer.from(hash(6)).toString("hex"),
        data: "0x0102",
        transactionIndex: 0,
        logIndex: 3,
        removed: false,
      },
    ]);
    expect(rows[2]!.logs).toBeNull();
  });

  it("is idempotent, and gives new IDs after a rollback", async () => {
    const before = await sql.query<{n: bigint}>("SELECT count(*)::int8 AS n FROM webhook_outbox");
    await sql.transaction((tx) => enqueue(tx, "43112", [touch(1, 10, 0)], new Map()));
    expect(await sql.query("SELECT count(*)::int8 AS n FROM webhook_outbox")).toEqual(before);
    await sql.query("UPDATE evm_chains SET reorgs = 2 WHERE chain_id = '43112'");
    await sql.transaction((tx) => enqueue(tx, "43112", [touch(1, 10, 0)], new Map()));
    const bh = Buffer.from(hash(10)).toString("hex");
    const [{id}] = await sql.query<{id: string}>(`SELECT md5('w1:43112:' || $1 || ':0:r2')::uuid::text AS id`, [bh]);
    expect(await sql.query("SELECT webhook_id FROM webhook_outbox WHERE message_id = $1", [id])).toEqual([
      {webhook_id: "w1"},
    ]);
    expect(Number((await sql.query<{n: bigint}>("SELECT count(*)::int8 AS n FROM webhook_outbox"))[0]!.n)).toBe(
      Number(before[0]!.n) + 1,
    );
  });

  it("writes one row a block, made the messages' rows by the expansion, which deletes it", async () => {
    await sql.query("DELETE FROM webhook_outbox");
    await sql.query("UPDATE evm_chains SET reorgs = 0 WHERE chain_id = '43112'");
    // Block 20: tx 0 for w1 and w2 (address 2), tx 1 for w1 and late (address 1); block 21: tx 0 for w1 and late.
    await sql.transaction((tx) =>
      enqueueAddressActivity(tx, "43112", [touch(2, 20, 0), touch(1, 20, 1), touch(1, 21, 0)], new Map()),
    );
    const staged = await sql.query<{block_number: bigint; messages: number; txs: Array<{i: number; w: string[]}>}>(
      "SELECT block_number, messages, convert_from(txs, 'UTF8')::json AS txs FROM webhook_outbox_blocks ORDER BY block_number",
    );
    expect(staged.map((r) => [Number(r.block_number), r.messages])).toEqual([
      [20, 4],
      [21, 2],
    ]);
    expect(staged[0]!.txs.map((t) => [t.i, t.w])).toEqual([
      [0, ["w1", "w2"]],
      [1, ["w1", "late"]],
    ]);
    expect(await sql.query("SELECT count(*)::int8 AS n FROM webhook_outbox")).toEqual([{n: 0n}]);
    // A limit takes the oldest blocks first; the rest wait for the next read.
    expect((await sql.transaction((tx) => expandOutboxBlocks(tx, 1))).messages).toBe(4);
    expect((await sql.transaction((tx) => expandOutboxBlocks(tx, 10))).messages).toBe(2);
    expect(await sql.query("SELECT count(*)::int8 AS n FROM webhook_outbox_blocks")).toEqual([{n: 0n}]);
    const rows = await sql.query<{message_id: string; webhook_id: string; block_number: bigint; tx_index: number}>(
      "SELECT message_id, webhook_id, block_number, tx_index FROM webhook_outbox ORDER BY block_number, tx_index, webhook_id",
    );
    expect(rows.map((r) => [r.webhook_id, Number(r.block_number), r.tx_index])).toEqual([
      ["w1", 20, 0],
      ["w2", 20, 0],
      ["late", 20, 1],
      ["w1", 20, 1],
      ["late", 21, 0],
      ["w1", 21, 0],
    ]);
    for (const r of rows)
      expect(r.message_id).toBe(messageId(r.webhook_id, "43112", hash(Number(r.block_number)), r.tx_index, ""));
    expect((await sql.transaction((tx) => expandOutboxBlocks(tx, 10))).messages).toBe(0);
  });
  it("the trace lane makes its blocks' rows messages first: the head's message of a transaction is the one", async () => {
    await sql.query("DELETE FROM webhook_outbox");
    await webhook("calls", [addr(7)]);
    await sql.query("UPDATE webhooks SET include_internal_txs = true WHERE id IN ('calls', 'w1')");
    for (const b of [30, 31])
      await sql.query(
        "INSERT INTO evm_blocks (chain_id, number, hash, parent_hash, timestamp, tx_count, base_fee, gas_used, gas_limit, fees_spent, cumulative_txs) VALUES ('43112', $1, $2, '\\x00', 0, 1, 0, 0, 0, 0, 0)",
        [b, hash(b)],
      );
    for (const b of [30, 31])
      await sql.query(
        "INSERT INTO evm_txs (chain_id, block_number, tx_index, hash, from_addr, value, nonce, gas_limit, gas_used, gas_price, tx_type, status, input) VALUES ('43112', $1, 0, $2, '\\x01', 0, 0, 0, 0, 0, 0, 1, '\\x')",
        [b, hash(b * 100)],
      );
    // The head: block 30's tx 0 sends from address 1 (w1, late), with a log; block 31's touches no one watched.
    await sql.transaction((tx) => enqueueAddressActivity(tx, "43112", [touch(1, 30, 0)], new Map([["30:0", [log]]])));
    // The trace lane: block 30's tx 0 also calls address 1 (w1 follows calls) and 7 ("calls"); block 31's calls 7.
    const calls = [
      {address: addr(1), block: 30n, txIndex: 0},
      {address: addr(7), block: 30n, txIndex: 0},
      {address: addr(7), block: 31n, txIndex: 0},
    ];
    await sql.transaction((tx) => enqueueInternalActivity(tx, "43112", calls));
    expect(await sql.query("SELECT count(*)::int8 AS n FROM webhook_outbox_blocks")).toEqual([{n: 0n}]);
    const rows = await sql.query<{message_id: string; webhook_id: string; block_number: bigint; logs: unknown}>(
      "SELECT message_id, webhook_id, block_number, logs FROM webhook_outbox ORDER BY block_number, webhook_id",
    );
    expect(rows.map((r) => [r.webhook_id, Number(r.block_number), r.logs === null ? "no logs" : "logs"])).toEqual([
      ["calls", 30, "no logs"],
      ["late", 30, "logs"],
      ["w1", 30, "logs"],
      ["calls", 31, "no logs"],
    ]);
    for (const r of rows)
      expect(r.message_id).toBe(messageId(r.webhook_id, "43112", hash(Number(r.block_number)), 0, ""));
    // A batch of calls no webhook with internal transactions watches writes nothing, and expands nothing.
    await sql.transaction((tx) => enqueueAddressActivity(tx, "43112", [touch(2, 31, 0)], new Map()));
    await sql.transaction((tx) => enqueueInternalActivity(tx, "43112", [{address: addr(9), block: 31n, txIndex: 0}]));
    expect(await sql.query("SELECT count(*)::int8 AS n FROM webhook_outbox_blocks")).toEqual([{n: 1n}]);
  });
  it("takes whole blocks up to about EXPAND_MESSAGES messages a statement, the oldest first", async () => {
    await sql.query("DELETE FROM webhook_outbox_blocks");
    const m = Math.ceil(EXPAND_MESSAGES * 0.75);
    for (const [n, at] of [
      [42, 3],
      [40, 1],
      [41, 2],
    ])
      await sql.query(
        `INSERT INTO webhook_outbox_blocks (chain_id, block_number, block_hash, reorgs, messages, created_at, txs)
         VALUES ('43112', $1, $4, 0, $2, $3, convert_to('[{"i":0,"h":"cd","l":null,"w":["w1"]}]', 'UTF8'))`,
        [n, m, at, `ab${n}`],
      );
    // 40 (made first) and 41 go: 41 starts under the bound. 42 starts past it and waits for the next statement.
    expect(await sql.transaction((tx) => expandOutboxBlocks(tx, 50))).toEqual({blocks: 2, messages: 2});
    expect(await sql.query("SELECT block_number FROM webhook_outbox_blocks")).toEqual([{block_number: 42n}]);
    expect(await sql.transaction((tx) => expandOutboxBlocks(tx, 50))).toEqual({blocks: 1, messages: 1});
    // A block whose messages were all made already is taken all the same: its row goes, no message is added.
    await sql.query(
      `INSERT INTO webhook_outbox_blocks (chain_id, block_number, block_hash, reorgs, messages, created_at, txs)
       VALUES ('43112', 40, 'ab40', 0, 1, 4, convert_to('[{"i":0,"h":"cd","l":null,"w":["w1"]}]', 'UTF8'))`,
    );
    expect(await sql.transaction((tx) => expandOutboxBlocks(tx, 50))).toEqual({blocks: 1, messages: 0});
  });
});
