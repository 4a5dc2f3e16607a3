/**
 * The dev network's genesis: AvalancheGo's genesis_local.json (its allocations, its five stakers with their BLS
 * signers, its cChainGenesis) with the dev network's ID and start time, in AvalancheGo's format, so AvalancheGo
 * started with the same file computes the same chain IDs and AVAX asset ID. The feed writes it to
 * `<data-dir>/genesis.json`; the views and the dev wallet both build from it (src/genesis/build.ts).
 */
import {buildGenesis, type NetworkGenesis} from "../genesis/build.js";
import {builtInGenesisText} from "../genesis/files.js";
import {genesisFromText} from "../genesis/resolve.js";

/** genesis_local.json's text with `networkID` and `startTime` replaced (every other byte as AvalancheGo ships it). */
export function devGenesisText(networkId: number, startTime: bigint): string {
  const local = builtInGenesisText(12345)!;
  const replace = (text: string, key: string, value: string): string => {
    const re = new RegExp(`("${key}"\\s*:\\s*)\\d+`);
    if (!re.test(text)) throw new Error(`genesis_local.json has no ${key}`);
    return text.replace(re, `$1${value}`);
  };
  return replace(replace(local, "networkID", String(networkId)), "startTime", startTime.toString());
}

/**
 * The dev network's genesis built. `cache` (the feed's own, which rebuilds its wallet at each replay) keeps it per
 * network and start time.
 */
export function devGenesis(networkId: number, startTime: bigint, cache?: Map<string, NetworkGenesis>): NetworkGenesis {
  const key = `${networkId}:${startTime}`;
  let g = cache?.get(key);
  if (!g) {
    g = buildGenesis(genesisFromText(devGenesisText(networkId, startTime), "the dev network's genesis").config);
    cache?.set(key, g);
  }
  return g;
}
