/**
 * P-chain (platformvm) blocks and the transactions they carry (avalanchego vms/platformvm/block, txs). Type IDs
 * are the codec's registration order: Apricot blocks 0-4, secp fx 5-11, Apricot txs 12-20, stakeable 21-22, Banff
 * txs 23-28, Banff blocks 29-32, Durango 33-34, Etna 35-39, Helicon 40-42 (RegisterHeliconTypes, not scheduled yet).
 * Transactions of later upgrades are not read: a block holding one does not decode and is left out of derived
 * views (it is indexed all the same).
 */
import {baseTx, credentials, input, output, transferableInputs, transferableOutputs} from "./avax.js";
import {txId} from "./avm.js";
import {DecodeError, Reader} from "./reader.js";

const TX_NAMES: Record<number, string> = {
  12: "AddValidatorTx",
  13: "AddSubnetValidatorTx",
  14: "AddDelegatorTx",
  15: "CreateChainTx",
  16: "CreateSubnetTx",
  17: "ImportTx",
  18: "ExportTx",
  19: "AdvanceTimeTx",
  20: "RewardValidatorTx",
  23: "RemoveSubnetValidatorTx",
  24: "TransformSubnetTx",
  25: "AddPermissionlessValidatorTx",
  26: "AddPermissionlessDelegatorTx",
  33: "TransferSubnetOwnershipTx",
  34: "BaseTx",
  35: "ConvertSubnetToL1Tx",
  36: "RegisterL1ValidatorTx",
  37: "SetL1ValidatorWeightTx",
  38: "IncreaseL1ValidatorBalanceTx",
  39: "DisableL1ValidatorTx",
  40: "AddAutoRenewedValidatorTx",
  41: "SetAutoRenewedValidatorConfigTx",
  42: "RewardAutoRenewedValidatorTx",
};

/** warp PChainOwner: threshold ‖ addresses. */
function pChainOwner(r: Reader): void {
  r.u32();
  r.skipList(20);
}

function validator(r: Reader): void {
  r.fixed(20); // node ID
  r.u64(); // start
  r.u64(); // end
  r.u64(); // weight
}

function owner(r: Reader): void {
  output(r, r.u32());
}

function signer(r: Reader): void {
  const t = r.u32();
  if (t === 27) return; // empty
  if (t !== 28) throw new DecodeError(`unknown signer type ${t}`);
  r.fixed(48); // BLS public key
  r.fixed(96); // proof of possession
}

function subnetAuth(r: Reader): void {
  input(r, r.u32());
}

/** Reads one signed tx (`typeID ‖ fields ‖ credentials`); returns its type name. */
export function platformTx(r: Reader): string {
  const t = r.u32();
  switch (t) {
    case 12: // AddValidatorTx
    case 14: // AddDelegatorTx
      baseTx(r, false);
      validator(r);
      transferableOutputs(r, false); // stake
      owner(r); // rewards owner
      if (t === 12) r.u32(); // delegation shares
      break;
    case 13: // AddSubnetValidatorTx
      baseTx(r, false);
      validator(r);
      r.fixed(32); // subnet
      subnetAuth(r);
      break;
    case 15: // CreateChainTx
      baseTx(r, false);
      r.fixed(32); // subnet
      r.str(); // chain name
      r.fixed(32); // VM ID
      r.skipList(32); // fx IDs
      r.bytesU32(); // genesis
      subnetAuth(r);
      break;
    case 16: // CreateSubnetTx
      baseTx(r, false);
      owner(r);
      break;
    case 17: // ImportTx
      baseTx(r, false);
      r.fixed(32);
      transferableInputs(r);
      break;
    case 18: // ExportTx
      baseTx(r, false);
      r.fixed(32);
      transferableOutputs(r, false);
      break;
    case 19: // AdvanceTimeTx
      r.u64();
      break;
    case 20: // RewardValidatorTx
      r.fixed(32);
      break;
    case 23: // RemoveSubnetValidatorTx
      baseTx(r, false);
      r.fixed(20);
      r.fixed(32);
      subnetAuth(r);
      break;
    case 25: // AddPermissionlessValidatorTx
      baseTx(r, false);
      validator(r);
      r.fixed(32); // subnet
      signer(r);
      transferableOutputs(r, false);
      owner(r); // validator rewards
      owner(r); // delegator rewards
      r.u32(); // delegation shares
      break;
    case 26: // AddPermissionlessDelegatorTx
      baseTx(r, false);
      validator(r);
      r.fixed(32);
      transferableOutputs(r, false);
      owner(r);
      break;
    case 33: // TransferSubnetOwnershipTx
      baseTx(r, false);
      r.fixed(32);
      subnetAuth(r);
      owner(r);
      break;
    case 34: // BaseTx
      baseTx(r, false);
      break;
    case 24: // TransformSubnetTx
      baseTx(r, false);
      r.fixed(32 + 32 + 6 * 8 + 3 * 4 + 8 + 1 + 4); // subnet, asset, supplies/rates/stakes, durations, fee, ...
      subnetAuth(r);
      break;
    case 35: // ConvertSubnetToL1Tx
      baseTx(r, false);
      r.fixed(64); // subnet, manager chain
      r.bytesU32(); // manager address
      r.list((r) => {
        r.bytesU32(); // node ID
        r.fixed(16 + 48 + 96); // weight, balance, proof of possession
        pChainOwner(r);
        pChainOwner(r);
      });
      subnetAuth(r);
      break;
    case 36: // RegisterL1ValidatorTx
      baseTx(r, false);
      r.fixed(8 + 96); // balance, proof of possession signature
      r.bytesU32(); // warp message
      break;
    case 37: // SetL1ValidatorWeightTx
      baseTx(r, false);
      r.bytesU32();
      break;
    case 38: // IncreaseL1ValidatorBalanceTx
      baseTx(r, false);
      r.fixed(40);
      break;
    case 39: // DisableL1ValidatorTx
      baseTx(r, false);
      r.fixed(32);
      subnetAuth(r);
      break;
    case 40: // AddAutoRenewedValidatorTx (vms/platformvm/txs/add_auto_renewed_validator_tx.go)
      baseTx(r, false);
      r.bytesU32(); // node ID
      signer(r);
      transferableOutputs(r, false); // stake
      owner(r); // validator rewards
      owner(r); // delegator rewards
      owner(r); // validator authority
      r.fixed(4 + 4 + 8); // delegation shares, auto-compound reward shares, period
      break;
    case 41: // SetAutoRenewedValidatorConfigTx (set_auto_renewed_validator_config_tx.go)
      baseTx(r, false);
      r.fixed(32); // the validator's tx
      subnetAuth(r); // auth
      r.fixed(4 + 8); // auto-compound reward shares, period
      break;
    case 42: // RewardAutoRenewedValidatorTx (reward_auto_renewed_validator_tx.go)
      r.fixed(32 + 8); // the validator's tx, the cycle's end time
      break;
    default:
      throw new DecodeError(`unsupported platformvm tx type ${t}`);
  }
  credentials(r);
  return TX_NAMES[t]!;
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
  const typeId = r.u32();
  const banff = typeId >= 29 && typeId <= 32;
  if (!banff && typeId > 4) throw new DecodeError(`not a platformvm block type: ${typeId}`);
  const timestamp = banff ? Number(r.u64()) : null;
  const txIds: Uint8Array[] = [];
  const txTypes: string[] = [];
  const txRanges: Array<[number, number]> = [];
  const oneTx = (): void => {
    const start = r.pos;
    txTypes.push(platformTx(r));
    txIds.push(txId(bytes.subarray(start, r.pos)));
    txRanges.push([start, r.pos]);
  };
  const txList = (): void => {
    const n = r.u32();
    if (n > r.remaining) throw new DecodeError("tx count exceeds the input");
    for (let i = 0; i < n; i++) oneTx();
  };
  // BanffProposalBlock is `time ‖ decision txs ‖ ApricotProposalBlock{parent, height, tx}`: its (so far always
  // empty) tx list comes before the common block fields; every other Banff block is `time ‖ Apricot fields`.
  if (typeId === 29) txList();
  const parentId = r.fixed(32);
  const height = r.u64();
  switch (typeId) {
    case 0: // ApricotProposalBlock: one tx
    case 4: // ApricotAtomicBlock: one tx
    case 29: // BanffProposalBlock: the proposal tx after its decision txs
      oneTx();
      break;
    case 3: // ApricotStandardBlock
    case 32: // BanffStandardBlock
      txList();
      break;
    default: // abort/commit blocks carry no txs
      break;
  }
  r.end();
  return {typeId, parentId, height, timestamp, txIds, txTypes, txRanges};
}
