// The project's interchain messenger (contracts/IcmMessenger.sol) and warp stand-in (contracts/WarpStandIn.sol) on
// two anvils, placed with anvil_setCode at TeleporterMessenger v1.0.0's address and the warp precompile's: the
// issue's message ID vector, a round trip with a fee and addFeeAmount, a failing execution then its retry, receipts
// carried back with ReceiptReceived and the relayer's reward, every emitted log decoded by decodeIcmLog, and a
// look-alike messenger at another address ignored.
import {createHash} from "node:crypto";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {
  DEFAULT_ICM_MESSENGER,
  decodeIcmLog,
  ICM_TOPICS,
  messageId,
  TELEPORTER_MESSAGE_INPUT_SPEC,
  TELEPORTER_MESSAGE_SPEC,
  teleporterMessageValue,
  type IcmEvent,
  type IcmExecutionFailedEvent,
  type IcmReceiveEvent,
  type IcmSendEvent,
} from "../../../src/dataApi/evm/icm.js";
import {Anvil} from "../../../src/dev/evm/anvil.js";
import {DevIcmReceiver, DevToken, IcmMessenger, WarpStandIn} from "../../../src/dev/evm/artifacts.js";
import {installIcm, runtimeCode} from "../../../src/dev/evm/icm.js";
import {ANVIL_ACCOUNTS} from "../../../src/dev/evm/traffic.js";
import {decodeAbi, encodeAbi, encodeCall, encodeCallSpec, eventTopic} from "../../../src/evm/abi.js";
import {bytesToHex, hexToBytes, toHex} from "../../../src/evm/hex.js";
import {quietLogger} from "../../helpers/sql.js";

const WARP = "0x0200000000000000000000000000000000000005";
const MESSENGER = DEFAULT_ICM_MESSENGER.toLowerCase();
const SET = new Set([MESSENGER]);
const NETWORK_ID = 12345;
const SRC = "18770c2c6bb0f2e85290bf98f8ebec2e84d2dd8263e389838efa8662bec26da4";
const DST = "c1a51a3e778d538e529e53972ba12cca3b07433e114ad25215881a402822f385";
const VECTOR_ID = "f61a340088cfe04772c6d2c6cbc8cbf6f14d51860cc457c3530b68bfd61cd9cf";
const [SENDER, RELAYER, REWARD, OTHER] = [
  ANVIL_ACCOUNTS[0]!,
  ANVIL_ACCOUNTS[1]!,
  ANVIL_ACCOUNTS[2]!,
  ANVIL_ACCOUNTS[3]!,
];
const ZERO = "0x0000000000000000000000000000000000000000";

interface Log {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
}
interface Receipt {
  status: string;
  contractAddress: string | null;
  logs: Log[];
}

async function tx(a: Anvil, from: string, to: string | null, data: string): Promise<Receipt> {
  const hash = (await a.rawCall("eth_sendTransaction", [{from, ...(to ? {to} : {}), data, gas: "0x2dc6c0"}])) as string;
  let r: Receipt | null = null;
  for (const deadline = Date.now() + 30_000; !r && Date.now() < deadline; ) {
    r = (await a.rawCall("eth_getTransactionReceipt", [hash])) as Receipt | null;
    if (!r) await new Promise((res) => setTimeout(res, 10));
  }
  if (!r) throw new Error(`no receipt for ${hash}`);
  if (r.status !== "0x1") throw new Error(`transaction to ${to} failed`);
  return r;
}
const call = async (a: Anvil, to: string, data: string): Promise<Uint8Array> =>
  hexToBytes((await a.rawCall("eth_call", [{to, data}, "latest"])) as string);

async function deploy(a: Anvil, bytecode: string, args = ""): Promise<string> {
  return (await tx(a, SENDER, null, bytecode + args)).contractAddress!;
}

/** Deploys the artifact, then copies its runtime code to `at` (the code is constructor-free: its storage starts empty). */
async function place(a: Anvil, bytecode: string, at: string): Promise<void> {
  const deployed = await deploy(a, bytecode);
  await a.rawCall("anvil_setCode", [at, await a.rawCall("eth_getCode", [deployed, "latest"])]);
}

async function setUpChain(a: Anvil, blockchainId: string): Promise<void> {
  await place(a, WarpStandIn.bytecode, WARP);
  await place(a, IcmMessenger.bytecode, MESSENGER);
  await tx(
    a,
    SENDER,
    WARP,
    encodeCall("init(uint32,bytes32)", ["uint256", "bytes32"], [BigInt(NETWORK_ID), "0x" + blockchainId]),
  );
}

const sendInput = (
  dest: string,
  to: string,
  fee: [string, bigint],
  gas: bigint,
  message: string,
  allowed: string[] = [],
): string =>
  encodeCallSpec(
    "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
    [TELEPORTER_MESSAGE_INPUT_SPEC],
    [[hexToBytes(dest), to, fee, gas, allowed, new TextEncoder().encode(message)]],
  );

const decoded = (r: Receipt, set: ReadonlySet<string> = SET): IcmEvent[] =>
  r.logs.map((l) => decodeIcmLog(l, set)).filter((e): e is IcmEvent => e !== null);

/** The unsigned warp message a send logged through the stand-in. */
function warpMessageOf(r: Receipt): string {
  const log = r.logs.find((l) => l.address === WARP)!;
  expect(log.topics[0]).toBe(eventTopic("SendWarpMessage(address,bytes32,bytes)"));
  const [unsigned] = decodeAbi(["bytes"], hexToBytes(log.data)) as [Uint8Array];
  expect("0x" + createHash("sha256").update(unsigned).digest("hex")).toBe(log.topics[2]);
  return toHex(unsigned);
}

/** Relays one message: the stand-in's deliver, then receiveCrossChainMessage from `relayer` with REWARD as reward address. */
async function relay(to: Anvil, unsigned: string, signatureTail = "", relayer = RELAYER): Promise<Receipt> {
  await tx(
    to,
    relayer,
    WARP,
    encodeCall("deliver(uint32,bytes)", ["uint256", "bytes"], [0n, unsigned + signatureTail]),
  );
  return tx(
    to,
    relayer,
    MESSENGER,
    encodeCall("receiveCrossChainMessage(uint32,address)", ["uint256", "address"], [0n, REWARD]),
  );
}

describe("the dev interchain messenger on two anvils", {timeout: 120_000}, () => {
  let a: Anvil; // source: blockchain SRC
  let b: Anvil; // destination: blockchain DST
  let token: string;
  let receiverA: string;
  let receiverB: string;
  const all: Receipt[] = [];
  const record = (r: Receipt): Receipt => (all.push(r), r);

  beforeAll(async () => {
    const logger = quietLogger();
    [a, b] = await Promise.all([
      Anvil.start({chainId: 43112, genesisTimestamp: 1_700_000_000, mining: "auto"}, {logger}),
      Anvil.start({chainId: 43113, genesisTimestamp: 1_700_000_000, mining: "auto"}, {logger}),
    ]);
    // Chain A the long way (deploy, copy the code, init by a transaction); chain B with the dev network's installIcm.
    await Promise.all([setUpChain(a, SRC), installIcm(b, {networkId: NETWORK_ID, blockchainId: DST})]);
    token = await deploy(
      a,
      DevToken.bytecode,
      bytesToHex(encodeAbi(["string", "string", "uint256"], ["Fee", "FEE", 10n ** 24n])),
    );
    receiverA = await deploy(a, DevIcmReceiver.bytecode);
    receiverB = await deploy(b, DevIcmReceiver.bytecode);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("installIcm puts the same code and the storage init() writes", async () => {
    expect(await b.rawCall("eth_getCode", [MESSENGER, "latest"])).toBe(
      await a.rawCall("eth_getCode", [MESSENGER, "latest"]),
    );
    expect(await b.rawCall("eth_getCode", [WARP, "latest"])).toBe(await a.rawCall("eth_getCode", [WARP, "latest"]));
    expect(await runtimeCode(b, IcmMessenger.bytecode)).toBe(await a.rawCall("eth_getCode", [MESSENGER, "latest"]));
    for (const slot of ["0x0", "0x1", "0x2"]) {
      const [sa, sb] = await Promise.all([
        a.rawCall("eth_getStorageAt", [WARP, slot, "latest"]),
        b.rawCall("eth_getStorageAt", [WARP, slot, "latest"]),
      ]);
      expect(sb, slot).toBe(slot === "0x1" ? "0x" + DST : sa);
    }
    expect(bytesToHex(await call(b, WARP, encodeCall("getBlockchainID()", [], [])))).toBe(DST);
    expect(bytesToHex(await call(a, WARP, encodeCall("getBlockchainID()", [], [])))).toBe(SRC);
    expect(decodeAbi(["uint256"], await call(b, WARP, encodeCall("networkID()", [], [])))).toEqual([
      BigInt(NETWORK_ID),
    ]);
    // init() works once only.
    await expect(
      tx(a, SENDER, WARP, encodeCall("init(uint32,bytes32)", ["uint256", "bytes32"], [1n, "0x" + DST])),
    ).rejects.toThrow();
  });

  it("the stand-in's unsigned message is byte for byte the issue's AvalancheGo-compatible vector", async () => {
    const vector =
      "00000000303982900e9ff184b708895a39e5ba12491de180ca649e67c6393e64f4e18751cfcd0000002c00000000000100000014253b2784c75e510dd0ff1da844684a1ac0aa5fcf0000000a68656c6c6f2077617270";
    const standIn = await deploy(a, WarpStandIn.bytecode);
    await tx(
      a,
      SENDER,
      standIn,
      encodeCall(
        "init(uint32,bytes32)",
        ["uint256", "bytes32"],
        [12345n, "0x82900e9ff184b708895a39e5ba12491de180ca649e67c6393e64f4e18751cfcd"],
      ),
    );
    const data = encodeCall("sendWarpMessage(bytes)", ["bytes"], [new TextEncoder().encode("hello warp")]);
    const id = hexToBytes((await a.rawCall("eth_call", [{from: MESSENGER, to: standIn, data}, "latest"])) as string);
    expect(bytesToHex(id)).toBe(createHash("sha256").update(hexToBytes(vector)).digest("hex"));
  });

  let first: IcmSendEvent;
  let unsigned1: string;

  it("computes the issue's message ID at the v1.0.0 address, in the contract and in messageId()", async () => {
    expect(messageId(DEFAULT_ICM_MESSENGER, SRC, DST, 1)).toBe(VECTOR_ID);
    const onChain = await call(
      a,
      MESSENGER,
      encodeCall(
        "calculateMessageID(bytes32,bytes32,uint256)",
        ["bytes32", "bytes32", "uint256"],
        ["0x" + SRC, "0x" + DST, 1n],
      ),
    );
    expect(bytesToHex(onChain)).toBe(VECTOR_ID);
  });

  it("sends a message with a fee: SendCrossChainMessage with the vector's ID, the warp message, the fee taken", async () => {
    await tx(a, SENDER, token, encodeCall("approve(address,uint256)", ["address", "uint256"], [MESSENGER, 10n ** 21n]));
    const r = record(await tx(a, SENDER, MESSENGER, sendInput(DST, receiverB, [token, 100n], 200_000n, "hello")));
    const events = decoded(r);
    expect(events).toHaveLength(1);
    first = events[0] as IcmSendEvent;
    expect(first).toMatchObject({
      kind: "SendCrossChainMessage",
      contract: MESSENGER,
      messageId: VECTOR_ID,
      destinationBlockchainId: DST,
      feeInfo: {feeTokenAddress: token, amount: 100n},
    });
    expect(first.message).toEqual({
      messageNonce: 1n,
      originSenderAddress: SENDER,
      destinationBlockchainId: DST,
      destinationAddress: receiverB,
      requiredGasLimit: 200_000n,
      allowedRelayerAddresses: [],
      receipts: [],
      message: toHex(new TextEncoder().encode("hello")),
    });
    // The unsigned warp message: codec 0, network ID, source chain, AddressedCall(messenger, abi.encode(message)).
    unsigned1 = warpMessageOf(r);
    const payload = encodeCallSpec("x()", [TELEPORTER_MESSAGE_SPEC], [teleporterMessageValue(first.message)]).slice(10);
    const addressedCall =
      "0000" +
      "00000001" +
      "00000014" +
      MESSENGER.slice(2) +
      (payload.length / 2).toString(16).padStart(8, "0") +
      payload;
    expect(unsigned1).toBe(
      "0x0000" +
        NETWORK_ID.toString(16).padStart(8, "0") +
        SRC +
        (addressedCall.length / 2).toString(16).padStart(8, "0") +
        addressedCall,
    );
    const balance = await call(a, token, encodeCall("balanceOf(address)", ["address"], [MESSENGER]));
    expect(BigInt(toHex(balance))).toBe(100n);
  });

  it("adds to the fee: AddFeeAmount with the new total", async () => {
    const r = record(
      await tx(
        a,
        SENDER,
        MESSENGER,
        encodeCall(
          "addFeeAmount(bytes32,address,uint256)",
          ["bytes32", "address", "uint256"],
          ["0x" + VECTOR_ID, token, 50n],
        ),
      ),
    );
    expect(decoded(r)).toEqual([
      {
        kind: "AddFeeAmount",
        contract: MESSENGER,
        logIndex: expect.any(Number),
        messageId: VECTOR_ID,
        feeInfo: {feeTokenAddress: token, amount: 150n},
      },
    ]);
  });

  it("delivers it: ReceiveCrossChainMessage and MessageExecuted, the receiver called", async () => {
    // A signed message's signature bytes after the unsigned message are ignored by the stand-in.
    const r = record(await relay(b, unsigned1, "00000000" + "00000001" + "07" + "ab".repeat(96)));
    const events = decoded(r);
    expect(events.map((e) => e.kind)).toEqual(["ReceiveCrossChainMessage", "MessageExecuted"]);
    const rec = events[0] as IcmReceiveEvent;
    expect(rec).toMatchObject({
      messageId: VECTOR_ID,
      sourceBlockchainId: SRC,
      deliverer: RELAYER,
      rewardRedeemer: REWARD,
    });
    expect(rec.message).toEqual(first.message);
    expect(events[1]).toMatchObject({messageId: VECTOR_ID, sourceBlockchainId: SRC});
    const [last] = decodeAbi(["bytes"], await call(b, receiverB, encodeCall("lastMessage()", [], []))) as [Uint8Array];
    expect(new TextDecoder().decode(last)).toBe("hello");
    // Delivered once only.
    await expect(relay(b, unsigned1)).rejects.toThrow();
  });

  let failed: IcmExecutionFailedEvent;

  it("a failing execution: MessageExecutionFailed, then retryMessageExecution emits MessageExecuted", async () => {
    await tx(b, SENDER, receiverB, encodeCall("setFailing(bool)", ["bool"], [true]));
    const sent = record(await tx(a, OTHER, MESSENGER, sendInput(DST, receiverB, [ZERO, 0n], 100_000n, "fails first")));
    const [send] = decoded(sent) as [IcmSendEvent];
    expect(send.messageId).toBe(messageId(MESSENGER, SRC, DST, 2));
    expect(send.feeInfo).toEqual({feeTokenAddress: ZERO, amount: 0n});
    const r = record(await relay(b, warpMessageOf(sent)));
    const events = decoded(r);
    expect(events.map((e) => e.kind)).toEqual(["ReceiveCrossChainMessage", "MessageExecutionFailed"]);
    failed = events[1] as IcmExecutionFailedEvent;
    expect(failed).toMatchObject({messageId: send.messageId, sourceBlockchainId: SRC});
    expect(failed.message).toEqual(send.message);

    await tx(b, SENDER, receiverB, encodeCall("setFailing(bool)", ["bool"], [false]));
    const retryData = encodeCallSpec(
      "retryMessageExecution(bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))",
      ["bytes32", TELEPORTER_MESSAGE_SPEC],
      [hexToBytes(SRC), teleporterMessageValue(failed.message)],
    );
    const retried = record(await tx(b, OTHER, MESSENGER, retryData));
    expect(decoded(retried)).toMatchObject([
      {kind: "MessageExecuted", messageId: send.messageId, sourceBlockchainId: SRC},
    ]);
    const [count] = decodeAbi(["uint256"], await call(b, receiverB, encodeCall("receivedCount()", [], [])));
    expect(count).toBe(2n);
    // Executed once only.
    await expect(tx(b, OTHER, MESSENGER, retryData)).rejects.toThrow();
  });

  it("carries the receipts back on the next message the other way: ReceiptReceived, the relayer's reward", async () => {
    const queued = await call(b, MESSENGER, encodeCall("getReceiptQueueSize(bytes32)", ["bytes32"], ["0x" + SRC]));
    expect(BigInt(toHex(queued))).toBe(2n);
    const sent = record(await tx(b, SENDER, MESSENGER, sendInput(SRC, receiverA, [ZERO, 0n], 100_000n, "back")));
    const [send] = decoded(sent) as [IcmSendEvent];
    expect(send.messageId).toBe(messageId(MESSENGER, DST, SRC, 1));
    expect(send.message.receipts).toEqual([
      {receivedMessageNonce: 1n, relayerRewardAddress: REWARD},
      {receivedMessageNonce: 2n, relayerRewardAddress: REWARD},
    ]);
    const r = record(await relay(a, warpMessageOf(sent)));
    const events = decoded(r);
    expect(events.map((e) => e.kind)).toEqual([
      "ReceiptReceived",
      "ReceiptReceived",
      "ReceiveCrossChainMessage",
      "MessageExecuted",
    ]);
    expect(events[0]).toMatchObject({
      messageId: VECTOR_ID,
      destinationBlockchainId: DST,
      relayerRewardAddress: REWARD,
      feeInfo: {feeTokenAddress: token, amount: 150n},
    });
    expect(events[1]).toMatchObject({
      messageId: messageId(MESSENGER, SRC, DST, 2),
      destinationBlockchainId: DST,
      relayerRewardAddress: REWARD,
      feeInfo: {feeTokenAddress: ZERO, amount: 0n},
    });
    expect(events[2]).toMatchObject({
      messageId: send.messageId,
      sourceBlockchainId: DST,
      deliverer: RELAYER,
      rewardRedeemer: REWARD,
    });
    const reward = await call(
      a,
      MESSENGER,
      encodeCall("checkRelayerRewardAmount(address,address)", ["address", "address"], [REWARD, token]),
    );
    expect(BigInt(toHex(reward))).toBe(150n);
    await tx(a, REWARD, MESSENGER, encodeCall("redeemRelayerRewards(address)", ["address"], [token]));
    const balance = await call(a, token, encodeCall("balanceOf(address)", ["address"], [REWARD]));
    expect(BigInt(toHex(balance))).toBe(150n);
    // A fee can no longer be added once the receipt is back.
    await expect(
      tx(
        a,
        SENDER,
        MESSENGER,
        encodeCall(
          "addFeeAmount(bytes32,address,uint256)",
          ["bytes32", "address", "uint256"],
          ["0x" + VECTOR_ID, token, 1n],
        ),
      ),
    ).rejects.toThrow();
  });

  it("only an allowed relayer delivers; the stand-in refuses another network's message", async () => {
    const sent = record(
      await tx(a, SENDER, MESSENGER, sendInput(DST, receiverB, [ZERO, 0n], 100_000n, "for OTHER only", [OTHER])),
    );
    const [send] = decoded(sent) as [IcmSendEvent];
    expect(send.message.allowedRelayerAddresses).toEqual([OTHER]);
    // A received B's message 1: its receipt rides on this one.
    expect(send.message.receipts).toEqual([{receivedMessageNonce: 1n, relayerRewardAddress: REWARD}]);
    const unsigned = warpMessageOf(sent);
    await expect(relay(b, unsigned)).rejects.toThrow();
    const r = record(await relay(b, unsigned, "", OTHER));
    expect(decoded(r)).toMatchObject([
      {
        kind: "ReceiptReceived",
        messageId: messageId(MESSENGER, DST, SRC, 1),
        destinationBlockchainId: SRC,
        relayerRewardAddress: REWARD,
        feeInfo: {feeTokenAddress: ZERO, amount: 0n},
      },
      {kind: "ReceiveCrossChainMessage", messageId: send.messageId, deliverer: OTHER},
      {kind: "MessageExecuted", messageId: send.messageId},
    ]);
    const otherNetwork = unsigned.slice(0, 6) + "00000001" + unsigned.slice(14);
    await expect(
      tx(b, RELAYER, WARP, encodeCall("deliver(uint32,bytes)", ["uint256", "bytes"], [1n, otherNetwork])),
    ).rejects.toThrow();
    // Nothing delivered at index 1: getVerifiedWarpMessage says invalid and the messenger refuses.
    await expect(
      tx(
        b,
        RELAYER,
        MESSENGER,
        encodeCall("receiveCrossChainMessage(uint32,address)", ["uint256", "address"], [1n, REWARD]),
      ),
    ).rejects.toThrow();
  });

  it("every messenger log decodes, with the compiled ABI's topics; a look-alike elsewhere is ignored", async () => {
    const messengerLogs = all
      .flatMap((r) => r.logs)
      .filter((l) => l.address === MESSENGER && l.topics[0] !== eventTopic("BlockchainIDInitialized(bytes32)"));
    expect(messengerLogs.length).toBeGreaterThanOrEqual(12);
    for (const l of messengerLogs) expect(decodeIcmLog(l, SET), l.topics[0]).not.toBeNull();
    // The ABI solc produced has the six events with these topics.
    const abiEvents = IcmMessenger.abi.filter((e) => e.type === "event") as unknown as {
      name: string;
      inputs: {type: string; components?: unknown}[];
    }[];
    expect(abiEvents.map((e) => e.name)).toEqual(expect.arrayContaining(Object.keys(ICM_TOPICS)));

    const lookAlike = (await deploy(a, IcmMessenger.bytecode)).toLowerCase();
    await tx(a, SENDER, token, encodeCall("approve(address,uint256)", ["address", "uint256"], [lookAlike, 10n]));
    const r = await tx(a, SENDER, lookAlike, sendInput(DST, receiverB, [token, 10n], 1n, "fake"));
    const log = r.logs.find((l) => l.address === lookAlike && l.topics[0] === ICM_TOPICS.SendCrossChainMessage)!;
    expect(log).toBeDefined();
    expect(decodeIcmLog(log, SET)).toBeNull();
    expect(decodeIcmLog(log, new Set([lookAlike]))).toMatchObject({
      kind: "SendCrossChainMessage",
      messageId: messageId(lookAlike, SRC, DST, 1),
    });
  });
});
