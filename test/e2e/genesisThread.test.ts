/**
 * Mainnet's genesis folded into a new PGlite store on a thread of its own (src/dataApi/genesisThread.ts): by a real
 * avaext started beside an empty mainnet index, and compared, table by table, with the same genesis folded in the
 * process as the primary view folds a new store. A thread that cannot fold fails the start with its error.
 */
import {existsSync, mkdirSync, writeFileSync} from "node:fs";
import path from "node:path";
import {bech32} from "@scure/base";
import {describe, expect, it} from "vitest";
import {NETWORKS} from "../../src/chains/index.js";
import {dataApiGenesis} from "../../src/dataApi/genesis.js";
import {
  GENESIS_THREAD_SHARED_BUFFERS_MB,
  foldGenesisOnThread,
  foldsOnThread,
  genesisPendingPath,
} from "../../src/dataApi/genesisThread.js";
import {openSqlClient} from "../../src/dataApi/store/client.js";
import {migrate} from "../../src/dataApi/store/migrations.js";
import {checkStoreNetwork} from "../../src/dataApi/store/network.js";
import {MIGRATIONS} from "../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../src/dataApi/store/sql.js";
import {PrimaryView, defaultPrimaryViewOptions} from "../../src/dataApi/views/primary/view.js";
import {parseGenesisConfig} from "../../src/genesis/config.js";
import {builtInGenesisText} from "../../src/genesis/files.js";
import {startChild} from "../helpers/child.js";
import {tempDir} from "../helpers/node.js";
import {quietLogger} from "../helpers/sql.js";

const mainnet = dataApiGenesis({network: NETWORKS.mainnet, feed: null, genesisFile: null, dataDir: tempDir()});

/** Each table's row count and a digest of its rows in a fixed order (of the meta table, the keys the fold writes). */
async function contents(sql: SqlClient): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const tables = await sql.query<{name: string}>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  for (const {name} of tables) {
    // The migrations' rows hold when each ran.
    if (name === "data_api_migrations") continue;
    // The meta table holds the store's own random secret and its writer's settings: the fold's keys and the
    // network's record compare.
    const where =
      name === "data_api_meta"
        ? "WHERE t.key LIKE 'view.%' OR t.key LIKE 'supply%' OR t.key LIKE 'genesis.%' OR t.key = 'network'"
        : "";
    const [r] = await sql.query<{n: number; h: string}>(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h FROM "${name}" t ${where}`,
    );
    out[name] = `${r!.n} ${r!.h}`;
  }
  return out;
}

describe("a large genesis folded on a thread of its own", () => {
  it("is taken for mainnet's genesis on a new store only, not for local's", () => {
    // In a temp dir: the pending mark is written beside the store's directory.
    const dir = path.join(tempDir(), "store");
    mkdirSync(dir);
    expect(foldsOnThread(dir, mainnet.config)).toBe(true);
    const local = parseGenesisConfig(builtInGenesisText(NETWORKS.local.id)!);
    expect(foldsOnThread(dir, local)).toBe(false);
    writeFileSync(path.join(dir, "PG_VERSION"), "17\n");
    expect(foldsOnThread(dir, mainnet.config)).toBe(false);
    // A store a fold on the thread did not finish.
    writeFileSync(genesisPendingPath(dir), "");
    expect(foldsOnThread(dir, mainnet.config)).toBe(true);
  });

  it("folds a store that a first start stopped part way, and marks it done", async () => {
    // The cluster made and migrated, no genesis folded, the pending mark left: a first start killed in its fold.
    const dir = path.join(tempDir(), "store");
    const logger = quietLogger();
    const left = await openSqlClient({url: "embedded", dataDir: dir}, {logger});
    await migrate(left, MIGRATIONS, {logger});
    await left.close();
    writeFileSync(genesisPendingPath(dir), "");
    expect(foldsOnThread(dir, mainnet.config)).toBe(true);
    await foldGenesisOnThread({
      dataDir: dir,
      network: NETWORKS.mainnet,
      avaxAssetId: mainnet.avaxAssetId,
      config: mainnet.config,
      sharedBuffersMb: GENESIS_THREAD_SHARED_BUFFERS_MB,
    });
    expect(existsSync(genesisPendingPath(dir))).toBe(false);
    expect(foldsOnThread(dir, mainnet.config)).toBe(false);
    const sql = await openSqlClient({url: "embedded", dataDir: dir}, {logger});
    try {
      expect(await sql.query("SELECT count(*)::int AS n FROM stakers")).toEqual([{n: 75}]);
    } finally {
      await sql.close();
    }
  }, 120_000);

  it("leaves the store as the process's own fold of a new store does", async () => {
    const onThread = path.join(tempDir(), "store");
    await foldGenesisOnThread({
      dataDir: onThread,
      network: NETWORKS.mainnet,
      avaxAssetId: mainnet.avaxAssetId,
      config: mainnet.config,
      sharedBuffersMb: GENESIS_THREAD_SHARED_BUFFERS_MB,
    });
    const logger = quietLogger();
    const a = await openSqlClient({url: "embedded", dataDir: onThread}, {logger});
    const inProcess = await openSqlClient({url: "embedded", dataDir: path.join(tempDir(), "store")}, {logger});
    try {
      await migrate(inProcess, MIGRATIONS, {logger});
      await checkStoreNetwork(inProcess, NETWORKS.mainnet, {record: true});
      const view = new PrimaryView(defaultPrimaryViewOptions, {
        index: null,
        sql: inProcess,
        network: NETWORKS.mainnet,
        genesis: mainnet.state,
        avaxAssetId: mainnet.avaxAssetId,
        logger,
        metrics: null,
      });
      await view.load();
      const [threadRows, processRows] = [await contents(a), await contents(inProcess)];
      expect(threadRows).toEqual(processRows);
      // Mainnet's genesis, not an empty one: its tens of thousands of outputs and its 75 stakers are there.
      expect(Number(threadRows.utxos!.split(" ")[0])).toBeGreaterThan(38_000);
      expect(threadRows.stakers!.split(" ")[0]).toBe("75");
      expect(await a.query<{n: number}>("SELECT count(*)::int AS n FROM view_positions")).not.toEqual([{n: 0}]);
    } finally {
      await a.close();
      await inProcess.close();
    }
  }, 120_000);

  it("fails with the thread's error: a store of another network is refused there", async () => {
    const dir = path.join(tempDir(), "store");
    const other = await openSqlClient({url: "embedded", dataDir: dir}, {logger: quietLogger()});
    await migrate(other, MIGRATIONS, {logger: quietLogger()});
    await checkStoreNetwork(other, NETWORKS.local, {record: true});
    await other.close();
    await expect(
      foldGenesisOnThread({
        dataDir: dir,
        network: NETWORKS.mainnet,
        avaxAssetId: mainnet.avaxAssetId,
        config: mainnet.config,
        sharedBuffersMb: GENESIS_THREAD_SHARED_BUFFERS_MB,
      }),
    ).rejects.toThrow(/^the genesis thread failed: .*network/);
    // Left for the next start to fold on the thread again.
    expect(existsSync(genesisPendingPath(dir))).toBe(true);
  }, 60_000);

  it("is what a new avaext beside mainnet does: it then serves the genesis balances", async () => {
    const dataDir = tempDir();
    const empty = path.join(dataDir, "empty.ndjson");
    mkdirSync(dataDir, {recursive: true});
    writeFileSync(empty, "");
    const child = await startChild(
      [
        `--data-dir=${dataDir}`,
        "--network-id=mainnet",
        `--feed=file:${empty}`,
        "--index-enabled",
        "--index-allow-incomplete",
        "--data-api-enabled",
        "--data-api-rate-limit=0",
      ],
      60_000,
      {seedStore: false},
    );
    try {
      // A mainnet allocation held on the P-chain and not staked at genesis: its unlock schedule is its balance.
      const staked = new Set(mainnet.config.initialStakedFunds.map((x) => Buffer.from(x).toString("hex")));
      const alloc = mainnet.config.allocations.find(
        (x) => !staked.has(Buffer.from(x.avaxAddr).toString("hex")) && x.unlockSchedule.some((u) => u.amount > 0n),
      )!;
      const address = `P-${bech32.encode("avax", bech32.toWords(alloc.avaxAddr))}`;
      const want = alloc.unlockSchedule.reduce((s, u) => s + u.amount, 0n);
      const sum = (l: Array<{amount: string}>): bigint => l.reduce((s, x) => s + BigInt(x.amount), 0n);
      let got: bigint | null = null;
      for (const until = Date.now() + 90_000; Date.now() < until && got === null; ) {
        const res = await fetch(
          `${child.url}/v1/networks/mainnet/blockchains/p-chain/balances?addresses=${address}`,
        ).catch(() => null);
        if (res?.status === 200) {
          const {balances: b} = (await res.json()) as {balances: Record<string, Array<{amount: string}>>};
          got = sum(b.unlockedUnstaked!) + sum(b.lockedStakeable!);
        } else {
          await res?.arrayBuffer();
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      expect(got).toBe(want);
      expect(child.output()).toContain("the genesis folded into the new store on a thread of its own");
    } finally {
      child.proc.kill("SIGTERM");
      await child.exited;
    }
  }, 150_000);
});
