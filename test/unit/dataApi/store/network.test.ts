import {afterEach, beforeEach, expect, it} from "vitest";
import {NETWORKS} from "../../../../src/chains/index.js";
import {networkWithGenesis} from "../../../../src/genesis/resolve.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {migrate} from "../../../../src/dataApi/store/migrations.js";
import {checkStoreNetwork, StoreNetworkError} from "../../../../src/dataApi/store/network.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import {describeBackends, quietLogger} from "../../../helpers/sql.js";

const record = async (db: SqlClient): Promise<unknown> =>
  (await db.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = 'network'"))[0]?.value ?? null;

describeBackends("the store's network", (backend) => {
  let db: SqlClient;
  beforeEach(async () => {
    db = await backend.open();
    await migrate(db, MIGRATIONS, {logger: quietLogger()});
  });
  afterEach(async () => {
    await db?.close();
  });

  it("is recorded by the writer and refused to a process of another network, writer or not", async () => {
    await checkStoreNetwork(db, NETWORKS.local, {record: true});
    expect(JSON.parse((await record(db)) as string)).toEqual({
      id: 12345,
      name: "local",
      X: NETWORKS.local.chainIds.X,
      C: NETWORKS.local.chainIds.C,
    });
    await checkStoreNetwork(db, NETWORKS.local, {record: false});
    await checkStoreNetwork(db, NETWORKS.local, {record: true});
    for (const writes of [false, true]) {
      const err = await checkStoreNetwork(db, NETWORKS.mainnet, {record: writes}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreNetworkError);
      expect((err as Error).message).toBe(
        "the data API store holds network local (ID 12345), and this process runs mainnet (ID 1): " +
          "start it with --network-id=local, or give it another store (--data-api-db, --data-dir)",
      );
    }
    expect(JSON.parse((await record(db)) as string)).toMatchObject({id: 12345});
  });

  it("tells apart numbered networks built from the local config (their chain IDs are their genesis's)", async () => {
    await checkStoreNetwork(db, networkWithGenesis("1337", null), {record: true});
    await checkStoreNetwork(db, networkWithGenesis("1337", null), {record: false});
    await expect(checkStoreNetwork(db, NETWORKS.local, {record: false})).rejects.toThrow(
      "the data API store holds network ID 1337, and this process runs local (ID 12345): start it with --network-id=1337,",
    );
    await expect(checkStoreNetwork(db, networkWithGenesis("99", null), {record: false})).rejects.toThrow(
      /runs ID 99: start it with --network-id=1337/,
    );
  });

  it("checks a store folded before the record by the chains of its UTXOs", async () => {
    const utxo = (id: string, chain: string): Promise<unknown> =>
      db.query(
        "INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_seq) VALUES ($1, 't', 0, $2, 1)",
        [id, chain],
      );
    await utxo("p", NETWORKS.fuji.chainIds.P);
    await utxo("x", NETWORKS.fuji.chainIds.X);
    await utxo("c", NETWORKS.fuji.chainIds.C);
    const fujiChain = [NETWORKS.fuji.chainIds.X, NETWORKS.fuji.chainIds.C].sort().at(-1)!;
    await expect(checkStoreNetwork(db, NETWORKS.mainnet, {record: true})).rejects.toThrow(
      `the data API store holds UTXOs of chain ${fujiChain} of fuji (ID 5), which is not a primary-network chain of mainnet (ID 1): ` +
        "start this process with --network-id=fuji, or give it another store (--data-api-db, --data-dir)",
    );
    expect(await record(db)).toBeNull();
    // A serve process checks without writing; the writer of the right network records it.
    await checkStoreNetwork(db, NETWORKS.fuji, {record: false});
    expect(await record(db)).toBeNull();
    await checkStoreNetwork(db, NETWORKS.fuji, {record: true});
    expect(JSON.parse((await record(db)) as string)).toMatchObject({id: 5, name: "fuji"});
  });

  it("finds nothing to check in a store not made yet, and writes nothing there", async () => {
    const fresh = await backend.open();
    try {
      await checkStoreNetwork(fresh, NETWORKS.mainnet, {record: true});
      expect(await fresh.query("SELECT to_regclass('data_api_meta') IS NULL AS absent")).toEqual([{absent: true}]);
    } finally {
      await fresh.close();
    }
  });

  it("names no network for a store folded on a chain of none it knows", async () => {
    await db.query(
      "INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_seq) VALUES ('u', 't', 0, 'zzzUnknownChain', 1)",
    );
    await expect(checkStoreNetwork(db, NETWORKS.local, {record: false})).rejects.toThrow(
      "the data API store holds UTXOs of chain zzzUnknownChain, which is not a primary-network chain of local (ID 12345): " +
        "start this process with the --network-id the store was folded for, or give it another store (--data-api-db, --data-dir)",
    );
  });

  it("refuses a record it cannot read, naming it", async () => {
    await db.query("INSERT INTO data_api_meta (key, value) VALUES ('network', '{\"id\":\"one\"}')");
    await expect(checkStoreNetwork(db, NETWORKS.local, {record: true})).rejects.toThrow(
      `the data API store's network record is not one this build reads: {"id":"one"}`,
    );
    await db.query("UPDATE data_api_meta SET value = 'not json' WHERE key = 'network'");
    await expect(checkStoreNetwork(db, NETWORKS.local, {record: true})).rejects.toThrow(
      "the data API store's network record is not one this build reads: not json",
    );
    await db.query("UPDATE data_api_meta SET value = 'null' WHERE key = 'network'");
    await expect(checkStoreNetwork(db, NETWORKS.local, {record: true})).rejects.toThrow(StoreNetworkError);
  });
});
