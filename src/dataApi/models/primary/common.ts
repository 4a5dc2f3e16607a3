/**
 * Row → response helpers shared by the primary-network models: numbers from int8/numeric columns, bech32
 * addresses from stored short IDs, AssetAmount sums.
 */
import {bech32} from "@scure/base";
import {hexToBytes} from "../../../evm/hex.js";

/** int8 / numeric as a driver returns it. */
export type DbNum = bigint | string | number;

/** An int8/numeric column as bigint (integers only: amounts, heights, times). */
export function big(v: DbNum): bigint {
  return typeof v === "bigint" ? v : BigInt(v);
}

/** An int8 column that fits a JSON number (times, heights, indexes). */
export function num(v: DbNum): number {
  return typeof v === "number" ? v : Number(v);
}

/** A nullable int8 column as a number, undefined for null. */
export function optNum(v: DbNum | null | undefined): number | undefined {
  return v === null || v === undefined ? undefined : num(v);
}

/** A stored 20-byte short ID (40 hex chars, or bytea) as bech32 with the network's HRP, without a chain prefix. */
export function bech32Address(hrp: string, shortId: string | Uint8Array): string {
  const bytes = typeof shortId === "string" ? hexToBytes(shortId) : shortId;
  return bech32.encode(hrp, bech32.toWords(bytes), 1023);
}

export type PrimaryNetworkAssetType = "secp256k1" | "nft";

/** Glacier `AssetAmount`. */
export interface AssetAmount {
  assetId: string;
  name: string;
  symbol: string;
  denomination: number;
  type: PrimaryNetworkAssetType;
  amount: string;
}

/** An `assets` row: what AssetAmount needs besides the amount. */
export interface AssetRow {
  asset_id: string;
  name: string;
  symbol: string;
  denomination: number;
  asset_type: string;
  created_tx: string | null;
  created_ts: DbNum;
  cap: DbNum | null;
}

/** Asset facts by asset ID, for the assets a page mentions. */
export type AssetInfo = Map<string, AssetRow>;

function assetType(t: string | undefined): PrimaryNetworkAssetType {
  return t === "nft" ? "nft" : "secp256k1";
}

/** One AssetAmount; an asset missing from `assets` is named by its ID (never invented). */
export function assetAmount(assets: AssetInfo, assetId: string, amount: bigint): AssetAmount {
  const a = assets.get(assetId);
  return {
    assetId,
    name: a?.name ?? "",
    symbol: a?.symbol ?? "",
    denomination: a?.denomination ?? 0,
    type: assetType(a?.asset_type),
    amount: amount.toString(),
  };
}

/** Sums per asset, in first-seen order, as AssetAmounts. */
export class AssetSums {
  private readonly sums = new Map<string, bigint>();
  add(assetId: string, amount: bigint): void {
    this.sums.set(assetId, (this.sums.get(assetId) ?? 0n) + amount);
  }
  get(assetId: string): bigint {
    return this.sums.get(assetId) ?? 0n;
  }
  ids(): string[] {
    return [...this.sums.keys()];
  }
  toAmounts(assets: AssetInfo, keepZero = false): AssetAmount[] {
    const out: AssetAmount[] = [];
    for (const [id, v] of this.sums) if (keepZero || v !== 0n) out.push(assetAmount(assets, id, v));
    return out;
  }
}

export type PrimaryChainName = "p-chain" | "x-chain" | "c-chain";

/** Glacier `PrimaryNetworkChainInfo`. */
export interface ChainInfo {
  chainName: PrimaryChainName;
  network: string;
}

export function chainInfo(chain: "P" | "X" | "C", networkName: string): ChainInfo {
  const chainName: PrimaryChainName = chain === "P" ? "p-chain" : chain === "X" ? "x-chain" : "c-chain";
  return {chainName, network: networkName};
}
