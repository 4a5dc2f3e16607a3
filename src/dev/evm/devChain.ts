/**
 * The dev network's C-chain execution (docs/development.md): a real EVM (anvil, manual mining) that mines one
 * block per dev-feed tick, at the tick's time, with that tick's generated transactions. The feed wraps each block
 * as mainnet does (proposervm around a coreth block of anvil's header and transactions, the atomic transactions
 * in extData), so the index, the primary-network view and the EVM view agree on every block hash.
 *
 * The chain is a pure function of the schedule: same genesis time, same transactions, same timestamps give the
 * same hashes (checked: two fresh anvils agree). A restart therefore replays the ticks into a fresh anvil.
 */
import {RLP, type Input} from "@ethereumjs/rlp";
import {keccak_256} from "@noble/hashes/sha3.js";
import type {Logger} from "../../logger/index.js";
import {bytesToHex, hexToBytes, quantity, toQuantity} from "../../evm/hex.js";
import {type RpcGuard, timedOut} from "../../evm/rpc.js";
import {ReadWriteGate} from "../../util/readWriteGate.js";
import {Anvil} from "./anvil.js";
import type {RawRpc} from "./traffic.js";

/** The local network's C-chain EVM chain ID (coreth: 43112). */
export const DEV_EVM_CHAIN_ID = 43112;

export interface DevEvmChainOptions {
  /** The EVM chain ID (43112 for the C-chain). */
  chainId: number;
  genesisTimestamp: number;
  /** Default accounts anvil creates (the dev network's traffic uses the first 13). */
  accounts: number;
}

export interface DevEvmChainModules {
  logger: Logger;
  /** Run on every fresh EVM before its first block (the interchain contracts); must be deterministic. */
  setup?: (rpc: RawRpc) => Promise<void>;
}

/** One mined block: anvil's header fields (in RLP order) and its transactions as they go in a block body. */
export interface MinedBlock {
  hash: Uint8Array;
  header: Input[];
  txs: Input[];
}

/** Header fields in RLP order (geth's types.Header), optional ones present only when anvil's hardfork has them. */
const HEADER_FIELDS: Array<[string, "data" | "qty", boolean]> = [
  ["parentHash", "data", true],
  ["sha3Uncles", "data", true],
  ["miner", "data", true],
  ["stateRoot", "data", true],
  ["transactionsRoot", "data", true],
  ["receiptsRoot", "data", true],
  ["logsBloom", "data", true],
  ["difficulty", "qty", true],
  ["number", "qty", true],
  ["gasLimit", "qty", true],
  ["gasUsed", "qty", true],
  ["timestamp", "qty", true],
  ["extraData", "data", true],
  ["mixHash", "data", true],
  ["nonce", "data", true],
  ["baseFeePerGas", "qty", false],
  ["withdrawalsRoot", "data", false],
  ["blobGasUsed", "qty", false],
  ["excessBlobGas", "qty", false],
  ["parentBeaconBlockRoot", "data", false],
  ["requestsHash", "data", false],
];

/** The JSON-RPC methods that replay mined transactions (`debug_trace*`, `trace_*`). */
const TRACING = /^(debug_trace|trace_)/;
/** How long mining waits after a trace timed out (the follower gives up at 20 s, the RPC route at 30 s). */
const TRACE_TIMEOUT_HOLD_MS = 60_000;
/** The JSON-RPC methods that mine blocks. */
const MINING = /^(evm_mine|anvil_mine)/;

export class DevEvmChain implements RawRpc {
  private stopped = false;
  /** Nothing sent to it since it started: no block, and no transaction waiting in its pool either. */
  private untouched = true;
  /**
   * Anvil (1.7) can deadlock when it mines a block while it traces one: a trace holds a read lock on its chain
   * storage and takes it again, and a block being mined queues for the write lock in between, so neither goes on
   * (seen at `npm start`: the dev feed's `evm_mine` never answered while the EVM follower traced). Traces go through
   * this gate shared, mining alone.
   */
  private readonly traceGate = new ReadWriteGate();

  /**
   * For every client of this EVM (the EVM follower, the `/ext/bc/C/rpc` route): traces never overlap a mining. A
   * trace its client gave up on at a timeout may still run in anvil, which does not stop work for a client that left:
   * mining stays out for TRACE_TIMEOUT_HOLD_MS more.
   */
  readonly guard: RpcGuard = (methods, exchange) =>
    methods.some((m) => TRACING.test(m))
      ? this.traceGate.sharedHeldOnFailure(exchange, (e) => (timedOut(e) ? TRACE_TIMEOUT_HOLD_MS : 0))
      : exchange();

  private constructor(
    private anvil: Anvil,
    private readonly opts: DevEvmChainOptions,
    private readonly modules: DevEvmChainModules,
  ) {}

  static async start(opts: DevEvmChainOptions, modules: DevEvmChainModules): Promise<DevEvmChain> {
    return new DevEvmChain(await DevEvmChain.fresh(opts, modules), opts, modules);
  }

  private static async fresh(opts: DevEvmChainOptions, modules: DevEvmChainModules): Promise<Anvil> {
    const anvil = await Anvil.start(
      {chainId: opts.chainId, genesisTimestamp: opts.genesisTimestamp, accounts: opts.accounts, mining: "manual"},
      {logger: modules.logger},
    );
    try {
      await modules.setup?.(anvil);
    } catch (e) {
      await anvil.stop();
      throw e;
    }
    return anvil;
  }

  /** A JSON-RPC call to the current EVM; a mining one (`mine`'s too) runs alone (see traceGate). */
  rawCall(method: string, params: unknown[]): Promise<unknown> {
    if (MINING.test(method)) return this.traceGate.exclusive(() => this.anvil.rawCall(method, params));
    return this.anvil.rawCall(method, params);
  }

  get url(): string {
    return this.anvil.url;
  }

  /** The EVM process's ID. */
  get pid(): number {
    return this.anvil.pid;
  }

  /** Why the EVM is down (its process exited), or null. */
  failure(): string | null {
    return this.anvil.exited();
  }

  /** The number of the last block mined. */
  async height(): Promise<bigint> {
    return quantity(await this.anvil.rawCall("eth_blockNumber", []));
  }

  /**
   * A fresh chain from genesis (a feed restart after an uncommitted batch: anvil may hold blocks the index does
   * not). The URL changes: followers retry and reconnect through `url`.
   */
  async reset(): Promise<void> {
    await this.anvil.stop();
    this.anvil = await DevEvmChain.fresh(this.opts, this.modules);
    this.untouched = true;
  }

  /** Whether nothing was sent to this EVM since it started (a replay can use it as it is). */
  get fresh(): boolean {
    return this.untouched;
  }

  /** Sends tick `t`'s transactions and mines them, all of them, into one block at `timestamp` (seconds). */
  async mine(t: number, timestamp: number, txs: readonly object[]): Promise<MinedBlock> {
    const failure = this.anvil.exited();
    if (failure) throw new Error(`the dev network's EVM (chain ${this.opts.chainId}) is down: ${failure}`);
    this.untouched = false;
    if (txs.length > 0) {
      const answers = await this.batch(txs.map((tx) => ({method: "eth_sendTransaction", params: [tx]})));
      answers.forEach((a, i) => {
        if (a.error)
          throw new Error(`dev EVM ${this.opts.chainId} tick ${t}: transaction ${i} refused: ${a.error.message}`);
      });
    }
    await this.rawCall("evm_mine", [{timestamp}]);
    const block = (await this.anvil.rawCall("eth_getBlockByNumber", ["latest", false])) as Record<string, unknown> & {
      hash: string;
      transactions: string[];
    };
    if (block.transactions.length !== txs.length)
      throw new Error(
        `dev EVM ${this.opts.chainId} tick ${t}: sent ${txs.length} transactions, the block holds ${block.transactions.length}`,
      );
    const header = HEADER_FIELDS.filter(([name, , required]) => required || block[name] !== undefined).map(
      ([name, kind]) => {
        const v = block[name];
        if (typeof v !== "string") throw new Error(`dev EVM block ${block.number}: no ${name}`);
        return kind === "qty" ? quantity(v) : hexToBytes(v);
      },
    );
    const hash = keccak_256(RLP.encode(header));
    if ("0x" + bytesToHex(hash) !== block.hash)
      throw new Error(
        `dev EVM block ${block.number}: its header does not hash to ${block.hash} (an unknown header field?)`,
      );
    const raws =
      block.transactions.length === 0
        ? []
        : await this.batch(block.transactions.map((h) => ({method: "eth_getRawTransactionByHash", params: [h]})));
    const bodyTxs = raws.map((r, i): Input => {
      if (typeof r.result !== "string") throw new Error(`dev EVM: no raw transaction ${block.transactions[i]}`);
      const raw = hexToBytes(r.result);
      // A typed transaction goes in a block body as its byte string; a legacy one as its RLP list.
      return raw[0]! >= 0xc0 ? (RLP.decode(raw) as Input) : raw;
    });
    return {hash, header, txs: bodyTxs};
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.anvil.stop();
  }

  private async batch(
    calls: Array<{method: string; params: unknown[]}>,
  ): Promise<Array<{result?: unknown; error?: {message: string}}>> {
    const res = await fetch(this.anvil.url, {
      method: "POST",
      headers: {"content-type": "application/json"},
      body: JSON.stringify(calls.map((c, i) => ({jsonrpc: "2.0", id: i, ...c}))),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json()) as Array<{id: number; result?: unknown; error?: {message: string}}>;
    return calls.map((_, i) => body.find((b) => b.id === i) ?? {error: {message: "no answer"}});
  }
}

/** The coreth block of a mined block: `[header, txs, uncles, version, extData]` (the dev network's atomic txs). */
export function corethBlock(b: MinedBlock, extData: Uint8Array | null): Uint8Array {
  return RLP.encode([b.header, b.txs, [], 0, extData ?? new Uint8Array(0)]);
}

export {toQuantity};
