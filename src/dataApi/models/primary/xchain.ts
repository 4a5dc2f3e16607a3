/** Glacier's X-chain `Utxo`, X transactions (linear and non-linear), asset details and C atomic transactions. */
import {toHex} from "../../../evm/hex.js";
import {checksumAddress as toChecksumAddress} from "../../../evm/hex.js";
import {
  type AssetAmount,
  type AssetInfo,
  type AssetRow,
  AssetSums,
  type DbNum,
  type PrimaryNetworkAssetType,
  assetAmount,
  bech32Address,
  big,
  num,
} from "./common.js";
import type {TxRow, UtxoRow} from "./pchain.js";

/** The fields of a UTXO row the X and C models read (a transaction page of those chains reads only these). */
export type XUtxoRow = Pick<
  UtxoRow,
  | "utxo_id"
  | "tx_id"
  | "output_index"
  | "created_chain"
  | "created_ts"
  | "asset_id"
  | "amount"
  | "addresses"
  | "threshold"
  | "locktime"
  | "utxo_type"
  | "group_id"
  | "payload"
  | "exported_to"
  | "consumed_chain"
  | "consuming_tx"
  | "consuming_ts"
  | "credentials"
>;

export interface UtxoCredential {
  signature?: string;
  publicKey?: string;
}

/** Glacier `Utxo` (the X-chain and C-chain UTXO model). */
export interface Utxo {
  addresses: string[];
  asset: AssetAmount;
  consumedOnChainId: string;
  consumingTxHash?: string;
  createdOnChainId: string;
  utxoId: string;
  consumingTxTimestamp?: number;
  creationTxHash: string;
  credentials?: UtxoCredential[];
  groupId?: number;
  locktime: number;
  outputIndex: string;
  payload?: string;
  threshold: number;
  timestamp: number;
  utxoType: string;
}

/** An X or C UTXO; `utxoType` in the hosted API's lowercase (`transfer`, `mint`, `nft_transfer`, ...). */
export function utxoFromRow(r: XUtxoRow, hrp: string, assets: AssetInfo): Utxo {
  const created = r.created_chain ?? r.consumed_chain ?? "";
  const u: Utxo = {
    addresses: (r.addresses ?? []).map((a) => bech32Address(hrp, a)),
    asset: assetAmount(assets, r.asset_id ?? "", r.amount === null ? 0n : big(r.amount)),
    consumedOnChainId: r.consumed_chain ?? r.exported_to ?? created,
    createdOnChainId: created,
    utxoId: r.utxo_id,
    creationTxHash: r.tx_id,
    locktime: r.locktime === null ? 0 : num(r.locktime),
    outputIndex: String(r.output_index),
    threshold: r.threshold ?? 0,
    timestamp: r.created_ts === null ? 0 : num(r.created_ts),
    utxoType: (r.utxo_type ?? "TRANSFER").toLowerCase(),
  };
  if (r.consuming_tx !== null) {
    u.consumingTxHash = r.consuming_tx;
    if (r.consuming_ts !== null) u.consumingTxTimestamp = num(r.consuming_ts);
    if (r.credentials !== null) u.credentials = r.credentials;
  }
  const nft = (r.utxo_type ?? "").toUpperCase().startsWith("NFT");
  if (nft) {
    u.groupId = r.group_id ?? 0;
    if (r.payload !== null) u.payload = toHex(r.payload);
  }
  return u;
}

export interface XChainAssetDetails {
  assetId: string;
  name: string;
  symbol: string;
  denomination: number;
  type: PrimaryNetworkAssetType;
  createdAtTimestamp: number;
  cap: "fixed" | "variable";
}

/** An `assets` row: a fixed cap when the asset was created without minters (`cap` set), else variable. */
export function assetDetailsFromRow(a: AssetRow): XChainAssetDetails {
  return {
    assetId: a.asset_id,
    name: a.name,
    symbol: a.symbol,
    denomination: a.denomination,
    type: a.asset_type === "nft" ? "nft" : "secp256k1",
    createdAtTimestamp: num(a.created_ts),
    cap: a.cap === null ? "variable" : "fixed",
  };
}

export interface TransactionVertexDetail {
  hash: string;
  height: number;
  timestamp: number;
}

interface XTxBase {
  txHash: string;
  timestamp: number;
  txType: string;
  memo: string;
  consumedUtxos: Utxo[];
  emittedUtxos: Utxo[];
  amountUnlocked: AssetAmount[];
  amountCreated: AssetAmount[];
  sourceChain?: string;
  destinationChain?: string;
  assetCreated?: XChainAssetDetails;
}
export interface XChainNonLinearTransaction extends XTxBase {
  chainFormat: "non-linear";
  vertices: TransactionVertexDetail[];
}
export interface XChainLinearTransaction extends XTxBase {
  chainFormat: "linear";
  blockHeight: number;
  blockHash: string;
}
export type XChainTransaction = XChainNonLinearTransaction | XChainLinearTransaction;

/** A vertex's facts, for the non-linear transactions it holds. */
export interface VertexRef {
  vertex_id: string;
  height: DbNum;
  ts: DbNum;
}

function sums(us: XUtxoRow[]): AssetSums {
  const s = new AssetSums();
  for (const u of us) if (u.asset_id !== null && u.amount !== null) s.add(u.asset_id, big(u.amount));
  return s;
}

/**
 * An X transaction: linear when its container is a block (post-Cortina), else non-linear with the vertex that
 * holds it (none for a transaction indexed on its own). `memo` is 0x hex ("" when empty).
 */
export function xChainTxFromRow(
  r: TxRow,
  consumed: XUtxoRow[],
  emitted: XUtxoRow[],
  container: {linear: boolean; vertex: VertexRef | null},
  hrp: string,
  assets: AssetInfo,
): XChainTransaction {
  const base: XTxBase = {
    txHash: r.tx_id,
    timestamp: num(r.ts),
    txType: r.tx_type,
    memo: r.memo.length > 0 ? toHex(r.memo) : "",
    consumedUtxos: consumed.map((u) => utxoFromRow(u, hrp, assets)),
    emittedUtxos: emitted.map((u) => utxoFromRow(u, hrp, assets)),
    amountUnlocked: sums(consumed).toAmounts(assets),
    amountCreated: sums(emitted).toAmounts(assets),
  };
  if (r.source_chain !== null) base.sourceChain = r.source_chain;
  if (r.destination_chain !== null) base.destinationChain = r.destination_chain;
  const created = r.tx_type === "CreateAssetTx" ? assets.get(r.tx_id) : undefined;
  if (created) base.assetCreated = assetDetailsFromRow(created);
  if (container.linear) {
    return {...base, chainFormat: "linear", blockHeight: num(r.block_height), blockHash: r.block_id};
  }
  const v = container.vertex;
  return {
    ...base,
    chainFormat: "non-linear",
    vertices: v === null ? [] : [{hash: v.vertex_id, height: num(v.height), timestamp: num(v.ts)}],
  };
}

/** `txs.evm` of a C atomic transaction. */
export interface EvmJson {
  /** An input's credentials: folded by this version on; a store an earlier version folded has none until rebuilt. */
  inputs: Array<{
    address: string;
    assetId: string;
    amount: string | number;
    nonce: string | number;
    credentials?: UtxoCredential[];
  }>;
  outputs: Array<{address: string; assetId: string; amount: string | number}>;
}

export interface EVMInput {
  fromAddress: string;
  asset: AssetAmount;
  credentials: UtxoCredential[];
}
export interface EVMOutput {
  toAddress: string;
  asset: AssetAmount;
}
interface CTxBase {
  txHash: string;
  blockHeight: number;
  blockHash: string;
  timestamp: number;
  memo: string;
  amountUnlocked: AssetAmount[];
  amountCreated: AssetAmount[];
  sourceChain: string;
  destinationChain: string;
}
export interface CChainExportTransaction extends CTxBase {
  txType: "ExportTx";
  evmInputs: EVMInput[];
  emittedUtxos: Utxo[];
}
export interface CChainImportTransaction extends CTxBase {
  txType: "ImportTx";
  evmOutputs: EVMOutput[];
  consumedUtxos: Utxo[];
}
export type CChainAtomicTransaction = CChainExportTransaction | CChainImportTransaction;

/**
 * A C atomic transaction: an export spends EVM balances (`evmInputs`, each with the credentials that signed it) into
 * UTXOs exported to `destinationChain`; an import consumes UTXOs of `sourceChain` into EVM balances.
 */
export function cChainTxFromRow(
  r: TxRow,
  consumed: XUtxoRow[],
  emitted: XUtxoRow[],
  cChainId: string,
  hrp: string,
  assets: AssetInfo,
): CChainAtomicTransaction {
  const evm = (r.evm ?? {inputs: [], outputs: []}) as EvmJson;
  const base = {
    txHash: r.tx_id,
    blockHeight: num(r.block_height),
    blockHash: r.block_id,
    timestamp: num(r.ts),
    memo: r.memo.length > 0 ? toHex(r.memo) : "",
  };
  if (r.tx_type === "ExportTx") {
    const unlocked = new AssetSums();
    for (const i of evm.inputs) unlocked.add(i.assetId, big(i.amount));
    return {
      ...base,
      amountUnlocked: unlocked.toAmounts(assets),
      amountCreated: sums(emitted).toAmounts(assets),
      sourceChain: cChainId,
      destinationChain: r.destination_chain ?? "",
      txType: "ExportTx",
      evmInputs: evm.inputs.map((i) => ({
        fromAddress: toChecksumAddress(i.address),
        asset: assetAmount(assets, i.assetId, big(i.amount)),
        credentials: i.credentials ?? [],
      })),
      emittedUtxos: emitted.map((u) => utxoFromRow(u, hrp, assets)),
    };
  }
  const created = new AssetSums();
  for (const o of evm.outputs) created.add(o.assetId, big(o.amount));
  return {
    ...base,
    amountUnlocked: sums(consumed).toAmounts(assets),
    amountCreated: created.toAmounts(assets),
    sourceChain: r.source_chain ?? "",
    destinationChain: cChainId,
    txType: "ImportTx",
    evmOutputs: evm.outputs.map((o) => ({
      toAddress: toChecksumAddress(o.address),
      asset: assetAmount(assets, o.assetId, big(o.amount)),
    })),
    consumedUtxos: consumed.map((u) => utxoFromRow(u, hrp, assets)),
  };
}

/** Asset IDs a page of EVM transfers mentions (for the asset lookup). */
export function evmAssetIds(r: TxRow): string[] {
  const evm = r.evm as EvmJson | null;
  return evm === null ? [] : [...evm.inputs.map((i) => i.assetId), ...evm.outputs.map((o) => o.assetId)];
}
