/**
 * The primary-network endpoints of the data API (contract data-api §5): parameters in (parsed and checked by the
 * router's helpers), the queries of src/dataApi/queries/primary, the hosted API's response shapes out.
 */
import type {ChainName, ChainRegistry, NetworkInfo} from "../../chains/index.js";
import type {SqlClient} from "../store/client.js";
import type {DataApiRouter, RequestCtx} from "../server/router.js";
import {badRequest, notFound} from "../server/errors.js";
import {CHAIN_INFO_NAMES, hrpOf, isEvmAddress, parseAddress, parseEvmAddress, resolveChain, resolveNetwork} from "../server/names.js";
import type {Query} from "../server/params.js";
import type {NetworkCtx} from "../queries/primary/common.js";
import {getBlock, listBlocks} from "../queries/primary/blocks.js";
import {
  getCChainTransaction,
  getPChainTransaction,
  getXChainTransaction,
  listAssetTransactions,
  listCChainTransactions,
  listPChainTransactions,
  listXChainTransactions,
} from "../queries/primary/transactions.js";
import {listPChainUtxos} from "../queries/primary/utxos.js";
import {EMPTY_ID, idFromString} from "../../util/cb58.js";

export interface PrimaryRoutesModules {
  sql: SqlClient;
  network: NetworkInfo;
  chains: ChainRegistry;
  avaxAssetId: string;
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

  router.get("/v1/networks/:network/blockchains/:blockchainId/blocks/:blockId", async (ctx) => {
    const chain = chainOf(ctx);
    const id = ctx.params.blockId;
    if (!/^[0-9]{1,19}$/.test(id) && !validId(chain, id)) throw badRequest("blockId", `not a block height or ID: ${JSON.stringify(id)}`);
    const block = await getBlock(m.sql, chain, id);
    if (!block) throw notFound(`block ${id} not found on the ${chain}-chain`);
    return block;
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

  router.get("/v1/networks/:network/blockchains/:blockchainId/transactions/:txHash", async (ctx) => {
    const chain = chainOf(ctx);
    const id = ctx.params.txHash;
    if (!validId(chain === "C" ? "P" : chain, id)) throw badRequest("txHash", `not a transaction ID: ${JSON.stringify(id)}`);
    const tx = chain === "P" ? await getPChainTransaction(m.sql, net, id) : chain === "X" ? await getXChainTransaction(m.sql, net, id) : await getCChainTransaction(m.sql, net, id);
    if (!tx) throw notFound(`transaction ${id} not found on the ${chain}-chain`);
    return tx;
  });

  // 4: X-chain asset transactions.
  router.get("/v1/networks/:network/blockchains/:blockchainId/assets/:assetId/transactions", async (ctx) => {
    const chain = chainOf(ctx, ["X"], "asset transactions");
    const assetId = ctx.params.assetId;
    if (!validId("X", assetId)) throw badRequest("assetId", `not an asset ID: ${JSON.stringify(assetId)}`);
    const pageSize = ctx.query.pageSize();
    const txTypes = ctx.query.enumList("txTypes", TX_TYPES.X);
    const {start, end} = ctx.query.timeRange();
    const page = await listAssetTransactions(m.sql, net, {assetId, pageSize, cursor: ctx.cursorText(), txTypes: txTypes.length > 0 ? txTypes : undefined, startTimestamp: start, endTimestamp: end});
    return {nextPageToken: ctx.token(page.nextCursor), transactions: page.items, chainInfo: chainInfo(chain)};
  });

  router.get("/v1/networks/:network/blockchains/:blockchainId/utxos", async (ctx) => {
    const chain = chainOf(ctx, ["P"], "UTXOs");
    const addresses = parseAddresses(ctx.query, chain, hrp);
    if (addresses === undefined) throw badRequest("addresses", "required");
    const pageSize = ctx.query.pageSize();
    const assetId = ctx.query.string("assetId");
    if (assetId !== undefined && !validId("X", assetId)) throw badRequest("assetId", `not an asset ID: ${JSON.stringify(assetId)}`);
    const page = await listPChainUtxos(m.sql, net, {
      addresses,
      assetId,
      includeSpent: ctx.query.boolean("includeSpent"),
      sortBy: ctx.query.enumValue("sortBy", ["timestamp", "amount"] as const, "timestamp"),
      sortOrder: ctx.query.sortOrder(),
      pageSize,
      cursor: ctx.cursorText(),
    });
    return {nextPageToken: ctx.token(page.nextCursor), utxos: page.items, chainInfo: chainInfo(chain)};
  });
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
  return values.map((v) => (chain === "C" && isEvmAddress(v) ? parseEvmAddress("addresses", v) : parseAddress("addresses", v, hrp)));
}
