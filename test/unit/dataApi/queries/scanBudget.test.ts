/**
 * The scan budget (src/dataApi/queries/sql.ts) on the EVM and ICM lists whose filter is checked on the rows an
 * index walk finds, on both store backends: walked page by page under budgets of 1 to 5 entries, each list equals
 * its unbudgeted answer, nothing twice, nothing skipped, and some pages end short; an ERC-20 balance at a past
 * block is summed from whichever side of the block is within the budget, and refused when neither is.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {listNativeTransactions, type Cursor, type EvmPage} from "../../../../src/dataApi/queries/evm/transactions.js";
import {listBalances} from "../../../../src/dataApi/queries/evm/tokens.js";
import {listIcmMessages, type IcmFilter} from "../../../../src/dataApi/queries/icm.js";
import {ScanBudgetExceeded} from "../../../../src/dataApi/queries/sql.js";
import {writeBlocks} from "../../../../src/dataApi/views/evm/write.js";
import {KIND, type DerivedBlock} from "../../../../src/dataApi/views/evm/derive.js";
import {type BackendKind, TestDb} from "./fixture.js";

const CHAIN = "43112";
const BLOCKS = 30;
const addr = (b: number): Uint8Array => new Uint8Array(20).fill(b);
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const A = addr(0xaa);
const B = addr(0xbb);
const C = addr(0xcc);
const TOKEN = addr(0x20);
/** A second token, moved to A every third block, so a balances page of one item pages across tokens. */
const TOKEN2 = addr(0x21);

/**
 * Block n holds one transaction to the token contract moving n tokens: from A to C every fifth block, else from B
 * to A. A sends the transaction (its native entry) every seventh block; in the others it is only a token party.
 */
function chain(): {blocks: DerivedBlock[]; balanceAfter: (n: number) => bigint; nativeOfA: number[]} {
  const blocks: DerivedBlock[] = [];
  const nativeOfA: number[] = [];
  const deltas: bigint[] = [];
  for (let n = 1; n <= BLOCKS; n++) {
    const sender = n % 7 === 0 ? A : B;
    if (sender === A) nativeOfA.push(n);
    const [from, to] = n % 5 === 0 ? [A, C] : [B, A];
    deltas.push(from === A ? -BigInt(n) : BigInt(n));
    const kinds = new Map<string, number>();
    const touch = (a: Uint8Array, k: number): void =>
      void kinds.set(`${hex(a)}:0`, (kinds.get(`${hex(a)}:0`) ?? 0) | k);
    touch(sender, KIND.native);
    touch(TOKEN, KIND.native);
    touch(from, KIND.erc20);
    touch(to, KIND.erc20);
    const hash = (k: number): Uint8Array => Uint8Array.from(Buffer.from(`${n}:${k}`.padEnd(32, "."), "latin1"));
    blocks.push({
      block: {
        number: BigInt(n),
        hash: hash(0),
        parentHash: n === 1 ? new Uint8Array(32) : blocks[n - 2]!.block.hash,
        timestamp: BigInt(1000 + n),
        txCount: 1,
        baseFee: 1n,
        gasUsed: 21_000n,
        gasLimit: 8_000_000n,
        feesSpent: 21_000n,
      },
      txs: [
        {
          txIndex: 0,
          hash: hash(1),
          from: sender,
          to: TOKEN,
          created: null,
          value: 0n,
          nonce: BigInt(n),
          gasLimit: 60_000n,
          gasUsed: 21_000n,
          gasPrice: 1n,
          maxFee: null,
          maxPriorityFee: null,
          txType: 0,
          status: 1,
          input: new Uint8Array(4),
        },
      ],
      transfers: [
        {txIndex: 0, logIndex: 0, item: 0, erc: 20, token: TOKEN, from, to, tokenId: null, value: BigInt(n)},
        ...(n % 3 === 0
          ? [
              {
                txIndex: 0,
                logIndex: 1,
                item: 0,
                erc: 20 as const,
                token: TOKEN2,
                from: B,
                to: A,
                tokenId: null,
                value: 1n,
              },
            ]
          : []),
      ],
      internals: null,
      contracts: [],
      addressKinds: kinds,
      icm: [],
      warp: [],
    });
  }
  return {blocks, nativeOfA, balanceAfter: (n) => deltas.slice(0, n).reduce((s, d) => s + d, 0n)};
}

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

describe.each(["pglite", "postgres"] as BackendKind[])("scan budget (%s)", (kind) => {
  let db: TestDb;
  const evm = chain();
  beforeAll(async () => {
    db = await new TestDb(kind).init();
    await db.query("INSERT INTO evm_chains (chain_id, blockchain_id, updated_at, traces) VALUES ($1, NULL, 0, true)", [
      CHAIN,
    ]);
    await writeBlocks(
      {query: (s, p) => db.query(s, p), exec: async (s) => void (await db.query(s))},
      {chainId: CHAIN, blockchainId: null},
      evm.blocks,
      0n,
    );
  }, 180_000);
  afterAll(async () => db?.close());

  it("walks an address's native transactions, the kind checked on its entries, under any budget", async () => {
    for (const sortOrder of ["desc", "asc"] as const) {
      const expected = sortOrder === "desc" ? [...evm.nativeOfA].reverse() : evm.nativeOfA;
      const whole = await listNativeTransactions(db, {
        chainId: CHAIN,
        address: A,
        pageSize: 100,
        cursor: null,
        sortOrder,
      });
      expect(whole.items.map((t) => Number(t.blockNumber))).toEqual(expected);
      for (const scanBudget of [1, 2, 5]) {
        const paged = await walk((cursor) =>
          listNativeTransactions(db, {chainId: CHAIN, address: A, pageSize: 2, cursor, sortOrder, scanBudget}),
        );
        expect(
          paged.items.map((t) => Number(t.blockNumber)),
          `${sortOrder}, budget ${scanBudget}`,
        ).toEqual(expected);
        // A's 30 entries, at most `scanBudget` a page: pages without a native transaction are answered empty.
        expect(paged.sizes.length).toBeGreaterThanOrEqual(Math.ceil(BLOCKS / scanBudget));
        expect(paged.sizes).toContain(0);
      }
    }
  });

  it("sums an ERC-20 balance at a past block from the side of it within the budget, or refuses", async () => {
    const at = async (block: number, scanBudget?: number): Promise<string[]> =>
      (
        await listBalances(db, {
          chainId: CHAIN,
          owner: A,
          ercs: [20],
          contracts: [TOKEN],
          blockNumber: BigInt(block),
          pageSize: 10,
          cursor: null,
          scanBudget,
        })
      ).items.map((r) => r.balance);
    // A's transfers of both tokens up to a block: one a block, and TOKEN2's every third.
    const upTo = (block: number): number => Math.min(block, BLOCKS) + Math.floor(Math.min(block, BLOCKS) / 3);
    const total = upTo(BLOCKS);
    for (const block of [1, 4, 5, 12, 25, 29, 30, 40]) {
      const want = evm.balanceAfter(Math.min(block, BLOCKS));
      const expected = want === 0n ? [] : [want.toString()];
      // Unbounded, then each side alone: up to the block (a budget of the block's transfers), after it (of the rest).
      expect(await at(block), `block ${block}`).toEqual(expected);
      expect(await at(block, upTo(block)), `block ${block}, summed up to it`).toEqual(expected);
      const after = total - upTo(block);
      if (after < upTo(block))
        expect(await at(block, Math.max(1, after)), `block ${block}, current less after`).toEqual(expected);
    }
    // Both tokens, a page of one at a time, from either side: the cursor goes through both, in token order.
    for (const [block, scanBudget] of [
      [12, 100],
      [25, 12],
    ] as const) {
      const both = await walk((cursor) =>
        listBalances(db, {
          chainId: CHAIN,
          owner: A,
          ercs: [20],
          blockNumber: BigInt(block),
          pageSize: 1,
          cursor,
          scanBudget,
        }),
      );
      const want = [
        [TOKEN, evm.balanceAfter(block)],
        [TOKEN2, BigInt(Math.floor(block / 3))],
      ].filter(([, v]) => v !== 0n);
      expect(
        both.items.map((r) => [hex(r.token), r.balance]),
        `block ${block}`,
      ).toEqual(want.map(([t, v]) => [hex(t as Uint8Array), String(v)]));
    }
    await expect(at(15, 10)).rejects.toThrow(ScanBudgetExceeded);
    await expect(at(15, 10)).rejects.toThrow(/more than 10 token transfers both up to block 15 and after it/);
  });

  describe("ICM messages", () => {
    const ids: Array<{id: string; ts: number; from: number; to: number; src: string; dst: string}> = [];
    beforeAll(async () => {
      const chains = ["srcA", "srcB", "srcC"];
      for (let i = 0; i < 60; i++) {
        const m = {
          id: i.toString(16).padStart(64, "0"),
          ts: 2000 + Math.floor(i / 2),
          from: 1 + (i % 3),
          to: 1 + (i % 4),
          src: chains[i % 3]!,
          dst: chains[(i + 1 + (i % 2)) % 3]!,
        };
        ids.push(m);
        await db.insert("icm_messages", {
          message_id: m.id,
          messenger: addr(9),
          source_blockchain_id: m.src,
          destination_blockchain_id: m.dst,
          from_addr: addr(m.from),
          to_addr: addr(m.to),
          status: "delivered",
          sort_ts: m.ts,
          record: {messageId: m.id, sourceBlockchainId: m.src, destinationBlockchainId: m.dst, status: "delivered"},
        });
      }
    });
    const filters: Array<[string, IcmFilter, (m: (typeof ids)[number]) => boolean]> = [
      ["source and sender", {sourceBlockchainId: "srcA", from: addr(1)}, (m) => m.src === "srcA" && m.from === 1],
      ["sender and receiver", {from: addr(2), to: addr(3)}, (m) => m.from === 2 && m.to === 3],
      [
        "either end and sender",
        {blockchainId: "srcB", from: addr(1)},
        (m) => (m.src === "srcB" || m.dst === "srcB") && m.from === 1,
      ],
      [
        "either party and destination",
        {party: addr(2), destinationBlockchainId: "srcC"},
        (m) => (m.from === 2 || m.to === 2) && m.dst === "srcC",
      ],
    ];
    it.each(filters)("walks %s under any budget", async (_, filter, keep) => {
      const order = (a: (typeof ids)[number], b: (typeof ids)[number]): number => b.ts - a.ts || (a.id < b.id ? 1 : -1);
      const expected = ids
        .filter(keep)
        .sort(order)
        .map((m) => m.id);
      expect(expected.length).toBeGreaterThan(0);
      for (const scanBudget of [undefined, 1, 2, 5]) {
        const paged = await walk((cursor) => listIcmMessages(db, {filter, pageSize: 3, cursor, scanBudget}));
        expect(
          paged.items.map((r) => r.message_id),
          `budget ${scanBudget}`,
        ).toEqual(expected);
        if (scanBudget === 1) expect(paged.sizes).toContain(0);
      }
    });
  });
});
