/**
 * The composition root: the only place that knows the whole graph. It builds every module from the effective
 * configuration in dependency order (loggers → metrics → chains → db → feed/index → health → APIs → HTTP) and
 * closes them in reverse, the database last.
 */
import {mkdirSync} from "node:fs";
import {Registry} from "prom-client";
import {RpcRouter, defaultRpcRouterOptions} from "./api/rpcRouter.js";
import {Routes} from "./api/routes.js";
import {ClientAddresses} from "./api/clientAddress.js";
import {HttpServer, defaultHttpServerOptions} from "./api/server.js";
import {ChainRegistry, parseNetworkId} from "./chains/index.js";
import {ConfigError} from "./cli/config.js";
import type {AvaextConfig} from "./cli/flags.js";
import {FeedStatus} from "./feed/status.js";
import {defaultCheckThresholds, registerChecks} from "./health/checks.js";
import type {Database} from "./db/controller.js";
import {openIndexDatabase} from "./containerIndex/database.js";
import {DEV_L1_EVM_CHAIN_ID} from "./dev/primaryNetwork.js";
import {DevFeed, defaultDevFeedOptions} from "./dev/feed.js";
import {devEvmRpcRoute} from "./dev/evm/rpcRoute.js";
import {FileFeed, defaultFileFeedOptions} from "./feed/file.js";
import {HttpFeed, defaultHttpFeedOptions} from "./feed/http.js";
import {Ingester} from "./feed/ingest.js";
import type {FeedSource} from "./feed/types.js";
import {checkIncompleteIndex} from "./containerIndex/incomplete.js";
import {createIndexMethods, indexRouteResolver} from "./containerIndex/service.js";
import {IndexStore} from "./containerIndex/store.js";
import {Health} from "./health/health.js";
import {createHealthMethods, registerHealthRoutes} from "./health/service.js";
import {LoggerRegistry, type Logger} from "./logger/index.js";
import {createCoreMetrics, type CoreMetrics} from "./metrics/index.js";
import {AdminService, type RawKeyValueReader} from "./admin/service.js";
import {AvgTps} from "./metricsService/avgTps.js";
import {MetricsService} from "./metricsService/service.js";
import {MetricsV2, v2Resolver} from "./metricsService/v2/v2.js";
import {DataApiService, type DataApiRole} from "./dataApi/service.js";
import {loadApiKeys} from "./dataApi/server/keys.js";
import {dataApiGenesis, devGenesisPath} from "./dataApi/genesis.js";
import {localValidatorSigners} from "./dev/signingRules.js";
import {networkWithGenesis, resolveGenesis, type ResolvedGenesis} from "./genesis/resolve.js";
import {EvmChains, type EvmChainSpec} from "./dataApi/evm/chains.js";
import {parseEvmRpcList} from "./cli/evmRpcList.js";
import {loadContractMetadata} from "./dataApi/evm/contractMetadata.js";

export interface NodeOverrides {
  /** Where display logs go (tests pass a sink); default stdout. */
  displayStream?: NodeJS.WritableStream;
  /** A feed source to use instead of the one `--feed` names (tests drive the feed status by hand). */
  feed?: FeedSource;
  /** The store admin.dbGet reads instead of the node's database (tests, tools). */
  rawDb?: RawKeyValueReader;
  /**
   * The dev feed's clock (ms). A fixed time freezes the dev network once it has backfilled up to it: a replay or a
   * mirror can then be compared with it answer for answer.
   */
  devNow?: () => number;
  /** The webhooks' clock, Unix ms (tests let their retry schedule's hours pass at once). */
  webhookClock?: () => number;
}

type Status = "created" | "started" | "closing" | "closed";

/** Something to close on shutdown, in reverse order of registration. */
type Closer = {name: string; close: () => Promise<void> | void};

export class AvaextNode {
  readonly loggers: LoggerRegistry;
  readonly logger: Logger;
  readonly metrics: CoreMetrics;
  readonly chains: ChainRegistry;
  readonly routes = new Routes();
  readonly rpc: RpcRouter;
  readonly http: HttpServer;
  /** What the acceptance feed knows (connection, caught up, last accepted per chain); read by health. */
  readonly feedStatus = new FeedStatus();
  readonly health: Health;
  /** Set by wire(): the database, the index on it, and the ingester that feeds both. */
  db: Database | null = null;
  store: IndexStore | null = null;
  ingester: Ingester | null = null;
  /** Daily average TPS per chain, fed by accepted blocks; served by the metrics service. */
  readonly avgTps = new AvgTps();
  /** Who a request is from, for the data API's and metrics service's limits (`--http-trusted-proxies`). */
  private readonly clientAddresses: ClientAddresses;
  /** The admin API, when `--api-admin-enabled`. */
  admin: AdminService | null = null;
  /** The data API (`/v1`), when `--data-api-enabled`. */
  dataApi: DataApiService | null = null;
  /** The dev feed, when `--feed dev` (its EVM is the dev network's C-chain). */
  devFeed: DevFeed | null = null;
  private readonly closers: Closer[] = [];
  /** `--genesis-file`, read and checked at construction (a custom network's chain IDs are its). */
  private readonly genesisFile: ResolvedGenesis | null;
  /** What ends the process on a fatal error (the CLI's: src/cli/index.ts); without one, it is only logged. */
  private fatalHandler: ((err: Error) => void) | null = null;
  private status: Status = "created";

  private constructor(
    readonly config: AvaextConfig,
    private readonly overrides: NodeOverrides,
  ) {
    // No feed is assumed: a node beside mainnet must not start a dev network of its own because a flag was left
    // out. Only a serve replica, which answers /v1 from a store another process writes, needs none.
    const serveReplica = config["data-api-enabled"] && config["data-api-role"] === "serve" && !config["index-enabled"];
    if (config.feed === null && overrides.feed === undefined && !serveReplica) {
      throw new ConfigError(
        null,
        "--feed is required: dev (a dev network of its own, as config/default.json and npm start run), file:PATH or http://HOST:PORT (only a --data-api-role serve replica without --index-enabled runs without one)",
      );
    }
    // A genesis file is checked first (its network ID, its format): a custom network's chain IDs are its.
    if (config["genesis-file"] !== null && config.feed === "dev") {
      throw new Error(
        `--genesis-file is not for --feed dev: the dev network writes its own genesis (${devGenesisPath(config["data-dir"])})`,
      );
    }
    this.genesisFile =
      config["genesis-file"] === null
        ? null
        : resolveGenesis(parseNetworkId(config["network-id"]), config["genesis-file"]);
    const network = networkWithGenesis(config["network-id"], this.genesisFile);
    mkdirSync(config["data-dir"], {recursive: true});
    this.loggers = new LoggerRegistry({
      logLevel: config["log-level"],
      displayLevel: config["log-display-level"],
      logDir: config["log-dir"],
      displayStream: overrides.displayStream,
      format: config["log-format"],
    });
    this.logger = this.loggers.get("main");
    // Chain loggers exist from the start so admin.getLoggerLevel lists them (as AvalancheGo's per-chain loggers).
    for (const c of ["P", "X", "C"]) this.loggers.get(c);
    this.metrics = createCoreMetrics(new Registry());
    this.clientAddresses = new ClientAddresses(config["http-trusted-proxies"]);
    this.chains = new ChainRegistry(network);
    this.rpc = new RpcRouter(defaultRpcRouterOptions, {logger: this.logger, metrics: this.metrics.rpc});
    this.http = new HttpServer(
      {
        ...defaultHttpServerOptions,
        host: config["http-host"],
        port: config["http-port"],
        allowedHosts: config["http-allowed-hosts"],
        allowedOrigins: config["http-allowed-origins"],
        bodyLimit: config["http-body-limit"],
        shutdownDrainMs: config["http-shutdown-timeout"],
        writeTimeoutMs: config["http-write-timeout"],
      },
      {routes: this.routes, rpc: this.rpc, logger: this.logger, metrics: this.metrics.http},
    );
    this.health = new Health(
      {frequencyMs: config["health-check-frequency"], checkTimeoutMs: config["health-check-timeout"]},
      {logger: this.logger, register: this.metrics.register},
    );
  }

  /** Builds every module; opens nothing that listens until start(). */
  static async create(config: AvaextConfig, overrides: NodeOverrides = {}): Promise<AvaextNode> {
    const node = new AvaextNode(config, overrides);
    try {
      await node.wire();
    } catch (e) {
      await node.close();
      throw e;
    }
    return node;
  }

  private async wire(): Promise<void> {
    const c = this.config;
    // The database holds the index, the feed's position and the incomplete-index flags; it is opened whether or
    // not indexing is on, and closed last.
    const db = await openIndexDatabase(c["db-dir"]);
    this.db = db;
    this.onClose("database", () => db.close());
    if (db.migrated > 0)
      this.logger.info(
        {records: db.migrated, dir: db.dir},
        "moved container records of an older database layout to a store per endpoint",
      );
    const store = await IndexStore.open(db);
    this.store = store;
    await checkIncompleteIndex(store, c["index-enabled"], c["index-allow-incomplete"]);
    const source = this.overrides.feed ?? (c.feed === null ? null : this.createFeed(c.feed));
    // The dev network's EVM starts before the data API is built (its follower needs the URL), at the schedule's
    // genesis, which the stored position fixes; it stops after the feed (closers run in reverse).
    if (source instanceof DevFeed) {
      this.devFeed = source;
      this.onClose("dev EVM", () => source.close());
      await source.prepare(await store.feedPosition(source.key));
      // The dev EVMs' JSON-RPC, read-only, where a local AvalancheGo serves the C-chain's and the L1's.
      if (source.evmUrl() !== null) {
        const url = (): string | null => source.evmUrl();
        const guard = source.evmGuard()!;
        this.routes.add("/ext/bc/C/rpc", devEvmRpcRoute("/ext/bc/C/rpc", url, guard));
        this.routes.add(
          `/ext/bc/${this.chains.network.chainIds.C}/rpc`,
          devEvmRpcRoute("/ext/bc/:chain/rpc", url, guard),
        );
        this.routes.add(
          `/ext/bc/${source.l1BlockchainId()}/rpc`,
          devEvmRpcRoute("/ext/bc/:chain/rpc", () => source.evmUrl("L1"), source.evmGuard("L1")!),
        );
      }
    }
    if (source !== null) {
      const ingester = new Ingester(
        {indexEnabled: c["index-enabled"]},
        {
          source,
          store,
          status: this.feedStatus,
          avgTps: this.avgTps,
          logger: this.loggers.get("feed"),
          register: this.metrics.register,
        },
      );
      this.ingester = ingester;
      this.onClose("feed", () => ingester.close());
    }
    if (c["index-enabled"]) {
      this.rpc.register("index", createIndexMethods());
      this.routes.addResolver(indexRouteResolver(store, this.chains));
    }

    // Checks run whether or not the health API is served: their state also feeds the failing-checks gauge.
    registerChecks(
      this.health,
      {
        db,
        dataDir: c["data-dir"],
        feed: source === null ? null : this.feedStatus,
        inflight: () => this.http.inflightStats(),
      },
      {
        ...defaultCheckThresholds,
        diskRequiredPercent: c["system-tracker-disk-required-available-space-percentage"],
        diskWarningPercent: c["system-tracker-disk-warning-available-space-percentage"],
      },
    );
    this.onClose("health", () => this.health.stop());
    if (c["api-health-enabled"]) {
      this.rpc.register("health", createHealthMethods(this.health));
      registerHealthRoutes(this.routes, this.health);
    }
    if (c["metrics-service-enabled"]) {
      const service = new MetricsService(
        {rateLimitPerMinute: c["metrics-service-rate-limit"], clients: this.clientAddresses},
        {chains: this.chains, avgTps: this.avgTps},
      );
      this.routes.addResolver(service.resolver());
      // The data API opens after this: /v2 finds its store when a request comes.
      const v2 = new MetricsV2({
        network: this.chains.network,
        store: () => this.dataApi?.readClient() ?? null,
        tokens: service.tokens,
      });
      this.routes.addResolver(v2Resolver(service, v2));
    }
    // --- admin API (issue #6) ---
    if (c["api-admin-enabled"]) {
      const rawDb = db.rawReader();
      const admin = new AdminService(
        {config: c},
        {
          routes: this.routes,
          chains: this.chains,
          loggers: this.loggers,
          logger: this.logger,
          db: () => this.overrides.rawDb ?? rawDb,
        },
      );
      this.admin = admin;
      this.rpc.register("admin", admin.methods);
      this.routes.add("/ext/admin", {template: "/ext/admin", rpc: {service: "admin", ctx: null}, sensitive: true});
      this.onClose("admin", () => admin.close());
    }
    // --- end admin API ---
    if (c["data-api-enabled"]) {
      if (!c["index-enabled"] && c["data-api-role"] !== "serve") {
        throw new Error(
          "--data-api-enabled folds the container index: it needs --index-enabled (or --data-api-role serve, to answer from a store another process writes)",
        );
      }
      // The dev network's genesis is the one its feed wrote; any other network's is resolved from the flags.
      const genesis = dataApiGenesis({
        network: this.chains.network,
        feed: c.feed,
        genesisFile: c["genesis-file"],
        dataDir: c["data-dir"],
        resolved: this.genesisFile,
        ...(source instanceof DevFeed ? {devGenesisText: source.genesisText()} : {}),
      });
      const dataApi = await DataApiService.open(
        {
          db: c["data-api-db"],
          role: c["data-api-role"] as DataApiRole,
          dataDir: c["data-dir"],
          pgliteSharedBuffersMb: c["data-api-pglite-shared-buffers"],
          rateLimitPerMinute: c["data-api-rate-limit"],
          statementTimeoutMs: c["data-api-statement-timeout"],
          clients: this.clientAddresses,
          keys: c["data-api-keys-file"] ? loadApiKeys(c["data-api-keys-file"]) : null,
          maxLag: 10_000,
          evmChains: this.evmChainSpecs(),
          evmMaxReorgDepth: c["evm-max-reorg-depth"],
          contractMetadata: c["contract-metadata-file"] ? loadContractMetadata(c["contract-metadata-file"]) : new Map(),
          nftFetch: {ipfsGateway: c["ipfs-gateway"], allowPrivate: c["nft-metadata-allow-private"]},
          icmContracts: c["icm-contracts"],
          webhooks: {
            allowPrivateUrls: c["webhooks-allow-private-urls"],
            maxAddresses: c["webhooks-max-addresses"],
            maxPerKey: c["webhooks-max-per-key"],
            timeoutMs: c["webhooks-timeout"],
            retentionMs: c["webhooks-retention"],
          },
          signatures: {
            warpSignerUrls: c["warp-signer-urls"],
            aggregatorUrl: c["signature-aggregator-url"] || null,
            aggregatorTimeoutMs: c["signature-aggregator-timeout"],
            platformRpc: c["platform-rpc"] || null,
          },
        },
        {
          index: c["index-enabled"] ? store : null,
          network: this.chains.network,
          chains: this.chains,
          routes: this.routes,
          health: this.health,
          logger: this.loggers.get("data-api"),
          register: this.metrics.register,
          genesis,
          avaxAssetId: genesis.avaxAssetId,
          fatal: (err) => this.fatal(err),
          webhookClock: this.overrides.webhookClock,
          // A local network's validators hold AvalancheGo's public local keys: they sign here (the dev network's
          // and any local network's warp messages, by AvalancheGo's rules).
          signatureSources: this.chains.network.name === "local" ? [localValidatorSigners] : [],
        },
      );
      this.dataApi = dataApi;
      this.onClose("data API", () => dataApi.close());
    }
    if (c["api-metrics-enabled"]) {
      const register = this.metrics.register;
      this.routes.add("/ext/metrics", {
        template: "/ext/metrics",
        plain: async () => ({status: 200, contentType: register.contentType, body: await register.metrics()}),
      });
    }
  }

  /** Starts listening; resolves with the server's URL. */
  async start(): Promise<URL> {
    if (this.status !== "created") throw new Error(`cannot start a node that is ${this.status}`);
    const url = await this.http.listen();
    this.status = "started";
    this.health.start();
    await this.ingester?.start();
    await this.dataApi?.start();
    this.logger.info(
      {url: url.toString(), network: this.chains.network.name, apis: this.routes.paths()},
      `HTTP API listening on ${url.host}`,
    );
    return url;
  }

  url(): URL {
    return this.http.url();
  }

  /** Graceful shutdown: stop accepting and drain HTTP, stop feeds and checks, close the database last. */
  async close(): Promise<void> {
    if (this.status === "closing" || this.status === "closed") return;
    const wasStarted = this.status === "started";
    this.status = "closing";
    if (wasStarted) {
      this.logger.info("shutting down");
      await this.health.markShuttingDown();
      await this.http.close();
    }
    for (const c of this.closers.reverse()) {
      try {
        await c.close();
      } catch (err) {
        this.logger.error({err, module: c.name}, "error while closing");
      }
    }
    this.status = "closed";
    this.logger.info("stopped");
    await this.loggers.close();
  }

  private createFeed(spec: string): FeedSource {
    const status = this.feedStatus;
    if (spec === "dev") {
      const evm = this.config["dev-evm"] ? {logger: this.logger} : null;
      return new DevFeed(
        {
          ...defaultDevFeedOptions,
          backfillMs: this.config["dev-backfill"],
          genesisPath: devGenesisPath(this.config["data-dir"]),
        },
        {status, network: this.chains.network, evm, now: this.overrides.devNow},
      );
    }
    if (spec.startsWith("file:")) {
      return new FileFeed(
        {...defaultFileFeedOptions, path: spec.slice("file:".length)},
        {
          chains: this.chains,
          status,
          logger: this.loggers.get("feed"),
          bad: {badLine: (n, r) => this.ingester?.badLine(n, r)},
        },
      );
    }
    return new HttpFeed({...defaultHttpFeedOptions, url: spec}, {status, logger: this.loggers.get("feed")});
  }

  /**
   * `--evm-rpc`, and the dev network's own EVMs: its C-chain unless a C is given, its L1 unless that is given
   * (their URLs change on restarts).
   */
  private evmChainSpecs(): EvmChainSpec[] {
    const given = parseEvmRpcList(this.config["evm-rpc"]);
    const dev = this.devFeed;
    if (!dev || dev.evmUrl() === null) return given;
    const network = this.chains.network;
    const l1 = dev.l1BlockchainId()!;
    const namesC = given.some((g) => EvmChains.identity(g, network).isCChain);
    const namesL1 = given.some((g) => g.name === l1 || g.name === String(DEV_L1_EVM_CHAIN_ID));
    return [
      ...(namesC ? [] : [{name: "C", url: dev.evmUrl()!, urlOf: () => dev.evmUrl()!, guard: dev.evmGuard()!}]),
      ...given,
      ...(namesL1
        ? []
        : [{name: l1, url: dev.evmUrl("L1")!, urlOf: () => dev.evmUrl("L1")!, guard: dev.evmGuard("L1")!}]),
    ];
  }

  /** Sets what ends the process when a part of it fails for good (see fatal). */
  onFatal(handler: (err: Error) => void): void {
    this.fatalHandler = handler;
  }

  /**
   * A part failed for good (the data API's store is lost): logged at fatal level and handed to the process, which
   * shuts down and exits non-zero rather than serving errors and retrying forever.
   */
  private fatal(err: Error): void {
    this.logger.fatal({err}, `fatal: ${err.message}; avaext exits`);
    this.fatalHandler?.(err);
  }

  /** Registers something to close on shutdown (closed in reverse order). */
  protected onClose(name: string, close: () => Promise<void> | void): void {
    this.closers.push({name, close});
  }
}
