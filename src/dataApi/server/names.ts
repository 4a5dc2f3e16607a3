/**
 * Names in data API paths and queries (docs/api/data-api.md): networks, primary-network chains and their aliases,
 * P/X bech32 addresses with the network's HRP, EVM addresses.
 */
import {bech32} from "@scure/base";
import type {ChainName, ChainRegistry, NetworkInfo} from "../../chains/index.js";
import {badRequest, notFound} from "./errors.js";

const NETWORK_NAMES = ["mainnet", "fuji", "testnet", "local"] as const;

/** AvalancheGo's HRPs (utils/constants): mainnet `avax`, fuji `fuji`, local `local`, any other network `custom`. */
export function hrpOf(network: NetworkInfo): string {
  switch (network.id) {
    case 1:
      return "avax";
    case 5:
      return "fuji";
    case 12345:
      return "local";
    default:
      return "custom";
  }
}

/** The `{network}` path parameter: the served network, else 404 (a known name) or 400. */
export function resolveNetwork(name: string, served: NetworkInfo): NetworkInfo {
  const n = name === "testnet" ? "fuji" : name;
  if (!(NETWORK_NAMES as readonly string[]).includes(name))
    throw badRequest("network", `unknown network ${JSON.stringify(name)} (one of ${NETWORK_NAMES.join(", ")})`);
  if (n !== served.name) throw notFound(`network ${name} is not served here (this node follows ${served.name})`);
  return served;
}

/** A `network` query parameter: absent, or the served network as `resolveNetwork` takes it (else 404 or 400). */
export function servedNetworkQuery(name: string | undefined, served: NetworkInfo): void {
  if (name !== undefined) resolveNetwork(name, served);
}

const CHAIN_ALIASES: Record<string, ChainName> = {"p-chain": "P", "x-chain": "X", "c-chain": "C"};

/** The `{blockchainId}` path parameter: a chain ID, `p-chain`/`x-chain`/`c-chain`, or an alias; else 404. */
export function resolveChain(
  id: string,
  chains: ChainRegistry,
  allowed?: readonly ChainName[],
  endpoint?: string,
): ChainName {
  const chain = CHAIN_ALIASES[id.toLowerCase()] ?? chains.resolveChain(id);
  if (chain === null) throw notFound(`blockchain ${id} not found on ${chains.network.name}`);
  if (allowed && !allowed.includes(chain)) {
    throw badRequest(
      "blockchainId",
      `${endpoint ?? "this endpoint"} serves the ${allowed.map((c) => `${c}-chain`).join(" and ")} only`,
    );
  }
  return chain;
}

export const CHAIN_INFO_NAMES: Record<ChainName, string> = {P: "p-chain", X: "x-chain", C: "c-chain"};

/** A P/X address (`P-local1...`, `local1...`) as its 20-byte short ID; 400 naming the parameter otherwise. */
export function parseAddress(param: string, value: string, hrp: string): Uint8Array {
  const bare = /^[PXC]-/.test(value) ? value.slice(2) : value;
  let decoded: {prefix: string; words: number[]};
  try {
    decoded = bech32.decode(bare as `${string}1${string}`, 90);
  } catch (e) {
    const why = (e as Error).message.toLowerCase().includes("checksum") ? "checksum" : "not bech32";
    throw badRequest(param, `invalid address ${JSON.stringify(value)}: ${why}`);
  }
  if (decoded.prefix !== hrp)
    throw badRequest(
      param,
      `invalid address ${JSON.stringify(value)}: expected the ${hrp} prefix, got ${decoded.prefix}`,
    );
  const bytes = bech32.fromWords(decoded.words);
  if (bytes.length !== 20)
    throw badRequest(param, `invalid address ${JSON.stringify(value)}: ${bytes.length} bytes, expected 20`);
  return bytes;
}

export function formatAddress(shortId: Uint8Array, hrp: string): string {
  return bech32.encode(hrp, bech32.toWords(shortId), 90);
}

const EVM_RE = /^0x[0-9a-fA-F]{40}$/;

export function isEvmAddress(value: string): boolean {
  return EVM_RE.test(value);
}

/** A `0x` EVM address in any case, as 20 bytes; 400 naming the parameter otherwise. */
export function parseEvmAddress(param: string, value: string): Uint8Array {
  if (!EVM_RE.test(value)) throw badRequest(param, `invalid EVM address ${JSON.stringify(value)}`);
  return Uint8Array.from(Buffer.from(value.slice(2), "hex"));
}

export {checksumAddress} from "../../evm/hex.js";
