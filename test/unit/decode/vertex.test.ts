/**
 * The vertex builders (pre-Cortina X/vtx containers) against the real mainnet vertex of test/fixtures: decoded and
 * built again it gives the same bytes and ID. Parents and txs are sorted as AvalancheGo's vertex.Build sorts them.
 */
import {readFileSync} from "node:fs";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {avmSpentTxIds, decodeVertex} from "../../../src/decode/avm.js";
import {buildStopVertex, buildVertex, buildXTx} from "../../../src/decode/builders.js";
import {cb58Encode, idFromString} from "../../../src/util/cb58.js";
import {sha256} from "../../../src/util/sha256.js";

interface Fixture {
  name: string;
  hex: string;
  id: string;
  facts: {chainID: string; height: string; parentIDs: string[]; txIDs: string[]};
}

const fixtures = JSON.parse(
  readFileSync(path.resolve(__dirname, "../../fixtures/containers.json"), "utf8"),
) as Fixture[];
const fixture = fixtures.find((f) => f.name === "x-mainnet-vertex-h2121958")!;
const bytes = Buffer.from(fixture.hex.slice(2), "hex");
const X = idFromString("2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM");

describe("buildVertex", () => {
  it("rebuilds the real mainnet vertex byte for byte, with its ID", () => {
    const v = decodeVertex(bytes);
    expect(cb58Encode(v.chainId)).toBe(fixture.facts.chainID);
    expect(v.height.toString()).toBe(fixture.facts.height);
    expect(v.parentIds.map(cb58Encode)).toEqual(fixture.facts.parentIDs);
    expect(v.txIds.map(cb58Encode)).toEqual(fixture.facts.txIDs);
    const rebuilt = buildVertex({chainId: v.chainId, height: v.height, parentIds: v.parentIds, txs: v.txs});
    expect(Buffer.from(rebuilt).equals(bytes)).toBe(true);
    expect(cb58Encode(sha256(rebuilt))).toBe(fixture.id);
  });

  it("sorts parents by ID and txs by hash, whatever order they come in", () => {
    const parents = [0x30, 0x10, 0x20].map((b) => new Uint8Array(32).fill(b));
    const txs = [1, 2, 3, 4].map((n) => buildXTx(12345, X, n));
    const a = buildVertex({chainId: X, height: 7n, parentIds: parents, txs});
    const b = buildVertex({chainId: X, height: 7n, parentIds: [...parents].reverse(), txs: [...txs].reverse()});
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const v = decodeVertex(a);
    expect(v.parentIds.map((p) => p[0])).toEqual([0x10, 0x20, 0x30]);
    const ids = v.txIds.map((t) => Buffer.from(t).toString("hex"));
    expect(ids).toEqual([...ids].sort());
    expect(v.height).toBe(7n);
    // version 0, chain, height, epoch 0: no timestamp anywhere in the header.
    expect(Buffer.from(a.subarray(0, 46)).toString("hex")).toBe(
      "0000" + Buffer.from(X).toString("hex") + "0000000000000007" + "00000000",
    );
  });

  it("refuses what AvalancheGo's verify refuses", () => {
    const p = new Uint8Array(32).fill(1);
    const tx = buildXTx(12345, X, 1);
    expect(() => buildVertex({chainId: X, height: 0n, parentIds: [], txs: []})).toThrow(/1 to 128 txs/);
    expect(() => buildVertex({chainId: X, height: 0n, parentIds: [p, p], txs: [tx]})).toThrow(/parent IDs are unique/);
    expect(() => buildVertex({chainId: X, height: 0n, parentIds: [], txs: [tx, tx]})).toThrow(/txs are unique/);
    const many = Array.from({length: 129}, (_, i) =>
      new Uint8Array(32).fill(0).map((_, j) => (j === 0 ? i >> 8 : j === 1 ? i & 255 : 0)),
    );
    expect(() => buildStopVertex({chainId: X, height: 0n, parentIds: many})).toThrow(/at most 128 parents/);
  });
});

describe("buildStopVertex", () => {
  it("is codec v1: chain, height, sorted parents; no epoch, no txs", () => {
    const parents = [new Uint8Array(32).fill(9), new Uint8Array(32).fill(3)];
    const stop = buildStopVertex({chainId: X, height: 12n, parentIds: parents});
    expect(stop.length).toBe(2 + 32 + 8 + 4 + 64);
    expect(stop[1]).toBe(1);
    const v = decodeVertex(stop);
    expect(v.height).toBe(12n);
    expect(v.parentIds.map((p) => p[0])).toEqual([3, 9]);
    expect(v.txs).toEqual([]);
  });
});

describe("avmSpentTxIds", () => {
  it("names the txs a signed tx spends from (the real mainnet BaseTx's one input)", () => {
    const tx = fixtures.find((f) => f.name === "x-mainnet-tx-index1")!;
    const spent = avmSpentTxIds(Buffer.from(tx.hex.slice(2), "hex"));
    expect(spent.map((s) => Buffer.from(s).toString("hex"))).toEqual([
      "6f375c785edb28d52edb59b54035c96c198e9d80f5f5f5eee070592fe9465b8d",
    ]);
  });
});
