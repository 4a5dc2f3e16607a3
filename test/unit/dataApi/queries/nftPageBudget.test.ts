/**
 * A page of NFTs carries at most PAGE_NFT_BYTES of token URIs and metadata (queries/evm/tokens.ts): a token URI may
 * hold 2 MiB and its metadata 1 MiB, so a full page of such tokens would be a 1.5 GiB answer. Incompressible
 * (random) URIs and metadata, on both stores: a page ends early with a cursor, and walking the cursors yields every
 * token once, in order.
 */
import {randomBytes} from "node:crypto";
import {afterAll, beforeAll, expect, it} from "vitest";
import {listBalances, listCollectionTokens, PAGE_NFT_BYTES} from "../../../../src/dataApi/queries/evm/tokens.js";
import type {Cursor} from "../../../../src/dataApi/queries/evm/transactions.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../src/dataApi/store/client.js";
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
      const metadata = JSON.stringify({name: `#${id}`, description: randomBytes((META_BYTES * 3) / 4).toString("base64")});
      await sql.query("INSERT INTO evm_nfts (chain_id, token, token_id, erc, owner, first_block, token_uri, metadata, index_status) VALUES ($1, $2, $3, 721, $4, 1, $5, $6::jsonb, 'INDEXED')", [CHAIN, BIG, id, OWNER, uri, metadata]);
      await sql.query("INSERT INTO evm_balances (chain_id, owner, erc, token, token_id, balance) VALUES ($1, $2, 721, $3, $4, 1)", [CHAIN, OWNER, BIG, id]);
      await sql.query("INSERT INTO evm_nfts (chain_id, token, token_id, erc, owner, first_block, token_uri, index_status) VALUES ($1, $2, $3, 721, $4, 1, $5, 'INDEXED')", [CHAIN, SMALL, id, OWNER, `ipfs://Qm/${id}`]);
    }
  }, 180_000);
  afterAll(async () => sql?.close());

  /** Every page of a list, by its cursors: each page's token IDs and its bytes of URIs and metadata. */
  const walk = async (page: (cursor: Cursor | null) => Promise<{items: ReadonlyArray<object>; next?: Cursor}>): Promise<{ids: string[][]; bytes: number[]}> => {
    const ids: string[][] = [];
    const bytes: number[] = [];
    let cursor: Cursor | null = null;
    for (let i = 0; i < 2 * TOKENS; i++) {
      const p = await page(cursor);
      const items = p.items as Array<Record<string, unknown>>;
      ids.push(items.map((x) => String(x.tokenId ?? x.token_id)));
      bytes.push(items.reduce((n, x) => n + Buffer.byteLength(String(x.tokenUri ?? x.token_uri ?? "")) + Buffer.byteLength(JSON.stringify(x.metadata ?? null)), 0));
      if (!p.next) return {ids, bytes};
      cursor = p.next;
    }
    throw new Error("the pages never end");
  };
  const all = Array.from({length: TOKENS}, (_, i) => String(i + 1));

  it("ends a collection's page early, and its cursors go through every token once", async () => {
    const {ids, bytes} = await walk((cursor) => listCollectionTokens(sql, {chainId: CHAIN, token: BIG, pageSize: 10, cursor}));
    expect(ids.flat()).toEqual(all);
    expect(ids[0]!.length).toBeGreaterThan(0);
    expect(ids[0]!.length).toBeLessThan(10);
    // A row starts only under the budget, so a page passes it by at most one row.
    for (const b of bytes) expect(b).toBeLessThan(PAGE_NFT_BYTES + URI_BYTES + 2 * META_BYTES);
    // Small tokens fill their pages.
    expect((await listCollectionTokens(sql, {chainId: CHAIN, token: SMALL, pageSize: 10, cursor: null})).items).toHaveLength(10);
  }, 120_000);

  it("ends an owner's NFT balances page early, and its cursors go through every token once", async () => {
    const {ids, bytes} = await walk((cursor) => listBalances(sql, {chainId: CHAIN, owner: OWNER, ercs: [721], pageSize: 10, cursor}));
    expect(ids.flat()).toEqual(all);
    expect(ids[0]!.length).toBeLessThan(10);
    for (const b of bytes) expect(b).toBeLessThan(PAGE_NFT_BYTES + URI_BYTES + 2 * META_BYTES);
  }, 120_000);
});
