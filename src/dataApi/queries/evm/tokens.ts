/**
 * EVM contracts, token balances and NFTs (docs/api/evm.md): deployments (endpoints 6, 13), contract metadata
 * (18), ERC-20/721/1155 balances folded from transfers (9, 11, and the :listErc20/:listErc721 balances; ERC-1155
 * and ERC-20 at a past `blockNumber` summed from the address's transfers up to it), and NFT collections (14).
 */
import {checksumAddress} from "../../../evm/hex.js";
import {
  ERC_TYPE,
  erc1155Token,
  erc721Token,
  type NftMetadataJson,
  type TokenDetailsRow,
} from "../../models/evm/index.js";
import type {CuratedMetadata} from "../../evm/contractMetadata.js";
import type {SqlClientLike} from "../primary/common.js";
import {CursorError, type Cursor, type EvmPage} from "./transactions.js";
import {Params, SCAN_BUDGET, ScanBudgetExceeded} from "../sql.js";

export interface ContractRow {
  address: Uint8Array;
  block_number: bigint;
  tx_hash: Uint8Array;
  deployer: Uint8Array;
  deployer_contract: Uint8Array | null;
  erc: number | null;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}

const CONTRACT_SELECT = `SELECT c.address, c.block_number, t.hash AS tx_hash, c.deployer, c.deployer_contract, tk.erc, tk.name, tk.symbol, tk.decimals
  FROM evm_contracts c JOIN evm_txs t ON t.chain_id = c.chain_id AND t.block_number = c.block_number AND t.tx_index = c.tx_index
  LEFT JOIN evm_tokens tk ON tk.chain_id = c.chain_id AND tk.address = c.address`;

export type {CuratedMetadata};

/** The hosted API's contract model (Erc20Contract, Erc721Contract, Erc1155Contract, UnknownContract). */
export function contractModel(
  r: Omit<ContractRow, "block_number" | "tx_hash"> & {tx_hash: Uint8Array | null},
  curated?: CuratedMetadata,
): Record<string, unknown> {
  const erc = r.erc ?? 0;
  const out: Record<string, unknown> = {
    ...(curated ?? {}),
    address: checksumAddress(r.address),
    ercType: ERC_TYPE[erc] ?? "UNKNOWN",
  };
  if (r.name && out.name === undefined) out.name = r.name;
  if (r.symbol && erc !== 0 && out.symbol === undefined) out.symbol = r.symbol;
  if (erc === 20) out.decimals = r.decimals ?? 0;
  if (r.tx_hash) {
    const d: Record<string, unknown> = {
      txHash: "0x" + Buffer.from(r.tx_hash).toString("hex"),
      deployerAddress: checksumAddress(r.deployer),
    };
    if (r.deployer_contract) d.deployerContractAddress = checksumAddress(r.deployer_contract);
    out.deploymentDetails = d;
  }
  return out;
}

export async function getContract(
  sql: SqlClientLike,
  chainId: string,
  address: Uint8Array,
): Promise<ContractRow | null> {
  const rows = await sql.query<ContractRow>(`${CONTRACT_SELECT} WHERE c.chain_id = $1 AND c.address = $2`, [
    chainId,
    address,
  ]);
  return rows[0] ?? null;
}

export async function getToken(
  sql: SqlClientLike,
  chainId: string,
  address: Uint8Array,
): Promise<{erc: number; name: string | null; symbol: string | null; decimals: number | null} | null> {
  const rows = await sql.query<{erc: number; name: string | null; symbol: string | null; decimals: number | null}>(
    "SELECT erc, name, symbol, decimals FROM evm_tokens WHERE chain_id = $1 AND address = $2",
    [chainId, address],
  );
  return rows[0] ?? null;
}

/** Endpoint 13: contracts the address deployed, itself or through a contract it is; newest first. */
export async function listDeployments(
  sql: SqlClientLike,
  a: {chainId: string; address: Uint8Array; pageSize: number; cursor: Cursor | null},
): Promise<EvmPage<ContractRow>> {
  const p = new Params([a.chainId, a.address, a.pageSize + 1]);
  let after = "";
  if (a.cursor) {
    if (a.cursor.length !== 2 || typeof a.cursor[1] !== "string" || !/^[0-9a-f]{40}$/.test(a.cursor[1]))
      throw new CursorError();
    after = `AND (c.block_number, c.address) < (${p.add(a.cursor[0])}, ${p.add(Buffer.from(a.cursor[1], "hex"))})`;
  }
  // Two index walks (deployer, deployer_contract) merged: each is already in (block_number, address) order.
  const rows = await sql.query<ContractRow>(
    `WITH k AS (
       (SELECT c.address, c.block_number FROM evm_contracts c WHERE c.chain_id = $1 AND c.deployer = $2 ${after} ORDER BY c.block_number DESC, c.address DESC LIMIT $3)
       UNION
       (SELECT c.address, c.block_number FROM evm_contracts c WHERE c.chain_id = $1 AND c.deployer_contract = $2 ${after} ORDER BY c.block_number DESC, c.address DESC LIMIT $3)
       ORDER BY block_number DESC, address DESC LIMIT $3)
     ${CONTRACT_SELECT} JOIN k ON k.address = c.address WHERE c.chain_id = $1 ORDER BY c.block_number DESC, c.address DESC`,
    p.values,
  );
  const more = rows.length > a.pageSize;
  const items = rows.slice(0, a.pageSize);
  const last = items[items.length - 1];
  return more && last
    ? {items, next: [last.block_number.toString(), Buffer.from(last.address).toString("hex")]}
    : {items};
}

interface BalanceRow extends TokenDetailsRow {
  token_id: string;
  balance: string;
}

const BALANCE_DETAILS = `tk.name, tk.symbol, tk.decimals, n.token_uri, n.metadata, n.index_status, n.updated_at
  FROM k LEFT JOIN evm_tokens tk ON tk.chain_id = $1 AND tk.address = k.token
  LEFT JOIN evm_nfts n ON n.chain_id = $1 AND n.token = k.token AND n.token_id = k.token_id AND k.erc <> 20`;

/**
 * Which side of `block` an address's balances there are summed from: its transfers up to the block, or the current
 * balances less the transfers after it, whichever holds at most `budget` transfers (counted, not read, by a walk
 * of the address's transfer entries that stops at budget + 1).
 */
async function balanceSide(
  sql: SqlClientLike,
  chainId: string,
  owner: Uint8Array,
  ercs: number[],
  block: bigint,
  budget: number,
): Promise<"before" | "after"> {
  const count = async (cond: string): Promise<number> => {
    const rows = await sql.query<{n: number}>(
      `SELECT count(*)::int4 AS n FROM (SELECT 1 FROM evm_address_transfers x WHERE x.chain_id = $1 AND x.address = $2 AND x.erc = ANY($3::int4[]) AND x.block_number ${cond} $4 LIMIT $5) c`,
      [chainId, owner, ercs, block, budget + 1],
    );
    return rows[0]!.n;
  };
  if ((await count("<=")) <= budget) return "before";
  // The zero address has no current balances (the fold keeps none for it: mints and burns): its sum is the one above.
  if (!owner.every((b) => b === 0) && (await count(">")) <= budget) return "after";
  throw new ScanBudgetExceeded(
    `blockNumber: the address has more than ${budget} token transfers both up to block ${block} and after it; its balances at that block are not summed on request`,
  );
}

/**
 * Token balances of an address: `ercs` among 20, 721, 1155, ordered by (erc, token, token_id); `contracts` filters;
 * `blockNumber` (ERC-20 and ERC-1155) the balances after that block instead. Those are a sum over the address's
 * transfers, of those up to the block or, when fewer, of those after it taken from the current balances (a recent
 * block costs the transfers since). Either sum reads at most `scanBudget` transfers (queries/sql.ts): an address
 * with more on both sides of the block is ScanBudgetExceeded.
 */
export async function listBalances(
  sql: SqlClientLike,
  a: {
    chainId: string;
    owner: Uint8Array;
    ercs: number[];
    contracts?: Uint8Array[];
    blockNumber?: bigint;
    pageSize: number;
    cursor: Cursor | null;
    scanBudget?: number;
  },
): Promise<EvmPage<BalanceRow>> {
  const p = new Params([a.chainId, a.owner, a.ercs, a.pageSize + 1]);
  const where: string[] = [];
  if (a.cursor) {
    if (
      a.cursor.length !== 3 ||
      typeof a.cursor[1] !== "string" ||
      !/^[0-9a-f]{40}$/.test(a.cursor[1]) ||
      typeof a.cursor[2] !== "string"
    )
      throw new CursorError();
    where.push(
      `(erc, token, token_id) > (${p.add(a.cursor[0])}::int4, ${p.add(Buffer.from(a.cursor[1], "hex"))}::bytea, ${p.add(a.cursor[2])}::numeric)`,
    );
  }
  if (a.contracts && a.contracts.length > 0) where.push(`token = ANY(${p.add(a.contracts)}::bytea[])`);
  const filter = where.length > 0 ? `AND ${where.join(" AND ")}` : "";
  let keys: string;
  if (a.blockNumber === undefined) {
    keys = `SELECT erc, token, token_id, balance FROM evm_balances WHERE chain_id = $1 AND owner = $2 AND erc = ANY($3::int4[]) ${filter}
      ORDER BY erc, token, token_id LIMIT $4`;
  } else {
    const block = p.add(a.blockNumber);
    const budget = a.scanBudget ?? SCAN_BUDGET;
    const side = await balanceSide(sql, a.chainId, a.owner, a.ercs, a.blockNumber, budget);
    // The address's net change by token over the transfers on one side of the block.
    const net = (cond: string): string => `SELECT tr.erc, tr.token, COALESCE(tr.token_id, 0) AS token_id,
          sum(CASE WHEN tr.to_addr = $2 THEN tr.value ELSE 0 END) - sum(CASE WHEN tr.from_addr = $2 THEN tr.value ELSE 0 END) AS change
        FROM evm_address_transfers x JOIN evm_transfers tr ON tr.chain_id = x.chain_id AND tr.block_number = x.block_number AND tr.log_index = x.log_index AND tr.item = x.item
        WHERE x.chain_id = $1 AND x.address = $2 AND x.erc = ANY($3::int4[]) AND x.block_number ${cond} ${block}
        GROUP BY tr.erc, tr.token, COALESCE(tr.token_id, 0)`;
    // After the block: the current balances less the changes since. Of the current ones, the page needs the first
    // pageSize + 1 past the cursor and as many again as the changes could bring to zero (at most the budget).
    const sums =
      side === "before"
        ? `SELECT erc, token, token_id, change AS balance FROM (${net("<=")}) n`
        : `SELECT COALESCE(b.erc, n.erc) AS erc, COALESCE(b.token, n.token) AS token, COALESCE(b.token_id, n.token_id) AS token_id,
             COALESCE(b.balance, 0) - COALESCE(n.change, 0) AS balance
           FROM (SELECT erc, token, token_id, balance FROM evm_balances WHERE chain_id = $1 AND owner = $2 AND erc = ANY($3::int4[]) ${filter}
                 ORDER BY erc, token, token_id LIMIT $4::int8 + ${p.add(budget)}::int8) b
           FULL JOIN (SELECT * FROM (${net(">")}) n0 WHERE true ${filter}) n ON n.erc = b.erc AND n.token = b.token AND n.token_id = b.token_id`;
    keys = `SELECT erc, token, token_id, balance FROM (${sums}) s WHERE balance <> 0 ${filter} ORDER BY erc, token, token_id LIMIT $4`;
  }
  const rows = await sql.query<BalanceRow & Budgeted>(
    budgeted(
      `SELECT k.erc, k.token, k.token_id::text AS token_id, k.balance::text AS balance, ${BALANCE_DETAILS}`,
      `WITH k AS (${keys})`,
      "erc, token, token_id::numeric",
      p.add(PAGE_NFT_BYTES),
    ),
    p.values,
  );
  const {items, more} = withinBudget(rows, a.pageSize);
  const last = items[items.length - 1];
  return more && last ? {items, next: [last.erc, Buffer.from(last.token).toString("hex"), last.token_id]} : {items};
}

/**
 * The most bytes of token URIs and metadata one page of NFTs carries: a token URI may hold 2 MiB and its metadata
 * 1 MiB, so 500 such rows would be 1.5 GiB in one answer. A page ends early, at least one row in, where the rows
 * so far pass it, and its `nextPageToken` goes on from there (docs/api/evm.md).
 */
export const PAGE_NFT_BYTES = 8 * 1024 * 1024;

interface Budgeted {
  /** Rows the page's keys held (at most pageSize + 1), before the budget cut any. */
  keyed: string | number;
}

/**
 * `select` (with its `with` clause, over rows that have `token_uri` and `metadata`), ordered by `order`, cut where
 * the running size of token URIs and metadata before a row reaches the budget (the parameter `budget`, `$n`), computed
 * in the store so a cut row is never sent.
 */
function budgeted(select: string, withClause: string, order: string, budget: string): string {
  const bytes = "coalesce(octet_length(d.token_uri), 0) + coalesce(octet_length(d.metadata::text), 0)";
  return `${withClause}, d AS (${select}),
    s AS (SELECT d.*, sum(${bytes}) OVER (ORDER BY ${order}) - (${bytes}) AS before, count(*) OVER () AS keyed FROM d)
    SELECT * FROM s WHERE before < ${budget} ORDER BY ${order}`;
}

/** The page's items, and whether there are more: past pageSize, or cut by the budget. */
function withinBudget<T extends Budgeted>(rows: T[], pageSize: number): {items: T[]; more: boolean} {
  const cut = rows.length > 0 && rows.length < Number(rows[0]!.keyed);
  return {items: rows.slice(0, pageSize), more: cut || rows.length > pageSize};
}

/** An ERC-20 balance; `tokenReputation` (the hosted service's security analysis) is null, its value for unknown. */
export function erc20Balance(chainId: string, r: BalanceRow): Record<string, unknown> {
  return {
    address: checksumAddress(r.token),
    name: r.name ?? "",
    symbol: r.symbol ?? "",
    decimals: r.decimals ?? 0,
    ercType: "ERC-20",
    chainId,
    balance: r.balance,
    tokenReputation: null,
  };
}

export function nftBalance(chainId: string, r: BalanceRow, owner: Uint8Array): Record<string, unknown> {
  if (r.erc === 721) return {...erc721Token({...r, owner}), chainId};
  return {...erc1155Token(r), chainId, balance: r.balance};
}

/** Endpoint 14: the tokens of an NFT collection, by token ID. */
export async function listCollectionTokens(
  sql: SqlClientLike,
  a: {chainId: string; token: Uint8Array; pageSize: number; cursor: Cursor | null},
): Promise<EvmPage<Record<string, unknown>>> {
  const p = new Params([a.chainId, a.token, a.pageSize + 1]);
  let after = "";
  if (a.cursor) {
    if (a.cursor.length !== 1 || typeof a.cursor[0] !== "string") throw new CursorError();
    after = `AND n.token_id > ${p.add(a.cursor[0])}::numeric`;
  }
  const keys = `WITH k AS (SELECT n.token_id FROM evm_nfts n WHERE n.chain_id = $1 AND n.token = $2 ${after} ORDER BY n.token_id LIMIT $3)`;
  const rows = await sql.query<NftRow & Budgeted>(
    budgeted(
      `${NFT_SELECT} JOIN k ON n.chain_id = $1 AND n.token = $2 AND n.token_id = k.token_id`,
      keys,
      "token_id::numeric",
      p.add(PAGE_NFT_BYTES),
    ),
    p.values,
  );
  const {items, more} = withinBudget(rows, a.pageSize);
  const last = items[items.length - 1];
  return more && last ? {items: items.map(nftModel), next: [last.token_id]} : {items: items.map(nftModel)};
}

export async function getCollectionToken(
  sql: SqlClientLike,
  chainId: string,
  token: Uint8Array,
  tokenId: string,
): Promise<Record<string, unknown> | null> {
  const rows = await sql.query<NftRow>(
    `${NFT_SELECT} WHERE n.chain_id = $1 AND n.token = $2 AND n.token_id = $3::numeric`,
    [chainId, token, tokenId],
  );
  return rows[0] ? nftModel(rows[0]) : null;
}

interface NftRow {
  token: Uint8Array;
  token_id: string;
  erc: number;
  owner: Uint8Array | null;
  token_uri: string | null;
  metadata: NftMetadataJson | null;
  index_status: string | null;
  updated_at: bigint | null;
  name: string | null;
  symbol: string | null;
}

const NFT_SELECT = `SELECT n.token, n.token_id::text AS token_id, n.erc, n.owner, n.token_uri, n.metadata, n.index_status, n.updated_at, tk.name, tk.symbol
  FROM evm_nfts n LEFT JOIN evm_tokens tk ON tk.chain_id = n.chain_id AND tk.address = n.token`;

function nftModel(r: NftRow): Record<string, unknown> {
  return r.erc === 721 ? erc721Token(r) : erc1155Token(r);
}
