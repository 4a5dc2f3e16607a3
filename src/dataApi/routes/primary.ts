/**
 * The primary-network endpoints of the data API (contract data-api §5): parameters in (parsed and checked by the
 * router's helpers), the queries of src/dataApi/queries/primary, the hosted API's response shapes out.
 */
import type {ChainName, ChainRegistry, NetworkInfo} from "../../chains/index.js";
import type {SqlClient} from "../store/client.js";
import type {DataApiRouter, RequestCtx} from "../server/router.js";
import {DataApiError, badRequest, notFound} from "../server/errors.js";
import {SharedAnswer} from "../server/sharedAnswer.js";
import {CHAIN_INFO_NAMES, hrpOf, isEvmAddress, parseAddress, parseEvmAddress, resolveChain, resolveNetwork} from "../server/names.js";
import type {Query} from "../server/params.js";
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
import {getNetworkDetails, listDelegators, listHistoricalRewards, listPendingRewards, listValidators} from "../queries/primary/stakers.js";
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

export interface PrimaryRoutesModules {
  sql: SqlClient;
  network: NetworkInfo;
  chains: ChainRegistry;
  avaxAssetId: string;
  /** Active validators' uptime and health (a cache the composition root keeps fresh; no call per request). */
  observations: ValidatorObservations;
}

/** Glacier's PrimaryNetworkTxType values, by chain (`txTypes` filter). */
export const TX_TYPES: Record<ChainName, readonly string[]> = {
  P: [
    "AddValidatorTx",
    "AddSubnetValidatorTx",
    "AddDelegatorTx",
    "CreateChainTx",
    "CreateSubnetTx",
    "ImportTx",
    "ExportTx",
    "AdvanceTimeTx",
    "RewardValidatorTx",
    "RemoveSubnetValidatorTx",
    "TransformSubnetTx",
    "AddPermissionlessValidatorTx",
    "AddPermissionlessDelegatorTx",
    "BaseTx",
    "TransferSubnetOwnershipTx",
    "ConvertSubnetToL1Tx",
    "RegisterL1ValidatorTx",
    "SetL1ValidatorWeightTx",
    "DisableL1ValidatorTx",
    "IncreaseL1ValidatorBalanceTx",
    "UNKNOWN",
  ],
  X: ["BaseTx", "CreateAssetTx", "OperationTx", "ImportTx", "ExportTx", "UNKNOWN"],
  C: ["ImportTx", "ExportTx"],
};

type NetParams = {network: string};
type ChainParams = NetParams & {blockchainId: string};

export function registerPrimaryRoutes(router: DataApiRouter, m: PrimaryRoutesModules): void {
  const hrp = hrpOf(m.network);
  const net: NetworkCtx = {networkName: m.network.name, hrp, chainIds: m.network.chainIds, avaxAssetId: m.avaxAssetId};
  const chainOf = (ctx: RequestCtx<ChainParams>, allowed?: readonly ChainName[], endpoint?: string): ChainName => {
    resolveNetwork(ctx.params.network, m.network);
    return resolveChain(ctx.params.blockchainId, m.chains, allowed, endpoint);
  };
  const chainInfo = (chain: ChainName): {chainName: string; network: string} => ({chainName: CHAIN_INFO_NAMES[chain], network: m.network.name});

  // 16: latest blocks.
  router.get("/v1/networks/:network/blockchains/:blockchainId/blocks", async (ctx) => {
    const chain = chainOf(ctx);
    const pageSize = ctx.query.pageSize();
    const {start, end} = ctx.query.timeRange();
    const page = await listBlocks(m.sql, {chain, pageSize, cursor: ctx.cursorText(), startTimestamp: start, endTimestamp: end});
    return {nextPageToken: ctx.token(page.nextCursor), blocks: page.items, chainInfo: chainInfo(chain)};
  });

  // The blocks a node proposed (its proposervm signature names it).
  router.get("/v1/networks/:network/blockchains/:blockchainId/nodes/:nodeId/blocks", async (ctx) => {
    const chain = chainOf(ctx);
    const nodeId = ctx.params.nodeId;
    if (!validNodeId(nodeId)) throw badRequest("nodeId", `not a node ID: ${JSON.stringify(nodeId)}`);
    const pageSize = ctx.query.pageSize();
    const {start, end} = ctx.query.timeRange();
    const page = await listBlocksByProposer(m.sql, {chain, nodeId, pageSize, cursor: ctx.cursorText(), startTimestamp: start, endTimestamp: end});
    return {nextPageToken: ctx.token(page.nextCursor), blocks: page.items, chainInfo: chainInfo(chain)};
  });

  router.get("/v1/networks/:network/blockchains/:blockchainId/blocks/:blockId", async (ctx) => {
    const chain = chainOf(ctx);
    const id = ctx.params.blockId;
    if (!/^[0-9]{1,19}$/.test(id) && !validId(chain, id)) throw badRequest("blockId", `not a block height or ID: ${JSON.stringify(id)}`);
    return found(await getBlock(m.sql, chain, id), `block ${id} on the ${chain}-chain`);
  });

  // 5: latest transactions.
  router.get("/v1/networks/:network/blockchains/:blockchainId/transactions", async (ctx) => {
    const chain = chainOf(ctx);
    const pageSize = ctx.query.pageSize();
    const addresses = parseAddresses(ctx.query, chain, hrp);
    const txTypes = ctx.query.enumList("txTypes", TX_TYPES[chain]);
    const {start, end} = ctx.query.timeRange();
    if (addresses === undefined) {
      // Seed rule 1: without an address filter, txTypes and timestamps are not supported.
      if (txTypes.length > 0) throw badRequest("txTypes", "needs the addresses filter");
      if (start !== undefined) throw badRequest("startTimestamp", "needs the addresses filter");
      if (end !== undefined) throw badRequest("endTimestamp", "needs the addresses filter");
    }
    const l1ValidationId = ctx.query.string("l1ValidationId");
    if (l1ValidationId !== undefined && (chain !== "P" || !validId("P", l1ValidationId))) {
      throw badRequest("l1ValidationId", chain !== "P" ? "applies to the P-chain only" : `not an ID: ${JSON.stringify(l1ValidationId)}`);
    }
    const args = {pageSize, cursor: ctx.cursorText(), addresses, txTypes: txTypes.length > 0 ? txTypes : undefined, startTimestamp: start, endTimestamp: end, sortOrder: ctx.query.sortOrder()};
    const page =
      chain === "P"
        ? await listPChainTransactions(m.sql, net, {...args, l1ValidationId})
        : chain === "X"
          ? await listXChainTransactions(m.sql, net, args)
          : await listCChainTransactions(m.sql, net, args);
    return {nextPageToken: ctx.token(page.nextCursor), transactions: page.items, chainInfo: chainInfo(chain)};
  });

  // The staking transactions of the P-chain's active stakers (started, not yet rewarded); `addresses` narrows them.
  router.get("/v1/networks/:network/blockchains/:blockchainId/transactions:listStaking", async (ctx) => {
    const chain = chainOf(ctx, ["P"], "staking transactions");
    const pageSize = ctx.query.pageSize();
    const addresses = parseAddresses(ctx.query, chain, hrp);
    const txTypes = ctx.query.enumList("txTypes", TX_TYPES.P);
    const {start, end} = ctx.query.timeRange();
    const args = {pageSize, cursor: ctx.cursorText(), addresses, txTypes: txTypes.length > 0 ? txTypes : undefined, startTimestamp: start, endTimestamp: end, sortOrder: ctx.query.sortOrder()};
    const page = await listPChainTransactions(m.sql, net, {...args, activeAt: nowSeconds(ctx.query)});
    return {nextPageToken: ctx.token(page.nextCursor), transactions: page.items, chainInfo: chainInfo(chain)};
  });

  router.get("/v1/networks/:network/blockchains/:blockchainId/transactions/:txHash", async (ctx) => {
    const chain = chainOf(ctx);
    const id = checkedId("txHash", ctx.params.txHash, chain === "C" ? "P" : chain, "a transaction ID");
    const tx = chain === "P" ? await getPChainTransaction(m.sql, net, id) : chain === "X" ? await getXChainTransaction(m.sql, net, id) : await getCChainTransaction(m.sql, net, id);
    return found(tx, `transaction ${id} on the ${chain}-chain`);
  });

  // 4: X-chain asset transactions.
  router.get("/v1/networks/:network/blockchains/:blockchainId/assets/:assetId/transactions", async (ctx) => {
    const chain = chainOf(ctx, ["X"], "asset transactions");
    const assetId = checkedId("assetId", ctx.params.assetId, "X", "an asset ID");
    const pageSize = ctx.query.pageSize();
    const txTypes = ctx.query.enumList("txTypes", TX_TYPES.X);
    const {start, end} = ctx.query.timeRange();
    const page = await listAssetTransactions(m.sql, net, {assetId, pageSize, cursor: ctx.cursorText(), txTypes: txTypes.length > 0 ? txTypes : undefined, startTimestamp: start, endTimestamp: end});
    return {nextPageToken: ctx.token(page.nextCursor), transactions: page.items, chainInfo: chainInfo(chain)};
  });

  // The UTXOs of addresses: `addresses` in the query (GET), or in a JSON body (POST, chainkit's
  // listUtxosByAddressesV2, for more addresses than a URL carries); the other parameters in the query for both.
  const utxos = async (ctx: RequestCtx<ChainParams>, addresses: Uint8Array[]): Promise<unknown> => {
    const chain = chainOf(ctx);
    const pageSize = ctx.query.pageSize();
    const assetId = ctx.query.string("assetId");
    if (assetId !== undefined && !validId("X", assetId)) throw badRequest("assetId", `not an asset ID: ${JSON.stringify(assetId)}`);
    const minUtxoAmount = ctx.query.string("minUtxoAmount");
    if (minUtxoAmount !== undefined && !/^[0-9]{1,20}$/.test(minUtxoAmount)) {
      throw badRequest("minUtxoAmount", `not an amount: ${JSON.stringify(minUtxoAmount)}`);
    }
    const args = {
      addresses,
      assetId,
      includeSpent: ctx.query.boolean("includeSpent"),
      minAmount: minUtxoAmount === undefined ? undefined : BigInt(minUtxoAmount),
      sortBy: ctx.query.enumValue("sortBy", ["timestamp", "amount"] as const, "timestamp"),
      sortOrder: ctx.query.sortOrder(),
      pageSize,
      cursor: ctx.cursorText(),
    };
    const page = chain === "P" ? await listPChainUtxos(m.sql, net, args) : await listXChainUtxos(m.sql, net, {...args, chain});
    return {nextPageToken: ctx.token(page.nextCursor), utxos: page.items, chainInfo: chainInfo(chain)};
  };
  // A route that takes `addresses` in the query (GET) or in a JSON body (POST), as chainkit's V2 methods send them.
  type ByAddressesRoute = "utxos" | "lastActivityTimestampByAddresses";
  type ByAddressesPath = `/v1/networks/:network/blockchains/:blockchainId/${ByAddressesRoute}`;
  type ByAddresses = (ctx: RequestCtx<ChainParams>, addresses: Uint8Array[]) => Promise<unknown>;
  const byAddresses = (path: ByAddressesPath, answer: ByAddresses): void => {
    router.get(path, async (ctx) => {
      const addresses = parseAddresses(ctx.query, chainOf(ctx), hrp);
      if (addresses === undefined) throw badRequest("addresses", "required");
      return answer(ctx, addresses);
    });
    router.post(path, async (ctx) => answer(ctx, bodyAddresses(ctx.body, chainOf(ctx), hrp)));
  };
  byAddresses("/v1/networks/:network/blockchains/:blockchainId/utxos", utxos);

  // The addresses' last activity on the chain (queries/primary/utxos.ts lastActivity): `addresses` in the query
  // (GET) or in a JSON body (POST, chainkit's getLastActivityTimestampByAddressesV2).
  const activity = async (ctx: RequestCtx<ChainParams>, addresses: Uint8Array[]): Promise<unknown> => {
    const chain = chainOf(ctx);
    return found(await lastActivity(m.sql, net, {chain, addresses}), `activity of the addresses on the ${chain}-chain`);
  };
  byAddresses("/v1/networks/:network/blockchains/:blockchainId/lastActivityTimestampByAddresses", activity);

  router.get("/v1/networks/:network/blockchains/:blockchainId/balances", async (ctx) => {
    const chain = chainOf(ctx);
    const addresses = parseAddresses(ctx.query, chain, hrp);
    if (addresses === undefined) throw badRequest("addresses", "required");
    const now = nowSeconds(ctx.query);
    const balances =
      chain === "P" ? await getPChainBalances(m.sql, net, {addresses, now}) : chain === "X" ? await getXChainBalances(m.sql, net, {addresses, now}) : await getCChainAtomicBalances(m.sql, net, {addresses, now});
    return {balances, chainInfo: chainInfo(chain)};
  });

  router.get("/v1/networks/:network/blockchains/:blockchainId/assets/:assetId", async (ctx) => {
    chainOf(ctx, ["X"], "asset details");
    const assetId = checkedId("assetId", ctx.params.assetId, "X", "an asset ID");
    return found(await getAssetDetails(m.sql, assetId), `asset ${assetId}`);
  });

  router.get("/v1/networks/:network/blockchains/:blockchainId/vertices", async (ctx) => {
    const chain = chainOf(ctx, ["X"], "vertices");
    const page = await listLatestVertices(m.sql, {pageSize: ctx.query.pageSize(), cursor: ctx.cursorText()});
    return {nextPageToken: ctx.token(page.nextCursor), vertices: page.items, chainInfo: chainInfo(chain)};
  });

  // 12: X-chain vertices by height.
  router.get("/v1/networks/:network/blockchains/:blockchainId/vertices:listByHeight", async (ctx) => {
    const chain = chainOf(ctx, ["X"], "vertices");
    const vertexHeight = ctx.query.requiredInt("vertexHeight");
    const page = await listVerticesByHeight(m.sql, {vertexHeight, sortOrder: ctx.query.sortOrder(), pageSize: ctx.query.pageSize(), cursor: ctx.cursorText()});
    return {nextPageToken: ctx.token(page.nextCursor), vertices: page.items, chainInfo: chainInfo(chain)};
  });

  router.get("/v1/networks/:network/blockchains/:blockchainId/vertices/:vertexHash", async (ctx) => {
    chainOf(ctx, ["X"], "vertices");
    const id = checkedId("vertexHash", ctx.params.vertexHash, "X", "a vertex ID");
    return found(await getVertex(m.sql, id), `vertex ${id}`);
  });

  router.get("/v1/networks/:network", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    return getNetworkDetails(m.sql);
  });

  // 10: pending rewards.
  router.get("/v1/networks/:network/rewards:listPending", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const addresses = parseAddresses(ctx.query, "P", hrp);
    const nodeIds = parseNodeIds(ctx.query, "nodeIds");
    if (addresses === undefined && nodeIds === undefined) throw badRequest("addresses", "addresses or nodeIds is required");
    const page = await listPendingRewards(m.sql, net, {addresses, nodeIds, now: nowSeconds(ctx.query), pageSize: ctx.query.pageSize(), cursor: ctx.cursorText()});
    return {nextPageToken: ctx.token(page.nextCursor), pendingRewards: page.items};
  });

  router.get("/v1/networks/:network/rewards", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const addresses = parseAddresses(ctx.query, "P", hrp);
    if (addresses === undefined) throw badRequest("addresses", "required");
    const page = await listHistoricalRewards(m.sql, net, {addresses, sortOrder: ctx.query.sortOrder(), pageSize: ctx.query.pageSize(), cursor: ctx.cursorText()});
    return {nextPageToken: ctx.token(page.nextCursor), historicalRewards: page.items};
  });

  // `removed`: permissioned subnet validators a RemoveSubnetValidatorTx removed (chainkit's RemovedValidatorDetails).
  const STATUSES = ["active", "pending", "completed", "removed"] as const;
  const DELEGATION_STATUSES = ["active", "pending", "completed"] as const;
  router.get("/v1/networks/:network/validators", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const subnetId = ctx.query.string("subnetId");
    if (subnetId !== undefined && !validId("P", subnetId)) throw badRequest("subnetId", `not a subnet ID: ${JSON.stringify(subnetId)}`);
    const page = await listValidators(m.sql, net, {
      validationStatus: ctx.query.enumValue("validationStatus", STATUSES),
      nodeIds: parseNodeIds(ctx.query, "nodeIds"),
      subnetId,
      now: nowSeconds(ctx.query),
      pageSize: ctx.query.pageSize(),
      cursor: ctx.cursorText(),
      observations: m.observations,
    });
    return {nextPageToken: ctx.token(page.nextCursor), validators: page.items};
  });

  router.get("/v1/networks/:network/validators/:nodeId", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const nodeId = ctx.params.nodeId;
    if (!validNodeId(nodeId)) throw badRequest("nodeId", `not a node ID: ${JSON.stringify(nodeId)}`);
    const page = await listValidators(m.sql, net, {
      validationStatus: ctx.query.enumValue("validationStatus", STATUSES),
      nodeIds: [nodeId],
      now: nowSeconds(ctx.query),
      pageSize: ctx.query.pageSize(),
      cursor: ctx.cursorText(),
      observations: m.observations,
    });
    return {nextPageToken: ctx.token(page.nextCursor), validators: page.items};
  });

  router.get("/v1/networks/:network/delegators", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const page = await listDelegators(m.sql, net, {
      delegationStatus: ctx.query.enumValue("delegationStatus", DELEGATION_STATUSES),
      nodeIds: parseNodeIds(ctx.query, "nodeIds"),
      rewardAddresses: ctx.query.list("rewardAddresses").length > 0 ? ctx.query.list("rewardAddresses").map((a) => parseAddress("rewardAddresses", a, hrp)) : undefined,
      now: nowSeconds(ctx.query),
      pageSize: ctx.query.pageSize(),
      cursor: ctx.cursorText(),
    });
    return {nextPageToken: ctx.token(page.nextCursor), delegators: page.items};
  });

  router.get("/v1/networks/:network/l1Validators", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const l1ValidationId = ctx.query.string("l1ValidationId");
    if (l1ValidationId !== undefined && !validId("P", l1ValidationId)) throw badRequest("l1ValidationId", `not an ID: ${JSON.stringify(l1ValidationId)}`);
    const subnetId = ctx.query.string("subnetId");
    if (subnetId !== undefined && !validId("P", subnetId)) throw badRequest("subnetId", `not a subnet ID: ${JSON.stringify(subnetId)}`);
    const nodeId = ctx.query.string("nodeId");
    if (nodeId !== undefined && !validNodeId(nodeId)) throw badRequest("nodeId", `not a node ID: ${JSON.stringify(nodeId)}`);
    const page = await listL1Validators(m.sql, net, {l1ValidationId, subnetId, nodeId, includeInactive: ctx.query.boolean("includeInactiveL1Validators", ctx.query.boolean("includeInactive")), pageSize: ctx.query.pageSize(), cursor: ctx.cursorText()});
    return {nextPageToken: ctx.token(page.nextCursor), validators: page.items, blockHeight: page.blockHeight};
  });

  router.get("/v1/networks/:network/blockchains", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const page = await listBlockchains(m.sql, {sortOrder: ctx.query.sortOrder(), pageSize: ctx.query.pageSize(), cursor: ctx.cursorText()});
    return {nextPageToken: ctx.token(page.nextCursor), blockchains: page.items};
  });

  router.get("/v1/networks/:network/blockchains/:blockchainId", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const id = checkedId("blockchainId", ctx.params.blockchainId, "P", "a blockchain ID");
    return found(await getBlockchain(m.sql, id), `blockchain ${id}`);
  });

  // The primary-network chains on which each address has transactions (`addresses`: a comma list, or repeated).
  router.get("/v1/networks/:network/addresses:listChainIds", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const given = ctx.query.list("addresses");
    const addresses = parseAddresses(ctx.query, "P", hrp);
    if (addresses === undefined) throw badRequest("addresses", "required");
    const chains = await chainsOfAddresses(m.sql, addresses);
    return {addresses: given.map((address, i) => ({address, blockchainIds: chains[i]!.map((c) => m.network.chainIds[c])}))};
  });

  // The AVAX supply of the network this node serves, summed over the store (queries/primary/supply.ts): every UTXO
  // is read, so one answer is kept for SUPPLY_TTL_MS after it was computed, concurrent requests share the one
  // computation in progress, and on a PostgreSQL server the statement is cut off after SUPPLY_TIMEOUT_MS (503).
  const supply = new SharedAnswer<unknown>({ttlMs: SUPPLY_TTL_MS}, {
    compute: async () => {
      try {
        return await getAvaxSupply(m.sql, net, {now: Math.floor(Date.now() / 1000), timeoutMs: SUPPLY_TIMEOUT_MS});
      } catch (e) {
        if (e instanceof SupplyPendingError) throw new DataApiError(503, e.message);
        if ((e as {code?: unknown}).code !== "57014") throw e; // query_canceled: the statement timeout
        throw new DataApiError(503, `the AVAX supply took longer than ${SUPPLY_TIMEOUT_MS / 1000} s to sum; retry later`);
      }
    },
  });
  router.get("/v1/avax/supply", () => supply.get());

  router.get("/v1/networks/:network/subnets", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const page = await listSubnets(m.sql, net, {sortOrder: ctx.query.sortOrder(), pageSize: ctx.query.pageSize(), cursor: ctx.cursorText()});
    return {nextPageToken: ctx.token(page.nextCursor), subnets: page.items};
  });

  router.get("/v1/networks/:network/subnets/:subnetId", async (ctx) => {
    resolveNetwork(ctx.params.network, m.network);
    const id = checkedId("subnetId", ctx.params.subnetId, "P", "a subnet ID");
    return found(await getSubnet(m.sql, net, id), `subnet ${id}`);
  });
}

/** Now, in Unix seconds (what "pending", "active" and locked balances are judged at). */
function nowSeconds(_q: Query): number {
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
function parseNodeIds(q: Query, param: string): string[] | undefined {
  const ids = q.list(param);
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
function parseAddresses(q: Query, chain: ChainName, hrp: string): Uint8Array[] | undefined {
  const values = q.list("addresses");
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
