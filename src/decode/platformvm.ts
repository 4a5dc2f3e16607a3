/**
 * P-chain (platformvm) blocks framed for the index: parent, height, time, and each tx's bytes, ID and type, stepped
 * over (not built) with the P-chain codec (codec/platformvm.ts), which the data API's reader also uses. Transactions
 * of later upgrades than the codec's table do not decode: a block holding one is left out of derived views (it is
 * indexed all the same).
 */
import {raw} from "./codec/codec.js";
import {pBlock, pBlockFields, pSignedTx, pUnsignedTx} from "./codec/platformvm.js";
import {txId} from "./avm.js";
import {DecodeError, Reader} from "./reader.js";

const framedBlock = pBlock(raw(pSignedTx));

/** Steps over one signed tx (`typeID ‖ fields ‖ credentials`) at `r.pos`; returns its type name. */
export function platformTx(r: Reader): string {
  const start = r.pos;
  const typeId = r.u32();
  r.pos = start;
  pSignedTx.skip(r);
  return pUnsignedTx.entries[typeId as keyof typeof pUnsignedTx.entries].name;
}

export interface PlatformBlock {
  typeId: number;
  parentId: Uint8Array;
  height: bigint;
  /** Banff blocks carry a timestamp; Apricot blocks do not. */
  timestamp: number | null;
  txIds: Uint8Array[];
  txTypes: string[];
  /** Each tx's `[start, end)` in the block bytes (its inline bytes, without a codec version). */
  txRanges: Array<[number, number]>;
}

export function decodePlatformBlock(bytes: Uint8Array): PlatformBlock {
  const r = new Reader(bytes);
  if (r.u16() !== 0) throw new DecodeError("unknown platformvm codec version");
  const b = framedBlock.read(r);
  r.end();
  const {parentId, height, time, txs} = pBlockFields(b);
  const txRanges = txs.map((t): [number, number] => [
    t.byteOffset - bytes.byteOffset,
    t.byteOffset - bytes.byteOffset + t.length,
  ]);
  // The unsigned tx's type ID leads each tx's bytes; the codec checked it is one of its table.
  const txTypes = txs.map(
    (t) =>
      pUnsignedTx.entries[new DataView(t.buffer, t.byteOffset, 4).getUint32(0) as keyof typeof pUnsignedTx.entries]
        .name,
  );
  return {
    typeId: b.typeId,
    parentId,
    height,
    timestamp: time === null ? null : Number(time),
    txIds: txs.map(txId),
    txTypes,
    txRanges,
  };
}
