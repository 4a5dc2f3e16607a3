/**
 * Well-formed P-chain containers for fold tests, written with the project's writer (src/decode/reader.ts) in
 * AvalancheGo's codec (vms/platformvm/txs/codec.go): signed txs, Banff standard blocks (src/decode/builders.ts),
 * wrapped in proposervm blocks as the P-chain's index serves them.
 */
import {createHash} from "node:crypto";
import {buildBanffBlock} from "../../src/decode/builders.js";
import {buildProposerBlock, decodeProposerBlock} from "../../src/decode/proposervm.js";
import {Writer} from "../../src/decode/reader.js";
import {cb58Encode, idFromString} from "../../src/util/cb58.js";
import {sha256} from "../../src/util/sha256.js";

export const seeded = (label: string, n = 0): Uint8Array => createHash("sha256").update(`${label}/${n}`).digest();

/** The BaseTx fields of a P tx: network, chain, one output of `amount` to `address`, no inputs, no memo. */
export function pBase(
  w: Writer,
  networkId: number,
  pChainId: string,
  asset: Uint8Array,
  amount: bigint,
  address: Uint8Array,
): Writer {
  w.u32(networkId).fixed(idFromString(pChainId));
  if (amount > 0n) w.u32(1).fixed(asset).u32(7).u64(amount).u64(0n).u32(1).u32(1).fixed(address);
  else w.u32(0);
  return w.u32(0).u32(0); // no inputs, empty memo
}

/** A signed P BaseTx (type 34) with one output and no inputs (so no credentials). */
export function pBaseTx(networkId: number, pChainId: string, asset: Uint8Array, n: number): Uint8Array {
  const to = seeded("addr", n).subarray(0, 20);
  const w = pBase(new Writer().u16(0).u32(34), networkId, pChainId, asset, 1_000_000n + BigInt(n), to);
  return w.u32(0).finish();
}

/** What every P tx builder here is given: the network, the P-chain's ID, the AVAX asset. */
export interface PTxBase {
  networkId: number;
  pChainId: string;
  asset: Uint8Array;
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
export function pPermissionlessValidatorTx(
  s: PTxBase & {subnetId: Uint8Array; start: bigint; end: bigint},
): Uint8Array {
  const addr = seeded("validator-owner").subarray(0, 20);
  const w = pBase(new Writer().u16(0).u32(25), s.networkId, s.pChainId, s.asset, 0n, addr);
  w.fixed(seeded("node").subarray(0, 20)).u64(s.start).u64(s.end).u64(2_000n);
  w.fixed(s.subnetId).u32(27);
  w.u32(1).fixed(s.asset).u32(7).u64(2_000n).u64(0n).u32(1).u32(1).fixed(addr);
  owner(w, addr);
  owner(w, addr);
  return w.u32(20_000).u32(0).finish();
}

/** A credential (secp256k1fx type 9) with no signatures: what an empty subnet authorisation carries. */
function emptyAuth(w: Writer): void {
  w.u32(10).u32(0); // secp256k1fx.Input with no signature indices
}

/** A signed AddSubnetValidatorTx (type 13): a permissioned validator of `subnetId`. */
export function pAddSubnetValidatorTx(
  s: PTxBase & {subnetId: Uint8Array; nodeId: Uint8Array; start: bigint; end: bigint},
): Uint8Array {
  const w = pBase(new Writer().u16(0).u32(13), s.networkId, s.pChainId, s.asset, 0n, new Uint8Array(20));
  w.fixed(s.nodeId).u64(s.start).u64(s.end).u64(10n).fixed(s.subnetId);
  emptyAuth(w);
  return w.u32(1).u32(9).u32(0).finish();
}

/** A signed RemoveSubnetValidatorTx (type 23) of `nodeId` from `subnetId`. */
export function pRemoveSubnetValidatorTx(s: PTxBase & {subnetId: Uint8Array; nodeId: Uint8Array}): Uint8Array {
  const w = pBase(new Writer().u16(0).u32(23), s.networkId, s.pChainId, s.asset, 0n, new Uint8Array(20));
  w.fixed(s.nodeId).fixed(s.subnetId);
  emptyAuth(w);
  return w.u32(1).u32(9).u32(0).finish();
}

/**
 * Helicon's auto-renewed validator txs (vms/platformvm/txs/codec.go RegisterHeliconTypes: types 40-42), field by
 * field as add_auto_renewed_validator_tx.go, set_auto_renewed_validator_config_tx.go and
 * reward_auto_renewed_validator_tx.go declare them.
 */
export function pHeliconTxs(s: PTxBase & {cycleEnd: bigint}): Record<"add" | "config" | "reward", Uint8Array> {
  const addr = seeded("auto-renewed-owner").subarray(0, 20);
  const add = pBase(new Writer().u16(0).u32(40), s.networkId, s.pChainId, s.asset, 5n, addr);
  add.u32(20).fixed(seeded("auto-renewed-node").subarray(0, 20)); // types.JSONByteSlice node ID
  add.u32(28).fixed(seeded("bls-key").subarray(0, 32)).fixed(seeded("bls-key", 1).subarray(0, 16)); // 48-byte key
  for (let i = 0; i < 3; i++) add.fixed(seeded("pop", i)); // 96-byte proof of possession
  add.u32(1).fixed(s.asset).u32(7).u64(2_000_000_000_000n).u64(0n).u32(1).u32(1).fixed(addr); // stake
  owner(add, addr); // validation rewards
  owner(add, addr); // delegation rewards
  owner(add, addr); // validator authority
  add.u32(20_000).u32(300_000).u64(1_209_600n).u32(0); // delegation shares, auto-compound, period; no credentials
  const addBytes = add.finish();
  const stakerTxId = sha256(addBytes);
  const config = pBase(new Writer().u16(0).u32(41), s.networkId, s.pChainId, s.asset, 0n, addr);
  config.fixed(stakerTxId);
  emptyAuth(config);
  config.u32(1_000_000).u64(2_419_200n).u32(1).u32(9).u32(0);
  const reward = new Writer().u16(0).u32(42).fixed(stakerTxId).u64(s.cycleEnd).u32(0);
  return {add: addBytes, config: config.finish(), reward: reward.finish()};
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

/** Proposervm-wrapped Banff blocks of `txs` (standard unless named), one per entry, chained from the chain's start. */
export function pChainBlocks(
  blocks: Array<{time: bigint; txs: Uint8Array[]; kind?: "standard" | "proposal" | "commit"}>,
): PBlock[] {
  let parent: Uint8Array = new Uint8Array(32);
  let innerParent: Uint8Array = new Uint8Array(32);
  return blocks.map((b, i) => {
    const spec = {time: b.time, parentId: innerParent, height: BigInt(i + 1), txs: b.txs};
    const inner = buildBanffBlock(b.kind ?? "standard", spec);
    const bytes = buildProposerBlock(parent, Number(b.time), BigInt(i + 1), inner);
    parent = decodeProposerBlock(bytes).id;
    innerParent = sha256(inner);
    return {bytes, id: cb58Encode(parent), txIds: b.txs.map((t) => cb58Encode(sha256(t))), time: b.time};
  });
}
