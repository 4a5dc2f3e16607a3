/**
 * Defects found by the SDKs (glacier-sdk, chainkit), each on a real node fed P-chain blocks from a file:
 * - endpoint 1 on a node with no P-chain state, naming no height: 503 (the service's state), not 400;
 * - `GET /v1/live-check` (chainkit's liveCheck): 200 with the hosted API's HealthCheckResultDto;
 * - `validationStatus=removed`: the permissioned subnet validators a RemoveSubnetValidatorTx removed
 *   (chainkit's RemovedValidatorDetails), no longer active;
 * - Helicon's auto-renewed validator txs are folded without stopping the view or being counted undecodable.
 */
import {rmSync, writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, describe, expect, it} from "vitest";
import {NETWORKS} from "../../src/chains/index.js";
import {serializeUnsignedMessage} from "../../src/warp/message.js";
import {cb58Encode, idFromString} from "../../src/util/cb58.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";
import {pAddSubnetValidatorTx, pBaseTx, pChainBlocks, pHeliconTxs} from "../helpers/pChain.js";
import {pRemoveSubnetValidatorTx, seeded} from "../helpers/pChain.js";

const network = NETWORKS.local;
const asset = idFromString("2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe");
const dir = tempDir();
afterAll(() => rmSync(dir, {recursive: true, force: true}));

function line(b: {id: string; bytes: Uint8Array; time: bigint}): string {
  const timestamp = new Date(Number(b.time) * 1000).toISOString();
  const bytes = "0x" + Buffer.from(b.bytes).toString("hex");
  return JSON.stringify({chain: "P", kind: "block", id: b.id, bytes, timestamp});
}

function node(feedLines: string[], name: string): Promise<TestNode> {
  const f = path.join(dir, `${name}.ndjson`);
  writeFileSync(f, feedLines.join("\n") + (feedLines.length > 0 ? "\n" : ""));
  const dataApi = {"data-api-enabled": true, "data-api-rate-limit": "0"};
  const flags = {"network-id": "local", "index-enabled": true, feed: `file:${f}`, ...dataApi};
  return startNode(flags, {dataDir: path.join(dir, name)});
}

/** An unsigned warp message of this network from the P-chain (an empty payload: the route checks the set first). */
const payload = new Uint8Array([1, 2, 3]);
const unsigned = serializeUnsignedMessage({networkId: network.id, sourceChainId: new Uint8Array(32), payload});
const message = "0x" + Buffer.from(unsigned).toString("hex");
const PRIMARY = "11111111111111111111111111111111LpoYY";
const AGGREGATE = "/v1/signatureAggregator/local/aggregateSignatures";

describe("a node whose P-chain view has folded no block", () => {
  let t: TestNode;
  afterAll(async () => t?.close());

  it("answers endpoint 1 without a height 503 (its state), and live-check 200", {timeout: 120_000}, async () => {
    t = await node([], "empty");
    const r = await t.post(AGGREGATE, JSON.stringify({message, signingSubnetId: PRIMARY}));
    expect(r.status, r.text).toBe(503);
    const body = {message: "the P-chain view has no block yet", statusCode: 503, error: "Service Unavailable"};
    expect(r.json()).toEqual(body);
    // Naming a height changes nothing: the view has none to answer from.
    const named = await t.post(AGGREGATE, JSON.stringify({message, signingSubnetId: PRIMARY, pChainHeight: 5}));
    expect(named.status, named.text).toBe(503);

    const live = await t.get("/v1/live-check");
    expect(live.status).toBe(200);
    const up = {store: {status: "up"}};
    expect(live.json()).toEqual({status: "ok", info: up, error: {}, details: up});
  });
});

describe("permissioned subnet validators removed, and Helicon's transactions", () => {
  let t: TestNode;
  afterAll(async () => t?.close());
  const T0 = BigInt(Math.floor(Date.now() / 1000)) - 3600n;
  const subnetId = seeded("permissioned-subnet");
  const kept = seeded("kept-node").subarray(0, 20);
  const gone = seeded("removed-node").subarray(0, 20);
  const base = {networkId: network.id, pChainId: network.chainIds.P, asset};
  const period = {start: T0 + 10n, end: T0 + 86_400n};
  const helicon = pHeliconTxs({...base, cycleEnd: T0 + 1_209_600n});
  const blocks = pChainBlocks([
    {time: T0, txs: [pBaseTx(network.id, network.chainIds.P, asset, 1)]},
    {time: T0 + 10n, txs: [kept, gone].map((nodeId) => pAddSubnetValidatorTx({...base, subnetId, nodeId, ...period}))},
    {time: T0 + 20n, txs: [pRemoveSubnetValidatorTx({...base, subnetId, nodeId: gone})]},
    {time: T0 + 30n, txs: [helicon.add, helicon.config]},
    {time: T0 + 40n, txs: [helicon.reward], kind: "proposal"},
    {time: T0 + 40n, txs: [], kind: "commit"},
    {time: T0 + 50n, txs: [pBaseTx(network.id, network.chainIds.P, asset, 2)]},
  ]);

  it("lists a removed validator under validationStatus=removed, with the removing tx, not as active", async () => {
    t = await node(blocks.map(line), "removed");
    const list = async (q: string): Promise<{validators: Array<Record<string, unknown>>}> => {
      const r = await t.get(`/v1/networks/local/validators?subnetId=${cb58Encode(subnetId)}&${q}`);
      expect(r.status, r.text).toBe(200);
      return r.json() as {validators: Array<Record<string, unknown>>};
    };
    const latest = async (): Promise<unknown> =>
      (await t.get("/v1/networks/local/blockchains/p-chain/blocks?pageSize=1")).json();
    await expect.poll(latest, {timeout: 80_000}).toMatchObject({blocks: [{blockNumber: "7"}]});
    const removed = await list("validationStatus=removed");
    expect(removed.validators).toEqual([
      {
        txHash: blocks[1]!.txIds[1],
        nodeId: expect.stringMatching(/^NodeID-/),
        subnetId: cb58Encode(subnetId),
        amountStaked: "10",
        startTimestamp: Number(T0 + 10n),
        endTimestamp: Number(T0 + 86_400n),
        removeTxHash: blocks[2]!.txIds[0],
        removeTimestamp: Number(T0 + 20n),
        validationStatus: "removed",
      },
    ]);
    const active = await list("validationStatus=active");
    expect(active.validators.map((v) => v.txHash)).toEqual([blocks[1]!.txIds[0]]);
    // The removal is no reward: the AddSubnetValidatorTx's answer names no rewardTxHash.
    const added = await t.get(`/v1/networks/local/blockchains/p-chain/transactions/${blocks[1]!.txIds[1]}`);
    expect(added.status, added.text).toBe(200);
    expect(added.json()).not.toHaveProperty("rewardTxHash");
  }, 120_000);

  it("folds Helicon's transactions: served, none undecodable, the view not stopped", async () => {
    for (const id of [blocks[3]!.txIds[0], blocks[3]!.txIds[1], blocks[4]!.txIds[0]]) {
      const r = await t.get(`/v1/networks/local/blockchains/p-chain/transactions/${id}`);
      expect(r.status, r.text).toBe(200);
    }
    const path = `/v1/networks/local/blockchains/p-chain/transactions/${blocks[3]!.txIds[0]}`;
    const tx = (await t.get(path)).json() as {txType: string; emittedUtxos: Array<{staked?: boolean}>};
    // The hosted API's PChainTransactionType (closed in chainkit) names none of them yet: UNKNOWN.
    expect(tx.txType).toBe("UNKNOWN");
    expect(tx.emittedUtxos.filter((u) => u.staked).length).toBe(1);
    const metrics = (await t.get("/ext/metrics")).text;
    expect(metrics).not.toMatch(/^avaext_data_api_undecodable_total\{[^}]*\} [1-9]/m);
    expect(metrics).not.toMatch(/^avaext_data_api_view_stopped_total\{[^}]*\} [1-9]/m);
    expect((await t.get("/v1/health-check")).status).toBe(200);
  });
});
