/** Glacier `PrimaryNetworkBlock` / `GetPrimaryNetworkBlockResponse` from a `blocks` row. */
import {type DbNum, num} from "./common.js";

export interface ProposerDetails {
  proposerId?: string;
  proposerParentId?: string;
  proposerNodeId?: string;
  proposerPChainHeight?: number;
  proposerTimestamp?: number;
}

export interface PrimaryNetworkBlock {
  blockNumber: string;
  blockHash: string;
  parentHash: string;
  blockTimestamp: number;
  blockType: string;
  txCount: number;
  transactions: string[];
  blockSizeBytes: number;
  l1ValidatorsAccruedFees?: number;
  activeL1Validators?: number;
  currentSupply?: string;
  proposerDetails?: ProposerDetails;
}

export interface BlockRow {
  chain: string;
  height: DbNum;
  block_id: string;
  container_id: string;
  parent_id: string;
  block_type: string;
  ts: DbNum;
  tx_count: number;
  size_bytes: number;
  tx_ids: string[];
  proposer: ProposerDetails | null;
  current_supply: DbNum | null;
  l1_accrued_fees: DbNum | null;
  active_l1_validators: number | null;
}

export function blockFromRow(r: BlockRow): PrimaryNetworkBlock {
  const b: PrimaryNetworkBlock = {
    blockNumber: String(r.height),
    blockHash: r.block_id,
    parentHash: r.parent_id,
    blockTimestamp: num(r.ts),
    blockType: r.block_type,
    txCount: r.tx_count,
    transactions: r.tx_ids,
    blockSizeBytes: r.size_bytes,
  };
  if (r.l1_accrued_fees !== null) b.l1ValidatorsAccruedFees = num(r.l1_accrued_fees);
  if (r.active_l1_validators !== null) b.activeL1Validators = r.active_l1_validators;
  if (r.current_supply !== null) b.currentSupply = String(r.current_supply);
  if (r.proposer !== null) b.proposerDetails = {...r.proposer};
  return b;
}
