/**
 * The admin API, `POST /ext/admin` (docs/api/admin.md; AvalancheGo api/admin/service.go): endpoint and chain
 * aliases, logger levels, profiles, VM plugins, the effective configuration and raw database reads.
 *
 * Registry refusals (a taken alias, an unknown logger, ...) are -32000 with AvalancheGo's exact texts; values that
 * do not parse are -32602 from the validators. Methods that wait on I/O are serialised in their module (the
 * profiler, the VM registry); the rest are synchronous and so atomic on the event loop.
 */
import {appError, RpcErrorReply} from "../api/errors.js";
import {method, type MethodDef, type MethodTable} from "../api/rpcRouter.js";
import type {Routes} from "../api/routes.js";
import {logLevel, noParams, parsedString, object, optional, required, string, type Validator} from "../api/validate.js";
import type {ChainRegistry} from "../chains/index.js";
import {formatDuration} from "../util/duration.js";
import {redactUrl, redactUrls} from "../util/url.js";
import {parseEvmRpcList} from "../cli/evmRpcList.js";
import {FLAGS, type AvaextConfig} from "../cli/flags.js";
import type {Logger, LoggerRegistry} from "../logger/index.js";
import {idFromString} from "../util/cb58.js";
import {bytesToHex, hexToBytes} from "../util/hex.js";
import {VMRegistry} from "./plugins.js";
import {Profiler} from "./profiler.js";

/** The narrow database view admin.dbGet needs: a raw key-value read and the store's state (`level`'s `status`). */
export interface RawKeyValueReader {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** `"open"` when reads can be served (`level`: opening, open, closing, closed). */
  readonly status: string;
}

/** admin.dbGet result codes: AvalancheGo's rpcdb protobuf enum (proto/pb/rpcdb/rpcdb.pb.go). */
export const DbErrorCode = {Unspecified: 0, Closed: 1, NotFound: 2} as const;

export interface AdminOptions {
  config: AvaextConfig;
}

export interface AdminModules {
  routes: Routes;
  chains: ChainRegistry;
  loggers: LoggerRegistry;
  logger: Logger;
  /** The database admin.dbGet reads, looked up at each call; null = none (reported as closed). */
  db: () => RawKeyValueReader | null;
}

type Empty = Record<string, never>;

/** A CB58 chain ID, validated (AvalancheGo's ids.FromString texts) and kept as the string. */
const chainId: Validator<string> = parsedString((s) => {
  idFromString(s);
  return s;
});

/** `0x`-hex without checksum (AvalancheGo's hexnc); `""` is the empty key, as formatting.Decode. */
const rawHex: Validator<Uint8Array> = parsedString((s) => (s === "" ? new Uint8Array(0) : hexToBytes(s)));

export class AdminService {
  readonly profiler: Profiler;
  readonly vms: VMRegistry;
  readonly methods: MethodTable<null>;

  constructor(
    private readonly opts: AdminOptions,
    private readonly modules: AdminModules,
  ) {
    const c = opts.config;
    this.profiler = new Profiler({dir: c["profile-dir"]});
    this.vms = new VMRegistry({dir: c["plugin-dir"], aliasesFile: c["vm-aliases-file"]});
    this.methods = this.table();
  }

  /** Stops the samplers; a CPU profile still running is written out. */
  async close(): Promise<void> {
    const file = await this.profiler.close();
    if (file !== null) this.modules.logger.info({file}, "CPU profiler stopped at shutdown; profile written");
  }

  private table(): MethodTable<null> {
    const {routes, chains, loggers} = this.modules;
    return {
      alias: method(object({endpoint: required(string), alias: required(string)}), (p): Empty => {
        this.called("alias", p);
        refused(() => routes.addAlias(p.endpoint, p.alias));
        this.modules.logger.info({endpoint: `/ext/${p.endpoint}`, alias: `/ext/${p.alias}`}, "added API alias");
        return {};
      }),
      aliasChain: method(object({chain: required(string), alias: required(string)}), (p): Empty => {
        this.called("aliasChain", p);
        refused(() => chains.aliasChain(p.chain, p.alias));
        this.modules.logger.info({chain: p.chain, alias: p.alias}, "added chain alias");
        return {};
      }),
      getChainAliases: method(object({chain: required(chainId)}), (p) => {
        this.called("getChainAliases", p);
        return {aliases: chains.aliases(p.chain)};
      }),
      getLoggerLevel: method(object({loggerName: optional(string)}), (p) => {
        this.called("getLoggerLevel", p);
        return {loggerLevels: refused(() => loggers.getLevels(p.loggerName))};
      }),
      setLoggerLevel: method(
        object({loggerName: optional(string), logLevel: optional(logLevel), displayLevel: optional(logLevel)}),
        (p) => {
          this.called("setLoggerLevel", p);
          const change = {
            ...(p.logLevel !== undefined ? {logLevel: p.logLevel} : {}),
            ...(p.displayLevel !== undefined ? {displayLevel: p.displayLevel} : {}),
          };
          const loggerLevels = refused(() => loggers.setLevels(p.loggerName, change));
          this.modules.logger.info({loggerLevels}, "changed logger levels");
          return {loggerLevels};
        },
      ),
      startCPUProfiler: method(noParams, async (): Promise<Empty> => {
        this.called("startCPUProfiler");
        await osErrors("start the CPU profiler", () => this.profiler.startCPU());
        this.modules.logger.info("CPU profiler started");
        return {};
      }),
      stopCPUProfiler: this.profileMethod("stopCPUProfiler", "write the CPU profile", "CPU profile written", () =>
        this.profiler.stopCPU(),
      ),
      memoryProfile: this.profileMethod("memoryProfile", "write the memory profile", "memory profile written", () =>
        this.profiler.memory(),
      ),
      lockProfile: this.profileMethod("lockProfile", "write the lock profile", "lock profile written", () =>
        this.profiler.lock(),
      ),
      stacktrace: this.profileMethod("stacktrace", "write the stack trace", "stack trace written", () =>
        this.profiler.stacktrace(),
      ),
      loadVMs: method(noParams, async () => {
        this.called("loadVMs");
        const result = await osErrors("load VMs", () => this.vms.load());
        const level = result.failedVMs ? "warn" : "info";
        this.modules.logger[level]({newVMs: result.newVMs, failedVMs: result.failedVMs}, "loaded VMs");
        return result;
      }),
      getConfig: method(noParams, () => {
        this.called("getConfig");
        return effectiveConfig(this.opts.config);
      }),
      dbGet: method(object({key: required(rawHex)}), async (p) => {
        this.called("dbGet", {key: "0x" + bytesToHex(p.key)});
        return dbGet(this.modules.db(), p.key, this.modules.logger);
      }),
    };
  }

  /** AvalancheGo logs every admin call at debug ("API called"), so a raised level shows who did what. */
  /** A method that writes one profile file: OS errors become -32000 naming the action; the file is logged. */
  private profileMethod(name: string, action: string, done: string, write: () => Promise<string>): MethodDef<null> {
    return method(noParams, async (): Promise<Empty> => {
      this.called(name);
      const file = await osErrors(action, write);
      this.modules.logger.info({file}, done);
      return {};
    });
  }

  private called(name: string, params?: object): void {
    this.modules.logger.debug({service: "admin", method: name, ...params}, "API called");
  }
}

/** Runs a registry call; its refusals (plain Errors carrying AvalancheGo's texts) become -32000. */
function refused<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RpcErrorReply) throw e;
    throw appError((e as Error).message);
  }
}

/**
 * Profile and plugin I/O: an OS error is a -32000 naming the action and the error code (`couldn't write the CPU
 * profile: EACCES`), never the path (docs/api/http.md); RpcErrors pass through.
 */
async function osErrors<T>(action: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof RpcErrorReply || typeof code !== "string") throw e;
    throw appError(`couldn't ${action}: ${code}`);
  }
}

/**
 * admin.getConfig: every flag by name, durations as Go duration strings (`30s`) so the unit is explicit, and URLs
 * without their credentials, query or key-bearing path (an admin caller is not necessarily the operator).
 */
export function effectiveConfig(config: AvaextConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of FLAGS) {
    const v = config[def.name];
    if (def.kind === "duration" && typeof v === "number") out[def.name] = formatDuration(v);
    else if (def.urls && typeof v === "string") out[def.name] = def.name === "evm-rpc" ? redactEvmRpc(v) : redactOne(v);
    else if (def.urls && Array.isArray(v)) out[def.name] = v.map((x) => (typeof x === "string" ? redactOne(x) : x));
    else out[def.name] = v;
  }
  return out;
}

/** One flag value that is a URL (or a word: `embedded`, `dev`, `file:…`), redacted whole: a password may hold a comma. */
function redactOne(v: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? redactUrl(v) : v;
}

/** `--evm-rpc`'s list, each entry's URL redacted (the list parsed as the flag is, so no part of a URL slips by). */
function redactEvmRpc(v: string): string {
  try {
    return parseEvmRpcList(v)
      .map((e) => `${e.name}=${redactUrl(e.url)}`)
      .join(",");
  } catch {
    return redactUrls(v);
  }
}

/** admin.dbGet: found → 0 and the value; missing → 2; no open database → 1 (AvalancheGo's rpcdb codes). */
async function dbGet(
  db: RawKeyValueReader | null,
  key: Uint8Array,
  logger: Logger,
): Promise<{value: string; errorCode: number}> {
  const closed = {value: "", errorCode: DbErrorCode.Closed};
  if (db === null || db.status !== "open") return closed;
  let value: Uint8Array | undefined;
  try {
    value = await db.get(key);
  } catch (e) {
    // Closed between the status check and the read.
    if ((e as {code?: string}).code === "LEVEL_DATABASE_NOT_OPEN" || db.status !== "open") return closed;
    logger.error({err: e}, "admin.dbGet: database read failed");
    throw e;
  }
  if (value === undefined) return {value: "", errorCode: DbErrorCode.NotFound};
  return {value: "0x" + bytesToHex(value), errorCode: DbErrorCode.Unspecified};
}
