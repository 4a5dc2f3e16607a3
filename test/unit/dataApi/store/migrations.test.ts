import {afterEach, beforeEach, expect, it} from "vitest";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {migrate, schemaVersion, SchemaTooNewError, type Migration} from "../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import {loadTxUtxos} from "../../../../src/dataApi/queries/primary/utxos.js";
import {remakeTables} from "../../../../src/dataApi/rebuild.js";
import {describeBackends, quietLogger} from "../../../helpers/sql.js";

const M1: Migration = {
  version: 1,
  name: "accounts",
  sql: "CREATE TABLE acct (id int8 PRIMARY KEY); CREATE INDEX acct_i ON acct (id);",
};
const M2: Migration = {version: 2, name: "names", sql: "ALTER TABLE acct ADD COLUMN name text NOT NULL DEFAULT ''"};
const M3: Migration = {version: 3, name: "seed", sql: "INSERT INTO acct (id, name) VALUES (1, 'one')"};
const modules = {logger: quietLogger()};

describeBackends("migrate", (backend) => {
  let db: SqlClient;
  beforeEach(async () => {
    db = await backend.open();
  });
  afterEach(async () => {
    await db?.close();
  });

  it("brings a fresh database to the last version and records each", async () => {
    expect(await schemaVersion(db)).toBe(0);
    expect(await migrate(db, [M1, M2], modules)).toEqual({from: 0, to: 2});
    expect(await schemaVersion(db)).toBe(2);
    expect(await db.query("SELECT version, name FROM data_api_migrations ORDER BY version")).toEqual([
      {version: 1, name: "accounts"},
      {version: 2, name: "names"},
    ]);
    await db.query("INSERT INTO acct (id, name) VALUES (5, 'five')");
  });

  it("is idempotent and applies only what is new", async () => {
    await migrate(db, [M1, M2], modules);
    expect(await migrate(db, [M1, M2], modules)).toEqual({from: 2, to: 2});
    expect(await migrate(db, [M1, M2, M3], modules)).toEqual({from: 2, to: 3});
    expect(await db.query("SELECT id, name FROM acct")).toEqual([{id: 1n, name: "one"}]);
    expect(await migrate(db, [M1, M2, M3], modules)).toEqual({from: 3, to: 3});
    expect(await db.query("SELECT count(*)::int4 AS n FROM acct")).toEqual([{n: 1}]);
  });

  it("refuses a database newer than the code, changing nothing", async () => {
    await migrate(db, [M1, M2, M3], modules);
    const err = await migrate(db, [M1, M2], modules).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect((err as Error).message).toMatch(/schema version 3 is newer than this avaext supports \(2\)/);
    expect(await schemaVersion(db)).toBe(3);
  });

  it("rolls back a failing migration whole and keeps the earlier ones", async () => {
    const bad: Migration = {version: 2, name: "bad", sql: "CREATE TABLE half (v int4); SELECT * FROM no_such_table;"};
    await expect(migrate(db, [M1, bad], modules)).rejects.toThrow(/no_such_table/);
    expect(await schemaVersion(db)).toBe(1);
    expect(await db.query("SELECT to_regclass('half') IS NULL AS gone")).toEqual([{gone: true}]);
    expect(await migrate(db, [M1, M2], modules)).toEqual({from: 1, to: 2});
  });

  it("rejects a list out of order", async () => {
    await expect(migrate(db, [M2, M1], modules)).rejects.toThrow(/strictly ascending/);
    expect(await schemaVersion(db)).toBe(0);
  });

  it("moves UTXO spends to utxo_spends (schema 5): spent, unspent, and spends folded before their creation", async () => {
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 5),
      modules,
    );
    const ins =
      "INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_ts, consumed_chain, consuming_tx, consuming_ts, credentials) VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8)";
    await db.query(ins, ["spent", "t1", "P", 10, "P", "t2", 20, JSON.stringify([{signature: "c2ln", publicKey: ""}])]);
    await db.query(ins, ["unspent", "t1", "P", 10, null, null, null, null]);
    await db.query(ins, ["early", "t0", null, null, "X", "t3", 30, "[]"]);
    expect(await migrate(db, MIGRATIONS, modules)).toEqual({from: 4, to: MIGRATIONS.at(-1)!.version});
    expect(await db.query("SELECT utxo_id FROM utxos ORDER BY utxo_id")).toEqual([
      {utxo_id: "spent"},
      {utxo_id: "unspent"},
    ]);
    expect(
      await db.query(
        "SELECT utxo_id, tx_id, consumed_chain, consuming_tx, consuming_ts, credentials FROM utxo_spends ORDER BY utxo_id",
      ),
    ).toEqual([
      {utxo_id: "early", tx_id: "t0", consumed_chain: "X", consuming_tx: "t3", consuming_ts: 30n, credentials: []},
      {
        utxo_id: "spent",
        tx_id: "t1",
        consumed_chain: "P",
        consuming_tx: "t2",
        consuming_ts: 20n,
        credentials: [{signature: "c2ln", publicKey: ""}],
      },
    ]);
  });
  it("makes the primary network's text columns compare as bytes (schema 8), keeping their rows and indexes", async () => {
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 8),
      modules,
    );
    // Lower case sorts after upper case byte by byte; a linguistic collation would interleave them.
    for (const id of ["b2", "B1", "a3", "A4"]) {
      await db.query("INSERT INTO utxos (utxo_id, tx_id, output_index) VALUES ($1, 't', 0)", [id]);
    }
    // Up to schema 10: schema 11 replaces the primary key this test checks (the next test).
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 11),
      modules,
    );
    const notC = await db.query<{table_name: string; column_name: string}>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
        WHERE c.table_schema = current_schema() AND c.data_type = 'text' AND c.table_name IN ('txs', 'utxos', 'utxo_spends', 'utxo_addresses', 'stakers', 'blocks')
          AND coalesce(c.collation_name, '') <> 'C'`,
    );
    expect(notC).toEqual([]);
    expect(await db.query("SELECT utxo_id FROM utxos ORDER BY utxo_id")).toEqual([
      {utxo_id: "A4"},
      {utxo_id: "B1"},
      {utxo_id: "a3"},
      {utxo_id: "b2"},
    ]);
    // The primary key survived the change: a duplicate is still refused.
    await expect(db.query("INSERT INTO utxos (utxo_id, tx_id, output_index) VALUES ('a3', 't', 1)")).rejects.toThrow(
      /duplicate key/,
    );
    // A text parameter (default collation) still compares with the columns, in joins and in filters.
    expect(
      await db.query(
        "SELECT count(*)::int4 AS n FROM utxos u LEFT JOIN utxo_spends s ON s.utxo_id = u.utxo_id WHERE u.utxo_id = ANY($1::text[])",
        [["a3", "B1"]],
      ),
    ).toEqual([{n: 2}]);
  });

  it("indexes UTXOs and spends by ID with hash indexes (schema 11), keeping their rows, and a lookup by ID uses them", async () => {
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 11),
      modules,
    );
    for (let i = 0; i < 50; i++) {
      await db.query(
        "INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_ts) VALUES ($1, 't', $2, 'X', 1)",
        [`u${i}`, i],
      );
      if (i % 2 === 0)
        await db.query(
          "INSERT INTO utxo_spends (utxo_id, tx_id, output_index, consumed_chain, consuming_tx) VALUES ($1, 't', $2, 'X', 's')",
          [`u${i}`, i],
        );
    }
    // Up to schema 11: schema 12 replaces the indexes by transaction ID (the next test).
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 12),
      modules,
    );
    const indexes = await db.query<{indexname: string; indexdef: string}>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('utxos', 'utxo_spends') ORDER BY indexname",
    );
    expect(indexes.map((i) => i.indexname)).toEqual([
      "utxo_spends_by_consuming_tx",
      "utxo_spends_by_id",
      "utxos_by_id",
      "utxos_by_tx",
    ]);
    for (const i of indexes) expect(i.indexdef).toMatch(/USING hash/);
    expect(
      await db.query("SELECT count(*)::int4 AS n FROM utxos u JOIN utxo_spends s ON s.utxo_id = u.utxo_id"),
    ).toEqual([{n: 25}]);
    // With sequential scans off the planner must have an index on the ID to take; it takes the hash indexes.
    const plan = await db.transaction(async (tx) => {
      await tx.query("SET LOCAL enable_seqscan = off");
      const rows = await tx.query<{"QUERY PLAN": string}>(
        "EXPLAIN SELECT * FROM utxos u LEFT JOIN utxo_spends s ON s.utxo_id = u.utxo_id WHERE u.utxo_id = 'u4'",
      );
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(/utxos_by_id/);
    expect(plan).toMatch(/utxo_spends_by_id/);
  });

  it("finds a transaction's UTXOs by its place (schema 12): its creations by seq, its spends by block, rewards by ID", async () => {
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 12),
      modules,
    );
    const create =
      "INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_seq, created_ts, reward_type) VALUES ($1, $2, $3, $4, $5, 1, $6)";
    // S stakes at P seq 5 (block 3), R rewards it at seq 9; A is at the same seq and block on X; T shares S's block.
    await db.query(create, ["s0", "S", 0, "cp", 5, null]);
    await db.query(create, ["s1", "S", 1, "cp", 5, null]);
    await db.query(create, ["a0", "A", 0, "cx", 5, null]);
    await db.query(create, ["t0", "T", 0, "cp", 6, null]);
    await migrate(db, MIGRATIONS, modules);
    // Folded after the migration: the reward UTXO, named after S, created by R.
    await db.query(create, ["r0", "S", 2, "cp", 9, "VALIDATOR"]);
    const spend =
      "INSERT INTO utxo_spends (utxo_id, tx_id, output_index, consumed_chain, consuming_tx, consuming_height) VALUES ($1, 'g', $2, $3, $4, 3)";
    await db.query(spend, ["in1", 1, "cp", "S"]);
    await db.query(spend, ["in2", 2, "cp", "T"]);
    await db.query(spend, ["in3", 3, "cx", "A"]);
    const chainIds = {P: "cp", X: "cx", C: "cc"};
    const page = [
      {chain: "P", seq: 5n, block_height: 3n, tx_id: "S"},
      {chain: "P", seq: 9n, block_height: 4n, tx_id: "R"},
      {chain: "X", seq: 5n, block_height: 3n, tx_id: "A"},
    ];
    const ids = (m: Map<string, Array<{utxo_id: string}>>) =>
      Object.fromEntries([...m].map(([k, us]) => [k, us.map((u) => u.utxo_id)]));
    const p = await loadTxUtxos(db, page, chainIds);
    expect(ids(p.emitted)).toEqual({A: ["a0"], S: ["s0", "s1", "r0"]});
    expect(ids(p.consumed)).toEqual({A: ["in3"], S: ["in1"]});
    // X and C pages have no rewards to look for.
    const x = await loadTxUtxos(db, page.slice(2), chainIds, "x");
    expect([ids(x.emitted), ids(x.consumed)]).toEqual([{A: ["a0"]}, {A: ["in3"]}]);
    const indexes = await db.query<{indexname: string}>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('utxos', 'utxo_spends') ORDER BY indexname",
    );
    expect(indexes.map((i) => i.indexname)).toEqual([
      "utxo_spends_by_block",
      "utxo_spends_by_id",
      "utxos_by_creation",
      "utxos_by_id",
      "utxos_rewards_by_tx",
      "utxos_time_locked",
    ]);
    // With sequential scans off the planner must have an index to take for each lookup; it takes the new ones.
    const plan = await db.transaction(async (tx) => {
      await tx.query("SET LOCAL enable_seqscan = off");
      const lines: string[] = [];
      for (const q of [
        "EXPLAIN SELECT * FROM utxos WHERE created_chain = 'cp' AND created_seq = 5 AND tx_id = 'S'",
        "EXPLAIN SELECT * FROM utxos WHERE reward_type IS NOT NULL AND tx_id = ANY('{S}')",
        "EXPLAIN SELECT * FROM utxo_spends WHERE consumed_chain = 'cp' AND consuming_height = 3 AND consuming_tx = 'S'",
      ]) {
        for (const r of await tx.query<{"QUERY PLAN": string}>(q)) lines.push(r["QUERY PLAN"]);
      }
      return lines.join("\n");
    });
    expect(plan).toMatch(/utxos_by_creation/);
    expect(plan).toMatch(/utxos_rewards_by_tx/);
    expect(plan).toMatch(/utxo_spends_by_block/);
  });

  it("keys an address's UTXOs by their creation time (schema 10), from the UTXOs folded before", async () => {
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 10),
      modules,
    );
    const a = new Uint8Array(20).fill(7);
    for (const [id, ts] of [
      ["old", 10],
      ["new", 20],
    ] as const) {
      await db.query(
        "INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_ts) VALUES ($1, 't', 0, 'P', $2)",
        [id, ts],
      );
      await db.query("INSERT INTO utxo_addresses (address, utxo_id) VALUES ($1, $2)", [a, id]);
    }
    await migrate(db, MIGRATIONS, modules);
    expect(
      await db.query("SELECT utxo_id, created_ts FROM utxo_addresses ORDER BY address, created_ts DESC, utxo_id DESC"),
    ).toEqual([
      {utxo_id: "new", created_ts: 20n},
      {utxo_id: "old", created_ts: 10n},
    ]);
    await expect(
      db.query("INSERT INTO utxo_addresses (address, created_ts, utxo_id) VALUES ($1, 20, 'new')", [a]),
    ).rejects.toThrow(/duplicate key/);
  });
  it("moves primary webhooks' keys and filters out of their metadata into webhook_keys (schema 23)", async () => {
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 23),
      modules,
    );
    const hook = (id: string, eventType: string, metadata: object) =>
      db.query(
        `INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, status, metadata, created_at, from_block)
         VALUES ($1, 'o', $2, 'http://x/', '', '', 'c', 'active', $3::jsonb, 0, 0)`,
        [id, eventType, JSON.stringify(metadata)],
      );
    await hook("pn", "primary_network_address_activity", {
      keyType: "addresses",
      keys: ["P-b", "P-a", "P-a"],
      subEvents: {addressActivitySubEvents: ["balance_change"]},
    });
    await hook("va", "validator_activity", {
      keyType: "nodeId",
      keys: ["NodeID-1"],
      nodeIds: ["NodeID-1", "NodeID-2"],
      subnetIds: [],
      subEvents: {validatorActivitySubEvents: ["validator_stake"]},
      l1ValidatorFeeBalanceThreshold: "5",
    });
    await hook("evm", "address_activity", {eventSignatures: []});
    await migrate(db, MIGRATIONS, modules);
    expect(await db.query("SELECT webhook_id, kind, key FROM webhook_keys ORDER BY 1, 2, 3")).toEqual([
      {webhook_id: "pn", kind: "key", key: "P-a"},
      {webhook_id: "pn", kind: "key", key: "P-b"},
      {webhook_id: "va", kind: "key", key: "NodeID-1"},
      {webhook_id: "va", kind: "nodeId", key: "NodeID-1"},
      {webhook_id: "va", kind: "nodeId", key: "NodeID-2"},
    ]);
    expect(await db.query("SELECT id, metadata FROM webhooks ORDER BY id")).toEqual([
      {id: "evm", metadata: {eventSignatures: []}},
      {id: "pn", metadata: {keyType: "addresses", subEvents: {addressActivitySubEvents: ["balance_change"]}}},
      {
        id: "va",
        metadata: {
          keyType: "nodeId",
          nodeIds: [],
          subnetIds: [],
          subEvents: {validatorActivitySubEvents: ["validator_stake"]},
          l1ValidatorFeeBalanceThreshold: "5",
        },
      },
    ]);
  });

  it("lists the unspent UTXOs of an earlier store by owner (schemas 24, 25); nothing but the view adds or removes them (27)", async () => {
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 24),
      modules,
    );
    const ins =
      "INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_ts, addresses, exported_to) VALUES ($1, 't', 0, $2, 10, $3::jsonb, $4)";
    await db.query(ins, ["kept", "P", JSON.stringify(["aa", "bb", "aa"]), null]);
    await db.query(ins, ["spent", "P", JSON.stringify(["aa"]), null]);
    await db.query(ins, ["exported", "P", JSON.stringify(["cc"]), "X"]);
    await db.query(
      "INSERT INTO utxo_spends (utxo_id, tx_id, output_index, consumed_chain, consuming_tx, consuming_ts) VALUES ('spent', 't', 0, 'P', 't2', 20)",
    );
    await migrate(db, MIGRATIONS, modules);
    expect(await db.query("SELECT encode(address, 'hex') AS a, utxo_id FROM unspent_owned ORDER BY 1, 2")).toEqual([
      {a: "aa", utxo_id: "kept"},
      {a: "bb", utxo_id: "kept"},
      {a: "cc", utxo_id: "exported"},
    ]);
    // The view writes a new UTXO's rows and removes a spent one's (views/primary/view.ts): a UTXO or a spend written
    // by anything else changes nothing here, and the reads check utxo_spends.
    await db.query(ins, ["later", "P", JSON.stringify(["dd"]), null]);
    await db.query(
      "INSERT INTO utxo_spends (utxo_id, tx_id, output_index, consumed_chain, consuming_tx, consuming_ts) VALUES ('kept', 't', 0, 'P', 't3', 30)",
    );
    expect(await db.query("SELECT count(*)::int4 AS n FROM unspent_owned")).toEqual([{n: 3}]);
    expect(await db.query("SELECT tgname FROM pg_trigger WHERE tgname LIKE 'unspent_owned%'")).toEqual([]);
  });

  it("keeps a primary webhook's keys through a rebuild of a store older than schema 23", async () => {
    // The rebuild sets the webhooks aside, drops the tables and migrates afresh: schema 23's move then finds no
    // webhook, so the rows copied back are moved after the copy.
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 23),
      modules,
    );
    await db.query(
      `INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, status, metadata, created_at, from_block)
       VALUES ('va', 'o', 'validator_activity', 'http://x/', '', '', 'c', 'active', $1::jsonb, 0, 0)`,
      [
        JSON.stringify({
          keyType: "nodeId",
          keys: ["NodeID-1"],
          nodeIds: ["NodeID-2"],
          subEvents: {validatorActivitySubEvents: ["validator_stake"]},
        }),
      ],
    );
    await remakeTables(db, quietLogger());
    expect(await db.query("SELECT webhook_id, kind, key FROM webhook_keys ORDER BY 1, 2, 3")).toEqual([
      {webhook_id: "va", kind: "key", key: "NodeID-1"},
      {webhook_id: "va", kind: "nodeId", key: "NodeID-2"},
    ]);
    expect(await db.query("SELECT metadata FROM webhooks")).toEqual([
      {metadata: {keyType: "nodeId", nodeIds: [], subEvents: {validatorActivitySubEvents: ["validator_stake"]}}},
    ]);
    // A second rebuild, of a store at the last schema, changes nothing.
    await remakeTables(db, quietLogger());
    expect(await db.query("SELECT count(*)::int4 AS n FROM webhook_keys")).toEqual([{n: 2}]);
    expect(await db.query("SELECT metadata FROM webhooks")).toEqual([
      {metadata: {keyType: "nodeId", nodeIds: [], subEvents: {validatorActivitySubEvents: ["validator_stake"]}}},
    ]);
  });
});
