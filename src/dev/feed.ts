/**
 * `--feed dev` (what config/default.json, and so `npm start`, runs): a deterministic local network. Every tick it
 * accepts a block on C, one or more on P (a reward's proposal and commit blocks come before the tick's standard
 * block) and the tick's X transactions,
 * carrying the real signed transactions of src/dev/primaryNetwork.ts.
 *
 * The X-chain begins as mainnet's did, before Cortina: a DAG. Each X transaction is accepted in a vertex of its own
 * (X/vtx; the transaction itself goes to X/tx, as the avalanche engine's tx acceptor indexes it), whose parents are
 * the vertices of the transactions it spends from in the same tick, else the DAG's frontier. At the Cortina tick
 * the stop vertex (parents: the frontier) is accepted and the chain is linearised as `vms/avm/vm.go` Linearize does:
 * its genesis block (height 0, parent the stop vertex, not indexed: it is state, not an accepted block) and from
 * then on X blocks (X/block; X/tx is no longer populated, as in AvalancheGo after Cortina). The Cortina tick is
 * DEV_SCHEDULE.cortina, or half the backfill's ticks when that is less; without a backfill the network is
 * linearised at its first tick, as AvalancheGo's bootstrapper does for a network created after Cortina (its stop
 * vertex, built locally, is not indexed).
 *
 * On a fresh database
 * it first backfills `backfillMs` of history at a coarser pace, so every view has data at once, then follows real
 * time. The schedule's start and next tick are stored in the position; a restart replays the schedule (it is
 * deterministic) to rebuild the wallets, heights and parents, and continues the same network.
 *
 * With its EVMs (the default), the C-chain's inner blocks are a real EVM's (anvil), and a second anvil runs the
 * dev L1's chain from the tick after its conversion; both carry the interchain contracts, the application
 * traffic between them and the relayer's deliveries (src/dev/evm/interchain.ts), and the L1's validator manager
 * sends the messages its RegisterL1ValidatorTx and SetL1ValidatorWeightTx carry (src/dev/evm/validatorManager.ts).
 * The L1's blocks are not
 * containers of the primary network: they are served by its JSON-RPC only, as an L1's are.
 */
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from "node:fs";
import path from "node:path";
import type {NetworkInfo} from "../chains/index.js";
import {devGenesisText} from "./genesis.js";
import type {NetworkGenesis} from "../genesis/build.js";
import type {Logger} from "../logger/index.js";
import {DEV_EVM_CHAIN_ID, DevEvmChain, corethBlock} from "./evm/devChain.js";
import {installIcm} from "./evm/icm.js";
import {DEV_ANVIL_ACCOUNTS, DevInterchain, devRelayerSigner, type DevEvmName, type MinedRef} from "./evm/interchain.js";
import {ANVIL_ACCOUNTS, DevEvmTraffic, type EthTxRequest} from "./evm/traffic.js";
import {L1_MANAGER_OWNER, installValidatorManager, managerCalldata} from "./evm/validatorManager.js";
import {toQuantity} from "../evm/hex.js";
import {bytesToHex} from "../evm/hex.js";
import type {RpcGuard} from "../evm/rpc.js";
import {avmSpentTxIds} from "../decode/avm.js";
import {buildAvmBlock, buildBanffBlock, buildCBlock, buildStopVertex, buildVertex} from "../decode/builders.js";
import {decodeEvmBlock} from "../decode/coreth.js";
import {buildProposerBlock} from "../decode/proposervm.js";
import {
  DEV_L1_EVM_CHAIN_ID,
  DEV_L1_MANAGER,
  DEV_SCHEDULE,
  DevPrimaryNetwork,
  GENESIS_STAKE,
  LOCAL_VALIDATORS,
  localSigner,
  type L1ManagerCall,
} from "./primaryNetwork.js";
import {decodeProposerBlock} from "../decode/proposervm.js";
import {cb58Encode, idFromString} from "../util/cb58.js";
import {sha256} from "../util/sha256.js";
import type {RawRpc} from "./evm/traffic.js";
import {findEndpoint} from "../containerIndex/endpoints.js";
import type {FeedStatus} from "../feed/status.js";
import {sleep, type FeedBatch, type FeedItem, type FeedSource} from "../feed/types.js";

export interface DevFeedOptions {
  /** History to backfill on a fresh database, ms (0 = none). */
  backfillMs: number;
  /** Time between backfilled ticks, ms. */
  backfillStepMs: number;
  /** Time between live ticks, ms. */
  liveStepMs: number;
  /** Ticks per committed batch during backfill. */
  batchTicks: number;
  /**
   * Where the network's genesis file (AvalancheGo's format, src/dev/genesis.ts) is written on a fresh start and
   * checked on a restart (`<data-dir>/genesis.json`); null: kept in memory only.
   */
  genesisPath: string | null;
}

export const defaultDevFeedOptions: DevFeedOptions = {
  backfillMs: 7 * 24 * 3_600_000,
  backfillStepMs: 5 * 60_000,
  liveStepMs: 2000,
  batchTicks: 200,
  genesisPath: null,
};

export interface DevFeedModules {
  status: FeedStatus;
  network: NetworkInfo;
  now?: () => number;
  /** Run the C-chain on a real EVM (anvil): its blocks are the C containers' inner blocks. Null: synthetic blocks. */
  evm?: {logger: Logger} | null;
}

/** The last block IDs each chain's next block names as its parent (kept in the position, so restarts link up). */
interface Parents {
  p: Uint8Array;
  x: Uint8Array;
  c: Uint8Array;
  /** The previous EVM block's hash (the inner coreth block's parent). */
  eth: Uint8Array;
  /** The previous inner P and X blocks' IDs (the inner blocks' parents, as on mainnet). */
  pInner: Uint8Array;
  xInner: Uint8Array;
}

interface DevPosition {
  startMs: number;
  liveMs: number;
  tick: number;
  parents: Parents;
}

/**
 * The schedule's version, stored at the end of the position: a schedule that changes what it puts on a chain
 * (the EVMs' accounts, contracts, traffic; the genesis, from 4 on genesis_local.json's) cannot replay a network an
 * earlier one wrote.
 */
const SCHEDULE_VERSION = 4;
const POSITION_LEN = 24 + 6 * 32 + 4;
/** Positions of earlier schedules (without a version; before the inner parents were kept). */
const EARLIER_POSITION_LENS = [24 + 6 * 32, 24 + 4 * 32];

/** Position: schedule start (ms), live start (ms), next tick (u64 each), the six parent IDs, the schedule version. */
function encode(p: DevPosition): Uint8Array {
  const b = new Uint8Array(POSITION_LEN);
  const v = new DataView(b.buffer);
  v.setBigUint64(0, BigInt(p.startMs));
  v.setBigUint64(8, BigInt(p.liveMs));
  v.setBigUint64(16, BigInt(p.tick));
  [p.parents.p, p.parents.x, p.parents.c, p.parents.eth, p.parents.pInner, p.parents.xInner].forEach((id, i) =>
    b.set(id, 24 + 32 * i),
  );
  v.setUint32(POSITION_LEN - 4, SCHEDULE_VERSION);
  return b;
}

export class DevScheduleVersionError extends Error {}

/** The stored position, or null for none; an earlier schedule's is refused (its chains cannot be replayed). */
function storedPosition(b: Uint8Array | null): DevPosition | null {
  if (!b) return null;
  const version =
    b.length === POSITION_LEN
      ? new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(POSITION_LEN - 4)
      : EARLIER_POSITION_LENS.includes(b.length)
        ? 1
        : null;
  if (version === SCHEDULE_VERSION) return decode(b);
  if (version === null)
    throw new DevScheduleVersionError(
      `the stored dev-feed position (${b.length} bytes) is not one this version writes`,
    );
  throw new DevScheduleVersionError(
    `this data directory holds a dev network written by an earlier avaext (schedule ${version}, this one runs ${SCHEDULE_VERSION}): its chains cannot be replayed. Delete the data directory, or start with another --data-dir`,
  );
}

function decode(b: Uint8Array): DevPosition {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const id = (i: number): Uint8Array => b.slice(24 + 32 * i, 56 + 32 * i);
  return {
    startMs: Number(v.getBigUint64(0)),
    liveMs: Number(v.getBigUint64(8)),
    tick: Number(v.getBigUint64(16)),
    parents: {p: id(0), x: id(1), c: id(2), eth: id(3), pInner: id(4), xInner: id(5)},
  };
}

/** The dev network's chain state while the feed runs: rebuilt on every start by replaying the schedule. */
interface DevChains {
  net: DevPrimaryNetwork;
  pHeight: bigint;
  /** The last X block's height (0: the linearised chain's genesis block). */
  xHeight: bigint;
  /** The tick of Cortina (cortinaTick). */
  cortina: number;
  /** Before Cortina: the DAG's frontier, the vertices without children. */
  frontier: Vertex[];
  /** The last C block's time (anvil needs each block later than its parent). */
  cTime: number;
  /** The EVMs' traffic, fresh for every replay (their nonces start from zero). */
  traffic: DevEvmTraffic | null;
  interchain: DevInterchain | null;
  /** The blocks the EVMs mined at the previous tick (what the relayer reads). */
  mined: Record<DevEvmName, MinedRef | null>;
  /** The L1 validator manager owner's next nonce on the L1's EVM. */
  managerNonce: number;
}

interface Vertex {
  id: Uint8Array;
  height: bigint;
}

/** Appends one container to a tick's items. */
type AddItem = (
  chain: "P" | "X" | "C",
  kind: "block" | "vtx" | "tx",
  bytes: Uint8Array,
  id: Uint8Array,
  checksum?: Uint8Array | null,
) => void;

/**
 * The tick at which a schedule of `backfillTicks` backfilled ticks linearises its X-chain: DEV_SCHEDULE.cortina, or
 * half the backfill when that is less (so both eras have data). Fixed by the stored position's times.
 */
export function cortinaTick(backfillTicks: number): number {
  return Math.min(DEV_SCHEDULE.cortina, Math.floor(backfillTicks / 2));
}

/** The dev L1's EVM mines its first block at the tick after the conversion (its validators can sign from then). */
const L1_FIRST_TICK = DEV_SCHEDULE.conversion + 1;

export class DevFeed implements FeedSource {
  readonly key = "dev";
  private readonly now: () => number;
  private chains: DevChains | null = null;
  /** The position the feed starts from, fixed by prepare() (the EVM's genesis time depends on it). */
  private start: DevPosition | null = null;
  /** The genesis file's text, fixed by prepare() with the start. */
  private genesis: string | null = null;
  /** The genesis built, kept for the wallets the feed replays (DevPrimaryNetwork). */
  private readonly genesisCache = new Map<string, NetworkGenesis>();
  private evm: DevEvmChain | null = null;
  /** The dev L1's EVM, and its blockchain ID (the subnet's chain, fixed by the schedule). */
  private l1: DevEvmChain | null = null;
  private l1ChainId: Uint8Array | null = null;

  constructor(
    private readonly opts: DevFeedOptions,
    private readonly modules: DevFeedModules,
  ) {
    this.now = modules.now ?? Date.now;
  }

  /**
   * Fixes the starting position (the stored one, or a new schedule from now) and starts the dev EVM at the
   * schedule's genesis time. Called by the composition root before the data API is built, so its EVM follower
   * has a URL to follow; run() calls it too.
   */
  async prepare(position: Uint8Array | null): Promise<void> {
    if (this.start) return;
    let start = storedPosition(position);
    if (!start) {
      const now = this.now();
      const backfillTicks = Math.floor(this.opts.backfillMs / this.opts.backfillStepMs);
      const zero = new Uint8Array(32);
      start = {
        startMs: now - backfillTicks * this.opts.backfillStepMs,
        liveMs: now,
        tick: 0,
        parents: {p: zero, x: zero, c: zero, eth: zero, pInner: zero, xInner: zero},
      };
    }
    const genesis = this.genesisFile(start, position !== null);
    if (this.modules.evm) await this.startEvms(start, this.modules.evm.logger);
    // Fixed only once the EVMs run: a failed start leaves nothing behind, and a later prepare() tries again.
    this.start = start;
    this.genesis = genesis;
  }

  /**
   * The network's genesis file: written for a new schedule; for a stored one read back, and refused unless it is
   * the one this schedule's network started from (another file would be another network).
   */
  private genesisFile(start: DevPosition, stored: boolean): string {
    const text = devGenesisText(this.modules.network.id, devGenesisTime(start.startMs));
    const file = this.opts.genesisPath;
    if (file === null) return text;
    if (stored && existsSync(file)) {
      const onDisk = readFileSync(file, "utf8");
      if (onDisk !== text)
        throw new Error(
          `${file} is not the genesis of the dev network this data directory holds: delete the data directory, or restore that file`,
        );
      return onDisk;
    }
    mkdirSync(path.dirname(file), {recursive: true});
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
    return text;
  }

  /** The dev network's genesis file's text (AvalancheGo's format); prepare() fixes it. */
  genesisText(): string {
    if (this.genesis === null) throw new Error("the dev feed's genesis is fixed by prepare()");
    return this.genesis;
  }

  /** Starts both dev EVMs at the schedule's genesis; if either fails, stops the other and throws. */
  private async startEvms(start: DevPosition, logger: Logger): Promise<void> {
    const genesisTimestamp = Number(devGenesisTime(start.startMs));
    const net = this.modules.network;
    // The L1's chain ID is its CreateChainTx's ID: the schedule replayed up to that tick tells it.
    const scout = new DevPrimaryNetwork(net, devGenesisTime(start.startMs), this.genesisCache);
    const tickTime = this.tickTimes(start);
    for (let t = 0; t <= DEV_SCHEDULE.chain; t++) scout.tick(t, BigInt(Math.floor(tickTime(t) / 1000)));
    const l1ChainId = scout.l1ChainId()!;
    const subnetId = scout.subnetId()!;
    const install = (blockchainId: Uint8Array) => (rpc: RawRpc) =>
      installIcm(rpc, {networkId: net.id, blockchainId: bytesToHex(blockchainId)});
    const l1Setup = async (rpc: RawRpc): Promise<void> => {
      await install(l1ChainId)(rpc);
      await installValidatorManager(rpc, subnetId);
    };
    const [c, l1] = await Promise.allSettled([
      DevEvmChain.start(
        {chainId: DEV_EVM_CHAIN_ID, genesisTimestamp, accounts: DEV_ANVIL_ACCOUNTS},
        {logger, setup: install(idFromString(net.chainIds.C))},
      ),
      DevEvmChain.start(
        {chainId: DEV_L1_EVM_CHAIN_ID, genesisTimestamp, accounts: DEV_ANVIL_ACCOUNTS},
        {logger, setup: l1Setup},
      ),
    ]);
    const failed = [c, l1].find((x) => x.status === "rejected");
    if (failed) {
      await Promise.all([c, l1].map((x) => (x.status === "fulfilled" ? x.value.stop() : undefined)));
      throw failed.reason;
    }
    this.evm = (c as PromiseFulfilledResult<DevEvmChain>).value;
    this.l1 = (l1 as PromiseFulfilledResult<DevEvmChain>).value;
    this.l1ChainId = l1ChainId;
  }

  /** When tick `t` of the schedule starting at `pos` is due (ms): the backfill's pace, then the live one. */
  private tickTimes(pos: DevPosition): (t: number) => number {
    return devTickTimes(this.opts, pos.startMs, pos.liveMs);
  }

  private backfillTicks(pos: DevPosition): number {
    return Math.round((pos.liveMs - pos.startMs) / this.opts.backfillStepMs);
  }

  /** A dev EVM's JSON-RPC URL (it changes when the EVM restarts), or null without one. */
  evmUrl(chain: DevEvmName = "C"): string | null {
    return this.evmOf(chain)?.url ?? null;
  }

  /** What every client of a dev EVM runs its requests through (DevEvmChain.guard), or null without one. */
  evmGuard(chain: DevEvmName = "C"): RpcGuard | null {
    return this.evmOf(chain)?.guard ?? null;
  }

  /** A dev EVM's process ID, or null without one. */
  evmPid(chain: DevEvmName = "C"): number | null {
    return this.evmOf(chain)?.pid ?? null;
  }

  /** The dev L1's blockchain ID (CB58), or null without the dev EVMs. */
  l1BlockchainId(): string | null {
    return this.l1ChainId ? cb58Encode(this.l1ChainId) : null;
  }

  /** Why a dev EVM is down, or null (also null without them). */
  evmFailure(): string | null {
    const c = this.evm?.failure() ?? null;
    const l1 = this.l1?.failure() ?? null;
    return c ? `C-chain EVM: ${c}` : l1 ? `L1 EVM: ${l1}` : null;
  }

  private evmOf(chain: DevEvmName): DevEvmChain | null {
    return chain === "C" ? this.evm : this.l1;
  }

  async close(): Promise<void> {
    await Promise.all([this.evm?.stop(), this.l1?.stop()]);
  }

  async run(
    position: Uint8Array | null,
    sink: (batch: FeedBatch) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const {status} = this.modules;
    await this.prepare(position);
    // A restart after a failed batch resumes from the committed position, not from where prepare() started.
    let pos: DevPosition = storedPosition(position) ?? this.start!;
    const tickTime = this.tickTimes(pos);
    // The wallets, heights and parents after the committed ticks: the schedule replayed (it is deterministic).
    const net = new DevPrimaryNetwork(this.modules.network, devGenesisTime(pos.startMs), this.genesisCache);
    const cortina = cortinaTick(this.backfillTicks(pos));
    const cTime = Number(devGenesisTime(pos.startMs));
    const mined = {C: null, L1: null};
    const empty = {traffic: null, interchain: null, mined, managerNonce: 0};
    this.chains = {net, pHeight: 0n, xHeight: 0n, cortina, frontier: [], cTime, ...empty};
    // The EVMs replay from genesis too; one that holds blocks (an earlier run of this process), has exited or
    // does not answer starts afresh.
    for (const [name, evm] of [
      ["C-chain", this.evm],
      ["L1", this.l1],
    ] as const) {
      if (!evm) continue;
      let down = evm.failure();
      let height: bigint | null = null;
      if (down === null) {
        try {
          height = await evm.height();
        } catch (e) {
          down = `does not answer: ${(e as Error).message}`;
        }
      }
      if (down !== null)
        this.modules.evm!.logger.error(
          {chain: name, reason: down},
          "the dev EVM is down: starting a fresh one and replaying the schedule into it",
        );
      if (height !== 0n || !evm.fresh) await evm.reset();
    }
    if (this.evm && this.l1) {
      const blsKeys = LOCAL_VALIDATORS.map((_, i) => Buffer.from(localSigner(i + 1).credentials.publicKey, "hex"));
      const primary = LOCAL_VALIDATORS.map((nodeId, i) => ({nodeId, weight: GENESIS_STAKE, blsPublicKey: blsKeys[i]!}));
      const sign = devRelayerSigner({
        chains: {
          C: {id: idFromString(this.modules.network.chainIds.C), rpc: this.evm},
          L1: {id: this.l1ChainId!, rpc: this.l1},
        },
        // The primary network's: the genesis validators and the dev network's own; the L1's: its set on the P-chain.
        validators: (source) => (source === "C" ? [...primary, ...net.ownValidators()] : net.l1Validators()),
      });
      this.chains.traffic = new DevEvmTraffic({accounts: [...ANVIL_ACCOUNTS]});
      this.chains.interchain = new DevInterchain(
        {
          networkId: this.modules.network.id,
          cChainId: idFromString(this.modules.network.chainIds.C),
          l1ChainId: this.l1ChainId!,
          l1FirstTick: L1_FIRST_TICK,
        },
        {sign},
      );
    }
    const zero = new Uint8Array(32);
    const replayed: Parents = {p: zero, x: zero, c: zero, eth: zero, pInner: zero, xInner: zero};
    for (let t = 0; t < pos.tick && !signal.aborted; t++) await this.tickItems(t, tickTime(t), replayed);
    pos = {...pos, parents: replayed};

    status.sent();
    status.received();
    while (!signal.aborted) {
      const now = this.now();
      const items: FeedItem[] = [];
      let t = pos.tick;
      const parents = {...pos.parents};
      // Everything due is accepted at once (the backfill, or ticks missed while stopped), in bounded batches.
      while (tickTime(t) <= now && t - pos.tick < this.opts.batchTicks) {
        items.push(...(await this.tickItems(t, tickTime(t), parents)));
        t++;
      }
      if (items.length > 0) {
        pos = {...pos, tick: t, parents};
        await sink({items, position: encode(pos)});
        status.sent();
        status.received();
        continue;
      }
      status.setCaughtUp(true);
      status.sent();
      status.received();
      await sleep(Math.max(10, Math.min(tickTime(t) - now, 1000)), signal);
    }
  }

  /** The manager owner's transaction for a manager call (its nonces count from the L1's genesis). */
  private managerTx(chains: DevChains, call: L1ManagerCall): EthTxRequest {
    const nonce = toQuantity(chains.managerNonce++);
    const data = managerCalldata(call);
    return {from: L1_MANAGER_OWNER, to: DEV_L1_MANAGER, data, nonce, gas: MANAGER_GAS, ...MANAGER_FEES};
  }

  /** The containers of one tick, in acceptance order; advances `parents`. */
  private async tickItems(tickNo: number, timeMs: number, parents: Parents): Promise<FeedItem[]> {
    const ns = BigInt(timeMs) * 1_000_000n;
    const ts = Math.floor(timeMs / 1000);
    const height = tickNo + 1;
    const net = this.modules.network;
    const chainId = (c: "P" | "X" | "C"): Uint8Array => idFromString(net.chainIds[c]);
    const base = {networkId: net.id, height, timestamp: ts, pChainHeight: BigInt(height)};
    const out: FeedItem[] = [];
    const add: AddItem = (chain, kind, bytes, id, checksum = null) => {
      out.push({
        chain,
        kind,
        endpoint: findEndpoint(chain, kind)!,
        bytes,
        id,
        timestampNs: ns + BigInt(out.length),
        checksum,
      });
    };

    const chains = this.chains!;
    const tick = chains.net.tick(tickNo, BigInt(ts));
    for (const b of tick.pBlocks) {
      const height = ++chains.pHeight;
      const inner = buildBanffBlock(b.kind, {time: b.time, parentId: parents.pInner, height, txs: b.txs});
      const p = buildProposerBlock(parents.p, Number(b.time), height, inner);
      parents.p = decodeProposerBlock(p).id;
      parents.pInner = sha256(inner);
      add("P", "block", p, parents.p);
    }

    let c: Uint8Array;
    if (this.evm && this.l1) {
      chains.cTime = Math.max(ts, chains.cTime + 1);
      const icm = await chains.interchain!.txsForTick(tickNo, chains.mined);
      const mined = await this.evm.mine(tickNo, chains.cTime, [...chains.traffic!.txsForTick(tickNo), ...icm.C]);
      chains.mined.C = {rpc: this.evm, blockHash: "0x" + bytesToHex(mined.hash)};
      const l1Txs = [...icm.L1, ...tick.l1Manager.map((call) => this.managerTx(chains, call))];
      chains.mined.L1 = null;
      if (tickNo >= L1_FIRST_TICK) {
        const l1Block = await this.l1.mine(tickNo, chains.cTime, l1Txs);
        chains.mined.L1 = {rpc: this.l1, blockHash: "0x" + bytesToHex(l1Block.hash)};
      }
      c = buildProposerBlock(parents.c, chains.cTime, base.pChainHeight, corethBlock(mined, tick.cAtomic));
    } else {
      c = buildCBlock({
        ...base,
        chainId: chainId("C"),
        parentId: parents.c,
        parentHash: parents.eth,
        txs: 2 + (tickNo % 5),
        extData: tick.cAtomic ?? undefined,
      });
    }
    const wrapped = decodeProposerBlock(c);
    parents.c = wrapped.id;
    parents.eth = decodeEvmBlock(wrapped.inner).hash;
    add("C", "block", c, parents.c);

    if (tickNo < chains.cortina) {
      this.vertices(chainId("X"), tick.xTxs, add);
      return out;
    }
    if (tickNo === chains.cortina) this.linearize(chainId("X"), BigInt(ts), parents, add);
    const xHeight = ++chains.xHeight;
    const xInner = buildAvmBlock({time: BigInt(ts), parentId: parents.xInner, height: xHeight, txs: tick.xTxs});
    const x = buildProposerBlock(parents.x, ts, chains.pHeight, xInner);
    parents.x = decodeProposerBlock(x).id;
    parents.xInner = sha256(xInner);
    add("X", "block", x, parents.x);
    return out;
  }

  /**
   * A pre-Cortina tick's X transactions, each in a vertex of its own, in acceptance order (a tx before its vertex,
   * as the avalanche engine accepts them). A vertex's parents are the vertices of the transactions it spends from in
   * this tick, else the frontier the tick began with; its height is one above its highest parent's.
   */
  private vertices(chainId: Uint8Array, txs: Uint8Array[], add: AddItem): void {
    const chains = this.chains!;
    const start = chains.frontier;
    const placed: Array<Vertex & {txId: string}> = [];
    const withChildren = new Set<Vertex>();
    for (const tx of txs) {
      const txId = sha256(tx);
      const spent = new Set(avmSpentTxIds(tx).map(bytesToHex));
      const deps = placed.filter((v) => spent.has(v.txId));
      const parentsOf: Vertex[] = deps.length > 0 ? deps : start;
      const height = parentsOf.reduce((h, v) => (v.height + 1n > h ? v.height + 1n : h), 0n);
      const vtx = buildVertex({chainId, height, parentIds: parentsOf.map((v) => v.id), txs: [tx]});
      add("X", "tx", tx, txId, txId.subarray(28));
      const id = sha256(vtx);
      add("X", "vtx", vtx, id);
      for (const d of deps) withChildren.add(d);
      placed.push({id, height, txId: bytesToHex(txId)});
    }
    if (placed.length === 0) return;
    chains.frontier = placed.filter((v) => !withChildren.has(v)).map(({id, height}) => ({id, height}));
  }

  /**
   * Cortina: the stop vertex on the frontier (accepted and indexed, as a node bootstrapping mainnet's well-known stop
   * vertex indexes it; a network with no DAG builds it locally and indexes nothing), then the linearised chain's
   * genesis block (`vms/avm/state/state.go` initializeChainState: parent the stop vertex, height 0, no txs), which
   * the first X block names as its parent. Its time is the Cortina tick's: AvalancheGo stamps it with the network's
   * configured Cortina time, which for the dev network is the moment its schedule linearises the chain.
   */
  private linearize(chainId: Uint8Array, time: bigint, parents: Parents, add: AddItem): void {
    const chains = this.chains!;
    const frontier = chains.frontier;
    const height = frontier.reduce((h, v) => (v.height + 1n > h ? v.height + 1n : h), 0n);
    const stop = buildStopVertex({chainId, height, parentIds: frontier.map((v) => v.id)});
    if (frontier.length > 0) add("X", "vtx", stop, sha256(stop));
    chains.frontier = [];
    const genesis = buildAvmBlock({time, parentId: sha256(stop), height: 0n, txs: [], root: new Uint8Array(32)});
    chains.xHeight = 0n;
    parents.x = sha256(genesis);
    parents.xInner = parents.x;
  }
}

/** Gas and fees of the manager owner's calls (explicit, so a replay gives the same blocks). */
const MANAGER_GAS = toQuantity(400_000);
const MANAGER_FEES = {maxFeePerGas: toQuantity(100n * 10n ** 9n), maxPriorityFeePerGas: toQuantity(10n ** 9n)};

/** When tick `t` of a schedule that starts at `startMs` and goes live at `liveMs` is due (ms). */
export function devTickTimes(
  opts: Pick<DevFeedOptions, "backfillStepMs" | "liveStepMs">,
  startMs: number,
  liveMs: number,
): (t: number) => number {
  const backfillTicks = Math.round((liveMs - startMs) / opts.backfillStepMs);
  return (t) =>
    t < backfillTicks ? startMs + t * opts.backfillStepMs : liveMs + (t - backfillTicks) * opts.liveStepMs;
}

/** The dev network's genesis time (seconds): a minute before its schedule's first tick. */
export function devGenesisTime(startMs: number): bigint {
  return BigInt(Math.floor(startMs / 1000) - 60);
}
