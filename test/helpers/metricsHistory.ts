/**
 * The chain metrics computed straight from an anvil history (its blocks and receipts), apart from avaext's
 * rollups: what the metrics tests compare the store's series with. Definitions as docs/api/metrics-service.md.
 */
import type {Anvil} from "../../src/dev/evm/anvil.js";
import {CHAIN_METRICS, type ChainMetric} from "../../src/dataApi/queries/metrics.js";
import {bucketSeconds, bucketStart, type Grain} from "../../src/util/timeBuckets.js";

export {CHAIN_METRICS};
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const ZERO = "0x" + "0".repeat(40);

/** What the test reads back of a block from anvil: the facts every metric is computed from. */
export interface Facts {
  number: bigint;
  timestamp: number;
  gasUsed: bigint;
  txs: Array<{from: string; to: string | null; gasPrice: bigint; fee: bigint; created: string | null}>;
  transfers: Array<{from: string; to: string}>;
}

export async function readHistory(anvil: Anvil, head: number): Promise<Facts[]> {
  const out: Facts[] = [];
  for (let n = 1; n <= head; n++) {
    const q = "0x" + n.toString(16);
    const block = (await anvil.rawCall("eth_getBlockByNumber", [q, true])) as {
      timestamp: string;
      gasUsed: string;
      transactions: Array<{from: string; to: string | null}>;
    };
    const receipts = (await anvil.rawCall("eth_getBlockReceipts", [q])) as Array<{
      gasUsed: string;
      effectiveGasPrice: string;
      contractAddress: string | null;
      status: string;
      logs: Array<{topics: string[]}>;
    }>;
    const f: Facts = {
      number: BigInt(n),
      timestamp: Number(block.timestamp),
      gasUsed: BigInt(block.gasUsed),
      txs: [],
      transfers: [],
    };
    block.transactions.forEach((t, i) => {
      const r = receipts[i]!;
      f.txs.push({
        from: t.from.toLowerCase(),
        to: t.to?.toLowerCase() ?? null,
        gasPrice: BigInt(r.effectiveGasPrice),
        fee: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice),
        created: r.status === "0x1" ? (r.contractAddress?.toLowerCase() ?? null) : null,
      });
      for (const l of r.logs) {
        if (l.topics[0] === TRANSFER_TOPIC && l.topics.length === 3)
          f.transfers.push({from: "0x" + l.topics[1]!.slice(26), to: "0x" + l.topics[2]!.slice(26)});
      }
    });
    out.push(f);
  }
  return out;
}

/** Every metric's points by `grain`, newest first, over the buckets from the first block's to the last block's. */
export function expected(
  history: Facts[],
  metric: ChainMetric,
  grain: Grain,
): Array<{timestamp: number; value: number}> {
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
    for (const t of txs) for (const a of [t.from, t.to ?? t.created]) if (a && a !== ZERO) addrs.add(a);
    for (const b of blocks)
      for (const tr of b.transfers) for (const a of [tr.from, tr.to]) if (a !== ZERO) addrs.add(a);
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
