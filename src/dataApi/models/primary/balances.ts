/** Glacier `PChainBalance`, `XChainBalances`, `CChainAtomicBalances` computed from unspent UTXOs at a time. */
import {type AssetAmount, type AssetInfo, assetAmount, big, num} from "./common.js";
import type {UtxoRow} from "./pchain.js";

export interface AggregatedAssetAmount extends AssetAmount {
  utxoCount: number;
}
export interface SharedAssetBalance extends AggregatedAssetAmount {
  sharedWithChainId: string;
}
export interface PChainSharedAsset extends SharedAssetBalance {
  status: string;
}

export interface PChainBalance {
  unlockedUnstaked: AggregatedAssetAmount[];
  unlockedStaked: AggregatedAssetAmount[];
  lockedPlatform: AggregatedAssetAmount[];
  lockedStakeable: AggregatedAssetAmount[];
  lockedStaked: AggregatedAssetAmount[];
  pendingStaked: AggregatedAssetAmount[];
  atomicMemoryUnlocked: PChainSharedAsset[];
  atomicMemoryLocked: PChainSharedAsset[];
}
export interface XChainBalances {
  locked: AggregatedAssetAmount[];
  unlocked: AggregatedAssetAmount[];
  atomicMemoryUnlocked: SharedAssetBalance[];
  atomicMemoryLocked: SharedAssetBalance[];
}
export interface CChainAtomicBalances {
  atomicMemoryUnlocked: SharedAssetBalance[];
  atomicMemoryLocked: SharedAssetBalance[];
}

/** Sums and counts per key (asset, or asset and source chain), in first-seen order. */
class Bucket {
  private readonly m = new Map<string, {assetId: string; chain: string; amount: bigint; count: number}>();
  add(u: UtxoRow, chain = ""): void {
    const assetId = u.asset_id ?? "";
    const k = `${assetId}/${chain}`;
    const e = this.m.get(k) ?? {assetId, chain, amount: 0n, count: 0};
    e.amount += u.amount === null ? 0n : big(u.amount);
    e.count++;
    this.m.set(k, e);
  }
  aggregated(assets: AssetInfo): AggregatedAssetAmount[] {
    return [...this.m.values()].map((e) => ({...assetAmount(assets, e.assetId, e.amount), utxoCount: e.count}));
  }
  shared(assets: AssetInfo): SharedAssetBalance[] {
    return [...this.m.values()].map((e) => ({
      ...assetAmount(assets, e.assetId, e.amount),
      utxoCount: e.count,
      sharedWithChainId: e.chain,
    }));
  }
}

const after = (v: UtxoRow["locktime"], now: number): boolean => v !== null && num(v) > now;

/** Splits `utxos` (unspent, owned by the addresses) into the chain's own and its atomic memory (exported to it). */
function atomic(utxos: UtxoRow[], chainId: string): {own: UtxoRow[]; shared: UtxoRow[]} {
  const own: UtxoRow[] = [];
  const shared: UtxoRow[] = [];
  for (const u of utxos) (u.exported_to === chainId ? shared : own).push(u);
  return {own, shared};
}

function sharedBuckets(shared: UtxoRow[], now: number): {locked: Bucket; unlocked: Bucket} {
  const locked = new Bucket();
  const unlocked = new Bucket();
  for (const u of shared) (after(u.locktime, now) ? locked : unlocked).add(u, u.created_chain ?? "");
  return {locked, unlocked};
}

/**
 * P-chain balance kinds at `now`: a stake output before its staker's start is pending, during its period staked
 * (locked when its platform locktime has not passed), after its end an ordinary output again (the principal
 * returns as the same UTXO); otherwise a platform locktime in the future locks it (`lockedPlatform`), a stakeable
 * locktime in the future makes it `lockedStakeable`. Atomic memory: UTXOs exported to P not yet imported,
 * `status` `pendingImport`.
 */
export function pChainBalance(utxos: UtxoRow[], pChainId: string, now: number, assets: AssetInfo): PChainBalance {
  const b = {
    unlockedUnstaked: new Bucket(),
    unlockedStaked: new Bucket(),
    lockedPlatform: new Bucket(),
    lockedStakeable: new Bucket(),
    lockedStaked: new Bucket(),
    pendingStaked: new Bucket(),
  };
  const {own, shared} = atomic(utxos, pChainId);
  for (const u of own) {
    const staking = u.staked === true && u.staking_end !== null && num(u.staking_end) > now;
    if (staking && u.staker_start !== null && num(u.staker_start) > now) b.pendingStaked.add(u);
    // A stake output stays locked while its stakeable.LockOut locktime is ahead (it is returned locked at the end).
    else if (staking) (after(u.locktime, now) || after(u.stakeable_locktime, now) ? b.lockedStaked : b.unlockedStaked).add(u);
    else if (after(u.locktime, now)) b.lockedPlatform.add(u);
    else if (after(u.stakeable_locktime, now)) b.lockedStakeable.add(u);
    else b.unlockedUnstaked.add(u);
  }
  const s = sharedBuckets(shared, now);
  const status = (x: SharedAssetBalance): PChainSharedAsset => ({...x, status: "pendingImport"});
  return {
    unlockedUnstaked: b.unlockedUnstaked.aggregated(assets),
    unlockedStaked: b.unlockedStaked.aggregated(assets),
    lockedPlatform: b.lockedPlatform.aggregated(assets),
    lockedStakeable: b.lockedStakeable.aggregated(assets),
    lockedStaked: b.lockedStaked.aggregated(assets),
    pendingStaked: b.pendingStaked.aggregated(assets),
    atomicMemoryUnlocked: s.unlocked.shared(assets).map(status),
    atomicMemoryLocked: s.locked.shared(assets).map(status),
  };
}

/** X-chain balances at `now`: locked while the output's locktime is in the future. */
export function xChainBalances(utxos: UtxoRow[], xChainId: string, now: number, assets: AssetInfo): XChainBalances {
  const locked = new Bucket();
  const unlocked = new Bucket();
  const {own, shared} = atomic(utxos, xChainId);
  for (const u of own) (after(u.locktime, now) ? locked : unlocked).add(u);
  const s = sharedBuckets(shared, now);
  return {
    locked: locked.aggregated(assets),
    unlocked: unlocked.aggregated(assets),
    atomicMemoryUnlocked: s.unlocked.shared(assets),
    atomicMemoryLocked: s.locked.shared(assets),
  };
}

/** The C-chain's atomic memory for the addresses: UTXOs exported to C, not yet imported. */
export function cChainAtomicBalances(utxos: UtxoRow[], cChainId: string, now: number, assets: AssetInfo): CChainAtomicBalances {
  const s = sharedBuckets(atomic(utxos, cChainId).shared, now);
  return {atomicMemoryUnlocked: s.unlocked.shared(assets), atomicMemoryLocked: s.locked.shared(assets)};
}
