/**
 * The data API's composition (docs/design/data-api.md): the SQL store (PGlite embedded, or a PostgreSQL
 * server), its migrations and writer lock, the primary-network view that folds the container index into it, the
 * `/v1` routes that answer from it, and its health check. Roles: `ingest` folds and serves nothing under `/v1`;
 * `serve` answers from a store another process writes; `both` does both.
 */
import path from "node:path";
import {Gauge, type Registry} from "prom-client";
import {METRIC_PREFIX} from "../metrics/index.js";
import type {ChainRegistry, NetworkInfo} from "../chains/index.js";
import type {Health} from "../health/health.js";
import type {IndexStore} from "../containerIndex/store.js";
import type {Logger} from "../logger/index.js";
import type {Routes} from "../api/routes.js";
import type {ClientAddresses} from "../api/clientAddress.js";
import {acquireWriterLock, takeWriterEpoch, type WriterLock} from "./store/lock.js";
import {migrate, schemaVersion} from "./store/migrations.js";
import {AbortCheckedClient, type SqlClient} from "./store/sql.js";
import {openSqlClient} from "./store/client.js";
import {RequestSignals} from "../util/requestSignals.js";
import {MIGRATIONS} from "./store/schema.js";
import {checkStoreNetwork} from "./store/network.js";
import {storeLatencyMs, storeTokenSecret} from "./store/meta.js";
import {storedChainStates} from "./queries/evm/chains.js";
import {createViewMetrics} from "./views/primary/metrics.js";
import {PrimaryView, defaultPrimaryViewOptions} from "./views/primary/view.js";
import type {DataApiGenesis} from "./genesis.js";
import {GENESIS_THREAD_SHARED_BUFFERS_MB, foldGenesisOnThread, foldsOnThread} from "./genesisThread.js";
import {DataApiRouter} from "./server/router.js";
import {v1Routes} from "./routes/index.js";
import {EvmStateReader} from "./evm/stateReader.js";
import type {NamedCheck} from "./routes/health.js";
import {BlsKeyCache} from "../warp/validators.js";
import type {SignatureSource} from "../warp/aggregator.js";
import {WarpSigners, defaultWarpSignersOptions} from "./signatures/warpSigners.js";
import {ExternalAggregator} from "./signatures/externalAggregator.js";
import {PlatformRpcValidatorSets, defaultPlatformRpcOptions} from "./signatures/platformRpc.js";
import {viewValidatorSets, type ValidatorSets} from "./signatures/validatorSets.js";
import {AVAX_TOKEN, EvmChains, type EvmChain, type EvmChainSpec} from "./evm/chains.js";
import {EvmRpc, defaultEvmRpcOptions} from "../evm/rpc.js";
import {toHex} from "../evm/hex.js";
import {readTokenMetadata, rpcEthCall} from "./evm/tokenMetadata.js";
import {EvmFollower, defaultEvmFollowerOptions, type EvmFollowerMetrics} from "./views/evm/follower.js";
import type {TokenInfo} from "./views/evm/write.js";
import {NftIndexer, defaultNftIndexerOptions} from "./views/evm/nftIndexer.js";
import type {CuratedMetadata} from "./queries/evm/tokens.js";
import {Counter} from "prom-client";
import {StoreMaintenance, defaultStoreMaintenanceOptions} from "./store/maintenance.js";
import {assumedUp, type ValidatorObservations} from "./observations/observations.js";
import {NodeObservations, defaultNodeObservationsOptions} from "./observations/nodeObservations.js";
import {WebhookDelivery, defaultWebhookDeliveryOptions} from "./webhooks/delivery.js";
import {getIcmMessage} from "./queries/icm.js";
import {icmMessageModel} from "./routes/icm.js";
import {hrpOf} from "./server/names.js";

export type DataApiRole = "ingest" | "serve" | "both";

export interface DataApiOptions {
  /** `embedded` (PGlite under `<dataDir>/data-api`) or a `postgres://` URL. */
  db: string;
  role: DataApiRole;
  dataDir: string;
  /** PGlite's page cache, MiB (`--data-api-pglite-shared-buffers`); unused with a server. */
  pgliteSharedBuffersMb?: number;
  rateLimitPerMinute: number;
  /** A server's statement timeout for the API's reads, ms (0: none); PGlite has none (store/client.ts SqlClientOptions). */
  statementTimeoutMs: number;
  /** Who a request is from (`--http-trusted-proxies`); default: the socket's peer. */
  clients?: ClientAddresses;
  /** API keys (`--data-api-keys-file`, parsed); null = keys are ignored. */
  keys: Map<string, {name: string; rateLimit: number}> | null;
  /** The view fails the health check when this many containers are not folded yet. */
  maxLag: number;
  /** The EVM chains to follow (`--evm-rpc`, or the dev network's EVM). */
  evmChains: EvmChainSpec[];
  /** Blocks an EVM chain's view may roll back on a reorg (`--evm-max-reorg-depth`; 0 = no limit); default 64. */
  evmMaxReorgDepth?: number;
  /** Curated contract fields by lowercase 0x address (`--contract-metadata-file`). */
  contractMetadata: Map<string, CuratedMetadata>;
  /** How NFT metadata is fetched (`--ipfs-gateway`, `--nft-metadata-allow-private`). */
  nftFetch: {ipfsGateway: string; allowPrivate: boolean};
  /** TeleporterMessenger addresses whose logs are interchain messages (`--icm-contracts`). */
  icmContracts: string[];
  /** Where endpoints 1 and 2 get signatures and validator sets on a real network. */
  signatures: SignatureOptions;
  /** Webhooks (`--webhooks-*`): their URLs' SSRF guard, the addresses a webhook may watch, delivery. */
  webhooks: WebhooksOptions;
}

export interface WebhooksOptions {
  allowPrivateUrls: boolean;
  maxAddresses: number;
  /** Most active webhooks one API key has (`--webhooks-max-per-key`). */
  maxPerKey: number;
  /** A receiver's deadline for a 2xx, ms (`--webhooks-timeout`). */
  timeoutMs: number;
  /** How long finished messages are kept, ms (`--webhooks-retention`); 0 = for good. */
  retentionMs: number;
}

export interface SignatureOptions {
  /** Validator nodes asked for their warp signatures (`--warp-signer-urls`). */
  warpSignerUrls: string[];
  /** An external aggregator asked when the local sources fall short (`--signature-aggregator-url`); null = none. */
  aggregatorUrl: string | null;
  /** Its deadline (`--signature-aggregator-timeout`). */
  aggregatorTimeoutMs: number;
  /** A P-chain node whose validator sets replace the view's (`--platform-rpc`); null = the view's. */
  platformRpc: string | null;
}

export interface DataApiModules {
  /** The container index the view follows; null when indexing is off (nothing is folded). */
  index: IndexStore | null;
  network: NetworkInfo;
  chains: ChainRegistry;
  routes: Routes;
  health: Health;
  logger: Logger;
  register: Registry | null;
  /** The network's genesis (src/dataApi/genesis.ts): its config and its state; null only for a store this process does not write. */
  genesis: Pick<DataApiGenesis, "config" | "state"> | null;
  avaxAssetId: string;
  /** The store is lost for good (PGlite's thread died): the process ends (src/node.ts). */
  fatal?: (err: Error) => void;
  /** The webhooks' clock, Unix ms (their retry schedule; tests move it); default Date.now. */
  webhookClock?: () => number;
  /**
   * Signature sources besides the flags' (`--warp-signer-urls`), each made on the store's reads: on a local network,
   * its validators' own keys (signingRules.ts localValidatorSigners).
   */
  signatureSources?: ReadonlyArray<(sql: SqlClient) => SignatureSource>;
}

export class DataApiService {
  view: PrimaryView | null = null;
  evm: EvmChains | null = null;
  private readonly nftIndexers: NftIndexer[] = [];
  /** The health checks registered with /ext/health, also answered at /v1/health-check. */
  private readonly checks: NamedCheck[] = [];
  private lock: WriterLock | null = null;
  /** Set when the writer lock's session ended under this process (lock.ts): writes are fenced, health fails. */
  private lockLost: Error | null = null;
  /** Active validators' uptime and health polled from the node beside avaext (--platform-rpc); null without one. */
  observations: NodeObservations | null = null;
  /** On PGlite, which has no autovacuum and no checkpointer, the writer does their work (store/maintenance.ts); null on a server or when serving. */
  private maintenance: StoreMaintenance | null = null;
  /** Webhook delivery, in the process that folds (the fold writes the outbox); null when serving only. */
  webhooks: WebhookDelivery | null = null;

  /** The API's reads: on a server, a pool of their own with the statement timeout; on PGlite, the one client. */
  private reads: SqlClient | null = null;

  /**
   * The client for reads that answer requests (the /v1 routes, the metrics service's /v2): a server's reads pool
   * with its statement timeout, else the store's own (an ingest-only process, whose /v1 is off).
   */
  readClient(): SqlClient {
    return this.reads ?? this.sql;
  }
  private readonly signals = new RequestSignals();

  private constructor(
    readonly opts: DataApiOptions,
    private readonly modules: DataApiModules,
    readonly sql: SqlClient,
  ) {}

  /** Opens the store (migrating it as the writer), takes the writer lock and registers the routes; starts nothing. */
  static async open(opts: DataApiOptions, modules: DataApiModules): Promise<DataApiService> {
    const dataDir = opts.db === "embedded" ? path.join(opts.dataDir, "data-api") : null;
    const sqlOpts = {url: opts.db, dataDir, pgliteSharedBuffersMb: opts.pgliteSharedBuffersMb};
    const genesis = modules.genesis;
    if (
      dataDir !== null &&
      opts.role !== "serve" &&
      modules.index &&
      genesis &&
      foldsOnThread(dataDir, genesis.config)
    ) {
      const started = performance.now();
      await foldGenesisOnThread({
        dataDir,
        network: modules.network,
        avaxAssetId: modules.avaxAssetId,
        config: genesis.config,
        sharedBuffersMb: GENESIS_THREAD_SHARED_BUFFERS_MB,
      });
      modules.logger.info(
        {allocations: genesis.config.allocations.length, ms: Math.round(performance.now() - started)},
        "the genesis folded into the new store on a thread of its own",
      );
    }
    const sql = await openSqlClient(sqlOpts, {logger: modules.logger, onLost: modules.fatal});
    const service = new DataApiService(opts, modules, sql);
    try {
      await service.init();
    } catch (e) {
      await service.close();
      throw e;
    }
    return service;
  }

  private async init(): Promise<void> {
    const {opts, modules, sql} = this;
    const writes = opts.role !== "serve";
    if (writes) {
      this.lock = await acquireWriterLock(sql, {
        dataDir: opts.db === "embedded" ? path.join(opts.dataDir, "data-api") : null,
        onLost: (err) => this.writerLockLost(err),
      });
      // Another network's store is refused before this build migrates it.
      await checkStoreNetwork(sql, modules.network, {record: false});
      await takeWriterEpoch(sql, (err) => this.writerLockLost(err));
      const {from, to} = await migrate(sql, MIGRATIONS, {logger: modules.logger});
      if (from !== to) modules.logger.info({from, to}, "data API store migrated");
      // Fenced by the writer epoch too (taken again: a fresh store had none before its first migration), so a loss of
      // the lock's session this process is never told of stops it at its next write.
      await takeWriterEpoch(sql, (err) => this.writerLockLost(err));
      // PGlite has no autovacuum and no checkpointer: the writer does their work (store/maintenance.ts).
      if (sql.kind === "pglite")
        this.maintenance = new StoreMaintenance(defaultStoreMaintenanceOptions, {sql, logger: modules.logger});
    } else {
      const v = await schemaVersion(sql);
      const want = MIGRATIONS[MIGRATIONS.length - 1]!.version;
      if (v !== want)
        throw new Error(
          `data API store is at schema version ${v}, this build serves version ${want}: start an ingest process of this build first`,
        );
    }
    await checkStoreNetwork(sql, modules.network, {record: writes});
    const secret = await storeTokenSecret(sql);
    if (writes && modules.index) {
      if (!modules.genesis)
        throw new Error("the data API's primary view folds the network's genesis: none was given (--genesis-file)");
      this.view = new PrimaryView(defaultPrimaryViewOptions, {
        index: modules.index,
        sql,
        network: modules.network,
        genesis: modules.genesis.state,
        avaxAssetId: modules.avaxAssetId,
        logger: modules.logger,
        metrics: modules.register ? createViewMetrics(modules.register) : null,
      });
    }
    this.evm = this.evmChains(writes);
    if (writes) {
      const evm = this.evm;
      this.webhooks = new WebhookDelivery(
        {
          ...defaultWebhookDeliveryOptions,
          allowPrivateUrls: opts.webhooks.allowPrivateUrls,
          timeoutMs: opts.webhooks.timeoutMs,
          retentionMs: opts.webhooks.retentionMs,
        },
        {
          sql,
          logger: modules.logger,
          now: modules.webhookClock ?? Date.now,
          networkToken: (chainId) =>
            evm.chains.find((c) => evm.chainIdOf(c) === chainId)?.networkToken ?? {name: "", symbol: "", decimals: 18},
          icmMessage: async (s, id) => {
            const row = await getIcmMessage(s, id);
            return row ? icmMessageModel({chains: evm}, row) : null;
          },
          primaryNetwork: {
            networkName: modules.network.name,
            hrp: hrpOf(modules.network),
            chainIds: modules.network.chainIds,
            avaxAssetId: modules.avaxAssetId,
          },
        },
      );
    }
    this.registerHealth();
    if (modules.register && this.view) {
      const view = this.view;
      new Gauge({
        name: `${METRIC_PREFIX}data_api_view_lag_containers`,
        help: "Containers of the index the data API's primary-network view has not folded yet",
        registers: [modules.register],
        collect(): void {
          this.set(Number(view.lag()));
        },
      });
    }
    if (opts.role !== "ingest") {
      const signal = (): AbortSignal | undefined => this.signals.current();
      this.reads =
        sql.kind === "postgres"
          ? await openSqlClient(
              {url: opts.db, dataDir: null, statementTimeoutMs: opts.statementTimeoutMs},
              {logger: modules.logger, signal},
            )
          : new AbortCheckedClient(sql, signal);
      const reads = this.reads;
      const router = new DataApiRouter(
        {
          network: modules.network,
          tokenSecret: secret,
          rateLimitPerMinute: opts.rateLimitPerMinute,
          keys: opts.keys,
          clients: opts.clients,
        },
        {chains: modules.chains, logger: modules.logger, register: modules.register, signals: this.signals},
      );
      router.mount(
        v1Routes({
          primary: {
            sql: reads,
            network: modules.network,
            chains: modules.chains,
            avaxAssetId: modules.avaxAssetId,
            observations: this.validatorObservations(),
          },
          evm: {sql: reads, chains: this.evm, curated: opts.contractMetadata, state: new EvmStateReader()},
          icm: {sql: reads, chains: this.evm},
          signatures: {sql: reads, network: modules.network, ...this.signatureModules(reads)},
          webhooks: {
            options: opts.webhooks,
            modules: {sql, chains: this.evm, network: modules.network, now: modules.webhookClock ?? Date.now},
          },
          health: {checks: this.checks, sql: reads, logger: modules.logger},
        }),
      );
      modules.routes.addResolver(router.resolver());
    }
  }

  /**
   * Where active validators' uptime and health come from: the node beside avaext when --platform-rpc names one
   * (polled, in the serving process); else nothing observed, every validator up as AvalancheGo assumes an
   * unobserved one, which on the dev network is also its own validators' truth (observations/observations.ts).
   */
  private validatorObservations(): ValidatorObservations {
    const url = this.opts.signatures.platformRpc;
    if (url === null) return assumedUp;
    this.observations = new NodeObservations({...defaultNodeObservationsOptions, url}, {logger: this.modules.logger});
    return this.observations;
  }

  /** Endpoints 1 and 2's signature sources, external aggregator and validator sets, from the options. */
  private signatureModules(sql: SqlClient): {
    sources: SignatureSource[];
    external: ExternalAggregator | null;
    validatorSets: ValidatorSets;
  } {
    const {opts, modules} = this;
    const sig = opts.signatures;
    const sources: SignatureSource[] = [];
    // Sources the composition root plugs in (the local network's own validators: src/node.ts), then the flags'.
    for (const plug of modules.signatureSources ?? []) sources.push(plug(sql));
    if (sig.warpSignerUrls.length > 0)
      sources.push(new WarpSigners({...defaultWarpSignersOptions, urls: sig.warpSignerUrls}, {logger: modules.logger}));
    const external = sig.aggregatorUrl
      ? new ExternalAggregator({
          url: sig.aggregatorUrl,
          network: modules.network.name,
          timeoutMs: sig.aggregatorTimeoutMs,
        })
      : null;
    // Each validator's BLS key is decoded once, whichever source gives its set. The sets are shared by the requests
    // that want the same height (one computation, cached): read on the writer's client, outside any one request's
    // signal, so a requester that goes away does not fail the others.
    const keys = new BlsKeyCache();
    const view = viewValidatorSets(this.sql, Object.values(modules.network.chainIds), keys);
    const validatorSets = sig.platformRpc
      ? new PlatformRpcValidatorSets({...defaultPlatformRpcOptions, url: sig.platformRpc}, {fallback: view, keys})
      : view;
    return {sources, external, validatorSets};
  }

  /** The followed EVM chains: an RPC client each, and a follower in a process that writes. */
  private evmChains(writes: boolean): EvmChains {
    const {opts, modules, sql} = this;
    const logger = modules.logger;
    const metrics = modules.register ? evmMetrics(modules.register) : undefined;
    const chains = opts.evmChains.map((spec): EvmChain => {
      const id = EvmChains.identity(spec, modules.network);
      const rpcOpts = {...defaultEvmRpcOptions, url: spec.url};
      if (spec.urlOf) Object.defineProperty(rpcOpts, "url", {get: spec.urlOf, enumerable: true});
      // One client (its own connections and concurrency) for the head and one for each lane behind it: a slow
      // contract or trace then never queues the head's requests.
      const rpcClient = (): EvmRpc =>
        new EvmRpc(rpcOpts, {
          logger,
          guard: spec.guard,
          onError: () => metrics?.rpcErrors.inc({chain: id.chainId ?? spec.name}),
        });
      const rpc = rpcClient();
      const follower = writes
        ? new EvmFollower(
            {
              ...defaultEvmFollowerOptions,
              chainId: id.chainId,
              blockchainId: id.blockchainId,
              icmMessengers: opts.icmContracts,
              maxReorgDepth: opts.evmMaxReorgDepth ?? defaultEvmFollowerOptions.maxReorgDepth,
            },
            {
              sql,
              rpc,
              logger,
              tokenInfo: tokenInfoReader(rpcClient()),
              traceRpc: rpcClient(),
              metrics: metrics?.follower,
            },
          )
        : null;
      if (follower) {
        const indexer = new NftIndexer(
          {...defaultNftIndexerOptions, ...opts.nftFetch},
          {sql, rpc: rpcClient(), logger, chainId: () => follower.status().chainId},
        );
        this.nftIndexers.push(indexer);
      }
      // An L1's token name and symbol are not known over its RPC: left empty, not invented (EVM natives have 18 decimals).
      return {...id, rpc, follower, networkToken: id.isCChain ? AVAX_TOKEN : {name: "", symbol: "", decimals: 18}};
    });
    const readStored = writes ? null : () => storedChainStates(sql);
    if (modules.register && writes) {
      new Gauge({
        name: `${METRIC_PREFIX}data_api_evm_lane_lag_blocks`,
        help: "Blocks folded at an EVM chain's head that a lane behind it (tokens, traces) has not covered yet, by chain and lane",
        labelNames: ["chain", "lane"],
        registers: [modules.register],
        collect(): void {
          for (const c of chains) {
            const s = c.follower?.status();
            for (const [lane, l] of Object.entries(s?.lanes ?? {}))
              if (l?.lag != null) this.set({chain: s!.chainId ?? "unknown", lane}, Number(l.lag));
          }
        },
      });
    }
    return new EvmChains(modules.network, chains, readStored);
  }

  /**
   * The writer lock's session ended (a PostgreSQL restart, a killed backend): another ingest process may take the
   * lock and write, so this one stops writing (the client's writes are fenced already), says so in health, and ends
   * non-zero through `fatal` for its supervisor to start it again, when it takes the lock afresh or is refused
   * naming the new holder (docs/operations/scaling.md). Taking the lock back in place would race that other writer.
   */
  private writerLockLost(err: Error): void {
    if (this.lockLost) return;
    this.lockLost = err;
    this.modules.logger.error({err: err.message}, "data API writer lock lost: writes stopped");
    void (async () => {
      await Promise.all(this.nftIndexers.map((n) => n.close()));
      await Promise.all((this.evm?.chains ?? []).map((c) => c.follower?.close()));
      await this.view?.close();
      await this.maintenance?.close();
    })().catch((e: unknown) =>
      this.modules.logger.warn({err: (e as Error).message}, "data API writers did not stop cleanly"),
    );
    this.modules.fatal?.(new Error(`the data API store's writer lock was lost (${err.message}); writes stopped`));
  }

  private registerHealth(): void {
    const {health} = this.modules;
    const check = async (): Promise<{details?: unknown; error?: string}> => {
      if (this.lockLost)
        return {
          details: {role: this.opts.role, writerLock: "lost"},
          error: `writer lock lost (${this.lockLost.message}): this process writes no more`,
        };
      const details: Record<string, unknown> = {role: this.opts.role, storeLatencyMs: await storeLatencyMs(this.sql)};
      if (this.view) {
        const lag = this.view.lag();
        details.lag = Number(lag);
        const stops = [...this.view.stops.values()];
        if (stops.length > 0) {
          details.stopped = stops;
          const each = stops.map((x) => {
            const where =
              x.height !== null ? `block ${x.height} (${x.blockId})` : `container ${x.index} of ${x.endpoint}`;
            return `${x.chain}-chain view stopped at ${where}${x.txId ? `, transaction ${x.txId}` : ""}: ${x.error}`;
          });
          return {details, error: `primary-network view: ${each.join("; ")}`};
        }
        const retrying = this.view.lastError;
        if (retrying) return {details, error: `primary-network view: retrying: ${retrying.message}`};
        if (lag > BigInt(this.opts.maxLag))
          return {details, error: `primary-network view is ${lag} containers behind the index`};
      }
      return {details};
    };
    // Each check counts for health and readiness, and is answered at /v1/health-check too.
    const register = (name: string, c: NamedCheck["check"]): void => {
      health.registerHealth(name, c, ["application"]);
      health.registerReadiness(name, c, ["application"]);
      this.checks.push({name, check: c});
    };
    register("data-api", check);
    for (const c of this.evm?.chains ?? []) {
      const follower = c.follower;
      if (!follower) continue;
      const name = `evm:${c.chainId ?? c.blockchainId}`;
      const evmCheck = async (): Promise<{details?: unknown; error?: string}> => {
        const s = follower.status();
        const lag = follower.lag();
        const details = {
          rpc: s.rpcUrl,
          head: s.head?.toString() ?? null,
          rpcHead: s.rpcHead?.toString() ?? null,
          lag: lag === null ? null : Number(lag),
          internalTransactions: s.traces,
          // The lanes behind the head (src/dataApi/views/evm/lanes.ts): the last block each covered, and its lag.
          lanes: Object.fromEntries(
            Object.entries(s.lanes).flatMap(([k, l]) =>
              l
                ? [
                    [
                      k,
                      {
                        covered: l.covered?.toString() ?? null,
                        lag: l.lag === null ? null : Number(l.lag),
                        ...(l.lastError ? {lastError: l.lastError} : {}),
                        ...(l.skipped ? {skipped: l.skipped} : {}),
                      },
                    ],
                  ]
                : [],
            ),
          ),
          ...(s.stopped ? {stopped: s.stopped} : {}),
        };
        if (s.lastError) return {details, error: s.lastError};
        if (lag === null) return {details, error: "the chain's RPC has not answered yet"};
        if (lag > BigInt(follower.opts.maxLagBlocks)) return {details, error: `${lag} blocks behind the RPC's head`};
        for (const [k, l] of Object.entries(s.lanes)) {
          if (l?.lag != null && l.lag > BigInt(follower.opts.maxLagBlocks))
            return {
              details,
              error: `the ${k} lane is ${l.lag} blocks behind the head${l.lastError ? `: ${l.lastError}` : ""}`,
            };
        }
        return {details};
      };
      register(name, evmCheck);
    }
  }

  async start(): Promise<void> {
    this.maintenance?.start();
    this.observations?.start();
    await this.view?.start();
    for (const c of this.evm?.chains ?? []) c.follower?.start();
    for (const n of this.nftIndexers) n.start();
    this.webhooks?.start();
  }

  async close(): Promise<void> {
    await this.webhooks?.close();
    await this.observations?.close();
    await Promise.all(this.nftIndexers.map((n) => n.close()));
    await Promise.all((this.evm?.chains ?? []).map((c) => c.follower?.close()));
    await this.view?.close();
    await this.maintenance?.close();
    await this.lock?.release().catch(() => {});
    await this.reads?.close();
    await this.sql.close();
  }
}

function evmMetrics(register: Registry): {rpcErrors: Counter<"chain">; follower: EvmFollowerMetrics} {
  const registers = [register];
  const rpcErrors = new Counter({
    name: `${METRIC_PREFIX}data_api_evm_rpc_errors_total`,
    help: "Failed EVM JSON-RPC requests (transport, HTTP, malformed answers), by chain",
    labelNames: ["chain"],
    registers,
  });
  const blocks = new Counter({
    name: `${METRIC_PREFIX}data_api_evm_blocks_folded_total`,
    help: "EVM blocks folded into the data API, by chain",
    labelNames: ["chain"],
    registers,
  });
  const txs = new Counter({
    name: `${METRIC_PREFIX}data_api_evm_txs_folded_total`,
    help: "EVM transactions folded into the data API, by chain",
    labelNames: ["chain"],
    registers,
  });
  const errors = new Counter({
    name: `${METRIC_PREFIX}data_api_evm_follower_errors_total`,
    help: "EVM follower batches that failed (retried), by chain",
    labelNames: ["chain"],
    registers,
  });
  const reorgs = new Counter({
    name: `${METRIC_PREFIX}data_api_evm_reorgs_total`,
    help: "Reorgs the EVM follower rolled back, by chain",
    labelNames: ["chain"],
    registers,
  });
  const stopped = new Counter({
    name: `${METRIC_PREFIX}data_api_evm_follower_stopped_total`,
    help: "EVM followers stopped on an error of the fold (not retried; the health check says where), by chain",
    labelNames: ["chain"],
    registers,
  });
  return {
    rpcErrors,
    follower: {
      blocks: (chain, n) => blocks.inc({chain}, n),
      txs: (chain, n) => txs.inc({chain}, n),
      error: (chain) => errors.inc({chain}),
      reorg: (chain) => reorgs.inc({chain}),
      stopped: (chain) => stopped.inc({chain}),
    },
  };
}

/**
 * Reads a token's kind and metadata through its chain's RPC. A contract's misbehaviour leaves fields empty; an RPC
 * that does not answer throws, so the follower retries instead of storing a token it could not read.
 */
export function tokenInfoReader(
  rpc: EvmRpc,
): (address: Uint8Array, seenAs: 20 | 721 | 1155, signal?: AbortSignal) => Promise<TokenInfo> {
  return async (address, seenAs, signal) => {
    const {call, down} = rpcEthCall(rpc, signal);
    const m = await readTokenMetadata(call, toHex(address));
    const failure = down();
    if (failure) throw failure;
    // A contract that emits the log shapes without claiming an interface is what its logs say it is.
    const erc = m.ercType === "ERC-20" ? 20 : m.ercType === "ERC-721" ? 721 : m.ercType === "ERC-1155" ? 1155 : seenAs;
    return {erc, name: m.name ?? null, symbol: m.symbol ?? null, decimals: m.decimals ?? (erc === 20 ? null : 0)};
  };
}
