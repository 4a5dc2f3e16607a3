/**
 * Well-formed P-chain containers for fold tests, written with the project's writer (src/decode/reader.ts) in
 * AvalancheGo's codec (vms/platformvm/txs/codec.go): signed txs, Banff standard blocks (src/decode/builders.ts),
 * wrapped in proposervm blocks as the P-chain's index serves them.
 */
import {createHash} from "node:crypto";
import {buildBanffBlock} from "../../src/decode/builders.js";
import {buildProposerBlock, decodeProposerBlock} from "../../src/decode/proposervm.js";
import {Writer} from "../../src/decode/reader.js";
import {cb58Encode, idFromString, sha256} from "../../src/util/cb58.js";

export const seeded = (label: string, n = 0): Uint8Array => createHash("sha256").update(`${label}/${n}`).digest();

/** The BaseTx fields of a P tx: network, chain, one output of `amount` to `address`, no inputs, no memo. */
export function pBase(w: Writer, networkId: number, pChainId: string, asset: Uint8Array, amount: bigint, address: Uint8Array): Writer {
  w.u32(networkId).fixed(idFromString(pChainId));
  if (amount > 0n) w.u32(1).fixed(asset).u32(7).u64(amount).u64(0n).u32(1).u32(1).fixed(address);
  else w.u32(0);
  return w.u32(0).u32(0); // no inputs, empty memo
}

/** A signed P BaseTx (type 34) with one output and no inputs (so no credentials). */
export function pBaseTx(networkId: number, pChainId: string, asset: Uint8Array, n: number): Uint8Array {
  const w = pBase(new Writer().u16(0).u32(34), networkId, pChainId, asset, 1_000_000n + BigInt(n), seeded("addr", n).subarray(0, 20));
  return w.u32(0).finish();
}

/** OutputOwners (secp256k1fx type 11) of one address. */
function owner(w: Writer, address: Uint8Array): void {
  w.u32(11).u64(0n).u32(1).u32(1).fixed(address);
}

/**
 * A signed AddPermissionlessValidatorTx (type 25) validating `subnetId` with an empty signer and one stake output.
 * A subnet the chain never transformed (no TransformSubnetTx) has no staking rules: AvalancheGo refuses such a tx,
 * and the fold cannot compute its reward (src/dataApi/views/primary/stakers.ts enterCurrent).
 */
export function pPermissionlessValidatorTx(s: {networkId: number; pChainId: string; asset: Uint8Array; subnetId: Uint8Array; start: bigint; end: bigint}): Uint8Array {
  const addr = seeded("validator-owner").subarray(0, 20);
  const w = pBase(new Writer().u16(0).u32(25), s.networkId, s.pChainId, s.asset, 0n, addr);
  w.fixed(seeded("node").subarray(0, 20)).u64(s.start).u64(s.end).u64(2_000n);
  w.fixed(s.subnetId).u32(27);
  w.u32(1).fixed(s.asset).u32(7).u64(2_000n).u64(0n).u32(1).u32(1).fixed(addr);
  owner(w, addr);
  owner(w, addr);
  return w.u32(20_000).u32(0).finish();
}

export interface PBlock {
  /** The proposervm container, as the P-chain index holds it. */
  bytes: Uint8Array;
  /** The container ID (the proposervm block's). */
  id: string;
  /** Its transactions' IDs. */
  txIds: string[];
  time: bigint;
}

/** Proposervm-wrapped Banff standard blocks of `txs`, one per entry, chained from the chain's start. */
export function pChainBlocks(blocks: Array<{time: bigint; txs: Uint8Array[]}>): PBlock[] {
  let parent = new Uint8Array(32);
  let innerParent = new Uint8Array(32);
  return blocks.map((b, i) => {
    const inner = buildBanffBlock("standard", {time: b.time, parentId: innerParent, height: BigInt(i + 1), txs: b.txs});
    const bytes = buildProposerBlock(parent, Number(b.time), BigInt(i + 1), inner);
    parent = decodeProposerBlock(bytes).id;
    innerParent = sha256(inner);
    return {bytes, id: cb58Encode(parent), txIds: b.txs.map((t) => cb58Encode(sha256(t))), time: b.time};
  });
}
