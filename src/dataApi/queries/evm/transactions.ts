/**
 * EVM blocks, transactions, transfers and internal transactions (docs/api/evm.md). Every list is a keyset
 * walk of one index (the table's primary key or an index made for it), newest first unless `sortOrder=asc`; the
 * keys of a page are chosen first and only those rows are joined with their details.
 */
import type {SqlClientLike} from "../primary/common.js";
import {Params, scanBound} from "../sql.js";
import {
  blockModel,
  fullTransaction,
  internalDetails,
  internalModel,
  nativeTransaction,
  transferDetails,
  transferModel,
  type BlockRow,
  type EvmBlock,
  type FullNativeTransactionDetails,
  type InternalRow,
  type NativeTransaction,
  type TransferRow,
  type TxRow,
} from "../../models/evm/index.js";

export type Cursor = Array<string | number | bigint>;

export interface EvmPage<T> {
  items: T[];
  /** The sort key of the last item when there is more. */
  next?: Cursor;
}

export interface EvmListArgs {
  chainId: string;
  pageSize: number;
  cursor: Cursor | null;
  sortOrder?: "asc" | "desc";
  startBlock?: bigint;
  endBlock?: bigint;
  /** Index entries a filtered page reads at most (queries/sql.ts); tests set a small one. */
  scanBudget?: number;
}

/** `$n` placeholders while collecting parameters. */
const TX_SELECT = `SELECT t.block_number, t.tx_index, b.hash AS block_hash, b.timestamp, b.base_fee::text AS base_fee, t.hash, t.from_addr, t.to_addr,
  t.created, t.value::text AS value, t.nonce, t.gas_limit::text AS gas_limit, t.gas_used::text AS gas_used, t.gas_price::text AS gas_price,
  t.max_fee::text AS max_fee, t.max_priority_fee::text AS max_priority_fee, t.tx_type, t.status, t.input,
  tk.name AS to_name, tk.symbol AS to_symbol, tk.decimals AS to_decimals
  FROM evm_txs t JOIN evm_blocks b ON b.chain_id = t.chain_id AND b.number = t.block_number
  LEFT JOIN evm_tokens tk ON tk.chain_id = t.chain_id AND tk.address = t.to_addr`;

const TRANSFER_SELECT = `SELECT tr.block_number, tr.tx_index, b.hash AS block_hash, b.timestamp, t.hash AS tx_hash, tr.log_index, tr.item, tr.erc, tr.token, tr.from_addr,
  tr.to_addr, tr.token_id::text AS token_id, tr.value::text AS value, tk.name, tk.symbol, tk.decimals, n.index_status,
  n.updated_at, NULL::bytea AS owner, coalesce(octet_length(n.token_uri), 0) + coalesce(octet_length(n.metadata::text), 0) AS nft_bytes
  FROM evm_transfers tr JOIN evm_blocks b ON b.chain_id = tr.chain_id AND b.number = tr.block_number
  JOIN evm_txs t ON t.chain_id = tr.chain_id AND t.block_number = tr.block_number AND t.tx_index = tr.tx_index
  LEFT JOIN evm_tokens tk ON tk.chain_id = tr.chain_id AND tk.address = tr.token
  LEFT JOIN evm_nfts n ON n.chain_id = tr.chain_id AND n.token = tr.token AND n.token_id = tr.token_id`;

/**
 * The most bytes of NFT token URIs and metadata one answer's transfers carry (a transaction's, a page's): a token
 * URI may hold 2 MiB and its metadata 1 MiB, and a transaction may move the same token a thousand times. Past it,
 * a transfer's token has an empty `tokenUri` and only its `indexStatus` as metadata; the NFT endpoints serve the
 * token whole (docs/api/evm.md).
 */
export const ANSWER_NFT_BYTES = 8 * 1024 * 1024;

/**
 * Transfer rows (TRANSFER_SELECT, which reads only the size of each NFT's URI and metadata) with those of their NFTs
 * that fit ANSWER_NFT_BYTES in row order, read once per token: the rest carry none.
 */
async function withNftPayloads<
  R extends TransferRow & {erc: number; token: Uint8Array; nft_bytes?: number | string | bigint},
>(sql: SqlClientLike, chainId: string, rows: R[]): Promise<R[]> {
  let used = 0;
  const wanted = new Map<string, {token: Uint8Array; tokenId: string}>();
  const fits = new Set<R>();
  for (const r of rows) {
    const bytes = Number(r.nft_bytes ?? 0);
    if (r.erc === 20 || r.token_id === null || bytes === 0 || used + bytes > ANSWER_NFT_BYTES) continue;
    used += bytes;
    fits.add(r);
    wanted.set(`${Buffer.from(r.token).toString("hex")}:${r.token_id}`, {token: r.token, tokenId: r.token_id});
  }
  const payloads = new Map<string, {token_uri: string | null; metadata: TransferRow["metadata"]}>();
  if (wanted.size > 0) {
    const got = await sql.query<{
      token: Uint8Array;
      token_id: string;
      token_uri: string | null;
      metadata: TransferRow["metadata"];
    }>(
      `SELECT n.token, n.token_id::text AS token_id, n.token_uri, n.metadata FROM evm_nfts n
       JOIN unnest($2::bytea[], $3::numeric[]) AS k(token, token_id) ON n.token = k.token AND n.token_id = k.token_id WHERE n.chain_id = $1`,
      [chainId, [...wanted.values()].map((w) => w.token), [...wanted.values()].map((w) => w.tokenId)],
    );
    for (const g of got)
      payloads.set(`${Buffer.from(g.token).toString("hex")}:${g.token_id}`, {
        token_uri: g.token_uri,
        metadata: g.metadata,
      });
  }
  for (const r of rows) {
    const p = fits.has(r) ? payloads.get(`${Buffer.from(r.token).toString("hex")}:${r.token_id}`) : undefined;
    r.token_uri = p?.token_uri ?? null;
    r.metadata = p?.metadata ?? null;
  }
  return rows;
}

const INTERNAL_SELECT = `SELECT i.block_number, i.tx_index, i.idx, b.hash AS block_hash, b.timestamp, t.hash AS tx_hash, i.call_type, i.from_addr, i.to_addr,
  i.value::text AS value, i.gas_limit::text AS gas_limit, i.gas_used::text AS gas_used, i.reverted
  FROM evm_internal_txs i JOIN evm_blocks b ON b.chain_id = i.chain_id AND b.number = i.block_number
  JOIN evm_txs t ON t.chain_id = i.chain_id AND t.block_number = i.block_number AND t.tx_index = i.tx_index`;

/** The keyset condition `(cols) < (cursor)` (or `>` ascending), and the block range on `blockCol`. */
function window(p: Params, a: EvmListArgs, cols: string[], blockCol: string): string[] {
  const where: string[] = [];
  if (a.cursor) {
    if (a.cursor.length !== cols.length) throw new CursorError();
    where.push(
      `(${cols.join(", ")}) ${a.sortOrder === "asc" ? ">" : "<"} (${a.cursor.map((v) => p.add(v)).join(", ")})`,
    );
  }
  if (a.startBlock !== undefined) where.push(`${blockCol} >= ${p.add(a.startBlock)}`);
  if (a.endBlock !== undefined) where.push(`${blockCol} < ${p.add(a.endBlock)}`);
  return where;
}

/** A page token whose cursor has the wrong shape for this list (the router turns it into a 400). */
export class CursorError extends Error {
  constructor() {
    super("pageToken: not a cursor of this list");
  }
}

const order = (a: EvmListArgs, cols: string[]): string =>
  cols.map((c) => `${c} ${a.sortOrder === "asc" ? "ASC" : "DESC"}`).join(", ");

function paged<R, T>(rows: R[], pageSize: number, map: (r: R) => T, key: (r: R) => Cursor): EvmPage<T> {
  const more = rows.length > pageSize;
  const kept = rows.slice(0, pageSize);
  const page: EvmPage<T> = {items: kept.map(map)};
  if (more) page.next = key(kept[kept.length - 1]!);
  return page;
}

// ---- blocks ----

/** The columns blockModel reads. */
const BLOCK_COLUMNS = `number, hash, parent_hash, timestamp, tx_count, base_fee::text AS base_fee, gas_used::text AS gas_used, gas_limit::text AS gas_limit,
  fees_spent::text AS fees_spent, cumulative_txs`;

export async function listBlocks(sql: SqlClientLike, a: EvmListArgs): Promise<EvmPage<EvmBlock>> {
  const p = new Params();
  const where = [`chain_id = ${p.add(a.chainId)}`, ...window(p, a, ["number"], "number")];
  const rows = await sql.query<BlockRow>(
    `SELECT ${BLOCK_COLUMNS} FROM evm_blocks WHERE ${where.join(" AND ")} ORDER BY ${order(a, ["number"])} LIMIT ${p.add(a.pageSize + 1)}`,
    p.values,
  );
  return paged(
    rows,
    a.pageSize,
    (r) => blockModel(a.chainId, r),
    (r) => [r.number.toString()],
  );
}

/** A cursor of the lists across chains: [timestamp, chainId, blockNumber(, txIndex)], checked for its shape. */
function acrossCursor(c: Cursor | null, length: 3 | 4): Cursor | null {
  if (c === null) return null;
  if (c.length !== length || !c.every((v, i) => (i === 1 ? typeof v === "string" : /^[0-9]{1,19}$/.test(String(v)))))
    throw new CursorError();
  return c;
}

/**
 * The latest blocks of the given chains together, newest first by time, then chain and number (the order
 * evm_blocks_by_time keeps, schema 13); cursor [timestamp, chainId, number].
 */
export async function listBlocksAcrossChains(
  sql: SqlClientLike,
  a: {chainIds: string[]; pageSize: number; cursor: Cursor | null},
): Promise<EvmPage<EvmBlock>> {
  const c = acrossCursor(a.cursor, 3);
  if (a.chainIds.length === 0) return {items: []};
  const p = new Params();
  const where = [`chain_id = ANY(${p.add(a.chainIds)}::text[])`];
  if (c)
    where.push(`(timestamp, chain_id, number) < (${p.add(c[0])}::int8, ${p.add(c[1])}::text, ${p.add(c[2])}::int8)`);
  const rows = await sql.query<BlockRow & {chain_id: string}>(
    `SELECT chain_id, ${BLOCK_COLUMNS} FROM evm_blocks WHERE ${where.join(" AND ")} ORDER BY timestamp DESC, chain_id DESC, number DESC LIMIT ${p.add(a.pageSize + 1)}`,
    p.values,
  );
  return paged(
    rows,
    a.pageSize,
    (r) => blockModel(r.chain_id, r),
    (r) => [r.timestamp.toString(), r.chain_id, r.number.toString()],
  );
}

/** Rounds of blocks one page of the transactions across chains may read before it answers short (a page each). */
export const ACROSS_MAX_ROUNDS = 10;

/**
 * The latest transactions of the given chains together, in their blocks' order across chains (listBlocksAcrossChains)
 * and newest first within a block; `status` 0 or 1 keeps the failed or the successful. Blocks with transactions are
 * read a page at a time and their transactions joined, until the page is full or the blocks run out. A status that
 * few transactions have could otherwise walk the chains back to genesis in one request: after `maxRounds` rounds the
 * page is answered as it is, short or empty, with a cursor past the last block read, and the next page goes on
 * from there. Cursor [timestamp, chainId, blockNumber, txIndex] (txIndex 0 after a whole block).
 */
export async function listTransactionsAcrossChains(
  sql: SqlClientLike,
  a: {chainIds: string[]; pageSize: number; cursor: Cursor | null; status?: 0 | 1; maxRounds?: number},
): Promise<EvmPage<NativeTransaction>> {
  const c = acrossCursor(a.cursor, 4);
  if (a.chainIds.length === 0) return {items: []};
  const rows: Array<TxRow & {chain_id: string}> = [];
  // The blocks still to read start at the cursor's block (inclusive: its earlier transactions are still to come).
  let from: {key: Cursor; inclusive: boolean} | null = c ? {key: c.slice(0, 3), inclusive: true} : null;
  for (let round = 0; ; round++) {
    if (round === (a.maxRounds ?? ACROSS_MAX_ROUNDS)) {
      // Answered short: the next page starts after the last block read (no transaction of it is below index 0).
      const page = paged(
        rows,
        a.pageSize,
        (r) => nativeTransaction(r.chain_id, r),
        () => [],
      );
      return {items: page.items, next: [...from!.key, 0]};
    }
    const p = new Params();
    const where = [`chain_id = ANY(${p.add(a.chainIds)}::text[])`, "tx_count > 0"];
    if (from)
      where.push(
        `(timestamp, chain_id, number) ${from.inclusive ? "<=" : "<"} (${p.add(from.key[0])}::int8, ${p.add(from.key[1])}::text, ${p.add(from.key[2])}::int8)`,
      );
    const blocks = await sql.query<{chain_id: string; number: bigint; timestamp: bigint}>(
      `SELECT chain_id, number, timestamp FROM evm_blocks WHERE ${where.join(" AND ")} ORDER BY timestamp DESC, chain_id DESC, number DESC LIMIT ${p.add(a.pageSize + 1)}`,
      p.values,
    );
    if (blocks.length === 0) break;
    const q = new Params();
    const txWhere = [
      `(t.chain_id, t.block_number) IN (SELECT * FROM unnest(${q.add(blocks.map((b) => b.chain_id))}::text[], ${q.add(blocks.map((b) => b.number.toString()))}::int8[]))`,
    ];
    if (a.status !== undefined) txWhere.push(`t.status = ${q.add(a.status)}`);
    if (c && from?.inclusive)
      txWhere.push(
        `(b.timestamp, t.chain_id, t.block_number, t.tx_index) < (${q.add(c[0])}::int8, ${q.add(c[1])}::text, ${q.add(c[2])}::int8, ${q.add(c[3])}::int4)`,
      );
    // In keyset order, so the rows past what the page still needs are never read.
    rows.push(
      ...(await sql.query<TxRow & {chain_id: string}>(
        `${TX_SELECT.replace("SELECT ", "SELECT t.chain_id, ")} WHERE ${txWhere.join(" AND ")}
         ORDER BY b.timestamp DESC, t.chain_id DESC, t.block_number DESC, t.tx_index DESC LIMIT ${q.add(a.pageSize + 1 - rows.length)}`,
        q.values,
      )),
    );
    if (rows.length > a.pageSize || blocks.length <= a.pageSize) break;
    const last = blocks[blocks.length - 1]!;
    from = {key: [last.timestamp.toString(), last.chain_id, last.number.toString()], inclusive: false};
  }
  return paged(
    rows,
    a.pageSize,
    (r) => nativeTransaction(r.chain_id, r),
    (r) => [r.timestamp.toString(), r.chain_id, r.block_number.toString(), r.tx_index],
  );
}

/** Of the given chains, those on which the address took part in a transaction (evm_address_txs' key, a probe each). */
export async function chainsOfAddress(sql: SqlClientLike, chainIds: string[], address: Uint8Array): Promise<string[]> {
  const rows = await sql.query<{chain_id: string}>(
    `SELECT c.chain_id FROM unnest($1::text[]) c(chain_id) WHERE EXISTS (SELECT 1 FROM evm_address_txs x WHERE x.chain_id = c.chain_id AND x.address = $2) ORDER BY c.chain_id`,
    [chainIds, address],
  );
  return rows.map((r) => r.chain_id);
}

/** A block by number (decimal) or hash (0x + 64 hex); null when unknown. */
export async function getBlock(
  sql: SqlClientLike,
  chainId: string,
  blockId: {number?: bigint; hash?: Uint8Array},
): Promise<EvmBlock | null> {
  const rows = await sql.query<BlockRow>(
    `SELECT ${BLOCK_COLUMNS} FROM evm_blocks WHERE chain_id = $1 AND ${blockId.number !== undefined ? "number = $2" : "hash = $2"}`,
    [chainId, blockId.number ?? blockId.hash],
  );
  return rows[0] ? blockModel(chainId, rows[0]) : null;
}

// ---- transactions ----

export async function listTransactions(
  sql: SqlClientLike,
  a: EvmListArgs & {status?: 0 | 1; blockNumber?: bigint},
): Promise<EvmPage<NativeTransaction>> {
  const p = new Params();
  const where = [
    `t.chain_id = ${p.add(a.chainId)}`,
    ...window(p, a, ["t.block_number", "t.tx_index"], "t.block_number"),
  ];
  if (a.status !== undefined) where.push(`t.status = ${p.add(a.status)}`);
  if (a.blockNumber !== undefined) where.push(`t.block_number = ${p.add(a.blockNumber)}`);
  const rows = await sql.query<TxRow>(
    `${TX_SELECT} WHERE ${where.join(" AND ")} ORDER BY ${order(a, ["t.block_number", "t.tx_index"])} LIMIT ${p.add(a.pageSize + 1)}`,
    p.values,
  );
  return paged(
    rows,
    a.pageSize,
    (r) => nativeTransaction(a.chainId, r),
    (r) => [r.block_number.toString(), r.tx_index],
  );
}

/**
 * The transactions of an address (kinds: the evm_address_txs bits that count; 0 = any). A kind is checked on the
 * address's entries, so a kind few of them have reads at most the scan budget's entries a page (queries/sql.ts):
 * where that walk ends is read first, and the page is bounded by it (`scanEnd` when it ends the page short). Read
 * after the page instead, blocks folded between the two statements moved the end and the next page repeated rows.
 */
async function addressTxRows(
  sql: SqlClientLike,
  a: EvmListArgs & {address: Uint8Array; kinds: number},
): Promise<{rows: TxRow[]; scanEnd?: Cursor}> {
  const p = new Params();
  const keys = ["x.block_number", "x.tx_index"];
  const where = [
    `x.chain_id = ${p.add(a.chainId)}`,
    `x.address = ${p.add(a.address)}`,
    ...window(p, a, keys, "x.block_number"),
  ];
  let scanEnd: Cursor | undefined;
  if (a.kinds !== 0) {
    const end = await scanBound<{block_number: string; tx_index: number}>(
      sql,
      `SELECT x.block_number::text AS block_number, x.tx_index FROM evm_address_txs x WHERE ${where.join(" AND ")} ORDER BY ${order(a, keys)}`,
      [...p.values],
      a.scanBudget,
    );
    if (end !== null) {
      scanEnd = [end.block_number, end.tx_index];
      where.push(
        `(x.block_number, x.tx_index) ${a.sortOrder === "asc" ? "<=" : ">="} (${p.add(end.block_number)}::int8, ${p.add(end.tx_index)}::int4)`,
      );
    }
    where.push(`(x.kinds & ${p.add(a.kinds)}) <> 0`);
  }
  const rows = await sql.query<TxRow>(
    `WITH k AS (SELECT x.block_number, x.tx_index FROM evm_address_txs x WHERE ${where.join(" AND ")} ORDER BY ${order(a, keys)} LIMIT ${p.add(a.pageSize + 1)})
     ${TX_SELECT} JOIN k ON k.block_number = t.block_number AND k.tx_index = t.tx_index WHERE t.chain_id = $1 ORDER BY ${order(a, ["t.block_number", "t.tx_index"])}`,
    p.values,
  );
  return rows.length > a.pageSize || scanEnd === undefined ? {rows} : {rows, scanEnd};
}

export async function listNativeTransactions(
  sql: SqlClientLike,
  a: EvmListArgs & {address: Uint8Array},
): Promise<EvmPage<NativeTransaction>> {
  const {rows, scanEnd} = await addressTxRows(sql, {...a, kinds: 1});
  const page = paged(
    rows,
    a.pageSize,
    (r) => nativeTransaction(a.chainId, r),
    (r) => [r.block_number.toString(), r.tx_index],
  );
  return scanEnd === undefined ? page : {items: page.items, next: scanEnd};
}

/** Endpoint 3: each transaction with only the transfers and internal transactions where the address is from or to. */
export async function listAddressTransactions(
  sql: SqlClientLike,
  a: EvmListArgs & {address: Uint8Array},
): Promise<EvmPage<Record<string, unknown>>> {
  const {rows} = await addressTxRows(sql, {...a, kinds: 0});
  const page = paged(
    rows,
    a.pageSize,
    (r) => r,
    (r) => [r.block_number.toString(), r.tx_index],
  );
  if (page.items.length === 0) return {items: []};
  const keys = [page.items.map((r) => r.block_number), page.items.map((r) => r.tx_index)];
  const mine = "(tr.from_addr = $4 OR tr.to_addr = $4)";
  const transfers = await withNftPayloads(
    sql,
    a.chainId,
    await sql.query<TransferRow & {tx_index: number; erc: number; token: Uint8Array}>(
      `${TRANSFER_SELECT} JOIN unnest($2::int8[], $3::int4[]) AS k(bn, ti) ON k.bn = tr.block_number AND k.ti = tr.tx_index
       WHERE tr.chain_id = $1 AND ${mine} ORDER BY tr.block_number, tr.log_index, tr.item`,
      [a.chainId, ...keys, a.address],
    ),
  );
  const internals = await sql.query<InternalRow & {tx_index: number}>(
    `${INTERNAL_SELECT} JOIN unnest($2::int8[], $3::int4[]) AS k(bn, ti) ON k.bn = i.block_number AND k.ti = i.tx_index
     WHERE i.chain_id = $1 AND (i.from_addr = $4 OR i.to_addr = $4) ORDER BY i.block_number, i.tx_index, i.idx`,
    [a.chainId, ...keys, a.address],
  );
  const items = page.items.map((r) => {
    const out: Record<string, unknown> = {nativeTransaction: nativeTransaction(a.chainId, r)};
    const same = (x: {block_number: bigint; tx_index: number}): boolean =>
      x.block_number === r.block_number && x.tx_index === r.tx_index;
    for (const t of transfers.filter(same)) {
      const {kind, item} = transferDetails(t);
      ((out[kind] ??= []) as unknown[]).push(item);
    }
    const its = internals.filter(same).map(internalDetails);
    if (its.length > 0) out.internalTransactions = its;
    return out;
  });
  return page.next ? {items, next: page.next} : {items};
}

/** Endpoint 15: one transaction with all its transfers and internal transactions; null when unknown. */
export async function getTransaction(
  sql: SqlClientLike,
  chainId: string,
  hash: Uint8Array,
): Promise<{tx: FullNativeTransactionDetails; details: Record<string, unknown>} | null> {
  const rows = await sql.query<TxRow>(`${TX_SELECT} WHERE t.chain_id = $1 AND t.hash = $2`, [chainId, hash]);
  const r = rows[0];
  if (!r) return null;
  const transfers = await withNftPayloads(
    sql,
    chainId,
    await sql.query<TransferRow & {erc: number; token: Uint8Array}>(
      `${TRANSFER_SELECT} WHERE tr.chain_id = $1 AND tr.block_number = $2 AND tr.tx_index = $3 ORDER BY tr.log_index, tr.item`,
      [chainId, r.block_number, r.tx_index],
    ),
  );
  const internals = await sql.query<InternalRow>(
    `${INTERNAL_SELECT} WHERE i.chain_id = $1 AND i.block_number = $2 AND i.tx_index = $3 ORDER BY i.idx`,
    [chainId, r.block_number, r.tx_index],
  );
  const details: Record<string, unknown> = {};
  for (const t of transfers) {
    const {kind, item} = transferDetails(t);
    ((details[kind] ??= []) as unknown[]).push(item);
  }
  if (internals.length > 0) details.internalTransactions = internals.map(internalDetails);
  return {tx: fullTransaction(chainId, r), details};
}

/** :listErc20 / :listErc721 / :listErc1155: the address's transfers of one kind. */
export async function listAddressTransfers(
  sql: SqlClientLike,
  a: EvmListArgs & {address: Uint8Array; erc: 20 | 721 | 1155},
): Promise<EvmPage<Record<string, unknown>>> {
  const p = new Params();
  const where = [
    `x.chain_id = ${p.add(a.chainId)}`,
    `x.address = ${p.add(a.address)}`,
    `x.erc = ${p.add(a.erc)}`,
    ...window(p, a, ["x.block_number", "x.log_index", "x.item"], "x.block_number"),
  ];
  const rows = await sql.query<TransferRow & {erc: number; token: Uint8Array}>(
    `WITH k AS (SELECT x.block_number, x.log_index, x.item FROM evm_address_transfers x WHERE ${where.join(" AND ")}
       ORDER BY ${order(a, ["x.block_number", "x.log_index", "x.item"])} LIMIT ${p.add(a.pageSize + 1)})
     ${TRANSFER_SELECT} JOIN k ON k.block_number = tr.block_number AND k.log_index = tr.log_index AND k.item = tr.item
     WHERE tr.chain_id = $1 ORDER BY ${order(a, ["tr.block_number", "tr.log_index", "tr.item"])}`,
    p.values,
  );
  await withNftPayloads(sql, a.chainId, rows);
  return paged(rows, a.pageSize, transferModel, (r) => [
    r.block_number.toString(),
    r.log_index,
    (r as TransferRow & {item: number}).item,
  ]);
}

/** Endpoint 7: the transfers of one token contract. */
export async function listTokenTransfers(
  sql: SqlClientLike,
  a: EvmListArgs & {token: Uint8Array},
): Promise<EvmPage<Record<string, unknown>>> {
  const p = new Params();
  const where = [
    `tr.chain_id = ${p.add(a.chainId)}`,
    `tr.token = ${p.add(a.token)}`,
    ...window(p, a, ["tr.block_number", "tr.log_index", "tr.item"], "tr.block_number"),
  ];
  const rows = await sql.query<TransferRow & {item: number; erc: number; token: Uint8Array}>(
    `${TRANSFER_SELECT} WHERE ${where.join(" AND ")} ORDER BY ${order(a, ["tr.block_number", "tr.log_index", "tr.item"])} LIMIT ${p.add(a.pageSize + 1)}`,
    p.values,
  );
  await withNftPayloads(sql, a.chainId, rows);
  return paged(rows, a.pageSize, transferModel, (r) => [r.block_number.toString(), r.log_index, r.item]);
}

/** Endpoint 8: internal transactions from or to the address. */
export async function listInternalTransactions(
  sql: SqlClientLike,
  a: EvmListArgs & {address: Uint8Array},
): Promise<EvmPage<Record<string, unknown>>> {
  const p = new Params();
  const where = [
    `x.chain_id = ${p.add(a.chainId)}`,
    `x.address = ${p.add(a.address)}`,
    ...window(p, a, ["x.block_number", "x.tx_index", "x.idx"], "x.block_number"),
  ];
  const rows = await sql.query<InternalRow & {tx_index: number; idx: number}>(
    `WITH k AS (SELECT x.block_number, x.tx_index, x.idx FROM evm_address_internals x WHERE ${where.join(" AND ")}
       ORDER BY ${order(a, ["x.block_number", "x.tx_index", "x.idx"])} LIMIT ${p.add(a.pageSize + 1)})
     ${INTERNAL_SELECT} JOIN k ON k.block_number = i.block_number AND k.tx_index = i.tx_index AND k.idx = i.idx
     WHERE i.chain_id = $1 ORDER BY ${order(a, ["i.block_number", "i.tx_index", "i.idx"])}`,
    p.values,
  );
  return paged(rows, a.pageSize, internalModel, (r) => [r.block_number.toString(), r.tx_index, r.idx]);
}

/** The last block the view folded for a chain, or null. */
export async function indexedHead(sql: SqlClientLike, chainId: string): Promise<bigint | null> {
  const rows = await sql.query<{head_number: bigint | null}>("SELECT head_number FROM evm_chains WHERE chain_id = $1", [
    chainId,
  ]);
  return rows[0]?.head_number ?? null;
}
