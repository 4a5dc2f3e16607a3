/**
 * From JSON-RPC shapes to EVM view rows: transfersOfLog (ERC-20/721/1155 by topic0 and topic count, everything
 * else ignored), internalFrames (which frames are listed, their order, what is reverted), and deriveBlock on blocks
 * captured once from anvil (anvilBlocks.json: two deployments; then an ERC-20 transfer, a value fanout, a CREATE2
 * deployment whose constructor CREATEs, a caught inner revert and a failed transaction), plus shape errors.
 */
import {readFileSync} from "node:fs";
import {describe, expect, it} from "vitest";
import {
  BlockShapeError,
  KIND,
  TOPIC_TRANSFER,
  TOPIC_TRANSFER_BATCH,
  TOPIC_TRANSFER_SINGLE,
  deriveBlock,
  internalFrames,
  transfersOfLog,
  type InternalRow,
  type TransferRow,
} from "../../../../../src/dataApi/views/evm/derive.js";
import {encodeAbi} from "../../../../../src/evm/abi.js";
import {bytesToHex} from "../../../../../src/evm/hex.js";

type Json = Record<string, unknown>;
interface Captured {
  block: Json & {transactions: Json[]};
  receipts: Array<Json & {logs: Json[]}>;
  traces: Json[];
}
const fixture = JSON.parse(readFileSync(new URL("./anvilBlocks.json", import.meta.url), "utf8")) as {
  token: string;
  factory: string;
  block1: Captured;
  block2: Captured;
};
const clone = <T>(v: T): T => structuredClone(v);

const ME = "15d34aaf54267db7d7c367839aaf71a00a2c6a65";
const YOU = "9965507d1a55bcc2695c58ba16fb37d819b0a4dc";
const THEM = "976ea74026e726554db657fa54763abd0c3a0aa9";
const TOKEN = "bded0d2bf404bdcba897a74e6657f1f12e5c6fb6";
const topicOf = (addr: string): string => "0x" + "0".repeat(24) + addr;
const w = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, "0");
const h = (b: Uint8Array | null): string | null => (b === null ? null : bytesToHex(b));
const rows = (t: TransferRow[]): Array<Record<string, unknown>> =>
  t.map((r) => ({...r, token: h(r.token), from: h(r.from), to: h(r.to)}));
const frames = (f: InternalRow[]): Array<[number, string, string | null, string | null, bigint, boolean]> =>
  f.map((r) => [r.idx, r.callType, h(r.from), h(r.to), r.value, r.reverted]);

function log(topics: unknown[], data: unknown = "0x", extra: Json = {}): Json {
  return {address: "0x" + TOKEN, topics, data, logIndex: "0x3", ...extra};
}

describe("transfersOfLog", () => {
  it("ERC-20: three topics and 32 bytes of data", () => {
    expect(rows(transfersOfLog(log([TOPIC_TRANSFER, topicOf(ME), topicOf(YOU)], "0x" + w(1234)), 2))).toEqual([
      {txIndex: 2, logIndex: 3, item: 0, erc: 20, token: TOKEN, from: ME, to: YOU, tokenId: null, value: 1234n},
    ]);
  });

  it("ERC-20: a mint from the zero address and the largest value", () => {
    const [t] = transfersOfLog(log([TOPIC_TRANSFER, topicOf("0".repeat(40)), topicOf(YOU)], "0x" + "ff".repeat(32)), 0);
    expect(h(t!.from)).toBe("0".repeat(40));
    expect(t!.value).toBe((1n << 256n) - 1n);
  });

  it("topic0 in upper case is still the Transfer topic", () => {
    expect(
      transfersOfLog(log(["0x" + TOPIC_TRANSFER.slice(2).toUpperCase(), topicOf(ME), topicOf(YOU)], "0x" + w(1)), 0),
    ).toHaveLength(1);
  });

  it("ERC-721: four topics and no data", () => {
    expect(rows(transfersOfLog(log([TOPIC_TRANSFER, topicOf(ME), topicOf(YOU), "0x" + w(77)]), 1))).toEqual([
      {txIndex: 1, logIndex: 3, item: 0, erc: 721, token: TOKEN, from: ME, to: YOU, tokenId: 77n, value: 1n},
    ]);
    // A missing data field is no data.
    const noData = log([TOPIC_TRANSFER, topicOf(ME), topicOf(YOU), "0x" + w(1)]);
    delete noData.data;
    expect(transfersOfLog(noData, 0)[0]!.erc).toBe(721);
  });

  it.each<[string, unknown[], unknown]>([
    ["4 topics with data", [TOPIC_TRANSFER, topicOf(ME), topicOf(YOU), "0x" + w(1)], "0x" + w(1)],
    ["3 topics with 64 bytes of data", [TOPIC_TRANSFER, topicOf(ME), topicOf(YOU)], "0x" + w(1) + w(2)],
    ["3 topics with no data", [TOPIC_TRANSFER, topicOf(ME), topicOf(YOU)], "0x"],
    ["3 topics with 31 bytes", [TOPIC_TRANSFER, topicOf(ME), topicOf(YOU)], "0x" + "01".repeat(31)],
    ["1 topic (all in data, as CryptoKitties)", [TOPIC_TRANSFER], "0x" + w(1) + w(2) + w(3)],
    ["2 topics", [TOPIC_TRANSFER, topicOf(ME)], "0x" + w(1)],
    ["5 topics", [TOPIC_TRANSFER, topicOf(ME), topicOf(YOU), "0x" + w(1), "0x" + w(2)], "0x"],
    [
      "a from topic with dirty high bytes",
      [TOPIC_TRANSFER, "0x" + "01" + "0".repeat(22) + ME, topicOf(YOU)],
      "0x" + w(1),
    ],
    ["a to topic with dirty high bytes", [TOPIC_TRANSFER, topicOf(ME), "0x" + "f".repeat(24) + YOU, "0x" + w(1)], "0x"],
    ["a short address topic", [TOPIC_TRANSFER, "0x" + ME, topicOf(YOU)], "0x" + w(1)],
    ["a non-string topic", [TOPIC_TRANSFER, 5, topicOf(YOU)], "0x" + w(1)],
    ["a token id that is not a word", [TOPIC_TRANSFER, topicOf(ME), topicOf(YOU), "0x01"], "0x"],
    ["data that is not hex", [TOPIC_TRANSFER, topicOf(ME), topicOf(YOU)], "0xzz"],
    ["data of odd length", [TOPIC_TRANSFER, topicOf(ME), topicOf(YOU)], "0x" + w(1) + "0"],
    [
      "an Approval",
      ["0x8c5be1e5ebec7d5bd14f71427e1e84f3dd0314c0f7b2291e5b200ac8c7c3b925", topicOf(ME), topicOf(YOU)],
      "0x" + w(1),
    ],
    ["no topics", [], "0x" + w(1)],
  ])("ignored: %s", (_name, topics, data) => {
    expect(transfersOfLog(log(topics, data), 0)).toEqual([]);
  });

  it("a log with no topics field is ignored", () => {
    expect(transfersOfLog({address: "0x" + TOKEN, data: "0x", logIndex: "0x0"}, 0)).toEqual([]);
  });

  it("ERC-1155 TransferSingle: operator, from, to; (id, value) in data", () => {
    const data = "0x" + w(7) + w(10);
    expect(
      rows(transfersOfLog(log([TOPIC_TRANSFER_SINGLE, topicOf(THEM), topicOf(ME), topicOf(YOU)], data), 4)),
    ).toEqual([
      {txIndex: 4, logIndex: 3, item: 0, erc: 1155, token: TOKEN, from: ME, to: YOU, tokenId: 7n, value: 10n},
    ]);
  });

  it("ERC-1155 TransferBatch: one row per id, in order", () => {
    const data =
      "0x" +
      bytesToHex(
        encodeAbi(
          ["uint256[]", "uint256[]"],
          [
            [7n, 8n, 9n],
            [5n, 20n, 0n],
          ],
        ),
      );
    expect(
      rows(transfersOfLog(log([TOPIC_TRANSFER_BATCH, topicOf(THEM), topicOf(ME), topicOf(YOU)], data), 0)).map((r) => [
        r.item,
        r.tokenId,
        r.value,
        r.erc,
      ]),
    ).toEqual([
      [0, 7n, 5n, 1155],
      [1, 8n, 20n, 1155],
      [2, 9n, 0n, 1155],
    ]);
    const empty = "0x" + bytesToHex(encodeAbi(["uint256[]", "uint256[]"], [[], []]));
    expect(transfersOfLog(log([TOPIC_TRANSFER_BATCH, topicOf(THEM), topicOf(ME), topicOf(YOU)], empty), 0)).toEqual([]);
  });

  it.each<[string, unknown[], string]>([
    ["TransferSingle with 3 topics", [TOPIC_TRANSFER_SINGLE, topicOf(ME), topicOf(YOU)], "0x" + w(7) + w(10)],
    [
      "TransferSingle with 96 bytes",
      [TOPIC_TRANSFER_SINGLE, topicOf(THEM), topicOf(ME), topicOf(YOU)],
      "0x" + w(7) + w(10) + w(0),
    ],
    ["TransferSingle with 32 bytes", [TOPIC_TRANSFER_SINGLE, topicOf(THEM), topicOf(ME), topicOf(YOU)], "0x" + w(7)],
    [
      "TransferSingle with a dirty from",
      [TOPIC_TRANSFER_SINGLE, topicOf(THEM), "0x" + "1".repeat(24) + ME, topicOf(YOU)],
      "0x" + w(7) + w(10),
    ],
    [
      "TransferBatch with mismatched lengths",
      [TOPIC_TRANSFER_BATCH, topicOf(THEM), topicOf(ME), topicOf(YOU)],
      "0x" + bytesToHex(encodeAbi(["uint256[]", "uint256[]"], [[7n, 8n], [5n]])),
    ],
    [
      "TransferBatch with an offset past the data",
      [TOPIC_TRANSFER_BATCH, topicOf(THEM), topicOf(ME), topicOf(YOU)],
      "0x" + w(64) + w(4096) + w(0),
    ],
    [
      "TransferBatch with a huge length",
      [TOPIC_TRANSFER_BATCH, topicOf(THEM), topicOf(ME), topicOf(YOU)],
      "0x" + w(64) + w(96) + w(1n << 200n) + w(0),
    ],
    ["TransferBatch with no data", [TOPIC_TRANSFER_BATCH, topicOf(THEM), topicOf(ME), topicOf(YOU)], "0x"],
    [
      "TransferBatch with a dirty to",
      [TOPIC_TRANSFER_BATCH, topicOf(THEM), topicOf(ME), "0x" + "1".repeat(24) + YOU],
      "0x" + bytesToHex(encodeAbi(["uint256[]", "uint256[]"], [[7n], [5n]])),
    ],
  ])("ignored: %s", (_name, topics, data) => {
    expect(transfersOfLog(log(topics, data), 0)).toEqual([]);
  });

  it("a Transfer from a log whose address or logIndex is malformed is a shape error (the RPC's fault, not the contract's)", () => {
    expect(() =>
      transfersOfLog(log([TOPIC_TRANSFER, topicOf(ME), topicOf(YOU)], "0x" + w(1), {address: "0x1234"}), 0),
    ).toThrow(BlockShapeError);
    expect(() =>
      transfersOfLog(log([TOPIC_TRANSFER, topicOf(ME), topicOf(YOU)], "0x" + w(1), {logIndex: 3}), 0),
    ).toThrow(BlockShapeError);
  });
});

describe("internalFrames", () => {
  const A = "0x" + "aa".repeat(20);
  const B = "0x" + "bb".repeat(20);
  const C = "0x" + "cc".repeat(20);
  const D = "0x" + "dd".repeat(20);
  const f = (
    type: string,
    from: string,
    to: string | undefined,
    value: string | undefined,
    calls: Json[] = [],
    extra: Json = {},
  ): Json => ({
    type,
    from,
    ...(to === undefined ? {} : {to}),
    ...(value === undefined ? {} : {value}),
    gas: "0x100",
    gasUsed: "0x10",
    ...(calls.length ? {calls} : {}),
    ...extra,
  });

  it("lists CALL/CALLCODE with value and every CREATE/CREATE2 below the root, depth first", () => {
    const root = f("CALL", A, B, "0x5", [
      f("CALL", B, C, "0x1", [f("CALL", C, D, "0x2"), f("CALL", C, D, "0x0")]),
      f("STATICCALL", B, C, undefined, [f("CALL", C, D, "0x0")]),
      f("DELEGATECALL", B, C, "0x7"),
      f("CALLCODE", B, C, "0x3"),
      f("CREATE", B, C, "0x0", [f("CREATE2", C, D, "0x0")]),
      f("call", B, D, "0x4"),
    ]);
    const out = internalFrames(root, 3, false);
    expect(out.every((r) => r.txIndex === 3)).toBe(true);
    // idx is the frame's depth-first position among all frames below the root: unlisted frames leave gaps.
    expect(frames(out)).toEqual([
      [0, "CALL", B.slice(2), C.slice(2), 1n, false],
      [1, "CALL", C.slice(2), D.slice(2), 2n, false],
      [6, "CALLCODE", B.slice(2), C.slice(2), 3n, false],
      [7, "CREATE", B.slice(2), C.slice(2), 0n, false],
      [8, "CREATE2", C.slice(2), D.slice(2), 0n, false],
      [9, "CALL", B.slice(2), D.slice(2), 4n, false],
    ]);
    expect(out[0]!.gasLimit).toBe(0x100n);
    expect(out[0]!.gasUsed).toBe(0x10n);
  });

  it("the root itself is never listed, not even a CREATE with value", () => {
    expect(internalFrames(f("CREATE", A, B, "0x5"), 0, false)).toEqual([]);
    expect(internalFrames(f("CALL", A, B, "0x5"), 0, false)).toEqual([]);
  });

  it("a frame is reverted when it or an enclosing frame failed", () => {
    const root = f("CALL", A, B, "0x0", [
      f("CALL", B, C, "0x1", [f("CALL", C, D, "0x2")], {error: "execution reverted"}),
      f("CALL", B, D, "0x3"),
      f("STATICCALL", B, C, undefined, [f("CALL", C, D, "0x4")], {error: "out of gas"}),
      f("CALL", B, C, "0x5", [], {error: null}),
    ]);
    expect(frames(internalFrames(root, 0, false)).map(([, , , , v, r]) => [v, r])).toEqual([
      [1n, true],
      [2n, true],
      [3n, false],
      [4n, true],
      [5n, false],
    ]);
  });

  it("everything is reverted when the transaction failed", () => {
    const root = f("CALL", A, B, "0x0", [f("CALL", B, C, "0x1"), f("CREATE", B, D, "0x0")]);
    expect(internalFrames(root, 0, true).map((r) => r.reverted)).toEqual([true, true]);
    // ...or when the root frame carries the error.
    expect(internalFrames({...root, error: "execution reverted"}, 0, false).map((r) => r.reverted)).toEqual([
      true,
      true,
    ]);
  });

  it("a failed CREATE has no address", () => {
    const out = internalFrames(
      f("CALL", A, B, "0x0", [f("CREATE2", B, undefined, "0x0", [], {error: "contract address collision"})]),
      0,
      false,
    );
    expect(frames(out)).toEqual([[0, "CREATE2", B.slice(2), null, 0n, true]]);
  });

  it("a CALL without value, or with value null, is not listed", () => {
    expect(
      internalFrames(
        f("CALL", A, B, "0x0", [f("CALL", B, C, undefined), {...f("CALL", B, C, undefined), value: null}]),
        0,
        false,
      ),
    ).toEqual([]);
  });

  it("malformed frames are shape errors", () => {
    expect(() => internalFrames(f("CALL", A, B, "0x0", [f("CALL", "0x12", C, "0x1")]), 0, false)).toThrow(
      BlockShapeError,
    );
    expect(() => internalFrames(f("CALL", A, B, "0x0", [f("CALL", B, C, "1")]), 0, false)).toThrow(BlockShapeError);
    expect(() => internalFrames({...f("CALL", A, B, "0x0"), calls: {}}, 0, false)).toThrow(BlockShapeError);
    expect(() => internalFrames(f("CALL", A, B, "0x0", ["x" as unknown as Json]), 0, false)).toThrow(BlockShapeError);
  });

  it("a trace deeper than the EVM allows is a shape error, not a stack overflow", () => {
    let frame: Json = f("CALL", B, C, "0x1");
    for (let i = 0; i < 1200; i++) frame = f("CALL", B, C, "0x1", [frame]);
    expect(() => internalFrames(frame, 0, false)).toThrow(BlockShapeError);
    // 1,024 deep (the EVM's limit) is fine.
    let ok: Json = f("CALL", B, C, "0x1");
    for (let i = 0; i < 1023; i++) ok = f("CALL", B, C, "0x1", [ok]);
    expect(internalFrames(ok, 0, false)).toHaveLength(1023);
  });
});

describe("deriveBlock on captured anvil blocks", () => {
  const b1 = fixture.block1;
  const b2 = fixture.block2;

  it("block 1: two deployments are contracts by their receipts", () => {
    const d = deriveBlock(b1.block, b1.receipts, b1.traces);
    expect(d.block.number).toBe(1n);
    expect(d.txs.map((t) => [h(t.to), h(t.created), t.status])).toEqual([
      [null, TOKEN, 1],
      [null, fixture.factory.slice(2).toLowerCase(), 1],
    ]);
    expect(d.contracts.map((c) => [h(c.address), c.txIndex, h(c.deployer), h(c.deployerContract)])).toEqual([
      [TOKEN, 0, ME, null],
      [fixture.factory.slice(2).toLowerCase(), 1, ME, null],
    ]);
    // The token's constructor mints: an ERC-20 transfer from the zero address.
    expect(rows(d.transfers)).toEqual([
      {
        txIndex: 0,
        logIndex: 0,
        item: 0,
        erc: 20,
        token: TOKEN,
        from: "0".repeat(40),
        to: ME,
        tokenId: null,
        value: 10n ** 24n,
      },
    ]);
    expect(d.internals).toEqual([]);
  });

  it("block 2: transactions, the ERC-20 transfer, internal calls, nested deployments and the failed transaction", () => {
    const d = deriveBlock(b2.block, b2.receipts, b2.traces);
    const factory = fixture.factory.slice(2).toLowerCase();
    expect(d.block).toMatchObject({number: 2n, timestamp: 1_700_000_020n, txCount: 5});
    expect(h(d.block.hash)).toBe((b2.block.hash as string).slice(2));
    expect(h(d.block.parentHash)).toBe((fixture.block1.block.hash as string).slice(2));
    expect(d.txs.map((t) => [t.txIndex, h(t.from), h(t.to), t.status, t.txType])).toEqual([
      [0, ME, TOKEN, 1, 2],
      [1, ME, factory, 1, 2],
      [2, THEM, factory, 1, 2],
      [3, YOU, factory, 1, 2],
      [4, YOU, factory, 0, 2],
    ]);
    expect(d.txs[1]!.value).toBe(1000n);
    expect(h(d.txs[0]!.input)).toBe("a9059cbb" + "0".repeat(24) + YOU + w(1234));
    expect(d.txs[0]!.maxFee).toBe(BigInt(b2.block.transactions[0]!.maxFeePerGas as string));
    expect(d.txs[0]!.maxPriorityFee).toBe(1_000_000_000n);
    expect(rows(d.transfers)).toEqual([
      {txIndex: 0, logIndex: 0, item: 0, erc: 20, token: TOKEN, from: ME, to: YOU, tokenId: null, value: 1234n},
    ]);

    const child = (b2.traces[2]!.result as {calls: Json[]}).calls[0]!;
    const grandchild = (child.calls as Json[])[0]!;
    expect(d.internals!.map((f) => [f.txIndex, f.idx, f.callType, h(f.from), h(f.to), f.value, f.reverted])).toEqual([
      [1, 0, "CALL", factory, YOU, 500n, false],
      [1, 1, "CALL", factory, THEM, 500n, false],
      [2, 0, "CREATE2", factory, (child.to as string).slice(2), 0n, false],
      [2, 1, "CREATE", (child.to as string).slice(2), (grandchild.to as string).slice(2), 0n, false],
    ]);
    // Deployed by contracts: the child by the factory (CREATE2), the grandchild by the child (CREATE); the EOA
    // that sent the transaction is the deployer of both.
    expect(d.contracts.map((c) => [h(c.address), c.txIndex, h(c.deployer), h(c.deployerContract)])).toEqual([
      [(child.to as string).slice(2), 2, THEM, factory],
      [(grandchild.to as string).slice(2), 2, THEM, (child.to as string).slice(2)],
    ]);

    // Fees: Σ gasUsed × effectiveGasPrice over the receipts.
    const fees = b2.receipts.reduce(
      (a, r) => a + BigInt(r.gasUsed as string) * BigInt(r.effectiveGasPrice as string),
      0n,
    );
    expect(d.block.feesSpent).toBe(fees);
    expect(d.txs.map((t) => t.gasUsed)).toEqual(b2.receipts.map((r) => BigInt(r.gasUsed as string)));
    expect(d.block.baseFee).toBe(BigInt(b2.block.baseFeePerGas as string));

    // Who took part in what.
    const kinds = (addr: string, tx: number): number | undefined => d.addressKinds.get(`${addr}:${tx}`);
    expect(kinds(ME, 0)).toBe(KIND.native | KIND.erc20);
    expect(kinds(YOU, 0)).toBe(KIND.erc20);
    expect(kinds(TOKEN, 0)).toBe(KIND.native);
    expect(kinds(YOU, 1)).toBe(KIND.internal);
    expect(kinds(factory, 1)).toBe(KIND.native | KIND.internal);
    expect(kinds(YOU, 4)).toBe(KIND.native);
  });

  it("a bare root frame (no {txHash, result} wrapper) is accepted, a reverted one too", () => {
    const traces = b2.traces.map((t) => t.result as Json);
    const d = deriveBlock(b2.block, b2.receipts, traces);
    expect(d.internals).toEqual(deriveBlock(b2.block, b2.receipts, b2.traces).internals);
    expect(traces[4]!.error).toBe("execution reverted");
  });

  it("without traces: no internal transactions, and contracts only from receipts", () => {
    const d = deriveBlock(b2.block, b2.receipts, null);
    expect(d.internals).toBeNull();
    expect(d.contracts).toEqual([]);
  });

  it("a failed deployment is no contract, even when its receipt names an address", () => {
    const block = clone(b1.block);
    const receipts = clone(b1.receipts);
    receipts[1]!.status = "0x0";
    const d = deriveBlock(block, receipts, null);
    expect(d.txs[1]!.created).toBeNull();
    expect(d.contracts.map((c) => h(c.address))).toEqual([TOKEN]);
  });

  it("a reverted frame's CREATE is no contract", () => {
    const traces = clone(b2.traces);
    (traces[2]!.result as {calls: Json[]}).calls[0]!.error = "execution reverted";
    const d = deriveBlock(b2.block, b2.receipts, traces);
    expect(d.contracts).toEqual([]);
    expect(d.internals!.filter((f) => f.txIndex === 2).map((f) => f.reverted)).toEqual([true, true]);
  });

  it("receipts without effectiveGasPrice fall back to the transaction's gasPrice", () => {
    const receipts = clone(b2.receipts).map((r) => {
      delete r.effectiveGasPrice;
      return r;
    });
    const d = deriveBlock(b2.block, receipts, b2.traces);
    expect(d.block.feesSpent).toBe(
      b2.receipts.reduce(
        (a, r, i) => a + BigInt(r.gasUsed as string) * BigInt(b2.block.transactions[i]!.gasPrice as string),
        0n,
      ),
    );
  });

  it("an empty block", () => {
    const block = {...clone(b2.block), transactions: []};
    const d = deriveBlock(block, [], []);
    expect(d.txs).toEqual([]);
    expect(d.block.feesSpent).toBe(0n);
    expect(d.internals).toEqual([]);
  });

  describe("shape errors", () => {
    const shape = (mutate: (c: Captured) => void, message?: RegExp): void => {
      const c = clone(b2);
      mutate(c);
      let err: unknown;
      try {
        deriveBlock(c.block, c.receipts, c.traces);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(BlockShapeError);
      if (message) expect((err as Error).message).toMatch(message);
    };
    it("fewer receipts than transactions", () => shape((c) => c.receipts.pop(), /5 transactions, 4 receipts/));
    it("more receipts than transactions", () =>
      shape((c) => c.receipts.push(c.receipts[0]!), /5 transactions, 6 receipts/));
    it("fewer traces than transactions", () => shape((c) => c.traces.pop(), /5 transactions, 4 traces/));
    it("receipts in another order", () => shape((c) => c.receipts.reverse(), /receipt 0 is not transaction 0's/));
    it("a receipt for another transaction", () =>
      shape((c) => (c.receipts[3]!.transactionHash = "0x" + "11".repeat(32)), /receipt 3/));
    it("a trace for another transaction", () =>
      shape((c) => (c.traces[1]!.txHash = "0x" + "11".repeat(32)), /trace 1/));
    it("transactions as hashes only", () =>
      shape((c) => (c.block.transactions = c.block.transactions.map((t) => t.hash as unknown as Json))));
    it("receipts that are not an array", () =>
      shape((c) => ((c as {receipts: unknown}).receipts = {}), /receipts is not an array/));
    it("a null block", () => {
      expect(() => deriveBlock(null, [], null)).toThrow(BlockShapeError);
    });
    it("a block number that is not a quantity", () => shape((c) => (c.block.number = 2), /block.number/));
    it("a short block hash", () => shape((c) => (c.block.hash = "0x1234"), /block.hash/));
    it("a transaction with a bad from", () => shape((c) => (c.block.transactions[0]!.from = "0xnothex"), /tx.from/));
    it("gasUsed missing from a receipt", () => shape((c) => delete c.receipts[0]!.gasUsed, /receipt.gasUsed/));
    it("a log that is not an object", () => shape((c) => (c.receipts[0]!.logs = ["x" as unknown as Json]), /log/));
    it("a receipt status other than 0 or 1", () => shape((c) => (c.receipts[0]!.status = "0x2"), /status 2/));
    it("a transaction the node could not trace ({txHash, error}), not silently a trace without calls", () =>
      shape(
        (c) => (c.traces[1] = {txHash: c.traces[1]!.txHash, error: "execution timeout"}),
        /trace 1 failed: execution timeout/,
      ));
    it("a trace frame with a bad value", () =>
      shape((c) => ((c.traces[1]!.result as {calls: Json[]}).calls[0]!.value = "500"), /frame.value/));
  });
});
