/**
 * X-chain (avm) transactions, blocks and vertices framed for the index with the X-chain codec (codec/avm.ts), which
 * the data API's reader also uses. A transaction's ID is sha256 of its signed bytes (codec version included); inside
 * a block the same bytes follow the block's codec version, so a tx ID there is sha256(0x0000 ‖ tx bytes).
 */
import {sha256} from "../util/sha256.js";
import {raw, versioned} from "./codec/codec.js";
import {vertex, X_TXS, xBlock, xSignedTx, xUnsignedTx} from "./codec/avm.js";
import {DecodeError, Reader} from "./reader.js";

export const AVM_TX_TYPES = Object.values(X_TXS).map((e) => e.name);
/** StandardBlock's type ID: registered after the 5 txs and the 15 fx types. */
export const AVM_STANDARD_BLOCK = 20;

const framedBlock = versioned("avm", xBlock(raw(xSignedTx)));
const signedTx = versioned("avm", xSignedTx);

/** Steps over an unsigned avm tx and its credentials at `r.pos`; returns the tx type name. */
export function avmTxBody(r: Reader): string {
  const typeId = r.u32();
  r.pos -= 4;
  xSignedTx.skip(r);
  return xUnsignedTx.entries[typeId as keyof typeof X_TXS].name;
}

export interface AvmTx {
  type: string;
  id: Uint8Array;
}

/**
 * The IDs of the X-chain txs whose UTXOs a signed avm tx spends: its inputs and its operations' UTXOs (an ImportTx's
 * imported inputs are another chain's). What a vertex's tx depends on inside the DAG.
 */
export function avmSpentTxIds(bytes: Uint8Array): Uint8Array[] {
  const tx = signedTx.read(new Reader(bytes)).unsigned.value;
  const spent = tx.value.base.ins.map((i) => i.txId);
  if (tx.typeId === 2) for (const op of tx.value.ops) for (const u of op.utxoIds) spent.push(u.txId);
  return spent;
}

/** A standalone signed tx (the /ext/index/X/tx container). */
export function decodeAvmTx(bytes: Uint8Array): AvmTx {
  const r = new Reader(bytes);
  if (r.u16() !== 0) throw new DecodeError("unknown avm codec version");
  const type = avmTxBody(r);
  r.end();
  return {type, id: sha256(bytes)};
}

export interface AvmBlock {
  parentId: Uint8Array;
  height: bigint;
  timestamp: number;
  txIds: Uint8Array[];
  /** Each tx's `[start, end)` in the block bytes (its inline bytes, without a codec version). */
  txRanges: Array<[number, number]>;
}

/** A post-Cortina standard block: parent, height, time, merkle root, txs. */
export function decodeAvmBlock(bytes: Uint8Array): AvmBlock {
  const r = new Reader(bytes);
  const b = framedBlock.read(r).value;
  r.end();
  const txRanges = b.txs.map((t): [number, number] => [
    t.byteOffset - bytes.byteOffset,
    t.byteOffset - bytes.byteOffset + t.length,
  ]);
  return {parentId: b.parentId, height: b.height, timestamp: Number(b.time), txIds: b.txs.map(txId), txRanges};
}

/** sha256(0x0000 codec version ‖ inline tx bytes). */
export function txId(inline: Uint8Array): Uint8Array {
  const b = new Uint8Array(2 + inline.length);
  b.set(inline, 2);
  return sha256(b);
}

/** A vertex (v0 with txs, or the v1 stop vertex), each tx checked to decode. ID = sha256(bytes). */
export function decodeVertex(bytes: Uint8Array): {
  chainId: Uint8Array;
  height: bigint;
  parentIds: Uint8Array[];
  txIds: Uint8Array[];
  txs: Uint8Array[];
} {
  const r = new Reader(bytes);
  const v = vertex.read(r);
  r.end();
  const txs = v.typeId === 0 ? v.value.txs : [];
  for (const tx of txs) decodeAvmTx(tx);
  return {chainId: v.value.chainId, height: v.value.height, parentIds: v.value.parentIds, txIds: txs.map(sha256), txs};
}
