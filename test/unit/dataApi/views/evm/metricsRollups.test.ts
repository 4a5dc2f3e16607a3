/**
 * The metrics rollups (schema 18, views/evm/metricsFold.ts) against the history itself: a real anvil mines blocks
 * across hours, days, a week's and a month's edge (native sends, contract deployments, ERC-20 transfers), the
 * follower folds them, and every chain metric at every grain is compared with what the test computes from the
 * blocks and receipts anvil serves. Then a reorg (evm_snapshot / evm_revert) replaces the last blocks, and the
 * series must equal the new history's, as if the dropped blocks had never been folded. Each time, the schema's
 * backfill (for a store folded before the rollups) computes the same rows from the stored EVM rows. Both stores.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import {METRICS_BACKFILL_SQL} from "../../../../../src/dataApi/store/metricsRollups.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {EvmFollower, defaultEvmFollowerOptions} from "../../../../../src/dataApi/views/evm/follower.js";
import {CHAIN_METRICS, dayOnly, metricPoints, metricsSpan} from "../../../../../src/dataApi/queries/metrics.js";
import {Anvil} from "../../../../../src/dev/evm/anvil.js";
import {DevToken} from "../../../../../src/dev/evm/artifacts.js";
import {ANVIL_ACCOUNTS, contractAddress} from "../../../../../src/dev/evm/traffic.js";
import {encodeAbi, encodeCall} from "../../../../../src/evm/abi.js";
import {bytesToHex} from "../../../../../src/evm/hex.js";
import {EvmRpc, defaultEvmRpcOptions} from "../../../../../src/evm/rpc.js";
import {GRAINS, bucketStart} from "../../../../../src/util/timeBuckets.js";
import {dataApiTables} from "../../../../../src/dataApi/store/keptTables.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";
import {mulberry32} from "../../../../../src/util/prng.js";
import {expected, readHistory} from "../../../../helpers/metricsHistory.js";

const CHAIN = 99_972;
const ROLLUP_TABLES = ["metrics_hours", "metrics_addr", "metrics_distinct"];
// Saturday 2026-01-31 20:00 UTC: the blocks cross a day, a week (Monday 2026-02-02) and a month.
const GENESIS = Date.UTC(2026, 0, 31, 20) / 1000;

describeBackends("metrics rollups against the history", (backend) => {
  let anvil: Anvil;
  let sql: SqlClient;
  let follower: EvmFollower;
  let head = 0;
  let ts = GENESIS;
  const logger = quietLogger();
  const rand = mulberry32(7);
  const pool = Array.from({length: 12}, (_, i) => "0x" + (0x1000 + i).toString(16).padStart(40, "0"));
  let token = "";
  const nonces = new Map<string, number>();
  const send = async (from: string, tx: Record<string, string>): Promise<void> => {
    const nonce = nonces.get(from) ?? 0;
    nonces.set(from, nonce + 1);
    await anvil.rawCall("eth_sendTransaction", [{from, gas: "0x2dc6c0", nonce: "0x" + nonce.toString(16), ...tx}]);
  };
  /** Mines a block of `n` random transactions `gap` seconds after the last. */
  const mine = async (n: number, gap: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const from = ANVIL_ACCOUNTS[Math.floor(rand() * 4)]!;
      const r = rand();
      if (r < 0.15) await send(from, {data: "0x600a600c600039600a6000f3602a60005260206000f3"});
      else if (r < 0.45 && token)
        await send(ANVIL_ACCOUNTS[0]!, {
          to: token,
          data: encodeCall(
            "transfer(address,uint256)",
            ["address", "uint256"],
            [pool[Math.floor(rand() * pool.length)]!, 5n],
          ),
        });
      else await send(from, {to: pool[Math.floor(rand() * pool.length)]!, value: "0x1"});
    }
    ts += gap;
    await anvil.rawCall("evm_mine", [{timestamp: ts}]);
    head++;
  };
  const compare = async (): Promise<void> => {
    await follower.waitFor(BigInt(head));
    await compareStored();
    // The same rows computed by the schema's backfill from the stored EVM rows (a store folded before schema 18).
    const saved = await Promise.all(ROLLUP_TABLES.map((t) => sql.query(`SELECT * FROM ${t} ORDER BY 1, 2, 3, 4, 5`)));
    await sql.transaction(async (tx) => {
      for (const t of ROLLUP_TABLES) await tx.query(`DELETE FROM ${t}`);
      await tx.exec(METRICS_BACKFILL_SQL);
    });
    expect(await Promise.all(ROLLUP_TABLES.map((t) => sql.query(`SELECT * FROM ${t} ORDER BY 1, 2, 3, 4, 5`)))).toEqual(
      saved,
    );
  };
  const compareStored = async (): Promise<void> => {
    const history = await readHistory(anvil, head);
    const span = await metricsSpan(sql, String(CHAIN));
    expect(span).not.toBeNull();
    for (const metric of CHAIN_METRICS) {
      for (const grain of GRAINS) {
        if (dayOnly(metric) && grain !== "day") continue;
        const got = await metricPoints(
          sql,
          String(CHAIN),
          metric,
          grain,
          bucketStart(grain, span!.first),
          span!.last,
          2_160,
        );
        expect(got, `${metric} by ${grain}`).toEqual(expected(history, metric, grain));
      }
    }
  };

  beforeAll(async () => {
    anvil = await Anvil.start({chainId: CHAIN, genesisTimestamp: GENESIS, mining: "manual"}, {logger});
    // The token: its constructor mints to account 0 (a transfer from the zero address, which does not count).
    token = contractAddress(ANVIL_ACCOUNTS[0]!, 0);
    await send(ANVIL_ACCOUNTS[0]!, {
      data: DevToken.bytecode + bytesToHex(encodeAbi(["string", "string", "uint256"], ["T", "T", 10n ** 24n])),
    });
    ts += 1;
    await anvil.rawCall("evm_mine", [{timestamp: ts}]);
    head++;
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger});
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url: anvil.url}, {logger});
    follower = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: String(CHAIN), blockchainId: null, pollMs: 20, batchBlocks: 4},
      {sql, rpc, logger, tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null})},
    );
    follower.start();
  }, 60_000);
  afterAll(async () => {
    await follower?.close();
    await sql?.close();
    await anvil?.stop();
  });

  describe("as blocks fold", () => {
    it("equals the history at every grain", async () => {
      // Gaps of seconds (several blocks in an hour), of hours and of a day: 20:00 Saturday to Monday and past it.
      for (let i = 0; i < 40; i++)
        await mine(1 + Math.floor(rand() * 4), [1, 2, 30, 900, 4_000, 20_000][Math.floor(rand() * 6)]!);
      await mine(2, 86_400);
      await mine(3, 1);
      await compare();
    }, 120_000);

    it("takes back a reorg's blocks exactly", async () => {
      const snapshot = await anvil.rawCall("evm_snapshot", []);
      const savedTs = ts;
      const savedHead = head;
      const savedNonces = new Map(nonces);
      for (let i = 0; i < 6; i++) await mine(3, 1_800);
      await compare();
      await anvil.rawCall("evm_revert", [snapshot]);
      ts = savedTs;
      head = savedHead;
      nonces.clear();
      for (const [k, v] of savedNonces) nonces.set(k, v);
      // The new branch: other blocks at other times, one block longer, so the follower moves to it.
      for (let i = 0; i < 7; i++) await mine(1, 700);
      await compare();
      const [chain] = await sql.query<{reorgs: bigint}>("SELECT reorgs FROM evm_chains");
      expect(Number(chain!.reorgs)).toBe(1);
    }, 120_000);
  });
});

describe("avaext data-api rebuild", () => {
  it("drops the rollups with the EVM rows, so the fold that refolds the blocks rebuilds them", () => {
    const tables = dataApiTables();
    for (const t of [...ROLLUP_TABLES, "evm_blocks", "evm_txs"]) expect(tables).toContain(t);
  });
});
