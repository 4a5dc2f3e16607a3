/**
 * Primary-network transactions in full: P (platformvm, Apricot to Etna), X (avm, secp256k1/nft/property fx) and C
 * atomic (coreth) signed transactions, read field by field from the linear codec into the decoded model. Type IDs
 * are each codec's registration order (the same tables as @avalabs/avalanchejs 5.2.0's codecs, which the tests use
 * to build every transaction). Read here rather than through avalanchejs's classes: those verify each BLS proof of
 * possession in their constructors (about 38 ms apiece), drop credentials in the convenience unpackers, lack the
 * property fx, and copy at every field; reading in place also gives each output's exact bytes for `utxoBytes`.
 */
import {recoverPublicKey} from "./recover.js";
import {cb58Encode, sha256} from "../../../util/cb58.js";
import {bytesToHex} from "../../../util/hex.js";
import {Reader, Writer} from "../../../decode/reader.js";
import type {BlsCredentials, Credential, EvmTransfer, L1Validator, Owner, PrimaryChain, PrimaryTx, Staker, TxDetails, TxInput, TxOutput} from "./model.js";

/** Anything in a container that does not decode: `reason` names what failed. */
export class PrimaryDecodeError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "PrimaryDecodeError";
  }
}

const ZERO_ID = new Uint8Array(32);
const SIGNATURE_LEN = 65;

function fail(reason: string): never {
  throw new PrimaryDecodeError(reason);
}

/** `NodeID-` + CB58 of a 20-byte short node ID. */
export function nodeIdString(shortId: Uint8Array): string {
  return `NodeID-${cb58Encode(shortId)}`;
}

/** AvalancheGo `ids.ID.Prefix(index)`: sha256(u64be(index) ‖ txID), the UTXO's input ID. */
export function utxoIdOf(txId: Uint8Array, outputIndex: number): Uint8Array {
  return sha256(new Writer().u64(BigInt(outputIndex)).fixed(txId).finish());
}

/**
 * CB58 of the IDs that transactions repeat (assets, chains): nearly every input and output names AVAX, and CB58 of an
 * ID (a checksum and a base-58 conversion) was about a quarter of the decoder's time. Keyed by the ID's first four bytes,
 * checked in full; bounded, so an unusual history cannot grow it.
 */
const REPEATED_IDS = new Map<number, {id: Uint8Array; text: string}>();
const REPEATED_IDS_MAX = 64;

export function repeatedId(id: Uint8Array): string {
  const key = ((id[0]! << 24) | (id[1]! << 16) | (id[2]! << 8) | id[3]!) >>> 0;
  const hit = REPEATED_IDS.get(key);
  if (hit !== undefined && Buffer.compare(hit.id, id) === 0) return hit.text;
  const text = cb58Encode(id);
  if (REPEATED_IDS.size >= REPEATED_IDS_MAX) REPEATED_IDS.clear();
  REPEATED_IDS.set(key, {id: id.slice(), text});
  return text;
}

/** AvalancheGo `ids.ID.Append(index)`: sha256(ID ‖ u32be(index)); a converted subnet's validation IDs. */
export function appendIndex(id: Uint8Array, index: number): Uint8Array {
  return sha256(new Writer().fixed(id).u32(index).finish());
}

/**
 * AvalancheGo message.SubnetToL1ConversionID: sha256 of the codec bytes of SubnetToL1ConversionData (codec v0 ‖
 * subnet ‖ manager chain ‖ u32 len ‖ manager address ‖ u32 count ‖ [u32 len ‖ node ID ‖ BLS key ‖ u64 weight]).
 */
export function subnetToL1ConversionId(
  subnetId: Uint8Array,
  managerChainId: Uint8Array,
  managerAddress: Uint8Array,
  validators: ReadonlyArray<{nodeId: Uint8Array; blsPublicKey: Uint8Array; weight: bigint}>,
): Uint8Array {
  const w = new Writer().u16(0).fixed(subnetId).fixed(managerChainId).bytesU32(managerAddress).u32(validators.length);
  for (const v of validators) w.bytesU32(v.nodeId).fixed(v.blsPublicKey).u64(v.weight);
  return sha256(w.finish());
}

// ---- fx pieces ---------------------------------------------------------------------------------------------

function outputOwners(r: Reader): Owner {
  const locktime = r.u64();
  const threshold = r.u32();
  const addresses = r.list((r) => r.fixed(20));
  return {locktime, threshold, addresses};
}

/** An output as read: what becomes a UTXO's `Out`. */
interface ParsedOutput {
  amount: bigint;
  owner: Owner;
  stakeableLocktime: bigint;
  utxoType: string;
  groupId: number;
  payload: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** A typed output of `chain`'s codec (type ID already read). */
function readOutput(r: Reader, chain: PrimaryChain, typeId: number): ParsedOutput {
  const plain = (amount: bigint, owner: Owner, utxoType: string): ParsedOutput => ({amount, owner, stakeableLocktime: 0n, utxoType, groupId: 0, payload: EMPTY});
  if (typeId === 7) {
    const amount = r.u64();
    return plain(amount, outputOwners(r), "TRANSFER");
  }
  if (chain === "P" && typeId === 22) {
    // stakeable.LockOut: locktime ‖ TransferOutput
    const locktime = r.u64();
    const innerType = r.u32();
    if (innerType !== 7) fail(`stakeable lock out wraps output type ${innerType}`);
    const amount = r.u64();
    return {...plain(amount, outputOwners(r), "STAKEABLE_LOCK"), stakeableLocktime: locktime};
  }
  if (chain === "X") {
    switch (typeId) {
      case 6: // secp256k1fx.MintOutput
        return plain(0n, outputOwners(r), "MINT");
      case 10: {
        // nftfx.MintOutput
        const groupId = r.u32();
        return {...plain(0n, outputOwners(r), "NFT_MINT"), groupId};
      }
      case 11: {
        // nftfx.TransferOutput
        const groupId = r.u32();
        const payload = r.bytesU32();
        return {...plain(0n, outputOwners(r), "NFT_TRANSFER"), groupId, payload};
      }
      case 15: // propertyfx.MintOutput
        return plain(0n, outputOwners(r), "PROPERTY_MINT");
      case 16: // propertyfx.OwnedOutput
        return plain(0n, outputOwners(r), "PROPERTY");
    }
  }
  return fail(`unknown ${chain}-chain output type ${typeId}`);
}

interface ParsedInput {
  amount: bigint;
  sigIndices: number[];
  stakeableLocktime: bigint;
}

function sigIndices(r: Reader): number[] {
  return r.list((r) => r.u32());
}

function readInput(r: Reader, chain: PrimaryChain, typeId: number): ParsedInput {
  if (typeId === 5) {
    const amount = r.u64();
    return {amount, sigIndices: sigIndices(r), stakeableLocktime: 0n};
  }
  if (chain === "P" && typeId === 21) {
    const locktime = r.u64();
    const innerType = r.u32();
    if (innerType !== 5) fail(`stakeable lock in wraps input type ${innerType}`);
    const amount = r.u64();
    return {amount, sigIndices: sigIndices(r), stakeableLocktime: locktime};
  }
  return fail(`unknown ${chain}-chain input type ${typeId}`);
}

/** secp256k1fx.Input (subnet and disable authorisations), typed. */
function authInput(r: Reader): number[] {
  const t = r.u32();
  if (t !== 10) fail(`unknown authorisation type ${t}`);
  return sigIndices(r);
}

/** A P-chain reward/subnet owner: `fx.Owner`, i.e. typed secp256k1fx.OutputOwners (11). */
function typedOwner(r: Reader): Owner {
  const t = r.u32();
  if (t !== 11) fail(`unknown owner type ${t}`);
  return outputOwners(r);
}

/** warp/message PChainOwner: threshold ‖ addresses (no locktime). */
function pChainOwner(r: Reader): Owner {
  const threshold = r.u32();
  const addresses = r.list((r) => r.fixed(20));
  return {locktime: 0n, threshold, addresses};
}

// ---- transaction pieces ------------------------------------------------------------------------------------

interface RawOutput {
  assetId: Uint8Array;
  /** typeID ‖ output, as it goes into the UTXO. */
  raw: Uint8Array;
  out: ParsedOutput;
}

interface RawInput {
  txId: Uint8Array;
  outputIndex: number;
  assetId: Uint8Array;
  in: ParsedInput;
}

function transferableOutputs(r: Reader, chain: PrimaryChain): RawOutput[] {
  return r.list((r) => {
    const assetId = r.fixed(32);
    const start = r.pos;
    const out = readOutput(r, chain, r.u32());
    return {assetId, raw: r.bytes.subarray(start, r.pos), out};
  });
}

function transferableInputs(r: Reader, chain: PrimaryChain): RawInput[] {
  return r.list((r) => {
    const txId = r.fixed(32);
    const outputIndex = r.u32();
    const assetId = r.fixed(32);
    return {txId, outputIndex, assetId, in: readInput(r, chain, r.u32())};
  });
}

interface Body {
  networkId: number;
  blockchainId: Uint8Array;
  outs: RawOutput[];
  ins: RawInput[];
  memo: Uint8Array;
}

function baseBody(r: Reader, chain: PrimaryChain): Body {
  const networkId = r.u32();
  const blockchainId = r.fixed(32);
  const outs = transferableOutputs(r, chain);
  const ins = transferableInputs(r, chain);
  const memo = r.bytesU32();
  return {networkId, blockchainId, outs, ins, memo};
}

function validatorFields(r: Reader): {nodeId: Uint8Array; start: bigint; end: bigint; weight: bigint} {
  return {nodeId: r.fixed(20), start: r.u64(), end: r.u64(), weight: r.u64()};
}

function bls(publicKey: Uint8Array, pop: Uint8Array): BlsCredentials {
  return {publicKey: bytesToHex(publicKey), proofOfPossession: bytesToHex(pop)};
}

/** signer.Signer: Empty (27) or ProofOfPossession (28). Not verified (the chain did that). */
function signer(r: Reader): BlsCredentials | null {
  const t = r.u32();
  if (t === 27) return null;
  if (t !== 28) fail(`unknown signer type ${t}`);
  return bls(r.fixed(48), r.fixed(96));
}

// ---- the decoded transaction -------------------------------------------------------------------------------

/** What a type's reader adds to the base transaction. */
interface Parsed {
  txType: string;
  body: Body | null;
  /** Outputs after the regular ones, numbered from `outs.length` (stake, exported). */
  extraOuts: RawOutput[];
  extraStaked: boolean;
  exportedTo: Uint8Array | null;
  importedIns: RawInput[];
  importedFrom: Uint8Array | null;
  /** X: outputs of initial states / operations (their own asset per output), numbered after the regular ones. */
  opOuts: RawOutput[];
  /** X OperationTx: the UTXOs its operations consume, with the operation's asset and auth, one credential per op. */
  opIns: Array<{utxos: Array<{txId: Uint8Array; outputIndex: number}>; assetId: Uint8Array; sigIndices: number[]}>;
  evmInputs: Array<{address: Uint8Array; amount: bigint; assetId: Uint8Array; nonce: bigint}>;
  evmOutputs: Array<{address: Uint8Array; amount: bigint; assetId: Uint8Array}>;
  details: TxDetails;
  /** Credentials that are no input's (subnet or disable authorisation): how many trail the inputs'. */
  authCredentials: number;
}

function parsed(txType: string, body: Body | null): Parsed {
  return {
    txType,
    body,
    extraOuts: [],
    extraStaked: false,
    exportedTo: null,
    importedIns: [],
    importedFrom: null,
    opOuts: [],
    opIns: [],
    evmInputs: [],
    evmOutputs: [],
    details: {},
    authCredentials: 0,
  };
}

function isZero(id: Uint8Array): boolean {
  return id.every((b) => b === 0);
}

function platformBody(r: Reader, typeId: number): Parsed {
  switch (typeId) {
    case 12: // AddValidatorTx
    case 14: {
      // AddDelegatorTx
      const body = baseBody(r, "P");
      const v = validatorFields(r);
      const stake = transferableOutputs(r, "P");
      const rewardOwner = typedOwner(r);
      const shares = typeId === 12 ? r.u32() : 0;
      const p = parsed(typeId === 12 ? "AddValidatorTx" : "AddDelegatorTx", body);
      p.extraOuts = stake;
      p.extraStaked = true;
      const staker: Staker = {
        kind: typeId === 12 ? "validator" : "delegator",
        nodeId: nodeIdString(v.nodeId),
        subnetId: cb58Encode(ZERO_ID),
        startTime: v.start,
        endTime: v.end,
        weight: v.weight,
        rewardOwner,
        delegationRewardOwner: typeId === 12 ? rewardOwner : null,
        delegationShares: shares,
        bls: null,
      };
      p.details = {staker};
      return p;
    }
    case 13: {
      // AddSubnetValidatorTx
      const body = baseBody(r, "P");
      const v = validatorFields(r);
      const subnetId = r.fixed(32);
      const auth = authInput(r);
      const p = parsed("AddSubnetValidatorTx", body);
      p.authCredentials = 1;
      p.details = {
        staker: {
          kind: "subnetValidator",
          nodeId: nodeIdString(v.nodeId),
          subnetId: cb58Encode(subnetId),
          startTime: null,
          endTime: v.end,
          weight: v.weight,
          rewardOwner: null,
          delegationRewardOwner: null,
          delegationShares: 0,
          bls: null,
        },
        subnetId: cb58Encode(subnetId),
        extra: {startTime: v.start.toString(), subnetAuthSigIndices: auth},
      };
      return p;
    }
    case 15: {
      // CreateChainTx
      const body = baseBody(r, "P");
      const subnetId = r.fixed(32);
      const chainName = r.str();
      const vmId = r.fixed(32);
      const fxIds = r.list((r) => cb58Encode(r.fixed(32)));
      const genesisData = r.bytesU32();
      const auth = authInput(r);
      const p = parsed("CreateChainTx", body);
      p.authCredentials = 1;
      p.details = {subnetId: cb58Encode(subnetId), chain: {chainName, vmId: cb58Encode(vmId), fxIds, genesisData}, extra: {subnetAuthSigIndices: auth}};
      return p;
    }
    case 16: {
      const body = baseBody(r, "P");
      const p = parsed("CreateSubnetTx", body);
      p.details = {subnetOwner: typedOwner(r)};
      return p;
    }
    case 17: {
      const body = baseBody(r, "P");
      const p = parsed("ImportTx", body);
      p.importedFrom = r.fixed(32);
      p.importedIns = transferableInputs(r, "P");
      return p;
    }
    case 18: {
      const body = baseBody(r, "P");
      const p = parsed("ExportTx", body);
      p.exportedTo = r.fixed(32);
      p.extraOuts = transferableOutputs(r, "P");
      return p;
    }
    case 19: {
      const p = parsed("AdvanceTimeTx", null);
      p.details = {extra: {time: r.u64().toString()}};
      return p;
    }
    case 20: {
      const p = parsed("RewardValidatorTx", null);
      p.details = {rewardedTxId: cb58Encode(r.fixed(32))};
      return p;
    }
    case 23: {
      const body = baseBody(r, "P");
      const nodeId = r.fixed(20);
      const subnetId = r.fixed(32);
      const auth = authInput(r);
      const p = parsed("RemoveSubnetValidatorTx", body);
      p.authCredentials = 1;
      p.details = {subnetId: cb58Encode(subnetId), extra: {nodeId: nodeIdString(nodeId), subnetAuthSigIndices: auth}};
      return p;
    }
    case 24: {
      const body = baseBody(r, "P");
      const subnetId = r.fixed(32);
      const extra: Record<string, unknown> = {assetId: cb58Encode(r.fixed(32))};
      for (const k of ["initialSupply", "maximumSupply", "minConsumptionRate", "maxConsumptionRate", "minValidatorStake", "maxValidatorStake"]) extra[k] = r.u64().toString();
      extra.minStakeDuration = r.u32();
      extra.maxStakeDuration = r.u32();
      extra.minDelegationFee = r.u32();
      extra.minDelegatorStake = r.u64().toString();
      extra.maxValidatorWeightFactor = r.u8();
      extra.uptimeRequirement = r.u32();
      extra.subnetAuthSigIndices = authInput(r);
      const p = parsed("TransformSubnetTx", body);
      p.authCredentials = 1;
      p.details = {subnetId: cb58Encode(subnetId), extra};
      return p;
    }
    case 25: {
      const body = baseBody(r, "P");
      const v = validatorFields(r);
      const subnetId = r.fixed(32);
      const blsCreds = signer(r);
      const stake = transferableOutputs(r, "P");
      const rewardOwner = typedOwner(r);
      const delegationRewardOwner = typedOwner(r);
      const shares = r.u32();
      const p = parsed("AddPermissionlessValidatorTx", body);
      p.extraOuts = stake;
      p.extraStaked = true;
      p.details = {
        staker: {
          kind: isZero(subnetId) ? "validator" : "subnetValidator",
          nodeId: nodeIdString(v.nodeId),
          subnetId: cb58Encode(subnetId),
          startTime: null,
          endTime: v.end,
          weight: v.weight,
          rewardOwner,
          delegationRewardOwner,
          delegationShares: shares,
          bls: blsCreds,
        },
        subnetId: cb58Encode(subnetId),
        extra: {startTime: v.start.toString()},
      };
      return p;
    }
    case 26: {
      const body = baseBody(r, "P");
      const v = validatorFields(r);
      const subnetId = r.fixed(32);
      const stake = transferableOutputs(r, "P");
      const rewardOwner = typedOwner(r);
      const p = parsed("AddPermissionlessDelegatorTx", body);
      p.extraOuts = stake;
      p.extraStaked = true;
      p.details = {
        staker: {
          kind: "delegator",
          nodeId: nodeIdString(v.nodeId),
          subnetId: cb58Encode(subnetId),
          startTime: null,
          endTime: v.end,
          weight: v.weight,
          rewardOwner,
          delegationRewardOwner: null,
          delegationShares: 0,
          bls: null,
        },
        subnetId: cb58Encode(subnetId),
        extra: {startTime: v.start.toString()},
      };
      return p;
    }
    case 33: {
      const body = baseBody(r, "P");
      const subnetId = r.fixed(32);
      const auth = authInput(r);
      const owner = typedOwner(r);
      const p = parsed("TransferSubnetOwnershipTx", body);
      p.authCredentials = 1;
      p.details = {subnetId: cb58Encode(subnetId), subnetOwner: owner, extra: {subnetAuthSigIndices: auth}};
      return p;
    }
    case 34:
      return parsed("BaseTx", baseBody(r, "P"));
    case 35: {
      const body = baseBody(r, "P");
      const subnetId = r.fixed(32);
      const chainId = r.fixed(32);
      const managerAddress = r.bytesU32();
      const raw = r.list((r) => ({
        nodeId: r.bytesU32(),
        weight: r.u64(),
        balance: r.u64(),
        blsPublicKey: r.fixed(48),
        pop: r.fixed(96),
        remainingBalanceOwner: pChainOwner(r),
        deactivationOwner: pChainOwner(r),
      }));
      const auth = authInput(r);
      const validators: L1Validator[] = raw.map((v, i) => ({
        validationId: cb58Encode(appendIndex(subnetId, i)),
        nodeId: nodeIdFromBytes(v.nodeId),
        weight: v.weight,
        balance: v.balance,
        bls: bls(v.blsPublicKey, v.pop),
        remainingBalanceOwner: v.remainingBalanceOwner,
        deactivationOwner: v.deactivationOwner,
      }));
      const conversionId = subnetToL1ConversionId(subnetId, chainId, managerAddress, raw);
      const p = parsed("ConvertSubnetToL1Tx", body);
      p.authCredentials = 1;
      p.details = {
        subnetId: cb58Encode(subnetId),
        conversion: {chainId: cb58Encode(chainId), managerAddress, validators, conversionId: cb58Encode(conversionId)},
        extra: {subnetAuthSigIndices: auth},
      };
      return p;
    }
    case 36: {
      const body = baseBody(r, "P");
      const balance = r.u64();
      const pop = r.fixed(96);
      const message = r.bytesU32();
      const p = parsed("RegisterL1ValidatorTx", body);
      const reg = registerL1ValidatorMessage(message);
      p.details = {
        warpMessage: message,
        subnetId: reg.subnetId,
        l1Validator: {
          validationId: reg.validationId,
          nodeId: reg.nodeId,
          weight: reg.weight,
          balance,
          bls: bls(reg.blsPublicKey, pop),
          remainingBalanceOwner: reg.remainingBalanceOwner,
          deactivationOwner: reg.deactivationOwner,
        },
        extra: {expiry: reg.expiry.toString()},
      };
      return p;
    }
    case 37: {
      const body = baseBody(r, "P");
      const message = r.bytesU32();
      const w = l1ValidatorWeightMessage(message);
      const p = parsed("SetL1ValidatorWeightTx", body);
      p.details = {warpMessage: message, l1Validator: {validationId: w.validationId, nonce: w.nonce, weight: w.weight}};
      return p;
    }
    case 38: {
      const body = baseBody(r, "P");
      const validationId = cb58Encode(r.fixed(32));
      const balance = r.u64();
      const p = parsed("IncreaseL1ValidatorBalanceTx", body);
      p.details = {l1Validator: {validationId, balance}};
      return p;
    }
    case 39: {
      const body = baseBody(r, "P");
      const validationId = cb58Encode(r.fixed(32));
      const auth = authInput(r);
      const p = parsed("DisableL1ValidatorTx", body);
      p.authCredentials = 1;
      p.details = {l1Validator: {validationId}, extra: {disableAuthSigIndices: auth}};
      return p;
    }
    // Helicon (vms/platformvm/txs/codec.go RegisterHeliconTypes, not scheduled yet): auto-renewed validators. Read
    // whole, with their UTXOs (the stake as staked outputs); the staking fold does not model their cycles, so they
    // add no staker and pay no reward here.
    case 40: {
      // add_auto_renewed_validator_tx.go
      const body = baseBody(r, "P");
      const nodeId = nodeIdFromBytes(r.bytesU32());
      const blsCreds = signer(r);
      const stake = transferableOutputs(r, "P");
      typedOwner(r); // validation rewards owner
      typedOwner(r); // delegation rewards owner
      const authority = typedOwner(r);
      const shares = r.u32();
      const autoCompound = r.u32();
      const period = r.u64();
      const p = parsed("AddAutoRenewedValidatorTx", body);
      p.extraOuts = stake;
      p.extraStaked = true;
      p.details = {
        subnetId: cb58Encode(ZERO_ID),
        extra: {
          nodeId,
          delegationShares: shares,
          autoCompoundRewardShares: autoCompound,
          period: period.toString(),
          validatorAuthorityThreshold: authority.threshold,
          ...(blsCreds ? {blsCredentials: blsCreds} : {}),
        },
      };
      return p;
    }
    case 41: {
      // set_auto_renewed_validator_config_tx.go
      const body = baseBody(r, "P");
      const stakerTxId = cb58Encode(r.fixed(32));
      const auth = authInput(r);
      const autoCompound = r.u32();
      const period = r.u64();
      const p = parsed("SetAutoRenewedValidatorConfigTx", body);
      p.authCredentials = 1;
      p.details = {extra: {stakerTxId, autoCompoundRewardShares: autoCompound, period: period.toString()}};
      p.details.extra!.authSigIndices = auth;
      return p;
    }
    case 42: {
      // reward_auto_renewed_validator_tx.go
      const p = parsed("RewardAutoRenewedValidatorTx", null);
      p.details = {extra: {stakerTxId: cb58Encode(r.fixed(32)), timestamp: r.u64().toString()}};
      return p;
    }
    default:
      return fail(`unsupported platformvm tx type ${typeId}`);
  }
}

/** An L1 validator's node ID (`ids.NodeID` as bytes: 20 of them for every node ID the chain accepts). */
function nodeIdFromBytes(b: Uint8Array): string {
  if (b.length !== 20) fail(`node ID of ${b.length} bytes`);
  return nodeIdString(b);
}

/**
 * The payload of a signed warp message: Message = UnsignedMessage (codec v0 ‖ network ‖ source chain ‖ payload
 * bytes) ‖ typed signature; the payload is an AddressedCall (codec v0 ‖ type 1 ‖ source address ‖ payload bytes)
 * whose payload is a warp/message (codec v0 ‖ type ‖ fields). Returns that innermost message's bytes and type.
 */
function warpInner(message: Uint8Array): {type: number; bytes: Uint8Array; r: Reader} {
  const m = new Reader(message);
  if (m.u16() !== 0) fail("warp message codec version");
  m.u32(); // network ID
  m.fixed(32); // source chain
  const addressedCall = m.bytesU32();
  const sigType = m.u32();
  if (sigType !== 0) fail(`unknown warp signature type ${sigType}`);
  m.bytesU32(); // signers bit set
  m.fixed(96); // aggregate BLS signature
  m.end();
  const a = new Reader(addressedCall);
  if (a.u16() !== 0) fail("warp payload codec version");
  const payloadType = a.u32();
  if (payloadType !== 1) fail(`warp payload type ${payloadType} is not an AddressedCall`);
  a.bytesU32(); // source address
  const bytes = a.bytesU32();
  a.end();
  const r = new Reader(bytes);
  if (r.u16() !== 0) fail("warp message payload codec version");
  return {type: r.u32(), bytes, r};
}

/** warp/message types: SubnetToL1Conversion 0, RegisterL1Validator 1, L1ValidatorRegistration 2, L1ValidatorWeight 3. */
function registerL1ValidatorMessage(message: Uint8Array): {
  validationId: string;
  subnetId: string;
  nodeId: string;
  blsPublicKey: Uint8Array;
  expiry: bigint;
  remainingBalanceOwner: Owner;
  deactivationOwner: Owner;
  weight: bigint;
} {
  const {type, bytes, r} = warpInner(message);
  if (type !== 1) fail(`warp message type ${type} is not RegisterL1Validator`);
  const subnetId = cb58Encode(r.fixed(32));
  const nodeId = nodeIdFromBytes(r.bytesU32());
  const blsPublicKey = r.fixed(48);
  const expiry = r.u64();
  const remainingBalanceOwner = pChainOwner(r);
  const deactivationOwner = pChainOwner(r);
  const weight = r.u64();
  r.end();
  // The validation ID is the hash of the RegisterL1ValidatorMessage's bytes (AvalancheGo message.RegisterL1Validator.ValidationID).
  return {validationId: cb58Encode(sha256(bytes)), subnetId, nodeId, blsPublicKey, expiry, remainingBalanceOwner, deactivationOwner, weight};
}

function l1ValidatorWeightMessage(message: Uint8Array): {validationId: string; nonce: bigint; weight: bigint} {
  const {type, r} = warpInner(message);
  if (type !== 3) fail(`warp message type ${type} is not L1ValidatorWeight`);
  const validationId = cb58Encode(r.fixed(32));
  const nonce = r.u64();
  const weight = r.u64();
  r.end();
  return {validationId, nonce, weight};
}

/** An avm operation (type ID read here): consumed UTXOs, its asset, auth and the outputs it creates. */
function avmOperation(r: Reader, p: Parsed): void {
  const assetId = r.fixed(32);
  const utxos = r.list((r) => ({txId: r.fixed(32), outputIndex: r.u32()}));
  const t = r.u32();
  const out = (typeId: number): void => {
    // The operation's outputs are UTXOs of the operation's asset; their bytes get the type ID prepended.
    const start = r.pos;
    const o = readOutput(r, "X", typeId);
    p.opOuts.push({assetId, raw: new Writer().u32(typeId).fixed(r.bytes.subarray(start, r.pos)).finish(), out: o});
  };
  let auth: number[];
  switch (t) {
    case 8: // secp256k1fx.MintOperation: input, MintOutput, TransferOutput
      auth = sigIndices(r);
      out(6);
      out(7);
      break;
    case 12: {
      // nftfx.MintOperation: input, group, payload, [OutputOwners]: one nft TransferOutput for each owner set
      auth = sigIndices(r);
      const groupId = r.u32();
      const payload = r.bytesU32();
      const owners = r.list(outputOwners);
      for (const owner of owners) {
        const raw = new Writer().u32(11).u32(groupId).bytesU32(payload).u64(owner.locktime).u32(owner.threshold).u32(owner.addresses.length);
        for (const a of owner.addresses) raw.fixed(a);
        p.opOuts.push({assetId, raw: raw.finish(), out: {amount: 0n, owner, stakeableLocktime: 0n, utxoType: "NFT_TRANSFER", groupId, payload}});
      }
      break;
    }
    case 13: // nftfx.TransferOperation: input, nft TransferOutput
      auth = sigIndices(r);
      out(11);
      break;
    case 17: // propertyfx.MintOperation: input, MintOutput, OwnedOutput
      auth = sigIndices(r);
      out(15);
      out(16);
      break;
    case 18: // propertyfx.BurnOperation
      auth = sigIndices(r);
      break;
    default:
      fail(`unknown avm operation type ${t}`);
  }
  p.opIns.push({utxos, assetId, sigIndices: auth});
}

function avmBody(r: Reader, typeId: number): Parsed {
  switch (typeId) {
    case 0:
      return parsed("BaseTx", baseBody(r, "X"));
    case 1: {
      const body = baseBody(r, "X");
      const name = r.str();
      const symbol = r.str();
      const denomination = r.u8();
      const p = parsed("CreateAssetTx", body);
      const fxIndexes: number[] = [];
      // InitialStates' outputs are UTXOs of the new asset (its ID is the tx ID), filled in once the ID is known.
      r.list((r) => {
        fxIndexes.push(r.u32());
        r.list((r) => {
          const start = r.pos;
          const o = readOutput(r, "X", r.u32());
          p.opOuts.push({assetId: ZERO_ID, raw: r.bytes.subarray(start, r.pos), out: o});
        });
      });
      p.details = {asset: {name, symbol, denomination}, extra: {fxIndexes}};
      return p;
    }
    case 2: {
      const p = parsed("OperationTx", baseBody(r, "X"));
      r.list((r) => avmOperation(r, p));
      return p;
    }
    case 3: {
      const p = parsed("ImportTx", baseBody(r, "X"));
      p.importedFrom = r.fixed(32);
      p.importedIns = transferableInputs(r, "X");
      return p;
    }
    case 4: {
      const p = parsed("ExportTx", baseBody(r, "X"));
      p.exportedTo = r.fixed(32);
      p.extraOuts = transferableOutputs(r, "X");
      return p;
    }
    default:
      return fail(`unknown avm tx type ${typeId}`);
  }
}

function evmBody(r: Reader, typeId: number): Parsed {
  const networkId = r.u32();
  const blockchainId = r.fixed(32);
  const body: Body = {networkId, blockchainId, outs: [], ins: [], memo: EMPTY};
  if (typeId === 0) {
    const p = parsed("ImportTx", body);
    p.importedFrom = r.fixed(32);
    p.importedIns = transferableInputs(r, "C");
    p.evmOutputs = r.list((r) => ({address: r.fixed(20), amount: r.u64(), assetId: r.fixed(32)}));
    return p;
  }
  if (typeId === 1) {
    const p = parsed("ExportTx", body);
    p.exportedTo = r.fixed(32);
    p.evmInputs = r.list((r) => ({address: r.fixed(20), amount: r.u64(), assetId: r.fixed(32), nonce: r.u64()}));
    p.extraOuts = transferableOutputs(r, "C");
    return p;
  }
  return fail(`unknown atomic tx type ${typeId}`);
}

/** Decoding options. */
export interface TxDecodeOptions {
  /**
   * Recover each signature's public key (default true). Recovery is most of a transaction's decode cost (about
   * 2 ms a signature with @noble/curves): a caller that needs no keys may turn it off (`publicKey` is then null).
   */
  recoverPublicKeys?: boolean;
  /**
   * Leave the keys of the credentials that unlock UTXO inputs unrecovered (null), for a caller that knows the
   * spent UTXOs' owners: the key behind a credential is then the owner address's, which an earlier recovery may
   * already have given (the primary view's key cache). The tx's `unsignedHash` lets it recover the rest.
   */
  deferInputKeys?: boolean;
}

/** Reads the credentials: each a list of 65-byte signatures. */
function readCredentials(r: Reader, chain: PrimaryChain): Uint8Array[][] {
  return r.list((r) => {
    const t = r.u32();
    // secp256k1fx.Credential is 9; the X codec also registers nftfx (14) and propertyfx (19) credentials.
    if (t !== 9 && !(chain === "X" && (t === 14 || t === 19))) fail(`unknown credential type ${t}`);
    return r.list((r) => r.fixed(SIGNATURE_LEN));
  });
}

/**
 * Recovers each signature's key over `unsignedHash` (when asked), once per distinct signature; the credentials
 * before `from` are left unrecovered.
 */
function recoverCredentials(signatures: Uint8Array[][], unsignedHash: Uint8Array | null, from = 0): Credential[][] {
  // One key signing several inputs gives the same (deterministic) signature each time: recover it once.
  const recovered = new Map<string, Uint8Array | null>();
  return signatures.map((sigs, index) =>
    sigs.map((signature) => {
      if (unsignedHash === null || index < from) return {signature, publicKey: null};
      const key = Buffer.from(signature.buffer, signature.byteOffset, SIGNATURE_LEN).toString("latin1");
      let publicKey = recovered.get(key);
      if (publicKey === undefined) {
        publicKey = recoverPublicKey(signature, unsignedHash);
        recovered.set(key, publicKey);
      }
      return {signature, publicKey};
    }),
  );
}

function utxoBytes(txId: Uint8Array, index: number, assetId: Uint8Array, raw: Uint8Array): Uint8Array {
  return new Writer().u16(0).fixed(txId).u32(index).fixed(assetId).fixed(raw).finish();
}

/**
 * Decodes one signed transaction of `chain` (`codec version ‖ typeID ‖ unsigned fields ‖ credentials`, nothing
 * after). Throws PrimaryDecodeError on anything else.
 */
export function decodeSignedTx(chain: PrimaryChain, signed: Uint8Array, opts: TxDecodeOptions = {}): PrimaryTx {
  const r = new Reader(signed);
  const version = r.u16();
  if (version !== 0) fail(`${chain} tx codec version ${version}`);
  const typeId = r.u32();
  const p = chain === "P" ? platformBody(r, typeId) : chain === "X" ? avmBody(r, typeId) : evmBody(r, typeId);
  const unsignedEnd = r.pos;
  const signatures = readCredentials(r, chain);
  if (r.remaining !== 0) fail(`${r.remaining} trailing bytes after the ${chain} ${p.txType}`);
  const txIdBytes = sha256(signed);
  // Keys are recovered only once the whole tx has read well (recovery is most of the cost).
  const unsignedHash = sha256(signed.subarray(0, unsignedEnd));
  // The UTXO inputs' credentials come first (base inputs, imported inputs, operations).
  const inputCreds = opts.deferInputKeys ? (p.body?.ins.length ?? 0) + p.importedIns.length + p.opIns.length : 0;
  const creds = recoverCredentials(signatures, (opts.recoverPublicKeys ?? true) ? unsignedHash : null, inputCreds);
  const txId = cb58Encode(txIdBytes);

  const outputs: TxOutput[] = [];
  const addOut = (o: RawOutput, staked: boolean, exportedTo: Uint8Array | null, assetId: Uint8Array): void => {
    const index = outputs.length;
    outputs.push({
      outputIndex: index,
      utxoId: cb58Encode(utxoIdOf(txIdBytes, index)),
      assetId: repeatedId(assetId),
      amount: o.out.amount,
      owner: o.out.owner,
      stakeableLocktime: o.out.stakeableLocktime,
      staked,
      utxoType: staked ? "STAKE" : o.out.utxoType,
      exportedTo: exportedTo ? repeatedId(exportedTo) : null,
      groupId: o.out.groupId,
      payload: o.out.payload,
      utxoBytes: utxoBytes(txIdBytes, index, assetId, o.raw),
    });
  };
  // AvalancheGo numbers the regular outputs 0..n-1 and every further output (stake, exported, initial state,
  // operation) on from n in the order of the bytes.
  for (const o of p.body?.outs ?? []) addOut(o, false, null, o.assetId);
  for (const o of p.extraOuts) addOut(o, p.extraStaked, p.exportedTo, o.assetId);
  // A CreateAssetTx's initial states hold the new asset, whose ID is the tx ID.
  for (const o of p.opOuts) addOut(o, false, null, p.txType === "CreateAssetTx" ? txIdBytes : o.assetId);

  let credIndex = 0;
  const nextCred = (): Credential[] => {
    const c = creds[credIndex++];
    if (c === undefined) fail(`${p.txType} has fewer credentials than inputs`);
    return c;
  };
  const toInput = (i: RawInput, importedFrom: Uint8Array | null): TxInput => ({
    txId: cb58Encode(i.txId),
    outputIndex: i.outputIndex,
    utxoId: cb58Encode(utxoIdOf(i.txId, i.outputIndex)),
    assetId: repeatedId(i.assetId),
    amount: i.in.amount,
    sigIndices: i.in.sigIndices,
    importedFrom: importedFrom ? repeatedId(importedFrom) : null,
    credentials: nextCred(),
  });
  // Credentials follow AvalancheGo's order: the base inputs, then imported inputs (or EVM inputs, or operations).
  const inputs: TxInput[] = (p.body?.ins ?? []).map((i) => toInput(i, null));
  for (const i of p.importedIns) inputs.push(toInput(i, p.importedFrom));
  for (const op of p.opIns) {
    const c = nextCred();
    for (const u of op.utxos) {
      inputs.push({
        txId: cb58Encode(u.txId),
        outputIndex: u.outputIndex,
        utxoId: cb58Encode(utxoIdOf(u.txId, u.outputIndex)),
        assetId: repeatedId(op.assetId),
        amount: 0n,
        sigIndices: op.sigIndices,
        importedFrom: null,
        credentials: c,
      });
    }
  }
  const evmInputs: EvmTransfer[] = p.evmInputs.map((e) => ({address: e.address, assetId: repeatedId(e.assetId), amount: e.amount, nonce: e.nonce, credentials: nextCred()}));
  const evmOutputs: EvmTransfer[] = p.evmOutputs.map((e) => ({address: e.address, assetId: repeatedId(e.assetId), amount: e.amount, nonce: 0n, credentials: []}));
  // The authorisation credentials (subnet auth, disable auth) come last.
  if (credIndex + p.authCredentials !== creds.length) fail(`${p.txType} has ${creds.length} credentials for ${credIndex + p.authCredentials} signers`);
  if (p.authCredentials > 0) {
    const auth = creds.slice(credIndex);
    p.details.extra = {...p.details.extra, authCredentials: auth.map((c) => c.map((s) => ({signature: bytesToHex(s.signature), publicKey: s.publicKey ? bytesToHex(s.publicKey) : null})))};
  }

  return {
    id: txId,
    chain,
    txType: p.txType,
    bytes: signed,
    memo: p.body?.memo ?? EMPTY,
    inputs,
    outputs,
    evmInputs,
    evmOutputs,
    sourceChain: p.importedFrom ? repeatedId(p.importedFrom) : null,
    destinationChain: p.exportedTo ? repeatedId(p.exportedTo) : null,
    details: p.details,
    unsignedHash,
  };
}

/** A tx inline in a block (no codec version of its own): decoded as `0x0000 ‖ inline`. */
export function decodeInlineTx(chain: PrimaryChain, inline: Uint8Array, opts: TxDecodeOptions = {}): PrimaryTx {
  const signed = new Uint8Array(2 + inline.length);
  signed.set(inline, 2);
  return decodeSignedTx(chain, signed, opts);
}
