/**
 * Interchain messages (docs/api/icm.md): decoding the six TeleporterMessenger v1.0.0 events the data API
 * indexes, from the logs of the messenger contracts it is told about (`--icm-contracts`). No SQL here: the EVM
 * follower's writer turns these events into message records.
 *
 * A log is untrusted input: anything that does not decode is ignored (null), never an exception (trailing bytes
 * after a valid encoding are tolerated, as solc's decoder tolerates them), and logs from any address outside the
 * messenger set are ignored whatever their topics (anyone can emit look-alikes).
 */
import {keccak_256} from "@noble/hashes/sha3.js";
import {AbiError, decodeAbiSpec, encodeAbi, eventTopic, type AbiSpec, type AbiStructValue} from "../../evm/abi.js";
import {bytesToHex, hexToBytes, toHex} from "../../evm/hex.js";

/** TeleporterMessenger v1.0.0's address, the same on every chain (Nick's-method deployment). */
export const DEFAULT_ICM_MESSENGER = "0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf";

const MESSAGE = "(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)";
const FEE = "(address,uint256)";

/** The event signatures, as the ABI canonicalises them (struct arguments as tuples). */
export const ICM_EVENT_SIGNATURES = {
  SendCrossChainMessage: `SendCrossChainMessage(bytes32,bytes32,${MESSAGE},${FEE})`,
  ReceiveCrossChainMessage: `ReceiveCrossChainMessage(bytes32,bytes32,address,address,${MESSAGE})`,
  MessageExecuted: "MessageExecuted(bytes32,bytes32)",
  MessageExecutionFailed: `MessageExecutionFailed(bytes32,bytes32,${MESSAGE})`,
  ReceiptReceived: `ReceiptReceived(bytes32,bytes32,address,${FEE})`,
  AddFeeAmount: `AddFeeAmount(bytes32,${FEE})`,
} as const;

export type IcmEventName = keyof typeof ICM_EVENT_SIGNATURES;

/** topic0 of each event, 0x-lowercase hex. */
export const ICM_TOPICS: {readonly [K in IcmEventName]: string} = Object.fromEntries(
  Object.entries(ICM_EVENT_SIGNATURES).map(([k, sig]) => [k, eventTopic(sig)]),
) as {[K in IcmEventName]: string};

const EVENT_BY_TOPIC = new Map<string, IcmEventName>(
  Object.entries(ICM_TOPICS).map(([k, t]) => [t, k as IcmEventName]),
);

/** The ABI of a TeleporterMessage struct (for encoding calls in the dev network and tests, and for decoding). */
export const TELEPORTER_MESSAGE_SPEC: AbiSpec = {
  tuple: [
    "uint256",
    "address",
    "bytes32",
    "address",
    "uint256",
    "address[]",
    {array: {tuple: ["uint256", "address"]}},
    "bytes",
  ],
};
/** The ABI of a TeleporterFeeInfo struct. */
export const TELEPORTER_FEE_SPEC: AbiSpec = {tuple: ["address", "uint256"]};
/** The ABI of a TeleporterMessageInput struct (sendCrossChainMessage's argument). */
export const TELEPORTER_MESSAGE_INPUT_SPEC: AbiSpec = {
  tuple: ["bytes32", "address", TELEPORTER_FEE_SPEC, "uint256", "address[]", "bytes"],
};

export interface TeleporterReceipt {
  readonly receivedMessageNonce: bigint;
  /** Lowercase 0x address. */
  readonly relayerRewardAddress: string;
}

export interface TeleporterMessage {
  readonly messageNonce: bigint;
  /** Lowercase 0x addresses. */
  readonly originSenderAddress: string;
  /** 64 lowercase hex characters, no 0x. */
  readonly destinationBlockchainId: string;
  readonly destinationAddress: string;
  readonly requiredGasLimit: bigint;
  readonly allowedRelayerAddresses: readonly string[];
  readonly receipts: readonly TeleporterReceipt[];
  /** The message bytes, 0x-lowercase hex. */
  readonly message: string;
}

export interface TeleporterFeeInfo {
  /** Lowercase 0x address; the zero address when there is no fee. */
  readonly feeTokenAddress: string;
  readonly amount: bigint;
}

interface Base {
  /** The log's address (the messenger), lowercase 0x. */
  readonly contract: string;
  readonly logIndex: number;
  /** 64 lowercase hex characters, no 0x. */
  readonly messageId: string;
}

export interface IcmSendEvent extends Base {
  readonly kind: "SendCrossChainMessage";
  readonly destinationBlockchainId: string;
  readonly message: TeleporterMessage;
  readonly feeInfo: TeleporterFeeInfo;
}
export interface IcmReceiveEvent extends Base {
  readonly kind: "ReceiveCrossChainMessage";
  readonly sourceBlockchainId: string;
  /** Lowercase 0x addresses. */
  readonly deliverer: string;
  readonly rewardRedeemer: string;
  readonly message: TeleporterMessage;
}
export interface IcmExecutedEvent extends Base {
  readonly kind: "MessageExecuted";
  readonly sourceBlockchainId: string;
}
export interface IcmExecutionFailedEvent extends Base {
  readonly kind: "MessageExecutionFailed";
  readonly sourceBlockchainId: string;
  readonly message: TeleporterMessage;
}
export interface IcmReceiptEvent extends Base {
  readonly kind: "ReceiptReceived";
  readonly destinationBlockchainId: string;
  readonly relayerRewardAddress: string;
  readonly feeInfo: TeleporterFeeInfo;
}
export interface IcmAddFeeEvent extends Base {
  readonly kind: "AddFeeAmount";
  /** The fee's new total. */
  readonly feeInfo: TeleporterFeeInfo;
}

export type IcmEvent =
  | IcmSendEvent
  | IcmReceiveEvent
  | IcmExecutedEvent
  | IcmExecutionFailedEvent
  | IcmReceiptEvent
  | IcmAddFeeEvent;

/** A log as JSON-RPC returns it (hex strings) or as the follower holds it (bytes, numbers). */
export interface IcmLogInput {
  readonly address: string | Uint8Array;
  readonly topics: readonly (string | Uint8Array)[];
  readonly data: string | Uint8Array;
  readonly logIndex: number | bigint | string;
}

const bytesOf = (v: string | Uint8Array): Uint8Array => (typeof v === "string" ? hexToBytes(v) : v);

/** keccak256(abi.encode(messenger, sourceBlockchainID, destinationBlockchainID, nonce)): 64 lowercase hex, no 0x. */
export function messageId(
  messenger: string,
  sourceBlockchainId: string | Uint8Array,
  destinationBlockchainId: string | Uint8Array,
  nonce: bigint | number,
): string {
  const enc = encodeAbi(
    ["address", "bytes32", "bytes32", "uint256"],
    [messenger, bytesOf(sourceBlockchainId), bytesOf(destinationBlockchainId), BigInt(nonce)],
  );
  return bytesToHex(keccak_256(enc));
}

function topicAddress(t: Uint8Array): string {
  for (let i = 0; i < 12; i++) if (t[i] !== 0) throw new AbiError("indexed address has dirty high bytes");
  return toHex(t.subarray(12));
}

function logIndexOf(v: number | bigint | string): number {
  const n =
    typeof v === "string"
      ? /^0x[0-9a-fA-F]{1,15}$/.test(v)
        ? Number.parseInt(v.slice(2), 16)
        : Number.NaN
      : Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new AbiError("bad logIndex");
  return n;
}

function asMessage(v: AbiStructValue): TeleporterMessage {
  const [nonce, origin, dest, destAddr, gas, allowed, receipts, msg] = v as [
    bigint,
    string,
    Uint8Array,
    string,
    bigint,
    string[],
    [bigint, string][],
    Uint8Array,
  ];
  return {
    messageNonce: nonce,
    originSenderAddress: origin,
    destinationBlockchainId: bytesToHex(dest),
    destinationAddress: destAddr,
    requiredGasLimit: gas,
    allowedRelayerAddresses: allowed,
    receipts: receipts.map(([n, a]) => ({receivedMessageNonce: n, relayerRewardAddress: a})),
    message: toHex(msg),
  };
}

function asFee(v: AbiStructValue): TeleporterFeeInfo {
  const [token, amount] = v as [string, bigint];
  return {feeTokenAddress: token, amount};
}

/**
 * One of the six ICM events from a log of a messenger in `messengers` (lowercase 0x addresses), or null: another
 * address, another event, or a log that does not decode (wrong topic count, short or inconsistent data).
 */
export function decodeIcmLog(log: IcmLogInput, messengers: ReadonlySet<string>): IcmEvent | null {
  try {
    const address = typeof log.address === "string" ? log.address.toLowerCase() : toHex(log.address);
    if (!messengers.has(address)) return null;
    if (log.topics.length === 0) return null;
    const topics = log.topics.map(bytesOf);
    if (topics.some((t) => t.length !== 32)) return null;
    const name = EVENT_BY_TOPIC.get(toHex(topics[0]!));
    if (!name) return null;
    const data = bytesOf(log.data);
    const base = {
      contract: address,
      logIndex: logIndexOf(log.logIndex),
      messageId: bytesToHex(topics[1] ?? new Uint8Array()),
    };
    switch (name) {
      case "SendCrossChainMessage": {
        if (topics.length !== 3) return null;
        const [m, f] = decodeAbiSpec([TELEPORTER_MESSAGE_SPEC, TELEPORTER_FEE_SPEC], data);
        return {
          kind: name,
          ...base,
          destinationBlockchainId: bytesToHex(topics[2]!),
          message: asMessage(m!),
          feeInfo: asFee(f!),
        };
      }
      case "ReceiveCrossChainMessage": {
        if (topics.length !== 4) return null;
        const [redeemer, m] = decodeAbiSpec(["address", TELEPORTER_MESSAGE_SPEC], data);
        return {
          kind: name,
          ...base,
          sourceBlockchainId: bytesToHex(topics[2]!),
          deliverer: topicAddress(topics[3]!),
          rewardRedeemer: redeemer as string,
          message: asMessage(m!),
        };
      }
      case "MessageExecuted":
        if (topics.length !== 3) return null;
        return {kind: name, ...base, sourceBlockchainId: bytesToHex(topics[2]!)};
      case "MessageExecutionFailed": {
        if (topics.length !== 3) return null;
        const [m] = decodeAbiSpec([TELEPORTER_MESSAGE_SPEC], data);
        return {kind: name, ...base, sourceBlockchainId: bytesToHex(topics[2]!), message: asMessage(m!)};
      }
      case "ReceiptReceived": {
        if (topics.length !== 4) return null;
        const [f] = decodeAbiSpec([TELEPORTER_FEE_SPEC], data);
        return {
          kind: name,
          ...base,
          destinationBlockchainId: bytesToHex(topics[2]!),
          relayerRewardAddress: topicAddress(topics[3]!),
          feeInfo: asFee(f!),
        };
      }
      case "AddFeeAmount": {
        if (topics.length !== 2) return null;
        const [f] = decodeAbiSpec([TELEPORTER_FEE_SPEC], data);
        return {kind: name, ...base, feeInfo: asFee(f!)};
      }
    }
  } catch {
    return null;
  }
}

/** A TeleporterMessage as the ABI value encodeAbiSpec takes for TELEPORTER_MESSAGE_SPEC (retryMessageExecution's argument). */
export function teleporterMessageValue(m: TeleporterMessage): AbiStructValue {
  return [
    m.messageNonce,
    m.originSenderAddress,
    hexToBytes(m.destinationBlockchainId),
    m.destinationAddress,
    m.requiredGasLimit,
    [...m.allowedRelayerAddresses],
    m.receipts.map((r) => [r.receivedMessageNonce, r.relayerRewardAddress]),
    hexToBytes(m.message),
  ];
}
