/**
 * The dev network's X-chain begins as mainnet's did: a DAG until its Cortina tick, then blocks. On a dev node the
 * index serves the vertices (X/vtx, the stop vertex last) and their transactions (X/tx), and the data API serves
 * them: endpoint 12 answers every DAG height with its vertices, `listLatestXChainVertices` and `getVertexByHash`
 * (glacier-sdk 3.0.2) answer them, and endpoint 5 lists the vertex transactions as non-linear, timed by the index's
 * acceptance (a vertex carries no time), with their UTXOs consumed and emitted. Each vertex and vertex transaction
 * also passes @avalanche-sdk/chainkit's zod schema of its model.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {
  Glacier,
  XChainId,
  type ListXChainTransactionsResponse,
  type Network,
  type XChainNonLinearTransaction,
} from "@avalabs/glacier-sdk";
import {
  XChainNonLinearTransaction$inboundSchema,
  XChainVertex$inboundSchema,
} from "@avalanche-sdk/chainkit/models/components";
import {decodeVertex} from "../../src/decode/avm.js";
import {cb58Encode} from "../../src/util/cb58.js";
import {STORE_BACKENDS} from "../helpers/sql.js";
import {devFolded} from "../helpers/devNode.js";
import {startNode, type TestNode} from "../helpers/node.js";

const NET = "local" as Network;
/** 53 backfilled ticks: Cortina at tick 26, so both eras hold data. */
const DEV = {
  "network-id": "local",
  "index-enabled": true,
  feed: "dev",
  "dev-backfill": "4h25m",
  "dev-evm": false,
  "data-api-enabled": true,
  "data-api-rate-limit": "0",
};

interface Container {
  id: string;
  bytes: string;
  timestamp: string;
  index: string;
}

async function containers(t: TestNode, path: string): Promise<Container[]> {
  const out: Container[] = [];
  for (;;) {
    const r = await t.rpc(path, "index.getContainerRange", {startIndex: out.length, numToFetch: 1024, encoding: "hex"});
    const page = (r.body.result as {containers: Container[]} | undefined)?.containers ?? [];
    out.push(...page);
    if (page.length < 1024) return out;
  }
}

/** A container's bytes: its hex without the 4-byte checksum AvalancheGo's hex encoding appends. */
const bytesOf = (c: Container): Buffer => Buffer.from(c.bytes.slice(2, -8), "hex");
const seconds = (rfc3339: string): number => Math.floor(Date.parse(rfc3339) / 1000);

const caughtUp = (t: TestNode): Promise<void> => devFolded(t, "X/block", 20, 90_000);

describe.each(STORE_BACKENDS)("the dev X-chain's DAG era ($name)", (backend) => {
  let t: TestNode;
  let g: Glacier;
  let vtx: Container[];

  beforeAll(async () => {
    t = await startNode({...DEV, "data-api-db": await backend.db()});
    await caughtUp(t);
    g = new Glacier({BASE: t.url.toString().replace(/\/$/, "")});
    vtx = await containers(t, "/ext/index/X/vtx");
  }, 180_000);
  afterAll(async () => t?.close());

  it("indexes the vertices, the stop vertex last, and their transactions in X/tx", async () => {
    expect(vtx.length).toBeGreaterThan(26);
    const decoded = vtx.map((c) => ({
      c,
      v: decodeVertex(bytesOf(c)),
      version: Number.parseInt(c.bytes.slice(2, 6), 16),
    }));
    expect(decoded.slice(0, -1).every((d) => d.version === 0)).toBe(true);
    expect(decoded.at(-1)!.version).toBe(1);
    const txs = await containers(t, "/ext/index/X/tx");
    expect(txs.map((c) => c.id)).toEqual(decoded.flatMap((d) => d.v.txIds.map(cb58Encode)));
  });

  it("answers endpoint 12 for every DAG height with its vertices, heights and transactions", async () => {
    const byHeight = new Map<number, Array<{id: string; txs: string[]; parents: string[]; ts: number}>>();
    for (const c of vtx) {
      const v = decodeVertex(bytesOf(c));
      const h = Number(v.height);
      byHeight.set(h, [
        ...(byHeight.get(h) ?? []),
        {id: c.id, txs: v.txIds.map(cb58Encode), parents: v.parentIds.map(cb58Encode), ts: seconds(c.timestamp)},
      ]);
    }
    const heights = [...byHeight.keys()];
    expect(Math.min(...heights)).toBe(0);
    for (const h of heights) {
      const page = await g.primaryNetworkVertices.getVertexByHeight({
        network: NET,
        blockchainId: XChainId.X_CHAIN,
        vertexHeight: h,
        sortOrder: "asc" as never,
        pageSize: 100,
      });
      expect(page.vertices.length, `height ${h}`).toBeGreaterThan(0);
      expect(
        page.vertices.map((v) => ({
          id: v.vertexHash,
          txs: v.transactions,
          parents: v.parentHashes,
          ts: v.vertexTimestamp,
        })),
      ).toEqual(byHeight.get(h));
      expect(page.vertices.every((v) => v.vertexHeight === h && v.txCount === v.transactions.length)).toBe(true);
      for (const v of page.vertices) expect(XChainVertex$inboundSchema.safeParse(v).error).toBeUndefined();
    }
    // Above the stop vertex there is none.
    const above = await g.primaryNetworkVertices.getVertexByHeight({
      network: NET,
      blockchainId: XChainId.X_CHAIN,
      vertexHeight: Math.max(...heights) + 1,
    });
    expect(above.vertices).toEqual([]);
  });

  it("answers the latest vertices and each by hash, the stop vertex without transactions", async () => {
    const latest = await g.primaryNetworkVertices.listLatestXChainVertices({
      network: NET,
      blockchainId: XChainId.X_CHAIN,
      pageSize: 100,
    });
    expect(latest.vertices.map((v) => v.vertexHash)).toEqual(
      vtx
        .map((c) => c.id)
        .reverse()
        .slice(0, 100),
    );
    const stop = await g.primaryNetworkVertices.getVertexByHash({
      network: NET,
      blockchainId: XChainId.X_CHAIN,
      vertexHash: vtx.at(-1)!.id,
    });
    expect(stop).toMatchObject({
      vertexHash: vtx.at(-1)!.id,
      txCount: 0,
      transactions: [],
      vertexTimestamp: seconds(vtx.at(-1)!.timestamp),
    });
    expect(stop.vertexSizeBytes).toBe(bytesOf(vtx.at(-1)!).length);
  });

  it("lists the vertex transactions in endpoint 5 as non-linear, at their vertex's acceptance, with their UTXOs", async () => {
    const all: Array<ListXChainTransactionsResponse["transactions"][number]> = [];
    let pageToken: string | undefined;
    do {
      const page = (await g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
        network: NET,
        blockchainId: XChainId.X_CHAIN as never,
        pageSize: 100,
        pageToken,
      })) as ListXChainTransactionsResponse;
      all.push(...page.transactions);
      pageToken = page.nextPageToken || undefined;
    } while (pageToken);
    const nonLinear = all.filter((tx): tx is XChainNonLinearTransaction => tx.chainFormat === "non-linear");
    const linear = all.filter((tx) => tx.chainFormat === "linear");
    expect(nonLinear.length).toBe(vtx.length - 1);
    expect(linear.length).toBeGreaterThan(0);
    // Newest first: every block transaction before every vertex transaction.
    expect(all.findIndex((tx) => tx.chainFormat === "non-linear")).toBe(linear.length);
    const vertexOf = new Map(vtx.map((c) => [c.id, c]));
    for (const tx of nonLinear) {
      expect(XChainNonLinearTransaction$inboundSchema.safeParse(tx).error).toBeUndefined();
      expect(tx.vertices).toHaveLength(1);
      const c = vertexOf.get(tx.vertices[0]!.hash)!;
      expect(tx.timestamp).toBe(seconds(c.timestamp));
      expect(tx.vertices[0]!.timestamp).toBe(tx.timestamp);
      expect(tx.consumedUtxos.length).toBeGreaterThan(0);
    }
    // A vertex transaction's output spent by a later one: the spend names it, at the spender's time.
    const byHash = new Map(nonLinear.map((tx) => [tx.txHash, tx]));
    const spends = nonLinear.flatMap((tx) =>
      tx.consumedUtxos.filter((u) => byHash.has(u.creationTxHash)).map((u) => ({tx, u})),
    );
    expect(spends.length).toBeGreaterThan(0);
    for (const {tx, u} of spends) {
      const emitted = byHash.get(u.creationTxHash)!.emittedUtxos.find((e) => e.utxoId === u.utxoId)!;
      expect(emitted).toMatchObject({consumingTxHash: tx.txHash, consumingTxTimestamp: tx.timestamp});
    }
  });
});
