/**
 * C-chain (coreth) blocks: RLP `[header, txs, uncles, (version, extData)]`. The header grew over the upgrades
 * (15 geth fields, then extDataHash, baseFee, extDataGasUsed, blockGasCost, blob fields, ...): only the first 15
 * are required, later ones are accepted as they come. Block hash = keccak256(RLP(header)); a tx hash = keccak256 of
 * its encoding (a legacy tx's RLP list, or a typed tx's byte string as is).
 *
 * RLP is @ethereumjs/rlp and keccak256 is @noble/hashes. The decoder refuses every non-canonical encoding (a
 * prefixed single byte, a long form for a short length, a length with leading zeros), so re-encoding a decoded
 * header or transaction gives back exactly the bytes it was decoded from: that is what gets hashed.
 */
import {RLP, type Input, type NestedUint8Array} from "@ethereumjs/rlp";
import {keccak_256} from "@noble/hashes/sha3.js";
import {DecodeError} from "./reader.js";

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
/** keccak256(RLP([])): the uncle hash of a block without uncles. */
const EMPTY_UNCLES_HASH = keccak_256(RLP.encode([]));

type RlpItem = Uint8Array | NestedUint8Array;

export function decodeEvmBlock(bytes: Uint8Array): EvmBlock {
  // An empty input decodes to an empty string in @ethereumjs/rlp rather than failing.
  if (bytes.length === 0) throw new DecodeError("not an EVM block");
  let block: RlpItem;
  try {
    block = RLP.decode(bytes);
  } catch (e) {
    throw new DecodeError(`bad RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(block) || block.length < 3) throw new DecodeError("not an EVM block");
  const header = block[0]!;
  const txs = block[1]!;
  if (!Array.isArray(header) || header.length < MIN_HEADER_FIELDS) throw new DecodeError("not an EVM block header");
  if (!Array.isArray(txs)) throw new DecodeError("EVM block transactions are not a list");
  const parentHash = header[0]!;
  if (Array.isArray(parentHash) || parentHash.length !== 32) throw new DecodeError("bad parent hash");
  return {
    hash: keccak_256(RLP.encode(header)),
    parentHash,
    height: uintOf(header[8]!),
    timestamp: Number(uintOf(header[11]!)),
    txHashes: txs.map((tx) => keccak_256(Array.isArray(tx) ? RLP.encode(tx) : tx)),
    extData: extDataOf(block[4]),
  };
}

/** Big-endian unsigned integer of an RLP string. */
function uintOf(b: RlpItem): bigint {
  if (Array.isArray(b)) throw new DecodeError("expected an RLP integer, got a list");
  return b.length === 0 ? 0n : BigInt("0x" + Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex"));
}

function extDataOf(item: RlpItem | undefined): Uint8Array | null {
  if (item === undefined) return null;
  if (Array.isArray(item)) throw new DecodeError("EVM block extData is a list");
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
  // @ethereumjs/rlp encodes a number or bigint as its minimal big-endian bytes (0 as the empty string).
  const zero32 = new Uint8Array(32);
  const txs: Input[] = [];
  for (let i = 0; i < s.txs; i++) {
    const to = new Uint8Array(20);
    new DataView(to.buffer).setUint32(16, s.seed * 1000 + i);
    // [nonce, gasPrice, gas, to, value, data, v, r, s]
    txs.push([
      s.seed * 1000 + i,
      25_000_000_000n,
      21_000,
      to,
      10n ** 16n,
      new Uint8Array(0),
      86_263,
      BigInt(s.seed) + 1n,
      BigInt(i) + 1n,
    ]);
  }
  const header: Input[] = [
    s.parentHash,
    EMPTY_UNCLES_HASH,
    new Uint8Array(20), // coinbase
    zero32, // state root
    zero32, // tx root
    zero32, // receipt root
    new Uint8Array(256), // bloom
    1, // difficulty
    s.height,
    15_000_000, // gas limit
    21_000 * s.txs, // gas used
    s.timestamp,
    new Uint8Array(0), // extra
    zero32, // mix digest
    new Uint8Array(8), // nonce
    zero32, // ext data hash
    25_000_000_000n, // base fee
  ];
  return RLP.encode([header, txs, [], 0, s.extData ?? new Uint8Array(0)]);
}
