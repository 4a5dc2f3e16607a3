/**
 * The EVM view's writes: a batch of derived blocks and the chain's new head in one SQL transaction (the caller's),
 * what the lanes behind the head add to blocks already folded (token metadata, the rows of call traces), and the
 * rollback of a reorg, lanes included. Rows that one statement could hit twice (balances, NFT owners, address kinds)
 * are merged in memory first: ON CONFLICT cannot update one row twice in a statement.
 */
import type {SqlTx} from "../../store/sql.js";
import {bulkInsert, type BulkColumn} from "../../store/bulk.js";
import {bytesToHex, hexToBytes} from "../../../evm/hex.js";
import {messageId} from "../../../warp/message.js";
import type {DerivedBlock, DerivedTraces} from "./derive.js";
import {foldIcmEvents, rollbackIcm} from "./icmFold.js";
import {
  enqueueAddressActivity,
  enqueueInternalActivity,
  rollbackOutbox,
  type LogRow,
  type Touch,
} from "./webhookOutbox.js";
import {foldMetrics, rollbackMetrics} from "./metricsFold.js";

export interface TokenInfo {
  /** 20, 721, 1155, or 0 (unknown). */
  erc: number;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}

const ZERO = new Uint8Array(20);
const isZero = (a: Uint8Array): boolean => a.every((b) => b === 0);

const c = (name: string, type: BulkColumn["type"]): BulkColumn => ({name, type});
const BLOCK_COLS = [
  c("chain_id", "text"),
  c("number", "int8"),
  c("hash", "bytea"),
  c("parent_hash", "bytea"),
  c("timestamp", "int8"),
  c("tx_count", "int4"),
  c("base_fee", "numeric"),
  c("gas_used", "numeric"),
  c("gas_limit", "numeric"),
  c("fees_spent", "numeric"),
  c("cumulative_txs", "int8"),
];
const TX_COLS = [
  c("chain_id", "text"),
  c("block_number", "int8"),
  c("tx_index", "int4"),
  c("hash", "bytea"),
  c("from_addr", "bytea"),
  c("to_addr", "bytea"),
  c("created", "bytea"),
  c("value", "numeric"),
  c("nonce", "int8"),
  c("gas_limit", "numeric"),
  c("gas_used", "numeric"),
  c("gas_price", "numeric"),
  c("max_fee", "numeric"),
  c("max_priority_fee", "numeric"),
  c("tx_type", "int4"),
  c("status", "int4"),
  c("input", "bytea"),
];
const TRANSFER_COLS = [
  c("chain_id", "text"),
  c("block_number", "int8"),
  c("tx_index", "int4"),
  c("log_index", "int4"),
  c("item", "int4"),
  c("erc", "int4"),
  c("token", "bytea"),
  c("from_addr", "bytea"),
  c("to_addr", "bytea"),
  c("token_id", "numeric"),
  c("value", "numeric"),
];
const ADDR_TRANSFER_COLS = [
  c("chain_id", "text"),
  c("address", "bytea"),
  c("erc", "int4"),
  c("block_number", "int8"),
  c("log_index", "int4"),
  c("item", "int4"),
];
const INTERNAL_COLS = [
  c("chain_id", "text"),
  c("block_number", "int8"),
  c("tx_index", "int4"),
  c("idx", "int4"),
  c("call_type", "text"),
  c("from_addr", "bytea"),
  c("to_addr", "bytea"),
  c("value", "numeric"),
  c("gas_limit", "numeric"),
  c("gas_used", "numeric"),
  c("reverted", "bool"),
];
const ADDR_INTERNAL_COLS = [
  c("chain_id", "text"),
  c("address", "bytea"),
  c("block_number", "int8"),
  c("tx_index", "int4"),
  c("idx", "int4"),
];
const ADDR_TX_COLS = [
  c("chain_id", "text"),
  c("address", "bytea"),
  c("block_number", "int8"),
  c("tx_index", "int4"),
  c("kinds", "int4"),
];
const CONTRACT_COLS = [
  c("chain_id", "text"),
  c("address", "bytea"),
  c("block_number", "int8"),
  c("tx_index", "int4"),
  c("deployer", "bytea"),
  c("deployer_contract", "bytea"),
];
const TOKEN_COLS = [
  c("chain_id", "text"),
  c("address", "bytea"),
  c("erc", "int4"),
  c("name", "text"),
  c("symbol", "text"),
  c("decimals", "int4"),
];
const BALANCE_COLS = [
  c("chain_id", "text"),
  c("owner", "bytea"),
  c("erc", "int4"),
  c("token", "bytea"),
  c("token_id", "numeric"),
  c("balance", "numeric"),
];
const NFT_COLS = [
  c("chain_id", "text"),
  c("token", "bytea"),
  c("token_id", "numeric"),
  c("erc", "int4"),
  c("owner", "bytea"),
  c("first_block", "int8"),
];

/**
 * Writes `blocks` (consecutive, continuing the stored head) and moves the head; returns the new cumulative tx count.
 * Their token metadata and call traces are the lanes' (writeTokens, writeTraces): blocks come without internals. On
 * a chain whose RPC serves no traces, the trace lane moves with the head (it has nothing to add). The metrics
 * service's rollups (metricsFold.ts) are kept in the same transaction; `chain.rollups: false` leaves them out (the
 * bench's baseline).
 */
export async function writeBlocks(
  tx: SqlTx,
  chain: {chainId: string; blockchainId: string | null; rollups?: boolean},
  blocks: DerivedBlock[],
  cumulativeBefore: bigint,
): Promise<bigint> {
  const {chainId} = chain;
  let cumulative = cumulativeBefore;
  const blockRows: unknown[][] = [];
  const txRows: unknown[][] = [];
  const transferRows: unknown[][] = [];
  const addrTransferRows: unknown[][] = [];
  const addrTx = new Map<string, unknown[]>();
  const contractRows = new Map<string, unknown[]>();
  const balances = new Map<string, unknown[]>();
  const nfts = new Map<string, unknown[]>();
  const touches: Touch[] = [];
  const logs = new Map<string, LogRow[]>();
  const delta = (owner: Uint8Array, erc: number, token: Uint8Array, tokenId: bigint, d: bigint): void => {
    if (isZero(owner) || d === 0n) return;
    const k = `${bytesToHex(owner)}:${erc}:${bytesToHex(token)}:${tokenId}`;
    const row = balances.get(k);
    if (row) row[5] = (row[5] as bigint) + d;
    else balances.set(k, [chainId, owner, erc, token, tokenId, d]);
  };

  // The chain's row first, as rollbackTo and a lane's commit take it (lanes.ts): transactions that write the same
  // rows (balances, contracts, tokens) then always lock in one order, and never deadlock on a PostgreSQL server.
  await lockChainRow(tx, chainId);
  for (const d of blocks) {
    const b = d.block;
    if (d.internals !== null)
      throw new Error(`block ${b.number} came with its traces: they are the trace lane's (writeTraces)`);
    cumulative += BigInt(b.txCount);
    blockRows.push([
      chainId,
      b.number,
      b.hash,
      b.parentHash,
      b.timestamp,
      b.txCount,
      b.baseFee,
      b.gasUsed,
      b.gasLimit,
      b.feesSpent,
      cumulative,
    ]);
    for (const t of d.txs) {
      txRows.push([
        chainId,
        b.number,
        t.txIndex,
        t.hash,
        t.from,
        t.to,
        t.created,
        t.value,
        t.nonce,
        t.gasLimit,
        t.gasUsed,
        t.gasPrice,
        t.maxFee,
        t.maxPriorityFee,
        t.txType,
        t.status,
        t.input,
      ]);
    }
    for (const tr of d.transfers) {
      transferRows.push([
        chainId,
        b.number,
        tr.txIndex,
        tr.logIndex,
        tr.item,
        tr.erc,
        tr.token,
        tr.from,
        tr.to,
        tr.tokenId,
        tr.value,
      ]);
      addrTransferRows.push([chainId, tr.from, tr.erc, b.number, tr.logIndex, tr.item]);
      if (bytesToHex(tr.to) !== bytesToHex(tr.from))
        addrTransferRows.push([chainId, tr.to, tr.erc, b.number, tr.logIndex, tr.item]);
      const id = tr.tokenId ?? 0n;
      delta(tr.from, tr.erc, tr.token, id, -tr.value);
      delta(tr.to, tr.erc, tr.token, id, tr.value);
      if (tr.erc !== 20) {
        const k = `${bytesToHex(tr.token)}:${id}`;
        const prev = nfts.get(k);
        // The last transfer of the batch names the ERC-721 owner; the first sighting stays the first block.
        nfts.set(k, [chainId, tr.token, id, tr.erc, tr.erc === 721 ? tr.to : null, prev ? prev[5] : b.number]);
      }
    }
    for (const ct of d.contracts) {
      const k = bytesToHex(ct.address);
      if (!contractRows.has(k))
        contractRows.set(k, [chainId, ct.address, b.number, ct.txIndex, ct.deployer, ct.deployerContract]);
    }
    const hashes = new Map(d.txs.map((t) => [t.txIndex, t.hash]));
    for (const [k, kinds] of d.addressKinds) {
      const [addr, txIndex] = k.split(":");
      const address = hexToBytes(addr!);
      addrTx.set(`${addr}:${b.number}:${txIndex}`, [chainId, address, b.number, Number(txIndex), kinds]);
      const txHash = hashes.get(Number(txIndex));
      if (txHash) touches.push({address, block: b.number, txIndex: Number(txIndex), txHash, blockHash: b.hash});
    }
    for (const l of d.logs ?? []) {
      const k = `${b.number}:${l.txIndex}`;
      const list = logs.get(k);
      if (list) list.push(l);
      else logs.set(k, [l]);
    }
  }

  await bulkInsert(tx, "evm_blocks", BLOCK_COLS, blockRows);
  await bulkInsert(tx, "evm_txs", TX_COLS, txRows);
  await bulkInsert(tx, "evm_transfers", TRANSFER_COLS, transferRows);
  await bulkInsert(tx, "evm_address_transfers", ADDR_TRANSFER_COLS, addrTransferRows, {onConflict: "DO NOTHING"});
  await bulkInsert(tx, "evm_address_txs", ADDR_TX_COLS, [...addrTx.values()]);
  await bulkInsert(tx, "evm_contracts", CONTRACT_COLS, [...contractRows.values()], {onConflict: "DO NOTHING"});
  await applyBalanceDeltas(tx, [...balances.values()]);
  await bulkInsert(tx, "evm_nfts", NFT_COLS, [...nfts.values()], {
    onConflict: "(chain_id, token, token_id) DO UPDATE SET owner = COALESCE(excluded.owner, evm_nfts.owner)",
  });
  await foldIcmEvents(
    tx,
    blocks
      .filter((d) => d.icm.length > 0)
      .map((d) => ({
        facts: {
          chainId,
          blockchainId: chain.blockchainId,
          blockNumber: d.block.number,
          timestamp: d.block.timestamp,
          txs: new Map(d.txs.map((t) => [t.txIndex, {hash: "0x" + bytesToHex(t.hash), gasUsed: t.gasUsed}])),
        },
        events: d.icm,
      })),
  );
  await enqueueAddressActivity(tx, chainId, touches, logs);
  const warpRows = blocks.flatMap((d) => d.warp.map((u) => [messageId(u), chainId, d.block.number, u]));
  await bulkInsert(
    tx,
    "warp_messages",
    [c("message_id", "bytea"), c("chain_id", "text"), c("block_number", "int8"), c("unsigned", "bytea")],
    warpRows,
    {onConflict: "DO NOTHING"},
  );
  if (chain.rollups !== false) await foldMetrics(tx, chainId, blocks);
  const last = blocks[blocks.length - 1]!.block;
  // fees_total: the chain's fees so far, for the AVAX supply's burned part (queries/primary/supply.ts).
  const fees = blocks.reduce((sum, d) => sum + BigInt(d.block.feesSpent), 0n);
  await tx.query(
    `UPDATE evm_chains SET head_number = $2, head_hash = $3, updated_at = $4, fees_total = fees_total + $5::numeric,
       trace_lane = CASE WHEN traces THEN trace_lane ELSE $2 END WHERE chain_id = $1`,
    [chainId, last.number, last.hash, BigInt(Math.floor(Date.now() / 1000)), fees.toString()],
  );
  return cumulative;
}

/** Locks the chain's row of evm_chains for this transaction; the first lock every write of the chain takes. */
export async function lockChainRow(tx: SqlTx, chainId: string): Promise<void> {
  await tx.query("SELECT 1 AS locked FROM evm_chains WHERE chain_id = $1 FOR UPDATE", [chainId]);
}

/** The token lane's write: each token contract's kind and metadata, once (a contract's first sighting decides). */
export async function writeTokens(
  tx: SqlTx,
  chainId: string,
  tokens: ReadonlyArray<TokenInfo & {address: Uint8Array}>,
): Promise<void> {
  const rows = tokens.map((t) => [chainId, t.address, t.erc, t.name, t.symbol, t.decimals]);
  await bulkInsert(tx, "evm_tokens", TOKEN_COLS, rows, {onConflict: "DO NOTHING"});
}

/**
 * The trace lane's write for blocks already folded: their internal transactions, who took part in them (the
 * internal bit ORed into the address's row of the transaction, or a row of its own), and the contracts contracts
 * deployed. Together with the rows the head wrote, the same rows as a block folded with its traces.
 */
export async function writeTraces(
  tx: SqlTx,
  chainId: string,
  blocks: ReadonlyArray<{number: bigint; traced: DerivedTraces}>,
): Promise<void> {
  const internalRows: unknown[][] = [];
  const addrInternalRows: unknown[][] = [];
  const addrTx: unknown[][] = [];
  const contractRows = new Map<string, unknown[]>();
  const touches: Array<{address: Uint8Array; block: bigint; txIndex: number}> = [];
  for (const {number, traced} of blocks) {
    for (const f of traced.internals) {
      internalRows.push([
        chainId,
        number,
        f.txIndex,
        f.idx,
        f.callType,
        f.from,
        f.to,
        f.value,
        f.gasLimit,
        f.gasUsed,
        f.reverted,
      ]);
      addrInternalRows.push([chainId, f.from, number, f.txIndex, f.idx]);
      if (f.to && bytesToHex(f.to) !== bytesToHex(f.from))
        addrInternalRows.push([chainId, f.to, number, f.txIndex, f.idx]);
    }
    for (const [k, kinds] of traced.addressKinds) {
      const [addr, txIndex] = k.split(":");
      const address = hexToBytes(addr!);
      addrTx.push([chainId, address, number, Number(txIndex), kinds]);
      touches.push({address, block: number, txIndex: Number(txIndex)});
    }
    for (const ct of traced.contracts) {
      const k = bytesToHex(ct.address);
      if (!contractRows.has(k))
        contractRows.set(k, [chainId, ct.address, number, ct.txIndex, ct.deployer, ct.deployerContract]);
    }
  }
  await bulkInsert(tx, "evm_internal_txs", INTERNAL_COLS, internalRows);
  await bulkInsert(tx, "evm_address_internals", ADDR_INTERNAL_COLS, addrInternalRows, {onConflict: "DO NOTHING"});
  await bulkInsert(tx, "evm_address_txs", ADDR_TX_COLS, addrTx, {
    onConflict:
      "(chain_id, address, block_number, tx_index) DO UPDATE SET kinds = evm_address_txs.kinds | excluded.kinds",
  });
  await bulkInsert(tx, "evm_contracts", CONTRACT_COLS, [...contractRows.values()], {onConflict: "DO NOTHING"});
  await enqueueInternalActivity(tx, chainId, touches);
}

/** Adds balance deltas (rows of BALANCE_COLS, one per key) and drops the balances they bring to zero. */
async function applyBalanceDeltas(tx: SqlTx, rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  await bulkInsert(tx, "evm_balances", BALANCE_COLS, rows, {
    onConflict:
      "(chain_id, owner, erc, token, token_id) DO UPDATE SET balance = evm_balances.balance + excluded.balance",
  });
  await tx.query(
    `DELETE FROM evm_balances b USING unnest($2::bytea[], $3::int4[], $4::bytea[], $5::numeric[]) AS u(o, e, t, i)
     WHERE b.chain_id = $1 AND b.owner = u.o AND b.erc = u.e AND b.token = u.t AND b.token_id = u.i AND b.balance = 0`,
    [rows[0]![0], rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3]), rows.map((r) => String(r[4]))],
  );
}

/**
 * Takes back every block after `to` (-1: all of them): balances are un-applied from the dropped transfers, ERC-721
 * owners go back to the last remaining transfer, rows are deleted, the head and the lanes move back. Returns the
 * cumulative tx count. Token metadata stays for a token the kept blocks show too (it is the contract's, read once).
 */
export async function rollbackTo(tx: SqlTx, chainId: string, to: bigint, hash: Uint8Array | null): Promise<bigint> {
  // First, so that a lane's write waits for this transaction (the chain's row is locked) and is then refused (its
  // reorgs count is stale); a lane's write committed before this takes the lock is deleted below with the blocks.
  await tx.query(
    `UPDATE evm_chains SET head_number = $2, head_hash = $3, updated_at = $4, reorgs = reorgs + 1,
       token_lane = LEAST(token_lane, $5), trace_lane = LEAST(trace_lane, $5) WHERE chain_id = $1`,
    [chainId, to < 0n ? null : to, hash, BigInt(Math.floor(Date.now() / 1000)), to < 0n ? -1n : to],
  );
  await tx.query(
    `INSERT INTO evm_balances (chain_id, owner, erc, token, token_id, balance)
     SELECT $1, owner, erc, token, token_id, sum(d) FROM (
       SELECT from_addr AS owner, erc, token, COALESCE(token_id, 0) AS token_id, value AS d FROM evm_transfers WHERE chain_id = $1 AND block_number > $2 AND from_addr <> $3
       UNION ALL
       SELECT to_addr, erc, token, COALESCE(token_id, 0), -value FROM evm_transfers WHERE chain_id = $1 AND block_number > $2 AND to_addr <> $3
     ) x GROUP BY owner, erc, token, token_id
     ON CONFLICT (chain_id, owner, erc, token, token_id) DO UPDATE SET balance = evm_balances.balance + excluded.balance`,
    [chainId, to, ZERO],
  );
  await tx.query("DELETE FROM evm_balances WHERE chain_id = $1 AND balance = 0", [chainId]);
  // A token seen only in the dropped blocks is read again if the new chain has it: its address may now hold another
  // contract (the same deployer and nonce on the new chain).
  await tx.query(
    `DELETE FROM evm_tokens tk WHERE tk.chain_id = $1 AND tk.address IN (SELECT token FROM evm_transfers WHERE chain_id = $1 AND block_number > $2)
       AND NOT EXISTS (SELECT 1 FROM evm_transfers t WHERE t.chain_id = $1 AND t.token = tk.address AND t.block_number <= $2)`,
    [chainId, to],
  );
  await tx.query("DELETE FROM evm_nfts WHERE chain_id = $1 AND first_block > $2", [chainId, to]);
  await rollbackIcm(tx, chainId, to);
  await rollbackOutbox(tx, chainId, to);
  // Before the blocks go: it reads their timestamps, then recounts the kept blocks of their hours.
  await rollbackMetrics(tx, chainId, to);
  await tx.query("DELETE FROM warp_messages WHERE chain_id = $1 AND block_number > $2", [chainId, to]);
  await tx.query(
    `UPDATE evm_nfts n SET owner = (
       SELECT t.to_addr FROM evm_transfers t WHERE t.chain_id = n.chain_id AND t.token = n.token AND t.token_id = n.token_id AND t.block_number <= $2
       ORDER BY t.block_number DESC, t.log_index DESC LIMIT 1)
     WHERE n.chain_id = $1 AND n.erc = 721 AND (n.token, n.token_id) IN (
       SELECT token, token_id FROM evm_transfers WHERE chain_id = $1 AND erc = 721 AND block_number > $2)`,
    [chainId, to],
  );
  await tx.query(
    "UPDATE evm_chains SET fees_total = fees_total - (SELECT coalesce(sum(fees_spent), 0) FROM evm_blocks WHERE chain_id = $1 AND number > $2) WHERE chain_id = $1",
    [chainId, to],
  );
  for (const table of ["evm_blocks", "evm_contracts"]) {
    const col = table === "evm_blocks" ? "number" : "block_number";
    await tx.query(`DELETE FROM ${table} WHERE chain_id = $1 AND ${col} > $2`, [chainId, to]);
  }
  for (const table of [
    "evm_txs",
    "evm_transfers",
    "evm_address_transfers",
    "evm_internal_txs",
    "evm_address_internals",
    "evm_address_txs",
  ]) {
    await tx.query(`DELETE FROM ${table} WHERE chain_id = $1 AND block_number > $2`, [chainId, to]);
  }
  const rows = await tx.query<{cumulative_txs: bigint}>(
    "SELECT cumulative_txs FROM evm_blocks WHERE chain_id = $1 AND number = $2",
    [chainId, to],
  );
  return rows[0]?.cumulative_txs ?? 0n;
}
