/** `--evm-rpc`'s value: the EVM chains the data API follows (src/dataApi/evm/chains.ts `EvmChainSpec`), by name and URL. */
import {badUpstreamUrl, redactUrl} from "../util/url.js";

export interface EvmRpcEntry {
  /** `C`, an EVM chain ID (decimal) or a blockchain ID (CB58). */
  name: string;
  url: string;
}

/** Parses `--evm-rpc`: a comma list of `<chain>=<url>`. */
export function parseEvmRpcList(value: string): EvmRpcEntry[] {
  if (value.trim() === "") return [];
  return value.split(",").map((part, i) => {
    const eq = part.indexOf("=");
    const name = part.slice(0, eq).trim();
    const url = part.slice(eq + 1).trim();
    // The entry is named by its place and its URL shown redacted: the URL may carry an API key.
    if (eq <= 0 || badUpstreamUrl(url) !== null)
      throw new Error(
        `--evm-rpc: entry ${i + 1} (${eq > 0 ? `${name}=${redactUrl(url)}` : "no ="}) is not <chain>=<http(s) url>`,
      );
    if (!/^(C|[0-9]{1,19}|[1-9A-HJ-NP-Za-km-z]{40,60})$/.test(name))
      throw new Error(`--evm-rpc: ${JSON.stringify(name)} is not C, an EVM chain ID or a blockchain ID`);
    return {name, url};
  });
}
