/**
 * A page of NFTs carries at most PAGE_NFT_BYTES of token URIs and metadata (queries/evm/tokens.ts): a token URI may
 * hold 2 MiB and its metadata 1 MiB, so a full page of such tokens would be a 1.5 GiB answer. Incompressible
 * (random) URIs and metadata, on both stores: a page ends early with a cursor, and walking the cursors yields every
 * token once, in order.
 */
import {randomBytes} from "node:crypto";
import {afterAll, beforeAll, expect, it} from "vitest";
import {listBalances, listCollectionTokens, PAGE_NFT_BYTES} from "../../../../src/dataApi/queries/evm/tokens.js";
import {
  ANSWER_NFT_BYTES,
  getTransaction,
  listTokenTransfers,
} from "../../../../src/dataApi/queries/evm/transactions.js";
import type {Cursor} from "../../../../src/dataApi/queries/evm/transactions.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {describeBackends} from "../../../helpers/sql.js";

const CHAIN = "43114";
const BIG = Buffer.alloc(20, 0xb1);
const SMALL = Buffer.alloc(20, 0x51);
const OWNER = Buffer.alloc(20, 0x0e);
const URI_BYTES = 2 * 1024 * 1024;
const META_BYTES = 1024 * 1024;
const TOKENS = 12;

describeBackends("NFT pages under a byte budget", (backend) => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await backend.open();
    for (const m of MIGRATIONS) await sql.exec(m.sql);
    for (let id = 1; id <= TOKENS; id++) {
      const uri = "data:application/json;base64," + randomBytes((URI_BYTES * 3) / 4).toString("base64");
      const metadata = JSON.stringify({
        name: `#${id}`,
        description: randomBytes((META_BYTES * 3) / 4).toString("base64"),
      });
      await sql.query(
        "INSERT INTO evm_nfts (chain_id, token, token_id, erc, owner, first_block, token_uri, metadata, index_status) VALUES ($1, $2, $3, 721, $4, 1, $5, $6::jsonb, 'INDEXED')",
        [CHAIN, BIG, id, OWNER, uri, metadata],
      );
      await sql.query(
        "INSERT INTO evm_balances (chain_id, owner, erc, token, token_id, balance) VALUES ($1, $2, 721, $3, $4, 1)",
        [CHAIN, OWNER, BIG, id],
      );
      await sql.query(
        "INSERT INTO evm_nfts (chain_id, token, token_id, erc, owner, first_block, token_uri, index_status) VALUES ($1, $2, $3, 721, $4, 1, $5, 'INDEXED')",
        [CHAIN, SMALL, id, OWNER, `ipfs://Qm/${id}`],
      );
    }
    // One transaction moving each big token 40 times (a batch mint, a marketplace sweep): 480 transfers of 3 MiB tokens.
    const TX = Buffer.alloc(32, 0x7a);
    await sql.query(
      "INSERT INTO evm_blocks (chain_id, number, hash, parent_hash, timestamp, tx_count, base_fee, gas_used, gas_limit, fees_spent, cumulative_txs) VALUES ($1, 1, $2, $2, 1700000000, 1, 0, 0, 0, 0, 1)",
      [CHAIN, Buffer.alloc(32, 1)],
    );
    await sql.query(
      "INSERT INTO evm_txs (chain_id, block_number, tx_index, hash, from_addr, to_addr, value, nonce, gas_limit, gas_used, gas_price, tx_type, status, input) VALUES ($1, 1, 0, $2, $3, $4, 0, 0, 0, 0, 0, 2, 1, $5)",
      [CHAIN, TX, OWNER, BIG, Buffer.alloc(0)],
    );
    await sql.query(
      `INSERT INTO evm_transfers (chain_id, block_number, tx_index, log_index, item, erc, token, from_addr, to_addr, token_id, value)
       SELECT $1, 1, 0, i, 0, 721, $2, $3, $3, (i % ${TOKENS}) + 1, 1 FROM generate_series(0, ${40 * TOKENS - 1}) i`,
      [CHAIN, BIG, OWNER],
    );
  }, 180_000);
  afterAll(async () => sql?.close());

  it("bounds the NFT payload a transaction's transfers carry, reading each token once", async () => {
    const got = await getTransaction(sql, CHAIN, Buffer.alloc(32, 0x7a));
    const transfers = got!.details.erc721Transfers as Array<{
      erc721Token: {tokenUri: string; metadata: Record<string, unknown>};
    }>;
    expect(transfers).toHaveLength(40 * TOKENS);
    const bytes = transfers.reduce(
      (n, t) =>
        n + Buffer.byteLength(t.erc721Token.tokenUri) + Buffer.byteLength(JSON.stringify(t.erc721Token.metadata)),
      0,
    );
    expect(bytes).toBeLessThan(ANSWER_NFT_BYTES + 64 * 1024);
    // The first fit whole; past the budget, the token is named with its status only.
    expect(transfers[0]!.erc721Token.tokenUri.length).toBeGreaterThan(URI_BYTES / 2);
    expect(transfers.at(-1)!.erc721Token).toMatchObject({tokenUri: "", metadata: {indexStatus: "INDEXED"}});
    expect(Buffer.byteLength(JSON.stringify(got))).toBeLessThan(ANSWER_NFT_BYTES + 1024 * 1024);
    // A page of the token's transfers too.
    const page = await listTokenTransfers(sql, {
      chainId: CHAIN,
      token: BIG,
      pageSize: 100,
      cursor: null,
      sortOrder: "asc",
    });
    expect(Buffer.byteLength(JSON.stringify(page.items))).toBeLessThan(ANSWER_NFT_BYTES + 1024 * 1024);
  }, 120_000);

  /** Every page of a list, by its cursors: each page's token IDs and its bytes of URIs and metadata. */
  const walk = async (
    page: (cursor: Cursor | null) => Promise<{items: ReadonlyArray<object>; next?: Cursor}>,
  ): Promise<{ids: string[][]; bytes: number[]}> => {
    const ids: string[][] = [];
    const bytes: number[] = [];
    let cursor: Cursor | null = null;
    for (let i = 0; i < 2 * TOKENS; i++) {
      const p = await page(cursor);
      const items = p.items as Array<Record<string, unknown>>;
      ids.push(items.map((x) => String(x.tokenId ?? x.token_id)));
      bytes.push(
        items.reduce(
          (n, x) =>
            n +
            Buffer.byteLength(String(x.tokenUri ?? x.token_uri ?? "")) +
            Buffer.byteLength(JSON.stringify(x.metadata ?? null)),
          0,
        ),
      );
      if (!p.next) return {ids, bytes};
      cursor = p.next;
    }
    throw new Error("the pages never end");
  };
  const all = Array.from({length: TOKENS}, (_, i) => String(i + 1));

  it("ends a collection's page early, and its cursors go through every token once", async () => {
    const {ids, bytes} = await walk((cursor) =>
      listCollectionTokens(sql, {chainId: CHAIN, token: BIG, pageSize: 10, cursor}),
    );
    expect(ids.flat()).toEqual(all);
    expect(ids[0]!.length).toBeGreaterThan(0);
    expect(ids[0]!.length).toBeLessThan(10);
    // A row starts only under the budget, so a page passes it by at most one row.
    for (const b of bytes) expect(b).toBeLessThan(PAGE_NFT_BYTES + URI_BYTES + 2 * META_BYTES);
    // Small tokens fill their pages.
    expect(
      (await listCollectionTokens(sql, {chainId: CHAIN, token: SMALL, pageSize: 10, cursor: null})).items,
    ).toHaveLength(10);
  }, 120_000);

  it("ends an owner's NFT balances page early, and its cursors go through every token once", async () => {
    const {ids, bytes} = await walk((cursor) =>
      listBalances(sql, {chainId: CHAIN, owner: OWNER, ercs: [721], pageSize: 10, cursor}),
    );
    expect(ids.flat()).toEqual(all);
    expect(ids[0]!.length).toBeLessThan(10);
    for (const b of bytes) expect(b).toBeLessThan(PAGE_NFT_BYTES + URI_BYTES + 2 * META_BYTES);
  }, 120_000);
});
