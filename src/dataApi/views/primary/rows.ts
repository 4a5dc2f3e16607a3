/**
 * Rows of the primary-network tables made from decoded containers (schema.ts says what each column holds). Pure:
 * the view (view.ts) decides what to look up, and batchSql.ts and stakingTables.ts write them; nothing here
 * touches the store.
 */
import type {BulkColumn} from "../../store/bulk.js";
import {bytesToBase64, bytesToHex, bytesToLatin1} from "../../../util/hex.js";
import type {Credential, Owner, PrimaryContainer, PrimaryTx, TxOutput} from "./model.js";

/** 40 hex digits of a 20-byte short ID, as stored in `addresses` columns. */
export function addressHex(a: Uint8Array): string {
  return bytesToHex(a);
}

export function ownerJson(
  o: Owner | null | undefined,
): {locktime: string; threshold: number; addresses: string[]} | null {
  if (!o) return null;
  return {locktime: o.locktime.toString(), threshold: o.threshold, addresses: o.addresses.map(addressHex)};
}

/**
 * A value made JSON-safe for the `details` columns: bigints as decimal strings, bytes as `0x` hex, except the
 * short IDs of an `addresses` array (40 hex digits, as every `addresses` column).
 */
export function jsonSafe(v: unknown, key = ""): unknown {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array) return key === "addresses" ? addressHex(v) : "0x" + bytesToHex(v);
  if (Array.isArray(v)) return v.map((x) => jsonSafe(x, key));
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = jsonSafe(x, k);
    return out;
  }
  return v;
}

export function credentialsJson(cs: Credential[]): Array<{signature: string; publicKey: string}> {
  return cs.map((c) => ({
    signature: bytesToBase64(c.signature),
    publicKey: c.publicKey ? bytesToBase64(c.publicKey) : "",
  }));
}

/** Where and when a row's transaction sits. */
export interface TxPlace {
  chain: "P" | "X" | "C";
  /** CB58 chain ID. */
  chainId: string;
  seq: bigint;
  blockId: string;
  height: bigint;
  ts: bigint;
}

/** What most UTXOs have of a creation's extra columns: none (one object for all, not one a call). */
export const NO_EXTRA: Readonly<{rewardType?: string; stakingEnd?: bigint}> = Object.freeze({});

/** A UTXO's creation columns, in the order of UTXO_CREATE_COLUMNS. */
export function utxoCreateRow(
  txId: string,
  o: TxOutput,
  place: TxPlace,
  extra: {rewardType?: string | null; stakingEnd?: bigint | null} = NO_EXTRA,
): unknown[] {
  return [
    o.utxoId,
    txId,
    o.outputIndex,
    place.chainId,
    place.seq,
    place.blockId,
    place.height,
    place.ts,
    o.assetId,
    o.amount.toString(),
    o.owner.addresses.map(addressHex),
    o.owner.threshold,
    o.owner.locktime,
    o.stakeableLocktime,
    o.staked,
    o.utxoType,
    o.groupId,
    o.payload,
    o.utxoBytes,
    o.exportedTo,
    extra.rewardType ?? null,
    extra.stakingEnd ?? null,
  ];
}

/**
 * The type of a stake output once an aborted proposal leaves it a plain UTXO, by its stakeable locktime (a locked
 * output while it has one). Used by the batch being built (Batch.unstake) and by the store (stakingFold abortStaker).
 */
export function unstakedType(stakeableLocktime: bigint): string {
  return stakeableLocktime === 0n ? "TRANSFER" : "STAKEABLE_LOCK";
}

export const UTXO_CREATE_COLUMNS = [
  {name: "utxo_id", type: "text"},
  {name: "tx_id", type: "text"},
  {name: "output_index", type: "int4"},
  {name: "created_chain", type: "text"},
  {name: "created_seq", type: "int8"},
  {name: "created_block", type: "text"},
  {name: "created_height", type: "int8"},
  {name: "created_ts", type: "int8"},
  {name: "asset_id", type: "text"},
  {name: "amount", type: "numeric"},
  {name: "addresses", type: "jsonb"},
  {name: "threshold", type: "int4"},
  {name: "locktime", type: "int8"},
  {name: "stakeable_locktime", type: "int8"},
  {name: "staked", type: "bool"},
  {name: "utxo_type", type: "text"},
  {name: "group_id", type: "int4"},
  {name: "payload", type: "bytea"},
  {name: "utxo_bytes", type: "bytea"},
  {name: "exported_to", type: "text"},
  {name: "reward_type", type: "text"},
  {name: "staking_end", type: "int8"},
] as const;

/** A UTXO's consumption: a `utxo_spends` row (the `utxos` row is the creation, folded before or after). */
export const UTXO_CONSUME_COLUMNS = [
  {name: "utxo_id", type: "text"},
  {name: "tx_id", type: "text"},
  {name: "output_index", type: "int4"},
  {name: "consumed_chain", type: "text"},
  {name: "consuming_tx", type: "text"},
  {name: "consuming_block", type: "text"},
  {name: "consuming_height", type: "int8"},
  {name: "consuming_ts", type: "int8"},
  {name: "credentials", type: "jsonb"},
] as const;

/** An address a transaction touches: a `tx_addresses` row. */
export const TX_ADDRESS_COLUMNS: BulkColumn[] = [
  {name: "chain", type: "text"},
  {name: "address", type: "bytea"},
  {name: "seq", type: "int8"},
];

/** An owner of a UTXO, with the UTXO's creation time (the order an address's UTXOs are listed in): a `utxo_addresses` row. */
export const UTXO_ADDRESS_COLUMNS: BulkColumn[] = [
  {name: "address", type: "bytea"},
  {name: "created_ts", type: "int8"},
  {name: "utxo_id", type: "text"},
];

/** An owner of an unspent UTXO: an `unspent_owned` row (schema 25), written with the UTXO, deleted with its spend. */
export const UNSPENT_OWNED_COLUMNS: BulkColumn[] = [
  {name: "address", type: "bytea"},
  {name: "utxo_id", type: "text"},
];

export const TX_COLUMNS = [
  {name: "chain", type: "text"},
  {name: "seq", type: "int8"},
  {name: "tx_id", type: "text"},
  {name: "tx_type", type: "text"},
  {name: "block_id", type: "text"},
  {name: "block_height", type: "int8"},
  {name: "ts", type: "int8"},
  {name: "memo", type: "bytea"},
  {name: "source_chain", type: "text"},
  {name: "destination_chain", type: "text"},
  {name: "details", type: "jsonb"},
  {name: "evm", type: "jsonb"},
  {name: "size_bytes", type: "int4"},
] as const;

/** What a transaction did to one L1 validator (the fold derives it), kept in its details as `l1Effects`. */
export interface L1EffectRow {
  validationId: string;
  nodeId: string;
  subnetId: string;
  weight: bigint;
  /** Its balance left after the transaction. */
  remainingBalance: bigint;
  /** What the transaction added to its balance; negative when it returned the balance (disabled or removed). */
  balanceChange: bigint;
}

export function txRow(tx: PrimaryTx, place: TxPlace, l1Effects: readonly L1EffectRow[] = []): unknown[] {
  const evm =
    tx.chain === "C"
      ? {
          // Each EVM input with the credential that signed it and the key recovered from it (Glacier's
          // EVMInput.credentials, as a UTXO input's are).
          inputs: tx.evmInputs.map((i) => ({
            address: "0x" + bytesToHex(i.address),
            assetId: i.assetId,
            amount: i.amount.toString(),
            nonce: i.nonce.toString(),
            credentials: credentialsJson(i.credentials),
          })),
          outputs: tx.evmOutputs.map((o) => ({
            address: "0x" + bytesToHex(o.address),
            assetId: o.assetId,
            amount: o.amount.toString(),
          })),
        }
      : null;
  return [
    place.chain,
    place.seq,
    tx.id,
    tx.txType,
    place.blockId,
    place.height,
    place.ts,
    tx.memo,
    tx.sourceChain,
    tx.destinationChain,
    jsonSafe(l1Effects.length > 0 ? {...tx.details, l1Effects} : tx.details),
    evm,
    tx.bytes.length,
  ];
}

export const BLOCK_COLUMNS = [
  {name: "chain", type: "text"},
  {name: "height", type: "int8"},
  {name: "block_id", type: "text"},
  {name: "container_id", type: "text"},
  {name: "parent_id", type: "text"},
  {name: "block_type", type: "text"},
  {name: "ts", type: "int8"},
  {name: "tx_count", type: "int4"},
  {name: "size_bytes", type: "int4"},
  {name: "tx_ids", type: "jsonb"},
  {name: "proposer", type: "jsonb"},
  {name: "current_supply", type: "numeric"},
  {name: "l1_accrued_fees", type: "int8"},
  {name: "active_l1_validators", type: "int4"},
] as const;

export function blockRow(
  c: PrimaryContainer,
  ts: bigint,
  supply: bigint | null,
  l1: {fees: bigint; active: number} | null,
): unknown[] {
  const p = c.proposer;
  return [
    c.chain,
    c.height,
    c.blockId,
    c.containerId,
    c.parentId,
    c.blockType,
    ts,
    c.txs.length,
    c.sizeBytes,
    c.txs.map((t) => t.id),
    p
      ? {
          proposerId: p.proposerId,
          proposerParentId: p.proposerParentId,
          proposerNodeId: p.proposerNodeId,
          proposerPChainHeight: Number(p.proposerPChainHeight),
          proposerTimestamp: Number(p.proposerTimestamp),
        }
      : null,
    supply === null ? null : supply.toString(),
    l1 ? l1.fees : null,
    l1 ? l1.active : null,
  ];
}

export const VERTEX_COLUMNS = [
  {name: "vertex_id", type: "text"},
  {name: "height", type: "int8"},
  {name: "seq", type: "int8"},
  {name: "parent_ids", type: "jsonb"},
  {name: "ts", type: "int8"},
  {name: "tx_count", type: "int4"},
  {name: "size_bytes", type: "int4"},
  {name: "tx_ids", type: "jsonb"},
] as const;

export function vertexRow(c: PrimaryContainer, seq: bigint, ts: bigint): unknown[] {
  return [c.containerId, c.height, seq, c.parentIds, ts, c.txs.length, c.sizeBytes, c.txs.map((t) => t.id)];
}

/** The 20-byte addresses a transaction sets as owners (outputs, stakers' reward owners, subnet and L1 owners). */
export function ownedAddresses(tx: PrimaryTx): Uint8Array[] {
  const out: Uint8Array[] = [];
  const owner = (o: Owner | null | undefined): void => {
    if (o) out.push(...o.addresses);
  };
  for (const o of tx.outputs) owner(o.owner);
  const d = tx.details;
  owner(d.staker?.rewardOwner);
  owner(d.staker?.delegationRewardOwner);
  owner(d.subnetOwner);
  for (const v of d.conversion?.validators ?? []) {
    owner(v.remainingBalanceOwner);
    owner(v.deactivationOwner);
  }
  owner(d.l1Validator?.remainingBalanceOwner);
  owner(d.l1Validator?.deactivationOwner);
  for (const e of [...tx.evmInputs, ...tx.evmOutputs]) out.push(e.address);
  return out;
}

/** Distinct byte strings, in first-seen order (`list` itself when it has one at most: do not change the answer). */
export function distinctBytes(list: Uint8Array[]): Uint8Array[] {
  // A transaction touches a few addresses: comparing them pairwise allocates nothing, where a set of their hex
  // strings allocated a set and a string each (about 5 % of the fold's garbage).
  if (list.length <= 1) return list;
  if (list.length <= SMALL_LIST) {
    const out: Uint8Array[] = [];
    for (const b of list) if (!seenIn(out, b)) out.push(b);
    return out;
  }
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  for (const b of list) {
    const k = bytesToLatin1(b);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(b);
    }
  }
  return out;
}

/** Lists up to this long are deduplicated by pairwise comparison. */
const SMALL_LIST = 16;

/** Whether `list` holds `b`'s bytes (a loop, not `some`: a closure a call is garbage too). */
function seenIn(list: readonly Uint8Array[], b: Uint8Array): boolean {
  for (const a of list) {
    if (a.length !== b.length) continue;
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    if (i === a.length) return true;
  }
  return false;
}
