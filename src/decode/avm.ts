/**
 * X-chain (avm) transactions and blocks (avalanchego vms/avm/txs, vms/avm/block). A transaction's ID is
 * sha256 of its signed bytes (codec version included); inside a block the same bytes follow the block's codec
 * version, so a tx ID there is sha256(0x0000 ‖ tx bytes).
 */
import {sha256} from "../util/cb58.js";
import {avmOutput, baseTx, credentials, input, transferableInputs, transferableOutputs} from "./avax.js";
import {DecodeError, Reader} from "./reader.js";

export const AVM_TX_TYPES = ["BaseTx", "CreateAssetTx", "OperationTx", "ImportTx", "ExportTx"] as const;
/** StandardBlock's type ID: registered after the 5 txs and the 15 fx types. */
export const AVM_STANDARD_BLOCK = 20;

/** Reads an operation; returns the IDs of the txs whose UTXOs it spends. */
function operation(r: Reader): Uint8Array[] {
  r.fixed(32); // asset
  const spent = r.list((r) => {
    const txId = r.fixed(32);
    r.u32();
    return txId;
  }); // UTXO IDs
  const t = r.u32();
  switch (t) {
    case 8: // secp256k1fx.MintOperation: input, mint output, transfer output
      input(r, 10);
      avmOutput(r, 6);
      avmOutput(r, 7);
      return spent;
    case 12: // nftfx.MintOperation: input, group, payload, outputs
      input(r, 10);
      r.u32();
      r.bytesU32();
      r.list((r) => avmOutput(r, 6));
      return spent;
    case 13: // nftfx.TransferOperation: input, nft transfer output
      input(r, 10);
      avmOutput(r, 11);
      return spent;
    case 17: // propertyfx.MintOperation: input, mint output, owned output
      input(r, 10);
      avmOutput(r, 15);
      avmOutput(r, 16);
      return spent;
    case 18: // propertyfx.BurnOperation
      input(r, 10);
      return spent;
    default:
      throw new DecodeError(`unknown operation type ${t}`);
  }
}

/** Reads an unsigned avm tx of `typeId` and its credentials; returns the tx type name. */
export function avmTxBody(r: Reader): string {
  const typeId = r.u32();
  switch (typeId) {
    case 0:
      baseTx(r, true);
      break;
    case 1:
      baseTx(r, true);
      r.str(); // name
      r.str(); // symbol
      r.u8(); // denomination
      r.list((r) => {
        r.u32(); // fx index
        r.list((r) => avmOutput(r, r.u32()));
      });
      break;
    case 2:
      baseTx(r, true);
      r.list(operation);
      break;
    case 3:
      baseTx(r, true);
      r.fixed(32); // source chain
      transferableInputs(r);
      break;
    case 4:
      baseTx(r, true);
      r.fixed(32); // destination chain
      transferableOutputs(r, true);
      break;
    default:
      throw new DecodeError(`unknown avm tx type ${typeId}`);
  }
  credentials(r);
  return AVM_TX_TYPES[typeId]!;
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
  const r = new Reader(bytes);
  if (r.u16() !== 0) throw new DecodeError("unknown avm codec version");
  const typeId = r.u32();
  if (typeId > 4) throw new DecodeError(`unknown avm tx type ${typeId}`);
  r.u32(); // network ID
  r.fixed(32); // blockchain ID
  transferableOutputs(r, true);
  const spent = r.list((r) => {
    const txId = r.fixed(32);
    r.u32(); // output index
    r.fixed(32); // asset
    input(r, r.u32());
    return txId;
  });
  r.bytesU32(); // memo
  if (typeId === 2) for (const ids of r.list(operation)) spent.push(...ids);
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
  if (r.u16() !== 0) throw new DecodeError("unknown avm codec version");
  if (r.u32() !== AVM_STANDARD_BLOCK) throw new DecodeError("not an avm standard block");
  const parentId = r.fixed(32);
  const height = r.u64();
  const timestamp = Number(r.u64());
  r.fixed(32); // merkle root
  const txRanges: Array<[number, number]> = [];
  const txIds = r.list((r) => {
    const start = r.pos;
    avmTxBody(r);
    txRanges.push([start, r.pos]);
    return txId(bytes.subarray(start, r.pos));
  });
  r.end();
  return {parentId, height, timestamp, txIds, txRanges};
}

/** sha256(0x0000 codec version ‖ inline tx bytes). */
export function txId(inline: Uint8Array): Uint8Array {
  const b = new Uint8Array(2 + inline.length);
  b.set(inline, 2);
  return sha256(b);
}

/**
 * Vertex: codec v0 is chain ID, height, epoch, parents, txs (each `u32 len ‖ signed tx`); v1 is the one stop vertex
 * of the linearisation (chain ID, height, parents; no epoch, no txs). ID = sha256(bytes).
 */
export function decodeVertex(bytes: Uint8Array): {chainId: Uint8Array; height: bigint; parentIds: Uint8Array[]; txIds: Uint8Array[]; txs: Uint8Array[]} {
  const r = new Reader(bytes);
  const version = r.u16();
  if (version > 1) throw new DecodeError("unknown vertex codec version");
  const chainId = r.fixed(32);
  const height = r.u64();
  if (version === 0) r.u32(); // epoch
  const parentIds = r.list((r) => r.fixed(32));
  const txs =
    version === 0
      ? r.list((r) => {
          const tx = r.bytesU32();
          decodeAvmTx(tx);
          return tx;
        })
      : [];
  r.end();
  return {chainId, height, parentIds, txIds: txs.map(sha256), txs};
}
