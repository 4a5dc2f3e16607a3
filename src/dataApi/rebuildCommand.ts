/** The `avaext data-api rebuild` command's wiring: the node's index and network, then rebuildDataApi. */
import {networkFromId, ChainRegistry} from "../chains/index.js";
import type {AvaextConfig} from "../cli/flags.js";
import {Database} from "../db/controller.js";
import {IndexStore} from "../index/store.js";
import {LoggerRegistry} from "../logger/index.js";
import {genesisFor} from "./genesis.js";
import {rebuildDataApi} from "./rebuild.js";

export async function rebuildFromConfig(c: AvaextConfig): Promise<{containers: number; seconds: number}> {
  const loggers = new LoggerRegistry({logLevel: c["log-level"], displayLevel: c["log-display-level"], logDir: c["log-dir"], format: c["log-format"]});
  const chains = new ChainRegistry(networkFromId(c["network-id"]));
  const db = await Database.open(c["db-dir"]);
  try {
    const index = await IndexStore.open(db);
    const genesis = genesisFor(chains.network, c.feed);
    return await rebuildDataApi(
      {db: c["data-api-db"], dataDir: c["data-dir"], pgliteSharedBuffersMb: c["data-api-pglite-shared-buffers"]},
      {index, network: chains.network, genesis: genesis.state, avaxAssetId: genesis.avaxAssetId, logger: loggers.get("data-api")},
    );
  } finally {
    await db.close();
    await loggers.close();
  }
}
