/**
 * The decoded primary-network model: what the decoder (decode.ts) makes of a P, X or C container, and what the
 * folds (UTXOs, stakers, supply, L1 validators) and the store consume. Plain data: IDs as CB58 strings, addresses
 * as 20-byte short IDs (the view adds the network's HRP), amounts as bigint, times as Unix seconds (bigint where
 * the chain stores u64).
 */

export type PrimaryChain = "P" | "X" | "C";

/** An output owner set (secp256k1fx.OutputOwners): who may spend or who is paid. */
export interface Owner {
  locktime: bigint;
  threshold: number;
  /** 20-byte short IDs, in the order of the bytes. */
  addresses: Uint8Array[];
}

/**
 * A UTXO a transaction creates, on its own chain (`exportedTo` null) or in the shared memory of another chain
 * (an exported output: created here, consumed by an import on `exportedTo`).
 */
export interface TxOutput {
  /** The output index as AvalancheGo numbers it (UTXO ID = sha256(u64be index ‖ txID)). */
  outputIndex: number;
  /** CB58 of the UTXO's input ID (AvalancheGo `UTXOID.InputID`). */
  utxoId: string;
  assetId: string;
  /** 0 for NFT and property outputs. */
  amount: bigint;
  owner: Owner;
  /** P-chain `stakeable.LockOut` locktime, else 0. */
  stakeableLocktime: bigint;
  /** A stake output of a staking transaction (held until the staker's end, then returned to its owners). */
  staked: boolean;
  /** Glacier's `utxoType`: `TRANSFER`, `STAKE`, `STAKEABLE_LOCK`, `MINT`, `NFT_TRANSFER`, `NFT_MINT`, `PROPERTY`... */
  utxoType: string;
  /** CB58 chain ID of the destination for an exported output, else null. */
  exportedTo: string | null;
  /** NFT outputs: group ID and payload; else 0 and empty. */
  groupId: number;
  payload: Uint8Array;
  /** The serialised UTXO (codec version ‖ txID ‖ index ‖ asset ‖ output), as `utxoBytes`. */
  utxoBytes: Uint8Array;
}

/** A UTXO a transaction consumes: on its own chain (`importedFrom` null) or from another chain's shared memory. */
export interface TxInput {
  /** Transaction that created the UTXO (CB58) and its output index. */
  txId: string;
  outputIndex: number;
  utxoId: string;
  assetId: string;
  amount: bigint;
  /** Signature indices into the UTXO's owner addresses. */
  sigIndices: number[];
  /** CB58 chain ID of the source chain for an imported input, else null. */
  importedFrom: string | null;
  /** The credential that unlocks this input (same position), with the public keys recovered from it. */
  credentials: Credential[];
}

export interface Credential {
  /** 65-byte secp256k1 signature [r ‖ s ‖ v]. */
  signature: Uint8Array;
  /** 33-byte compressed public key recovered from the signature over sha256(unsigned tx bytes); null if none. */
  publicKey: Uint8Array | null;
}

/** C-chain atomic transactions: the EVM side of an import (outputs) or an export (inputs). */
export interface EvmTransfer {
  /** 20-byte EVM address. */
  address: Uint8Array;
  assetId: string;
  amount: bigint;
  /** EVMInput nonce (exports); 0n for outputs. */
  nonce: bigint;
  /** EVM inputs (exports): the credential at the input's position, with the recovered keys; [] for outputs. */
  credentials: Credential[];
}

export interface BlsCredentials {
  /** 48-byte compressed public key, hex without 0x. */
  publicKey: string;
  /** 96-byte proof of possession, hex without 0x. */
  proofOfPossession: string;
}

/** A staking transaction's staker (AddValidator/AddDelegator/AddSubnetValidator and the permissionless ones). */
export interface Staker {
  kind: "validator" | "delegator" | "subnetValidator";
  /** `NodeID-...` */
  nodeId: string;
  subnetId: string;
  /**
   * The transaction's start time (AddValidatorTx, AddDelegatorTx: both end at Durango). Null for the transactions
   * that stay valid after Durango (AddPermissionlessValidatorTx, AddPermissionlessDelegatorTx,
   * AddSubnetValidatorTx), whose start AvalancheGo takes from the block time after Durango: the decoder cannot
   * know the network's Durango time, so it keeps their bytes' start time in `details.extra.startTime` (decimal
   * string) and the fold picks that before Durango, the accepting block's time after.
   */
  startTime: bigint | null;
  endTime: bigint;
  weight: bigint;
  /** Validation reward owner (validators) or delegation reward owner (delegators). */
  rewardOwner: Owner | null;
  /** Validators only: who receives the delegation fee share. */
  delegationRewardOwner: Owner | null;
  /** Validators only: delegation fee in millionths (AvalancheGo `shares`, 10,000 = 1 %). */
  delegationShares: number;
  bls: BlsCredentials | null;
}

/** An L1 validator set by ConvertSubnetToL1Tx or RegisterL1ValidatorTx. */
export interface L1Validator {
  /** CB58 validation ID (the conversion's: sha256(subnetID ‖ u32be index); a registration's: the message's ID). */
  validationId: string;
  nodeId: string;
  weight: bigint;
  balance: bigint;
  bls: BlsCredentials | null;
  remainingBalanceOwner: Owner | null;
  deactivationOwner: Owner | null;
}

/** Transaction-type-specific facts, by Glacier's `txType` name. Absent fields do not apply to the type. */
export interface TxDetails {
  staker?: Staker;
  /** RewardValidatorTx: the staking transaction whose period ended. */
  rewardedTxId?: string;
  /** CreateSubnetTx / TransferSubnetOwnershipTx: the subnet's owner. */
  subnetOwner?: Owner;
  /** The subnet a transaction acts on (CreateChainTx, RemoveSubnetValidatorTx, ConvertSubnetToL1Tx, ...). */
  subnetId?: string;
  /** CreateChainTx. */
  chain?: {chainName: string; vmId: string; fxIds: string[]; genesisData: Uint8Array};
  /** CreateAssetTx. */
  asset?: {name: string; symbol: string; denomination: number};
  /** ConvertSubnetToL1Tx. */
  conversion?: {chainId: string; managerAddress: Uint8Array; validators: L1Validator[]; conversionId: string};
  /** RegisterL1ValidatorTx, SetL1ValidatorWeightTx: the warp message carried (its unsigned bytes). */
  warpMessage?: Uint8Array;
  /** RegisterL1ValidatorTx / IncreaseL1ValidatorBalanceTx / DisableL1ValidatorTx / SetL1ValidatorWeightTx. */
  l1Validator?: Partial<L1Validator> & {validationId: string; nonce?: bigint};
  /**
   * Any other fields worth keeping, already JSON-safe (decimal strings for big integers): `startTime` (see
   * Staker), `subnetAuthSigIndices` / `disableAuthSigIndices` and `authCredentials` (the trailing authorisation
   * credential: [{signature, publicKey}] hex), TransformSubnetTx's parameters, AdvanceTimeTx's `time`,
   * RegisterL1ValidatorTx's `expiry`, RemoveSubnetValidatorTx's `nodeId`, CreateAssetTx's `fxIndexes`.
   */
  extra?: Record<string, unknown>;
}

export interface PrimaryTx {
  /** CB58 transaction ID: sha256 of the signed transaction bytes. */
  id: string;
  chain: PrimaryChain;
  /** Glacier's PrimaryNetworkTxType name: `BaseTx`, `CreateAssetTx`, `ImportTx`, `AddPermissionlessValidatorTx`... */
  txType: string;
  /** Signed transaction bytes as they sit in the block (codec version included). */
  bytes: Uint8Array;
  memo: Uint8Array;
  inputs: TxInput[];
  outputs: TxOutput[];
  /** C atomic transactions only. */
  evmInputs: EvmTransfer[];
  evmOutputs: EvmTransfer[];
  /** Source chain (imports) / destination chain (exports), CB58, else null. */
  sourceChain: string | null;
  destinationChain: string | null;
  details: TxDetails;
  /** sha256 of the unsigned transaction: what every credential signs. */
  unsignedHash: Uint8Array;
}

/** A proposervm wrapper's facts (Glacier `proposerDetails`). Option blocks carry no time or P-chain height: 0n. */
export interface ProposerDetails {
  proposerId: string;
  proposerParentId: string;
  /** `NodeID-...` of the signing certificate; empty for unsigned blocks. */
  proposerNodeId: string;
  proposerPChainHeight: bigint;
  proposerTimestamp: bigint;
}

/** A decoded container: a block (P, C, X post-Cortina), a vertex (X pre-Cortina) or a standalone X transaction. */
export interface PrimaryContainer {
  chain: PrimaryChain;
  kind: "block" | "vtx" | "tx";
  /** The index's ID of the container (the proposervm ID for wrapped blocks). */
  containerId: string;
  /** The inner block's ID (`blockHash`; `0x` hex EVM hash on C); the vertex ID; the tx ID. */
  blockId: string;
  /** The inner block's parent (`0x` hex on C); a vertex's first parent. */
  parentId: string;
  /** Vertices: every parent. */
  parentIds: string[];
  height: bigint;
  /** Block time (seconds): the inner block's, else the proposer's, else null (the view uses the index time). */
  timestamp: bigint | null;
  /**
   * The P-chain's time as of this block (seconds) when the block itself carries it (Banff blocks); null for Apricot
   * blocks, whose chain time moves only with a committed AdvanceTimeTx, and for the other chains.
   */
  chainTime?: bigint | null;
  /** P-chain block type name: `Standard`, `Proposal`, `Commit`, `Abort`, `Atomic` (Apricot), else ``. */
  blockType: string;
  sizeBytes: number;
  proposer: ProposerDetails | null;
  txs: PrimaryTx[];
}

/**
 * A network's genesis state, folded into the views when their store is created, before the first container: what
 * AvalancheGo's `genesis.FromConfig` builds from the network's genesis config (src/genesis/build.ts).
 */
/** The `data_api_meta` key of the C-chain genesis allocation's sum, wei (view.ts foldGenesis writes it). */
export const C_GENESIS_ALLOCATION_KEY = "genesis.cChainAllocationWei";

export interface GenesisUtxo {
  chain: PrimaryChain;
  txId: string;
  output: TxOutput;
}

export interface GenesisStaker {
  txId: string;
  staker: Staker & {startTime: bigint};
  stake: TxOutput[];
}

export interface GenesisState {
  networkId: number;
  /** Genesis time, Unix seconds. */
  timestamp: bigint;
  /** The AVAX asset ID (CB58) and the other assets created at genesis (X-chain). */
  avaxAssetId: string;
  assets: Array<{assetId: string; name: string; symbol: string; denomination: number}>;
  /**
   * UTXOs that exist at genesis, per chain, with the (genesis) transaction that created them. Built as they are
   * read, on each pass (src/genesis/build.ts): spread it (`[...g.utxos]`) to hold them.
   */
  utxos: Iterable<GenesisUtxo>;
  /** Stakers at genesis (P-chain), each with the ID of the genesis transaction that added it; built as `utxos` is. */
  stakers: Iterable<GenesisStaker>;
  /** The P-chain's current supply at genesis (nAVAX). */
  supply: bigint;
  /**
   * The chains created at genesis (the P-chain genesis's CreateChainTxs, whose tx IDs are the chain IDs): the
   * network's X and C chain IDs; not listed as blockchains (stakingFold.ts `genesis`).
   */
  chains: Array<{
    chainId: string;
    subnetId: string;
    name: string;
    vmId: string;
    fxIds: string[];
    genesisData: Uint8Array;
  }>;
  /** The C-chain genesis's `alloc` balances summed, wei (src/genesis/config.ts cChainGenesisAllocationWei); 0 if absent. */
  cChainAllocationWei?: bigint;
}
