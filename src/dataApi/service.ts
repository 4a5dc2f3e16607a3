/**
 * The data API's composition (contract data-api §1, §3, §4): the SQL store (PGlite embedded, or a PostgreSQL
 * server), its migrations and writer lock, the primary-network view that folds the container index into it, the
 * `/v1` routes that answer from it, and its health check. Roles: `ingest` folds and serves nothing under `/v1`;
 * `serve` answers from a store another process writes; `both` does both.
 */
import {randomBytes} from "node:crypto";
import path from "node:path";
import {Gauge, type Registry} from "prom-client";
import {METRIC_PREFIX} from "../metrics/index.js";
import type {ChainRegistry, NetworkInfo} from "../chains/index.js";
import type {Health} from "../health/health.js";
import type {IndexStore} from "../index/store.js";
import type {Logger} from "../logger/index.js";
import type {Routes} from "../api/routes.js";
import {acquireWriterLock, type WriterLock} from "./store/lock.js";
import {migrate, schemaVersion} from "./store/migrations.js";
import {openSqlClient, type SqlClient} from "./store/client.js";
import {MIGRATIONS} from "./store/schema.js";
import {createViewMetrics} from "./views/metrics.js";
import type {GenesisState} from "./views/primary/model.js";
import {PrimaryView, defaultPrimaryViewOptions} from "./views/primary/view.js";
import {DataApiRouter} from "./server/router.js";
import {registerPrimaryRoutes} from "./routes/primary.js";

export type DataApiRole = "ingest" | "serve" | "both";

export interface DataApiOptions {
  /** `embedded` (PGlite under `<dataDir>/data-api`) or a `postgres://` URL. */
  db: string;
  role: DataApiRole;
  dataDir: string;
  rateLimitPerMinute: number;
  /** API keys (`--data-api-keys-file`, parsed); null = keys are ignored. */
  keys: Map<string, {name: string; rateLimit: number}> | null;
  /** The view fails the health check when this many containers are not folded yet. */
  maxLag: number;
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
  /** The network's genesis (the dev network's own); null when not known here. */
  genesis: ((firstBlockTs: bigint) => GenesisState) | null;
  avaxAssetId: string;
}

export class DataApiService {
  view: PrimaryView | null = null;
  private lock: WriterLock | null = null;

  private constructor(
    readonly opts: DataApiOptions,
    private readonly modules: DataApiModules,
    readonly sql: SqlClient,
  ) {}

  /** Opens the store (migrating it as the writer), takes the writer lock and registers the routes; starts nothing. */
  static async open(opts: DataApiOptions, modules: DataApiModules): Promise<DataApiService> {
    const dataDir = opts.db === "embedded" ? path.join(opts.dataDir, "data-api") : null;
    const sql = await openSqlClient({url: opts.db, dataDir}, {logger: modules.logger});
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
      this.lock = await acquireWriterLock(sql, {dataDir: opts.db === "embedded" ? path.join(opts.dataDir, "data-api") : null});
      const {from, to} = await migrate(sql, MIGRATIONS, {logger: modules.logger});
      if (from !== to) modules.logger.info({from, to}, "data API store migrated");
    } else {
      const v = await schemaVersion(sql);
      const want = MIGRATIONS[MIGRATIONS.length - 1]!.version;
      if (v !== want) throw new Error(`data API store is at schema version ${v}, this build serves version ${want}: start an ingest process of this build first`);
    }
    const secret = await this.tokenSecret();
    if (writes && modules.index) {
      this.view = new PrimaryView(defaultPrimaryViewOptions, {
        index: modules.index,
        sql,
        network: modules.network,
        genesis: modules.genesis,
        avaxAssetId: modules.avaxAssetId,
        logger: modules.logger,
        metrics: modules.register ? createViewMetrics(modules.register) : null,
      });
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
      const router = new DataApiRouter(
        {network: modules.network, tokenSecret: secret, rateLimitPerMinute: opts.rateLimitPerMinute, keys: opts.keys},
        {chains: modules.chains, logger: modules.logger, register: modules.register},
      );
      registerPrimaryRoutes(router, {sql, network: modules.network, chains: modules.chains, avaxAssetId: modules.avaxAssetId});
      modules.routes.addResolver(router.resolver());
    }
  }

  /** The per-store secret that authenticates page tokens: made once, shared by every process on the store. */
  private async tokenSecret(): Promise<Uint8Array> {
    await this.sql.query("INSERT INTO data_api_meta (key, value) VALUES ('tokenSecret', $1) ON CONFLICT DO NOTHING", [randomBytes(32).toString("hex")]);
    const rows = await this.sql.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = 'tokenSecret'");
    return Uint8Array.from(Buffer.from(rows[0]!.value, "hex"));
  }

  private registerHealth(): void {
    const {health} = this.modules;
    const check = async (): Promise<{details?: unknown; error?: string}> => {
      const started = Date.now();
      await this.sql.query("SELECT 1");
      const details: Record<string, unknown> = {role: this.opts.role, storeLatencyMs: Date.now() - started};
      if (this.view) {
        const lag = this.view.lag();
        details.lag = Number(lag);
        if (this.view.lastError) return {details, error: `primary-network view: ${this.view.lastError.message}`};
        if (lag > BigInt(this.opts.maxLag)) return {details, error: `primary-network view is ${lag} containers behind the index`};
      }
      return {details};
    };
    health.registerHealth("data-api", check, ["application"]);
    health.registerReadiness("data-api", check, ["application"]);
  }

  async start(): Promise<void> {
    await this.view?.start();
  }

  async close(): Promise<void> {
    await this.view?.close();
    await this.lock?.release().catch(() => {});
    await this.sql.close();
  }
}
