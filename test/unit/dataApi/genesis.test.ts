/**
 * Which genesis the data API folds (src/dataApi/genesis.ts), and the check that its chain IDs are the node's: a dev
 * network run under mainnet's ID is the one exception, and only when its genesis is the dev feed's own file.
 */
import {writeFileSync} from "node:fs";
import {describe, expect, it} from "vitest";
import {NETWORKS, type NetworkInfo} from "../../../src/chains/index.js";
import {dataApiGenesis, devGenesisPath} from "../../../src/dataApi/genesis.js";
import {builtInGenesisText} from "../../../src/genesis/files.js";
import {tempDir} from "../../helpers/node.js";

/** Mainnet's ID with an X-chain ID that mainnet's genesis does not give. */
const wrongX: NetworkInfo = {
  ...NETWORKS.mainnet,
  chainIds: {...NETWORKS.mainnet.chainIds, X: NETWORKS.fuji.chainIds.X},
};

describe("the data API's genesis", () => {
  it("is the network's own, with the node's chain IDs", () => {
    const g = dataApiGenesis({network: NETWORKS.mainnet, feed: null, genesisFile: null, dataDir: tempDir()});
    expect(g.avaxAssetId).toBe("FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z");
    expect(g.config.allocations.length).toBe(5390);
  });

  it("refuses a genesis whose chain IDs are not the node's", () => {
    expect(() => dataApiGenesis({network: wrongX, feed: null, genesisFile: null, dataDir: tempDir()})).toThrow(
      /gives the X-chain ID .* but this node runs/,
    );
  });

  it("checks them under a dev feed that wrote no genesis (a rebuild of a mainnet data directory)", () => {
    expect(() => dataApiGenesis({network: wrongX, feed: "dev", genesisFile: null, dataDir: tempDir()})).toThrow(
      /gives the X-chain ID .* but this node runs/,
    );
  });

  it("lets the dev network's own genesis stand in under mainnet's ID", () => {
    const d = tempDir();
    // The dev network under mainnet's ID writes genesis_local's config under that ID (src/dev/genesis.ts).
    const local = JSON.parse(builtInGenesisText(NETWORKS.local.id)!) as Record<string, unknown>;
    writeFileSync(devGenesisPath(d), JSON.stringify({...local, networkID: NETWORKS.mainnet.id}));
    const g = dataApiGenesis({network: wrongX, feed: "dev", genesisFile: null, dataDir: d});
    expect(g.config.networkId).toBe(NETWORKS.mainnet.id);
    expect(g.config.allocations.length).toBe(3);
  });

  it("is refused, naming --genesis-file, for a network with none built in", () => {
    const custom: NetworkInfo = {...NETWORKS.local, name: "network-4242", id: 4242};
    expect(() => dataApiGenesis({network: custom, feed: null, genesisFile: null, dataDir: tempDir()})).toThrow(
      /network 4242 has no built-in genesis.*--genesis-file PATH/,
    );
  });
});
