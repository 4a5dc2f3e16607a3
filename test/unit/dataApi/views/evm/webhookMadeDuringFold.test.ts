/**
 * An address_activity webhook made while an EVM chain's fold is writing a block, on a PostgreSQL server (PGlite runs
 * one transaction at a time, so there the two cannot overlap). The webhook's first block is its chain's head + 1
 * (queries/webhooks.ts). The fold has written the block's messages (none for the webhook, which did not exist yet)
 * and holds its transaction open before moving the head. The webhook must not come out with that block as its first
 * and no message of it: creating it waits for the fold, and reads the head after it.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {openSqlClient} from "../../../../../src/dataApi/store/client.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import {enqueueAddressActivity, expandOutboxBlocks} from "../../../../../src/dataApi/views/evm/webhookOutbox.js";
import {lockChainRow} from "../../../../../src/dataApi/views/evm/write.js";
import {insertWebhook} from "../../../../../src/dataApi/queries/webhooks.js";
import {quietLogger, STORE_BACKENDS} from "../../../../helpers/sql.js";

const CHAIN = "4343";
const WATCHED = Buffer.alloc(20, 0xaa);

describe("an address_activity webhook made while its chain folds a block, on a PostgreSQL server", () => {
  let sql: SqlClient;
  beforeAll(async () => {
    const url = await STORE_BACKENDS.find((b) => b.name === "postgres")!.db();
    sql = await openSqlClient({url, dataDir: null}, {logger: quietLogger()});
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
    await sql.query("INSERT INTO evm_chains (chain_id, head_number, head_hash, updated_at) VALUES ($1, 5, $2, 0)", [
      CHAIN,
      Buffer.alloc(32),
    ]);
  }, 120_000);
  afterAll(async () => sql?.close());

  it("gets the block's messages or starts after it", async () => {
    let wrote!: () => void;
    const messagesWritten = new Promise<void>((r) => (wrote = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // The fold of block 6, as views/evm/write.ts orders it: the chain's row, the messages, then the head.
    const fold = sql.transaction(async (tx) => {
      await lockChainRow(tx, CHAIN);
      const touch = {address: WATCHED, block: 6n, txIndex: 0, txHash: Uint8Array.of(6), blockHash: Uint8Array.of(6)};
      await enqueueAddressActivity(tx, CHAIN, [touch], new Map());
      wrote();
      await released;
      await tx.query("UPDATE evm_chains SET head_number = 6 WHERE chain_id = $1", [CHAIN]);
    });
    await messagesWritten;
    const made = sql.transaction((tx) =>
      insertWebhook(tx, {
        id: "during",
        owner: "o",
        eventType: "address_activity",
        url: "http://x/",
        name: "",
        description: "",
        chainId: CHAIN,
        network: "local",
        metadata: {eventSignatures: []},
        includeInternalTxs: false,
        includeLogs: false,
        secret: null,
        createdAt: 0,
        addresses: [WATCHED],
        primaryChain: null,
      }),
    );
    const first = await Promise.race([
      made.then(() => "made"),
      new Promise((r) => setTimeout(() => r("waiting"), 500)),
    ]);
    release();
    await fold;
    await made;
    const [hook] = await sql.query<{from_block: bigint}>("SELECT from_block FROM webhooks WHERE id = 'during'");
    await expandOutboxBlocks(sql, 1000); // the fold's blocks' rows made messages, as delivery does
    const sent = await sql.query<{block_number: bigint}>(
      "SELECT block_number FROM webhook_outbox WHERE webhook_id = 'during'",
    );
    // Every folded block from its first on has its message: here none is folded from its first on (without the lock,
    // its first block was 6, whose messages were written without it).
    expect(hook!.from_block).toBe(7n);
    expect(sent).toEqual([]);
    // It waited for the fold (holding the chain's row) rather than reading the head under it.
    expect(first).toBe("waiting");
  });
});
