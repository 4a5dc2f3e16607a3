/**
 * The primary-network view over a real LevelDB container index and both SQL backends: a history of signed
 * X-chain transactions is folded in small batches; every transaction, block and UTXO lands once, spends link to
 * their UTXOs, credentials carry the signers' keys, a restart resumes where the last commit left off, and an
 * undecodable container is counted and skipped without stopping the view.
 */
import {afterAll, beforeAll, expect, it} from "vitest";
import {Registry} from "prom-client";
import {NETWORKS} from "../../../../../src/chains/index.js";
import type {Database} from "../../../../../src/db/controller.js";
import {findEndpoint} from "../../../../../src/containerIndex/endpoints.js";
import type {IndexStore} from "../../../../../src/containerIndex/store.js";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {SqlClient, SqlTx} from "../../../../../src/dataApi/store/sql.js";
import {
  LATE_SPENDS_KEY,
  SUPPLY_TOTALS_KEY,
  recomputeSupplyTotals,
} from "../../../../../src/dataApi/views/primary/supplyTotals.js";
import {SupplyPendingError, getAvaxSupply} from "../../../../../src/dataApi/queries/primary/supply.js";
import {createViewMetrics} from "../../../../../src/dataApi/views/primary/metrics.js";
import {PrimaryView, defaultPrimaryViewOptions} from "../../../../../src/dataApi/views/primary/view.js";
import {makeKeys, xHistory, type HistoryBlock} from "../../../../../src/dev/syntheticHistory.js";
import {idFromString, idToString} from "../../../../../src/util/cb58.js";
import {describeBackends, quietLogger, type Backend} from "../../../../helpers/sql.js";
import {storeAndIndex as openStoreAndIndex, type XIndex} from "./stores.js";
import {builtInGenesisText} from "../../../../../src/genesis/files.js";
import {genesisFromText} from "../../../../../src/genesis/resolve.js";
import {prng} from "../../../../helpers/prng.js";

const network = NETWORKS.local;
const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";
const X_BLOCK = findEndpoint("X", "block")!;
/** The local network's genesis (its UTXOs are not the history's: the counts below are of the history's, seq > 0). */
const GENESIS = genesisFromText(builtInGenesisText(network.id)!, "local").build().state;
const keys = makeKeys(12, "view-test");

const blocks: HistoryBlock[] = [
  ...xHistory({
    txs: 240,
    txsPerBlock: 8,
    keys,
    networkId: network.id,
    chainId: idFromString(network.chainIds.X),
    assetId: idFromString(AVAX),
    startSeconds: 1_700_000_000,
    random: prng(7),
  }),
];
const TXS = 240;
/** The queries' view of the network. */
const NET_CTX = {networkName: "local", hrp: "local", chainIds: network.chainIds, avaxAssetId: AVAX};

function view(
  store: IndexStore,
  sql: SqlClient,
  register: Registry | null = null,
  recentOwners = defaultPrimaryViewOptions.recentOwners,
  statementsInFlight = defaultPrimaryViewOptions.statementsInFlight,
): PrimaryView {
  return new PrimaryView(
    {...defaultPrimaryViewOptions, batchSize: 7, recentOwners, statementsInFlight},
    {
      index: store,
      sql,
      network,
      genesis: () => GENESIS,
      avaxAssetId: AVAX,
      logger: quietLogger(),
      metrics: register ? createViewMetrics(register) : null,
    },
  );
}

/** `supply_totals` as a map. */
async function totals(sql: SqlClient | SqlTx): Promise<Map<string, bigint>> {
  const rows = await sql.query<{key: string; amount: string}>("SELECT key, amount::text AS amount FROM supply_totals");
  return new Map(rows.map((r) => [r.key, BigInt(r.amount)]));
}

/** What local's genesis creates of AVAX: its UTXOs and its stakers' stake (created_seq 0, both). */
const GENESIS_AVAX = [...[...GENESIS.utxos].map((u) => u.output), ...[...GENESIS.stakers].flatMap((s) => s.stake)]
  .filter((o) => o.assetId === AVAX)
  .reduce((a, o) => a + o.amount, 0n);

/**
 * The supply sums the fold kept, against those summed from the store whole (then rolled back): equal, but for what
 * the X-chain consumed of the history's seed UTXOs, which the store never holds (the kept sums count a spend by its
 * input's amount). Each transaction burns its 1,000,000 fee: what X consumed less what it made is exactly that.
 */
/**
 * unspent_owned, which the view writes with each batch, holds exactly the owners of the UTXOs the store holds and has
 * no spend of (schema 25): as many rows as that, none more (the fold here has no import folded ahead of its export,
 * the one case that may leave a row the balances then filter).
 */
async function expectUnspentOwnedKept(sql: SqlClient): Promise<void> {
  const rows = async (q: string): Promise<string[]> => (await sql.query<{k: string}>(q)).map((r) => r.k).sort();
  const truth = await rows(
    `SELECT DISTINCT a.hex || ':' || u.utxo_id AS k
     FROM utxos u CROSS JOIN LATERAL jsonb_array_elements_text(u.addresses) AS a(hex)
     WHERE u.created_chain IS NOT NULL AND NOT EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.utxo_id)`,
  );
  const kept = await rows("SELECT encode(address, 'hex') || ':' || utxo_id AS k FROM unspent_owned");
  expect(truth.length).toBeGreaterThan(0);
  expect(kept).toEqual(truth);
}

async function expectSupplyTotalsKept(sql: SqlClient, txs: number): Promise<void> {
  const kept = await totals(sql);
  let recomputed = new Map<string, bigint>();
  const undo = new Error("rollback");
  await sql
    .transaction(async (tx) => {
      await recomputeSupplyTotals(tx, AVAX);
      recomputed = await totals(tx);
      throw undo;
    })
    .catch((e: unknown) => {
      if (e !== undo) throw e;
    });
  const X = network.chainIds.X;
  expect(kept.get(`made:${X}`)).toBe(recomputed.get(`made:${X}`));
  expect((kept.get(`made:${X}`) ?? 0n) > 0n || txs === 0).toBe(true);
  expect((kept.get(`spent:${X}`) ?? 0n) - (kept.get(`made:${X}`) ?? 0n)).toBe(BigInt(txs) * 1_000_000n);
  expect((kept.get(`spent:${X}`) ?? 0n) >= (recomputed.get(`spent:${X}`) ?? 0n)).toBe(true);
  const others = (m: Map<string, bigint>): Array<[string, bigint]> => [...m].filter(([k]) => k !== `spent:${X}`).sort();
  expect(others(kept)).toEqual(others(recomputed));
  expect(kept.get("genesis")).toBe(GENESIS_AVAX);
}

async function count(sql: SqlClient, q: string, params: unknown[] = []): Promise<number> {
  const [r] = await sql.query<{n: bigint}>(q, params);
  return Number(r!.n);
}

const opened: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of opened.reverse()) await c();
});

/** A migrated store and an index of `containers`, closed after the file's tests. */
async function storeAndIndex(backend: Backend, containers: HistoryBlock[]): Promise<{sql: SqlClient; idx: XIndex}> {
  const {sql, idx, close} = await openStoreAndIndex(backend, containers);
  opened.push(close);
  return {sql, idx};
}

describeBackends("primary-network view", (backend) => {
  let sql: SqlClient;
  let idx: {db: Database; store: IndexStore; dir: string};

  beforeAll(async () => {
    // Half the history first: the view folds it, then "restarts" on the full index.
    ({sql, idx} = await storeAndIndex(backend, blocks.slice(0, 14)));
  });

  it("folds every block, transaction and UTXO once, across a restart", async () => {
    const first = view(idx.store, sql);
    await first.load();
    expect(await first.catchUp()).toBe(14);
    await first.close();
    await idx.store.accept(
      blocks.slice(14).map((c) => ({endpoint: X_BLOCK, id: c.id, bytes: c.bytes, timestampNs: c.timestampNs})),
      null,
    );

    const second = view(idx.store, sql);
    await second.load();
    expect(await second.catchUp()).toBe(blocks.length - 14);
    expect(await second.catchUp()).toBe(0);
    expect(second.lag()).toBe(0n);
    await second.close();

    expect(await count(sql, "SELECT count(*)::int8 AS n FROM txs WHERE chain = 'X'")).toBe(TXS);
    expect(await count(sql, "SELECT count(DISTINCT seq)::int8 AS n FROM txs")).toBe(TXS);
    expect(await count(sql, "SELECT max(seq) AS n FROM txs")).toBe(TXS);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM blocks WHERE chain = 'X'")).toBe(blocks.length);
    const [pos] = await sql.query<{next_index: bigint}>(
      "SELECT next_index FROM view_positions WHERE endpoint = 'X/block'",
    );
    expect(pos!.next_index).toBe(BigInt(blocks.length));
    await expectSupplyTotalsKept(sql, TXS);
    await expectUnspentOwnedKept(sql);

    // Blocks: the inner block's ID, the wrapper in proposerDetails, parents linked.
    const rows = await sql.query<{
      height: bigint;
      block_id: string;
      container_id: string;
      parent_id: string;
      tx_ids: string[];
      proposer: {proposerId: string};
    }>(
      "SELECT height, block_id, container_id, parent_id, tx_ids, proposer FROM blocks WHERE chain = 'X' ORDER BY height",
    );
    rows.forEach((r, i) => {
      expect(r.height).toBe(BigInt(i + 1));
      expect(r.block_id).toBe(idToString(blocks[i]!.innerId));
      expect(r.container_id).toBe(idToString(blocks[i]!.id));
      expect(r.proposer.proposerId).toBe(idToString(blocks[i]!.id));
      expect(r.tx_ids).toEqual(blocks[i]!.txIds.map(idToString));
      if (i > 0) expect(r.parent_id).toBe(rows[i - 1]!.block_id);
    });
  });

  it("links spends to the UTXOs they consume, with the signers' keys", async () => {
    // Every transaction emits 2 UTXOs and consumes 2.
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM utxos WHERE created_seq > 0")).toBe(2 * TXS);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM utxo_spends")).toBe(2 * TXS);
    // A UTXO created and consumed within the history has both halves.
    const both = await count(
      sql,
      "SELECT count(*)::int8 AS n FROM utxos u JOIN utxo_spends sp USING (utxo_id) WHERE u.created_seq > 0",
    );
    expect(both).toBeGreaterThan(0);
    const spent = await sql.query<{
      consuming_tx: string;
      consuming_ts: bigint;
      created_ts: bigint;
      credentials: Array<{publicKey: string}>;
      addresses: string[];
    }>(
      "SELECT sp.consuming_tx, sp.consuming_ts, u.created_ts, sp.credentials, u.addresses FROM utxos u JOIN utxo_spends sp USING (utxo_id) WHERE u.created_seq > 0",
    );
    const byAddress = new Map(
      keys.map((k) => [Buffer.from(k.address).toString("hex"), Buffer.from(k.publicKey).toString("base64")]),
    );
    for (const u of spent) {
      expect(u.consuming_ts).toBeGreaterThan(u.created_ts);
      // The credential that unlocked the UTXO recovers to its owner's key.
      expect(u.credentials.map((c) => c.publicKey)).toEqual([byAddress.get(u.addresses[0]!)]);
    }
    // The addresses filter: each transaction is listed under its outputs' owners and its inputs' signers.
    const perTx = await sql.query<{seq: bigint; n: bigint}>(
      "SELECT seq, count(*)::int8 AS n FROM tx_addresses GROUP BY seq",
    );
    expect(perTx).toHaveLength(TXS);
    for (const r of perTx) expect(r.n).toBeGreaterThanOrEqual(2n);
    // X-chain asset index: every transaction moves AVAX.
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM asset_txs WHERE asset_id = $1", [AVAX])).toBe(TXS);
  });

  it("reads a spent UTXO's owner from the store when it is not among the recent creations: the same rows", async () => {
    const other = await backend.open();
    try {
      await migrate(other, MIGRATIONS, {logger: quietLogger()});
      const v = view(idx.store, other, null, 0);
      await v.load();
      expect(await v.catchUp()).toBe(blocks.length);
      await v.close();
      const rows = async (c: SqlClient): Promise<unknown> => ({
        addresses: await c.query("SELECT encode(address, 'hex') AS a, seq FROM tx_addresses ORDER BY seq, a"),
        spends: await c.query("SELECT utxo_id, consuming_tx, credentials FROM utxo_spends ORDER BY utxo_id"),
      });
      const withCache = await rows(sql);
      expect((withCache as {addresses: unknown[]}).addresses.length).toBeGreaterThan(2 * TXS);
      expect(await rows(other)).toEqual(withCache);
    } finally {
      await other.close();
    }
  });

  it("counts and skips a container that does not decode, and goes on", async () => {
    const register = new Registry();
    const garbage = {
      id: new Uint8Array(32).fill(9),
      bytes: Uint8Array.from(Buffer.from("not a block at all")),
      timestampNs: 1_800_000_000_000_000_000n,
    };
    const extra = [
      ...xHistory({
        txs: 8,
        txsPerBlock: 8,
        keys,
        networkId: network.id,
        chainId: idFromString(network.chainIds.X),
        assetId: idFromString(AVAX),
        startSeconds: 1_800_000_001,
        startHeight: 100n,
        random: prng(99),
      }),
    ];
    await idx.store.accept([{endpoint: X_BLOCK, ...garbage}], null);
    await idx.store.accept(
      [{endpoint: X_BLOCK, id: extra[0]!.id, bytes: extra[0]!.bytes, timestampNs: extra[0]!.timestampNs}],
      null,
    );
    const v = view(idx.store, sql, register);
    await v.load();
    expect(await v.catchUp()).toBe(2);
    await v.close();
    const metric = await register.getSingleMetricAsString("avaext_data_api_undecodable_total");
    expect(metric).toContain('avaext_data_api_undecodable_total{chain="X",kind="block"} 1');
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM txs")).toBe(TXS + 8);
  });
});

describeBackends("primary-network view: a store folded before the supply's sums were kept", (backend) => {
  it("has them computed once from its rows when its view loads", async () => {
    const {sql, idx} = await storeAndIndex(backend, blocks);
    const v = view(idx.store, sql);
    await v.load();
    await v.catchUp();
    await v.close();
    // As a store of schema 14 has it: neither the sums nor the mark that they were computed.
    await sql.query("DELETE FROM supply_totals");
    await sql.query("DELETE FROM data_api_meta WHERE key = $1", [SUPPLY_TOTALS_KEY]);
    await expect(getAvaxSupply(sql, NET_CTX, {now: 1_800_000_000})).rejects.toBeInstanceOf(SupplyPendingError);
    const again = view(idx.store, sql);
    await again.load();
    await again.close();
    const kept = await totals(sql);
    expect(kept.get("genesis")).toBe(GENESIS_AVAX);
    // From the rows: a spend counts once its UTXO is held, so only the history's own UTXOs spent are in it.
    const X = network.chainIds.X;
    const [spent] = await sql.query<{n: string}>(
      "SELECT coalesce(sum(u.amount), 0)::text AS n FROM utxo_spends sp JOIN utxos u USING (utxo_id) WHERE u.asset_id = $1",
      [AVAX],
    );
    expect(kept.get(`spent:${X}`)).toBe(BigInt(spent!.n));
    expect(kept.get(`made:${X}`)! > 0n).toBe(true);
    const s = await getAvaxSupply(sql, NET_CTX, {now: 1_800_000_000});
    expect(Number(s.genesisUnlock)).toBeGreaterThan(0);
  });
});

describeBackends("primary-network view: a store upgraded while a spend's UTXO was not held yet", (backend) => {
  it("counts that spend when the UTXO comes, so the sums end as the store's whole", async () => {
    const {sql, idx} = await storeAndIndex(backend, blocks);
    const v = view(idx.store, sql);
    await v.load();
    await v.catchUp();
    await v.close();
    // A spent AVAX UTXO of the history, as if the transaction that made it were not folded yet (an import folded
    // before its export, on another chain): the row goes, and the sums and their mark with it (a schema 14 store).
    const [u] = await sql.query<{utxo_id: string; container_id: string}>(
      `SELECT u.utxo_id, b.container_id FROM utxos u JOIN utxo_spends sp USING (utxo_id) JOIN txs t ON t.chain = 'X' AND t.tx_id = u.tx_id
       JOIN blocks b ON b.chain = 'X' AND b.block_id = t.block_id WHERE u.asset_id = $1 AND u.created_seq > 0 ORDER BY u.created_seq LIMIT 1`,
      [AVAX],
    );
    await sql.query("DELETE FROM utxos WHERE utxo_id = $1", [u!.utxo_id]);
    await sql.query("DELETE FROM supply_totals");
    await sql.query("DELETE FROM data_api_meta WHERE key = $1", [SUPPLY_TOTALS_KEY]);
    const upgraded = view(idx.store, sql);
    await upgraded.load();
    await upgraded.close();
    const [late] = await sql.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = $1", [
      LATE_SPENDS_KEY,
    ]);
    expect(JSON.parse(late!.value)).toContainEqual([u!.utxo_id, network.chainIds.X]);
    // The UTXO's transaction comes (again, under another container ID: the rest of it is held already).
    const block = blocks.find((b) => idToString(b.id) === u!.container_id)!;
    await idx.store.accept(
      [{endpoint: X_BLOCK, id: new Uint8Array(32).fill(0xcd), bytes: block.bytes, timestampNs: block.timestampNs}],
      null,
    );
    const after = view(idx.store, sql);
    await after.load();
    expect(await after.catchUp()).toBe(1);
    await after.close();
    const kept = await totals(sql);
    let whole = new Map<string, bigint>();
    const undo = new Error("rollback");
    await sql
      .transaction(async (tx) => {
        await recomputeSupplyTotals(tx, AVAX);
        whole = await totals(tx);
        throw undo;
      })
      .catch((e: unknown) => {
        if (e !== undo) throw e;
      });
    expect([...kept].sort()).toEqual([...whole].sort());
    const [left] = await sql.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = $1", [
      LATE_SPENDS_KEY,
    ]);
    expect(JSON.parse(left!.value)).not.toContainEqual([u!.utxo_id, network.chainIds.X]);
  });
});

describeBackends("primary-network view: an index that repeats a block", (backend) => {
  it("keeps the first of each repeated row and folds every container, without an error", async () => {
    // Block 3 again at index 10, under another container ID (as an index written by an older dev schedule holds
    // it): its height, transactions and UTXOs are in the store already. Batches of up to 7 containers: the second
    // batch (7-13) raises the unique violation and is written again keeping the first; the others are plain inserts.
    const again = {...blocks[3]!, id: new Uint8Array(32).fill(0xab)};
    const containers = [...blocks.slice(0, 10), again, ...blocks.slice(10)];
    const {sql, idx} = await storeAndIndex(backend, containers);
    const register = new Registry();
    const v = view(idx.store, sql, register);
    await v.load();
    expect(await v.catchUp()).toBe(containers.length);
    expect(v.lastError).toBeNull();
    await v.close();
    expect(await register.getSingleMetricAsString("avaext_data_api_view_errors_total")).toMatch(/ 0$/m);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM txs")).toBe(TXS);
    expect(await count(sql, "SELECT count(DISTINCT tx_id)::int8 AS n FROM txs")).toBe(TXS);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM blocks")).toBe(blocks.length);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM utxos WHERE created_seq > 0")).toBe(2 * TXS);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM utxo_spends")).toBe(2 * TXS);
    // The first of the repeated block's rows is the one kept.
    const [kept] = await sql.query<{container_id: string}>(
      "SELECT container_id FROM blocks WHERE chain = 'X' AND height = 4",
    );
    expect(kept!.container_id).toBe(idToString(blocks[3]!.id));
    expect(await count(sql, "SELECT next_index AS n FROM view_positions WHERE endpoint = 'X/block'")).toBe(
      containers.length,
    );
    // The repeated block's transactions are in the supply's sums once.
    await expectSupplyTotalsKept(sql, TXS);
    await expectUnspentOwnedKept(sql);
  });
});

describeBackends("primary-network view: a batch the store refuses", (backend) => {
  let sql: SqlClient;
  let idx: {db: Database; store: IndexStore; dir: string};

  beforeAll(async () => {
    ({sql, idx} = await storeAndIndex(backend, blocks));
  });

  it("closes while batches are read and decoded ahead, leaving no unhandled rejection behind", async () => {
    // Batches big enough that decoding one yields (every few ms), so closing aborts the ones decoded ahead mid-way.
    const big = [
      ...xHistory({
        txs: 3000,
        txsPerBlock: 10,
        keys,
        networkId: network.id,
        chainId: idFromString(network.chainIds.X),
        assetId: idFromString(AVAX),
        startSeconds: 1_700_000_000,
        random: prng(11),
      }),
    ];
    const {sql: s2, idx: i2} = await storeAndIndex(backend, big);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      for (const closeAfterMs of [0, 5, 20, 60]) {
        const v = new PrimaryView(
          {...defaultPrimaryViewOptions, batchSize: 30, batchBytes: 1 << 30},
          {
            index: i2.store,
            sql: s2,
            network,
            genesis: () => GENESIS,
            avaxAssetId: AVAX,
            logger: quietLogger(),
            metrics: null,
          },
        );
        await v.start();
        await new Promise((r) => setTimeout(r, closeAfterMs));
        await v.close();
        // Rejections are reported once the microtasks after them have run: give them a few turns.
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it("writes nothing of a batch whose start is not the stored position", async () => {
    // Another writer (which the writer lock keeps out) would have moved the position under the view: to the first
    // batch's end (1: the first batch is one container), as if it were folded already, or past it. One statement in
    // flight: the second batch, which starts at 1, is not sent before the first fails.
    for (const moved of [1, 3]) {
      const v = view(idx.store, sql, null, defaultPrimaryViewOptions.recentOwners, 1);
      await v.load();
      await sql.query("UPDATE view_positions SET next_index = $1 WHERE endpoint = 'X/block'", [moved]);
      await expect(v.catchUp()).rejects.toThrow(/view position is not at the start of the batch/);
      await v.close();
      expect(await count(sql, "SELECT count(*)::int8 AS n FROM txs")).toBe(0);
      expect(await count(sql, "SELECT next_index AS n FROM view_positions WHERE endpoint = 'X/block'")).toBe(moved);
      await sql.query("UPDATE view_positions SET next_index = 0 WHERE endpoint = 'X/block'");
    }
  });

  it("keeps none of the batches sent after a failed one, and folds each once when the store takes them", async () => {
    // The store refuses the first transaction of block 16 (batches of up to 7 blocks). On a PostgreSQL server the
    // next batch's statement may be sent before the refused one fails: it must fail with it.
    await sql.exec(`CREATE FUNCTION refuse_tx() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.seq = 129 THEN RAISE EXCEPTION 'test: the store refuses this transaction'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_tx BEFORE INSERT ON txs FOR EACH ROW EXECUTE FUNCTION refuse_tx();`);
    const v = view(idx.store, sql);
    await v.load();
    await expect(v.catchUp()).rejects.toThrow(/the store refuses this transaction/);
    await v.close();
    // The batches before the refused one are kept whole; nothing from it or after it.
    const kept = await count(sql, "SELECT next_index AS n FROM view_positions WHERE endpoint = 'X/block'");
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(16);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM txs")).toBe(kept * 8);
    expect(await count(sql, "SELECT max(seq) AS n FROM txs")).toBe(kept * 8);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM blocks")).toBe(kept);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM utxo_spends")).toBe(kept * 8 * 2);
    await expectSupplyTotalsKept(sql, kept * 8);

    await sql.exec("DROP TRIGGER refuse_tx ON txs; DROP FUNCTION refuse_tx();");
    const again = view(idx.store, sql);
    await again.load();
    expect(await again.catchUp()).toBe(blocks.length - kept);
    await again.close();
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM txs")).toBe(TXS);
    expect(await count(sql, "SELECT count(DISTINCT seq)::int8 AS n FROM txs")).toBe(TXS);
    expect(await count(sql, "SELECT max(seq) AS n FROM txs")).toBe(TXS);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM utxos WHERE created_seq > 0")).toBe(2 * TXS);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM utxo_spends")).toBe(2 * TXS);
    expect(await count(sql, "SELECT count(*)::int8 AS n FROM blocks")).toBe(blocks.length);
    expect(await count(sql, "SELECT next_index AS n FROM view_positions WHERE endpoint = 'X/block'")).toBe(
      blocks.length,
    );
    await expectSupplyTotalsKept(sql, TXS);
    await expectUnspentOwnedKept(sql);
  });

  it("folds a container once more before stopping its chain: a failure that passes does not stop it", async () => {
    const fresh = await storeAndIndex(backend, blocks);
    // The first transaction of block 16 is refused twice (in its batch, then alone; P0001, not an outage), then
    // taken. The refusals are counted by a sequence, which the rolled-back transactions do not undo.
    await fresh.sql.exec(`CREATE SEQUENCE refusals;
      CREATE FUNCTION refuse_twice() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.seq = 129 THEN IF nextval('refusals') <= 2 THEN
        RAISE EXCEPTION 'test: refused twice'; END IF; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_twice BEFORE INSERT ON txs FOR EACH ROW EXECUTE FUNCTION refuse_twice();`);
    const v = view(fresh.idx.store, fresh.sql, new Registry());
    await v.start();
    try {
      const at = (): Promise<number> =>
        count(fresh.sql, "SELECT next_index AS n FROM view_positions WHERE endpoint = 'X/block'");
      await expect.poll(at, {timeout: 30_000}).toBe(blocks.length);
      expect([...v.stops.keys()]).toEqual([]);
      expect(await count(fresh.sql, "SELECT count(*)::int8 AS n FROM txs")).toBe(TXS);
      expect(await count(fresh.sql, "SELECT last_value AS n FROM refusals")).toBe(3);
    } finally {
      await v.close();
    }
  });

  it("stops the chain, naming the containers, when reading a batch fails by a bug (not an outage)", async () => {
    const fresh = await storeAndIndex(backend, blocks);
    const broken = Object.assign(Object.create(fresh.idx.store) as IndexStore, {
      index: (e: Parameters<IndexStore["index"]>[0]) => {
        const real = fresh.idx.store.index(e);
        return Object.assign(Object.create(real) as typeof real, {
          getRange: (from: bigint, n: number) => {
            if (from + BigInt(n) > 14n) return Promise.reject(new TypeError("test: a bug reading containers"));
            return real.getRange(from, n);
          },
        });
      },
    });
    const v = view(broken, fresh.sql, new Registry());
    await v.start();
    try {
      await expect
        .poll(() => v.stops.get("X")?.error ?? null, {timeout: 30_000})
        .toBe("test: a bug reading containers");
      // Narrowed one container at a time: the ones before the failing read are folded.
      expect(v.stops.get("X")).toMatchObject({chain: "X", endpoint: "X/block", index: "14"});
      expect(await count(fresh.sql, "SELECT next_index AS n FROM view_positions WHERE endpoint = 'X/block'")).toBe(14);
    } finally {
      await v.close();
    }
  });
});
