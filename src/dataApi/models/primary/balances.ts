/**
 * Glacier `PChainBalance`, `XChainBalances`, `CChainAtomicBalances` from the addresses' unspent UTXOs at a time,
 * summed in the store by what decides their kind (queries/primary/utxos.ts balanceGroups): the answer's size is the
 * number of assets, never the number of UTXOs.
 */
import {type AssetAmount, type AssetInfo, assetAmount, big} from "./common.js";

/** Unspent UTXOs of one asset, origin and kind at the time asked: their sum and count. */
export interface BalanceGroup {
  asset_id: string | null;
  created_chain: string | null;
  /** Set on a UTXO exported to the chain asked about (in its atomic memory, not yet imported). */
  exported_to: string | null;
  /** A stake output whose staking period has not ended. */
  staking: boolean;
  /** Its staker's start is still ahead. */
  pending: boolean;
  /** Its platform locktime is ahead. */
  locked: boolean;
  /** Its stakeable locktime is ahead. */
  stakeable_locked: boolean;
  amount: string | bigint | null;
  utxo_count: number | string;
}

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
  add(g: BalanceGroup, chain = ""): void {
    const assetId = g.asset_id ?? "";
    const k = `${assetId}/${chain}`;
    const e = this.m.get(k) ?? {assetId, chain, amount: 0n, count: 0};
    e.amount += g.amount === null ? 0n : big(g.amount);
    e.count += Number(g.utxo_count);
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

/** Splits the groups into the chain's own UTXOs and its atomic memory (exported to it). */
function atomic(groups: BalanceGroup[], chainId: string): {own: BalanceGroup[]; shared: BalanceGroup[]} {
  const own: BalanceGroup[] = [];
  const shared: BalanceGroup[] = [];
  for (const g of groups) (g.exported_to === chainId ? shared : own).push(g);
  return {own, shared};
}

function sharedBuckets(shared: BalanceGroup[]): {locked: Bucket; unlocked: Bucket} {
  const locked = new Bucket();
  const unlocked = new Bucket();
  for (const g of shared) (g.locked ? locked : unlocked).add(g, g.created_chain ?? "");
  return {locked, unlocked};
}

/**
 * P-chain balance kinds at `now`: a stake output before its staker's start is pending, during its period staked
 * (locked when its platform locktime has not passed), after its end an ordinary output again (the principal
 * returns as the same UTXO); otherwise a platform locktime in the future locks it (`lockedPlatform`), a stakeable
 * locktime in the future makes it `lockedStakeable`. Atomic memory: UTXOs exported to P not yet imported,
 * `status` `pendingImport`.
 */
export function pChainBalance(groups: BalanceGroup[], pChainId: string, assets: AssetInfo): PChainBalance {
  const b = {
    unlockedUnstaked: new Bucket(),
    unlockedStaked: new Bucket(),
    lockedPlatform: new Bucket(),
    lockedStakeable: new Bucket(),
    lockedStaked: new Bucket(),
    pendingStaked: new Bucket(),
  };
  const {own, shared} = atomic(groups, pChainId);
  for (const g of own) {
    if (g.staking && g.pending) b.pendingStaked.add(g);
    // A stake output stays locked while its stakeable.LockOut locktime is ahead (it is returned locked at the end).
    else if (g.staking) (g.locked || g.stakeable_locked ? b.lockedStaked : b.unlockedStaked).add(g);
    else if (g.locked) b.lockedPlatform.add(g);
    else if (g.stakeable_locked) b.lockedStakeable.add(g);
    else b.unlockedUnstaked.add(g);
  }
  const s = sharedBuckets(shared);
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
export function xChainBalances(groups: BalanceGroup[], xChainId: string, assets: AssetInfo): XChainBalances {
  const locked = new Bucket();
  const unlocked = new Bucket();
  const {own, shared} = atomic(groups, xChainId);
  for (const g of own) (g.locked ? locked : unlocked).add(g);
  const s = sharedBuckets(shared);
  return {
    locked: locked.aggregated(assets),
    unlocked: unlocked.aggregated(assets),
    atomicMemoryUnlocked: s.unlocked.shared(assets),
    atomicMemoryLocked: s.locked.shared(assets),
  };
}

/** The C-chain's atomic memory for the addresses: UTXOs exported to C, not yet imported. */
export function cChainAtomicBalances(
  groups: BalanceGroup[],
  cChainId: string,
  assets: AssetInfo,
): CChainAtomicBalances {
  const s = sharedBuckets(atomic(groups, cChainId).shared);
  return {atomicMemoryUnlocked: s.unlocked.shared(assets), atomicMemoryLocked: s.locked.shared(assets)};
}
