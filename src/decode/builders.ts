/**
 * Builders of real-format containers for the dev network (the inverse of the decoders, and round-trip tested
 * against them): unsigned proposervm blocks wrapping a coreth block of legacy transfers (C), a Banff standard
 * block of BaseTxs (P), or an avm standard block of BaseTxs (X); standalone avm BaseTxs (X/tx); and pre-Cortina
 * X vertices and the stop vertex (X/vtx).
 * Signatures are well-formed placeholders: nothing here is meant to verify on a real network.
 */
import {createHash} from "node:crypto";
import {AVM_STANDARD_BLOCK} from "./avm.js";
import {buildEvmBlock} from "./coreth.js";
import {buildProposerBlock} from "./proposervm.js";
import {Writer} from "./reader.js";
import {sha256} from "../util/sha256.js";

const AVAX_ASSET = createHash("sha256").update("dev-avax").digest();

function seeded(label: string, n: number): Uint8Array {
  return createHash("sha256").update(`${label}/${n}`).digest();
}

/** A BaseTx body (network, chain, one transfer out, one transfer in, memo) with one secp credential. */
function baseTxBody(w: Writer, typeId: number, networkId: number, chainId: Uint8Array, seed: number): Writer {
  const addr = seeded("addr", seed).subarray(0, 20);
  w.u32(typeId).u32(networkId).fixed(chainId);
  // outputs: [asset, TransferOutput(7): amount, locktime, threshold, [addr]]
  w.u32(1)
    .fixed(AVAX_ASSET)
    .u32(7)
    .u64(1_000_000n + BigInt(seed))
    .u64(0n)
    .u32(1)
    .u32(1)
    .fixed(addr);
  // inputs: [txID, index, asset, TransferInput(5): amount, [sig index 0]]
  w.u32(1)
    .fixed(seeded("utxo", seed))
    .u32(0)
    .fixed(AVAX_ASSET)
    .u32(5)
    .u64(2_000_000n + BigInt(seed))
    .u32(1)
    .u32(0);
  w.bytesU32(new Uint8Array(0)); // memo
  // credentials: [secp256k1fx.Credential(9): [65-byte signature]]
  const sig = new Uint8Array(65);
  sig.set(seeded("sig", seed), 0);
  return w.u32(1).u32(9).u32(1).fixed(sig);
}

export interface BlockSpec {
  networkId: number;
  chainId: Uint8Array;
  /** The previous container's ID on this chain (the proposervm wrapper's parent; zero for the first). */
  parentId: Uint8Array;
  /** The previous inner block's ID (the inner block's parent, as on mainnet); defaults to parentId. */
  innerParentId?: Uint8Array;
  height: number;
  timestamp: number;
  txs: number;
  pChainHeight: bigint;
}

/** X/tx: a signed avm BaseTx (codec v0). */
export function buildXTx(networkId: number, chainId: Uint8Array, seed: number): Uint8Array {
  return baseTxBody(new Writer().u16(0), 0, networkId, chainId, seed).finish();
}

/** P/block: proposervm(Banff standard block of BaseTxs). */
export function buildPBlock(s: BlockSpec): Uint8Array {
  const w = new Writer()
    .u16(0)
    .u32(32)
    .u64(BigInt(s.timestamp))
    .fixed(s.innerParentId ?? s.parentId)
    .u64(BigInt(s.height))
    .u32(s.txs);
  for (let i = 0; i < s.txs; i++) baseTxBody(w, 34, s.networkId, s.chainId, s.height * 100 + i);
  return buildProposerBlock(s.parentId, s.timestamp, s.pChainHeight, w.finish());
}

/** X/block: proposervm(avm standard block of BaseTxs). */
export function buildXBlock(s: BlockSpec): Uint8Array {
  const w = new Writer()
    .u16(0)
    .u32(AVM_STANDARD_BLOCK)
    .fixed(s.innerParentId ?? s.parentId)
    .u64(BigInt(s.height))
    .u64(BigInt(s.timestamp));
  w.fixed(seeded("root", s.height)).u32(s.txs);
  for (let i = 0; i < s.txs; i++) baseTxBody(w, 0, s.networkId, s.chainId, s.height * 100 + i);
  return buildProposerBlock(s.parentId, s.timestamp, s.pChainHeight, w.finish());
}

/** C/block: proposervm(coreth block of legacy transfers); `parentHash` is the previous EVM block's hash. */
export function buildCBlock(s: BlockSpec & {parentHash: Uint8Array; extData?: Uint8Array}): Uint8Array {
  const inner = buildEvmBlock({
    parentHash: s.parentHash,
    height: s.height,
    timestamp: s.timestamp,
    txs: s.txs,
    seed: s.height,
    extData: s.extData,
  });
  return buildProposerBlock(s.parentId, s.timestamp, s.pChainHeight, inner);
}

/** An inner Banff P-chain block of signed txs (codec version included in each): standard, proposal or commit. */
export function buildBanffBlock(
  kind: "standard" | "proposal" | "commit",
  s: {time: bigint; parentId: Uint8Array; height: bigint; txs: Uint8Array[]},
): Uint8Array {
  const inline = (t: Uint8Array): Uint8Array => t.subarray(2);
  switch (kind) {
    case "standard": {
      const w = new Writer().u16(0).u32(32).u64(s.time).fixed(s.parentId).u64(s.height).u32(s.txs.length);
      for (const t of s.txs) w.fixed(inline(t));
      return w.finish();
    }
    case "proposal":
      // Banff proposal blocks list their decision txs (none here) before the parent and height.
      return new Writer()
        .u16(0)
        .u32(29)
        .u64(s.time)
        .u32(0)
        .fixed(s.parentId)
        .u64(s.height)
        .fixed(inline(s.txs[0]!))
        .finish();
    case "commit":
      return new Writer().u16(0).u32(31).u64(s.time).fixed(s.parentId).u64(s.height).finish();
  }
}

/**
 * An inner avm standard block of signed txs (codec version included in each). `root` defaults to a seeded
 * placeholder; the genesis block of a linearised chain has none (zero, as `block.NewStandardBlock` leaves it).
 */
export function buildAvmBlock(s: {
  time: bigint;
  parentId: Uint8Array;
  height: bigint;
  txs: Uint8Array[];
  root?: Uint8Array;
}): Uint8Array {
  const root = s.root ?? seeded("root", Number(s.height));
  const w = new Writer().u16(0).u32(AVM_STANDARD_BLOCK).fixed(s.parentId).u64(s.height).u64(s.time).fixed(root);
  w.u32(s.txs.length);
  for (const t of s.txs) w.fixed(t.subarray(2));
  return w.finish();
}

/** A vertex's limits (`snow/engine/avalanche/vertex/stateless_vertex.go`). */
const MAX_VERTEX_PARENTS = 128;
const MAX_VERTEX_TXS = 128;

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Parent IDs sorted and checked unique, as `vertex.buildVtx` sorts them and `verify` requires. */
function sortedParents(parentIds: readonly Uint8Array[]): Uint8Array[] {
  if (parentIds.length > MAX_VERTEX_PARENTS) {
    throw new Error(`a vertex has at most ${MAX_VERTEX_PARENTS} parents, not ${parentIds.length}`);
  }
  const sorted = [...parentIds].sort(compareBytes);
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]!.length !== 32) throw new Error("a vertex parent ID is 32 bytes");
    if (i > 0 && compareBytes(sorted[i - 1]!, sorted[i]!) === 0) throw new Error("a vertex's parent IDs are unique");
  }
  return sorted;
}

/**
 * A pre-Cortina X-chain vertex, codec v0 (`snow/engine/avalanche/vertex/builder.go` Build): chain ID, height,
 * epoch 0, parent IDs sorted, signed txs sorted by their hash (their IDs), each `u32 len ‖ bytes`. No timestamp:
 * a vertex's time is its acceptance. ID = sha256(bytes).
 */
export function buildVertex(s: {
  chainId: Uint8Array;
  height: bigint;
  parentIds: readonly Uint8Array[];
  txs: readonly Uint8Array[];
}): Uint8Array {
  if (s.txs.length === 0 || s.txs.length > MAX_VERTEX_TXS) {
    throw new Error(`a vertex holds 1 to ${MAX_VERTEX_TXS} txs, not ${s.txs.length}`);
  }
  const txs = s.txs.map((tx) => ({tx, id: sha256(tx)})).sort((a, b) => compareBytes(a.id, b.id));
  for (let i = 1; i < txs.length; i++) {
    if (compareBytes(txs[i - 1]!.id, txs[i]!.id) === 0) throw new Error("a vertex's txs are unique");
  }
  const parents = sortedParents(s.parentIds);
  const w = new Writer().u16(0).fixed(s.chainId).u64(s.height).u32(0).u32(parents.length);
  for (const p of parents) w.fixed(p);
  w.u32(txs.length);
  for (const {tx} of txs) w.bytesU32(tx);
  return w.finish();
}

/**
 * The stop vertex that ends the DAG at Cortina, codec v1 (`vertex.BuildStopVertex`): chain ID, height (one above
 * its highest parent, `snow/engine/avalanche/state/serializer.go` BuildStopVtx), parent IDs sorted; no epoch, no txs.
 */
export function buildStopVertex(s: {
  chainId: Uint8Array;
  height: bigint;
  parentIds: readonly Uint8Array[];
}): Uint8Array {
  const parents = sortedParents(s.parentIds);
  const w = new Writer().u16(1).fixed(s.chainId).u64(s.height).u32(parents.length);
  for (const p of parents) w.fixed(p);
  return w.finish();
}
