/**
 * The primary-network chains of a network and the chain alias table (admin.aliasChain, admin.getChainAliases).
 *
 * Chain IDs per network are those of AvalancheGo's genesis (genesis/genesis_mainnet.json, genesis_fuji.json,
 * genesis_local.json; test/unit/genesis/build.test.ts rebuilds them from the shipped files): local's C-chain ID is
 * the one since AvalancheGo #3413 changed its cChainGenesis (genesis/genesis_test.go TestVMGenesis); genesis aliases
 * as genesis/aliases.go. Aliases are per process and not persisted, as in
 * AvalancheGo.
 */
import {EMPTY_ID, idFromString} from "../util/cb58.js";

export type ChainName = "P" | "X" | "C";
export const CHAIN_NAMES: readonly ChainName[] = ["P", "X", "C"];

export interface NetworkInfo {
  name: string;
  id: number;
  chainIds: Record<ChainName, string>;
  /** EVM chain ID of the C-chain (eth_chainId), used by /v1/avg_tps. */
  cChainEvmId: number | null;
}

export const NETWORKS: Record<"mainnet" | "fuji" | "local", NetworkInfo> = {
  mainnet: {
    name: "mainnet",
    id: 1,
    chainIds: {
      P: EMPTY_ID,
      X: "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
      C: "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
    },
    cChainEvmId: 43114,
  },
  fuji: {
    name: "fuji",
    id: 5,
    chainIds: {
      P: EMPTY_ID,
      X: "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
      C: "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
    },
    cChainEvmId: 43113,
  },
  local: {
    name: "local",
    id: 12345,
    chainIds: {
      P: EMPTY_ID,
      X: "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
      C: "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC",
    },
    cChainEvmId: 43112,
  },
};

/** Reads `--network-id` (a name or a number) as its network ID; throws on anything else. */
export function parseNetworkId(value: string): number {
  const lower = value.toLowerCase();
  if (lower === "mainnet" || lower === "fuji" || lower === "local") return NETWORKS[lower].id;
  if (lower === "testnet") return NETWORKS.fuji.id;
  if (!/^\d+$/.test(value)) throw new Error(`unknown network ${JSON.stringify(value)}`);
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id > 0xffffffff) throw new Error(`network ID ${value} is out of range`);
  return id;
}

/**
 * Resolves `--network-id`: a name or a number. `chainIds` are the network's from its genesis (src/genesis): needed
 * for a network other than mainnet, fuji and local, whose chain IDs only its genesis gives, and taken over the
 * built-in ones for local when given.
 */
export function networkFromId(value: string, chainIds?: Record<ChainName, string>): NetworkInfo {
  const id = parseNetworkId(value);
  const known = Object.values(NETWORKS).find((n) => n.id === id);
  if (known) return chainIds ? {...known, chainIds} : known;
  if (!chainIds)
    throw new Error(`network ${id} is none of mainnet, fuji and local: its chain IDs come from its genesis`);
  return {name: `network-${id}`, id, chainIds, cChainEvmId: null};
}

/** AvalancheGo's genesis aliases per chain (genesis/aliases.go). */
const GENESIS_ALIASES: Record<ChainName, string[]> = {
  P: ["P", "platform"],
  X: ["X", "avm"],
  C: ["C", "evm"],
};

export const MAX_ALIAS_LENGTH = 512;

/**
 * Alias table: alias → chain ID, chain ID → aliases in registration order (genesis aliases first, then the chain
 * ID itself, then admin.aliasChain additions), as AvalancheGo's ids.Aliaser.
 */
export class ChainRegistry {
  private readonly aliasToId = new Map<string, string>();
  private readonly idToAliases = new Map<string, string[]>();
  private readonly idToName = new Map<string, ChainName>();

  constructor(readonly network: NetworkInfo) {
    for (const name of CHAIN_NAMES) {
      const id = network.chainIds[name];
      this.idToName.set(id, name);
      for (const a of GENESIS_ALIASES[name]) this.addAlias(id, a);
      this.addAlias(id, id);
    }
  }

  /** The chain ID an alias or ID names; throws AvalancheGo's text when none. */
  lookup(aliasOrId: string): string {
    const id = this.aliasToId.get(aliasOrId);
    if (id === undefined) throw new Error(`there is no ID with alias: ${aliasOrId}`);
    return id;
  }

  /** The primary-network chain an alias or ID names, or null. */
  resolveChain(aliasOrId: string): ChainName | null {
    const id = this.aliasToId.get(aliasOrId);
    return id === undefined ? null : (this.idToName.get(id) ?? null);
  }

  chainName(id: string): ChainName | null {
    return this.idToName.get(id) ?? null;
  }

  chainId(name: ChainName): string {
    return this.network.chainIds[name];
  }

  /** Aliases of a chain ID (CB58, validated); null for a valid ID with no aliases, as AvalancheGo. */
  aliases(chainId: string): string[] | null {
    idFromString(chainId); // throws AvalancheGo's CB58 error texts
    const list = this.idToAliases.get(chainId);
    return list ? [...list] : null;
  }

  /** admin.aliasChain: checks as AvalancheGo (length, lookup, already mapped). */
  aliasChain(chain: string, alias: string): void {
    if (Buffer.byteLength(alias, "utf8") > MAX_ALIAS_LENGTH) throw new Error("alias length is too long");
    const id = this.lookup(chain);
    this.addAlias(id, alias);
  }

  private addAlias(id: string, alias: string): void {
    if (this.aliasToId.has(alias)) throw new Error(`alias already mapped to an ID: ${alias}`);
    this.aliasToId.set(alias, id);
    const list = this.idToAliases.get(id) ?? [];
    list.push(alias);
    this.idToAliases.set(id, list);
  }
}
