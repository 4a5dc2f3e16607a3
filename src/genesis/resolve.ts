/**
 * Which genesis a network has, as AvalancheGo's `getGenesisData` (config/config.go) chooses it: mainnet and fuji
 * their built-in one; any other network ID the `--genesis-file` given, whose networkID must be the node's. avaext
 * differs from AvalancheGo in two places: it also accepts `--genesis-file` for local (the dev network's replay
 * needs the dev network's own file), where AvalancheGo refuses a file for all three; and without a file, a network
 * other than the three has no genesis here, where AvalancheGo falls back to the local config with the network's
 * ID (its chain IDs are still computed that way, for the node's APIs, but the data API refuses to start).
 */
import {NETWORKS, networkFromId, parseNetworkId, type NetworkInfo} from "../chains/index.js";
import {buildGenesis, genesisIds, type NetworkGenesis} from "./build.js";
import {parseGenesisConfig, validateGenesisConfig, type GenesisConfig} from "./config.js";
import {builtInGenesisText, readGenesisText, recentLocalStartTime} from "./files.js";

/** A network's genesis config and where it came from; `build()` runs the builder once. */
export interface ResolvedGenesis {
  config: GenesisConfig;
  /** `built-in genesis_mainnet.json`, `--genesis-file /path`, ... (for messages). */
  origin: string;
  build(): NetworkGenesis;
}

export class GenesisError extends Error {}

function resolved(config: GenesisConfig, origin: string): ResolvedGenesis {
  let built: NetworkGenesis | null = null;
  return {config, origin, build: () => (built ??= buildGenesis(config))};
}

/** A genesis config's text parsed and validated (genesis/genesis.go validateConfig); errors name `origin`. */
export function genesisFromText(text: string, origin: string): ResolvedGenesis {
  try {
    const config = parseGenesisConfig(text);
    validateGenesisConfig(config);
    return resolved(config, origin);
  } catch (e) {
    throw new GenesisError(`${origin}: ${(e as Error).message}`);
  }
}

/**
 * The genesis of network `networkId`: `genesisFile` (path) when given, else the built-in one, else null. Throws
 * GenesisError for a file given for mainnet or fuji, or whose networkID is not `networkId`.
 */
export function resolveGenesis(
  networkId: number,
  genesisFile: string | null,
  nowSeconds = BigInt(Math.floor(Date.now() / 1000)),
): ResolvedGenesis | null {
  if (genesisFile !== null) {
    if (networkId === NETWORKS.mainnet.id || networkId === NETWORKS.fuji.id) {
      throw new GenesisError(
        `--genesis-file is not accepted for network ${networkId}: its genesis is AvalancheGo's own, built in`,
      );
    }
    const g = genesisFromText(readGenesis(genesisFile), `--genesis-file ${genesisFile}`);
    if (g.config.networkId !== networkId) {
      throw new GenesisError(
        `--genesis-file ${genesisFile} is the genesis of network ${g.config.networkId}, but --network-id is ${networkId}`,
      );
    }
    return g;
  }
  const text = builtInGenesisText(networkId);
  if (text === null) return null;
  const g = genesisFromText(text, `the built-in genesis of network ${networkId}`);
  if (networkId !== NETWORKS.local.id) return g;
  return resolved({...g.config, startTime: recentLocalStartTime(g.config.startTime, nowSeconds)}, g.origin);
}

function readGenesis(file: string): string {
  try {
    return readGenesisText(file);
  } catch (e) {
    throw new GenesisError((e as Error).message);
  }
}

/**
 * `--network-id` with its chain IDs: those of its genesis file when one is given; else mainnet's, fuji's and
 * local's AvalancheGo constants (src/chains); else, for another network, the ones AvalancheGo computes from the
 * local config with the network's ID.
 */
export function networkWithGenesis(networkFlag: string, genesis: ResolvedGenesis | null): NetworkInfo {
  const id = parseNetworkId(networkFlag);
  const builtIn = Object.values(NETWORKS).some((n) => n.id === id);
  if (builtIn && !genesis?.origin.startsWith("--genesis-file")) return networkFromId(networkFlag);
  const config = genesis?.config ?? {
    ...genesisFromText(builtInGenesisText(NETWORKS.local.id)!, "the built-in local genesis").config,
    networkId: id,
  };
  const chainIds = genesisIds(config).chainIds;
  return {...networkFromId(networkFlag, chainIds), cChainEvmId: evmChainId(config.cChainGenesis)};
}

/** The EVM chain ID in a C-chain genesis (`config.chainId`), or null when it names none. */
function evmChainId(cChainGenesis: string): number | null {
  try {
    const id = (JSON.parse(cChainGenesis) as {config?: {chainId?: unknown}}).config?.chainId;
    return typeof id === "number" && Number.isSafeInteger(id) ? id : null;
  } catch {
    return null;
  }
}
