/**
 * C-chain (coreth) blocks: RLP `[header, txs, uncles, (version, extData)]`. The header grew over the upgrades
 * (15 geth fields, then extDataHash, baseFee, extDataGasUsed, blockGasCost, blob fields, ...): only the first 15
 * are required, later ones are accepted as they come. Block hash = keccak256(RLP(header)); a tx hash = keccak256 of
 * its encoding (a legacy tx's RLP list, or a typed tx's byte string as is).
 */
import {keccak256} from "./keccak.js";
import {DecodeError} from "./reader.js";
import {isList, rlpDecode, rlpEncode, rlpUint, uintBytes, type RlpEncodable, type RlpItem} from "./rlp.js";

export interface EvmBlock {
  hash: Uint8Array;
  parentHash: Uint8Array;
  height: bigint;
  timestamp: number;
  txHashes: Uint8Array[];
  /** The body's `extData` (atomic transactions), null when the block has no such field. */
  extData: Uint8Array | null;
}

const MIN_HEADER_FIELDS = 15;

export function decodeEvmBlock(bytes: Uint8Array): EvmBlock {
  const block = rlpDecode(bytes);
  if (!isList(block) || block.items.length < 3) throw new DecodeError("not an EVM block");
  const header = block.items[0]!;
  const txs = block.items[1]!;
  if (!isList(header) || header.items.length < MIN_HEADER_FIELDS) throw new DecodeError("not an EVM block header");
  if (!isList(txs)) throw new DecodeError("EVM block transactions are not a list");
  const parentHash = header.items[0]!;
  if (isList(parentHash) || parentHash.length !== 32) throw new DecodeError("bad parent hash");
  return {
    hash: keccak256(header.raw),
    parentHash,
    height: rlpUint(header.items[8]!),
    timestamp: Number(rlpUint(header.items[11]!)),
    txHashes: txs.items.map((tx: RlpItem) => keccak256(isList(tx) ? tx.raw : tx)),
    extData: extDataOf(block.items[4]),
  };
}

function extDataOf(item: RlpItem | undefined): Uint8Array | null {
  if (item === undefined) return null;
  if (isList(item)) throw new DecodeError("EVM block extData is a list");
  return item;
}

export interface EvmBlockSpec {
  parentHash: Uint8Array;
  height: number;
  timestamp: number;
  txs: number;
  /** Seed that makes each block's transactions distinct. */
  seed: number;
  /** The body's extData (atomic transactions); empty when absent. */
  extData?: Uint8Array;
}

/** Builds a coreth block with `txs` legacy transfers (placeholder signatures, well-formed RLP). */
export function buildEvmBlock(s: EvmBlockSpec): Uint8Array {
  const zero32 = new Uint8Array(32);
  const txs: RlpEncodable[] = [];
  for (let i = 0; i < s.txs; i++) {
    const to = new Uint8Array(20);
    new DataView(to.buffer).setUint32(16, s.seed * 1000 + i);
    // [nonce, gasPrice, gas, to, value, data, v, r, s]
    txs.push([uintBytes(s.seed * 1000 + i), uintBytes(25_000_000_000n), uintBytes(21_000), to, uintBytes(10n ** 16n), new Uint8Array(0), uintBytes(86_263), uintBytes(BigInt(s.seed) + 1n), uintBytes(BigInt(i) + 1n)]);
  }
  const header: RlpEncodable[] = [
    s.parentHash,
    keccak256(rlpEncode([])), // uncle hash
    new Uint8Array(20), // coinbase
    zero32, // state root
    zero32, // tx root
    zero32, // receipt root
    new Uint8Array(256), // bloom
    uintBytes(1), // difficulty
    uintBytes(s.height),
    uintBytes(15_000_000), // gas limit
    uintBytes(21_000 * s.txs), // gas used
    uintBytes(s.timestamp),
    new Uint8Array(0), // extra
    zero32, // mix digest
    new Uint8Array(8), // nonce
    zero32, // ext data hash
    uintBytes(25_000_000_000n), // base fee
  ];
  return rlpEncode([header, txs, [], uintBytes(0), s.extData ?? new Uint8Array(0)]);
}
