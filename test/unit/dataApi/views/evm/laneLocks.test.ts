/**
 * A lane's commit and a rollback of the head on a PostgreSQL server (where they run at once): both lock the chain's
 * row of evm_chains before any row they share, so they wait for each other rather than deadlock. Here the lane's
 * write holds a balance row the rollback must also update, and is held open while the rollback starts: with the
 * chain's row locked last by the lane (as it once was), PostgreSQL found a deadlock and aborted one of them.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Lane, type LaneKind} from "../../../../../src/dataApi/views/evm/lanes.js";
import {rollbackTo} from "../../../../../src/dataApi/views/evm/write.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {BACKENDS, quietLogger} from "../../../../helpers/sql.js";

const CHAIN = "4242";
const OWNER = Buffer.alloc(20, 0x0a);
const TOKEN = Buffer.alloc(20, 0x7c);
const OTHER = Buffer.alloc(20, 0x0b);

describe("a lane's commit beside a rollback, on a PostgreSQL server", () => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await BACKENDS.find((b) => b.name === "postgres")!.open();
    for (const m of MIGRATIONS) await sql.exec(m.sql);
    await sql.query("INSERT INTO evm_chains (chain_id, head_number, head_hash, updated_at) VALUES ($1, 5, $2, 0)", [
      CHAIN,
      Buffer.alloc(32),
    ]);
    // A transfer in block 3 that the rollback to block 1 takes back: it updates OWNER's balance row.
    await sql.query(
      "INSERT INTO evm_transfers (chain_id, block_number, tx_index, log_index, item, erc, token, from_addr, to_addr, value) VALUES ($1, 3, 0, 0, 0, 20, $2, $3, $4, 7)",
      [CHAIN, TOKEN, OTHER, OWNER],
    );
    await sql.query(
      "INSERT INTO evm_balances (chain_id, owner, erc, token, token_id, balance) VALUES ($1, $2, 20, $3, 0, 7)",
      [CHAIN, OWNER, TOKEN],
    );
  }, 120_000);
  afterAll(async () => sql?.close());

  it("waits for the other instead of deadlocking", async () => {
    let entered!: () => void;
    const inWrite = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let writes = 0;
    const kind: LaneKind = {
      name: "tokens",
      column: "token_lane",
      maxBlocks: 10,
      prepare: async (_chain, _from, to) => ({
        to,
        write: async (tx) => {
          // The lane's own row first (as a token's or a trace's write would touch one), then held open.
          await tx.query("UPDATE evm_balances SET balance = balance + 0 WHERE chain_id = $1 AND owner = $2", [
            CHAIN,
            OWNER,
          ]);
          if (writes++ === 0) {
            entered();
            await released;
          }
        },
      }),
    };
    const lane = new Lane(
      {pollMs: 50},
      {sql, logger: quietLogger(), kind, chainId: () => CHAIN, head: () => 5n, enabled: () => true},
    );
    lane.start();
    try {
      await inWrite;
      const rollback = sql.transaction((tx) => rollbackTo(tx, CHAIN, 1n, Buffer.alloc(32, 1)));
      const settled = rollback.then(
        () => "committed",
        (e: {code?: string; message: string}) => `${e.code}: ${e.message}`,
      );
      // Long enough for the rollback to reach its lock wait; then the lane finishes its write and commits.
      await new Promise((r) => setTimeout(r, 500));
      release();
      expect(await settled).toBe("committed");
      await new Promise((r) => setTimeout(r, 300));
      expect(lane.status().lastError ?? "").not.toMatch(/deadlock/);
      const [row] = await sql.query<{head: string; reorgs: string}>(
        "SELECT head_number::text AS head, reorgs::text AS reorgs FROM evm_chains WHERE chain_id = $1",
        [CHAIN],
      );
      expect(row).toEqual({head: "1", reorgs: "1"});
      const [balance] = await sql.query<{balance: string}>(
        "SELECT balance::text AS balance FROM evm_balances WHERE chain_id = $1 AND owner = $2",
        [CHAIN, OWNER],
      );
      expect(balance, "the rollback took the transfer back once").toBeUndefined();
    } finally {
      release();
      await lane.close();
    }
  }, 60_000);
});
