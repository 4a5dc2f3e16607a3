/**
 * The primary-network view: follows the container index (contract data-api §3). For each folded endpoint it reads
 * the containers after its position, in index order (so only committed ones), decodes them and writes their rows
 * and the new position in ONE SQL transaction: a crash or kill -9 at any moment resumes exactly, nothing lost or
 * folded twice. A container that does not decode is logged, counted and skipped; its position still advances.
 *
 * X/tx is not folded: its transactions also arrive inside X vertices (before Cortina) and X blocks (after).
 */
import type {NetworkInfo} from "../../../chains/index.js";
import {findEndpoint, type Endpoint} from "../../../index/endpoints.js";
import type {IndexStore, StoredContainer} from "../../../index/store.js";
import type {Logger} from "../../../logger/index.js";
import {idToString} from "../../../util/cb58.js";
import {bulkInsert, type BulkColumn} from "../../store/bulk.js";
import type {SqlClient, SqlTx} from "../../store/client.js";
import {DecodePool, type DecodeResult} from "./decodePool.js";
import type {GenesisState, PrimaryContainer, PrimaryTx, TxOutput} from "./model.js";
import {
  BLOCK_COLUMNS,
  TX_COLUMNS,
  UTXO_CONSUME_COLUMNS,
  UTXO_CREATE_COLUMNS,
  VERTEX_COLUMNS,
  blockRow,
  credentialsJson,
  distinctBytes,
  ownedAddresses,
  txRow,
  utxoCreateRow,
  vertexRow,
  type TxPlace,
} from "./rows.js";
import {SignerKeys} from "./signerKeys.js";
import {StakingFold, type TxEffects} from "./stakingFold.js";
import type {ViewMetrics} from "../metrics.js";

export interface PrimaryViewOptions {
  /** Containers folded per SQL transaction. */
  batchSize: number;
  /** Wait between polls of the index when the view has caught up, ms. */
  idleMs: number;
  /** Batches of one endpoint folded before the next endpoint's turn. */
  batchesPerRound: number;
  /** Worker threads that decode (0: decode on the main thread). */
  decodeThreads: number;
}

export const defaultPrimaryViewOptions: PrimaryViewOptions = {batchSize: 256, idleMs: 200, batchesPerRound: 8, decodeThreads: 1};

/** A batch read from the index and decoded, ready to fold. */
interface Prepared {
  containers: StoredContainer[];
  results: DecodeResult[];
}

export interface PrimaryViewModules {
  index: IndexStore;
  sql: SqlClient;
  network: NetworkInfo;
  /**
   * The network's genesis state, folded with the first P-chain batch; given that batch's first block time (the
   * dev network's genesis follows its schedule). Null when the network's genesis is not known here.
   */
  genesis: ((firstBlockTs: bigint) => GenesisState) | null;
  /** The network's AVAX asset ID (reward UTXOs are in AVAX). */
  avaxAssetId: string;
  logger: Logger;
  metrics: ViewMetrics | null;
}

/** The endpoints folded, in the order each round visits them. */
export const FOLDED_ENDPOINTS: readonly Endpoint[] = [
  findEndpoint("P", "block")!,
  findEndpoint("X", "vtx")!,
  findEndpoint("X", "block")!,
  findEndpoint("C", "block")!,
];

/** The rows of one batch, per table. */
class Batch {
  blocks: unknown[][] = [];
  vertices: unknown[][] = [];
  txs: unknown[][] = [];
  txAddresses: unknown[][] = [];
  assetTxs: unknown[][] = [];
  utxoCreates: unknown[][] = [];
  utxoConsumes = new Map<string, unknown[]>();
  utxoAddresses: unknown[][] = [];
  assets: unknown[][] = [];
  /** Owners of the UTXOs created in this batch (a later transaction of the batch may consume them). */
  createdOwners = new Map<string, Uint8Array[]>();
}

export class PrimaryView {
  private readonly ctrl = new AbortController();
  private running: Promise<void> | null = null;
  private readonly positions = new Map<number, bigint>();
  private readonly seq = {P: 0n, X: 0n, C: 0n, vtx: 0n};
  private readonly staking: StakingFold;
  private readonly pool: DecodePool;
  private readonly signerKeys = new SignerKeys();
  /** The last error of a round (the health check reports it). */
  lastError: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly opts: PrimaryViewOptions,
    private readonly modules: PrimaryViewModules,
  ) {
    this.pool = new DecodePool({threads: opts.decodeThreads});
    this.staking = new StakingFold({network: modules.network, avaxAssetId: modules.avaxAssetId});
  }

  /** Loads the positions (folding the genesis state on a fresh store), then follows the index until close(). */
  async start(): Promise<void> {
    await this.load();
    this.running = this.loop();
  }

  /** Folds what the index holds now, to the end (tests, rebuild). */
  async catchUp(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.round();
      if (n === 0) return total;
      total += n;
    }
  }

  /** Wakes the loop early (the ingester calls it after a commit). */
  notify(): void {
    this.wake?.();
  }

  /** Containers of the folded endpoints not yet folded. */
  lag(): bigint {
    let lag = 0n;
    for (const e of FOLDED_ENDPOINTS) lag += this.modules.index.index(e).next - (this.positions.get(e.id) ?? 0n);
    return lag;
  }

  async close(): Promise<void> {
    this.ctrl.abort();
    this.wake?.();
    await this.running;
    await this.pool.close();
  }

  async load(): Promise<void> {
    const {sql} = this.modules;
    const rows = await sql.query<{endpoint: string; next_index: bigint | string}>("SELECT endpoint, next_index FROM view_positions");
    if (rows.length === 0) {
      await sql.transaction(async (tx) => {
        for (const e of FOLDED_ENDPOINTS) await tx.query("INSERT INTO view_positions (endpoint, next_index) VALUES ($1, 0)", [e.name]);
        await this.saveState(tx);
      });
    }
    for (const r of await sql.query<{endpoint: string; next_index: bigint | string}>("SELECT endpoint, next_index FROM view_positions")) {
      const e = FOLDED_ENDPOINTS.find((x) => x.name === r.endpoint);
      if (e) this.positions.set(e.id, BigInt(r.next_index));
    }
    const meta = await sql.query<{key: string; value: string}>("SELECT key, value FROM data_api_meta WHERE key LIKE 'view.%'");
    const m = new Map(meta.map((r) => [r.key, r.value]));
    this.seq.P = BigInt(m.get("view.seq.P") ?? "0");
    this.seq.X = BigInt(m.get("view.seq.X") ?? "0");
    this.seq.C = BigInt(m.get("view.seq.C") ?? "0");
    this.seq.vtx = BigInt(m.get("view.seq.vtx") ?? "0");
    this.staking.load(m);
  }

  private async loop(): Promise<void> {
    const signal = this.ctrl.signal;
    while (!signal.aborted) {
      let n = 0;
      try {
        n = await this.round();
        this.lastError = null;
      } catch (err) {
        this.lastError = err as Error;
        this.modules.logger.error({err}, "primary-network view: a batch failed to fold; retrying");
        this.modules.metrics?.errors.inc();
        // Positions in memory may be ahead of the store after a failed commit: reload them.
        await this.reloadAfterFailure();
      }
      if (n === 0 && !signal.aborted) await this.idle(n === 0 && this.lastError ? 1000 : this.opts.idleMs);
    }
  }

  private async reloadAfterFailure(): Promise<void> {
    try {
      this.positions.clear();
      await this.load();
    } catch {
      // The store is unreachable; the next round tries again.
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(t);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  /**
   * Up to `batchesPerRound` batches per endpoint that has containers to fold; returns how many containers were
   * folded. The next batch is read and decoded (on the worker threads) while the current one is written.
   */
  private async round(): Promise<number> {
    let total = 0;
    for (const e of FOLDED_ENDPOINTS) {
      const index = this.modules.index.index(e);
      const read = async (from: bigint): Promise<StoredContainer[]> => {
        if (from >= index.next) return [];
        const n = Number(index.next - from < BigInt(this.opts.batchSize) ? index.next - from : BigInt(this.opts.batchSize));
        return index.getRange(from, n);
      };
      // The containers are read first and handed to the decode workers (postMessage is synchronous) before the
      // current batch is folded. PGlite runs a whole fold on microtasks, so anything waiting for an I/O callback
      // (the index read, a worker's answer) would wait for the fold to end, and decoding would not overlap it.
      const decode = (containers: StoredContainer[]): Promise<Prepared> =>
        this.pool.decode(e.chain, e.kind, containers.map((c) => ({bytes: c.bytes, containerId: idToString(c.id)})), true).then((results) => ({containers, results}));
      let containers = await read(this.positions.get(e.id) ?? 0n);
      let pending: Promise<Prepared> | null = containers.length ? decode(containers) : null;
      for (let step = 0; pending !== null && step < this.opts.batchesPerRound && !this.ctrl.signal.aborted; step++) {
        const batch: Prepared = await pending;
        pending = null;
        containers = step + 1 < this.opts.batchesPerRound ? await read(batch.containers[batch.containers.length - 1]!.index + 1n) : [];
        if (containers.length) pending = decode(containers);
        try {
          await this.foldBatch(e, batch);
        } catch (err) {
          pending?.catch(() => {});
          throw err;
        }
        total += batch.containers.length;
      }
      pending?.catch(() => {});
    }
    return total;
  }

  private decoded(e: Endpoint, c: StoredContainer, r: DecodeResult): PrimaryContainer | null {
    if (r.ok) return r.container;
    const reason = r.expected ? r.error : `unexpected: ${r.error}`;
    this.modules.logger.warn({endpoint: e.name, index: c.index.toString(), id: idToString(c.id), reason}, "container does not decode; left out of the data API");
    this.modules.metrics?.undecodable.inc({chain: e.chain, kind: e.kind});
    return null;
  }

  private async foldBatch(e: Endpoint, {containers, results}: Prepared): Promise<void> {
    const started = process.hrtime.bigint();
    const decoded = containers.map((c, i) => ({c, d: this.decoded(e, c, results[i]!)}));
    const chainId = this.modules.network.chainIds[e.chain];
    const seqBefore = {...this.seq};
    const stakingBefore = this.staking.snapshot();
    let txCount = 0;
    try {
      await this.modules.sql.transaction(async (tx) => {
        const batch = new Batch();
        // Owners of the UTXOs this batch consumes that earlier batches created (the addresses filter of a spend).
        const consumedIds = decoded.flatMap(({d}) => (d ? d.txs.flatMap((t) => t.inputs.map((i) => i.utxoId)) : []));
        if (e.chain === "P" && e.kind === "block" && containers[0]!.index === 0n && this.modules.genesis) {
          const first = decoded.find((x) => x.d !== null);
          const ts = first?.d?.timestamp ?? containers[0]!.timestampNs / 1_000_000_000n;
          await this.foldGenesis(tx, this.modules.genesis(ts));
        }
        const owners = await lookupOwners(tx, consumedIds);
        for (const {c, d} of decoded) {
          if (!d) continue;
          const ts = d.timestamp ?? c.timestampNs / 1_000_000_000n;
          if (e.kind === "vtx") batch.vertices.push(vertexRow(d, ++this.seq.vtx, ts));
          await this.staking.beforeBlock(tx, d, ts);
          for (const t of d.txs) {
            const seq = ++this.seq[e.chain];
            const place: TxPlace = {chain: e.chain, chainId, seq, blockId: d.blockId, height: d.height, ts};
            // The staking fold first: what it derives (L1 balances returned, L1 validator details) is written
            // with the transaction's own rows.
            const effects = await this.staking.onTx(tx, t, place);
            this.foldTx(batch, t, place, owners, effects);
            txCount++;
          }
          const supply = e.chain === "P" ? this.staking.supply : null;
          if (e.kind === "block") batch.blocks.push(blockRow(d, ts, supply, e.chain === "P" ? await this.staking.afterBlock(tx) : null));
        }
        await this.write(tx, batch);
        const next = containers[containers.length - 1]!.index + 1n;
        await tx.query("UPDATE view_positions SET next_index = $2 WHERE endpoint = $1", [e.name, next]);
        await this.saveState(tx);
      });
    } catch (err) {
      Object.assign(this.seq, seqBefore);
      this.staking.restore(stakingBefore);
      throw err;
    }
    this.positions.set(e.id, containers[containers.length - 1]!.index + 1n);
    const m = this.modules.metrics;
    if (m) {
      m.containers.inc({chain: e.chain, kind: e.kind}, containers.length);
      m.txs.inc({chain: e.chain}, txCount);
      m.batchSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  private foldTx(batch: Batch, t: PrimaryTx, place: TxPlace, owners: Map<string, Uint8Array[]>, effects: TxEffects): void {
    batch.txs.push(txRow(t, place, effects.l1));
    const touched: Uint8Array[] = ownedAddresses(t);
    for (const o of t.outputs) this.createUtxo(batch, t.id, o, place);
    for (const o of effects.refunds) {
      this.createUtxo(batch, t.id, o, place);
      touched.push(...o.owner.addresses);
    }
    for (const i of t.inputs) {
      const known = batch.createdOwners.get(i.utxoId) ?? owners.get(i.utxoId);
      if (known) touched.push(...known);
      // The signers' addresses, from the keys recovered: the owner when the creating transaction is not folded yet
      // (an import folded before its export).
      touched.push(...this.signerKeys.fill(i, known, t.unsignedHash));
      if (!batch.utxoConsumes.has(i.utxoId)) {
        batch.utxoConsumes.set(i.utxoId, [
          i.utxoId,
          i.txId,
          i.outputIndex,
          place.chainId,
          t.id,
          place.blockId,
          place.height,
          place.ts,
          credentialsJson(i.credentials),
        ]);
      }
    }
    for (const a of distinctBytes(touched)) batch.txAddresses.push([place.chain, a, place.seq]);
    if (place.chain === "X") {
      const assets = new Set<string>([...t.inputs.map((i) => i.assetId), ...t.outputs.map((o) => o.assetId)]);
      if (t.details.asset) {
        assets.add(t.id);
        // Without a mint output the supply is fixed at what the initial state creates (the `cap`); else variable.
        const minted = t.outputs.filter((o) => o.assetId === t.id);
        const cap = minted.some((o) => o.utxoType.includes("MINT")) ? null : minted.reduce((a, o) => a + o.amount, 0n).toString();
        batch.assets.push([t.id, t.details.asset.name, t.details.asset.symbol, t.details.asset.denomination, assetType(minted), t.id, place.ts, cap]);
      }
      for (const a of assets) batch.assetTxs.push([a, place.seq]);
    }
  }

  private createUtxo(batch: Batch, txId: string, o: TxOutput, place: TxPlace, extra: {rewardType?: string; stakingEnd?: bigint} = {}): void {
    batch.utxoCreates.push(utxoCreateRow(txId, o, place, extra));
    batch.createdOwners.set(o.utxoId, o.owner.addresses);
    for (const a of distinctBytes(o.owner.addresses)) batch.utxoAddresses.push([a, o.utxoId]);
  }

  private async write(tx: SqlTx, b: Batch): Promise<void> {
    // A real chain never repeats a height or a transaction; an index that does (a dev database from an older
    // schedule) keeps the first, rather than stopping the view.
    await bulkInsert(tx, "blocks", BLOCK_COLUMNS as unknown as BulkColumn[], b.blocks, {onConflict: "DO NOTHING"});
    await bulkInsert(tx, "vertices", VERTEX_COLUMNS as unknown as BulkColumn[], b.vertices, {onConflict: "DO NOTHING"});
    await bulkInsert(tx, "txs", TX_COLUMNS as unknown as BulkColumn[], b.txs, {onConflict: "DO NOTHING"});
    await bulkInsert(tx, "tx_addresses", [{name: "chain", type: "text"}, {name: "address", type: "bytea"}, {name: "seq", type: "int8"}], b.txAddresses, {onConflict: "DO NOTHING"});
    await bulkInsert(tx, "asset_txs", [{name: "asset_id", type: "text"}, {name: "seq", type: "int8"}], b.assetTxs, {onConflict: "DO NOTHING"});
    await bulkInsert(tx, "assets", ASSET_COLUMNS, b.assets, {onConflict: "DO NOTHING"});
    await bulkInsert(tx, "utxos", UTXO_CREATE_COLUMNS as unknown as BulkColumn[], b.utxoCreates, {onConflict: "DO NOTHING"});
    await bulkInsert(tx, "utxo_spends", UTXO_CONSUME_COLUMNS as unknown as BulkColumn[], [...b.utxoConsumes.values()], {onConflict: "DO NOTHING"});
    await bulkInsert(tx, "utxo_addresses", [{name: "address", type: "bytea"}, {name: "utxo_id", type: "text"}], b.utxoAddresses, {onConflict: "DO NOTHING"});
  }

  private async saveState(tx: SqlTx): Promise<void> {
    const entries: Array<[string, string]> = [
      ["view.seq.P", this.seq.P.toString()],
      ["view.seq.X", this.seq.X.toString()],
      ["view.seq.C", this.seq.C.toString()],
      ["view.seq.vtx", this.seq.vtx.toString()],
      ...this.staking.state(),
    ];
    await bulkInsert(tx, "data_api_meta", [{name: "key", type: "text"}, {name: "value", type: "text"}], entries, {
      onConflict: "(key) DO UPDATE SET value = EXCLUDED.value",
    });
  }

  /** The network's genesis state: assets, UTXOs, stakers and supply, before the first container. */
  private async foldGenesis(tx: SqlTx, g: GenesisState): Promise<void> {
    const batch = new Batch();
    for (const a of g.assets) batch.assets.push([a.assetId, a.name, a.symbol, a.denomination, "secp256k1", null, g.timestamp, null]);
    for (const u of g.utxos) {
      const place: TxPlace = {chain: u.chain, chainId: this.modules.network.chainIds[u.chain], seq: 0n, blockId: "", height: 0n, ts: g.timestamp};
      this.createUtxo(batch, u.txId, u.output, place);
    }
    await this.staking.genesis(tx, g, (txId, o, place, stakingEnd) => this.createUtxo(batch, txId, o, place, {stakingEnd}), this.modules.network.chainIds.P);
    await this.write(tx, batch);
  }
}

const ASSET_COLUMNS: BulkColumn[] = [
  {name: "asset_id", type: "text"},
  {name: "name", type: "text"},
  {name: "symbol", type: "text"},
  {name: "denomination", type: "int4"},
  {name: "asset_type", type: "text"},
  {name: "created_tx", type: "text"},
  {name: "created_ts", type: "int8"},
  {name: "cap", type: "numeric"},
];

/** Glacier's asset `type`: `nft` when the asset's initial state mints NFTs, else `secp256k1`. */
function assetType(outputs: TxOutput[]): string {
  return outputs.some((o) => o.utxoType.startsWith("NFT")) ? "nft" : "secp256k1";
}

async function lookupOwners(tx: SqlTx, utxoIds: string[]): Promise<Map<string, Uint8Array[]>> {
  const out = new Map<string, Uint8Array[]>();
  if (utxoIds.length === 0) return out;
  const rows = await tx.query<{utxo_id: string; addresses: string[] | string | null}>(
    "SELECT utxo_id, addresses FROM utxos WHERE utxo_id = ANY($1::text[]) AND addresses IS NOT NULL",
    [utxoIds],
  );
  for (const r of rows) {
    const list = typeof r.addresses === "string" ? (JSON.parse(r.addresses) as string[]) : (r.addresses ?? []);
    out.set(r.utxo_id, list.map((h) => Uint8Array.from(Buffer.from(h, "hex"))));
  }
  return out;
}

