/**
 * Resolves the effective configuration: for each flag, the command line, else the environment, else the config
 * file, else the default (docs/reference/cli.md). Every failure names the flag and the reason.
 */
import {ipRangeList} from "../util/ipRanges.js";
import {readFileSync} from "node:fs";
import {PGLITE_SHARED_BUFFERS_MB} from "../dataApi/store/defaults.js";
import {badUpstreamUrl} from "../util/url.js";
import {parseEvmRpcList} from "./evmRpcList.js";
import {FLAGS, FLAG_BY_NAME, envName, parseFlagValue, type AvaextConfig} from "./flags.js";

/** A configuration error: printed as one line, exit code 2. */
export class ConfigError extends Error {
  constructor(
    readonly flag: string | null,
    reason: string,
  ) {
    super(flag ? `invalid value for --${flag}: ${reason}` : reason);
    this.name = "ConfigError";
  }
}

export interface ConfigSources {
  /** Flag values from the command line, keyed by flag name (text, or true for a bare boolean flag). */
  cli: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
}

export function resolveConfig(sources: ConfigSources): AvaextConfig {
  const configFile = pick("config-file", sources, {});
  const file = configFile === undefined ? {} : readConfigFile(String(parseOne("config-file", configFile)));
  const out: Partial<Record<string, unknown>> = {};
  for (const def of FLAGS) {
    const raw = pick(def.name, sources, file);
    if (raw !== undefined) {
      out[def.name] = parseOne(def.name, raw);
    } else {
      out[def.name] = typeof def.default === "function" ? def.default(out as Partial<AvaextConfig>) : def.default;
    }
  }
  const config = out as unknown as AvaextConfig;
  validate(config);
  return config;
}

function pick(name: string, sources: ConfigSources, file: Record<string, unknown>): unknown {
  if (sources.cli[name] !== undefined) return sources.cli[name];
  const env = sources.env[envName(name)];
  if (env !== undefined) return env;
  return file[name];
}

function parseOne(name: string, raw: unknown): unknown {
  try {
    return parseFlagValue(FLAG_BY_NAME.get(name)!, raw);
  } catch (e) {
    throw new ConfigError(name, (e as Error).message);
  }
}

function readConfigFile(p: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(p, "utf8");
  } catch (e) {
    throw new ConfigError(
      "config-file",
      `cannot read ${p}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError("config-file", `${p} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ConfigError("config-file", `${p} must hold a JSON object of flag names to values`);
  }
  for (const key of Object.keys(json)) {
    if (!FLAG_BY_NAME.has(key) || key === "config-file")
      throw new ConfigError("config-file", `${p}: unknown flag ${JSON.stringify(key)}`);
  }
  return json as Record<string, unknown>;
}

const FEED_RE = /^(dev|file:.+|https?:\/\/.+)$/;

function validate(c: AvaextConfig): void {
  if (c["health-check-frequency"] <= 0) throw new ConfigError("health-check-frequency", "must be greater than 0");
  if (c["health-check-timeout"] <= 0) throw new ConfigError("health-check-timeout", "must be greater than 0");
  if (c.feed !== null && !FEED_RE.test(c.feed))
    throw new ConfigError("feed", `expected dev, file:PATH or http://HOST:PORT, got ${JSON.stringify(c.feed)}`);
  if (c.feed?.startsWith("http")) {
    try {
      new URL(c.feed);
    } catch {
      throw new ConfigError("feed", `${JSON.stringify(c.feed)} is not a valid URL`);
    }
  }
  for (const f of [
    "system-tracker-disk-required-available-space-percentage",
    "system-tracker-disk-warning-available-space-percentage",
  ] as const) {
    if (c[f] > 100) throw new ConfigError(f, `must be a percentage 0-100, got ${c[f]}`);
  }
  // V8 ignores a factor it cannot parse (with a line on stderr): refused here, where the flag is named.
  if (c["v8-heap-growing-percent"] > 1000)
    throw new ConfigError("v8-heap-growing-percent", `must be 0-1000, got ${c["v8-heap-growing-percent"]}`);
  const sb = PGLITE_SHARED_BUFFERS_MB;
  if (c["data-api-pglite-shared-buffers"] < sb.min || c["data-api-pglite-shared-buffers"] > sb.max) {
    throw new ConfigError(
      "data-api-pglite-shared-buffers",
      `must be ${sb.min}-${sb.max} (MiB), got ${c["data-api-pglite-shared-buffers"]}`,
    );
  }
  if (c["http-body-limit"] < 1024) throw new ConfigError("http-body-limit", "must be at least 1024 bytes");
  try {
    ipRangeList(c["http-trusted-proxies"]);
  } catch (e) {
    throw new ConfigError("http-trusted-proxies", (e as Error).message);
  }
  // The backfill starts this long ago; ten years keeps every timestamp well inside the index's range.
  if (c["dev-backfill"] > MAX_DEV_BACKFILL_MS)
    throw new ConfigError("dev-backfill", "must be at most 87600h (ten years)");
  try {
    parseEvmRpcList(c["evm-rpc"]);
  } catch (e) {
    throw new ConfigError("evm-rpc", (e as Error).message.replace(/^--evm-rpc: /, ""));
  }
  for (const a of c["icm-contracts"])
    if (!/^0x[0-9a-fA-F]{40}$/.test(a))
      throw new ConfigError("icm-contracts", `${JSON.stringify(a)} is not a 0x address`);
  for (const u of c["warp-signer-urls"]) {
    const bad = badUpstreamUrl(u);
    if (bad) throw new ConfigError("warp-signer-urls", bad);
  }
  for (const f of ["signature-aggregator-url", "platform-rpc"] as const) {
    const bad = c[f] === "" ? null : badUpstreamUrl(c[f]);
    if (bad) throw new ConfigError(f, bad);
  }
  if (c["signature-aggregator-timeout"] <= 0)
    throw new ConfigError("signature-aggregator-timeout", "must be greater than 0");
  if (!/^https?:\/\/.+\/$/.test(c["ipfs-gateway"]))
    throw new ConfigError(
      "ipfs-gateway",
      `must be an http(s) URL ending in /, got ${JSON.stringify(c["ipfs-gateway"])}`,
    );
}

const MAX_DEV_BACKFILL_MS = 87_600 * 3_600_000;
