/**
 * Interchain messages over the real wire (docs/api/icm.md), on both store backends: three anvils carry the
 * project's messenger and warp stand-in; the node follows two of them. The test sends and relays its own messages
 * (with and without a fee, a fee added later, a failing execution, receipts carried back, one left pending, one
 * from a chain the node does not follow, one from a look-alike messenger) and checks every ICM answer against them.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {DEFAULT_ICM_MESSENGER, TELEPORTER_MESSAGE_INPUT_SPEC} from "../../src/dataApi/evm/icm.js";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {DevIcmReceiver, DevToken, IcmMessenger} from "../../src/dev/evm/artifacts.js";
import {installIcm} from "../../src/dev/evm/icm.js";
import {ANVIL_ACCOUNTS} from "../../src/dev/evm/traffic.js";
import {decodeAbi, encodeAbi, encodeCall, encodeCallSpec} from "../../src/evm/abi.js";
import {bytesToHex, checksumAddress, hexToBytes, toHex} from "../../src/evm/hex.js";
import {cb58Encode, EMPTY_ID} from "../../src/util/cb58.js";
import {parseSignedMessage} from "../../src/warp/message.js";
import {bls12_381} from "@noble/curves/bls12-381.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {devPublicKey} from "../helpers/devKeys.js";
import {startNode, type TestNode} from "../helpers/node.js";

const WARP = "0x0200000000000000000000000000000000000005";
const MESSENGER = DEFAULT_ICM_MESSENGER.toLowerCase();
const [SENDER, RELAYER, REWARD] = [ANVIL_ACCOUNTS[0]!, ANVIL_ACCOUNTS[1]!, ANVIL_ACCOUNTS[2]!];
const IDS = {a: "aa".repeat(32), b: "bb".repeat(32), c: "cc".repeat(32)};
const CB58 = {a: cb58Encode(hexToBytes(IDS.a)), b: cb58Encode(hexToBytes(IDS.b)), c: cb58Encode(hexToBytes(IDS.c))};

interface Log {
  address: string;
  topics: string[];
  data: string;
}
interface Receipt {
  status: string;
  transactionHash: string;
  contractAddress: string | null;
  logs: Log[];
}

async function tx(a: Anvil, from: string, to: string | null, data: string): Promise<Receipt> {
  const hash = (await a.rawCall("eth_sendTransaction", [{from, ...(to ? {to} : {}), data, gas: "0x2dc6c0"}])) as string;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const r = (await a.rawCall("eth_getTransactionReceipt", [hash])) as Receipt | null;
    if (r) {
      if (r.status !== "0x1") throw new Error(`transaction to ${to} failed`);
      return r;
    }
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`no receipt for ${hash}`);
}

const send = (
  a: Anvil,
  dest: string,
  to: string,
  fee: [string, bigint],
  text: string,
  from = MESSENGER,
): Promise<Receipt> =>
  tx(
    a,
    SENDER,
    from,
    encodeCallSpec(
      "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
      [TELEPORTER_MESSAGE_INPUT_SPEC],
      [[hexToBytes(dest), to, fee, 300_000n, [], new TextEncoder().encode(text)]],
    ),
  );

/** The unsigned warp message a send logged through the stand-in. */
function unsignedOf(r: Receipt): string {
  const log = r.logs.find((l) => l.address === WARP)!;
  const [unsigned] = decodeAbi(["bytes"], hexToBytes(log.data)) as [Uint8Array];
  return toHex(unsigned);
}

/** The message ID (topic 1) of the SendCrossChainMessage a send emitted. */
const idOf = (r: Receipt): string =>
  r.logs.find((l) => l.address === MESSENGER && l.topics.length === 3)!.topics[1]!.slice(2);

async function relay(to: Anvil, unsigned: string): Promise<Receipt> {
  await tx(to, RELAYER, WARP, encodeCall("deliver(uint32,bytes)", ["uint256", "bytes"], [0n, unsigned]));
  return tx(
    to,
    RELAYER,
    MESSENGER,
    encodeCall("receiveCrossChainMessage(uint32,address)", ["uint256", "address"], [0n, REWARD]),
  );
}

const BACKENDS = STORE_BACKENDS;

describe.each(BACKENDS)("interchain messages ($name)", (backend) => {
  let a: Anvil;
  let b: Anvil;
  let c: Anvil;
  let t: TestNode;
  const sent: Record<string, {id: string; source: Receipt; destination?: Receipt}> = {};
  let token: string;
  let receiverB: string;
  let failingB: string;
  let receiverA: string;

  const get = async <T = Record<string, unknown>>(path: string, status = 200): Promise<T> => {
    const r = await t.get(path);
    expect(r.status, `${path}: ${r.text}`).toBe(status);
    return r.json() as T;
  };

  beforeAll(async () => {
    const logger = quietLogger();
    [a, b, c] = await Promise.all(
      [99981, 99982, 99983].map((chainId) =>
        Anvil.start({chainId, genesisTimestamp: 1_700_000_000, mining: "auto"}, {logger}),
      ),
    );
    await Promise.all([
      installIcm(a, {networkId: 12345, blockchainId: IDS.a}),
      installIcm(b, {networkId: 12345, blockchainId: IDS.b}),
      installIcm(c, {networkId: 12345, blockchainId: IDS.c}),
    ]);
    token = (
      await tx(
        a,
        SENDER,
        null,
        DevToken.bytecode + bytesToHex(encodeAbi(["string", "string", "uint256"], ["Fee Token", "FEE", 10n ** 24n])),
      )
    ).contractAddress!;
    receiverA = (await tx(a, SENDER, null, DevIcmReceiver.bytecode)).contractAddress!;
    receiverB = (await tx(b, SENDER, null, DevIcmReceiver.bytecode)).contractAddress!;
    failingB = (await tx(b, SENDER, null, DevIcmReceiver.bytecode)).contractAddress!;
    await tx(b, SENDER, failingB, encodeCall("setFailing(bool)", ["bool"], [true]));
    await tx(a, SENDER, token, encodeCall("approve(address,uint256)", ["address", "uint256"], [MESSENGER, 10n ** 21n]));

    // 1: A→B with a fee of 100, later raised to 150, delivered and executed.
    const m1 = await send(a, IDS.b, receiverB, [token, 100n], "one");
    sent.one = {id: idOf(m1), source: m1};
    await tx(
      a,
      SENDER,
      MESSENGER,
      encodeCall(
        "addFeeAmount(bytes32,address,uint256)",
        ["bytes32", "address", "uint256"],
        ["0x" + sent.one.id, token, 50n],
      ),
    );
    sent.one.destination = await relay(b, unsignedOf(m1));
    // 2: B→A without a fee; it carries back message 1's receipt, which A reports as ReceiptReceived.
    const m2 = await send(b, IDS.a, receiverA, ["0x" + "0".repeat(40), 0n], "two");
    sent.two = {id: idOf(m2), source: m2, destination: await relay(a, unsignedOf(m2))};
    // 3: A→B to a receiver that fails: delivered, not executed.
    const m3 = await send(a, IDS.b, failingB, ["0x" + "0".repeat(40), 0n], "three");
    sent.three = {id: idOf(m3), source: m3, destination: await relay(b, unsignedOf(m3))};
    // 4: A→B, never relayed: pending.
    const m4 = await send(a, IDS.b, receiverB, ["0x" + "0".repeat(40), 0n], "four");
    sent.four = {id: idOf(m4), source: m4};
    // 5: C→B: C is not followed, so B's end alone is seen.
    const m5 = await send(c, IDS.b, receiverB, ["0x" + "0".repeat(40), 0n], "five");
    sent.five = {id: idOf(m5), source: m5, destination: await relay(b, unsignedOf(m5))};
    // A look-alike messenger at another address on A: its events are not ICM messages.
    const fake = (await tx(a, SENDER, null, IcmMessenger.bytecode)).contractAddress!;
    await send(a, IDS.b, receiverB, ["0x" + "0".repeat(40), 0n], "fake", fake);

    t = await startNode({
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "dev-evm": false,
      "dev-backfill": "0",
      "data-api-enabled": true,
      "data-api-db": await backend.db(),
      "data-api-rate-limit": "0",
      "evm-rpc": `99981=${a.url},99982=${b.url}`,
    });
    for (const [anvil, id] of [
      [a, "99981"],
      [b, "99982"],
    ] as const) {
      const head = BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
      await t.node
        .dataApi!.evm!.chains.find((x) => x.follower?.status().chainId === id)!
        .follower!.waitFor(head, 60_000);
    }
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
  });

  it("folds a delivered message from both ends: fee with its addition, transactions, executed, receipt delivered", async () => {
    const m = await get(`/v1/icm/messages/${sent.one!.id}`);
    expect(m).toMatchObject({
      messageId: sent.one!.id,
      icmContractAddress: checksumAddress(MESSENGER),
      sourceBlockchainId: CB58.a,
      destinationBlockchainId: CB58.b,
      sourceEvmChainId: "99981",
      destinationEvmChainId: "99982",
      messageNonce: "1",
      from: checksumAddress(SENDER),
      to: checksumAddress(receiverB),
      data: toHex(new TextEncoder().encode("one")),
      messageExecuted: true,
      receipts: [],
      receiptDelivered: true,
      rewardDetails: {
        address: checksumAddress(token),
        name: "Fee Token",
        symbol: "FEE",
        decimals: 18,
        ercType: "ERC-20",
        value: "150",
      },
      sourceTransaction: {txHash: sent.one!.source.transactionHash},
      destinationTransaction: {
        txHash: sent.one!.destination!.transactionHash,
        rewardRedeemer: checksumAddress(REWARD),
        delivererAddress: checksumAddress(RELAYER),
      },
      status: "delivered",
    });
    // Message 2 carried message 1's receipt back.
    const two = await get<{
      receipts: Array<{receivedMessageNonce: string; relayerRewardAddress: string}>;
      rewardDetails: Record<string, unknown>;
    }>(`/v1/icm/messages/0x${sent.two!.id.toUpperCase()}`);
    expect(two.receipts).toEqual([{receivedMessageNonce: "1", relayerRewardAddress: checksumAddress(REWARD)}]);
    expect(two.rewardDetails).toEqual({
      address: "0x" + "0".repeat(40),
      name: "",
      symbol: "",
      decimals: 0,
      ercType: "ERC-20",
      value: "0",
    });
  });

  it("tells failed executions, pending messages and deliveries whose source is not followed", async () => {
    expect(await get(`/v1/icm/messages/${sent.three!.id}`)).toMatchObject({
      status: "delivered",
      messageExecuted: false,
    });
    const pending = await get<Record<string, unknown>>(`/v1/icm/messages/${sent.four!.id}`);
    expect(pending).toMatchObject({status: "pending", messageExecuted: false, destinationEvmChainId: "99982"});
    expect(pending.destinationTransaction).toBeUndefined();
    const orphan = await get<Record<string, unknown>>(`/v1/icm/messages/${sent.five!.id}`);
    expect(orphan).toMatchObject({
      status: "delivered_source_not_indexed",
      sourceBlockchainId: CB58.c,
      sourceEvmChainId: "",
      destinationEvmChainId: "99982",
    });
    expect(orphan.sourceTransaction).toBeUndefined();
  });

  it("lists newest first with every filter, pages by keyset, and answers the deprecated names the same", async () => {
    const all = await get<{messages: Array<{messageId: string}>}>("/v1/icm/messages?pageSize=100");
    expect(all.messages.map((m) => m.messageId).sort()).toEqual(
      Object.values(sent)
        .map((s) => s.id)
        .sort(),
    );
    const paged: string[] = [];
    let token2: string | undefined;
    do {
      const page = await get<{messages: Array<{messageId: string}>; nextPageToken?: string}>(
        `/v1/icm/messages?pageSize=2${token2 ? `&pageToken=${token2}` : ""}`,
      );
      paged.push(...page.messages.map((m) => m.messageId));
      token2 = page.nextPageToken;
    } while (token2);
    expect(paged).toEqual(all.messages.map((m) => m.messageId));
    const ids = async (q: string): Promise<string[]> =>
      (await get<{messages: Array<{messageId: string}>}>(`/v1/icm/messages?${q}`)).messages
        .map((m) => m.messageId)
        .sort();
    expect(await ids(`sourceBlockchainId=${CB58.a}`)).toEqual([sent.one!.id, sent.three!.id, sent.four!.id].sort());
    expect(await ids("sourceBlockchainId=99982")).toEqual([sent.two!.id]);
    expect(await ids(`destinationBlockchainId=${CB58.a}`)).toEqual([sent.two!.id]);
    expect(await ids(`blockchainId=${CB58.a}`)).toEqual(
      [sent.one!.id, sent.two!.id, sent.three!.id, sent.four!.id].sort(),
    );
    // receiverA and failingB are the same address (each its deployer's second contract, on A and on B).
    expect(failingB).toBe(receiverA);
    expect(await ids(`to=${failingB}`)).toEqual([sent.two!.id, sent.three!.id].sort());
    expect(await ids(`from=${SENDER}&destinationBlockchainId=${CB58.b}`)).toEqual(
      [sent.one!.id, sent.three!.id, sent.four!.id, sent.five!.id].sort(),
    );
    expect(await ids("network=local")).toEqual(all.messages.map((m) => m.messageId).sort());
    const byAddress = await get<{messages: Array<{messageId: string}>}>(`/v1/icm/addresses/${receiverA}/messages`);
    expect(byAddress.messages.map((m) => m.messageId).sort()).toEqual([sent.two!.id, sent.three!.id].sort());
    const bySender = await get<{messages: Array<{messageId: string}>}>(`/v1/icm/addresses/${SENDER}/messages`);
    expect(bySender.messages).toHaveLength(5);
    // The deprecated names answer the same, with the contract also under the SDK's Teleporter name.
    const icmOne = await get<{icmContractAddress: string}>(`/v1/icm/messages/${sent.one!.id}`);
    expect(await get(`/v1/teleporter/messages/${sent.one!.id}`)).toEqual({
      ...icmOne,
      teleporterContractAddress: icmOne.icmContractAddress,
    });
    const teleporterByAddress = await get<{
      messages: Array<{icmContractAddress: string; teleporterContractAddress: string}>;
    }>(`/v1/teleporter/addresses/${receiverA}/messages`);
    expect(teleporterByAddress).toEqual({
      ...byAddress,
      messages: byAddress.messages.map((m) => ({
        ...m,
        teleporterContractAddress: (m as unknown as {icmContractAddress: string}).icmContractAddress,
      })),
    });
  });

  it("marks the transactions that send and deliver a message (endpoint 15)", async () => {
    const src = await get<{
      teleporterMessageInfo: Record<string, unknown>;
      interchainMessageInfo: Record<string, unknown>;
    }>(`/v1/chains/99981/transactions/${sent.one!.source.transactionHash}`);
    // The seed's interchainMessageInfo names the ID interchainMessageId; the SDKs' teleporterMessageInfo, teleporterMessageId.
    expect(src.interchainMessageInfo).toEqual({
      interchainMessageId: sent.one!.id,
      direction: "SOURCE_TRANSACTION",
      destinationChainId: CB58.b,
    });
    expect(src.teleporterMessageInfo).toEqual({
      teleporterMessageId: sent.one!.id,
      direction: "SOURCE_TRANSACTION",
      destinationChainId: CB58.b,
    });
    const dst = await get<{interchainMessageInfo: Record<string, unknown>}>(
      `/v1/chains/99982/transactions/${sent.one!.destination!.transactionHash}`,
    );
    expect(dst.interchainMessageInfo).toEqual({
      interchainMessageId: sent.one!.id,
      direction: "DESTINATION_TRANSACTION",
      sourceChainId: CB58.a,
    });
  });

  it("answers bad input with a 400 or 404 naming it", async () => {
    const cases: Array<[string, number, RegExp]> = [
      ["/v1/icm/messages/xyz", 400, /messageId/],
      [`/v1/icm/messages/${"0".repeat(64)}`, 404, /not found/],
      ["/v1/icm/messages?sourceBlockchainId=nope", 400, /sourceBlockchainId/],
      [
        "/v1/icm/messages?destinationBlockchainId=424242",
        400,
        /destinationBlockchainId: EVM chain 424242 is not followed/,
      ],
      ["/v1/icm/messages?from=0x12", 400, /from/],
      ["/v1/icm/messages?network=moon", 400, /network/],
      // A network this node does not serve is 404, in a query as in a path.
      ["/v1/icm/messages?network=fuji", 404, /^network fuji is not served here \(this node follows local\)$/],
      [
        `/v1/icm/addresses/0x${"12".repeat(20)}/messages?network=mainnet`,
        404,
        /^network mainnet is not served here \(this node follows local\)$/,
      ],
      ["/v1/icm/addresses/0x12/messages", 400, /address/],
      ["/v1/icm/messages?pageToken=abc", 400, /pageToken/],
    ];
    for (const [path, status, message] of cases) {
      const r = await t.get(path);
      expect(r.status, path).toBe(status);
      expect((r.json() as {message: string}).message, path).toMatch(message);
    }
  });

  it("aggregates the dev validators' signatures on a message a followed chain sent (endpoint 1), verified by a second library", async () => {
    const unsigned = unsignedOf(sent.one!.source);
    const post = (body: unknown): Promise<{status: number; json: () => unknown}> =>
      t.post("/v1/signatureAggregator/local/aggregateSignatures", JSON.stringify(body), {
        "content-type": "application/json",
      });
    // The P-chain view must have its first block (the dev feed's first tick) for a validator set.
    await expect
      .poll(async () => (await post({message: unsigned, signingSubnetId: EMPTY_ID})).status, {timeout: 30_000})
      .toBe(201);
    const r = await post({message: unsigned.slice(2), signingSubnetId: EMPTY_ID, quorumPercentage: 80});
    expect(r.status).toBe(201);
    const signed = hexToBytes((r.json() as {signedMessage: string}).signedMessage);
    const m = parseSignedMessage(signed);
    expect(toHex(m.unsignedBytes)).toBe(unsigned);
    // The primary network's keys, independently (noble's aggregate and verification): the five local validators
    // (AvalancheGo's signer1..5) and the dev network's first own validator, which stakes from the first tick.
    const keys = ([1, 2, 3, 4, 5, "s1"] as const).map((n) => devPublicKey(n));
    const sorted = [...keys].sort((x, y) =>
      Buffer.compare(Buffer.from(x.toBytes(false)), Buffer.from(y.toBytes(false))),
    );
    const signers = m.signerIndices.map((i) => sorted[i]!);
    expect(signers.length).toBeGreaterThanOrEqual(4);
    const noble = bls12_381.longSignatures;
    expect(
      noble.verify(
        bls12_381.G2.Point.fromBytes(m.signature),
        noble.hash(m.unsignedBytes, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"),
        noble.aggregatePublicKeys(signers),
      ),
    ).toBe(true);
    // A message no followed chain sent is refused by every validator: 503 naming what was collected and why.
    const fake = "0x0000" + (12345).toString(16).padStart(8, "0") + IDS.a + "00000005" + "0102030405";
    const refused = await post({message: fake, signingSubnetId: EMPTY_ID});
    expect(refused.status).toBe(503);
    expect((refused.json() as {message: string}).message).toMatch(
      /collected 0% of subnet 11111111111111111111111111111111LpoYY at P-chain height \d+, 67% required; 6 validators refused: message not seen/,
    );
  });

  it("answers bad aggregation requests with a 400 naming the field", async () => {
    const unsigned = unsignedOf(sent.one!.source);
    const cases: Array<[unknown, RegExp]> = [
      [[], /body: must be a JSON object/],
      [{}, /message: required/],
      [{justification: "0x00"}, /message: required: a justification alone/],
      [{message: "0xzz"}, /message: must be hex/],
      [{message: "0x0102"}, /message: not an unsigned warp message/],
      [{message: "0x0000" + "00000001" + IDS.a + "00000000"}, /message: its network ID is 1/],
      [{message: unsigned, quorumPercentage: 101}, /quorumPercentage: must be an integer in \[0,100\]/],
      [
        {message: unsigned, quorumPercentage: 90, quorumPercentageBuffer: 20},
        /quorumPercentageBuffer: quorumPercentage \+ quorumPercentageBuffer must be at most 100/,
      ],
      [{message: unsigned, signingSubnetId: "nope"}, /signingSubnetId: not an ID/],
      [{message: unsigned}, /signingSubnetId: required: the subnet validating source chain/],
      [
        {message: unsigned, signingSubnetId: EMPTY_ID, pChainHeight: 99999999},
        /pChainHeight: P-chain height 99999999 is past/,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await t.post("/v1/signatureAggregator/local/aggregateSignatures", JSON.stringify(body), {
        "content-type": "application/json",
      });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((r.json() as {message: string}).message, JSON.stringify(body)).toMatch(message);
    }
    const bad = await t.post("/v1/signatureAggregator/local/aggregateSignatures", "{not json", {
      "content-type": "application/json",
    });
    expect(bad.status).toBe(400);
    expect((await t.post("/v1/signatureAggregator/fuji/aggregateSignatures", "{}", {})).status).toBe(404);
  });

  it("survives fuzzed aggregation bodies: never a 500", async () => {
    let st = 20261126;
    const rand = (): number => ((st = (Math.imul(st, 1664525) + 1013904223) >>> 0), st / 2 ** 32);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const unsigned = unsignedOf(sent.one!.source);
    const values: unknown[] = [
      null,
      true,
      0,
      -1,
      1.5,
      101,
      2 ** 53,
      "",
      "0x",
      "zz",
      "0x00",
      unsigned,
      unsigned.slice(0, 40),
      EMPTY_ID,
      "11111",
      [],
      {},
      "a".repeat(5000),
    ];
    const fields = [
      "message",
      "justification",
      "signingSubnetId",
      "quorumPercentage",
      "quorumPercentageBuffer",
      "pChainHeight",
      "other",
    ];
    const outcomes = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const body = Object.fromEntries(
        Array.from({length: 1 + Math.floor(rand() * 4)}, () => [pick(fields), pick(values)]),
      );
      const r = await t.post("/v1/signatureAggregator/local/aggregateSignatures", JSON.stringify(body), {
        "content-type": "application/json",
      });
      outcomes.set(r.status, (outcomes.get(r.status) ?? 0) + 1);
      expect(r.status, JSON.stringify(body)).not.toBe(500);
      expect(
        (r.json() as {message?: string; signedMessage?: string}).message ??
          (r.json() as {signedMessage: string}).signedMessage,
      ).toBeTruthy();
    }
    expect(outcomes.get(400) ?? 0).toBeGreaterThan(100);
  });
});
