/**
 * The metrics rollups (schema 18, views/evm/metricsFold.ts) against the history itself: a real anvil mines blocks
 * across hours, days, a week's and a month's edge (native sends, contract deployments, ERC-20 transfers), the
 * follower folds them, and every chain metric at every grain is compared with what the test computes from the
 * blocks and receipts anvil serves. Then a reorg (evm_snapshot / evm_revert) replaces the last blocks, and the
 * series must equal the new history's, as if the dropped blocks had never been folded. Both stores.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../../src/dataApi/store/client.js";
import {EvmFollower, defaultEvmFollowerOptions} from "../../../../../src/dataApi/views/evm/follower.js";
import {CHAIN_METRICS, dayOnly, metricPoints, metricsSpan, type ChainMetric} from "../../../../../src/dataApi/queries/metrics.js";
import {Anvil} from "../../../../../src/dev/evm/anvil.js";
import {DevToken} from "../../../../../src/dev/evm/artifacts.js";
import {ANVIL_ACCOUNTS, contractAddress} from "../../../../../src/dev/evm/traffic.js";
import {encodeAbi, encodeCall} from "../../../../../src/evm/abi.js";
import {bytesToHex} from "../../../../../src/evm/hex.js";
import {EvmRpc, defaultEvmRpcOptions} from "../../../../../src/evm/rpc.js";
import {GRAINS, bucketSeconds, bucketStart, type Grain} from "../../../../../src/util/timeBuckets.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";
import {mulberry32} from "../../../../../src/util/prng.js";

const CHAIN = 99_972;
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const ZERO = "0x" + "0".repeat(40);
// Saturday 2026-01-31 20:00 UTC: the blocks cross a day, a week (Monday 2026-02-02) and a month.
const GENESIS = Date.UTC(2026, 0, 31, 20) / 1000;

/** What the test reads back of a block from anvil: the facts every metric is computed from. */
interface Facts {
  number: bigint;
  timestamp: number;
  gasUsed: bigint;
  txs: Array<{from: string; to: string | null; gasPrice: bigint; fee: bigint; created: string | null}>;
  transfers: Array<{from: string; to: string}>;
}

async function readHistory(anvil: Anvil, head: number): Promise<Facts[]> {
  const out: Facts[] = [];
  for (let n = 1; n <= head; n++) {
    const q = "0x" + n.toString(16);
    const block = (await anvil.rawCall("eth_getBlockByNumber", [q, true])) as {timestamp: string; gasUsed: string; transactions: Array<{from: string; to: string | null}>};
    const receipts = (await anvil.rawCall("eth_getBlockReceipts", [q])) as Array<{gasUsed: string; effectiveGasPrice: string; contractAddress: string | null; status: string; logs: Array<{topics: string[]}>}>;
    const f: Facts = {number: BigInt(n), timestamp: Number(block.timestamp), gasUsed: BigInt(block.gasUsed), txs: [], transfers: []};
    block.transactions.forEach((t, i) => {
      const r = receipts[i]!;
      f.txs.push({from: t.from.toLowerCase(), to: t.to?.toLowerCase() ?? null, gasPrice: BigInt(r.effectiveGasPrice), fee: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), created: r.status === "0x1" ? (r.contractAddress?.toLowerCase() ?? null) : null});
      for (const l of r.logs) {
        if (l.topics[0] === TRANSFER_TOPIC && l.topics.length === 3) f.transfers.push({from: "0x" + l.topics[1]!.slice(26), to: "0x" + l.topics[2]!.slice(26)});
      }
    });
    out.push(f);
  }
  return out;
}

/** Every metric's points by `grain`, newest first, over the buckets from the first block's to the last block's. */
function expected(history: Facts[], metric: ChainMetric, grain: Grain): Array<{timestamp: number; value: number}> {
  const first = bucketStart(grain, history[0]!.timestamp);
  const last = bucketStart(grain, history[history.length - 1]!.timestamp);
  const starts: number[] = [];
  for (let b = last; b >= first; b = bucketStart(grain, b - 1)) starts.push(b);
  starts.reverse();
  const everSeen = new Set<string>();
  const everDeployers = new Set<string>();
  let cumTxs = 0;
  let cumContracts = 0;
  const points = starts.map((start) => {
    const end = start + bucketSeconds(grain, start);
    const blocks = history.filter((b) => b.timestamp >= start && b.timestamp < end);
    const txs = blocks.flatMap((b) => b.txs);
    const addrs = new Set<string>();
    for (const t of txs) for (const a of [t.from, t.to]) if (a && a !== ZERO) addrs.add(a);
    for (const b of blocks) for (const tr of b.transfers) for (const a of [tr.from, tr.to]) if (a !== ZERO) addrs.add(a);
    const deployers = new Set(txs.filter((t) => t.created).map((t) => t.from));
    const contracts = txs.filter((t) => t.created).length;
    const perSecond = new Map<number, {txs: number; gas: bigint}>();
    for (const b of blocks) {
      const s = perSecond.get(b.timestamp) ?? {txs: 0, gas: 0n};
      s.txs += b.txs.length;
      s.gas += b.gasUsed;
      perSecond.set(b.timestamp, s);
    }
    const gas = blocks.reduce((a, b) => a + b.gasUsed, 0n);
    for (const a of addrs) everSeen.add(a);
    for (const a of deployers) everDeployers.add(a);
    cumTxs += txs.length;
    cumContracts += contracts;
    const seconds = end - start;
    const value: Record<ChainMetric, number> = {
      activeAddresses: addrs.size,
      activeSenders: new Set(txs.map((t) => t.from)).size,
      txCount: txs.length,
      gasUsed: Number(gas),
      feesPaid: Number(txs.reduce((a, t) => a + t.fee, 0n)),
      contracts,
      deployers: deployers.size,
      avgTps: txs.length / seconds,
      avgGps: Number(gas) / seconds,
      maxTps: Math.max(0, ...[...perSecond.values()].map((s) => s.txs)),
      maxGps: Math.max(0, ...[...perSecond.values()].map((s) => Number(s.gas))),
      avgGasPrice: txs.length === 0 ? 0 : Number(txs.reduce((a, t) => a + t.gasPrice, 0n)) / txs.length,
      maxGasPrice: Number(txs.reduce((a, t) => (t.gasPrice > a ? t.gasPrice : a), 0n)),
      cumulativeTxCount: cumTxs,
      cumulativeAddresses: everSeen.size,
      cumulativeContracts: cumContracts,
      cumulativeDeployers: everDeployers.size,
    };
    return {timestamp: start, value: value[metric]};
  });
  return points.reverse();
}

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
      else if (r < 0.45 && token) await send(ANVIL_ACCOUNTS[0]!, {to: token, data: encodeCall("transfer(address,uint256)", ["address", "uint256"], [pool[Math.floor(rand() * pool.length)]!, 5n])});
      else await send(from, {to: pool[Math.floor(rand() * pool.length)]!, value: "0x1"});
    }
    ts += gap;
    await anvil.rawCall("evm_mine", [{timestamp: ts}]);
    head++;
  };
  const compare = async (): Promise<void> => {
    await follower.waitFor(BigInt(head));
    const history = await readHistory(anvil, head);
    const span = await metricsSpan(sql, String(CHAIN));
    expect(span).not.toBeNull();
    for (const metric of CHAIN_METRICS) {
      for (const grain of GRAINS) {
        if (dayOnly(metric) && grain !== "day") continue;
        const got = await metricPoints(sql, String(CHAIN), metric, grain, bucketStart(grain, span!.first), span!.last, 2_160);
        expect(got, `${metric} by ${grain}`).toEqual(expected(history, metric, grain));
      }
    }
  };

  beforeAll(async () => {
    anvil = await Anvil.start({chainId: CHAIN, genesisTimestamp: GENESIS, mining: "manual"}, {logger});
    // The token: its constructor mints to account 0 (a transfer from the zero address, which does not count).
    token = contractAddress(ANVIL_ACCOUNTS[0]!, 0);
    await send(ANVIL_ACCOUNTS[0]!, {data: DevToken.bytecode + bytesToHex(encodeAbi(["string", "string", "uint256"], ["T", "T", 10n ** 24n]))});
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
      for (let i = 0; i < 40; i++) await mine(1 + Math.floor(rand() * 4), [1, 2, 30, 900, 4_000, 20_000][Math.floor(rand() * 6)]!);
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
