/**
 * Every command-line flag: name (AvalancheGo's where it has one), type, default and help text. The CLI, the
 * environment (`AVAEXT_<UPPER_SNAKE>`), `--config-file` and `admin.getConfig` all read this one table.
 */
import os from "node:os";
import path from "node:path";
import {parseNetworkId} from "../chains/index.js";
import {parseLogFormat, parseLogLevel, type LogFormat, type LogLevel} from "../logger/index.js";
import {PGLITE_SHARED_BUFFERS_MB as SHARED_BUFFERS} from "../dataApi/store/defaults.js";
import {parseDuration} from "../util/duration.js";

export type FlagKind =
  | "bool"
  | "string"
  | "path"
  | "port"
  | "int"
  | "duration"
  | "list"
  | "level"
  | "format"
  | "network"
  | "role"
  | "db";

/** The parsed value of every flag, keyed by flag name. */
export interface AvaextConfig {
  "config-file": string | null;
  "data-dir": string;
  "db-dir": string;
  "log-dir": string;
  "profile-dir": string;
  "plugin-dir": string;
  "vm-aliases-file": string | null;
  "network-id": string;
  "genesis-file": string | null;
  "http-host": string;
  "http-port": number;
  "http-allowed-hosts": string[];
  "http-allowed-origins": string[];
  "http-body-limit": number;
  "http-trusted-proxies": string[];
  "http-shutdown-timeout": number;
  "http-write-timeout": number;
  "api-admin-enabled": boolean;
  "api-health-enabled": boolean;
  "api-metrics-enabled": boolean;
  "metrics-service-enabled": boolean;
  "metrics-service-rate-limit": number;
  "index-enabled": boolean;
  "index-allow-incomplete": boolean;
  feed: string | null;
  "dev-backfill": number;
  "health-check-frequency": number;
  "health-check-timeout": number;
  "system-tracker-disk-required-available-space-percentage": number;
  "system-tracker-disk-warning-available-space-percentage": number;
  "log-level": LogLevel;
  "log-display-level": LogLevel;
  "log-format": LogFormat;
  "v8-pretenuring": boolean;
  "v8-heap-growing-percent": number;
  "data-api-enabled": boolean;
  "data-api-db": string;
  "data-api-role": "ingest" | "serve" | "both";
  "data-api-pglite-shared-buffers": number;
  "data-api-keys-file": string | null;
  "data-api-rate-limit": number;
  "data-api-statement-timeout": number;
  "evm-rpc": string;
  "evm-max-reorg-depth": number;
  "dev-evm": boolean;
  "contract-metadata-file": string | null;
  "nft-metadata-allow-private": boolean;
  "webhooks-allow-private-urls": boolean;
  "webhooks-max-addresses": number;
  "webhooks-max-per-key": number;
  "webhooks-timeout": number;
  "webhooks-retention": number;
  "ipfs-gateway": string;
  "icm-contracts": string[];
  "warp-signer-urls": string[];
  "signature-aggregator-url": string;
  "signature-aggregator-timeout": number;
  "platform-rpc": string;
}

export type FlagName = keyof AvaextConfig;

export interface FlagDef<K extends FlagName = FlagName> {
  name: K;
  kind: FlagKind;
  /** Default value, possibly derived from flags resolved before it (table order). null = unset. */
  default: AvaextConfig[K] | ((c: Partial<AvaextConfig>) => AvaextConfig[K]);
  /** How the default reads in --help and docs/reference/cli.md. */
  defaultText: string;
  description: string;
  /** Its value holds URLs, which may carry credentials or API keys: admin.getConfig shows them redacted. */
  urls?: true;
}

function flag<K extends FlagName>(d: FlagDef<K>): FlagDef<K> {
  return d;
}

export const FLAGS: readonly FlagDef[] = [
  flag({
    name: "config-file",
    kind: "path",
    default: null,
    defaultText: "none",
    description: "JSON object of flag names to values; precedence: flag > env > file > default",
  }),
  flag({
    name: "data-dir",
    kind: "path",
    default: path.join(os.homedir(), ".avaext"),
    defaultText: "~/.avaext",
    description: "root of everything avaext writes",
  }),
  flag({
    name: "db-dir",
    kind: "path",
    default: (c) => path.join(c["data-dir"]!, "db"),
    defaultText: "<data-dir>/db",
    description:
      "the database directory (LevelDB; the container records in its containers/ folder, a store per endpoint)",
  }),
  flag({
    name: "log-dir",
    kind: "path",
    default: (c) => path.join(c["data-dir"]!, "logs"),
    defaultText: "<data-dir>/logs",
    description: "log files, one per logger (main.log, P.log, ...)",
  }),
  flag({
    name: "profile-dir",
    kind: "path",
    default: (c) => path.join(c["data-dir"]!, "profiles"),
    defaultText: "<data-dir>/profiles",
    description: "where admin profiles are written",
  }),
  flag({
    name: "plugin-dir",
    kind: "path",
    default: (c) => path.join(c["data-dir"]!, "plugins"),
    defaultText: "<data-dir>/plugins",
    description: "VM plugins that admin.loadVMs discovers",
  }),
  flag({
    name: "vm-aliases-file",
    kind: "path",
    default: null,
    defaultText: "none",
    description: 'JSON {"<vmID>":["alias",...]} naming plugin VMs',
  }),
  flag({
    name: "network-id",
    kind: "network",
    default: "mainnet",
    defaultText: "mainnet",
    description: "mainnet (1), fuji (5), local (12345) or a number; selects chain IDs",
  }),
  flag({
    name: "genesis-file",
    kind: "path",
    default: null,
    defaultText: "built in for mainnet, fuji, local",
    description:
      "the network's genesis in AvalancheGo's format (its genesis/genesis_local.json is an example): needed for a data API on any other network ID, also accepted for local; its networkID must be --network-id's",
  }),
  flag({
    name: "http-host",
    kind: "string",
    default: "127.0.0.1",
    defaultText: "127.0.0.1",
    description: 'address to listen on; "" = all interfaces',
  }),
  flag({
    name: "http-port",
    kind: "port",
    default: 9650,
    defaultText: "9650",
    description: "port to listen on; 0 = a free port, printed in the first log lines",
  }),
  flag({
    name: "http-allowed-hosts",
    kind: "list",
    default: ["localhost"],
    defaultText: "localhost",
    description: "comma list of Host names served (IPs always are); * = any",
  }),
  flag({
    name: "http-allowed-origins",
    kind: "list",
    default: ["*"],
    defaultText: "*",
    description: "comma list of CORS origins; * = any (never for /ext/admin)",
  }),
  flag({
    name: "http-body-limit",
    kind: "int",
    default: 1024 * 1024,
    defaultText: "1048576",
    description: "largest request body in bytes (413 above)",
  }),
  flag({
    name: "http-trusted-proxies",
    kind: "list",
    default: [],
    defaultText: "none",
    description:
      "comma list of reverse proxies (addresses or CIDR ranges, 10.0.0.0/8, ::1) whose X-Forwarded-For names the client the data API and metrics service rate-limit; from any other peer the header is ignored",
  }),
  flag({
    name: "http-shutdown-timeout",
    kind: "duration",
    default: 5000,
    defaultText: "5s",
    description: "on shutdown, how long in-flight requests may take to finish",
  }),
  flag({
    name: "http-write-timeout",
    kind: "duration",
    default: 30_000,
    defaultText: "30s",
    description:
      "an answer a client takes none of for this long is dropped with its connection (a client that never reads would hold it in memory); 0 = never",
  }),
  flag({
    name: "api-admin-enabled",
    kind: "bool",
    default: false,
    defaultText: "false",
    description: "serve /ext/admin",
  }),
  flag({
    name: "api-health-enabled",
    kind: "bool",
    default: true,
    defaultText: "true",
    description: "serve /ext/health*",
  }),
  flag({
    name: "api-metrics-enabled",
    kind: "bool",
    default: true,
    defaultText: "true",
    description: "serve /ext/metrics (Prometheus text format)",
  }),
  flag({
    name: "metrics-service-enabled",
    kind: "bool",
    default: true,
    defaultText: "true",
    description: "serve /v1/avg_tps/{chainId}",
  }),
  flag({
    name: "metrics-service-rate-limit",
    kind: "int",
    default: 60,
    defaultText: "60",
    description: "metrics service requests per client per minute (429 above); 0 = no limit",
  }),
  flag({
    name: "index-enabled",
    kind: "bool",
    default: false,
    defaultText: "false",
    description: "keep the container index and serve /ext/index/*",
  }),
  flag({
    name: "index-allow-incomplete",
    kind: "bool",
    default: false,
    defaultText: "false",
    description: "allow an index that misses containers (docs/api/index.md: incomplete index)",
  }),
  flag({
    name: "feed",
    urls: true,
    kind: "string",
    default: null,
    defaultText: "none: required to run (config/default.json, which npm start uses, sets dev)",
    description:
      "acceptance feed: dev (a dev network of its own), file:PATH (exported containers) or http://HOST:PORT (an AvalancheGo node's or avaext's /ext/index)",
  }),
  flag({
    name: "dev-backfill",
    kind: "duration",
    default: 7 * 24 * 3_600_000,
    defaultText: "168h",
    description: "history the dev feed backfills on a fresh database (0 = none, at most 87600h)",
  }),
  flag({
    name: "health-check-frequency",
    kind: "duration",
    default: 30_000,
    defaultText: "30s",
    description: "how often health checks run (Go duration, > 0)",
  }),
  flag({
    name: "health-check-timeout",
    kind: "duration",
    default: 5000,
    defaultText: "5s",
    description: "a check that runs longer fails with a timeout error",
  }),
  flag({
    name: "system-tracker-disk-required-available-space-percentage",
    kind: "int",
    default: 3,
    defaultText: "3",
    description: "diskspace check fails below this % of free disk",
  }),
  flag({
    name: "system-tracker-disk-warning-available-space-percentage",
    kind: "int",
    default: 10,
    defaultText: "10",
    description: "diskspace check fails with a warning below this % of free disk",
  }),
  flag({
    name: "log-level",
    kind: "level",
    default: "INFO",
    defaultText: "INFO",
    description: "level of the log files (VERBO DEBUG TRACE INFO WARN ERROR FATAL OFF)",
  }),
  flag({
    name: "log-display-level",
    kind: "level",
    default: (c) => c["log-level"]!,
    defaultText: "= log-level",
    description: "level of stdout",
  }),
  flag({
    name: "log-format",
    kind: "format",
    default: "auto",
    defaultText: "auto",
    description:
      "auto (text on a terminal, JSON otherwise), plain (text), colors (text, colored levels on a terminal) or json; applies to stdout and the log files",
  }),
  flag({
    name: "data-api-enabled",
    kind: "bool",
    default: false,
    defaultText: "false",
    description: "serve the data API under /v1 and fold the container index into its store",
  }),
  flag({
    name: "data-api-db",
    urls: true,
    kind: "db",
    default: "embedded",
    defaultText: "embedded",
    description:
      "the data API's store: embedded (PGlite under <data-dir>/data-api) or postgres://user:pass@host:port/db",
  }),
  flag({
    name: "data-api-pglite-shared-buffers",
    kind: "int",
    default: SHARED_BUFFERS.default,
    defaultText: String(SHARED_BUFFERS.default),
    description: `PGlite's page cache (shared_buffers), MiB, ${SHARED_BUFFERS.min}-${SHARED_BUFFERS.max}: 512 folds a 1,000,000-transaction backlog about 1.4x as fast as 128, for about 420 MB more memory (docs/operations/memory.md); unused with a server`,
  }),
  flag({
    name: "data-api-role",
    kind: "role",
    default: "both",
    defaultText: "both",
    description: "ingest (fold into the store), serve (answer /v1 from it) or both",
  }),
  flag({
    name: "data-api-keys-file",
    kind: "path",
    default: null,
    defaultText: "none",
    description: 'JSON {"<key>": {"name": "...", "rateLimit": N}}: API keys and their limits a minute',
  }),
  flag({
    name: "data-api-statement-timeout",
    kind: "duration",
    default: 10_000,
    defaultText: "10s",
    description:
      "on a PostgreSQL server, the longest one statement of a /v1 read runs before it is cancelled and the request answered 503 (0 = no limit); a statement whose client went away is cancelled at once",
  }),
  flag({
    name: "data-api-rate-limit",
    kind: "int",
    default: 600,
    defaultText: "600",
    description: "data API requests a minute per client IP without a key (429 above); 0 = no limit",
  }),
  flag({
    name: "evm-rpc",
    urls: true,
    kind: "string",
    default: "",
    defaultText: "none (dev network: its own EVM)",
    description:
      "EVM chains the data API follows: comma list of <chain>=<url>, chain = C, an EVM chain ID or a blockchain ID (C=http://127.0.0.1:9650/ext/bc/C/rpc)",
  }),
  flag({
    name: "evm-max-reorg-depth",
    kind: "int",
    default: 64,
    defaultText: "64",
    description:
      "blocks an EVM chain's view may roll back on a reorg; a deeper one stops that chain's view with an error naming the block (health, log) instead of refolding it from genesis; 0 = no limit",
  }),
  flag({
    name: "dev-evm",
    kind: "bool",
    default: true,
    defaultText: "true",
    description:
      "with --feed dev: run the dev network's C-chain and its L1 on real EVMs (anvil, from npm) and follow them",
  }),
  flag({
    name: "contract-metadata-file",
    kind: "path",
    default: null,
    defaultText: "none",
    description:
      'JSON {"0x<address>": {"name": ..., "description": ..., "officialSite": ..., ...}}: curated contract fields the data API adds to its answers',
  }),
  flag({
    name: "nft-metadata-allow-private",
    kind: "bool",
    default: false,
    defaultText: "false",
    description:
      "let the NFT metadata fetcher reach loopback, private and link-local addresses (off: refused, against SSRF)",
  }),
  flag({
    name: "webhooks-allow-private-urls",
    kind: "bool",
    default: false,
    defaultText: "false",
    description:
      "let webhook URLs reach loopback, private and link-local addresses (off: refused at creation and at every delivery, against SSRF)",
  }),
  flag({
    name: "webhooks-max-addresses",
    kind: "int",
    default: 50_000,
    defaultText: "50000",
    description: "most addresses one address_activity webhook watches (the hosted API's cap is 5)",
  }),
  flag({
    name: "webhooks-max-per-key",
    kind: "int",
    default: 100,
    defaultText: "100",
    description: "most active webhooks one API key may have (another is refused with 403 until one is deactivated)",
  }),
  flag({
    name: "webhooks-timeout",
    kind: "duration",
    default: 10_000,
    defaultText: "10s",
    description:
      "how long a webhook's receiver may take to answer 2xx before the attempt counts as failed (the hosted API's 10 s)",
  }),
  flag({
    name: "webhooks-retention",
    kind: "duration",
    default: 14 * 86_400_000,
    defaultText: "336h",
    description:
      "how long a webhook message that is done (delivered, failed, dropped, skipped) and its delivery log are kept, and so how far back a replay reaches; 0 = for good",
  }),
  flag({
    name: "ipfs-gateway",
    kind: "string",
    default: "https://ipfs.io/ipfs/",
    defaultText: "https://ipfs.io/ipfs/",
    description: "gateway for ipfs:// token URIs (the CID and path are appended)",
  }),
  flag({
    name: "icm-contracts",
    kind: "list",
    default: ["0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf"],
    defaultText: "0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf",
    description:
      "TeleporterMessenger addresses whose logs are interchain messages (comma list; the default is the v1.0.0 deployment, the same on every chain)",
  }),
  flag({
    name: "warp-signer-urls",
    urls: true,
    kind: "list",
    default: [],
    defaultText: "none",
    description:
      "validator nodes (AvalancheGo base URLs, http://10.0.0.5:9650, comma list) asked for warp signatures of messages EVM chains sent (warp_getMessageSignature; each node's BLS key from info.getNodeID): signature aggregation's source on a real network; P-chain messages are not signed over RPC",
  }),
  flag({
    name: "signature-aggregator-url",
    urls: true,
    kind: "string",
    default: "",
    defaultText: "none",
    description:
      "external aggregator asked when the local signers fall short of quorum: an icm-services signature-aggregator (URL ending in /aggregate-signatures) or a Data API base URL (Glacier, another avaext); its answer is verified against this node's validator set (502 if not)",
  }),
  flag({
    name: "signature-aggregator-timeout",
    kind: "duration",
    default: 30_000,
    defaultText: "30s",
    description: "how long the external aggregator may take (502 after)",
  }),
  flag({
    name: "platform-rpc",
    urls: true,
    kind: "string",
    default: "",
    defaultText: "none (the P-chain view)",
    description:
      "P-chain node (AvalancheGo base URL, http://127.0.0.1:9650; calls go to its /ext/bc/P) whose validator sets and chains' subnets signature aggregation uses instead of the P-chain view's: for a store that did not fold the P-chain from genesis",
  }),
  flag({
    name: "v8-heap-growing-percent",
    kind: "int",
    default: 0,
    defaultText: "0 (V8's own factor)",
    description:
      "let V8's heap grow this % past the live heap before its next full GC: less memory folding a data API backlog, slower index ingest and ranges (docs/operations/memory.md)",
  }),
  flag({
    name: "v8-pretenuring",
    kind: "bool",
    default: false,
    defaultText: "false",
    description: "keep V8's allocation-site pretenuring, which avaext turns off (docs/reference/cli.md: V8 settings)",
  }),
];

export const FLAG_BY_NAME: ReadonlyMap<string, FlagDef> = new Map(FLAGS.map((f) => [f.name, f]));

/** Environment variable of a flag: `AVAEXT_` + upper snake case. */
export function envName(flagName: string): string {
  return "AVAEXT_" + flagName.toUpperCase().replace(/-/g, "_");
}

/** Parses one flag value given as text (CLI, env) or as a JSON value (config file). Throws a short reason. */
export function parseFlagValue(def: FlagDef, raw: unknown): unknown {
  switch (def.kind) {
    case "bool": {
      if (typeof raw === "boolean") return raw;
      if (raw === true || raw === "true" || raw === "1") return true;
      if (raw === "false" || raw === "0") return false;
      throw new Error(`expected true or false, got ${show(raw)}`);
    }
    case "port": {
      const n = toInt(raw);
      if (n === null || n < 0 || n > 65535) throw new Error(`expected a port number 0-65535, got ${show(raw)}`);
      return n;
    }
    case "int": {
      const n = toInt(raw);
      if (n === null || n < 0) throw new Error(`expected a non-negative integer, got ${show(raw)}`);
      return n;
    }
    case "duration": {
      if (typeof raw !== "string") throw new Error(`expected a duration such as 30s, got ${show(raw)}`);
      const ms = parseDuration(raw);
      if (ms < 0) throw new Error(`must not be negative, got ${show(raw)}`);
      return ms;
    }
    case "list": {
      if (typeof raw !== "string") throw new Error(`expected a comma-separated list, got ${show(raw)}`);
      return raw
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
    }
    case "level": {
      if (typeof raw !== "string") throw new Error(`expected a log level, got ${show(raw)}`);
      try {
        return parseLogLevel(raw);
      } catch {
        throw new Error(`unknown log level ${show(raw)}; expected one of VERBO DEBUG TRACE INFO WARN ERROR FATAL OFF`);
      }
    }
    case "format": {
      if (typeof raw !== "string") throw new Error(`expected a log format, got ${show(raw)}`);
      return parseLogFormat(raw);
    }
    case "network": {
      const s = typeof raw === "number" ? String(raw) : raw;
      if (typeof s !== "string") throw new Error(`expected a network name or ID, got ${show(raw)}`);
      parseNetworkId(s);
      return s;
    }
    case "path": {
      if (typeof raw !== "string" || raw === "") throw new Error(`expected a path, got ${show(raw)}`);
      return raw;
    }
    case "string": {
      if (typeof raw !== "string") throw new Error(`expected a string, got ${show(raw)}`);
      return raw;
    }
    case "role": {
      if (raw !== "ingest" && raw !== "serve" && raw !== "both")
        throw new Error(`expected ingest, serve or both, got ${show(raw)}`);
      return raw;
    }
    case "db": {
      if (typeof raw !== "string" || (raw !== "embedded" && !/^postgres(ql)?:\/\/./.test(raw))) {
        throw new Error(`expected embedded or a postgres:// URL, got ${show(raw)}`);
      }
      return raw;
    }
  }
}

function toInt(raw: unknown): number | null {
  if (typeof raw === "number") return Number.isSafeInteger(raw) ? raw : null;
  if (typeof raw === "string" && /^[0-9]+$/.test(raw)) return Number(raw);
  return null;
}

function show(raw: unknown): string {
  return JSON.stringify(raw) ?? String(raw);
}
