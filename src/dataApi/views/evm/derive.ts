/**
 * From one EVM block as JSON-RPC gives it (the block with its transactions, its receipts, its call traces) to the
 * rows of the EVM view (docs/api/evm.md): transactions with their receipt's status, gas and effective price;
 * ERC-20/721/1155 transfers by topic count; internal transactions (the frames below each call tree's root that
 * the hosted API lists); deployed contracts; and which address took part in what. Everything the RPC sends is
 * checked: a field of the wrong shape throws BlockShapeError (the follower retries, then reports the chain).
 */
import {decodeAbi} from "../../../evm/abi.js";
import {hexToBytes, quantity} from "../../../evm/hex.js";
import {decodeIcmLog} from "../../evm/icm.js";
import type {IcmEventRow} from "./icmFold.js";
import type {LogRow} from "./webhookOutbox.js";

export type {LogRow};

export class BlockShapeError extends Error {}

/** Topics (keccak of the event signatures). */
export const TOPIC_TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
export const TOPIC_TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62";
export const TOPIC_TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb";

/** Address-kind bits of evm_address_txs.kinds. */
export const KIND = {native: 1, erc20: 2, erc721: 4, erc1155: 8, internal: 16} as const;

export interface BlockRow {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
  timestamp: bigint;
  txCount: number;
  baseFee: bigint;
  gasUsed: bigint;
  gasLimit: bigint;
  feesSpent: bigint;
}

export interface TxRow {
  txIndex: number;
  hash: Uint8Array;
  from: Uint8Array;
  to: Uint8Array | null;
  created: Uint8Array | null;
  value: bigint;
  nonce: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  gasPrice: bigint;
  maxFee: bigint | null;
  maxPriorityFee: bigint | null;
  txType: number;
  status: number;
  input: Uint8Array;
}

export interface TransferRow {
  txIndex: number;
  logIndex: number;
  item: number;
  erc: 20 | 721 | 1155;
  token: Uint8Array;
  from: Uint8Array;
  to: Uint8Array;
  tokenId: bigint | null;
  value: bigint;
}

export interface InternalRow {
  txIndex: number;
  idx: number;
  callType: string;
  from: Uint8Array;
  to: Uint8Array | null;
  value: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  reverted: boolean;
}

export interface ContractRow {
  address: Uint8Array;
  txIndex: number;
  deployer: Uint8Array;
  deployerContract: Uint8Array | null;
}

export interface DerivedBlock {
  block: BlockRow;
  txs: TxRow[];
  transfers: TransferRow[];
  /** Null when the chain serves no traces. */
  internals: InternalRow[] | null;
  contracts: ContractRow[];
  /** (address hex, txIndex) → kinds bit set. */
  addressKinds: Map<string, number>;
  /** TeleporterMessenger events of the followed messenger addresses. */
  icm: IcmEventRow[];
  /** Unsigned warp messages the block's transactions sent (the warp precompile's SendWarpMessage logs). */
  warp: Uint8Array[];
  /** The receipts' logs (not stored as rows: the webhook outbox copies those of the transactions it delivers). */
  logs?: LogRow[];
}

type Json = Record<string, unknown>;

const obj = (v: unknown, what: string): Json => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new BlockShapeError(`${what} is not an object`);
  return v as Json;
};
const arr = (v: unknown, what: string): unknown[] => {
  if (!Array.isArray(v)) throw new BlockShapeError(`${what} is not an array`);
  return v;
};
const qty = (v: unknown, what: string): bigint => {
  try {
    return quantity(v);
  } catch {
    throw new BlockShapeError(`${what}: not a quantity: ${JSON.stringify(v)?.slice(0, 80)}`);
  }
};
const bytes = (v: unknown, what: string, len?: number): Uint8Array => {
  if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw new BlockShapeError(`${what}: not hex data`);
  const b = hexToBytes(v);
  if (len !== undefined && b.length !== len) throw new BlockShapeError(`${what}: ${b.length} bytes, expected ${len}`);
  return b;
};
const address = (v: unknown, what: string): Uint8Array => bytes(v, what, 20);
const optAddress = (v: unknown, what: string): Uint8Array | null =>
  v === null || v === undefined ? null : address(v, what);

const hexKey = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/**
 * Derives the rows of one block. `traces` is debug_traceBlockByNumber's answer, or null without debug APIs;
 * `messengers` the ICM messenger addresses whose logs are interchain messages (lowercase 0x).
 */
export function deriveBlock(
  blockJson: unknown,
  receiptsJson: unknown,
  tracesJson: unknown | null,
  messengers: ReadonlySet<string> = NO_MESSENGERS,
): DerivedBlock {
  const b = obj(blockJson, "block");
  const number = qty(b.number, "block.number");
  const txsJson = arr(b.transactions, "block.transactions");
  const receipts = arr(receiptsJson, "receipts");
  if (receipts.length !== txsJson.length)
    throw new BlockShapeError(`block ${number}: ${txsJson.length} transactions, ${receipts.length} receipts`);
  const kinds = new Map<string, number>();
  const touch = (a: Uint8Array | null, txIndex: number, kind: number): void => {
    if (!a) return;
    const k = `${hexKey(a)}:${txIndex}`;
    kinds.set(k, (kinds.get(k) ?? 0) | kind);
  };

  const txs: TxRow[] = [];
  const icm: IcmEventRow[] = [];
  const warp: Uint8Array[] = [];
  const transfers: TransferRow[] = [];
  const contracts: ContractRow[] = [];
  const logs: LogRow[] = [];
  let feesSpent = 0n;
  txsJson.forEach((tj, i) => {
    const t = obj(tj, `block ${number} transaction ${i}`);
    const r = obj(receipts[i], `block ${number} receipt ${i}`);
    const hash = bytes(t.hash, "tx.hash", 32);
    if (hexKey(bytes(r.transactionHash, "receipt.transactionHash", 32)) !== hexKey(hash))
      throw new BlockShapeError(`block ${number}: receipt ${i} is not transaction ${i}'s`);
    const from = address(t.from, "tx.from");
    const to = optAddress(t.to, "tx.to");
    const status = r.status === undefined ? 1 : Number(qty(r.status, "receipt.status"));
    if (status !== 0 && status !== 1) throw new BlockShapeError(`block ${number}: receipt ${i} has status ${status}`);
    const created = to === null && status === 1 ? optAddress(r.contractAddress, "receipt.contractAddress") : null;
    const gasUsed = qty(r.gasUsed, "receipt.gasUsed");
    const gasPrice =
      r.effectiveGasPrice !== undefined
        ? qty(r.effectiveGasPrice, "receipt.effectiveGasPrice")
        : qty(t.gasPrice, "tx.gasPrice");
    feesSpent += gasUsed * gasPrice;
    txs.push({
      txIndex: i,
      hash,
      from,
      to,
      created,
      value: qty(t.value, "tx.value"),
      nonce: qty(t.nonce, "tx.nonce"),
      gasLimit: qty(t.gas, "tx.gas"),
      gasUsed,
      gasPrice,
      maxFee: t.maxFeePerGas !== undefined ? qty(t.maxFeePerGas, "tx.maxFeePerGas") : null,
      maxPriorityFee:
        t.maxPriorityFeePerGas !== undefined ? qty(t.maxPriorityFeePerGas, "tx.maxPriorityFeePerGas") : null,
      txType: t.type === undefined ? 0 : Number(qty(t.type, "tx.type")),
      status,
      input: bytes(t.input ?? "0x", "tx.input"),
    });
    touch(from, i, KIND.native);
    touch(to ?? created, i, KIND.native);
    if (created) contracts.push({address: created, txIndex: i, deployer: from, deployerContract: null});
    for (const lj of arr(r.logs ?? [], "receipt.logs")) {
      const log = obj(lj, "log");
      logs.push({
        txIndex: i,
        logIndex: log.logIndex === undefined ? logs.length : Number(qty(log.logIndex, "log.logIndex")),
        address: address(log.address, "log.address"),
        topics: arr(log.topics ?? [], "log.topics").map((x) => bytes(x, "log.topic", 32)),
        data: bytes(log.data ?? "0x", "log.data"),
      });
      const sent = warpMessageOfLog(log);
      if (sent) warp.push(sent);
      if (messengers.size > 0) {
        const event = decodeIcmLog(log as never, messengers);
        if (event) icm.push({txIndex: i, event});
      }
      for (const tr of transfersOfLog(log, i)) {
        transfers.push(tr);
        const kind = tr.erc === 20 ? KIND.erc20 : tr.erc === 721 ? KIND.erc721 : KIND.erc1155;
        touch(tr.from, i, kind);
        touch(tr.to, i, kind);
      }
    }
  });

  let internals: InternalRow[] | null = null;
  if (tracesJson !== null) {
    const traced = deriveTraces(number, tracesJson, txs);
    internals = traced.internals;
    contracts.push(...traced.contracts);
    for (const [k, bits] of traced.addressKinds) kinds.set(k, (kinds.get(k) ?? 0) | bits);
  }

  return {
    block: {
      number,
      hash: bytes(b.hash, "block.hash", 32),
      parentHash: bytes(b.parentHash, "block.parentHash", 32),
      timestamp: qty(b.timestamp, "block.timestamp"),
      txCount: txs.length,
      baseFee:
        b.baseFeePerGas === undefined || b.baseFeePerGas === null ? 0n : qty(b.baseFeePerGas, "block.baseFeePerGas"),
      gasUsed: qty(b.gasUsed, "block.gasUsed"),
      gasLimit: qty(b.gasLimit, "block.gasLimit"),
      feesSpent,
    },
    txs,
    transfers,
    internals,
    contracts,
    addressKinds: kinds,
    icm,
    warp,
    logs,
  };
}

/** What a block's call traces add: its internal transactions, the contracts contracts deployed, who took part. */
export interface DerivedTraces {
  internals: InternalRow[];
  contracts: ContractRow[];
  /** (address hex, txIndex) → KIND.internal, as in DerivedBlock.addressKinds. */
  addressKinds: Map<string, number>;
}

/** The transaction facts a block's traces are read against (in block order). */
export interface TracedTx {
  hash: Uint8Array;
  from: Uint8Array;
  /** The receipt's status: a failed transaction's frames are all reverted. */
  status: number;
}

/**
 * Derives block `number`'s rows from its call traces (debug_traceBlock*'s answer with `callTracer`), checked against
 * its transactions: the trace lane reads them apart from the block (src/dataApi/views/evm/traceLane.ts).
 */
export function deriveTraces(number: bigint, tracesJson: unknown, txs: readonly TracedTx[]): DerivedTraces {
  const traces = arr(tracesJson, "traces");
  if (traces.length !== txs.length)
    throw new BlockShapeError(`block ${number}: ${txs.length} transactions, ${traces.length} traces`);
  const internals: InternalRow[] = [];
  const contracts: ContractRow[] = [];
  const kinds = new Map<string, number>();
  const touch = (a: Uint8Array | null, txIndex: number): void => {
    if (!a) return;
    const k = `${hexKey(a)}:${txIndex}`;
    kinds.set(k, (kinds.get(k) ?? 0) | KIND.internal);
  };
  traces.forEach((trj, i) => {
    const tr = obj(trj, "trace");
    // debug_traceBlockByNumber answers [{txHash, result}] (geth, coreth, anvil); a bare frame is accepted too.
    // A transaction the node could not trace is {txHash, error} (a tracer timeout): not a frame without calls.
    if (tr.result === undefined && tr.type === undefined && tr.error !== undefined) {
      throw new BlockShapeError(`block ${number}: trace ${i} failed: ${String(tr.error).slice(0, 200)}`);
    }
    const root = obj(tr.result ?? tr, `block ${number} trace ${i}`);
    if (tr.txHash !== undefined && hexKey(bytes(tr.txHash, "trace.txHash", 32)) !== hexKey(txs[i]!.hash)) {
      throw new BlockShapeError(`block ${number}: trace ${i} is not transaction ${i}'s`);
    }
    for (const f of internalFrames(root, i, txs[i]!.status === 0)) {
      internals.push(f);
      touch(f.from, i);
      touch(f.to, i);
      const isCreate = f.callType === "CREATE" || f.callType === "CREATE2";
      if (isCreate && !f.reverted && f.to)
        contracts.push({address: f.to, txIndex: i, deployer: txs[i]!.from, deployerContract: f.from});
    }
  });
  return {internals, contracts, addressKinds: kinds};
}

/** Avalanche's warp precompile and its SendWarpMessage(address indexed, bytes32 indexed, bytes) topic. */
const WARP_PRECOMPILE = "0x0200000000000000000000000000000000000005";
const TOPIC_SEND_WARP = "0x56600c567728a800c0aa927500f831cb451df66a7af570eb4df4dfbf4674887d";

/** The unsigned message of a SendWarpMessage log, or null (another log, or one that does not decode). */
function warpMessageOfLog(log: Json): Uint8Array | null {
  if (typeof log.address !== "string" || log.address.toLowerCase() !== WARP_PRECOMPILE) return null;
  const topics = Array.isArray(log.topics) ? log.topics : [];
  if (topics.length !== 3 || typeof topics[0] !== "string" || topics[0].toLowerCase() !== TOPIC_SEND_WARP) return null;
  try {
    const [unsigned] = decodeAbi(["bytes"], bytes(log.data, "log.data")) as [Uint8Array];
    return unsigned;
  } catch {
    return null;
  }
}

const NO_MESSENGERS: ReadonlySet<string> = new Set();

/** An indexed address topic: 12 zero bytes then the address; anything else is not an address. */
function topicAddress(topic: unknown): Uint8Array | null {
  if (typeof topic !== "string" || !/^0x0{24}[0-9a-fA-F]{40}$/.test(topic)) return null;
  return hexToBytes(topic.slice(26));
}

/** The token transfers a log records (by topic0 and topic count, as docs/api/evm.md says); [] for any other log. */
export function transfersOfLog(log: Json, txIndex: number): TransferRow[] {
  const topics = Array.isArray(log.topics) ? (log.topics as unknown[]) : [];
  const t0 = typeof topics[0] === "string" ? (topics[0] as string).toLowerCase() : "";
  if (t0 !== TOPIC_TRANSFER && t0 !== TOPIC_TRANSFER_SINGLE && t0 !== TOPIC_TRANSFER_BATCH) return [];
  const token = address(log.address, "log.address");
  const logIndex = Number(qty(log.logIndex, "log.logIndex"));
  let data: Uint8Array;
  try {
    data = bytes(log.data ?? "0x", "log.data");
  } catch {
    return [];
  }
  const base = {txIndex, logIndex, token};
  if (t0 === TOPIC_TRANSFER) {
    const from = topicAddress(topics[1]);
    const to = topicAddress(topics[2]);
    if (!from || !to) return [];
    if (topics.length === 3 && data.length === 32) {
      return [{...base, item: 0, erc: 20, from, to, tokenId: null, value: BigInt("0x" + hexKey(data))}];
    }
    if (
      topics.length === 4 &&
      data.length === 0 &&
      typeof topics[3] === "string" &&
      /^0x[0-9a-fA-F]{64}$/.test(topics[3])
    ) {
      return [{...base, item: 0, erc: 721, from, to, tokenId: BigInt(topics[3]), value: 1n}];
    }
    return [];
  }
  if (topics.length !== 4) return [];
  const from = topicAddress(topics[2]);
  const to = topicAddress(topics[3]);
  if (!from || !to) return [];
  try {
    if (t0 === TOPIC_TRANSFER_SINGLE) {
      if (data.length !== 64) return [];
      const [id, value] = decodeAbi(["uint256", "uint256"], data) as [bigint, bigint];
      return [{...base, item: 0, erc: 1155, from, to, tokenId: id, value}];
    }
    const [ids, values] = decodeAbi(["uint256[]", "uint256[]"], data) as [bigint[], bigint[]];
    if (ids.length !== values.length) return [];
    return ids.map((id, k) => ({...base, item: k, erc: 1155 as const, from, to, tokenId: id, value: values[k]!}));
  } catch {
    return [];
  }
}

const LISTED_CALLS = new Set(["CALL", "CALLCODE"]);
const CREATES = new Set(["CREATE", "CREATE2", "CREATE3"]);

/**
 * The frames below the root that the hosted API lists (CALL/CALLCODE with value > 0, CREATE/CREATE2), depth
 * first. A frame is reverted when it or an enclosing frame failed (its value never moved), or the whole
 * transaction failed.
 */
export function internalFrames(root: Json, txIndex: number, txFailed: boolean): InternalRow[] {
  const out: InternalRow[] = [];
  let idx = 0;
  const walk = (frame: Json, revertedAbove: boolean, depth: number): void => {
    if (depth > 1100) throw new BlockShapeError("call trace deeper than the EVM allows");
    const reverted = revertedAbove || (frame.error !== undefined && frame.error !== null);
    if (depth > 0) {
      const type = typeof frame.type === "string" ? frame.type.toUpperCase() : "";
      const value = frame.value === undefined || frame.value === null ? 0n : qty(frame.value, "frame.value");
      if ((LISTED_CALLS.has(type) && value > 0n) || CREATES.has(type)) {
        out.push({
          txIndex,
          idx: idx,
          callType: type,
          from: address(frame.from, "frame.from"),
          to: optAddress(frame.to, "frame.to"),
          value,
          gasLimit: frame.gas === undefined ? 0n : qty(frame.gas, "frame.gas"),
          gasUsed: frame.gasUsed === undefined ? 0n : qty(frame.gasUsed, "frame.gasUsed"),
          reverted,
        });
      }
      idx++;
    }
    for (const c of arr(frame.calls ?? [], "frame.calls")) walk(obj(c, "frame"), reverted, depth + 1);
  };
  walk(root, txFailed, 0);
  return out;
}
