/**
 * The dev network's interchain traffic as `npm start` serves it (docs/api/icm.md), on both store backends:
 * the L1's EVM is followed beside the C-chain and served at /ext/bc/<L1>/rpc, the relayer's deliveries give every
 * status of endpoint 17, every signed message the relayer delivered verifies with a second BLS library (noble)
 * against the local validators' keys, endpoint 1 signs the dev chains' messages with the right validator sets,
 * and a restart replays both EVMs to the same blocks.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {decodeAbi, eventTopic} from "../../src/evm/abi.js";
import {hexToBytes, toHex} from "../../src/evm/hex.js";
import {ICM_ACCOUNTS} from "../../src/dev/evm/interchain.js";
import {LOCAL_VALIDATORS} from "../../src/dev/primaryNetwork.js";
import {parseSignedMessage} from "../../src/warp/message.js";
import {STORE_BACKENDS} from "../helpers/sql.js";
import {verifiesWithSet, type DevKeyName} from "../helpers/devKeys.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const WARP = "0x0200000000000000000000000000000000000005";
/** deliver(uint32,bytes)'s selector. */
const DELIVER = eventTopic("deliver(uint32,bytes)").slice(0, 10);
const SEND_WARP = eventTopic("SendWarpMessage(address,bytes32,bytes)");
// 6 hours of 5-minute ticks: the L1's EVM runs from tick 31 to 71, with each shape of message at least once.
const FLAGS = {
  "network-id": "local",
  "index-enabled": true,
  feed: "dev",
  "dev-backfill": "6h",
  "data-api-enabled": true,
  "data-api-rate-limit": "0",
};
const BACKENDS = STORE_BACKENDS;

interface Message {
  messageId: string;
  sourceEvmChainId: string;
  destinationEvmChainId: string;
  messageNonce: string;
  to: string;
  data: string;
  status: string;
  messageExecuted: boolean;
  receiptDelivered: boolean;
  receipts: unknown[];
  rewardDetails: {value: string};
  sourceTransaction?: {txHash: string};
  destinationTransaction?: {txHash: string; delivererAddress: string};
}

// The validator sets the dev relayer signs with (keys and weights; noble checks, test/helpers/devKeys.ts).
const AVAX = 1_000_000_000n;
const C_SET: Array<[DevKeyName, bigint]> = [
  [1, 2_000n * AVAX],
  [2, 2_000n * AVAX],
  [3, 2_000n * AVAX],
  [4, 2_000n * AVAX],
  [5, 2_000n * AVAX],
  ["s1", 2_100n * AVAX],
];
const L1_SETS: Array<[Array<[DevKeyName, bigint]>, bigint]> = [
  [
    [
      [1, 100n],
      [2, 100n],
      [3, 100n],
    ],
    0n,
  ],
  [
    [
      [1, 100n],
      [2, 100n],
      [3, 100n],
      [4, 100n],
    ],
    0n,
  ],
  [
    [
      [1, 100n],
      [2, 100n],
      [3, 100n],
      [4, 200n],
    ],
    0n,
  ],
  [
    [
      [1, 100n],
      [2, 100n],
      [4, 200n],
    ],
    100n,
  ],
];

describe.each(BACKENDS)("the dev network's interchain traffic ($name)", (backend) => {
  const dataDir = tempDir();
  let t: TestNode;
  let l1Id: string;
  let messages: Message[];
  let db: string;

  const get = async <T>(path: string): Promise<T> => {
    const r = await t.get(path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.json() as T;
  };
  const evm = async <T>(chain: "C" | string, method: string, params: unknown[]): Promise<T> => {
    const r = await t.rpc(`/ext/bc/${chain}/rpc`, method, params);
    expect(r.body.error, `${chain} ${method}`).toBeUndefined();
    return r.body.result as T;
  };
  const waitForFollowers = async (): Promise<void> => {
    for (const chain of ["C", l1Id]) {
      const head = BigInt(await evm<string>(chain, "eth_blockNumber", []));
      const f = t.node.dataApi!.evm!.chains.find((c) =>
        chain === "C" ? c.isCChain : t.node.dataApi!.evm!.blockchainIdOf(c) === chain,
      )!.follower!;
      await f.waitFor(head, 120_000);
    }
  };

  beforeAll(async () => {
    db = await backend.db();
    t = await startNode({...FLAGS, "data-api-db": db}, {dataDir, keepData: true});
    l1Id = t.node.devFeed!.l1BlockchainId()!;
    // The backfill is done once the live ticks begin (the node is healthy); then both followers catch up.
    const deadline = Date.now() + 150_000;
    while ((await t.get("/ext/health")).status !== 200) {
      if (Date.now() > deadline) throw new Error("the dev network did not finish its backfill within 150 s");
      await new Promise((r) => setTimeout(r, 1000));
    }
    await waitForFollowers();
    while (t.node.dataApi!.view!.lag() !== 0n) await new Promise((r) => setTimeout(r, 200));
    messages = (await get<{messages: Message[]}>("/v1/icm/messages?pageSize=100")).messages;
  }, 300_000);

  afterAll(async () => t?.close());

  it("follows the L1's EVM beside the C-chain, by the name its CreateChainTx gave it, and serves its JSON-RPC", async () => {
    const {chains} = await get<{chains: Array<{chainId: string; chainName: string; platformChainId: string}>}>(
      "/v1/chains",
    );
    expect(chains.map((c) => [c.chainId, c.chainName])).toEqual([
      ["43112", "C-Chain"],
      ["99999", "devl1"],
    ]);
    expect(chains[1]!.platformChainId).toBe(l1Id);
    expect(await get(`/v1/chains/${l1Id}`)).toMatchObject({chainId: "99999", chainName: "devl1"});
    expect(await evm<string>(l1Id, "eth_chainId", [])).toBe("0x1869f");
    // The L1's validators: the conversion's local nodes 1-3 (the third disabled at tick 50, no longer listed) and
    // node 4, registered at tick 42.
    const {blockchains} = await get<{blockchains: Array<{blockchainId: string; subnetId: string}>}>(
      "/v1/networks/local/blockchains",
    );
    const subnetId = blockchains.find((b) => b.blockchainId === l1Id)!.subnetId;
    const validators = await get<{validators: Array<{nodeId: string}>}>(
      `/v1/networks/local/l1Validators?subnetId=${subnetId}`,
    );
    expect(validators.validators.map((v) => v.nodeId).sort()).toEqual(
      [0, 1, 3].map((i) => LOCAL_VALIDATORS[i]!).sort(),
    );
  });

  it("shows every status: both ways, with and without fees, failed and retried executions, receipts, one pending", async () => {
    const both = (s: string, d: string): Message[] =>
      messages.filter((m) => m.sourceEvmChainId === s && m.destinationEvmChainId === d);
    const cToL1 = both("43112", "99999");
    const l1ToC = both("99999", "43112");
    expect(cToL1.length).toBeGreaterThan(8);
    expect(l1ToC.length).toBeGreaterThan(8);
    for (const list of [cToL1, l1ToC]) {
      expect(list.some((m) => m.status === "delivered" && m.messageExecuted && m.rewardDetails.value !== "0")).toBe(
        true,
      );
      expect(list.some((m) => m.status === "delivered" && m.messageExecuted && m.rewardDetails.value === "0")).toBe(
        true,
      );
      // A receiver told to fail: delivered, not executed; one of them retried (by nonce parity) and executed.
      const failing = list.filter((m) =>
        new TextDecoder().decode(hexToBytes(m.data)).includes("a receiver that fails"),
      );
      expect(failing.some((m) => m.status === "delivered" && !m.messageExecuted)).toBe(true);
      expect(failing.some((m) => m.status === "delivered" && m.messageExecuted)).toBe(true);
      // The messages going back carried the receipts: the fees went to the relayer.
      expect(list.some((m) => m.receipts.length > 0)).toBe(true);
      expect(list.some((m) => m.receiptDelivered && m.rewardDetails.value !== "0")).toBe(true);
    }
    // Delivered by the relayer only; the message only an absent relayer may deliver stays pending, its fee raised.
    for (const m of messages.filter((x) => x.destinationTransaction))
      expect(m.destinationTransaction!.delivererAddress.toLowerCase()).toBe(ICM_ACCOUNTS.relayer);
    const pending = cToL1.filter(
      (m) => m.status === "pending" && new TextDecoder().decode(hexToBytes(m.data)).includes("never runs"),
    );
    expect(pending).toHaveLength(1);
    expect(pending[0]!.rewardDetails.value).toBe((10n ** 18n).toString());
  });

  it("delivered messages signed by the source's validators: every one verifies with noble against the local keys", async () => {
    const delivered = messages.filter((m) => m.destinationTransaction);
    expect(delivered.length).toBeGreaterThan(16);
    for (const m of delivered) {
      const chain = m.destinationEvmChainId === "43112" ? "C" : l1Id;
      const receive = await evm<{blockNumber: string; nonce: string; from: string}>(chain, "eth_getTransactionByHash", [
        m.destinationTransaction!.txHash,
      ]);
      const block = await evm<{transactions: Array<{to: string; from: string; nonce: string; input: string}>}>(
        chain,
        "eth_getBlockByNumber",
        [receive.blockNumber, true],
      );
      // The relayer's deliver() just before its receiveCrossChainMessage.
      const deliver = block.transactions.find(
        (x) => x.to === WARP && x.from === receive.from && BigInt(x.nonce) === BigInt(receive.nonce) - 1n,
      )!;
      expect(deliver.input.startsWith(DELIVER)).toBe(true);
      const [, signedBytes] = decodeAbi(["uint256", "bytes"], hexToBytes(deliver.input.slice(10))) as [
        bigint,
        Uint8Array,
      ];
      const signed = parseSignedMessage(signedBytes);
      // C's messages by the primary network's validators: the five genesis ones and, all through these 6 hours, the
      // dev network's first own validator (2,000 AVAX, 100 delegated from the second tick); the L1's by its
      // validators then: 1-3; 4 registered (tick 42); its weight doubled (46); 3 disabled, its weight still counted (50).
      const ok =
        m.sourceEvmChainId === "43112"
          ? verifiesWithSet(signed, C_SET)
          : L1_SETS.some(([set, keyless]) => verifiesWithSet(signed, set, keyless));
      expect(ok, `message ${m.messageId}`).toBe(true);
    }
  }, 120_000);

  it("endpoint 1 signs what the dev chains sent, with each source's validators, and refuses a message they did not send", async () => {
    const l1Message = messages.find((m) => m.sourceEvmChainId === "99999")!;
    const cMessage = messages.find((m) => m.sourceEvmChainId === "43112")!;
    // The sets now: the L1's 1, 2 and 4 (3 disabled), the primary network's five and the dev network's own.
    for (const [m, chain, set, keyless] of [
      [l1Message, l1Id, L1_SETS[3]![0], 100n],
      [cMessage, "C", C_SET, 0n],
    ] as const) {
      const receipt = await evm<{logs: Array<{address: string; topics: string[]; data: string}>}>(
        chain,
        "eth_getTransactionReceipt",
        [m.sourceTransaction!.txHash],
      );
      const log = receipt.logs.find((l) => l.address === WARP && l.topics[0] === SEND_WARP)!;
      const [unsigned] = decodeAbi(["bytes"], hexToBytes(log.data)) as [Uint8Array];
      const r = await t.post(
        "/v1/signatureAggregator/local/aggregateSignatures",
        JSON.stringify({message: toHex(unsigned)}),
        {"content-type": "application/json"},
      );
      expect(r.status, r.text).toBe(201);
      const signed = parseSignedMessage(hexToBytes((r.json() as {signedMessage: string}).signedMessage));
      expect(toHex(signed.unsignedBytes)).toBe(toHex(unsigned));
      expect(verifiesWithSet(signed, set, keyless)).toBe(true);
      // The same message with a payload the chain never sent: every validator refuses it.
      const forged = Uint8Array.from(unsigned);
      forged[forged.length - 1]! ^= 1;
      const refused = await t.post(
        "/v1/signatureAggregator/local/aggregateSignatures",
        JSON.stringify({message: toHex(forged)}),
        {"content-type": "application/json"},
      );
      expect(refused.status, refused.text).toBe(503);
      expect(refused.text).toMatch(/message not seen/);
    }
  });

  it("replays both EVMs to the same blocks after a restart", async () => {
    const l1Head = Number(BigInt(await evm<string>(l1Id, "eth_blockNumber", [])));
    const hashes = async (chain: string, n: number): Promise<string[]> =>
      Promise.all(
        Array.from(
          {length: n},
          async (_, i) =>
            (await evm<{hash: string}>(chain, "eth_getBlockByNumber", ["0x" + (i + 1).toString(16), false])).hash,
        ),
      );
    const before = await hashes(l1Id, l1Head);
    await t.close();
    t = await startNode({...FLAGS, "data-api-db": db}, {dataDir, keepData: true});
    await expect
      .poll(async () => Number(BigInt(await evm<string>(l1Id, "eth_blockNumber", []))), {timeout: 60_000})
      .toBeGreaterThanOrEqual(l1Head);
    expect(await hashes(l1Id, l1Head)).toEqual(before);
    await waitForFollowers();
    const again = (await get<{messages: Message[]}>("/v1/icm/messages?pageSize=100")).messages;
    // Nothing counted twice: the messages the first run saw are the same records.
    const byId = new Map(again.map((m) => [m.messageId, m]));
    for (const m of messages) expect(byId.get(m.messageId)?.sourceTransaction).toEqual(m.sourceTransaction);
  }, 180_000);
});
