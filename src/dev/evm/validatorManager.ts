/**
 * The dev L1's validator manager on its EVM (contracts/DevValidatorManager.sol, at the address its
 * ConvertSubnetToL1Tx names): installed with anvil_setCode as the interchain contracts are (src/dev/evm/icm.ts),
 * standing in for a genesis predeploy; owned by anvil's default account 0, which nothing else uses on the L1. The
 * dev schedule's manager calls (src/dev/primaryNetwork.ts `L1ManagerCall`) become its owner's transactions: the
 * contract builds the P-chain message and sends it through the warp stand-in, whose SendWarpMessage log then holds
 * the unsigned message the P-chain transaction carries, signed, a tick later.
 */
import {encodeCallSpec} from "../../evm/abi.js";
import {bytesToHex, toHex} from "../../evm/hex.js";
import {DEV_L1_MANAGER, type L1ManagerCall} from "../primaryNetwork.js";
import {DevValidatorManager} from "./artifacts.js";
import {runtimeCode} from "./icm.js";
import {ANVIL_ACCOUNTS, type RawRpc} from "./traffic.js";

/** The manager's owner: anvil's default account 0 (the C-chain's traffic uses it on C only). */
export const L1_MANAGER_OWNER = ANVIL_ACCOUNTS[0]!.toLowerCase();

const slot = (n: bigint): string => "0x" + n.toString(16).padStart(64, "0");

/** Puts the manager's runtime code at DEV_L1_MANAGER, its owner in slot 0 and the L1's subnet ID in slot 1. */
export async function installValidatorManager(rpc: RawRpc, subnetId: Uint8Array): Promise<void> {
  if (subnetId.length !== 32) throw new Error("installValidatorManager: the subnet ID must be 32 bytes");
  await rpc.rawCall("anvil_setCode", [DEV_L1_MANAGER, await runtimeCode(rpc, DevValidatorManager.bytecode)]);
  await rpc.rawCall("anvil_setStorageAt", [DEV_L1_MANAGER, slot(0n), slot(BigInt(L1_MANAGER_OWNER))]);
  await rpc.rawCall("anvil_setStorageAt", [DEV_L1_MANAGER, slot(1n), toHex(subnetId)]);
}

// uint32 and uint64 words encode as uint256 ones (the signature names the real types, for the selector).
const OWNER_SPEC = {tuple: ["uint256", "address[]"]} as const;
const addresses = (o: {addresses: Uint8Array[]}): string[] => o.addresses.map((a) => "0x" + bytesToHex(a));

/** The calldata of a manager call, to DEV_L1_MANAGER. */
export function managerCalldata(call: L1ManagerCall): string {
  if (call.kind === "weight") {
    const signature = "initiateValidatorWeightUpdate(bytes32,uint64)";
    return encodeCallSpec(signature, ["bytes32", "uint256"], [call.validationId, call.weight]);
  }
  const m = call.message;
  return encodeCallSpec(
    "initiateValidatorRegistration(bytes,bytes,uint64,(uint32,address[]),(uint32,address[]),uint64)",
    ["bytes", "bytes", "uint256", OWNER_SPEC, OWNER_SPEC, "uint256"],
    [
      m.nodeId,
      m.blsPublicKey,
      m.expiry,
      [BigInt(m.remainingBalanceOwner.threshold), addresses(m.remainingBalanceOwner)],
      [BigInt(m.disableOwner.threshold), addresses(m.disableOwner)],
      m.weight,
    ],
  );
}
