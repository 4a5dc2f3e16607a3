/**
 * Puts the dev network's interchain contracts on an anvil (docs/api/icm.md): the project's messenger
 * (contracts/IcmMessenger.sol) at TeleporterMessenger v1.0.0's address and the warp stand-in
 * (contracts/WarpStandIn.sol) at the warp precompile's, with anvil_setCode; the stand-in's network ID and
 * blockchain ID with anvil_setStorageAt (what its init() would store). No transaction and no block: it works the
 * same with manual and automatic mining and leaves the chain's block hashes alone.
 */
import {DEFAULT_ICM_MESSENGER} from "../../dataApi/evm/icm.js";
import {hexToBytes, toHex} from "../../evm/hex.js";
import {IcmMessenger, WarpStandIn} from "./artifacts.js";
import type {RawRpc} from "./traffic.js";

/** The warp precompile's address. */
export const WARP_PRECOMPILE = "0x0200000000000000000000000000000000000005";

/** The runtime code a creation bytecode returns, by eth_call (nothing is deployed). */
export async function runtimeCode(rpc: RawRpc, creationBytecode: string): Promise<string> {
  const code = await rpc.rawCall("eth_call", [{data: creationBytecode}, "latest"]);
  if (typeof code !== "string" || !/^0x(?:[0-9a-f]{2})+$/i.test(code))
    throw new Error(`eth_call of a creation bytecode returned ${String(code).slice(0, 40)}`);
  return code;
}

const slot = (n: bigint): string => "0x" + n.toString(16).padStart(64, "0");

/**
 * Installs the messenger (at `messenger`, default v1.0.0's address) and the warp stand-in, the stand-in knowing
 * the network ID and this chain's blockchain ID (32 bytes, hex with or without 0x). Storage layout of WarpStandIn:
 * slot 0 networkID (uint32), slot 1 the blockchain ID; the messenger needs no storage (it reads the blockchain ID
 * from the stand-in on first use).
 */
export async function installIcm(
  rpc: RawRpc,
  opts: {networkId: number; blockchainId: string; messenger?: string},
): Promise<void> {
  const chain = hexToBytes(opts.blockchainId);
  if (chain.length !== 32 || chain.every((b) => b === 0))
    throw new Error("installIcm: the blockchain ID must be 32 non-zero bytes");
  if (!Number.isInteger(opts.networkId) || opts.networkId < 0 || opts.networkId > 0xffffffff)
    throw new Error("installIcm: the network ID must be a u32");
  const [warpCode, messengerCode] = await Promise.all([
    runtimeCode(rpc, WarpStandIn.bytecode),
    runtimeCode(rpc, IcmMessenger.bytecode),
  ]);
  await rpc.rawCall("anvil_setCode", [WARP_PRECOMPILE, warpCode]);
  await rpc.rawCall("anvil_setCode", [opts.messenger ?? DEFAULT_ICM_MESSENGER, messengerCode]);
  await rpc.rawCall("anvil_setStorageAt", [WARP_PRECOMPILE, slot(0n), slot(BigInt(opts.networkId))]);
  await rpc.rawCall("anvil_setStorageAt", [WARP_PRECOMPILE, slot(1n), toHex(chain)]);
}
