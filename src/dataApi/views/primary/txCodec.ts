/**
 * Primary-network transactions in full: P (platformvm, Apricot to Helicon), X (avm, secp256k1/nft/property fx) and C
 * atomic (coreth) signed transactions, as the decoded model. The bytes are read by the one codec of each format
 * (src/decode/codec/), the same definitions the index frames blocks with; what is here is the model: each type's
 * UTXOs, stakers and details, output numbering, credentials and key recovery. Read here rather than through
 * avalanchejs's classes: those verify each BLS proof of possession in their constructors (about 38 ms apiece), drop
 * credentials in the convenience unpackers, lack the property fx, and copy at every field; reading in place also
 * gives each output's exact bytes for `utxoBytes`.
 */
import {recoverPublicKey} from "./recover.js";
import {cb58Encode} from "../../../util/cb58.js";
import {sha256} from "../../../util/sha256.js";
import {bytesToHex} from "../../../util/hex.js";
import {decode, encode, type Spanned, type ValueOf} from "../../../decode/codec/codec.js";
import {type cInput, type cOutput, cSignedTx, type CSignedTx, type CUnsignedTx} from "../../../decode/codec/atomic.js";
import {
  type operation,
  type X_TXS,
  type xInput,
  xOutput,
  xSignedTx,
  type XSignedTx,
  type XUnsignedTx,
} from "../../../decode/codec/avm.js";
import {
  type P_TXS,
  type pChainOwner,
  type pInput,
  type pOutput,
  pSignedTx,
  type signer,
  type PSignedTx,
  type PUnsignedTx,
} from "../../../decode/codec/platformvm.js";
import {l1Message, subnetToL1ConversionData, warpMessage, warpPayload} from "../../../decode/codec/warp.js";
import {DecodeError, Reader, Writer} from "../../../decode/reader.js";
import type {
  BlsCredentials,
  Credential,
  EvmTransfer,
  L1Validator,
  Owner,
  PrimaryChain,
  PrimaryTx,
  Staker,
  TxDetails,
  TxInput,
  TxOutput,
} from "./model.js";

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

/** AvalancheGo message.SubnetToL1ConversionID: sha256 of the codec bytes of SubnetToL1ConversionData (codec/warp.ts). */
export function subnetToL1ConversionId(
  subnetId: Uint8Array,
  managerChainId: Uint8Array,
  managerAddress: Uint8Array,
  validators: ReadonlyArray<{nodeId: Uint8Array; blsPublicKey: Uint8Array; weight: bigint}>,
): Uint8Array {
  const data = {
    subnetId,
    managerChainId,
    managerAddress,
    validators: validators.map(({nodeId, blsPublicKey, weight}) => ({nodeId, blsPublicKey, weight})),
  };
  return sha256(encode(subnetToL1ConversionData, data));
}

// ---- fx pieces: the codec's values (src/decode/codec/) as the model's ------------------------------------------

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

type AnyOutput = ValueOf<typeof pOutput> | ValueOf<typeof xOutput> | ValueOf<typeof cOutput>;
type AnyInput = ValueOf<typeof pInput> | ValueOf<typeof xInput> | ValueOf<typeof cInput>;

function plain(amount: bigint, owner: Owner, utxoType: string): ParsedOutput {
  return {amount, owner, stakeableLocktime: 0n, utxoType, groupId: 0, payload: EMPTY};
}

/** A typed output of any chain's codec (each codec admits only its own types). */
function outputOf(o: AnyOutput): ParsedOutput {
  switch (o.typeId) {
    case 7:
      return plain(o.value.amount, o.value.owners, "TRANSFER");
    case 22: {
      const inner = o.value.out.value;
      return {...plain(inner.amount, inner.owners, "STAKEABLE_LOCK"), stakeableLocktime: o.value.locktime};
    }
    case 6:
      return plain(0n, o.value, "MINT");
    case 10:
      return {...plain(0n, o.value.owners, "NFT_MINT"), groupId: o.value.groupId};
    case 11:
      return {...plain(0n, o.value.owners, "NFT_TRANSFER"), groupId: o.value.groupId, payload: o.value.payload};
    case 15:
      return plain(0n, o.value, "PROPERTY_MINT");
    case 16:
      return plain(0n, o.value, "PROPERTY");
  }
}

interface ParsedInput {
  amount: bigint;
  sigIndices: number[];
  stakeableLocktime: bigint;
}

function inputOf(i: AnyInput): ParsedInput {
  if (i.typeId === 5) return {amount: i.value.amount, sigIndices: i.value.sigIndices, stakeableLocktime: 0n};
  const inner = i.value.in.value;
  return {amount: inner.amount, sigIndices: inner.sigIndices, stakeableLocktime: i.value.locktime};
}

/** warp/message PChainOwner as an owner (no locktime). */
function pChainOwnerOf(o: ValueOf<typeof pChainOwner>): Owner {
  return {locktime: 0n, threshold: o.threshold, addresses: o.addresses};
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

function rawOutputs(outs: ReadonlyArray<{assetId: Uint8Array; out: Spanned<AnyOutput>}>): RawOutput[] {
  return outs.map((o) => ({assetId: o.assetId, raw: o.out.bytes, out: outputOf(o.out.value)}));
}

function rawInputs(
  ins: ReadonlyArray<{txId: Uint8Array; outputIndex: number; assetId: Uint8Array; in: AnyInput}>,
): RawInput[] {
  return ins.map((i) => ({txId: i.txId, outputIndex: i.outputIndex, assetId: i.assetId, in: inputOf(i.in)}));
}

interface Body {
  networkId: number;
  blockchainId: Uint8Array;
  outs: RawOutput[];
  ins: RawInput[];
  memo: Uint8Array;
}

type BaseValue = ValueOf<(typeof P_TXS)[34]["codec"]>["base"] | ValueOf<(typeof X_TXS)[0]["codec"]>["base"];

function bodyOf(b: BaseValue): Body {
  return {
    networkId: b.networkId,
    blockchainId: b.blockchainId,
    outs: rawOutputs(b.outs),
    ins: rawInputs(b.ins),
    memo: b.memo,
  };
}

function bls(publicKey: Uint8Array, pop: Uint8Array): BlsCredentials {
  return {publicKey: bytesToHex(publicKey), proofOfPossession: bytesToHex(pop)};
}

/** signer.Signer: Empty or a ProofOfPossession. Not verified (the chain did that). */
function signerOf(s: ValueOf<typeof signer>): BlsCredentials | null {
  return s.typeId === 27 ? null : bls(s.value.publicKey, s.value.signature);
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

function platformBody(tx: PUnsignedTx): Parsed {
  switch (tx.typeId) {
    case 12: // AddValidatorTx
    case 14: {
      // AddDelegatorTx
      const t = tx.value;
      const v = t.validator;
      const shares = tx.typeId === 12 ? tx.value.delegationShares : 0;
      const rewardOwner = t.rewardsOwner.value;
      const p = parsed(tx.type, bodyOf(t.base));
      p.extraOuts = rawOutputs(t.stake);
      p.extraStaked = true;
      const staker: Staker = {
        kind: tx.typeId === 12 ? "validator" : "delegator",
        nodeId: nodeIdString(v.nodeId),
        subnetId: cb58Encode(ZERO_ID),
        startTime: v.start,
        endTime: v.end,
        weight: v.weight,
        rewardOwner,
        delegationRewardOwner: tx.typeId === 12 ? rewardOwner : null,
        delegationShares: shares,
        bls: null,
      };
      p.details = {staker};
      return p;
    }
    case 13: {
      const t = tx.value;
      const v = t.validator;
      const p = parsed(tx.type, bodyOf(t.base));
      p.authCredentials = 1;
      p.details = {
        staker: {
          kind: "subnetValidator",
          nodeId: nodeIdString(v.nodeId),
          subnetId: cb58Encode(t.subnetId),
          startTime: null,
          endTime: v.end,
          weight: v.weight,
          rewardOwner: null,
          delegationRewardOwner: null,
          delegationShares: 0,
          bls: null,
        },
        subnetId: cb58Encode(t.subnetId),
        extra: {startTime: v.start.toString(), subnetAuthSigIndices: t.subnetAuth.value.sigIndices},
      };
      return p;
    }
    case 15: {
      const t = tx.value;
      const p = parsed(tx.type, bodyOf(t.base));
      p.authCredentials = 1;
      const chain = {
        chainName: t.chainName,
        vmId: cb58Encode(t.vmId),
        fxIds: t.fxIds.map(cb58Encode),
        genesisData: t.genesisData,
      };
      p.details = {
        subnetId: cb58Encode(t.subnetId),
        chain,
        extra: {subnetAuthSigIndices: t.subnetAuth.value.sigIndices},
      };
      return p;
    }
    case 16: {
      const p = parsed(tx.type, bodyOf(tx.value.base));
      p.details = {subnetOwner: tx.value.owner.value};
      return p;
    }
    case 17: {
      const p = parsed(tx.type, bodyOf(tx.value.base));
      p.importedFrom = tx.value.sourceChain;
      p.importedIns = rawInputs(tx.value.importedInputs);
      return p;
    }
    case 18: {
      const p = parsed(tx.type, bodyOf(tx.value.base));
      p.exportedTo = tx.value.destinationChain;
      p.extraOuts = rawOutputs(tx.value.exportedOutputs);
      return p;
    }
    case 19: {
      const p = parsed(tx.type, null);
      p.details = {extra: {time: tx.value.time.toString()}};
      return p;
    }
    case 20: {
      const p = parsed(tx.type, null);
      p.details = {rewardedTxId: cb58Encode(tx.value.txId)};
      return p;
    }
    case 23: {
      const t = tx.value;
      const p = parsed(tx.type, bodyOf(t.base));
      p.authCredentials = 1;
      p.details = {
        subnetId: cb58Encode(t.subnetId),
        extra: {nodeId: nodeIdString(t.nodeId), subnetAuthSigIndices: t.subnetAuth.value.sigIndices},
      };
      return p;
    }
    case 24: {
      const t = tx.value;
      const extra: Record<string, unknown> = {assetId: cb58Encode(t.assetId)};
      for (const k of [
        "initialSupply",
        "maximumSupply",
        "minConsumptionRate",
        "maxConsumptionRate",
        "minValidatorStake",
        "maxValidatorStake",
      ] as const) {
        extra[k] = t[k].toString();
      }
      extra.minStakeDuration = t.minStakeDuration;
      extra.maxStakeDuration = t.maxStakeDuration;
      extra.minDelegationFee = t.minDelegationFee;
      extra.minDelegatorStake = t.minDelegatorStake.toString();
      extra.maxValidatorWeightFactor = t.maxValidatorWeightFactor;
      extra.uptimeRequirement = t.uptimeRequirement;
      extra.subnetAuthSigIndices = t.subnetAuth.value.sigIndices;
      const p = parsed(tx.type, bodyOf(t.base));
      p.authCredentials = 1;
      p.details = {subnetId: cb58Encode(t.subnetId), extra};
      return p;
    }
    case 25: {
      const t = tx.value;
      const v = t.validator;
      const p = parsed(tx.type, bodyOf(t.base));
      p.extraOuts = rawOutputs(t.stake);
      p.extraStaked = true;
      p.details = {
        staker: {
          kind: isZero(t.subnetId) ? "validator" : "subnetValidator",
          nodeId: nodeIdString(v.nodeId),
          subnetId: cb58Encode(t.subnetId),
          startTime: null,
          endTime: v.end,
          weight: v.weight,
          rewardOwner: t.validatorRewardsOwner.value,
          delegationRewardOwner: t.delegatorRewardsOwner.value,
          delegationShares: t.delegationShares,
          bls: signerOf(t.signer),
        },
        subnetId: cb58Encode(t.subnetId),
        extra: {startTime: v.start.toString()},
      };
      return p;
    }
    case 26: {
      const t = tx.value;
      const v = t.validator;
      const p = parsed(tx.type, bodyOf(t.base));
      p.extraOuts = rawOutputs(t.stake);
      p.extraStaked = true;
      p.details = {
        staker: {
          kind: "delegator",
          nodeId: nodeIdString(v.nodeId),
          subnetId: cb58Encode(t.subnetId),
          startTime: null,
          endTime: v.end,
          weight: v.weight,
          rewardOwner: t.delegationRewardsOwner.value,
          delegationRewardOwner: null,
          delegationShares: 0,
          bls: null,
        },
        subnetId: cb58Encode(t.subnetId),
        extra: {startTime: v.start.toString()},
      };
      return p;
    }
    case 33: {
      const t = tx.value;
      const p = parsed(tx.type, bodyOf(t.base));
      p.authCredentials = 1;
      p.details = {
        subnetId: cb58Encode(t.subnetId),
        subnetOwner: t.owner.value,
        extra: {subnetAuthSigIndices: t.subnetAuth.value.sigIndices},
      };
      return p;
    }
    case 34:
      return parsed(tx.type, bodyOf(tx.value.base));
    case 35: {
      const t = tx.value;
      const validators: L1Validator[] = t.validators.map((v, i) => ({
        validationId: cb58Encode(appendIndex(t.subnetId, i)),
        nodeId: nodeIdFromBytes(v.nodeId),
        weight: v.weight,
        balance: v.balance,
        bls: bls(v.signer.publicKey, v.signer.signature),
        remainingBalanceOwner: pChainOwnerOf(v.remainingBalanceOwner),
        deactivationOwner: pChainOwnerOf(v.deactivationOwner),
      }));
      const keys = t.validators.map((v) => ({nodeId: v.nodeId, blsPublicKey: v.signer.publicKey, weight: v.weight}));
      const conversionId = subnetToL1ConversionId(t.subnetId, t.chainId, t.address, keys);
      const p = parsed(tx.type, bodyOf(t.base));
      p.authCredentials = 1;
      p.details = {
        subnetId: cb58Encode(t.subnetId),
        conversion: {
          chainId: cb58Encode(t.chainId),
          managerAddress: t.address,
          validators,
          conversionId: cb58Encode(conversionId),
        },
        extra: {subnetAuthSigIndices: t.subnetAuth.value.sigIndices},
      };
      return p;
    }
    case 36: {
      const t = tx.value;
      const p = parsed(tx.type, bodyOf(t.base));
      const reg = registerL1ValidatorMessage(t.message);
      p.details = {
        warpMessage: t.message,
        subnetId: reg.subnetId,
        l1Validator: {
          validationId: reg.validationId,
          nodeId: reg.nodeId,
          weight: reg.weight,
          balance: t.balance,
          bls: bls(reg.blsPublicKey, t.proofOfPossession),
          remainingBalanceOwner: reg.remainingBalanceOwner,
          deactivationOwner: reg.deactivationOwner,
        },
        extra: {expiry: reg.expiry.toString()},
      };
      return p;
    }
    case 37: {
      const w = l1ValidatorWeightMessage(tx.value.message);
      const p = parsed(tx.type, bodyOf(tx.value.base));
      p.details = {
        warpMessage: tx.value.message,
        l1Validator: {validationId: w.validationId, nonce: w.nonce, weight: w.weight},
      };
      return p;
    }
    case 38: {
      const p = parsed(tx.type, bodyOf(tx.value.base));
      p.details = {l1Validator: {validationId: cb58Encode(tx.value.validationId), balance: tx.value.balance}};
      return p;
    }
    case 39: {
      const p = parsed(tx.type, bodyOf(tx.value.base));
      p.authCredentials = 1;
      p.details = {
        l1Validator: {validationId: cb58Encode(tx.value.validationId)},
        extra: {disableAuthSigIndices: tx.value.disableAuth.value.sigIndices},
      };
      return p;
    }
    // Helicon (vms/platformvm/txs/codec.go RegisterHeliconTypes, not scheduled yet): auto-renewed validators. Read
    // whole, with their UTXOs (the stake as staked outputs); the staking fold does not model their cycles, so they
    // add no staker and pay no reward here.
    case 40: {
      const t = tx.value;
      const nodeId = nodeIdFromBytes(t.nodeId);
      const blsCreds = signerOf(t.signer);
      const p = parsed(tx.type, bodyOf(t.base));
      p.extraOuts = rawOutputs(t.stake);
      p.extraStaked = true;
      p.details = {
        subnetId: cb58Encode(ZERO_ID),
        extra: {
          nodeId,
          delegationShares: t.delegationShares,
          autoCompoundRewardShares: t.autoCompoundRewardShares,
          period: t.period.toString(),
          validatorAuthorityThreshold: t.validatorAuthority.value.threshold,
          ...(blsCreds ? {blsCredentials: blsCreds} : {}),
        },
      };
      return p;
    }
    case 41: {
      const t = tx.value;
      const p = parsed(tx.type, bodyOf(t.base));
      p.authCredentials = 1;
      const extra = {
        stakerTxId: cb58Encode(t.txId),
        autoCompoundRewardShares: t.autoCompoundRewardShares,
        period: t.period.toString(),
      };
      p.details = {extra: {...extra, authSigIndices: t.auth.value.sigIndices}};
      return p;
    }
    case 42: {
      const p = parsed(tx.type, null);
      p.details = {extra: {stakerTxId: cb58Encode(tx.value.txId), timestamp: tx.value.timestamp.toString()}};
      return p;
    }
  }
}

/** An L1 validator's node ID (`ids.NodeID` as bytes: 20 of them for every node ID the chain accepts). */
function nodeIdFromBytes(b: Uint8Array): string {
  if (b.length !== 20) fail(`node ID of ${b.length} bytes`);
  return nodeIdString(b);
}

/**
 * The innermost message of a signed warp message (codec/warp.ts): Message → its payload, an AddressedCall → its
 * payload, a warp/message. Returns that message and its bytes.
 */
function warpInner(message: Uint8Array): {msg: ValueOf<typeof l1Message>; bytes: Uint8Array} {
  const payload = decode(warpPayload, decode(warpMessage, message).payload);
  if (payload.typeId !== 1) fail(`warp payload type ${payload.typeId} is not an AddressedCall`);
  const bytes = payload.value.payload;
  return {msg: decode(l1Message, bytes), bytes};
}

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
  const {msg, bytes} = warpInner(message);
  if (msg.typeId !== 1) fail(`warp message type ${msg.typeId} is not RegisterL1Validator`);
  const m = msg.value;
  return {
    // The validation ID is the hash of the RegisterL1ValidatorMessage's bytes (AvalancheGo message.RegisterL1Validator.ValidationID).
    validationId: cb58Encode(sha256(bytes)),
    subnetId: cb58Encode(m.subnetId),
    nodeId: nodeIdFromBytes(m.nodeId),
    blsPublicKey: m.blsPublicKey,
    expiry: m.expiry,
    remainingBalanceOwner: pChainOwnerOf(m.remainingBalanceOwner),
    deactivationOwner: pChainOwnerOf(m.disableOwner),
    weight: m.weight,
  };
}

function l1ValidatorWeightMessage(message: Uint8Array): {validationId: string; nonce: bigint; weight: bigint} {
  const {msg} = warpInner(message);
  if (msg.typeId !== 3) fail(`warp message type ${msg.typeId} is not L1ValidatorWeight`);
  return {validationId: cb58Encode(msg.value.validationId), nonce: msg.value.nonce, weight: msg.value.weight};
}

type XOutput = ValueOf<typeof xOutput>;

/** An avm operation: consumed UTXOs, its asset, auth and the outputs it creates (UTXOs of the operation's asset). */
function avmOperation(o: ValueOf<typeof operation>, p: Parsed): void {
  const assetId = o.assetId;
  // An operation's outputs are untyped in the bytes; as UTXOs they are typed outputs, encoded by the same codec.
  const out = (v: XOutput): void => void p.opOuts.push({assetId, raw: encode(xOutput, v), out: outputOf(v)});
  const op = o.op;
  switch (op.typeId) {
    case 8: // secp256k1fx.MintOperation: MintOutput, TransferOutput
      out({typeId: 6, type: "secp256k1fx.MintOutput", value: op.value.mintOutput});
      out({typeId: 7, type: "secp256k1fx.TransferOutput", value: op.value.transferOutput});
      break;
    case 12: {
      // nftfx.MintOperation: one nft TransferOutput for each owner set
      const {groupId, payload} = op.value;
      for (const owners of op.value.outputs)
        out({typeId: 11, type: "nftfx.TransferOutput", value: {groupId, payload, owners}});
      break;
    }
    case 13: // nftfx.TransferOperation
      out({typeId: 11, type: "nftfx.TransferOutput", value: op.value.output});
      break;
    case 17: // propertyfx.MintOperation: MintOutput, OwnedOutput
      out({typeId: 15, type: "propertyfx.MintOutput", value: op.value.mintOutput});
      out({typeId: 16, type: "propertyfx.OwnedOutput", value: op.value.ownedOutput});
      break;
    case 18: // propertyfx.BurnOperation
      break;
  }
  p.opIns.push({utxos: o.utxoIds, assetId, sigIndices: op.value.input.sigIndices});
}

function avmBody(tx: XUnsignedTx): Parsed {
  switch (tx.typeId) {
    case 0:
      return parsed(tx.type, bodyOf(tx.value.base));
    case 1: {
      const t = tx.value;
      const p = parsed(tx.type, bodyOf(t.base));
      // InitialStates' outputs are UTXOs of the new asset (its ID is the tx ID), filled in once the ID is known.
      for (const s of t.states)
        for (const o of s.outs) p.opOuts.push({assetId: ZERO_ID, raw: o.bytes, out: outputOf(o.value)});
      p.details = {
        asset: {name: t.name, symbol: t.symbol, denomination: t.denomination},
        extra: {fxIndexes: t.states.map((s) => s.fxIndex)},
      };
      return p;
    }
    case 2: {
      const p = parsed(tx.type, bodyOf(tx.value.base));
      for (const o of tx.value.ops) avmOperation(o, p);
      return p;
    }
    case 3: {
      const p = parsed(tx.type, bodyOf(tx.value.base));
      p.importedFrom = tx.value.sourceChain;
      p.importedIns = rawInputs(tx.value.importedInputs);
      return p;
    }
    case 4: {
      const p = parsed(tx.type, bodyOf(tx.value.base));
      p.exportedTo = tx.value.destinationChain;
      p.extraOuts = rawOutputs(tx.value.exportedOutputs);
      return p;
    }
  }
}

function evmBody(tx: CUnsignedTx): Parsed {
  const t = tx.value;
  const body: Body = {networkId: t.networkId, blockchainId: t.blockchainId, outs: [], ins: [], memo: EMPTY};
  const p = parsed(tx.type, body);
  if (tx.typeId === 0) {
    p.importedFrom = tx.value.sourceChain;
    p.importedIns = rawInputs(tx.value.importedInputs);
    p.evmOutputs = tx.value.outs;
  } else {
    p.exportedTo = tx.value.destinationChain;
    p.evmInputs = tx.value.ins;
    p.extraOuts = rawOutputs(tx.value.exportedOutputs);
  }
  return p;
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

type SignedValue = {chain: "P"; tx: PSignedTx} | {chain: "X"; tx: XSignedTx} | {chain: "C"; tx: CSignedTx};

const SIGNED = {P: pSignedTx, X: xSignedTx, C: cSignedTx} as const;

function reasonOf(e: unknown): never {
  if (e instanceof DecodeError) fail(e.message);
  throw e;
}

/**
 * Decodes one signed transaction of `chain` (`codec version ‖ typeID ‖ unsigned fields ‖ credentials`, nothing
 * after). Throws PrimaryDecodeError on anything else.
 */
export function decodeSignedTx(chain: PrimaryChain, signed: Uint8Array, opts: TxDecodeOptions = {}): PrimaryTx {
  const r = new Reader(signed);
  let v: SignedValue;
  try {
    const version = r.u16();
    if (version !== 0) fail(`${chain} tx codec version ${version}`);
    v = {chain, tx: SIGNED[chain].read(r)} as SignedValue;
  } catch (e) {
    return reasonOf(e);
  }
  if (r.remaining !== 0) fail(`${r.remaining} trailing bytes after the ${chain} ${v.tx.unsigned.value.type}`);
  return txOf(v, signed, opts);
}

/**
 * A tx of a block as the block's codec read it, with its inline bytes (no codec version of its own): the signed
 * bytes are `0x0000 ‖ inline`.
 */
export function blockTx(v: SignedValue, inline: Uint8Array, opts: TxDecodeOptions = {}): PrimaryTx {
  const signed = new Uint8Array(2 + inline.length);
  signed.set(inline, 2);
  try {
    return txOf(v, signed, opts);
  } catch (e) {
    return reasonOf(e);
  }
}

function unsignedBody(v: SignedValue): Parsed {
  if (v.chain === "P") return platformBody(v.tx.unsigned.value);
  if (v.chain === "X") return avmBody(v.tx.unsigned.value);
  return evmBody(v.tx.unsigned.value);
}

/** The model of a decoded signed tx whose bytes (codec version included) are `signed`. */
function txOf(v: SignedValue, signed: Uint8Array, opts: TxDecodeOptions): PrimaryTx {
  const chain = v.chain;
  const p = unsignedBody(v);
  const unsignedEnd = 2 + v.tx.unsigned.bytes.length;
  const signatures = v.tx.credentials.map((c) => c.value.signatures);
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
  const evmInputs: EvmTransfer[] = p.evmInputs.map((e) => ({
    address: e.address,
    assetId: repeatedId(e.assetId),
    amount: e.amount,
    nonce: e.nonce,
    credentials: nextCred(),
  }));
  const evmOutputs: EvmTransfer[] = p.evmOutputs.map((e) => ({
    address: e.address,
    assetId: repeatedId(e.assetId),
    amount: e.amount,
    nonce: 0n,
    credentials: [],
  }));
  // The authorisation credentials (subnet auth, disable auth) come last.
  if (credIndex + p.authCredentials !== creds.length)
    fail(`${p.txType} has ${creds.length} credentials for ${credIndex + p.authCredentials} signers`);
  if (p.authCredentials > 0) {
    const auth = creds.slice(credIndex);
    p.details.extra = {
      ...p.details.extra,
      authCredentials: auth.map((c) =>
        c.map((s) => ({signature: bytesToHex(s.signature), publicKey: s.publicKey ? bytesToHex(s.publicKey) : null})),
      ),
    };
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
