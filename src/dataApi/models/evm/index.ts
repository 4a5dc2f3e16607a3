/**
 * The EVM endpoints' response models, shaped as glacier-sdk 3.0.2's (EvmBlock, NativeTransaction,
 * FullNativeTransactionDetails, Erc20/721/1155Transfer(Details), InternalTransaction(Details), the contract and
 * balance types), built from the store's rows. Numbers the hosted API sends as strings are decimal strings;
 * addresses are EIP-55 checksummed; hashes are 0x-hex. Prices, logos and token reputation are omitted (a
 * self-hosted node cannot know them).
 */
import {checksumAddress, toHex} from "../../../evm/hex.js";
import {methodOf, type Method} from "../../evm/methods.js";
import type {NftMetadata as FetchedNftMetadata, NftTokenMetadataStatus} from "../../evm/nftMetadata.js";

export interface NetworkToken {
  name: string;
  symbol: string;
  decimals: number;
  description?: string;
}

export interface RichAddress {
  address: string;
  name?: string;
  symbol?: string;
  decimals?: number;
}

export interface EvmBlock {
  chainId: string;
  blockNumber: string;
  blockTimestamp: number;
  blockHash: string;
  txCount: number;
  baseFee: string;
  gasUsed: string;
  gasLimit: string;
  gasCost: string;
  parentHash: string;
  feesSpent: string;
  cumulativeTransactions: string;
}

export interface BlockRow {
  number: bigint;
  hash: Uint8Array;
  parent_hash: Uint8Array;
  timestamp: bigint;
  tx_count: number;
  base_fee: string;
  gas_used: string;
  gas_limit: string;
  fees_spent: string;
  cumulative_txs: bigint;
}

export function blockModel(chainId: string, r: BlockRow): EvmBlock {
  return {
    chainId,
    blockNumber: r.number.toString(),
    blockTimestamp: Number(r.timestamp),
    blockHash: toHex(r.hash),
    txCount: r.tx_count,
    baseFee: r.base_fee,
    gasUsed: r.gas_used,
    gasLimit: r.gas_limit,
    // The hosted API's gasCost is the block's fees over its gas (0 for an empty block).
    gasCost: BigInt(r.gas_used) === 0n ? "0" : (BigInt(r.fees_spent) / BigInt(r.gas_used)).toString(),
    parentHash: toHex(r.parent_hash),
    feesSpent: r.fees_spent,
    cumulativeTransactions: r.cumulative_txs.toString(),
  };
}

/** A transaction row joined with its block (and the `to` address's token metadata, when it is a token). */
export interface TxRow {
  block_number: bigint;
  tx_index: number;
  block_hash: Uint8Array;
  timestamp: bigint;
  base_fee: string;
  hash: Uint8Array;
  from_addr: Uint8Array;
  to_addr: Uint8Array | null;
  created: Uint8Array | null;
  value: string;
  nonce: bigint;
  gas_limit: string;
  gas_used: string;
  gas_price: string;
  max_fee: string | null;
  max_priority_fee: string | null;
  tx_type: number;
  status: number;
  input: Uint8Array;
  to_name: string | null;
  to_symbol: string | null;
  to_decimals: number | null;
}

export interface NativeTransaction {
  blockNumber: string;
  blockTimestamp: number;
  blockHash: string;
  chainId: string;
  blockIndex: number;
  txHash: string;
  txStatus: string;
  txType: number;
  gasLimit: string;
  gasUsed: string;
  gasPrice: string;
  nonce: string;
  from: RichAddress;
  to: RichAddress;
  method?: Method;
  value: string;
}

export interface FullNativeTransactionDetails extends NativeTransaction {
  input: string;
  baseFeePerGas: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
}

export function richAddress(
  a: Uint8Array,
  name?: string | null,
  symbol?: string | null,
  decimals?: number | null,
): RichAddress {
  const out: RichAddress = {address: checksumAddress(a)};
  if (name) out.name = name;
  if (symbol) out.symbol = symbol;
  if (decimals !== null && decimals !== undefined && (name || symbol)) out.decimals = decimals;
  return out;
}

export function nativeTransaction(chainId: string, r: TxRow): NativeTransaction {
  // A contract creation's `to` is the created contract (the hosted API shows it there); a failed one has none.
  const to = r.to_addr ?? r.created;
  return {
    blockNumber: r.block_number.toString(),
    blockTimestamp: Number(r.timestamp),
    blockHash: toHex(r.block_hash),
    chainId,
    blockIndex: r.tx_index,
    txHash: toHex(r.hash),
    txStatus: String(r.status),
    txType: r.tx_type,
    gasLimit: r.gas_limit,
    gasUsed: r.gas_used,
    gasPrice: r.gas_price,
    nonce: r.nonce.toString(),
    from: richAddress(r.from_addr),
    to: to ? richAddress(to, r.to_name, r.to_symbol, r.to_decimals) : {address: ""},
    method: methodOf({to: r.to_addr ? toHex(r.to_addr) : null, input: toHex(r.input)}),
    value: r.value,
  };
}

export function fullTransaction(chainId: string, r: TxRow): FullNativeTransactionDetails {
  const out: FullNativeTransactionDetails = {
    ...nativeTransaction(chainId, r),
    input: toHex(r.input),
    baseFeePerGas: r.base_fee,
  };
  if (r.max_fee !== null) out.maxFeePerGas = r.max_fee;
  if (r.max_priority_fee !== null) out.maxPriorityFeePerGas = r.max_priority_fee;
  return out;
}

export type NftIndexStatus = NftTokenMetadataStatus;

export interface NftMetadata {
  indexStatus: NftIndexStatus;
  metadataLastUpdatedTimestamp?: number;
  name?: string;
  symbol?: string;
  imageUri?: string;
  description?: string;
  animationUri?: string;
  externalUrl?: string;
  background?: string;
  attributes?: string;
  properties?: string;
  decimals?: number;
}

/** A token's metadata (evm_tokens) and, for an NFT, its URI and fetched metadata (evm_nfts), joined to a row. */
export interface TokenDetailsRow {
  token: Uint8Array;
  erc: number;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  token_uri: string | null;
  metadata: NftMetadataJson | null;
  index_status: string | null;
  updated_at: bigint | null;
}

/** A transfer row joined with its transaction, block and token details. */
export interface TransferRow extends TokenDetailsRow {
  block_number: bigint;
  block_hash: Uint8Array;
  timestamp: bigint;
  tx_hash: Uint8Array;
  log_index: number;
  from_addr: Uint8Array;
  to_addr: Uint8Array;
  token_id: string | null;
  value: string;
  owner: Uint8Array | null;
}

/** evm_nfts.metadata: the fields the fetcher read from the token's metadata JSON. */
export type NftMetadataJson = FetchedNftMetadata;

export function nftMetadata(r: {
  metadata: NftMetadataJson | null;
  index_status: string | null;
  updated_at: bigint | null;
  name?: string | null;
  symbol?: string | null;
}): NftMetadata {
  const out: NftMetadata = {indexStatus: (r.index_status ?? "UNINDEXED") as NftIndexStatus, ...(r.metadata ?? {})};
  if (r.updated_at !== null) out.metadataLastUpdatedTimestamp = Number(r.updated_at);
  return out;
}

export function erc721Token(r: {
  token: Uint8Array;
  token_id: string | null;
  name: string | null;
  symbol: string | null;
  token_uri: string | null;
  metadata: NftMetadataJson | null;
  index_status: string | null;
  updated_at: bigint | null;
  owner?: Uint8Array | null;
}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    address: checksumAddress(r.token),
    name: r.name ?? "",
    symbol: r.symbol ?? "",
    ercType: "ERC-721",
    tokenId: r.token_id ?? "0",
    tokenUri: r.token_uri ?? "",
    metadata: nftMetadata(r),
  };
  if (r.owner) out.ownerAddress = checksumAddress(r.owner);
  return out;
}

export function erc1155Token(r: {
  token: Uint8Array;
  token_id: string | null;
  token_uri: string | null;
  metadata: NftMetadataJson | null;
  index_status: string | null;
  updated_at: bigint | null;
}): Record<string, unknown> {
  return {
    address: checksumAddress(r.token),
    ercType: "ERC-1155",
    tokenId: r.token_id ?? "0",
    tokenUri: r.token_uri ?? "",
    metadata: nftMetadata(r),
  };
}

export function erc20Token(r: {
  token: Uint8Array;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}): Record<string, unknown> {
  return {
    address: checksumAddress(r.token),
    name: r.name ?? "",
    symbol: r.symbol ?? "",
    decimals: r.decimals ?? 0,
    ercType: "ERC-20",
  };
}

/** A transfer inside a transaction (Erc*TransferDetails): no block or transaction fields. */
export function transferDetails(r: TransferRow): {
  kind: "erc20Transfers" | "erc721Transfers" | "erc1155Transfers";
  item: Record<string, unknown>;
} {
  const base = {from: richAddress(r.from_addr), to: richAddress(r.to_addr), logIndex: r.log_index};
  if (r.erc === 20) return {kind: "erc20Transfers", item: {...base, value: r.value, erc20Token: erc20Token(r)}};
  if (r.erc === 721) return {kind: "erc721Transfers", item: {...base, erc721Token: erc721Token({...r, owner: null})}};
  return {kind: "erc1155Transfers", item: {...base, value: r.value, erc1155Token: erc1155Token(r)}};
}

/** A transfer in a list (Erc20Transfer, Erc721Transfer, Erc1155Transfer): with its block and transaction. */
export function transferModel(r: TransferRow): Record<string, unknown> {
  return {
    blockNumber: r.block_number.toString(),
    blockTimestamp: Number(r.timestamp),
    blockHash: toHex(r.block_hash),
    txHash: toHex(r.tx_hash),
    ...transferDetails(r).item,
  };
}

export interface InternalRow {
  block_number: bigint;
  block_hash: Uint8Array;
  timestamp: bigint;
  tx_hash: Uint8Array;
  call_type: string;
  from_addr: Uint8Array;
  to_addr: Uint8Array | null;
  value: string;
  gas_limit: string;
  gas_used: string;
  reverted: boolean;
}

export function internalDetails(r: InternalRow): Record<string, unknown> {
  return {
    from: richAddress(r.from_addr),
    to: r.to_addr ? richAddress(r.to_addr) : {address: ""},
    internalTxType: r.call_type,
    value: r.value,
    isReverted: r.reverted,
    gasUsed: r.gas_used,
    gasLimit: r.gas_limit,
  };
}

export function internalModel(r: InternalRow): Record<string, unknown> {
  return {
    blockNumber: r.block_number.toString(),
    blockTimestamp: Number(r.timestamp),
    blockHash: toHex(r.block_hash),
    txHash: toHex(r.tx_hash),
    ...internalDetails(r),
  };
}

export const ERC_TYPE: Record<number, string> = {20: "ERC-20", 721: "ERC-721", 1155: "ERC-1155", 0: "UNKNOWN"};
