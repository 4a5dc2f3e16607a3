/**
 * The EVM follower of one chain (docs/operations/evm-chains.md): identifies the chain (`eth_chainId` must be the one
 * asked for), then folds blocks in order, each with its receipts (`eth_getBlockReceipts`, else per transaction),
 * fetched as JSON-RPC batches. A batch of blocks and the chain's new head commit in one SQL transaction, so a crash or
 * kill -9 resumes exactly. What is slow to read comes behind the head, in lanes of its own with their own RPC
 * connections (lanes.ts): token metadata (tokenLane.ts) and call traces (traceLane.ts; a chain without debug APIs
 * serves no internal transactions and says so), so a slow contract or trace never holds a block back. A block whose
 * parent is not the stored head is a reorg: the view rolls back to the common ancestor (balances and NFT owners
 * included) and goes on, at most `maxReorgDepth` blocks deep: past that (another chain behind the same URL, a dev EVM
 * reset) it stops, naming the block, rather than refold the store from genesis. Blocks an Avalanche node serves are
 * accepted, hence final. A failing RPC is retried with backoff and reported (status, health, metrics); it never stops
 * the process or another chain. So is an outage of the store (src/util/errors.ts). An error of the fold itself
 * (deriving a block the RPC served well-formed, or writing it: a constraint violation, a bug) happens again on every
 * try: this chain's follower stops at that block, says so (status, health, the log once, a metric), and its reads serve
 * what was folded.
 */
import {registerChain, setChainInfo, storedHash, storedHashes, storedHead} from "./chainState.js";
import {sleep} from "../../../util/sleep.js";
import {Backoff, RetryableError, isRetryable} from "../../../util/errors.js";
import {setMaxListeners} from "node:events";
import type {Logger} from "../../../logger/index.js";
import type {SqlClient} from "../../store/sql.js";
import {RpcCallError, type EvmRpc, type RpcCall} from "../../../evm/rpc.js";
import {bytesToHex, hexToBytes, quantity, toQuantity} from "../../../evm/hex.js";
import {selector} from "../../../evm/abi.js";
import {cb58Encode} from "../../../util/cb58.js";
import {BlockShapeError, deriveBlock, type DerivedBlock} from "./derive.js";
import {writeBlocks, rollbackTo} from "./write.js";
import {Lane, type LaneStatus} from "./lanes.js";
import {TokenLane, defaultTokenLaneOptions, type TokenInfoReader, type TokenLaneOptions} from "./tokenLane.js";
import {TraceLane, defaultTraceLaneOptions, type TraceLaneOptions} from "./traceLane.js";

export interface EvmFollowerOptions {
  /** The EVM chain ID the RPC must answer (decimal); null: whatever it answers (the dev network's own EVM). */
  chainId: string | null;
  /** The chain's blockchain ID (CB58) when known (the C-chain; an L1 named by it). */
  blockchainId: string | null;
  /** Blocks fetched and committed together. */
  batchBlocks: number;
  /** Batches fetched ahead while one is written. */
  fetchAhead: number;
  /** Time between head polls when caught up, ms. */
  pollMs: number;
  /** `auto`: trace when the RPC can; `off`: never. */
  traces: "auto" | "off";
  /** The health check fails when the view is this many blocks behind the RPC's head. */
  maxLagBlocks: number;
  /** ICM messenger addresses (`--icm-contracts`, lowercase 0x) whose logs are interchain messages. */
  icmMessengers: readonly string[];
  /** The chain is UNAVAILABLE when the RPC has not answered the follower for this long, ms (a hanging RPC). */
  staleMs: number;
  /** The lanes behind the head. */
  lanes: {pollMs: number; tokens: TokenLaneOptions; traces: TraceLaneOptions};
  /** Blocks a reorg may roll back (`--evm-max-reorg-depth`); a deeper one stops the follower. 0 = no limit. */
  maxReorgDepth: number;
  /** Keep the metrics service's rollups with the blocks (metricsFold.ts); false only for the bench's baseline. */
  rollups?: boolean;
}

export const defaultEvmFollowerOptions: Omit<EvmFollowerOptions, "chainId" | "blockchainId"> = {
  // 50 rather than 25: half the write transactions for a backlog, which PGlite (one SQL session) needs to
  // keep up: 10,000 blocks × 20 txs at 54 % of fetch + parse against 49 % (docs/performance.md). An RPC that refuses
  // a batch this large for its size gets smaller ones (see below).
  batchBlocks: 50,
  fetchAhead: 3,
  pollMs: 250,
  traces: "auto",
  maxLagBlocks: 100,
  icmMessengers: [],
  staleMs: 30_000,
  lanes: {pollMs: 250, tokens: defaultTokenLaneOptions, traces: defaultTraceLaneOptions},
  maxReorgDepth: 64,
};

export interface EvmFollowerMetrics {
  blocks(chainId: string, n: number): void;
  txs(chainId: string, n: number): void;
  error(chainId: string): void;
  reorg(chainId: string): void;
  /** The follower stopped on an error of the fold. */
  stopped?(chainId: string): void;
}

export interface EvmFollowerModules {
  sql: SqlClient;
  rpc: EvmRpc;
  logger: Logger;
  /**
   * Reads a token contract's kind and metadata (eth_call), in the token lane; called once per new token contract,
   * with the kind its first transfer log suggests (a contract without ERC-165 is known by its logs). Give it an RPC
   * client of its own: a slow contract then never queues the head's requests.
   */
  tokenInfo: TokenInfoReader;
  /** The trace lane's RPC client (its own connections, for the same reason); default `rpc`. */
  traceRpc?: EvmRpc;
  metrics?: EvmFollowerMetrics;
}

export interface EvmChainStatus {
  chainId: string | null;
  blockchainId: string | null;
  rpcUrl: string;
  status: "OK" | "UNAVAILABLE";
  /** Last block folded. */
  head: bigint | null;
  /** The RPC's head when last asked. */
  rpcHead: bigint | null;
  traces: boolean | null;
  lastError: string | null;
  /** Where and why the follower stopped, when it did. */
  stopped: EvmStop | null;
  /** The lanes behind the head; `traces` is null on a chain without traces (or before that is known). */
  lanes: {tokens: LaneStatus; traces: LaneStatus | null};
}

export interface EvmStop {
  /** The first and last block of the batch that failed (one block once narrowed down to it). */
  fromBlock: string;
  toBlock: string;
  /** The block's hash, when the failure is placed in one block. */
  blockHash: string | null;
  error: string;
  /** When it stopped (ISO 8601). */
  since: string;
}

/**
 * A failure of the fold itself at blocks [from, to] (deriving or writing them), not of the RPC: retryable only if
 * its cause is an outage of the store.
 */
class EvmFoldError extends Error {
  constructor(
    readonly from: bigint,
    readonly to: bigint,
    readonly blockHash: string | null,
    cause: unknown,
  ) {
    const where = from === to ? `block ${from}${blockHash ? ` (${blockHash})` : ""}` : `blocks ${from}-${to}`;
    super(`${where}: ${cause instanceof Error ? cause.message : String(cause)}`, {cause});
  }
}

/** A reorg deeper than `maxReorgDepth`: the follower stops at `fold`'s block rather than roll back further. */
class ReorgTooDeepError extends Error {
  constructor(readonly fold: EvmFoldError) {
    super(fold.message);
  }
}

const METHOD_NOT_FOUND = -32601;
/** Avalanche's warp precompile, and its getBlockchainID() selector. */
const WARP_PRECOMPILE = "0x0200000000000000000000000000000000000005";
const GET_BLOCKCHAIN_ID = selector("getBlockchainID()");

export class EvmFollower {
  private head: {number: bigint; hash: Uint8Array} | null = null;
  private cumulativeTxs = 0n;
  private chainId: string | null;
  private traces: boolean | null = null;
  private blockReceipts = true;
  private rpcHead: bigint | null = null;
  /** When the RPC last answered the follower (ms); a hanging RPC shows as stale contact. */
  private lastContact = 0;
  /** Blocks a batch (halved when the RPC refuses a batch for its size). */
  private batchBlocks: number;
  /** The chain's blockchain ID (CB58): configured, else asked of its warp precompile; null when not known. */
  private blockchainId: string | null;
  private readonly messengers: ReadonlySet<string>;
  private lastError: string | null = null;
  private stopped: EvmStop | null = null;
  /** Batches up to this block hold one block: a batch failed in the fold, and is refolded to find its block. */
  private narrowTo = -1n;
  private readonly tokenLane: Lane;
  private readonly traceLane: Lane;
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;
  private readonly waiters: Array<() => void> = [];
  /** A write failed: what is in memory of the head may be behind the store (or ahead of it). */
  private stale = false;
  /** The block a fold error was last tried again at (once, before the follower stops there). */
  private retriedAt: bigint | null = null;
  /** Batches fetched ahead of the one being written, in order. */
  private readonly ahead: Array<{from: bigint; to: bigint; p: Promise<DerivedBlock[]>}> = [];

  constructor(
    readonly opts: EvmFollowerOptions,
    private readonly modules: EvmFollowerModules,
  ) {
    this.chainId = opts.chainId;
    this.blockchainId = opts.blockchainId;
    this.batchBlocks = opts.batchBlocks;
    this.messengers = new Set(opts.icmMessengers.map((a) => a.toLowerCase()));
    // Every request of the fold listens on this signal: batches fetched ahead, retries.
    setMaxListeners(0, this.abort.signal);
    const {sql, logger} = modules;
    // The lanes start once the chain is identified (its row in evm_chains exists, and whether it traces is known).
    const lane = (kind: TokenLane | TraceLane, enabled: () => boolean): Lane =>
      new Lane(
        {pollMs: opts.lanes.pollMs},
        {
          sql,
          logger,
          kind,
          enabled,
          chainId: () => (this.traces === null ? null : this.chainId),
          head: () => this.head?.number ?? null,
        },
      );
    this.tokenLane = lane(
      new TokenLane(opts.lanes.tokens, {sql, tokenInfo: modules.tokenInfo}),
      () => this.traces !== null,
    );
    this.traceLane = lane(
      new TraceLane(opts.lanes.traces, {sql, logger, rpc: modules.traceRpc ?? modules.rpc}),
      () => this.traces === true,
    );
  }

  status(): EvmChainStatus {
    const stale = this.lastContact > 0 && Date.now() - this.lastContact > this.opts.staleMs;
    return {
      chainId: this.chainId,
      blockchainId: this.blockchainId,
      rpcUrl: this.modules.rpc.label,
      status: this.lastError === null && this.traces !== null && !stale ? "OK" : "UNAVAILABLE",
      head: this.head?.number ?? null,
      rpcHead: this.rpcHead,
      traces: this.traces,
      lastError:
        this.lastError ??
        (stale ? `no answer from the RPC for ${Math.round((Date.now() - this.lastContact) / 1000)} s` : null),
      stopped: this.stopped,
      lanes: {tokens: this.tokenLane.status(), traces: this.traces ? this.traceLane.status() : null},
    };
  }

  /** Blocks the RPC has that the view has not folded (null before the first answer). */
  lag(): bigint | null {
    if (this.rpcHead === null) return null;
    return this.rpcHead - (this.head?.number ?? -1n);
  }

  start(): void {
    this.running ??= this.run(this.abort.signal);
    this.tokenLane.start();
    this.traceLane.start();
  }

  async close(): Promise<void> {
    this.abort.abort();
    await Promise.all([this.running, this.tokenLane.close(), this.traceLane.close()]);
  }

  /** Resolves once block `n` is folded and every lane has covered it: all that will be known of it is (tests). */
  async waitFor(n: bigint, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await this.waitForHead(n, timeoutMs);
    const what = (): string => `EVM chain ${this.chainId}`;
    await Promise.all([this.tokenLane.waitFor(n, deadline, what), this.traceLane.waitFor(n, deadline, what)]);
  }

  /** Resolves once block `n` is folded at the head (its lanes may not have covered it yet). */
  async waitForHead(n: bigint, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.head?.number ?? -1n) < n) {
      if (Date.now() > deadline)
        throw new Error(
          `EVM chain ${this.chainId}: block ${n} not folded within ${timeoutMs} ms (head ${this.head?.number ?? "none"}${this.lastError ? `, ${this.lastError}` : ""})`,
        );
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  private async run(signal: AbortSignal): Promise<void> {
    // The RPC's own retries (src/evm/rpc.ts) come first; then the whole step, from 1 s to 30 s apart.
    const backoff = new Backoff({baseMs: 1000, maxMs: 30_000});
    while (!signal.aborted) {
      try {
        if (this.traces === null) await this.identify(signal);
        else if (this.stale) await this.reloadHead();
        const folded = await this.step(signal);
        this.lastError = null;
        backoff.reset();
        if (folded === 0) await sleep(this.opts.pollMs, signal);
      } catch (err) {
        if (signal.aborted) break;
        const e = err as Error;
        if (e instanceof ReorgTooDeepError) {
          this.stop(e.fold);
          return;
        }
        // A write that failed may still have committed (the connection lost as COMMIT ran): the head, the count of
        // transactions and the tokens known stored are read back from the store before anything is written again.
        this.stale = true;
        if (e instanceof EvmFoldError && !isRetryable(e.cause)) {
          this.dropAhead();
          if (e.from !== e.to && this.narrowTo < e.to) {
            // Refolded block by block, the failure names its block.
            this.narrowTo = e.to;
            continue;
          }
          // Tried once more from the store's head: an error of the fold fails again, a passing one (an outage that
          // looked like a bug) does not.
          if (this.retriedAt !== e.from) {
            this.retriedAt = e.from;
            const at = {chainId: this.chainId, block: e.from.toString(), err: e.cause};
            this.modules.logger.warn(at, "EVM follower: a block failed to fold; trying it once more before stopping");
            continue;
          }
          this.stop(e);
          return;
        }
        this.shrinkOnRefusal(e);
        this.lastError = e.message;
        this.modules.metrics?.error(this.chainId ?? "unknown");
        const retryInMs = backoff.next();
        const rpc = this.modules.rpc.label;
        const at = {chainId: this.chainId, rpc, err: e.message, failures: backoff.attempts, retryInMs};
        this.modules.logger.warn(at, "EVM follower: batch failed; retrying");
        await sleep(retryInMs, signal);
      }
    }
  }

  /** The head and what the fold keeps of it, read back from the store (after a write that failed). */
  private async reloadHead(): Promise<void> {
    const head = await storedHead(this.modules.sql, this.chainId!);
    this.head = head ? {number: head.number, hash: head.hash} : null;
    this.cumulativeTxs = head?.cumulativeTxs ?? 0n;
    this.dropAhead();
    this.stale = false;
  }

  /** Stops on an error of the fold: reported as it is, until a restart tries again. */
  private stop(e: EvmFoldError): void {
    const cause = e.cause instanceof Error ? e.cause : new Error(String(e.cause));
    this.stopped = {
      fromBlock: e.from.toString(),
      toBlock: e.to.toString(),
      blockHash: e.blockHash,
      error: cause.message,
      since: new Date().toISOString(),
    };
    this.lastError = `the follower stopped at ${e.message} (restart avaext to try again)`;
    const chainId = this.chainId ?? "unknown";
    this.modules.metrics?.stopped?.(chainId);
    this.modules.logger.error(
      {chainId, rpc: this.modules.rpc.label, ...this.stopped, err: cause},
      `EVM follower of chain ${chainId}: ${e.message}; this chain's follower stopped (restart avaext to try again)`,
    );
    this.waiters.splice(0).forEach((w) => w());
  }

  /** Checks the chain ID, loads the stored head, and probes what the RPC serves (traces, block receipts). */
  private async identify(signal: AbortSignal): Promise<void> {
    const {rpc, sql} = this.modules;
    const answered = await this.askChainId(signal);
    if (this.opts.chainId !== null && answered !== this.opts.chainId) {
      throw new RetryableError(`${rpc.label} answers chain ID ${answered}, not ${this.opts.chainId}`);
    }
    this.chainId = answered;
    this.blockchainId ??= await this.askBlockchainId(signal);
    const head = await storedHead(sql, answered);
    if (head === undefined) {
      await registerChain(sql, answered, this.blockchainId);
    } else if (head !== null) {
      this.head = {number: head.number, hash: head.hash};
      this.cumulativeTxs = head.cumulativeTxs;
    }
    let traces = false;
    if (this.opts.traces === "auto") {
      // Only a missing method means no traces: geth, coreth and subnet-evm refuse to trace the genesis block
      // ("genesis is not traceable") while tracing every other one.
      const probe = await rpc.batch(
        [{method: "debug_traceBlockByNumber", params: ["latest", {tracer: "callTracer"}]}],
        signal,
      );
      const r = probe[0]!;
      traces =
        r.ok ||
        !(
          r.error.code === METHOD_NOT_FOUND ||
          /does not exist|not available|not found|not enabled|disabled/i.test(r.error.message)
        );
      if (!traces && !r.ok)
        this.modules.logger.warn(
          {chainId: answered, err: r.error.message},
          "EVM RPC serves no call traces: no internal transactions for this chain",
        );
    }
    await setChainInfo(sql, answered, traces, this.blockchainId);
    this.traces = traces;
    this.modules.logger.info(
      {chainId: answered, rpc: rpc.label, head: this.head?.number, traces},
      "EVM follower identified its chain",
    );
  }

  /**
   * A node that refuses a batch for its size (AvalancheGo: 1,000 requests or 25 MB of answer a batch) gets
   * smaller ones from then on: busy traced blocks make large answers.
   */
  private shrinkOnRefusal(e: Error): void {
    const refused =
      e instanceof RpcCallError &&
      ((e.kind === "http" && e.code === 413) ||
        (e.kind !== "transport" && /batch refused|too large|exceed|limit/i.test(e.message)));
    if (!refused || this.batchBlocks === 1) return;
    this.batchBlocks = Math.max(1, Math.floor(this.batchBlocks / 2));
    this.dropAhead();
    this.modules.logger.warn(
      {chainId: this.chainId, batchBlocks: this.batchBlocks, err: e.message},
      "EVM RPC refused a batch for its size: asking for fewer blocks at once",
    );
  }

  /**
   * The blockchain ID an Avalanche EVM reports through its warp precompile (`getBlockchainID()`); null on an EVM
   * without one. ICM messages sent from this chain carry it as their source.
   */
  private async askBlockchainId(signal: AbortSignal): Promise<string | null> {
    const r = await this.modules.rpc.batch(
      [{method: "eth_call", params: [{to: WARP_PRECOMPILE, data: GET_BLOCKCHAIN_ID}, "latest"]}],
      signal,
    );
    const out = r[0]!;
    if (
      !out.ok ||
      typeof out.result !== "string" ||
      !/^0x[0-9a-fA-F]{64}$/.test(out.result) ||
      /^0x0+$/.test(out.result)
    )
      return null;
    return cb58Encode(hexToBytes(out.result));
  }

  /** The chain ID the RPC answers, as a decimal string (a malformed answer throws). */
  private async askChainId(signal: AbortSignal): Promise<string> {
    return quantity(await this.modules.rpc.call<unknown>("eth_chainId", [], signal)).toString();
  }

  /**
   * Folds the next batch of blocks; returns how many. Up to `fetchAhead` later batches are fetched (and derived)
   * while this one is written: the RPC and the store work at the same time. A batch that does not continue the
   * head drops everything fetched ahead.
   */
  private async step(signal: AbortSignal): Promise<number> {
    const {rpc} = this.modules;
    const from = this.head ? this.head.number + 1n : 0n;
    if (this.ahead.length > 0 && this.ahead[0]!.from !== from) this.dropAhead();
    let next = this.ahead.length > 0 ? this.ahead[this.ahead.length - 1]!.to + 1n : from;
    // The RPC's head is asked again only when everything below it is fetched or being fetched.
    if (this.rpcHead === null || next > this.rpcHead)
      this.rpcHead = quantity(await rpc.call<unknown>("eth_blockNumber", [], signal));
    this.lastContact = Date.now();
    if (from > this.rpcHead) {
      // Caught up: the head may still have been replaced (a reorg at the same height, a shorter chain).
      if (this.head) await this.checkReorg(signal);
      return 0;
    }
    while (this.ahead.length < 1 + this.opts.fetchAhead && next <= this.rpcHead) {
      const to = bigMin(next + BigInt(next <= this.narrowTo ? 1 : this.batchBlocks) - 1n, this.rpcHead);
      const p = this.fetch(next, to, signal);
      p.catch(() => {}); // observed when its turn comes, or dropped
      this.ahead.push({from: next, to, p});
      next = to + 1n;
    }
    let blocks: DerivedBlock[];
    const batch = this.ahead[0]!;
    try {
      blocks = await batch.p;
    } catch (e) {
      this.dropAhead();
      throw e;
    }
    this.ahead.shift();
    this.lastContact = Date.now();
    if (blocks.length === 0 || blocks[blocks.length - 1]!.block.number < batch.to) {
      // The RPC does not have blocks it counted in its head (a load-balanced RPC, a head that moved back): ask again.
      this.rpcHead = null;
      this.dropAhead();
      if (blocks.length === 0) return 0;
    }
    // The batch must continue the stored head, and each block its predecessor; else a reorg happened.
    let expectParent = this.head?.hash ?? null;
    let usable = 0;
    for (const d of blocks) {
      if (expectParent !== null && bytesToHex(d.block.parentHash) !== bytesToHex(expectParent)) break;
      expectParent = d.block.hash;
      usable++;
    }
    // A batch cut short (a reorg, or an RPC behind its own head) invalidates what was fetched after it.
    const following = this.ahead[0];
    if (
      usable < blocks.length ||
      (following && (blocks.length === 0 || blocks[blocks.length - 1]!.block.number !== following.from - 1n))
    )
      this.dropAhead();
    if (usable === 0) {
      if (this.head) await this.checkReorg(signal);
      return 0;
    }
    const take = blocks.slice(0, usable);
    const chainId = this.chainId!;
    let cumulative: bigint;
    try {
      const chain = {chainId, blockchainId: this.blockchainId, rollups: this.opts.rollups !== false};
      const before = this.cumulativeTxs;
      cumulative = await this.modules.sql.transaction((tx) => writeBlocks(tx, chain, take, before));
    } catch (e) {
      const first = take[0]!.block;
      const last = take[take.length - 1]!.block;
      throw new EvmFoldError(first.number, last.number, take.length === 1 ? "0x" + bytesToHex(first.hash) : null, e);
    }
    this.cumulativeTxs = cumulative;
    const last = take[take.length - 1]!.block;
    this.head = {number: last.number, hash: last.hash};
    this.modules.metrics?.blocks(chainId, take.length);
    this.modules.metrics?.txs(
      chainId,
      take.reduce((a, d) => a + d.txs.length, 0),
    );
    this.waiters.splice(0).forEach((w) => w());
    this.tokenLane.wake();
    this.traceLane.wake();
    return take.length;
  }

  private dropAhead(): void {
    this.ahead.length = 0;
  }

  private async fetch(from: bigint, to: bigint, signal: AbortSignal): Promise<DerivedBlock[]> {
    const {rpc} = this.modules;
    const numbers: bigint[] = [];
    for (let n = from; n <= to; n++) numbers.push(n);
    const calls: RpcCall[] = [];
    for (const n of numbers) {
      calls.push({method: "eth_getBlockByNumber", params: [toQuantity(n), true]});
      if (this.blockReceipts) calls.push({method: "eth_getBlockReceipts", params: [toQuantity(n)]});
    }
    const res = await rpc.batch(calls, signal);
    const per = 1 + (this.blockReceipts ? 1 : 0);
    const out: DerivedBlock[] = [];
    for (let i = 0; i < numbers.length; i++) {
      const n = numbers[i]!;
      const [blockR, receiptsR] = [res[i * per]!, this.blockReceipts ? res[i * per + 1]! : null];
      if (!blockR.ok) throw blockR.error;
      if (blockR.result === null) break; // not there yet (a load-balanced RPC behind its own head)
      let receipts: unknown;
      if (receiptsR && !receiptsR.ok && receiptsR.error.code === METHOD_NOT_FOUND) {
        this.blockReceipts = false;
        this.modules.logger.info(
          {chainId: this.chainId},
          "EVM RPC has no eth_getBlockReceipts: fetching receipts per transaction",
        );
      }
      if (receiptsR?.ok) receipts = receiptsR.result;
      else if (receiptsR && receiptsR.error.code !== METHOD_NOT_FOUND) throw receiptsR.error;
      else receipts = await this.receiptsOneByOne(blockR.result, signal);
      try {
        // Its traces are the trace lane's (traceLane.ts).
        out.push(deriveBlock(blockR.result, receipts, null, this.messengers));
      } catch (e) {
        // The blocks before it are folded first: the failing block is then the first of the next batch, fetched and
        // derived again there, and the follower stops (if it must) with everything before it folded.
        if (out.length > 0) break;
        // What the RPC served is not a block: its answer, retried like its outages.
        if (e instanceof BlockShapeError) {
          throw new RetryableError(`block ${n} from ${rpc.label} is malformed: ${e.message}`);
        }
        const hash = (blockR.result as {hash?: unknown}).hash;
        throw new EvmFoldError(n, n, typeof hash === "string" ? hash : null, e);
      }
      const got = out[out.length - 1]!.block.number;
      if (got !== n) throw new RetryableError(`asked ${rpc.label} for block ${n}, got block ${got}`);
    }
    return out;
  }

  private async receiptsOneByOne(block: unknown, signal: AbortSignal): Promise<unknown[]> {
    const txs = (block as {transactions?: Array<{hash?: string}>}).transactions ?? [];
    if (txs.length === 0) return [];
    const res = await this.modules.rpc.batch(
      txs.map((t) => ({method: "eth_getTransactionReceipt", params: [t.hash]})),
      signal,
    );
    return res.map((r) => {
      if (!r.ok) throw r.error;
      return r.result;
    });
  }

  /**
   * Finds the newest stored block the RPC still has, and rolls the view back to it. An RPC whose head is below
   * the view's, on the same chain, is behind (a restarting node, a load balancer's lagging backend), not reorged:
   * the view waits for it. The ancestor is looked for `maxReorgDepth` blocks below the head at most: none there
   * stops the follower at the stored block the RPC disagrees on (ReorgTooDeepError), with the store as it was.
   */
  private async checkReorg(signal: AbortSignal): Promise<void> {
    const {sql, rpc, logger} = this.modules;
    const chainId = this.chainId!;
    const probe = this.rpcHead !== null && this.rpcHead < this.head!.number ? this.rpcHead : this.head!.number;
    const atProbe = await storedHash(sql, chainId, probe);
    const top = await rpc.call<{hash?: string} | null>("eth_getBlockByNumber", [toQuantity(probe), false], signal);
    if (atProbe && top && typeof top.hash === "string" && top.hash.toLowerCase() === "0x" + bytesToHex(atProbe)) return;
    // The lowest block the ancestor may be (-1: genesis, everything refolded).
    const depth = BigInt(this.opts.maxReorgDepth);
    const floor = depth > 0n ? this.head!.number - depth : -1n;
    const tooDeep = (): ReorgTooDeepError => {
      const theirs = top && typeof top.hash === "string" ? top.hash.toLowerCase() : "none";
      const ours = atProbe ? "0x" + bytesToHex(atProbe) : null;
      const cause = new Error(
        `the RPC's block ${probe} is ${theirs}, the store's ${ours ?? "(none)"}, and no stored block down to ${floor} is on the RPC's chain: ` +
          `a reorg deeper than --evm-max-reorg-depth ${this.opts.maxReorgDepth} (another chain behind the same URL?); not rolled back`,
      );
      return new ReorgTooDeepError(new EvmFoldError(probe, probe, ours, cause));
    };
    let n = probe;
    for (;;) {
      if (n < floor) throw tooDeep();
      const low = n - 31n < 0n ? 0n : n - 31n < floor ? floor : n - 31n;
      const stored = await storedHashes(sql, chainId, low, n);
      if (stored.length === 0) break;
      const res = await rpc.batch(
        stored.map((s) => ({method: "eth_getBlockByNumber", params: [toQuantity(s.number), false]})),
        signal,
      );
      for (let i = 0; i < stored.length; i++) {
        const r = res[i]!;
        if (!r.ok) throw r.error;
        const remote = r.result as {hash?: string} | null;
        if (
          remote &&
          typeof remote.hash === "string" &&
          remote.hash.toLowerCase() === "0x" + bytesToHex(stored[i]!.hash)
        ) {
          if (stored[i]!.number === this.head!.number) return; // no reorg: the RPC is merely behind
          await this.rollback(stored[i]!.number, stored[i]!.hash);
          return;
        }
      }
      if (low === 0n) break;
      n = low - 1n;
    }
    if (floor >= 0n) throw tooDeep();
    logger.warn({chainId}, "EVM follower: no stored block is on the RPC's chain; refolding from genesis");
    await this.rollback(-1n, null);
  }

  private async rollback(to: bigint, hash: Uint8Array | null): Promise<void> {
    const chainId = this.chainId!;
    // An RPC that now serves another chain is a misconfiguration, not a reorg: refuse rather than refold.
    const answered = await this.askChainId(this.abort.signal);
    if (answered !== chainId) {
      const url = this.modules.rpc.label;
      throw new RetryableError(`${url} now answers chain ID ${answered}, not ${chainId}: not following it`);
    }
    const dropped = this.head!.number - to;
    this.cumulativeTxs = await this.modules.sql.transaction((tx) => rollbackTo(tx, chainId, to, hash));
    this.head = hash === null ? null : {number: to, hash};
    this.tokenLane.wake();
    this.traceLane.wake();
    this.modules.metrics?.reorg(chainId);
    this.modules.logger.warn(
      {chainId, ancestor: to, dropped},
      "EVM follower: reorg; rolled back to the common ancestor",
    );
  }
}

function bigMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
