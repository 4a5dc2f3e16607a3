/**
 * The EVM lists across chains on both store backends: blocks and transactions of two chains with equal timestamps
 * (ties broken by chain, then number), empty blocks, several transactions a block and a rare status. Walked page by
 * page, each list equals the rows sorted by hand, nothing twice, nothing skipped; a page that reads its bound of
 * blocks answers short with a cursor that goes on where it stopped.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {
  listBlocksAcrossChains,
  listTransactionsAcrossChains,
  type Cursor,
  type EvmPage,
} from "../../../../src/dataApi/queries/evm/transactions.js";
import {type BackendKind, TestDb} from "./fixture.js";

interface Tx {
  chain: string;
  number: number;
  ts: number;
  index: number;
  status: number;
}

const CHAINS = ["43114", "99999"];
const BLOCKS = 40;
const txs: Tx[] = [];
const blocks: Array<{chain: string; number: number; ts: number}> = [];
for (const chain of CHAINS) {
  for (let n = 1; n <= BLOCKS; n++) {
    const ts = 1000 + 10 * n;
    blocks.push({chain, number: n, ts});
    const count = n % 5 === 0 ? 0 : 1 + (n % 3);
    // Failed transactions are rare: one in a few dozen.
    for (let i = 0; i < count; i++)
      txs.push({chain, number: n, ts, index: i, status: (n * 7 + i + chain.length) % 23 === 0 ? 0 : 1});
  }
}
const desc = <T extends {ts: number; chain: string; number: number; index?: number}>(a: T, b: T): number =>
  b.ts - a.ts ||
  (a.chain < b.chain ? 1 : a.chain > b.chain ? -1 : 0) ||
  b.number - a.number ||
  (b.index ?? 0) - (a.index ?? 0);

async function walk<T>(list: (cursor: Cursor | null) => Promise<EvmPage<T>>): Promise<{items: T[]; sizes: number[]}> {
  const items: T[] = [];
  const sizes: number[] = [];
  let cursor: Cursor | null = null;
  for (let i = 0; i < 1000; i++) {
    const page = await list(cursor);
    items.push(...page.items);
    sizes.push(page.items.length);
    if (page.next === undefined) return {items, sizes};
    cursor = page.next;
  }
  throw new Error("more than 1000 pages");
}

describe.each(["pglite", "postgres"] as BackendKind[])("EVM lists across chains (%s)", (kind) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await new TestDb(kind).init();
    const hash = (chain: string, n: number, i = 0): Uint8Array =>
      Uint8Array.from(Buffer.from(`${chain}:${n}:${i}`.padEnd(32, "."), "latin1"));
    for (const b of blocks) {
      const count = txs.filter((t) => t.chain === b.chain && t.number === b.number).length;
      await db.insert("evm_blocks", {
        chain_id: b.chain,
        number: b.number,
        hash: hash(b.chain, b.number),
        parent_hash: hash(b.chain, b.number - 1),
        timestamp: b.ts,
        tx_count: count,
        base_fee: "1",
        gas_used: "0",
        gas_limit: "8000000",
        fees_spent: "0",
        cumulative_txs: 0,
      });
    }
    for (const t of txs) {
      await db.insert("evm_txs", {
        chain_id: t.chain,
        block_number: t.number,
        tx_index: t.index,
        hash: hash(t.chain, t.number, t.index + 1),
        from_addr: new Uint8Array(20).fill(1),
        to_addr: new Uint8Array(20).fill(2),
        value: "0",
        nonce: 0,
        gas_limit: "21000",
        gas_used: "21000",
        gas_price: "1",
        tx_type: 2,
        status: t.status,
        input: new Uint8Array(0),
      });
    }
  }, 180_000);
  afterAll(async () => db?.close());

  const key = (x: {chainId: string; blockNumber: string; blockIndex?: number}): string =>
    `${x.chainId}:${x.blockNumber}:${x.blockIndex ?? ""}`;

  it("walks the blocks of both chains in time order, then chain and number", async () => {
    for (const pageSize of [1, 7, 100]) {
      const {items} = await walk((cursor) => listBlocksAcrossChains(db, {chainIds: CHAINS, pageSize, cursor}));
      expect(items.map(key)).toEqual([...blocks].sort(desc).map((b) => `${b.chain}:${b.number}:`));
    }
    const one = await walk((cursor) => listBlocksAcrossChains(db, {chainIds: ["99999"], pageSize: 9, cursor}));
    expect(one.items).toHaveLength(BLOCKS);
    expect(await listBlocksAcrossChains(db, {chainIds: [], pageSize: 9, cursor: null})).toEqual({items: []});
  });

  it("walks the transactions after their blocks, pages splitting blocks anywhere", async () => {
    const all = [...txs].sort(desc).map((t) => `${t.chain}:${t.number}:${t.index}`);
    for (const pageSize of [1, 2, 5, 100]) {
      const {items, sizes} = await walk((cursor) =>
        listTransactionsAcrossChains(db, {chainIds: CHAINS, pageSize, cursor}),
      );
      expect(items.map(key)).toEqual(all);
      // Every page but the last is full: no status filter, so no page reads its bound of blocks.
      expect(sizes.slice(0, -1).every((s) => s === pageSize)).toBe(true);
    }
  });

  it("keeps one status, answering short, even empty, after its bound of blocks and going on from there", async () => {
    const failed = [...txs]
      .filter((t) => t.status === 0)
      .sort(desc)
      .map((t) => `${t.chain}:${t.number}:${t.index}`);
    expect(failed.length).toBeGreaterThan(3);
    expect(failed.length).toBeLessThan(txs.length / 10);
    const bounded = await walk((cursor) =>
      listTransactionsAcrossChains(db, {chainIds: CHAINS, pageSize: 3, cursor, status: 0, maxRounds: 2}),
    );
    expect(bounded.items.map(key)).toEqual(failed);
    expect(bounded.sizes.some((s) => s < 3 && s >= 0)).toBe(true);
    expect(bounded.sizes.slice(0, -1).some((s) => s === 0)).toBe(true);
    const unbounded = await walk((cursor) =>
      listTransactionsAcrossChains(db, {chainIds: CHAINS, pageSize: 3, cursor, status: 0, maxRounds: 1000}),
    );
    expect(unbounded.items.map(key)).toEqual(failed);
    expect(unbounded.sizes.slice(0, -1).every((s) => s === 3)).toBe(true);
    const succeeded = await walk((cursor) =>
      listTransactionsAcrossChains(db, {chainIds: CHAINS, pageSize: 50, cursor, status: 1}),
    );
    expect(succeeded.items).toHaveLength(txs.length - failed.length);
  });

  it("refuses a cursor of another shape", async () => {
    await expect(
      listTransactionsAcrossChains(db, {chainIds: CHAINS, pageSize: 3, cursor: ["1", "2", "3"]}),
    ).rejects.toThrow(/pageToken/);
    await expect(listBlocksAcrossChains(db, {chainIds: CHAINS, pageSize: 3, cursor: ["x", "2", "3"]})).rejects.toThrow(
      /pageToken/,
    );
  });
});
