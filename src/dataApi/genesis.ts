/**
 * The genesis the data API's views fold, built by src/genesis/build.ts from the network's genesis config: the dev
 * network's own file (`<data-dir>/genesis.json`, which the dev feed writes), `--genesis-file`, or the built-in
 * config of mainnet, fuji and local. A network with none is refused: a view never folds without its genesis.
 */
import {existsSync} from "node:fs";
import path from "node:path";
import {NETWORKS, type NetworkInfo} from "../chains/index.js";
import {buildGenesis, genesisIds} from "../genesis/build.js";
import type {GenesisConfig} from "../genesis/config.js";
import type {GenesisState} from "./views/primary/model.js";
import {readGenesisText} from "../genesis/files.js";
import {GenesisError, genesisFromText, resolveGenesis, type ResolvedGenesis} from "../genesis/resolve.js";

/** Where the dev feed writes its network's genesis (AvalancheGo's format). */
export function devGenesisPath(dataDir: string): string {
  return path.join(dataDir, "genesis.json");
}

export interface DataApiGenesisOptions {
  network: NetworkInfo;
  feed: string | null;
  genesisFile: string | null;
  dataDir: string;
  /** The dev feed's genesis text when the feed runs in this process (else read from `<data-dir>/genesis.json`). */
  devGenesisText?: string;
  /** `--genesis-file` already resolved (src/genesis/resolve.ts), so it is not read and built twice. */
  resolved?: ResolvedGenesis | null;
}

/**
 * The genesis config the views of `network` fold, and whether it is the dev network's own file; throws GenesisError
 * naming `--genesis-file` when there is none.
 */
export function dataApiGenesisConfig(o: DataApiGenesisOptions): ResolvedGenesis & {devNetwork: boolean} {
  let g: ResolvedGenesis | null = null;
  let devNetwork = false;
  const file = devGenesisPath(o.dataDir);
  // The dev feed writes its genesis when it starts: a data directory without the file holds no dev network (a
  // rebuild there, whatever its --feed, folds the network's own genesis).
  if (o.feed === "dev" && (o.devGenesisText !== undefined || existsSync(file))) {
    let text = o.devGenesisText;
    try {
      text ??= readGenesisText(file);
    } catch (e) {
      throw new GenesisError(`the dev network's genesis: ${(e as Error).message}`);
    }
    g = genesisFromText(text, `the dev network's genesis ${file}`);
    devNetwork = true;
    if (g.config.networkId !== o.network.id)
      throw new GenesisError(
        `${file} is the genesis of network ${g.config.networkId}, but --network-id is ${o.network.id}`,
      );
  } else {
    g = o.resolved ?? resolveGenesis(o.network.id, o.genesisFile);
  }
  if (g === null) {
    throw new GenesisError(
      `network ${o.network.id} has no built-in genesis (only mainnet, fuji and local do): the data API folds a network from its genesis, so start with --genesis-file PATH (AvalancheGo's genesis format)`,
    );
  }
  return {...g, devNetwork};
}

/** What the data API takes of a network's genesis. */
export interface DataApiGenesis {
  avaxAssetId: string;
  /**
   * Builds the genesis state (src/genesis/build.ts): called by the view only on a fresh store, so a restart
   * neither builds mainnet's genesis again nor keeps it in memory.
   */
  state: () => GenesisState;
  /** The config it is built from (genesisThread.ts builds it there, from a copy). */
  config: GenesisConfig;
}

/** dataApiGenesisConfig's IDs and its state, to build; its chain IDs must be the ones the node runs with. */
export function dataApiGenesis(o: DataApiGenesisOptions): DataApiGenesis {
  const g = dataApiGenesisConfig(o);
  const ids = genesisIds(g.config);
  // A dev network run under mainnet's or fuji's ID (tests of those networks' signature paths) carries their chain
  // IDs in its containers, while its genesis is genesis_local's under that ID, whose chain creations give other
  // IDs: there the network's chain IDs hold. Everywhere else the genesis and the node must agree: a network's own
  // genesis too under a "dev" feed that wrote no genesis.json (a rebuild, which runs no feed, takes that feed).
  const devStandIn = g.devNetwork && (o.network.id === NETWORKS.mainnet.id || o.network.id === NETWORKS.fuji.id);
  for (const c of ["P", "X", "C"] as const) {
    if (!devStandIn && ids.chainIds[c] !== o.network.chainIds[c]) {
      throw new GenesisError(
        `${g.origin} gives the ${c}-chain ID ${ids.chainIds[c]}, but this node runs ${o.network.chainIds[c]}`,
      );
    }
  }
  const config = g.config;
  return {avaxAssetId: ids.avaxAssetId, config, state: () => buildGenesis(config).state};
}
