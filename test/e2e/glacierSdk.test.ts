/**
 * `@avalabs/glacier-sdk` 3.0.2, unchanged, against a node on the dev network with the data API on, on both store
 * backends: every primary-network method of the SDK is called through its own client (its paths, its query
 * encoding, its headers), and every answer is held against the model the SDK declares for that method
 * (test/helpers/glacierModels.ts): each required field present, no field the model lacks, each value of its type.
 * Lists are walked page by page, so every block and transaction the dev network produced is checked.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {
  ApiError,
  BlockchainId,
  Glacier,
  PChainId,
  PrimaryNetworkTxType,
  SortOrder,
  ValidationStatusType,
  XChainId,
  type ListPChainTransactionsResponse,
  type ListXChainTransactionsResponse,
  type ListCChainAtomicTransactionsResponse,
  type Network,
} from "@avalabs/glacier-sdk";
import {NETWORKS} from "../../src/chains/index.js";
import {GlacierModels} from "../helpers/glacierModels.js";
import {STORE_BACKENDS} from "../helpers/sql.js";
import {devEvmsFollowed, devFolded} from "../helpers/devNode.js";
import {startNode, type TestNode} from "../helpers/node.js";
import {devStakers} from "../../src/dev/primaryNetwork.js";

/** The dev network's name: a network the hosted API does not have, so its enum is widened by this one value. */
const NET = "local" as Network;
/**
 * What the API pages (docs/api/) list as given beside the SDK's (a followed chain's `indexing` state; the
 * Teleporter paths' messages keep the ICM name of the contract beside the Teleporter one; a transaction's message
 * info under the hosted API's newer name too). An ERC-20 balance's `tokenReputation` is null when unknown, as the SDK's
 * documentation of the field says (its type omits the null).
 */
const ALLOW = {
  extraFields: {
    ChainInfo: ["indexing"],
    GetChainResponse: ["indexing"],
    DeliveredTeleporterMessage: ["icmContractAddress"],
    PendingTeleporterMessage: ["icmContractAddress"],
    GetTransactionResponse: ["interchainMessageInfo"],
  },
};
/** The dev network's chain IDs (AvalancheGo's local network): values of the SDK's BlockchainIds enum beside mainnet's and fuji's. */
const DEV_CHAIN_IDS = {P: NETWORKS.local.chainIds.P, X: NETWORKS.local.chainIds.X, C: NETWORKS.local.chainIds.C};
const models = new GlacierModels({
  ...ALLOW,
  extraValues: {Network: ["local"], BlockchainIds: Object.values(DEV_CHAIN_IDS), tokenReputation: [null]},
});
const DEV = {
  "network-id": "local",
  "index-enabled": true,
  feed: "dev",
  "dev-backfill": "4h25m",
  "data-api-enabled": true,
  "data-api-rate-limit": "0",
};

type TxPage = ListPChainTransactionsResponse | ListXChainTransactionsResponse | ListCChainAtomicTransactionsResponse;

function expectModel(service: string, method: string, answer: unknown): void {
  expect(models.check(service, method, answer), `${service}.${method}`).toEqual([]);
}

/** Every page of a list, each checked against the model; the items of all pages. */
/**
 * Pages of 100 an EVM chain's latest transactions may take here: the backfill's, those of the ticks that go on while
 * the test runs (more on a loaded machine), and the L1's validator manager calls.
 */
const EVM_TX_PAGES = 10;

async function walk<P extends {nextPageToken?: string}>(
  service: string,
  method: string,
  call: (pageToken?: string) => Promise<P>,
  items: (page: P) => unknown[],
  maxPages = 200,
): Promise<unknown[]> {
  const all: unknown[] = [];
  let token: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await call(token);
    expectModel(service, method, page);
    all.push(...items(page));
    token = page.nextPageToken;
    if (token === undefined || token === "") return all;
  }
  throw new Error(`${method}: more than ${maxPages} pages`);
}

const caughtUp = (t: TestNode): Promise<void> => devFolded(t);
const evmCaughtUp = (t: TestNode): Promise<void> => devEvmsFollowed(t);

describe.each(STORE_BACKENDS)("glacier-sdk 3.0.2 against the data API ($name)", (backend) => {
  let t: TestNode;
  let g: Glacier;

  beforeAll(async () => {
    t = await startNode({...DEV, "data-api-db": await backend.db()});
    await caughtUp(t);
    g = new Glacier({BASE: t.url.toString().replace(/\/$/, "")});
  }, 180_000);
  afterAll(async () => t?.close());

  it("lists blocks of P, X and C and answers each by height and by ID", async () => {
    for (const blockchainId of [BlockchainId.P_CHAIN, BlockchainId.X_CHAIN, BlockchainId.C_CHAIN]) {
      const blocks = (await walk(
        "PrimaryNetworkBlocksService",
        "listLatestPrimaryNetworkBlocks",
        (pageToken) =>
          g.primaryNetworkBlocks.listLatestPrimaryNetworkBlocks({network: NET, blockchainId, pageSize: 100, pageToken}),
        (p) => p.blocks,
      )) as Array<{blockNumber: string; blockHash: string}>;
      expect(blocks.length, blockchainId).toBeGreaterThan(10);
      for (const b of [blocks[0]!, blocks[blocks.length - 1]!]) {
        for (const blockId of [b.blockNumber, b.blockHash]) {
          const one = await g.primaryNetworkBlocks.getBlockById({network: NET, blockchainId, blockId});
          expectModel("PrimaryNetworkBlocksService", "getBlockById", one);
          expect(one).toEqual(b);
        }
      }
      // The blocks a node proposed: the dev network's proposervm blocks are unsigned (no proposer), so none here,
      // and the answer still fits the model (the store tests cover a proposer's blocks).
      const byNode = await g.primaryNetworkBlocks.listPrimaryNetworkBlocksByNodeId({
        network: NET,
        blockchainId,
        nodeId: "NodeID-111111111111111111116DBWJs",
      });
      expectModel("PrimaryNetworkBlocksService", "listPrimaryNetworkBlocksByNodeId", byNode);
    }
  });

  it("lists every transaction of P, X and C and answers one of each type by hash", async () => {
    const chains = [
      {blockchainId: BlockchainId.P_CHAIN, minTypes: 8},
      {blockchainId: BlockchainId.X_CHAIN, minTypes: 4},
      {blockchainId: BlockchainId.C_CHAIN, minTypes: 2},
    ];
    for (const {blockchainId, minTypes} of chains) {
      const txs = (await walk(
        "PrimaryNetworkTransactionsService",
        "listLatestPrimaryNetworkTransactions",
        (pageToken) =>
          g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
            network: NET,
            blockchainId,
            pageSize: 100,
            pageToken,
          }) as Promise<TxPage>,
        (p) => p.transactions,
      )) as Array<{txHash: string; txType: string}>;
      const byType = new Map(txs.map((tx) => [tx.txType, tx]));
      expect(byType.size, `${blockchainId}: ${[...byType.keys()].join(", ")}`).toBeGreaterThanOrEqual(minTypes);
      for (const tx of byType.values()) {
        const one = await g.primaryNetworkTransactions.getTxByHash({network: NET, blockchainId, txHash: tx.txHash});
        expectModel("PrimaryNetworkTransactionsService", "getTxByHash", one);
        expect(one).toEqual(tx);
      }
    }
  });

  it("filters transactions by addresses and txTypes as the SDK sends them", async () => {
    const p = (await g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
      network: NET,
      blockchainId: BlockchainId.P_CHAIN,
      pageSize: 50,
    })) as ListPChainTransactionsResponse;
    const owner = p.transactions.flatMap((tx) => tx.emittedUtxos.flatMap((u) => u.addresses))[0]!;
    const txTypes = [
      PrimaryNetworkTxType.ADD_PERMISSIONLESS_VALIDATOR_TX,
      PrimaryNetworkTxType.BASE_TX,
      PrimaryNetworkTxType.IMPORT_TX,
    ];
    const filtered = (await walk(
      "PrimaryNetworkTransactionsService",
      "listLatestPrimaryNetworkTransactions",
      (pageToken) =>
        g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
          network: NET,
          blockchainId: BlockchainId.P_CHAIN,
          addresses: owner,
          txTypes,
          sortOrder: SortOrder.ASC,
          pageSize: 20,
          pageToken,
        }) as Promise<TxPage>,
      (page) => page.transactions,
    )) as Array<{txType: string}>;
    expect(filtered.length).toBeGreaterThan(0);
    for (const tx of filtered) expect(txTypes as string[]).toContain(tx.txType);
  });

  it("answers UTXOs, balances and the chains of addresses on each chain", async () => {
    const p = (await g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
      network: NET,
      blockchainId: BlockchainId.P_CHAIN,
      pageSize: 50,
    })) as ListPChainTransactionsResponse;
    const x = (await g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
      network: NET,
      blockchainId: BlockchainId.X_CHAIN,
      pageSize: 50,
    })) as ListXChainTransactionsResponse;
    const pAddress = p.transactions.flatMap((tx) => tx.emittedUtxos.flatMap((u) => u.addresses))[0]!;
    const xAddress = x.transactions.flatMap((tx) => tx.emittedUtxos.flatMap((u) => u.addresses))[0]!;
    for (const [blockchainId, address] of [
      [BlockchainId.P_CHAIN, pAddress],
      [BlockchainId.X_CHAIN, xAddress],
      [BlockchainId.C_CHAIN, xAddress],
    ] as const) {
      const utxos = await walk(
        "PrimaryNetworkUtxOsService",
        "getUtxosByAddresses",
        (pageToken) =>
          g.primaryNetworkUtxOs.getUtxosByAddresses({
            network: NET,
            blockchainId,
            addresses: address,
            includeSpent: true,
            pageSize: 100,
            pageToken,
          }),
        (page) => page.utxos,
      );
      if (blockchainId !== BlockchainId.C_CHAIN) expect(utxos.length, blockchainId).toBeGreaterThan(0);
      const balances = await g.primaryNetworkBalances.getBalancesByAddresses({
        network: NET,
        blockchainId,
        addresses: address,
      });
      expectModel("PrimaryNetworkBalancesService", "getBalancesByAddresses", balances);
    }
    // The chains of each address: its transactions' chains, named by the network's chain IDs.
    const chainIds = await g.primaryNetwork.getChainIdsForAddresses({
      network: NET,
      addresses: `P-${pAddress},${xAddress}`,
    });
    expectModel("PrimaryNetworkService", "getChainIdsForAddresses", chainIds);
    expect(chainIds.addresses.map((a) => a.address)).toEqual([`P-${pAddress}`, xAddress]);
    expect(chainIds.addresses[0]!.blockchainIds).toContain(DEV_CHAIN_IDS.P);
    expect(chainIds.addresses[1]!.blockchainIds).toContain(DEV_CHAIN_IDS.X);
  });

  it("answers the asset, its transactions and the vertices of the X-chain", async () => {
    const x = (await g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
      network: NET,
      blockchainId: BlockchainId.X_CHAIN,
      pageSize: 100,
    })) as ListXChainTransactionsResponse;
    const assetIds = new Set(x.transactions.flatMap((tx) => tx.emittedUtxos.map((u) => u.asset.assetId)));
    expect(assetIds.size).toBeGreaterThan(1);
    for (const assetId of assetIds) {
      expectModel(
        "PrimaryNetworkService",
        "getAssetDetails",
        await g.primaryNetwork.getAssetDetails({network: NET, blockchainId: XChainId.X_CHAIN, assetId}),
      );
      const txs = await walk(
        "PrimaryNetworkTransactionsService",
        "listAssetTransactions",
        (pageToken) =>
          g.primaryNetworkTransactions.listAssetTransactions({
            network: NET,
            blockchainId: XChainId.X_CHAIN,
            assetId,
            pageSize: 100,
            pageToken,
          }),
        (page) => page.transactions,
      );
      expect(txs.length).toBeGreaterThan(0);
    }
    // The dev X-chain is a DAG until its Cortina tick (26 of these 53): vertices from height 0, the stop vertex last.
    const vertices = await g.primaryNetworkVertices.getVertexByHeight({
      network: NET,
      blockchainId: XChainId.X_CHAIN,
      vertexHeight: 0,
    });
    expectModel("PrimaryNetworkVerticesService", "getVertexByHeight", vertices);
    expect(vertices.vertices.length).toBeGreaterThan(0);
    const latest = (await walk(
      "PrimaryNetworkVerticesService",
      "listLatestXChainVertices",
      (pageToken) =>
        g.primaryNetworkVertices.listLatestXChainVertices({
          network: NET,
          blockchainId: XChainId.X_CHAIN,
          pageSize: 100,
          pageToken,
        }),
      (page) => page.vertices,
    )) as Array<{vertexHash: string; txCount: number}>;
    expect(latest.length).toBeGreaterThan(26);
    expect(latest[0]!.txCount).toBe(0);
    for (const v of [latest[0]!, latest.at(-1)!]) {
      const one = await g.primaryNetworkVertices.getVertexByHash({
        network: NET,
        blockchainId: XChainId.X_CHAIN,
        vertexHash: v.vertexHash,
      });
      expectModel("PrimaryNetworkVerticesService", "getVertexByHash", one);
      expect(one).toEqual(v);
    }
    // The vertex transactions in the X-chain's list: non-linear, each naming its vertex. The oldest first: the DAG's
    // come before the Cortina tick, and a slow machine's live ticks can fill the latest page with linear ones.
    const oldest = (await g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
      network: NET,
      blockchainId: BlockchainId.X_CHAIN,
      pageSize: 100,
      sortOrder: SortOrder.ASC,
    })) as ListXChainTransactionsResponse;
    const nonLinear = oldest.transactions.filter((tx) => tx.chainFormat === "non-linear") as Array<{
      vertices: unknown[];
    }>;
    expect(nonLinear.length).toBeGreaterThan(0);
    expect(nonLinear.every((tx) => tx.vertices.length === 1)).toBe(true);
  });

  it("answers the network, its validators, delegators, rewards, subnets and blockchains", async () => {
    expectModel("PrimaryNetworkService", "getNetworkDetails", await g.primaryNetwork.getNetworkDetails({network: NET}));
    const validators = (await walk(
      "PrimaryNetworkService",
      "listValidators",
      (pageToken) => g.primaryNetwork.listValidators({network: NET, pageSize: 100, pageToken}),
      (page) => page.validators,
    )) as Array<{nodeId: string; validationStatus: string}>;
    expect(new Set(validators.map((v) => v.validationStatus))).toContain("active");
    for (const validationStatus of [
      ValidationStatusType.ACTIVE,
      ValidationStatusType.COMPLETED,
      ValidationStatusType.PENDING,
    ]) {
      await walk(
        "PrimaryNetworkService",
        "listValidators",
        (pageToken) => g.primaryNetwork.listValidators({network: NET, validationStatus, pageSize: 100, pageToken}),
        (page) => page.validators,
      );
    }
    const nodeId = validators[0]!.nodeId;
    expectModel(
      "PrimaryNetworkService",
      "getSingleValidatorDetails",
      await g.primaryNetwork.getSingleValidatorDetails({network: NET, nodeId}),
    );
    const delegators = (await walk(
      "PrimaryNetworkService",
      "listDelegators",
      (pageToken) => g.primaryNetwork.listDelegators({network: NET, pageSize: 100, pageToken}),
      (page) => page.delegators,
    )) as Array<{txHash: string; delegationStatus: string; rewardAddresses: string[]}>;
    expect(delegators.length).toBeGreaterThan(0);
    const nodeIds = [...new Set(validators.map((v) => v.nodeId))].join(",");
    await walk(
      "PrimaryNetworkRewardsService",
      "listPendingPrimaryNetworkRewards",
      (pageToken) =>
        g.primaryNetworkRewards.listPendingPrimaryNetworkRewards({network: NET, nodeIds, pageSize: 100, pageToken}),
      (page) => page.pendingRewards,
    );
    const rewarded = delegators
      .flatMap((d) => d.rewardAddresses)
      .slice(0, 4)
      .join(",");
    await walk(
      "PrimaryNetworkRewardsService",
      "listHistoricalPrimaryNetworkRewards",
      (pageToken) =>
        g.primaryNetworkRewards.listHistoricalPrimaryNetworkRewards({
          network: NET,
          addresses: rewarded,
          pageSize: 100,
          pageToken,
        }),
      (page) => page.historicalRewards,
    );
    const subnets = (await walk(
      "PrimaryNetworkService",
      "listSubnets",
      (pageToken) => g.primaryNetwork.listSubnets({network: NET, pageSize: 100, pageToken}),
      (page) => page.subnets,
    )) as Array<{subnetId: string}>;
    expect(subnets.length).toBeGreaterThan(0);
    for (const s of subnets)
      expectModel(
        "PrimaryNetworkService",
        "getSubnetById",
        await g.primaryNetwork.getSubnetById({network: NET, subnetId: s.subnetId}),
      );
    const chains = (await walk(
      "PrimaryNetworkService",
      "listBlockchains",
      (pageToken) => g.primaryNetwork.listBlockchains({network: NET, pageSize: 100, pageToken}),
      (page) => page.blockchains,
    )) as Array<{blockchainId: string}>;
    expect(chains.length).toBeGreaterThan(0);
    for (const c of chains) {
      const one = await g.primaryNetwork.getBlockchainById({network: NET, blockchainId: c.blockchainId});
      expectModel("PrimaryNetworkService", "getBlockchainById", one);
      expect(one).toEqual(c);
    }
    // The active stakers' staking transactions: the dev network's delegators and its own nodes' validators (its
    // genesis validators have none). The dev network goes on meanwhile: the two lists agree once no staker started
    // or ended between the reads.
    const own = new Set(devStakers().map((x) => x.nodeId));
    const activeStaking = async (): Promise<{staking: string[]; active: string[]}> => {
      const staking = (await walk(
        "PrimaryNetworkTransactionsService",
        "listActivePrimaryNetworkStakingTransactions",
        (pageToken) =>
          g.primaryNetworkTransactions.listActivePrimaryNetworkStakingTransactions({
            network: NET,
            blockchainId: PChainId.P_CHAIN,
            pageSize: 100,
            pageToken,
          }),
        (page) => page.transactions,
      )) as Array<{txHash: string}>;
      const all = (await walk(
        "PrimaryNetworkService",
        "listDelegators",
        (pageToken) => g.primaryNetwork.listDelegators({network: NET, pageSize: 100, pageToken}),
        (page) => page.delegators,
      )) as typeof delegators;
      const vs = (await walk(
        "PrimaryNetworkService",
        "listValidators",
        (pageToken) =>
          g.primaryNetwork.listValidators({
            network: NET,
            validationStatus: ValidationStatusType.ACTIVE,
            pageSize: 100,
            pageToken,
          }),
        (page) => page.validators,
      )) as Array<{txHash: string; nodeId: string}>;
      const ownActive = vs.filter((v) => own.has(v.nodeId)).map((v) => v.txHash);
      expect(ownActive.length).toBeGreaterThan(0);
      return {
        staking: staking.map((tx) => tx.txHash).sort(),
        active: [...all.filter((d) => d.delegationStatus === "active").map((d) => d.txHash), ...ownActive].sort(),
      };
    };
    await expect
      .poll(
        async () => {
          const {staking, active} = await activeStaking();
          return active.length > 0 && JSON.stringify(staking) === JSON.stringify(active);
        },
        {timeout: 20_000},
      )
      .toBe(true);
    await walk(
      "PrimaryNetworkService",
      "listL1Validators",
      (pageToken) =>
        g.primaryNetwork.listL1Validators({network: NET, pageSize: 100, pageToken, includeInactiveL1Validators: true}),
      (page) => page.validators,
    );
  });

  it("aggregates signatures: a warp message of the dev C-chain, and the P-chain's message for the L1 conversion", async () => {
    await evmCaughtUp(t);
    // A message the dev EVM's warp precompile emitted (the view keeps each one's unsigned bytes).
    const [warp] = await t.node.dataApi!.sql.query<{unsigned: Uint8Array}>(
      "SELECT unsigned FROM warp_messages WHERE chain_id = '43112' ORDER BY block_number LIMIT 1",
    );
    expect(warp).toBeDefined();
    const message = "0x" + Buffer.from(warp!.unsigned).toString("hex");
    const signed = await g.signatureAggregator.aggregateSignatures({network: NET, requestBody: {message}});
    expectModel("SignatureAggregatorService", "aggregateSignatures", signed);
    expect(signed.signedMessage).toContain(message.slice(2));
    // Endpoint 2: the conversion's txHash, found among the P-chain's transactions.
    const p = (await walk(
      "PrimaryNetworkTransactionsService",
      "listLatestPrimaryNetworkTransactions",
      (pageToken) =>
        g.primaryNetworkTransactions.listLatestPrimaryNetworkTransactions({
          network: NET,
          blockchainId: BlockchainId.P_CHAIN,
          pageSize: 100,
          pageToken,
        }) as Promise<TxPage>,
      (page) => page.transactions,
    )) as Array<{txHash: string; txType: string}>;
    const conversion = p.find((tx) => tx.txType === "ConvertSubnetToL1Tx");
    expect(conversion).toBeDefined();
    expectModel(
      "SignatureAggregatorService",
      "getAggregatedSignatures",
      await g.signatureAggregator.getAggregatedSignatures({network: NET, txHash: conversion!.txHash}),
    );
  });

  it("answers the SDK's health check: every check of the data API up", async () => {
    await evmCaughtUp(t);
    const health = await g.healthCheck.dataHealthCheck();
    expectModel("HealthCheckService", "dataHealthCheck", health);
    expect(health.status).toBe("ok");
    // The data API's own check and one a followed EVM chain (named by its chain ID or, for the L1, its blockchain ID).
    const names = Object.keys(health.details ?? {});
    expect(names).toContain("data-api");
    expect(names.filter((n) => n.startsWith("evm:"))).toHaveLength(2);
  });

  it("answers the SDK's errors as ApiError with the status and the body's message", async () => {
    const e = await g.primaryNetworkTransactions
      .getTxByHash({network: NET, blockchainId: BlockchainId.P_CHAIN, txHash: "nope"})
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(400);
    expect((e as ApiError).body).toMatchObject({statusCode: 400, message: expect.stringMatching(/^txHash: /)});
  });

  it("answers each followed EVM chain: the chain, its blocks and their transactions in full", async () => {
    await evmCaughtUp(t);
    const chains = await g.evmChains.supportedChains({});
    expectModel("EvmChainsService", "supportedChains", chains);
    expect(chains.chains.map((c) => c.chainId).sort()).toEqual(["43112", "99999"]);
    for (const {chainId} of chains.chains) {
      expectModel("EvmChainsService", "getChainInfo", await g.evmChains.getChainInfo({chainId}));
      const blocks = (await walk(
        "EvmBlocksService",
        "getLatestBlocks",
        (pageToken) => g.evmBlocks.getLatestBlocks({chainId, pageSize: 100, pageToken}),
        (page) => page.blocks,
        5,
      )) as Array<{blockNumber: string; blockHash: string; txCount: number}>;
      expect(blocks.length, chainId).toBeGreaterThan(5);
      for (const b of blocks.filter((x) => x.txCount > 0).slice(0, 5)) {
        for (const blockId of [b.blockNumber, b.blockHash])
          expectModel("EvmBlocksService", "getBlock", await g.evmBlocks.getBlock({chainId, blockId}));
        await walk(
          "EvmTransactionsService",
          "getTransactionsForBlock",
          (pageToken) =>
            g.evmTransactions.getTransactionsForBlock({chainId, blockId: b.blockNumber, pageSize: 100, pageToken}),
          (page) => page.transactions,
        );
      }
      const txs = (await walk(
        "EvmTransactionsService",
        "listLatestTransactions",
        (pageToken) => g.evmTransactions.listLatestTransactions({chainId, pageSize: 100, pageToken}),
        (page) => page.transactions,
        EVM_TX_PAGES,
      )) as Array<{txHash: string}>;
      expect(txs.length, chainId).toBeGreaterThan(5);
      for (const tx of txs.slice(0, 60))
        expectModel(
          "EvmTransactionsService",
          "getTransaction",
          await g.evmTransactions.getTransaction({chainId, txHash: tx.txHash}),
        );
    }
  });

  it("answers the latest blocks and transactions of all followed chains, and an address's chains", async () => {
    await evmCaughtUp(t);
    const blocks = (await walk(
      "EvmBlocksService",
      "listLatestBlocksAllChains",
      (pageToken) => g.evmBlocks.listLatestBlocksAllChains({network: NET, pageSize: 100, pageToken}),
      (page) => page.blocks,
      5,
    )) as Array<{chainId: string}>;
    expect(new Set(blocks.map((b) => b.chainId))).toEqual(new Set(["43112", "99999"]));
    await walk(
      "EvmChainsService",
      "listAllLatestBlocks",
      (pageToken) => g.evmChains.listAllLatestBlocks({pageSize: 100, pageToken}),
      (page) => page.blocks,
      5,
    );
    const txs = (await walk(
      "EvmTransactionsService",
      "listLatestTransactionsAllChains",
      (pageToken) => g.evmTransactions.listLatestTransactionsAllChains({network: NET, pageSize: 100, pageToken}),
      (page) => page.transactions,
      EVM_TX_PAGES,
    )) as Array<{from: {address: string}}>;
    expect(txs.length).toBeGreaterThan(0);
    await walk(
      "EvmChainsService",
      "listAllLatestTransactions",
      (pageToken) => g.evmChains.listAllLatestTransactions({pageSize: 100, pageToken}),
      (page) => page.transactions,
      EVM_TX_PAGES,
    );
    const address = txs[0]!.from.address;
    const chains = await g.evmChains.listAddressChains({address});
    expectModel("EvmChainsService", "listAddressChains", chains);
    expect(chains.indexedChains?.length).toBeGreaterThan(0);
    expectModel("EvmChainsService", "getAddressChains", await g.evmChains.getAddressChains({address}));
  });

  it("answers an EVM address's transactions, balances and tokens, and each token contract's", async () => {
    await evmCaughtUp(t);
    const chainId = "43112";
    const txs = (await g.evmTransactions.listLatestTransactions({chainId, pageSize: 100})).transactions;
    const full = await Promise.all(txs.map((tx) => g.evmTransactions.getTransaction({chainId, txHash: tx.txHash})));
    const addresses = [...new Set(txs.flatMap((tx) => [tx.from.address, tx.to.address]))].slice(0, 6);
    const tokens = new Map<string, string>();
    for (const f of full) {
      for (const x of f.erc20Transfers ?? []) tokens.set(x.erc20Token.address, "ERC-20");
      for (const x of f.erc721Transfers ?? []) tokens.set(x.erc721Token.address, "ERC-721");
      for (const x of f.erc1155Transfers ?? []) tokens.set(x.erc1155Token.address, "ERC-1155");
    }
    expect(new Set(tokens.values())).toEqual(new Set(["ERC-20", "ERC-721", "ERC-1155"]));
    for (const address of addresses) {
      const lists = [
        [
          "listTransactions",
          (pageToken?: string) => g.evmTransactions.listTransactions({chainId, address, pageSize: 100, pageToken}),
        ],
        [
          "listNativeTransactions",
          (pageToken?: string) =>
            g.evmTransactions.listNativeTransactions({chainId, address, pageSize: 100, pageToken}),
        ],
        [
          "listErc20Transactions",
          (pageToken?: string) => g.evmTransactions.listErc20Transactions({chainId, address, pageSize: 100, pageToken}),
        ],
        [
          "listErc721Transactions",
          (pageToken?: string) =>
            g.evmTransactions.listErc721Transactions({chainId, address, pageSize: 100, pageToken}),
        ],
        [
          "listErc1155Transactions",
          (pageToken?: string) =>
            g.evmTransactions.listErc1155Transactions({chainId, address, pageSize: 100, pageToken}),
        ],
        [
          "listInternalTransactions",
          (pageToken?: string) =>
            g.evmTransactions.listInternalTransactions({chainId, address, pageSize: 100, pageToken}),
        ],
      ] as const;
      for (const [method, call] of lists)
        await walk(
          "EvmTransactionsService",
          method,
          call as (pageToken?: string) => Promise<{nextPageToken?: string}>,
          () => [],
          5,
        );
      expectModel("EvmBalancesService", "getNativeBalance", await g.evmBalances.getNativeBalance({chainId, address}));
      await walk(
        "EvmBalancesService",
        "listErc20Balances",
        (pageToken) => g.evmBalances.listErc20Balances({chainId, address, pageSize: 100, pageToken}),
        () => [],
        5,
      );
      await walk(
        "EvmBalancesService",
        "listErc721Balances",
        (pageToken) => g.evmBalances.listErc721Balances({chainId, address, pageSize: 100, pageToken}),
        () => [],
        5,
      );
      await walk(
        "EvmBalancesService",
        "listErc1155Balances",
        (pageToken) => g.evmBalances.listErc1155Balances({chainId, address, pageSize: 100, pageToken}),
        () => [],
        5,
      );
      await walk(
        "EvmBalancesService",
        "listCollectibleBalances",
        (pageToken) => g.evmBalances.listCollectibleBalances({chainId, address, pageSize: 100, pageToken}),
        () => [],
        5,
      );
      await walk(
        "EvmTransactionsService",
        "listContractDeployments",
        (pageToken) => g.evmTransactions.listContractDeployments({chainId, address, pageSize: 100, pageToken}),
        (page) => page.contracts,
        5,
      );
    }
    for (const [address, ercType] of tokens) {
      expectModel(
        "EvmContractsService",
        "getContractMetadata",
        await g.evmContracts.getContractMetadata({chainId, address}),
      );
      expectModel(
        "EvmTransactionsService",
        "getDeploymentTransaction",
        await g.evmTransactions.getDeploymentTransaction({chainId, address}),
      );
      await walk(
        "EvmTransactionsService",
        "listTransfers",
        (pageToken) => g.evmTransactions.listTransfers({chainId, address, pageSize: 100, pageToken}),
        (page) => page.transfers,
        5,
      );
      if (ercType === "ERC-20") continue;
      const nfts = (await walk(
        "NfTsService",
        "listTokens",
        (pageToken) => g.nfTs.listTokens({chainId, address, pageSize: 100, pageToken}),
        (page) => page.tokens,
        5,
      )) as Array<{tokenId: string}>;
      expect(nfts.length, address).toBeGreaterThan(0);
      for (const n of nfts.slice(0, 3))
        expectModel(
          "NfTsService",
          "getTokenDetails",
          await g.nfTs.getTokenDetails({chainId, address, tokenId: n.tokenId}),
        );
    }
  });

  it("answers the interchain messages, under their ICM and Teleporter names", async () => {
    await evmCaughtUp(t);
    const messages = (await walk(
      "InterchainMessagingService",
      "listIcmMessages",
      (pageToken) => g.interchainMessaging.listIcmMessages({pageSize: 100, pageToken}),
      (page) => page.messages,
      10,
    )) as Array<{messageId: string; from: string}>;
    expect(messages.length).toBeGreaterThan(0);
    await walk(
      "TeleporterService",
      "listTeleporterMessages",
      (pageToken) => g.teleporter.listTeleporterMessages({pageSize: 100, pageToken}),
      (page) => page.messages,
      10,
    );
    for (const m of messages.slice(0, 10)) {
      expectModel(
        "InterchainMessagingService",
        "getIcmMessage",
        await g.interchainMessaging.getIcmMessage({messageId: m.messageId}),
      );
      expectModel(
        "TeleporterService",
        "getTeleporterMessage",
        await g.teleporter.getTeleporterMessage({messageId: m.messageId}),
      );
    }
    const address = messages[0]!.from;
    await walk(
      "InterchainMessagingService",
      "listIcmMessagesByAddress",
      (pageToken) => g.interchainMessaging.listIcmMessagesByAddress({address, pageSize: 100, pageToken}),
      (page) => page.messages,
      10,
    );
    await walk(
      "TeleporterService",
      "listTeleporterMessagesByAddress",
      (pageToken) => g.teleporter.listTeleporterMessagesByAddress({address, pageSize: 100, pageToken}),
      (page) => page.messages,
      10,
    );
  });
});
