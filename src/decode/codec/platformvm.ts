/**
 * The P-chain's codec (vms/platformvm/txs/codec.go, vms/platformvm/block/codec.go): type IDs in registration order,
 * Apricot blocks 0-4, secp256k1fx 5-11 (6 and 8 skipped), Apricot txs 12-20, stakeable 21-22, Banff txs 23-26 and
 * signers 27-28, Banff blocks 29-32, Durango 33-34, Etna 35-39, Helicon 40-42 (RegisterHeliconTypes). Each tx is its Go
 * struct's serialized fields in order; `base` is the embedded BaseTx.
 */
import {
  array,
  bytes,
  type Codec,
  entry,
  fixed,
  spanned,
  str,
  struct,
  u32,
  u64,
  u8,
  union,
  type ValueOf,
} from "./codec.js";
import * as fx from "./fx.js";

const {id, shortId} = fx;

export const pOutput = union("P-chain output type", {
  7: entry("TransferOutput", fx.transferOutput),
  // stakeable.LockOut: locktime ‖ TransferableOut (a TransferOutput: locks do not nest)
  22: entry(
    "LockOut",
    struct({
      locktime: u64,
      out: union("stakeable lock out's output type", {7: entry("TransferOutput", fx.transferOutput)}),
    }),
  ),
});
export const pInput = union("P-chain input type", {
  5: entry("TransferInput", fx.transferInput),
  21: entry(
    "LockIn",
    struct({locktime: u64, in: union("stakeable lock in's input type", {5: entry("TransferInput", fx.transferInput)})}),
  ),
});
/** fx.Owner: reward and subnet owners. */
export const owner = union("owner type", {11: entry("OutputOwners", fx.outputOwners)});
/** verify.Verifiable: subnet and disable authorisations. */
export const auth = union("authorisation type", {10: entry("Input", fx.input)});
export const proofOfPossession = struct({publicKey: fixed(48), signature: fixed(96)});
/** signer.Signer: Empty or ProofOfPossession (vms/platformvm/signer). */
export const signer = union("signer type", {
  27: entry("Empty", struct({})),
  28: entry("ProofOfPossession", proofOfPossession),
});
export const pCredential = union("P-chain credential type", {9: entry("Credential", fx.credential)});

export const pTransferableOutput = fx.transferableOutput(pOutput);
export const pTransferableInput = fx.transferableInput(pInput);
const base = fx.baseTx(pOutput, pInput);
const validator = struct({nodeId: shortId, start: u64, end: u64, weight: u64});
/** warp/message PChainOwner: threshold ‖ addresses (no locktime). */
export const pChainOwner = struct({threshold: u32, addresses: array(shortId)});
const stake = array(pTransferableOutput);

export const P_TXS = {
  12: entry("AddValidatorTx", struct({base, validator, stake, rewardsOwner: owner, delegationShares: u32})),
  13: entry("AddSubnetValidatorTx", struct({base, validator, subnetId: id, subnetAuth: auth})),
  14: entry("AddDelegatorTx", struct({base, validator, stake, rewardsOwner: owner})),
  15: entry(
    "CreateChainTx",
    struct({base, subnetId: id, chainName: str, vmId: id, fxIds: array(id), genesisData: bytes, subnetAuth: auth}),
  ),
  16: entry("CreateSubnetTx", struct({base, owner})),
  17: entry("ImportTx", struct({base, sourceChain: id, importedInputs: array(pTransferableInput)})),
  18: entry("ExportTx", struct({base, destinationChain: id, exportedOutputs: array(pTransferableOutput)})),
  19: entry("AdvanceTimeTx", struct({time: u64})),
  20: entry("RewardValidatorTx", struct({txId: id})),
  23: entry("RemoveSubnetValidatorTx", struct({base, nodeId: shortId, subnetId: id, subnetAuth: auth})),
  24: entry(
    "TransformSubnetTx",
    struct({
      base,
      subnetId: id,
      assetId: id,
      initialSupply: u64,
      maximumSupply: u64,
      minConsumptionRate: u64,
      maxConsumptionRate: u64,
      minValidatorStake: u64,
      maxValidatorStake: u64,
      minStakeDuration: u32,
      maxStakeDuration: u32,
      minDelegationFee: u32,
      minDelegatorStake: u64,
      maxValidatorWeightFactor: u8,
      uptimeRequirement: u32,
      subnetAuth: auth,
    }),
  ),
  25: entry(
    "AddPermissionlessValidatorTx",
    struct({
      base,
      validator,
      subnetId: id,
      signer,
      stake,
      validatorRewardsOwner: owner,
      delegatorRewardsOwner: owner,
      delegationShares: u32,
    }),
  ),
  26: entry(
    "AddPermissionlessDelegatorTx",
    struct({base, validator, subnetId: id, stake, delegationRewardsOwner: owner}),
  ),
  33: entry("TransferSubnetOwnershipTx", struct({base, subnetId: id, subnetAuth: auth, owner})),
  34: entry("BaseTx", struct({base})),
  // convert_subnet_to_l1_tx.go: ConvertSubnetToL1Validator's signer is a ProofOfPossession, not a typed Signer.
  35: entry(
    "ConvertSubnetToL1Tx",
    struct({
      base,
      subnetId: id,
      chainId: id,
      address: bytes,
      validators: array(
        struct({
          nodeId: bytes,
          weight: u64,
          balance: u64,
          signer: proofOfPossession,
          remainingBalanceOwner: pChainOwner,
          deactivationOwner: pChainOwner,
        }),
      ),
      subnetAuth: auth,
    }),
  ),
  36: entry("RegisterL1ValidatorTx", struct({base, balance: u64, proofOfPossession: fixed(96), message: bytes})),
  37: entry("SetL1ValidatorWeightTx", struct({base, message: bytes})),
  38: entry("IncreaseL1ValidatorBalanceTx", struct({base, validationId: id, balance: u64})),
  39: entry("DisableL1ValidatorTx", struct({base, validationId: id, disableAuth: auth})),
  // Helicon: add_auto_renewed_validator_tx.go, set_auto_renewed_validator_config_tx.go, reward_auto_renewed_validator_tx.go
  40: entry(
    "AddAutoRenewedValidatorTx",
    struct({
      base,
      nodeId: bytes,
      signer,
      stake,
      validatorRewardsOwner: owner,
      delegatorRewardsOwner: owner,
      validatorAuthority: owner,
      delegationShares: u32,
      autoCompoundRewardShares: u32,
      period: u64,
    }),
  ),
  41: entry(
    "SetAutoRenewedValidatorConfigTx",
    struct({base, txId: id, auth, autoCompoundRewardShares: u32, period: u64}),
  ),
  42: entry("RewardAutoRenewedValidatorTx", struct({txId: id, timestamp: u64})),
};

export const pUnsignedTx = union("platformvm tx type", P_TXS);
export type PUnsignedTx = ValueOf<typeof pUnsignedTx>;
/** txs.Tx: the unsigned tx (kept with its bytes: the signatures are over them) ‖ credentials. */
export const pSignedTx = struct({unsigned: spanned(pUnsignedTx), credentials: array(pCredential)});
export type PSignedTx = ValueOf<typeof pSignedTx>;

/**
 * platformvm blocks (vms/platformvm/block), carrying txs as `tx`: `pSignedTx` to read them, `raw(pSignedTx)` to
 * frame them. BanffProposalBlock is `time ‖ decision txs ‖ ApricotProposalBlock`, the others `time ‖ Apricot fields`.
 */
export function pBlock<T>(tx: Codec<T>) {
  const proposal = {parentId: id, height: u64, tx};
  const option = {parentId: id, height: u64};
  const standard = {parentId: id, height: u64, txs: array(tx)};
  return union("platformvm block type", {
    0: entry("ApricotProposalBlock", struct(proposal)),
    1: entry("ApricotAbortBlock", struct(option)),
    2: entry("ApricotCommitBlock", struct(option)),
    3: entry("ApricotStandardBlock", struct(standard)),
    4: entry("ApricotAtomicBlock", struct(proposal)),
    29: entry("BanffProposalBlock", struct({time: u64, transactions: array(tx), ...proposal})),
    30: entry("BanffAbortBlock", struct({time: u64, ...option})),
    31: entry("BanffCommitBlock", struct({time: u64, ...option})),
    32: entry("BanffStandardBlock", struct({time: u64, ...standard})),
  });
}

export type PBlock<T> = ValueOf<ReturnType<typeof pBlock<T>>>;

/** A block's facts whatever its type: its txs in the order of the bytes (a Banff proposal's decision txs first). */
export function pBlockFields<T>(b: PBlock<T>): {parentId: Uint8Array; height: bigint; time: bigint | null; txs: T[]} {
  const v = b.value;
  const time = "time" in v ? v.time : null;
  const txs = "txs" in v ? v.txs : "tx" in v ? ("transactions" in v ? [...v.transactions, v.tx] : [v.tx]) : [];
  return {parentId: v.parentId, height: v.height, time, txs};
}
