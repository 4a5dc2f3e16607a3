/** Glacier `PChainUtxo` and `PChainTransaction` from `utxos`, `txs` and `stakers` rows. */
import {toHex} from "../../../evm/hex.js";
import {cb58Decode} from "../../../util/cb58.js";
import {
  type AssetAmount,
  type AssetInfo,
  AssetSums,
  type DbNum,
  assetAmount,
  bech32Address,
  big,
  num,
  optNum,
} from "./common.js";

/** A `utxos` row, with the staker's start and end when the UTXO is a stake output (LEFT JOIN stakers). */
export interface UtxoRow {
  utxo_id: string;
  tx_id: string;
  output_index: number;
  created_chain: string | null;
  created_seq: DbNum | null;
  created_block: string | null;
  created_height: DbNum | null;
  created_ts: DbNum | null;
  asset_id: string | null;
  amount: DbNum | null;
  addresses: string[] | null;
  threshold: number | null;
  locktime: DbNum | null;
  stakeable_locktime: DbNum | null;
  staked: boolean | null;
  utxo_type: string | null;
  group_id: number | null;
  payload: Uint8Array | null;
  exported_to: string | null;
  consumed_chain: string | null;
  consuming_tx: string | null;
  consuming_block: string | null;
  consuming_height: DbNum | null;
  consuming_ts: DbNum | null;
  credentials: Array<{signature: string; publicKey: string}> | null;
  reward_type: string | null;
  staking_end: DbNum | null;
  staker_start: DbNum | null;
}

export type RewardType = "VALIDATOR" | "DELEGATOR" | "VALIDATOR_FEE";

export interface PChainUtxo {
  addresses: string[];
  asset: AssetAmount;
  consumedOnChainId: string;
  consumingTxHash?: string;
  createdOnChainId: string;
  utxoId: string;
  amount: string;
  assetId: string;
  blockNumber: string;
  blockTimestamp: number;
  consumingBlockNumber?: string;
  consumingBlockTimestamp?: number;
  platformLocktime?: number;
  outputIndex: number;
  rewardType?: RewardType;
  stakeableLocktime?: number;
  staked?: boolean;
  threshold?: number;
  txHash: string;
  utxoEndTimestamp?: number;
  utxoStartTimestamp?: number;
  utxoType: "STAKE" | "TRANSFER";
}

/**
 * A P-chain UTXO. Consumed on the chain that consumed it, else the destination of an export, else where it was
 * created. Staked outputs carry no consuming fields (the reward transaction returns the principal as the same
 * UTXO, as the hosted API shows it) and their staking period as start/end.
 */
export function pChainUtxoFromRow(r: UtxoRow, hrp: string, assets: AssetInfo): PChainUtxo {
  const assetId = r.asset_id ?? "";
  const amount = r.amount === null ? 0n : big(r.amount);
  const created = r.created_chain ?? r.consumed_chain ?? "";
  const staked = r.staked === true;
  const u: PChainUtxo = {
    addresses: (r.addresses ?? []).map((a) => bech32Address(hrp, a)),
    asset: assetAmount(assets, assetId, amount),
    consumedOnChainId: r.consumed_chain ?? r.exported_to ?? created,
    createdOnChainId: created,
    utxoId: r.utxo_id,
    amount: amount.toString(),
    assetId,
    blockNumber: r.created_height === null ? "" : String(r.created_height),
    blockTimestamp: optNum(r.created_ts) ?? 0,
    outputIndex: r.output_index,
    txHash: r.tx_id,
    utxoType: staked ? "STAKE" : "TRANSFER",
  };
  if (!staked && r.consuming_tx !== null) {
    u.consumingTxHash = r.consuming_tx;
    if (r.consuming_height !== null) u.consumingBlockNumber = String(r.consuming_height);
    if (r.consuming_ts !== null) u.consumingBlockTimestamp = num(r.consuming_ts);
  }
  if (r.locktime !== null) u.platformLocktime = num(r.locktime);
  if (r.reward_type !== null) u.rewardType = r.reward_type as RewardType;
  if (r.stakeable_locktime !== null && big(r.stakeable_locktime) !== 0n)
    u.stakeableLocktime = num(r.stakeable_locktime);
  u.staked = staked;
  if (r.threshold !== null) u.threshold = r.threshold;
  if (staked) {
    if (r.staker_start !== null) u.utxoStartTimestamp = num(r.staker_start);
    if (r.staking_end !== null) u.utxoEndTimestamp = num(r.staking_end);
  }
  return u;
}

/** `txs.details` as stored: model.ts `TxDetails` made JSON-safe. */
export interface OwnerJson {
  locktime: string | number;
  threshold: number;
  addresses: string[];
}
export interface BlsJson {
  publicKey: string;
  proofOfPossession: string;
}
export interface L1ValidatorJson {
  validationId: string;
  nodeId?: string;
  weight?: string | number;
  balance?: string | number;
  bls?: BlsJson | null;
  nonce?: string | number;
}
export interface TxDetailsJson {
  staker?: {
    kind: string;
    nodeId: string;
    subnetId: string;
    startTime: string | number | null;
    endTime: string | number;
    weight: string | number;
    rewardOwner: OwnerJson | null;
    delegationRewardOwner: OwnerJson | null;
    delegationShares: number;
    bls: BlsJson | null;
  };
  rewardedTxId?: string;
  subnetOwner?: OwnerJson;
  subnetId?: string;
  chain?: {chainName: string; vmId: string; fxIds: string[]; genesisData: string};
  asset?: {name: string; symbol: string; denomination: number};
  conversion?: {chainId: string; managerAddress: string; validators: L1ValidatorJson[]; conversionId: string};
  l1Validator?: L1ValidatorJson;
  /** What the fold derived for each L1 validator the transaction changes (rows.ts `L1EffectRow`). */
  l1Effects?: Array<{
    validationId: string;
    nodeId: string;
    subnetId: string;
    weight: string;
    remainingBalance: string;
    balanceChange: string;
  }>;
  extra?: Record<string, unknown>;
}

/** A `txs` row with its staker's estimate and reward transaction (LEFT JOIN stakers on the staking tx). */
export interface TxRow {
  chain: string;
  seq: DbNum;
  tx_id: string;
  tx_type: string;
  block_id: string;
  block_height: DbNum;
  ts: DbNum;
  memo: Uint8Array;
  source_chain: string | null;
  destination_chain: string | null;
  details: TxDetailsJson;
  evm: unknown;
  size_bytes: number;
  potential_reward: DbNum | null;
  reward_tx_id: string | null;
}

export interface BlsCredentials {
  publicKey: string;
  proofOfPossession: string;
}

export interface L1ValidatorDetailsTransaction {
  validationId: string;
  validationIdHex: string;
  nodeId: string;
  subnetId: string;
  weight: number;
  remainingBalance: number;
  balanceChange?: number;
  blsCredentials?: BlsCredentials;
}

/**
 * Helicon's P-chain types (vms/platformvm/txs/codec.go RegisterHeliconTypes), which the hosted API's
 * PChainTransactionType (a closed enum in chainkit) does not name yet: answered as its `UNKNOWN`, stored by name.
 */
const HELICON_TX_TYPES: ReadonlySet<string> = new Set([
  "AddAutoRenewedValidatorTx",
  "SetAutoRenewedValidatorConfigTx",
  "RewardAutoRenewedValidatorTx",
]);

export interface PChainTransaction {
  txHash: string;
  txType: string;
  blockTimestamp: number;
  blockNumber: string;
  blockHash: string;
  consumedUtxos: PChainUtxo[];
  emittedUtxos: PChainUtxo[];
  sourceChain?: string;
  destinationChain?: string;
  value: AssetAmount[];
  amountBurned: AssetAmount[];
  amountStaked: AssetAmount[];
  amountL1ValidatorBalanceBurned: AssetAmount[];
  l1ValidatorDetails?: L1ValidatorDetailsTransaction[];
  startTimestamp?: number;
  endTimestamp?: number;
  delegationFeePercent?: string;
  nodeId?: string;
  subnetId?: string;
  l1ValidatorManagerDetails?: {blockchainId: string; contractAddress: string};
  estimatedReward?: string;
  rewardTxHash?: string;
  rewardAddresses?: string[];
  memo?: string;
  stakingTxHash?: string;
  subnetOwnershipInfo?: {locktime: number; threshold: number; addresses: string[]};
  blsCredentials?: BlsCredentials;
  blockchainInfo?: {chainName: string; vmId: string};
}

/**
 * A P-chain transaction from its row and its UTXOs. `value`: what its non-staked outputs carry (exports
 * included); `amountStaked`: its stake outputs; `amountBurned`: inputs − outputs − stake, per asset;
 * `amountL1ValidatorBalanceBurned`: the L1 validator balances it funds.
 */
export function pChainTxFromRow(
  r: TxRow,
  consumed: UtxoRow[],
  emitted: UtxoRow[],
  hrp: string,
  assets: AssetInfo,
): PChainTransaction {
  const d = r.details;
  const value = new AssetSums();
  const staked = new AssetSums();
  const burned = new AssetSums();
  for (const u of consumed) if (u.asset_id !== null && u.amount !== null) burned.add(u.asset_id, big(u.amount));
  // A reward transaction only pays out: its outputs come from the reward pool, not from inputs.
  const isReward = r.tx_type === "RewardValidatorTx" || r.tx_type === "RewardDelegatorTx";
  for (const u of emitted) {
    if (u.asset_id === null || u.amount === null) continue;
    const a = big(u.amount);
    if (u.staked === true) staked.add(u.asset_id, a);
    else value.add(u.asset_id, a);
    if (!isReward) burned.add(u.asset_id, -a);
  }
  const l1Burned = new AssetSums();
  // L1 balances are paid in the fee asset: the asset the transaction consumes.
  const avax = [...consumed, ...emitted].find((u) => u.asset_id !== null)?.asset_id ?? null;
  const l1Balances: bigint[] = [];
  if (d.conversion) for (const v of d.conversion.validators) l1Balances.push(big(v.balance ?? 0));
  if (d.l1Validator?.balance !== undefined && r.tx_type !== "DisableL1ValidatorTx") {
    l1Balances.push(big(d.l1Validator.balance));
  }
  if (avax !== null) {
    for (const b of l1Balances) {
      l1Burned.add(avax, b);
      burned.add(avax, -b);
    }
    // An L1 validator's balance returned (a disable, a removal) is emitted without being consumed: not a burn.
    for (const e of d.l1Effects ?? []) if (big(e.balanceChange) < 0n) burned.add(avax, -big(e.balanceChange));
  }
  const t: PChainTransaction = {
    txHash: r.tx_id,
    txType: HELICON_TX_TYPES.has(r.tx_type) ? "UNKNOWN" : r.tx_type,
    blockTimestamp: num(r.ts),
    blockNumber: String(r.block_height),
    blockHash: r.block_id,
    consumedUtxos: consumed.map((u) => pChainUtxoFromRow(u, hrp, assets)),
    emittedUtxos: emitted.map((u) => pChainUtxoFromRow(u, hrp, assets)),
    value: value.toAmounts(assets),
    amountBurned: isReward ? [] : burned.toAmounts(assets),
    amountStaked: staked.toAmounts(assets),
    amountL1ValidatorBalanceBurned: l1Burned.toAmounts(assets),
  };
  if (r.source_chain !== null) t.sourceChain = r.source_chain;
  if (r.destination_chain !== null) t.destinationChain = r.destination_chain;
  const s = d.staker;
  if (s) {
    t.startTimestamp = s.startTime === null ? num(r.ts) : num(s.startTime);
    t.endTimestamp = num(s.endTime);
    t.nodeId = s.nodeId;
    t.subnetId = s.subnetId;
    if (s.kind === "validator") t.delegationFeePercent = (s.delegationShares / 10_000).toFixed(4);
    if (s.rewardOwner) t.rewardAddresses = s.rewardOwner.addresses.map((a) => bech32Address(hrp, a));
    if (s.bls) t.blsCredentials = {publicKey: s.bls.publicKey, proofOfPossession: s.bls.proofOfPossession};
    if (r.potential_reward !== null) t.estimatedReward = String(r.potential_reward);
    if (r.reward_tx_id !== null) t.rewardTxHash = r.reward_tx_id;
  } else if (d.subnetId !== undefined) {
    t.subnetId = d.subnetId;
  }
  if (d.rewardedTxId !== undefined) t.stakingTxHash = d.rewardedTxId;
  if (d.subnetOwner) {
    t.subnetOwnershipInfo = {
      locktime: num(d.subnetOwner.locktime),
      threshold: d.subnetOwner.threshold,
      addresses: d.subnetOwner.addresses.map((a) => bech32Address(hrp, a)),
    };
  }
  if (d.conversion) {
    t.l1ValidatorManagerDetails = {blockchainId: d.conversion.chainId, contractAddress: d.conversion.managerAddress};
  }
  if (d.l1Effects && d.l1Effects.length > 0) {
    const bls = new Map(
      [...(d.conversion?.validators ?? []), ...(d.l1Validator ? [d.l1Validator] : [])].map((v) => [
        v.validationId,
        v.bls,
      ]),
    );
    t.l1ValidatorDetails = d.l1Effects.map((e) => {
      const out: L1ValidatorDetailsTransaction = {
        validationId: e.validationId,
        validationIdHex: toHex(cb58Decode(e.validationId)),
        nodeId: e.nodeId,
        subnetId: e.subnetId,
        weight: num(e.weight),
        remainingBalance: num(e.remainingBalance),
        balanceChange: num(e.balanceChange),
      };
      const b = bls.get(e.validationId);
      if (b) out.blsCredentials = {publicKey: b.publicKey, proofOfPossession: b.proofOfPossession};
      return out;
    });
  }
  if (d.chain) t.blockchainInfo = {chainName: d.chain.chainName, vmId: d.chain.vmId};
  if (r.memo.length > 0) t.memo = toHex(r.memo);
  return t;
}
