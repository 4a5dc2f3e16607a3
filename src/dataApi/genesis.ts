/**
 * The genesis a network's views start from, and its AVAX asset ID. The dev network (`--feed dev`) has its own
 * genesis (src/dev/genesis.ts). Mainnet's and fuji's genesis state (allocations, initial stakers) is AvalancheGo's
 * genesis data, which this project does not ship: their views start from the first container, and balances of
 * genesis UTXOs appear once a transaction spends them.
 */
import type {NetworkInfo} from "../chains/index.js";
import type {GenesisState} from "./views/primary/model.js";
import {DEV_AVAX_ASSET_ID, DevPrimaryNetwork} from "../dev/primaryNetwork.js";

/** The X-chain AVAX asset IDs of the public networks (the ID of each X-chain genesis's AVAX CreateAssetTx). */
const AVAX_ASSET_IDS: Record<number, string> = {
  1: "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z",
  5: "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK",
};

export interface NetworkGenesis {
  state: ((firstBlockTs: bigint) => GenesisState) | null;
  avaxAssetId: string;
}

export function genesisFor(network: NetworkInfo, feed: string): NetworkGenesis {
  // The dev feed's network starts a minute before its first block (src/feed/dev.ts devGenesisTime).
  if (feed === "dev") return {state: (firstBlockTs) => new DevPrimaryNetwork(network, firstBlockTs - 60n).genesis(), avaxAssetId: DEV_AVAX_ASSET_ID};
  const known = AVAX_ASSET_IDS[network.id];
  if (known) return {state: null, avaxAssetId: known};
  return {state: null, avaxAssetId: LOCAL_AVAX_ASSET_ID};
}

/** The local network's AVAX asset ID (AvalancheGo's genesis_local). */
export const LOCAL_AVAX_ASSET_ID = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";
