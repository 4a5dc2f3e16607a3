/** The `avaext data-api rebuild` command's wiring: the node's index and network, then rebuildDataApi. */
import {ChainRegistry, parseNetworkId} from "../chains/index.js";
import type {AvaextConfig} from "./flags.js";
import {openIndexDatabase} from "../containerIndex/database.js";
import {IndexStore} from "../containerIndex/store.js";
import {LoggerRegistry} from "../logger/index.js";
import {networkWithGenesis, resolveGenesis} from "../genesis/resolve.js";
import {dataApiGenesis} from "../dataApi/genesis.js";
import {rebuildDataApi} from "../dataApi/rebuild.js";

export async function rebuildFromConfig(c: AvaextConfig): Promise<{containers: number; seconds: number}> {
  // The same genesis as the node's (src/node.ts): the dev network's genesis.json, --genesis-file or the built-in one.
  const genesisFile =
    c["genesis-file"] === null ? null : resolveGenesis(parseNetworkId(c["network-id"]), c["genesis-file"]);
  const chains = new ChainRegistry(networkWithGenesis(c["network-id"], genesisFile));
  const genesis = dataApiGenesis({
    network: chains.network,
    // A rebuild runs no feed: a data directory the dev feed wrote a genesis.json into holds the dev network.
    feed: c.feed ?? "dev",
    genesisFile: c["genesis-file"],
    dataDir: c["data-dir"],
    resolved: genesisFile,
  });
  const loggers = new LoggerRegistry({
    logLevel: c["log-level"],
    displayLevel: c["log-display-level"],
    logDir: c["log-dir"],
    format: c["log-format"],
  });
  const db = await openIndexDatabase(c["db-dir"]);
  try {
    const index = await IndexStore.open(db);
    return await rebuildDataApi(
      {db: c["data-api-db"], dataDir: c["data-dir"], pgliteSharedBuffersMb: c["data-api-pglite-shared-buffers"]},
      {
        index,
        network: chains.network,
        genesis: genesis.state,
        avaxAssetId: genesis.avaxAssetId,
        logger: loggers.get("data-api"),
      },
    );
  } finally {
    await db.close();
    await loggers.close();
  }
}
