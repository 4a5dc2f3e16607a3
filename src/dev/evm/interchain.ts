/**
 * The dev network's interchain traffic (docs/api/icm.md): messages between the C-chain and the dev L1's EVM
 * through the messenger at TeleporterMessenger v1.0.0's address, and the relayer that delivers them.
 *
 * Per tick, on top of the C-chain's own traffic: an application account sends messages both ways (with a fee, and
 * without), one message allows only a relayer that never runs (it stays pending, and gets a fee added later), some
 * go to a receiver that fails (delivered, not executed; every other one retried later and executed), and the L1's
 * messages carry the C-chain messages' receipts back. The relayer reads the previous tick's blocks of both chains
 * (their logs, as a real relayer does), has each message it may deliver signed by the dev validators through the
 * signature aggregator (`sign`), and delivers it: the signed message to the warp stand-in, then
 * `receiveCrossChainMessage` to the messenger.
 *
 * Determinism: like the C-chain's traffic, nonces, gas and fees are explicit and every choice follows from the
 * tick and the chains' content (itself deterministic), and BLS signatures are deterministic, so a replay into
 * fresh EVMs gives the same blocks. The accounts are anvil's default accounts 10-12 (anvil starts with 13), which
 * the C-chain's traffic does not use.
 */
import {decodeAbi, encodeAbi, encodeCall, encodeCallSpec, eventTopic, type AbiStructValue} from "../../evm/abi.js";
import {bytesToHex, hexToBytes, toHex, toQuantity} from "../../evm/hex.js";
import {
  DEFAULT_ICM_MESSENGER,
  TELEPORTER_MESSAGE_INPUT_SPEC,
  TELEPORTER_MESSAGE_SPEC,
  decodeIcmLog,
  messageId,
  type TeleporterMessage,
} from "../../dataApi/evm/icm.js";
import {aggregate} from "../../warp/aggregator.js";
import {devSigners} from "../signers.js";
import {parseUnsignedMessage} from "../../warp/message.js";
import {sha256} from "../../util/sha256.js";
import {canonicalValidatorSet, type ValidatorInput} from "../../warp/validators.js";
import {DevIcmReceiver, DevToken} from "./artifacts.js";
import {WARP_PRECOMPILE} from "./icm.js";
import {contractAddress, type EthTxRequest, type RawRpc} from "./traffic.js";

/** Anvil's default accounts 10-12: the application that sends messages, the relayer, a relayer that never runs. */
export const ICM_ACCOUNTS = {
  user: "0xbcd4042de499d14e55001ccbb24a551f3b954096",
  relayer: "0x71be63f3384f5fb98995898a86b02fb2426c5788",
  absentRelayer: "0xfabb0ac9d68b0b445fb7357272ff202c5651694a",
} as const;

/** How many default accounts the dev network's anvils start with (the C-chain's traffic uses 0-9). */
export const DEV_ANVIL_ACCOUNTS = 13;

export type DevEvmName = "C" | "L1";

export interface DevInterchainOptions {
  networkId: number;
  /** The two chains' blockchain IDs (32 bytes). */
  cChainId: Uint8Array;
  l1ChainId: Uint8Array;
  /** The first tick at which the L1's EVM mines a block (its chain exists on the P-chain). */
  l1FirstTick: number;
}

export interface DevInterchainModules {
  /** The signed warp message for an unsigned one that `source` sent in block `blockHash` (the relayer's call to the aggregator). */
  sign(unsigned: Uint8Array, source: DevEvmName, blockHash: string): Promise<Uint8Array>;
}

/** A block mined at the previous tick: where to read its logs. */
export interface MinedRef {
  rpc: RawRpc;
  blockHash: string;
}

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
  transactionHash: string;
}

const GWEI = 10n ** 9n;
const ETHER = 10n ** 18n;
const MAX_FEE = toQuantity(100n * GWEI);
const PRIORITY_FEE = toQuantity(GWEI);
const MESSENGER = DEFAULT_ICM_MESSENGER.toLowerCase();
const MESSENGERS = new Set([MESSENGER]);
const ZERO_ADDRESS = "0x" + "0".repeat(40);
/** The gas a receiver gets (requiredGasLimit), and the limits of the relayer's and the application's calls. */
const REQUIRED_GAS = 200_000n;
const GAS = {deploy: 3_000_000, call: 120_000, send: 500_000, deliver: 2_000_000, receive: 1_500_000, retry: 600_000};
/** The warp precompile's SendWarpMessage(address indexed sourceAddress, bytes32 indexed unsignedMessageID, bytes message). */
const SEND_WARP_TOPIC = eventTopic("SendWarpMessage(address,bytes32,bytes)");

/** The contracts the application account deploys on each chain at the L1's first tick, in nonce order. */
const SETUP = ["feeToken", "receiver", "failing"] as const;
type Deployed = (typeof SETUP)[number];

export class DevInterchain {
  private readonly nonces = new Map<string, number>();
  private readonly chains: Record<DevEvmName, {id: Uint8Array; contracts: Record<Deployed, string>}>;
  /** Messages each chain has sent (the messenger's nonce of its latest). */
  private readonly sent: Record<DevEvmName, number> = {C: 0, L1: 0};
  /** The pending message's ID (C→L1, only the absent relayer may deliver it). */
  private pendingId: string | null = null;
  /** Failed executions to retry, by the tick at which to retry them. */
  private readonly retries: Array<{tick: number; chain: DevEvmName; source: string; message: TeleporterMessage}> = [];
  private nextTick = 0;

  constructor(
    private readonly opts: DevInterchainOptions,
    private readonly modules: DevInterchainModules,
  ) {
    // The same account deploys the same contracts in the same order on both chains: the same addresses.
    const contracts = Object.fromEntries(SETUP.map((n, i) => [n, contractAddress(ICM_ACCOUNTS.user, i)])) as Record<
      Deployed,
      string
    >;
    this.chains = {C: {id: opts.cChainId, contracts}, L1: {id: opts.l1ChainId, contracts}};
  }

  /** The receivers and fee tokens on each chain (lowercase 0x addresses). */
  contracts(chain: DevEvmName): Readonly<Record<Deployed, string>> {
    return this.chains[chain].contracts;
  }

  /**
   * The interchain transactions of tick `t` for each chain, given the blocks both chains mined at tick `t - 1`
   * (null where a chain mined none). Ticks must be asked for in order, each once.
   */
  async txsForTick(
    t: number,
    previous: Record<DevEvmName, MinedRef | null>,
  ): Promise<Record<DevEvmName, EthTxRequest[]>> {
    if (t !== this.nextTick) throw new Error(`DevInterchain: tick ${t} asked for, expected ${this.nextTick}`);
    this.nextTick++;
    const out: Record<DevEvmName, EthTxRequest[]> = {C: [], L1: []};
    const k = t - this.opts.l1FirstTick;
    if (k < 0) return out;
    // The relayer first: what the previous blocks sent is delivered in this tick's blocks.
    for (const source of ["C", "L1"] as const) {
      const prev = previous[source];
      if (prev) await this.relay(t, source, prev, out);
    }
    if (k === 0) this.setUp(out);
    const {C, L1} = this.chains;
    const user = ICM_ACCOUNTS.user;
    if (k >= 2 && k % 4 === 2)
      out.C.push(
        this.send("C", L1.contracts.receiver, [C.contracts.feeToken, ETHER], [], `C to L1, tick ${t}, with a fee`),
      );
    if (k >= 4 && k % 4 === 0) {
      const fee: [string, bigint] = k % 8 === 0 ? [L1.contracts.feeToken, ETHER / 10n] : [ZERO_ADDRESS, 0n];
      out.L1.push(
        this.send("L1", C.contracts.receiver, fee, [], `L1 to C, tick ${t}${fee[1] > 0n ? ", with a fee" : ""}`),
      );
    }
    if (k % 16 === 7)
      out.C.push(
        this.send("C", L1.contracts.failing, [ZERO_ADDRESS, 0n], [], `C to L1, tick ${t}, to a receiver that fails`),
      );
    if (k % 16 === 11)
      out.L1.push(
        this.send("L1", C.contracts.failing, [ZERO_ADDRESS, 0n], [], `L1 to C, tick ${t}, to a receiver that fails`),
      );
    if (k === 3) {
      this.pendingId = messageId(MESSENGER, C.id, L1.id, this.sent.C + 1);
      out.C.push(
        this.send(
          "C",
          L1.contracts.receiver,
          [C.contracts.feeToken, ETHER / 2n],
          [ICM_ACCOUNTS.absentRelayer],
          `C to L1, tick ${t}, for a relayer that never runs`,
        ),
      );
    }
    if (k === 5 && this.pendingId) {
      out.C.push(
        this.tx(
          "C",
          user,
          MESSENGER,
          encodeCall(
            "addFeeAmount(bytes32,address,uint256)",
            ["bytes32", "address", "uint256"],
            ["0x" + this.pendingId, C.contracts.feeToken, ETHER / 2n],
          ),
          GAS.send,
        ),
      );
    }
    const due = this.retries.filter((x) => x.tick === t);
    this.retries.splice(0, this.retries.length, ...this.retries.filter((x) => x.tick > t));
    for (const r of due) {
      const failing = this.chains[r.chain].contracts.failing;
      out[r.chain].push(this.tx(r.chain, user, failing, encodeCall("setFailing(bool)", ["bool"], [false]), GAS.call));
      out[r.chain].push(
        this.tx(
          r.chain,
          user,
          MESSENGER,
          encodeCallSpec(
            "retryMessageExecution(bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))",
            ["bytes32", TELEPORTER_MESSAGE_SPEC],
            [hexToBytes(r.source), messageTuple(r.message)],
          ),
          GAS.retry,
        ),
      );
      out[r.chain].push(this.tx(r.chain, user, failing, encodeCall("setFailing(bool)", ["bool"], [true]), GAS.call));
    }
    return out;
  }

  /** Each chain's fee token, receivers (one told to fail) and the messenger's allowance to spend the fee token. */
  private setUp(out: Record<DevEvmName, EthTxRequest[]>): void {
    const user = ICM_ACCOUNTS.user;
    for (const chain of ["C", "L1"] as const) {
      const c = this.chains[chain].contracts;
      // In SETUP's order.
      const token =
        DevToken.bytecode +
        bytesToHex(
          encodeAbi(["string", "string", "uint256"], [`Dev ${chain} Relay Fee`, `FEE${chain}`, 1_000_000n * ETHER]),
        );
      out[chain].push(this.tx(chain, user, null, token, GAS.deploy));
      out[chain].push(this.tx(chain, user, null, DevIcmReceiver.bytecode, GAS.deploy));
      out[chain].push(this.tx(chain, user, null, DevIcmReceiver.bytecode, GAS.deploy));
      out[chain].push(this.tx(chain, user, c.failing, encodeCall("setFailing(bool)", ["bool"], [true]), GAS.call));
      out[chain].push(
        this.tx(
          chain,
          user,
          c.feeToken,
          encodeCall("approve(address,uint256)", ["address", "uint256"], [MESSENGER, 1_000_000n * ETHER]),
          GAS.call,
        ),
      );
    }
  }

  private send(from: DevEvmName, to: string, fee: [string, bigint], allowed: string[], text: string): EthTxRequest {
    this.sent[from]++;
    const destination = this.chains[from === "C" ? "L1" : "C"].id;
    const data = encodeCallSpec(
      "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
      [TELEPORTER_MESSAGE_INPUT_SPEC],
      [[destination, to, fee, REQUIRED_GAS, allowed, new TextEncoder().encode(text)]],
    );
    return this.tx(from, ICM_ACCOUNTS.user, MESSENGER, data, GAS.send);
  }

  /**
   * Delivers what `source`'s previous block sent to the other chain, and notes the executions that failed in it
   * (every other one, by nonce, is retried at the next tick).
   */
  private async relay(
    t: number,
    source: DevEvmName,
    prev: MinedRef,
    out: Record<DevEvmName, EthTxRequest[]>,
  ): Promise<void> {
    const logs = (await prev.rpc.rawCall("eth_getLogs", [{blockHash: prev.blockHash}])) as RpcLog[];
    const destination: DevEvmName = source === "C" ? "L1" : "C";
    const destinationId = bytesToHex(this.chains[destination].id);
    for (const log of logs) {
      const e = decodeIcmLog(log, MESSENGERS);
      if (
        e?.kind === "MessageExecutionFailed" &&
        e.message.destinationAddress === this.chains[source].contracts.failing &&
        Number(e.message.messageNonce) % 2 === 0
      ) {
        this.retries.push({tick: t + 1, chain: source, source: e.sourceBlockchainId, message: e.message});
      }
      if (e?.kind !== "SendCrossChainMessage" || e.destinationBlockchainId !== destinationId) continue;
      const allowed = e.message.allowedRelayerAddresses;
      if (allowed.length > 0 && !allowed.includes(ICM_ACCOUNTS.relayer)) continue;
      // The warp message the messenger sent in the same transaction (the stand-in logs it like the precompile).
      const warp = logs.find(
        (l) =>
          l.transactionHash === log.transactionHash &&
          l.address.toLowerCase() === WARP_PRECOMPILE &&
          l.topics[0] === SEND_WARP_TOPIC,
      );
      if (!warp)
        throw new Error(`dev relayer: message ${e.messageId} on ${source} has no warp message in its transaction`);
      const [unsigned] = decodeAbi(["bytes"], hexToBytes(warp.data)) as [Uint8Array];
      const signed = await this.modules.sign(unsigned, source, prev.blockHash);
      const relayer = ICM_ACCOUNTS.relayer;
      out[destination].push(
        this.tx(
          destination,
          relayer,
          WARP_PRECOMPILE,
          encodeCall("deliver(uint32,bytes)", ["uint256", "bytes"], [0n, toHex(signed)]),
          GAS.deliver,
        ),
      );
      out[destination].push(
        this.tx(
          destination,
          relayer,
          MESSENGER,
          encodeCall("receiveCrossChainMessage(uint32,address)", ["uint256", "address"], [0n, relayer]),
          GAS.receive,
        ),
      );
    }
  }

  private tx(chain: DevEvmName, from: string, to: string | null, data: string, gas: number): EthTxRequest {
    const key = `${chain}:${from}`;
    const nonce = this.nonces.get(key) ?? 0;
    this.nonces.set(key, nonce + 1);
    return {
      from,
      ...(to ? {to} : {}),
      data,
      nonce: toQuantity(nonce),
      gas: toQuantity(gas),
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: PRIORITY_FEE,
    };
  }
}

/** A decoded TeleporterMessage as the ABI tuple retryMessageExecution takes. */
function messageTuple(m: TeleporterMessage): AbiStructValue {
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

/** A dev chain as the relayer's signers see it: its blockchain ID, and its RPC to check what it sent. */
export interface SigningChain {
  id: Uint8Array;
  rpc: RawRpc;
}

/**
 * The relayer's signatures: the dev network's validators (their local keys) asked through the signature aggregator
 * endpoint 1 uses (src/warp/aggregator.ts: canonical set, every signature verified, quorum 67 %), each validator
 * signing only a message its source chain sent (a SendWarpMessage log on that chain), as AvalancheGo's warp backend
 * does. `validators(source)` is the set that validates the source chain now.
 */
export function devRelayerSigner(m: {
  chains: Record<DevEvmName, SigningChain>;
  validators: (source: DevEvmName) => ValidatorInput[];
}): DevInterchainModules["sign"] {
  /** null when the message's source chain logged it in that block; else why not. */
  const sentIn = async (unsigned: Uint8Array, blockHash: string): Promise<string | null> => {
    const source = parseUnsignedMessage(unsigned).sourceChainId;
    const chain = (["C", "L1"] as const).find((c) => bytesEqual(m.chains[c].id, source));
    if (!chain) return "not a message of the dev network's EVM chains";
    const topics = [SEND_WARP_TOPIC, null, "0x" + bytesToHex(sha256(unsigned))];
    const logs = (await m.chains[chain].rpc.rawCall("eth_getLogs", [
      {blockHash, address: WARP_PRECOMPILE, topics},
    ])) as unknown[];
    return logs.length > 0 ? null : `chain ${chain} did not send this message in block ${blockHash}`;
  };
  return async (unsigned, source, blockHash) => {
    // One check per message, whichever validator asks first (they share the chain's answer).
    let answer: Promise<string | null> | null = null;
    const signers = devSigners(() => (answer ??= sentIn(unsigned, blockHash)));
    const set = canonicalValidatorSet(m.validators(source));
    const r = await aggregate({unsigned, set, quorumNum: RELAYER_QUORUM, bufferPercent: 0, sources: [signers]});
    if (!r.ok)
      throw new Error(
        `dev relayer: the validators of ${source} did not sign: ${r.refusals.map((x) => x.reason).join("; ") || "no answer"}`,
      );
    return r.signed;
  };
}

const RELAYER_QUORUM = 67;

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
