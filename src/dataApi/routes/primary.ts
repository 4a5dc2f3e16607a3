/**
 * The primary-network endpoints of the data API (defs/primary.ts declares them): parameters in (parsed by the
 * router from the entry, their formats checked here), the queries of src/dataApi/queries/primary, the hosted API's
 * response shapes out.
 */
import type {ChainName, ChainRegistry, NetworkInfo} from "../../chains/index.js";
import type {SqlClient} from "../store/sql.js";
import {implement, type BoundRoute, type RouteCtx} from "../server/route.js";
import {PRIMARY_ROUTES, TX_TYPES} from "./defs/primary.js";
import {DataApiError, badRequest, notFound} from "../server/errors.js";
import {SharedAnswer} from "../server/sharedAnswer.js";
import {
  CHAIN_INFO_NAMES,
  hrpOf,
  isEvmAddress,
  parseAddress,
  parseEvmAddress,
  resolveChain,
  resolveNetwork,
} from "../server/names.js";
import type {NetworkCtx} from "../queries/primary/common.js";
import {getBlock, listBlocks, listBlocksByProposer} from "../queries/primary/blocks.js";
import {
  getCChainTransaction,
  getPChainTransaction,
  getXChainTransaction,
  listAssetTransactions,
  listCChainTransactions,
  listPChainTransactions,
  listXChainTransactions,
} from "../queries/primary/transactions.js";
import {
  getCChainAtomicBalances,
  getPChainBalances,
  getXChainBalances,
  lastActivity,
  listPChainUtxos,
  listXChainUtxos,
} from "../queries/primary/utxos.js";
import {
  getNetworkDetails,
  listDelegators,
  listHistoricalRewards,
  listPendingRewards,
  listValidators,
} from "../queries/primary/stakers.js";
import {
  chainsOfAddresses,
  getAssetDetails,
  getBlockchain,
  getSubnet,
  getVertex,
  listBlockchains,
  listL1Validators,
  listLatestVertices,
  listSubnets,
  listVerticesByHeight,
} from "../queries/primary/network.js";
import {EMPTY_ID, cb58Decode, idFromString} from "../../util/cb58.js";
import {SupplyPendingError, getAvaxSupply} from "../queries/primary/supply.js";
import type {ValidatorObservations} from "../observations/observations.js";

export {TX_TYPES};

export interface PrimaryRoutesModules {
  sql: SqlClient;
  network: NetworkInfo;
  chains: ChainRegistry;
  avaxAssetId: string;
  /** Active validators' uptime and health (a cache the composition root keeps fresh; no call per request). */
  observations: ValidatorObservations;
}

type ChainParams = {network: string; blockchainId: string};

/** The primary-network routes (defs/primary.ts) answered from the store. */
export function primaryRoutes(m: PrimaryRoutesModules): BoundRoute[] {
  const hrp = hrpOf(m.network);
  const net: NetworkCtx = {networkName: m.network.name, hrp, chainIds: m.network.chainIds, avaxAssetId: m.avaxAssetId};
  const chainOf = (ctx: {params: ChainParams}, allowed?: readonly ChainName[], endpoint?: string): ChainName => {
    resolveNetwork(ctx.params.network, m.network);
    return resolveChain(ctx.params.blockchainId, m.chains, allowed, endpoint);
  };
  const served = (ctx: {params: {network: string}}): void => void resolveNetwork(ctx.params.network, m.network);
  const chainInfo = (chain: ChainName): {chainName: string; network: string} => ({
    chainName: CHAIN_INFO_NAMES[chain],
    network: m.network.name,
  });
  const txTypesOf = (given: readonly string[], chain: ChainName): string[] | undefined => {
    for (const v of given)
      if (!TX_TYPES[chain].includes(v)) throw badRequest("txTypes", `unknown value ${JSON.stringify(v)}`);
    return given.length > 0 ? [...given] : undefined;
  };

  type R = typeof PRIMARY_ROUTES;
  type UtxoCtx = RouteCtx<R["getUtxosByAddresses"]> | RouteCtx<R["getUtxosByAddressesV2"]>;
  // The UTXOs of addresses: `addresses` in the query (GET), or in a JSON body (POST, chainkit's
  // listUtxosByAddressesV2, for more addresses than a URL carries); the other parameters in the query for both.
  const utxos = async (ctx: UtxoCtx, chain: ChainName, addresses: Uint8Array[]) => {
    const {assetId, minUtxoAmount} = ctx.query;
    if (assetId !== undefined && !validId("X", assetId))
      throw badRequest("assetId", `not an asset ID: ${JSON.stringify(assetId)}`);
    if (minUtxoAmount !== undefined && !/^[0-9]{1,20}$/.test(minUtxoAmount)) {
      throw badRequest("minUtxoAmount", `not an amount: ${JSON.stringify(minUtxoAmount)}`);
    }
    const pageSize = ctx.page.size;
    const args = {
      addresses,
      assetId,
      includeSpent: ctx.query.includeSpent,
      minAmount: minUtxoAmount === undefined ? undefined : BigInt(minUtxoAmount),
      sortBy: ctx.query.sortBy,
      sortOrder: ctx.query.sortOrder,
      pageSize,
      cursor: ctx.page.cursor,
    };
    const page =
      chain === "P" ? await listPChainUtxos(m.sql, net, args) : await listXChainUtxos(m.sql, net, {...args, chain});
    return {nextPageToken: ctx.page.next(page.nextCursor), utxos: page.items, chainInfo: chainInfo(chain)};
  };
  // The addresses' last activity on the chain (queries/primary/utxos.ts lastActivity).
  const activity = async (chain: ChainName, addresses: Uint8Array[]) =>
    found(await lastActivity(m.sql, net, {chain, addresses}), `activity of the addresses on the ${chain}-chain`);

  // The AVAX supply of the network this node serves, from the fold's running sums (queries/primary/supply.ts): one
  // answer is kept for SUPPLY_TTL_MS after it was computed, concurrent requests share the one
  // computation in progress, and on a PostgreSQL server the statement is cut off after SUPPLY_TIMEOUT_MS (503).
  const supply = new SharedAnswer<object>(
    {ttlMs: SUPPLY_TTL_MS},
    {
      compute: async () => {
        try {
          return await getAvaxSupply(m.sql, net, {now: Math.floor(Date.now() / 1000), timeoutMs: SUPPLY_TIMEOUT_MS});
        } catch (e) {
          if (e instanceof SupplyPendingError) throw new DataApiError(503, e.message);
          if ((e as {code?: unknown}).code !== "57014") throw e; // query_canceled: the statement timeout
          throw new DataApiError(
            503,
            `the AVAX supply took longer than ${SUPPLY_TIMEOUT_MS / 1000} s to sum; retry later`,
          );
        }
      },
    },
  );

  return implement(PRIMARY_ROUTES, {
    listLatestPrimaryNetworkBlocks: async (ctx) => {
      const chain = chainOf(ctx);
      const pageSize = ctx.page.size;
      const {startTimestamp, endTimestamp} = ctx.query;
      const page = await listBlocks(m.sql, {chain, pageSize, cursor: ctx.page.cursor, startTimestamp, endTimestamp});
      return {nextPageToken: ctx.page.next(page.nextCursor), blocks: page.items, chainInfo: chainInfo(chain)};
    },

    listPrimaryNetworkBlocksByNodeId: async (ctx) => {
      const chain = chainOf(ctx);
      const nodeId = ctx.params.nodeId;
      if (!validNodeId(nodeId)) throw badRequest("nodeId", `not a node ID: ${JSON.stringify(nodeId)}`);
      const pageSize = ctx.page.size;
      const {startTimestamp, endTimestamp} = ctx.query;
      const page = await listBlocksByProposer(m.sql, {
        chain,
        nodeId,
        pageSize,
        cursor: ctx.page.cursor,
        startTimestamp,
        endTimestamp,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), blocks: page.items, chainInfo: chainInfo(chain)};
    },

    getBlockById: async (ctx) => {
      const chain = chainOf(ctx);
      const id = ctx.params.blockId;
      if (!/^[0-9]{1,19}$/.test(id) && !validId(chain, id))
        throw badRequest("blockId", `not a block height or ID: ${JSON.stringify(id)}`);
      return found(await getBlock(m.sql, chain, id), `block ${id} on the ${chain}-chain`);
    },

    listLatestPrimaryNetworkTransactions: async (ctx) => {
      const chain = chainOf(ctx);
      const pageSize = ctx.page.size;
      const addresses = parseAddresses(ctx.query.addresses, chain, hrp);
      const txTypes = txTypesOf(ctx.query.txTypes, chain);
      const {startTimestamp, endTimestamp} = ctx.query;
      if (addresses === undefined) {
        // The hosted API takes txTypes and timestamps with an address filter only.
        if (txTypes !== undefined) throw badRequest("txTypes", "needs the addresses filter");
        if (startTimestamp !== undefined) throw badRequest("startTimestamp", "needs the addresses filter");
        if (endTimestamp !== undefined) throw badRequest("endTimestamp", "needs the addresses filter");
      }
      const l1ValidationId = ctx.query.l1ValidationId;
      if (l1ValidationId !== undefined && (chain !== "P" || !validId("P", l1ValidationId))) {
        throw badRequest(
          "l1ValidationId",
          chain !== "P" ? "applies to the P-chain only" : `not an ID: ${JSON.stringify(l1ValidationId)}`,
        );
      }
      const args = {
        pageSize,
        cursor: ctx.page.cursor,
        addresses,
        txTypes,
        startTimestamp,
        endTimestamp,
        sortOrder: ctx.query.sortOrder,
      };
      const page =
        chain === "P"
          ? await listPChainTransactions(m.sql, net, {...args, l1ValidationId})
          : chain === "X"
            ? await listXChainTransactions(m.sql, net, args)
            : await listCChainTransactions(m.sql, net, args);
      return {nextPageToken: ctx.page.next(page.nextCursor), transactions: page.items, chainInfo: chainInfo(chain)};
    },

    // The staking transactions of the P-chain's active stakers (started, not yet rewarded); `addresses` narrows them.
    listActivePrimaryNetworkStakingTransactions: async (ctx) => {
      const chain = chainOf(ctx, ["P"], "staking transactions");
      const pageSize = ctx.page.size;
      const addresses = parseAddresses(ctx.query.addresses, chain, hrp);
      const txTypes = ctx.query.txTypes;
      const {startTimestamp, endTimestamp} = ctx.query;
      const args = {
        pageSize,
        cursor: ctx.page.cursor,
        addresses,
        txTypes: txTypes.length > 0 ? txTypes : undefined,
        startTimestamp,
        endTimestamp,
        sortOrder: ctx.query.sortOrder,
      };
      const page = await listPChainTransactions(m.sql, net, {...args, activeAt: nowSeconds()});
      return {nextPageToken: ctx.page.next(page.nextCursor), transactions: page.items, chainInfo: chainInfo(chain)};
    },

    getTxByHash: async (ctx) => {
      const chain = chainOf(ctx);
      const id = checkedId("txHash", ctx.params.txHash, chain === "C" ? "P" : chain, "a transaction ID");
      const tx =
        chain === "P"
          ? await getPChainTransaction(m.sql, net, id)
          : chain === "X"
            ? await getXChainTransaction(m.sql, net, id)
            : await getCChainTransaction(m.sql, net, id);
      return found(tx, `transaction ${id} on the ${chain}-chain`);
    },

    listAssetTransactions: async (ctx) => {
      const chain = chainOf(ctx, ["X"], "asset transactions");
      const assetId = checkedId("assetId", ctx.params.assetId, "X", "an asset ID");
      const pageSize = ctx.page.size;
      const txTypes = ctx.query.txTypes;
      const {startTimestamp, endTimestamp} = ctx.query;
      const page = await listAssetTransactions(m.sql, net, {
        assetId,
        pageSize,
        cursor: ctx.page.cursor,
        txTypes: txTypes.length > 0 ? txTypes : undefined,
        startTimestamp,
        endTimestamp,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), transactions: page.items, chainInfo: chainInfo(chain)};
    },

    getUtxosByAddresses: async (ctx) => {
      const chain = chainOf(ctx);
      return utxos(ctx, chain, parseAddresses(ctx.query.addresses, chain, hrp)!);
    },
    getUtxosByAddressesV2: async (ctx) => {
      const chain = chainOf(ctx);
      return utxos(ctx, chain, bodyAddresses(ctx.body, chain, hrp));
    },
    getLastActivityTimestampByAddresses: async (ctx) => {
      const chain = chainOf(ctx);
      return activity(chain, parseAddresses(ctx.query.addresses, chain, hrp)!);
    },
    getLastActivityTimestampByAddressesV2: async (ctx) => {
      const chain = chainOf(ctx);
      return activity(chain, bodyAddresses(ctx.body, chain, hrp));
    },

    getBalancesByAddresses: async (ctx) => {
      const chain = chainOf(ctx);
      const addresses = parseAddresses(ctx.query.addresses, chain, hrp)!;
      const now = nowSeconds();
      const balances =
        chain === "P"
          ? await getPChainBalances(m.sql, net, {addresses, now})
          : chain === "X"
            ? await getXChainBalances(m.sql, net, {addresses, now})
            : await getCChainAtomicBalances(m.sql, net, {addresses, now});
      return {balances, chainInfo: chainInfo(chain)};
    },

    getAssetDetails: async (ctx) => {
      chainOf(ctx, ["X"], "asset details");
      const assetId = checkedId("assetId", ctx.params.assetId, "X", "an asset ID");
      return found(await getAssetDetails(m.sql, assetId), `asset ${assetId}`);
    },

    listLatestXChainVertices: async (ctx) => {
      const chain = chainOf(ctx, ["X"], "vertices");
      const page = await listLatestVertices(m.sql, {pageSize: ctx.page.size, cursor: ctx.page.cursor});
      return {nextPageToken: ctx.page.next(page.nextCursor), vertices: page.items, chainInfo: chainInfo(chain)};
    },

    getVertexByHeight: async (ctx) => {
      const chain = chainOf(ctx, ["X"], "vertices");
      const vertexHeight = ctx.query.vertexHeight;
      const page = await listVerticesByHeight(m.sql, {
        vertexHeight,
        sortOrder: ctx.query.sortOrder,
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), vertices: page.items, chainInfo: chainInfo(chain)};
    },

    getVertexByHash: async (ctx) => {
      chainOf(ctx, ["X"], "vertices");
      const id = checkedId("vertexHash", ctx.params.vertexHash, "X", "a vertex ID");
      return found(await getVertex(m.sql, id), `vertex ${id}`);
    },

    getNetworkDetails: async (ctx) => {
      served(ctx);
      return getNetworkDetails(m.sql);
    },

    listPendingPrimaryNetworkRewards: async (ctx) => {
      served(ctx);
      const addresses = parseAddresses(ctx.query.addresses, "P", hrp);
      const nodeIds = parseNodeIds(ctx.query.nodeIds, "nodeIds");
      if (addresses === undefined && nodeIds === undefined)
        throw badRequest("addresses", "addresses or nodeIds is required");
      const page = await listPendingRewards(m.sql, net, {
        addresses,
        nodeIds,
        now: nowSeconds(),
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), pendingRewards: page.items};
    },

    listHistoricalPrimaryNetworkRewards: async (ctx) => {
      served(ctx);
      const addresses = parseAddresses(ctx.query.addresses, "P", hrp)!;
      const page = await listHistoricalRewards(m.sql, net, {
        addresses,
        sortOrder: ctx.query.sortOrder,
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), historicalRewards: page.items};
    },

    listValidators: async (ctx) => {
      served(ctx);
      const subnetId = ctx.query.subnetId;
      if (subnetId !== undefined && !validId("P", subnetId))
        throw badRequest("subnetId", `not a subnet ID: ${JSON.stringify(subnetId)}`);
      const page = await listValidators(m.sql, net, {
        validationStatus: ctx.query.validationStatus,
        nodeIds: parseNodeIds(ctx.query.nodeIds, "nodeIds"),
        subnetId,
        now: nowSeconds(),
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
        observations: m.observations,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), validators: page.items};
    },

    getSingleValidatorDetails: async (ctx) => {
      served(ctx);
      const nodeId = ctx.params.nodeId;
      if (!validNodeId(nodeId)) throw badRequest("nodeId", `not a node ID: ${JSON.stringify(nodeId)}`);
      const page = await listValidators(m.sql, net, {
        validationStatus: ctx.query.validationStatus,
        nodeIds: [nodeId],
        now: nowSeconds(),
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
        observations: m.observations,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), validators: page.items};
    },

    listDelegators: async (ctx) => {
      served(ctx);
      const rewardAddresses = ctx.query.rewardAddresses;
      const page = await listDelegators(m.sql, net, {
        delegationStatus: ctx.query.delegationStatus,
        nodeIds: parseNodeIds(ctx.query.nodeIds, "nodeIds"),
        rewardAddresses:
          rewardAddresses.length > 0 ? rewardAddresses.map((a) => parseAddress("rewardAddresses", a, hrp)) : undefined,
        now: nowSeconds(),
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), delegators: page.items};
    },

    listL1Validators: async (ctx) => {
      served(ctx);
      const l1ValidationId = ctx.query.l1ValidationId;
      if (l1ValidationId !== undefined && !validId("P", l1ValidationId))
        throw badRequest("l1ValidationId", `not an ID: ${JSON.stringify(l1ValidationId)}`);
      const subnetId = ctx.query.subnetId;
      if (subnetId !== undefined && !validId("P", subnetId))
        throw badRequest("subnetId", `not a subnet ID: ${JSON.stringify(subnetId)}`);
      const nodeId = ctx.query.nodeId;
      if (nodeId !== undefined && !validNodeId(nodeId))
        throw badRequest("nodeId", `not a node ID: ${JSON.stringify(nodeId)}`);
      const older = ctx.query.includeInactive ?? false;
      const includeInactive = ctx.query.includeInactiveL1Validators ?? older;
      const page = await listL1Validators(m.sql, net, {
        l1ValidationId,
        subnetId,
        nodeId,
        includeInactive,
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), validators: page.items, blockHeight: page.blockHeight};
    },

    listBlockchains: async (ctx) => {
      served(ctx);
      const page = await listBlockchains(m.sql, {
        sortOrder: ctx.query.sortOrder,
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), blockchains: page.items};
    },

    getBlockchainById: async (ctx) => {
      served(ctx);
      const id = checkedId("blockchainId", ctx.params.blockchainId, "P", "a blockchain ID");
      return found(await getBlockchain(m.sql, id), `blockchain ${id}`);
    },

    // The primary-network chains on which each address has transactions (`addresses`: a comma list, or repeated).
    getChainIdsForAddresses: async (ctx) => {
      served(ctx);
      const given = ctx.query.addresses;
      const addresses = parseAddresses(given, "P", hrp)!;
      const chains = await chainsOfAddresses(m.sql, addresses);
      return {
        addresses: given.map((address, i) => ({address, blockchainIds: chains[i]!.map((c) => m.network.chainIds[c])})),
      };
    },

    getAvaxSupply: () => supply.get(),

    listSubnets: async (ctx) => {
      served(ctx);
      const page = await listSubnets(m.sql, net, {
        sortOrder: ctx.query.sortOrder,
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
      });
      return {nextPageToken: ctx.page.next(page.nextCursor), subnets: page.items};
    },

    getSubnetById: async (ctx) => {
      served(ctx);
      const id = checkedId("subnetId", ctx.params.subnetId, "P", "a subnet ID");
      return found(await getSubnet(m.sql, net, id), `subnet ${id}`);
    },
  });
}

/** Now, in Unix seconds (what "pending", "active" and locked balances are judged at). */
function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function validNodeId(id: string): boolean {
  if (!id.startsWith("NodeID-")) return false;
  try {
    return cb58Decode(id.slice(7)).length === 20;
  } catch {
    return false;
  }
}

/** `nodeIds`: a comma list or repeated key of `NodeID-...`; undefined when absent. */
function parseNodeIds(ids: string[], param: string): string[] | undefined {
  if (ids.length === 0) return undefined;
  if (ids.length > 64) throw badRequest(param, "at most 64 node IDs");
  for (const id of ids) if (!validNodeId(id)) throw badRequest(param, `invalid node ID ${JSON.stringify(id)}`);
  return ids;
}

/** A path ID, checked: a 400 naming the parameter when it is not one. */
function checkedId(param: string, value: string, chain: ChainName, what: string): string {
  if (!validId(chain, value)) throw badRequest(param, `not ${what}: ${JSON.stringify(value)}`);
  return value;
}

/** The resource asked for, or a 404 naming it. */
function found<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw notFound(`${what} not found`);
  return value;
}

/** A CB58 ID (the C-chain's atomic transactions too); EVM block hashes are `0x` hex. */
function validId(chain: ChainName, id: string): boolean {
  if (chain === "C" && /^0x[0-9a-fA-F]{64}$/.test(id)) return true;
  try {
    idFromString(id);
    return id !== EMPTY_ID || chain === "P";
  } catch {
    return false;
  }
}

/** `addresses`: P/X bech32 (with or without a chain prefix), or `0x` EVM addresses on the C-chain. */
function parseAddresses(values: string[], chain: ChainName, hrp: string): Uint8Array[] | undefined {
  if (values.length === 0) return undefined;
  if (values.length > 64) throw badRequest("addresses", "at most 64 addresses");
  return values.map((v) =>
    chain === "C" && isEvmAddress(v) ? parseEvmAddress("addresses", v) : parseAddress("addresses", v, hrp),
  );
}

/** How long one AVAX supply answer is served before the store is summed again. */
const SUPPLY_TTL_MS = 30_000;
/** The longest the supply's statement may run on a PostgreSQL server (PGlite has no statement timeout). */
const SUPPLY_TIMEOUT_MS = 20_000;

/** At most this many addresses in a POST body (the hosted API's V2 routes take more than a URL's 64). */
export const MAX_BODY_ADDRESSES = 256;

/**
 * `addresses` of a POST body (chainkit's `PrimaryNetworkAddressesBodyDto`): a comma-separated string, as the SDK
 * sends it, or an array of strings; each parsed as the query's are.
 */
function bodyAddresses(body: unknown, chain: ChainName, hrp: string): Uint8Array[] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw badRequest("body", "must be a JSON object with addresses");
  }
  const raw = (body as {addresses?: unknown}).addresses;
  let values: string[];
  if (typeof raw === "string") values = raw.split(",");
  else if (Array.isArray(raw) && raw.every((v) => typeof v === "string")) values = raw as string[];
  else {
    const why = raw === undefined ? "required" : "must be a comma-separated string or an array of strings";
    throw badRequest("addresses", why);
  }
  values = values.map((v) => v.trim()).filter((v) => v !== "");
  if (values.length === 0) throw badRequest("addresses", "required");
  if (values.length > MAX_BODY_ADDRESSES) throw badRequest("addresses", `at most ${MAX_BODY_ADDRESSES} addresses`);
  return values.map((v) =>
    chain === "C" && isEvmAddress(v) ? parseEvmAddress("addresses", v) : parseAddress("addresses", v, hrp),
  );
}
