/** Glacier's X vertices, X asset details, subnets, blockchains and L1 validators from their rows. */
import {toHex} from "../../../evm/hex.js";
import {cb58Decode} from "../../../util/cb58.js";
import {remainingBalance} from "../../views/primary/l1.js";
import {type DbNum, bech32Address, big, num} from "./common.js";
import type {BlsCredentials, OwnerJson} from "./pchain.js";

export interface VertexRow {
  vertex_id: string;
  height: DbNum;
  seq: DbNum;
  parent_ids: string[];
  ts: DbNum;
  tx_count: number;
  size_bytes: number;
  tx_ids: string[];
}

/** Glacier `XChainVertex`; `vertexIndex` is the vertex's position in the X-chain's index. */
export interface XChainVertex {
  vertexHash: string;
  parentHashes: string[];
  vertexHeight: number;
  vertexIndex: number;
  vertexTimestamp: number;
  txCount: number;
  transactions: string[];
  vertexSizeBytes: number;
}

export function vertexFromRow(r: VertexRow): XChainVertex {
  return {
    vertexHash: r.vertex_id,
    parentHashes: r.parent_ids,
    vertexHeight: num(r.height),
    vertexIndex: num(r.seq),
    vertexTimestamp: num(r.ts),
    txCount: r.tx_count,
    transactions: r.tx_ids,
    vertexSizeBytes: r.size_bytes,
  };
}

export interface BlockchainRow {
  blockchain_id: string;
  subnet_id: string;
  name: string;
  vm_id: string;
  genesis_data: Uint8Array;
  created_ts: DbNum;
  created_height: DbNum;
}

/** Glacier `Blockchain`. `evmChainId` and `genesisData` only for an EVM genesis (JSON with `config.chainId`). */
export interface Blockchain {
  createBlockTimestamp: number;
  createBlockNumber: string;
  blockchainId: string;
  vmId: string;
  subnetId: string;
  blockchainName: string;
  evmChainId?: number;
  genesisData?: Record<string, unknown>;
}

function evmGenesis(bytes: Uint8Array): Record<string, unknown> | null {
  try {
    const g: unknown = JSON.parse(new TextDecoder("utf-8", {fatal: true}).decode(bytes));
    return g !== null && typeof g === "object" && !Array.isArray(g) ? (g as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function blockchainFromRow(r: BlockchainRow): Blockchain {
  const b: Blockchain = {
    createBlockTimestamp: num(r.created_ts),
    createBlockNumber: String(r.created_height),
    blockchainId: r.blockchain_id,
    vmId: r.vm_id,
    subnetId: r.subnet_id,
    blockchainName: r.name,
  };
  const g = evmGenesis(r.genesis_data);
  if (g !== null) {
    const config = g.config as Record<string, unknown> | undefined;
    if (typeof config?.chainId === "number") b.evmChainId = config.chainId;
    b.genesisData = g;
  }
  return b;
}

export interface SubnetRow {
  subnet_id: string;
  created_tx: string;
  created_ts: DbNum;
  owner: OwnerJson | null;
  is_l1: boolean;
  l1_chain_id: string | null;
  l1_manager: string | null;
  l1_conversion_id: string | null;
  l1_converted_ts: DbNum | null;
  /** The creating transaction's block height (joined from txs). */
  created_height: DbNum | null;
}

/** Glacier `Subnet` (`l1ConversionTransactionHash` is not stored: omitted). */
export interface Subnet {
  createBlockTimestamp: number;
  createBlockIndex: string;
  subnetId: string;
  ownerAddresses: string[];
  threshold: number;
  locktime: number;
  subnetOwnershipInfo: {locktime: number; threshold: number; addresses: string[]};
  isL1: boolean;
  l1ConversionTransactionHash?: string;
  l1ValidatorManagerDetails?: {blockchainId: string; contractAddress: string};
  blockchains: Blockchain[];
}

export function subnetFromRow(r: SubnetRow, hrp: string, chains: BlockchainRow[]): Subnet {
  const addresses = (r.owner?.addresses ?? []).map((a) => bech32Address(hrp, a));
  const threshold = r.owner?.threshold ?? 0;
  const locktime = r.owner === null ? 0 : num(r.owner.locktime);
  const s: Subnet = {
    createBlockTimestamp: num(r.created_ts),
    createBlockIndex: r.created_height === null ? "" : String(r.created_height),
    subnetId: r.subnet_id,
    ownerAddresses: addresses,
    threshold,
    locktime,
    subnetOwnershipInfo: {locktime, threshold, addresses},
    isL1: r.is_l1,
    blockchains: chains.map(blockchainFromRow),
  };
  if (r.is_l1 && r.l1_chain_id !== null && r.l1_manager !== null) {
    s.l1ValidatorManagerDetails = {blockchainId: r.l1_chain_id, contractAddress: r.l1_manager};
  }
  return s;
}

export interface L1ValidatorRow {
  validation_id: string;
  subnet_id: string;
  node_id: string;
  weight: DbNum;
  balance: DbNum;
  bls: BlsCredentials | null;
  remaining_balance_owner: OwnerJson | null;
  deactivation_owner: OwnerJson | null;
  created_tx: string;
  created_ts: DbNum;
  nonce: DbNum;
  active: boolean;
  /** Balance + the chain's accrued fees when funded; 0 while inactive (schema 7). */
  end_accumulated_fee: DbNum;
  /** The chain's accrued fees after the last folded P block (data_api_meta `view.l1.accruedFees`), joined in. */
  accrued_fees: string | null;
}

export interface BalanceOwner {
  addresses: string[];
  threshold: number;
}

/** Glacier `L1ValidatorDetailsFull`. */
export interface L1ValidatorDetailsFull {
  validationId: string;
  validationIdHex: string;
  nodeId: string;
  subnetId: string;
  weight: number;
  remainingBalance: number;
  creationTimestamp: number;
  blsCredentials: Record<string, unknown>;
  remainingBalanceOwner: BalanceOwner;
  deactivationOwner: BalanceOwner;
}

function balanceOwner(hrp: string, o: OwnerJson | null): BalanceOwner {
  return {addresses: (o?.addresses ?? []).map((a) => bech32Address(hrp, a)), threshold: o?.threshold ?? 0};
}

/** AvalancheGo's getL1Validator `balance`: what is left of an active validator's balance after the fees accrued. */
function l1RemainingBalance(r: L1ValidatorRow): bigint {
  return r.active ? remainingBalance({endAccumulatedFee: big(r.end_accumulated_fee)}, big(r.accrued_fees || "0")) : 0n;
}

export function l1ValidatorFromRow(r: L1ValidatorRow, hrp: string): L1ValidatorDetailsFull {
  return {
    validationId: r.validation_id,
    validationIdHex: toHex(cb58Decode(r.validation_id)),
    nodeId: r.node_id,
    subnetId: r.subnet_id,
    weight: num(r.weight),
    remainingBalance: num(l1RemainingBalance(r)),
    creationTimestamp: num(r.created_ts),
    blsCredentials: r.bls === null ? {} : {...r.bls},
    remainingBalanceOwner: balanceOwner(hrp, r.remaining_balance_owner),
    deactivationOwner: balanceOwner(hrp, r.deactivation_owner),
  };
}
