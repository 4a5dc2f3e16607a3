/**
 * ICM event decoding (docs/api/icm.md): the topics the spec lists, the message ID vector, each of the
 * six events from hand-encoded logs (hex as JSON-RPC gives them, and bytes), and everything that must be ignored
 * without an exception: other addresses, other events, wrong topic counts, dirty indexed addresses, every
 * truncation of the data, and mutated data.
 */
import {describe, expect, it} from "vitest";
import {
  DEFAULT_ICM_MESSENGER,
  decodeIcmLog,
  ICM_TOPICS,
  messageId,
  TELEPORTER_FEE_SPEC,
  TELEPORTER_MESSAGE_SPEC,
  teleporterMessageValue,
  type IcmLogInput,
  type TeleporterMessage,
} from "../../../../src/dataApi/evm/icm.js";
import {encodeAbiSpec} from "../../../../src/evm/abi.js";
import {bytesToHex, hexToBytes, toHex} from "../../../../src/evm/hex.js";

const MESSENGER = DEFAULT_ICM_MESSENGER.toLowerCase();
const SET = new Set([MESSENGER]);
const SRC = "18770c2c6bb0f2e85290bf98f8ebec2e84d2dd8263e389838efa8662bec26da4";
const DST = "c1a51a3e778d538e529e53972ba12cca3b07433e114ad25215881a402822f385";
const ID = "f61a340088cfe04772c6d2c6cbc8cbf6f14d51860cc457c3530b68bfd61cd9cf";
const A = "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65";
const B = "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc";
const T = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const addrTopic = (a: string): string => "0x" + a.slice(2).padStart(64, "0");

const MSG: TeleporterMessage = {
  messageNonce: 1n,
  originSenderAddress: A,
  destinationBlockchainId: DST,
  destinationAddress: B,
  requiredGasLimit: 200_000n,
  allowedRelayerAddresses: [A],
  receipts: [{receivedMessageNonce: 4n, relayerRewardAddress: B}],
  message: "0x68656c6c6f",
};
const msgData = (
  extra: Parameters<typeof encodeAbiSpec>[0] = [],
  before: Parameters<typeof encodeAbiSpec>[1] = [],
): string => toHex(encodeAbiSpec([...extra, TELEPORTER_MESSAGE_SPEC], [...before, teleporterMessageValue(MSG)]));

const LOGS: Record<keyof typeof ICM_TOPICS, IcmLogInput> = {
  SendCrossChainMessage: {
    address: MESSENGER,
    topics: [ICM_TOPICS.SendCrossChainMessage, "0x" + ID, "0x" + DST],
    data: toHex(
      encodeAbiSpec([TELEPORTER_MESSAGE_SPEC, TELEPORTER_FEE_SPEC], [teleporterMessageValue(MSG), [T, 100n]]),
    ),
    logIndex: "0x3",
  },
  ReceiveCrossChainMessage: {
    address: MESSENGER,
    topics: [ICM_TOPICS.ReceiveCrossChainMessage, "0x" + ID, "0x" + SRC, addrTopic(A)],
    data: msgData(["address"], [B]),
    logIndex: 0,
  },
  MessageExecuted: {
    address: MESSENGER,
    topics: [ICM_TOPICS.MessageExecuted, "0x" + ID, "0x" + SRC],
    data: "0x",
    logIndex: 1n,
  },
  MessageExecutionFailed: {
    address: MESSENGER,
    topics: [ICM_TOPICS.MessageExecutionFailed, "0x" + ID, "0x" + SRC],
    data: msgData(),
    logIndex: 2,
  },
  ReceiptReceived: {
    address: MESSENGER,
    topics: [ICM_TOPICS.ReceiptReceived, "0x" + ID, "0x" + DST, addrTopic(B)],
    data: toHex(encodeAbiSpec([TELEPORTER_FEE_SPEC], [[T, 150n]])),
    logIndex: 4,
  },
  AddFeeAmount: {
    address: MESSENGER,
    topics: [ICM_TOPICS.AddFeeAmount, "0x" + ID],
    data: toHex(encodeAbiSpec([TELEPORTER_FEE_SPEC], [[T, 150n]])),
    logIndex: 5,
  },
};

describe("ICM topics and message IDs", () => {
  it("the topics are the spec's", () => {
    expect(Object.fromEntries(Object.entries(ICM_TOPICS).map(([k, v]) => [k, v.slice(0, 10)]))).toEqual({
      SendCrossChainMessage: "0x2a211ad4",
      ReceiveCrossChainMessage: "0x292ee90b",
      MessageExecuted: "0x34795cc6",
      MessageExecutionFailed: "0x4619adc1",
      ReceiptReceived: "0xd13a7935",
      AddFeeAmount: "0xc1bfd1f1",
    });
  });

  it("messageId() gives the issue's vector for any spelling of its inputs", () => {
    expect(messageId(DEFAULT_ICM_MESSENGER, SRC, DST, 1)).toBe(ID);
    expect(messageId(MESSENGER, "0x" + SRC, hexToBytes(DST), 1n)).toBe(ID);
    expect(messageId(MESSENGER.toUpperCase().replace("0X", "0x"), SRC.toUpperCase(), DST, 1)).toBe(ID);
    expect(messageId(MESSENGER, SRC, DST, 2)).not.toBe(ID);
  });
});

describe("decodeIcmLog", () => {
  it("decodes the six events", () => {
    expect(decodeIcmLog(LOGS.SendCrossChainMessage, SET)).toEqual({
      kind: "SendCrossChainMessage",
      contract: MESSENGER,
      logIndex: 3,
      messageId: ID,
      destinationBlockchainId: DST,
      message: MSG,
      feeInfo: {feeTokenAddress: T, amount: 100n},
    });
    expect(decodeIcmLog(LOGS.ReceiveCrossChainMessage, SET)).toEqual({
      kind: "ReceiveCrossChainMessage",
      contract: MESSENGER,
      logIndex: 0,
      messageId: ID,
      sourceBlockchainId: SRC,
      deliverer: A,
      rewardRedeemer: B,
      message: MSG,
    });
    expect(decodeIcmLog(LOGS.MessageExecuted, SET)).toEqual({
      kind: "MessageExecuted",
      contract: MESSENGER,
      logIndex: 1,
      messageId: ID,
      sourceBlockchainId: SRC,
    });
    expect(decodeIcmLog(LOGS.MessageExecutionFailed, SET)).toEqual({
      kind: "MessageExecutionFailed",
      contract: MESSENGER,
      logIndex: 2,
      messageId: ID,
      sourceBlockchainId: SRC,
      message: MSG,
    });
    expect(decodeIcmLog(LOGS.ReceiptReceived, SET)).toEqual({
      kind: "ReceiptReceived",
      contract: MESSENGER,
      logIndex: 4,
      messageId: ID,
      destinationBlockchainId: DST,
      relayerRewardAddress: B,
      feeInfo: {feeTokenAddress: T, amount: 150n},
    });
    expect(decodeIcmLog(LOGS.AddFeeAmount, SET)).toEqual({
      kind: "AddFeeAmount",
      contract: MESSENGER,
      logIndex: 5,
      messageId: ID,
      feeInfo: {feeTokenAddress: T, amount: 150n},
    });
  });

  it("takes bytes as well as hex, and a checksummed log address", () => {
    const l = LOGS.SendCrossChainMessage;
    const asBytes: IcmLogInput = {
      address: hexToBytes(MESSENGER),
      topics: l.topics.map((t) => hexToBytes(t as string)),
      data: hexToBytes(l.data as string),
      logIndex: 3,
    };
    expect(decodeIcmLog(asBytes, SET)).toEqual(decodeIcmLog(l, SET));
    expect(decodeIcmLog({...l, address: DEFAULT_ICM_MESSENGER}, SET)).toEqual(decodeIcmLog(l, SET));
  });

  it("ignores other addresses, other events and malformed logs, without throwing", () => {
    for (const l of Object.values(LOGS)) {
      expect(decodeIcmLog({...l, address: A}, SET)).toBeNull();
      expect(decodeIcmLog(l, new Set())).toBeNull();
      expect(decodeIcmLog({...l, topics: [...l.topics, "0x" + "00".repeat(32)]}, SET)).toBeNull();
      expect(decodeIcmLog({...l, topics: l.topics.slice(0, -1)}, SET)).toBeNull();
      expect(decodeIcmLog({...l, logIndex: "nope"}, SET)).toBeNull();
      expect(decodeIcmLog({...l, topics: [l.topics[0]!, "0x1234", ...l.topics.slice(2)]}, SET)).toBeNull();
    }
    expect(
      decodeIcmLog({...LOGS.MessageExecuted, topics: ["0x" + "ab".repeat(32), "0x" + ID, "0x" + SRC]}, SET),
    ).toBeNull();
    expect(decodeIcmLog({...LOGS.MessageExecuted, topics: []}, SET)).toBeNull();
    expect(decodeIcmLog({...LOGS.MessageExecuted, data: "0xzz"}, SET)).toBeNull();
    // An indexed address with dirty high bytes.
    const t = [...LOGS.ReceiptReceived.topics];
    t[3] = "0x01" + (t[3] as string).slice(4);
    expect(decodeIcmLog({...LOGS.ReceiptReceived, topics: t}, SET)).toBeNull();
  });

  it("every truncation of each event's data is ignored, or (inside the padding) decodes the same", () => {
    for (const l of Object.values(LOGS)) {
      const data = hexToBytes(l.data as string);
      const full = decodeIcmLog(l, SET);
      for (let n = 0; n < data.length; n++) {
        const r = decodeIcmLog({...l, data: data.subarray(0, n)}, SET);
        if (r !== null) {
          expect(n).toBeGreaterThan(data.length - 32);
          expect(r).toEqual(full);
        }
      }
    }
  });

  it("mutated data never throws", () => {
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const l of Object.values(LOGS)) {
      const data = hexToBytes(l.data as string);
      for (let i = 0; i < 500 && data.length; i++) {
        const d = data.slice();
        d[Math.floor(rand() * d.length)] = Math.floor(rand() * 256);
        expect(() => decodeIcmLog({...l, data: bytesToHex(d)}, SET)).not.toThrow();
      }
    }
  });
});
