/**
 * The EVM endpoints of the data API (contract data-api §6): chains, blocks, transactions, transfers, internal
 * transactions, contracts, balances and NFTs of the followed EVM chains. Parameters are checked here (400 naming
 * the parameter), answers come from the store; native balances and contract checks ask the chain's RPC (503 when
 * it does not answer).
 */
import {hexToBytes, toHex, toQuantity} from "../../evm/hex.js";
import {RpcError} from "../../evm/rpc.js";
import {indexedHead} from "../queries/evm/transactions.js";
import {icmInfoOfTx} from "./icm.js";
import type {SqlClient} from "../store/client.js";
import type {DataApiRouter, RequestCtx} from "../server/router.js";
import {badRequest, notFound, unavailable} from "../server/errors.js";
import {parseEvmAddress, servedNetworkQuery} from "../server/names.js";
import {AVAX_TOKEN, type EvmChain, type EvmChains} from "../evm/chains.js";
import {CursorError, chainsOfAddress, getBlock, getTransaction, listAddressTransactions, listBlocksAcrossChains, listTransactionsAcrossChains, listAddressTransfers, listBlocks, listInternalTransactions, listNativeTransactions, listTokenTransfers, listTransactions, type Cursor, type EvmListArgs} from "../queries/evm/transactions.js";
import {contractModel, erc20Balance, getCollectionToken, getContract, getToken, listBalances, listCollectionTokens, listDeployments, nftBalance, type CuratedMetadata} from "../queries/evm/tokens.js";
import type {NetworkToken} from "../models/evm/index.js";

export interface EvmRoutesModules {
  sql: SqlClient;
  chains: EvmChains;
  /** Curated contract fields by lowercase 0x address (`--contract-metadata-file`). */
  curated: Map<string, CuratedMetadata>;
}

type ChainParams = {chainId: string};
type AddressParams = ChainParams & {address: string};

const TX_HASH_RE = /^0x[0-9a-fA-F]{64}$/;
const INT_RE = /^(0|[1-9][0-9]{0,77})$/;

export function registerEvmRoutes(router: DataApiRouter, m: EvmRoutesModules): void {
  const chainOf = async (ctx: RequestCtx<ChainParams>): Promise<EvmChain & {chainId: string}> => {
    await m.chains.refresh();
    return m.chains.resolve(ctx.params.chainId);
  };
  const address = (ctx: RequestCtx<AddressParams>): Uint8Array => parseEvmAddress("address", ctx.params.address);
  const cursor = (ctx: RequestCtx<unknown>): Cursor | null => ctx.cursor();
  /** Runs a list query; a cursor of the wrong shape (a token of another list) is a 400. */
  const list = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      if (e instanceof CursorError) throw badRequest("pageToken", "not a token of this list");
      throw e;
    }
  };
  const listArgs = (ctx: RequestCtx<ChainParams>, chainId: string, o: {range?: boolean; sort?: boolean} = {}): EvmListArgs => {
    const pageSize = ctx.query.pageSize();
    const {start, end} = o.range ? ctx.query.blockRange() : {start: undefined, end: undefined};
    return {chainId, pageSize, cursor: cursor(ctx), sortOrder: o.sort ? ctx.query.sortOrder() : "desc", startBlock: start, endBlock: end};
  };
  const rpcCall = async <T>(c: EvmChain, method: string, params: unknown[]): Promise<T> => {
    try {
      return await c.rpc.call<T>(method, params);
    } catch (e) {
      throw unavailable(`the RPC of chain ${c.chainId ?? c.blockchainId} did not answer ${method}: ${(e as Error).message}`);
    }
  };
  const nativeBalance = async (c: EvmChain & {chainId: string}, owner: Uint8Array, block: bigint | undefined): Promise<Record<string, unknown>> => {
    let wei: string;
    try {
      wei = await c.rpc.call<string>("eth_getBalance", [toHex(owner), block === undefined ? "latest" : toQuantity(block)]);
    } catch (e) {
      // The node's own answer at a block it cannot serve (past its head, pruned state) is about the parameter.
      if (block !== undefined && e instanceof RpcError && e.kind === "rpc") throw badRequest("blockNumber", `chain ${c.chainId} cannot answer at block ${block}: ${e.message.replace(/^eth_getBalance: /, "")}`);
      throw unavailable(`the RPC of chain ${c.chainId} did not answer eth_getBalance: ${(e as Error).message}`);
    }
    return {...tokenFields(c.networkToken), chainId: c.chainId, balance: BigInt(wei).toString()};
  };
  /** GetTransactionResponse (endpoints 15 and 6): the transaction, its transfers and internal transactions, its ICM message. */
  const transactionAnswer = async (c: EvmChain & {chainId: string}, hash: Uint8Array): Promise<Record<string, unknown> | null> => {
    const found = await getTransaction(m.sql, c.chainId, hash);
    if (!found) return null;
    const out: Record<string, unknown> = {...found.details, networkTokenDetails: {networkToken: c.networkToken}, nativeTransaction: found.tx};
    const icm = await icmInfoOfTx(m.sql, c.chainId, BigInt(found.tx.blockNumber), found.tx.blockIndex);
    // The SDKs' TeleporterMessageInfo (glacier-sdk 3.0.2, chainkit 0.3.13), and the hosted API's newer
    // interchainMessageInfo, whose ID field is named for it: the same facts.
    if (icm) {
      const {teleporterMessageId, ...rest} = icm;
      const interchainMessageInfo = {interchainMessageId: teleporterMessageId, ...rest};
      Object.assign(out, {teleporterMessageInfo: icm, interchainMessageInfo});
    }
    return out;
  };

  /** `blockNumber`: a block the view has folded (a later one has no balances to sum yet: 400, not a guess). */
  const blockNumberParam = async (ctx: RequestCtx<unknown>, c: EvmChain & {chainId: string}): Promise<bigint | undefined> => {
    const v = ctx.query.string("blockNumber");
    if (v === undefined) return undefined;
    if (!/^(0|[1-9][0-9]{0,18})$/.test(v)) throw badRequest("blockNumber", "must be a block number (an integer >= 0)");
    const head = await indexedHead(m.sql, c.chainId);
    if (head === null || BigInt(v) > head) throw badRequest("blockNumber", `block ${v} is past the indexed head of chain ${c.chainId} (${head ?? "none"})`);
    return BigInt(v);
  };

  // ---- chains ----

  /** The names the P-chain gave these blockchains (CreateChainTx), by blockchain ID. */
  const blockchainNames = async (ids: string[]): Promise<Map<string, string>> => {
    if (ids.length === 0) return new Map();
    const rows = await m.sql.query<{blockchain_id: string; name: string}>("SELECT blockchain_id, name FROM blockchains WHERE blockchain_id = ANY($1)", [ids]);
    return new Map(rows.map((r) => [r.blockchain_id, r.name]));
  };

  /** The followed chains with a known EVM chain ID; a `network` other than this node's is not served here (404). */
  const listedChains = async (ctx: RequestCtx<unknown>): Promise<EvmChain[]> => {
    servedNetworkQuery(ctx.query.string("network"), m.chains.network);
    await m.chains.refresh();
    return m.chains.chains.filter((c) => m.chains.chainIdOf(c) !== null);
  };
  const chainInfos = async (listed: EvmChain[]): Promise<Array<Record<string, unknown>>> => {
    const names = await blockchainNames(listed.map((c) => m.chains.blockchainIdOf(c)).filter((id): id is string => id !== null));
    return listed.map((c) => chainInfo(m.chains, c, names));
  };

  router.get("/v1/chains", async (ctx) => ({chains: await chainInfos(await listedChains(ctx))}));

  // Across the followed chains: the latest blocks and transactions, and the chains an address took part in. The
  // SDK's deprecated names (`/v1/chains/allBlocks`, `/v1/chains/allTransactions`, `/v1/chains/address/...`) too.
  const idsOf = (chains: EvmChain[]): string[] => chains.map((c) => m.chains.chainIdOf(c)!);
  const blocksAcross = async (ctx: RequestCtx<unknown>): Promise<unknown> => {
    const chainIds = idsOf(await listedChains(ctx));
    const page = await list(() => listBlocksAcrossChains(m.sql, {chainIds, pageSize: ctx.query.pageSize(), cursor: cursor(ctx)}));
    return {nextPageToken: ctx.pageToken(page.next), blocks: page.items};
  };
  const transactionsAcross = async (ctx: RequestCtx<unknown>): Promise<unknown> => {
    const chainIds = idsOf(await listedChains(ctx));
    const status = ctx.query.enumValue("status", ["failed", "success"] as const);
    const page = await list(() => listTransactionsAcrossChains(m.sql, {chainIds, pageSize: ctx.query.pageSize(), cursor: cursor(ctx), status: status === undefined ? undefined : status === "success" ? 1 : 0}));
    return {nextPageToken: ctx.pageToken(page.next), transactions: page.items};
  };
  const addressChains = async (ctx: RequestCtx<{address: string}>): Promise<unknown> => {
    const owner = parseEvmAddress("address", ctx.params.address);
    const listed = await listedChains(ctx);
    const active = new Set(await chainsOfAddress(m.sql, idsOf(listed), owner));
    return {indexedChains: await chainInfos(listed.filter((c) => active.has(m.chains.chainIdOf(c)!)))};
  };
  for (const path of ["/v1/blocks", "/v1/chains/allBlocks"]) router.get(path, blocksAcross);
  for (const path of ["/v1/transactions", "/v1/chains/allTransactions"]) router.get(path, transactionsAcross);
  router.get("/v1/address/:address/chains", addressChains);
  router.get("/v1/chains/address/:address", addressChains);

  router.get("/v1/chains/:chainId", async (ctx) => {
    const c = await chainOf(ctx);
    const id = m.chains.blockchainIdOf(c);
    return chainInfo(m.chains, c, await blockchainNames(id ? [id] : []));
  });

  // ---- blocks ----

  router.get("/v1/chains/:chainId/blocks", async (ctx) => {
    const c = await chainOf(ctx);
    const page = await list(() => listBlocks(m.sql, listArgs(ctx, c.chainId)));
    return {nextPageToken: ctx.pageToken(page.next), blocks: page.items};
  });

  const blockIdOf = (id: string): {number?: bigint; hash?: Uint8Array} => {
    if (/^(0|[1-9][0-9]{0,18})$/.test(id)) return {number: BigInt(id)};
    if (TX_HASH_RE.test(id)) return {hash: hexToBytes(id)};
    throw badRequest("blockId", `not a block number or hash: ${JSON.stringify(id)}`);
  };

  router.get("/v1/chains/:chainId/blocks/:blockId", async (ctx) => {
    const c = await chainOf(ctx);
    const b = await getBlock(m.sql, c.chainId, blockIdOf(ctx.params.blockId));
    if (!b) throw notFound(`block ${ctx.params.blockId} not found on chain ${c.chainId}`);
    return b;
  });

  router.get("/v1/chains/:chainId/blocks/:blockId/transactions", async (ctx) => {
    const c = await chainOf(ctx);
    const b = await getBlock(m.sql, c.chainId, blockIdOf(ctx.params.blockId));
    if (!b) throw notFound(`block ${ctx.params.blockId} not found on chain ${c.chainId}`);
    const args = {...listArgs(ctx, c.chainId), sortOrder: "asc" as const, blockNumber: BigInt(b.blockNumber)};
    const page = await list(() => listTransactions(m.sql, args));
    return {nextPageToken: ctx.pageToken(page.next), transactions: page.items};
  });

  // ---- transactions ----

  router.get("/v1/chains/:chainId/transactions", async (ctx) => {
    const c = await chainOf(ctx);
    const status = ctx.query.enumValue("status", ["failed", "success"] as const);
    const page = await list(() => listTransactions(m.sql, {...listArgs(ctx, c.chainId), status: status === undefined ? undefined : status === "success" ? 1 : 0}));
    return {nextPageToken: ctx.pageToken(page.next), transactions: page.items};
  });

  // 15: one transaction.
  router.get("/v1/chains/:chainId/transactions/:txHash", async (ctx) => {
    const c = await chainOf(ctx);
    if (!TX_HASH_RE.test(ctx.params.txHash)) throw badRequest("txHash", `not a transaction hash (0x and 64 hex digits): ${JSON.stringify(ctx.params.txHash)}`);
    const found = await transactionAnswer(c, hexToBytes(ctx.params.txHash));
    if (!found) throw notFound(`transaction ${ctx.params.txHash} not found on chain ${c.chainId}`);
    return found;
  });

  // 3: transactions of an address.
  router.get("/v1/chains/:chainId/addresses/:address/transactions", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    const page = await list(() => listAddressTransactions(m.sql, {...listArgs(ctx, c.chainId, {range: true, sort: true}), address: a}));
    return {nextPageToken: ctx.pageToken(page.next), transactions: page.items};
  });

  router.get("/v1/chains/:chainId/addresses/:address/transactions:listNative", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    const page = await list(() => listNativeTransactions(m.sql, {...listArgs(ctx, c.chainId, {range: true}), address: a}));
    return {nextPageToken: ctx.pageToken(page.next), transactions: page.items};
  });

  for (const [suffix, erc] of [["listErc20", 20], ["listErc721", 721], ["listErc1155", 1155]] as const) {
    router.get(`/v1/chains/:chainId/addresses/:address/transactions:${suffix}`, async (ctx: RequestCtx<AddressParams>) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      const page = await list(() => listAddressTransfers(m.sql, {...listArgs(ctx, c.chainId, {range: true}), address: a, erc}));
      return {nextPageToken: ctx.pageToken(page.next), transactions: page.items};
    });
  }

  // 8: internal transactions.
  router.get("/v1/chains/:chainId/addresses/:address/transactions:listInternals", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    if (m.chains.traces(c) === false) throw unavailable(`chain ${c.chainId}'s RPC serves no call traces: internal transactions are not indexed (enable debug-tracer)`);
    const page = await list(() => listInternalTransactions(m.sql, {...listArgs(ctx, c.chainId, {range: true}), address: a}));
    return {nextPageToken: ctx.pageToken(page.next), transactions: page.items};
  });

  // 7: transfers of a token contract.
  router.get("/v1/chains/:chainId/tokens/:address/transfers", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    const page = await list(() => listTokenTransfers(m.sql, {...listArgs(ctx, c.chainId, {range: true}), token: a}));
    return {nextPageToken: ctx.pageToken(page.next), transfers: page.items};
  });

  // ---- contracts ----

  // 6: the deployment transaction.
  router.get("/v1/chains/:chainId/contracts/:address/transactions:getDeployment", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    const contract = await getContract(m.sql, c.chainId, a);
    if (!contract) throw notFound(`no deployment of ${ctx.params.address} is indexed on chain ${c.chainId}`);
    const found = await transactionAnswer(c, contract.tx_hash);
    if (!found) throw notFound(`no deployment of ${ctx.params.address} is indexed on chain ${c.chainId}`);
    return found;
  });

  // 13: contracts deployed by the address.
  router.get("/v1/chains/:chainId/contracts/:address/deployments", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    const page = await list(() => listDeployments(m.sql, {chainId: c.chainId, address: a, pageSize: ctx.query.pageSize(), cursor: cursor(ctx)}));
    return {nextPageToken: ctx.pageToken(page.next), contracts: page.items.map((r) => contractModel(r, m.curated.get(toHex(r.address))))};
  });

  // 18: contract metadata.
  router.get("/v1/chains/:chainId/addresses/:address", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    const curated = m.curated.get(toHex(a));
    const contract = await getContract(m.sql, c.chainId, a);
    const token = await getToken(m.sql, c.chainId, a);
    if (!contract && !token) {
      // Not deployed in the indexed range (a genesis contract, a precompile, or an EOA): the chain says which.
      const code = await rpcCall<string>(c, "eth_getCode", [toHex(a), "latest"]);
      if (code === "0x" && !curated) throw notFound(`${ctx.params.address} is not a contract on chain ${c.chainId}`);
    }
    return contractModel({address: a, tx_hash: contract?.tx_hash ?? null, deployer: contract?.deployer ?? a, deployer_contract: contract?.deployer_contract ?? null, erc: token?.erc ?? null, name: token?.name ?? null, symbol: token?.symbol ?? null, decimals: token?.decimals ?? null}, curated);
  });

  // ---- balances ----

  router.get("/v1/chains/:chainId/addresses/:address/balances:getNative", async (ctx) => {
    const c = await chainOf(ctx);
    return {nativeTokenBalance: await nativeBalance(c, address(ctx), await blockNumberParam(ctx, c))};
  });

  const balanceList = (suffix: "listErc20" | "listErc721" | "listErc1155" | "listCollectibles", ercs: number[], field: string, o: {history: boolean; multiContract: boolean; native: boolean}): void => {
    router.get(`/v1/chains/:chainId/addresses/:address/balances:${suffix}`, async (ctx: RequestCtx<AddressParams>) => {
      const c = await chainOf(ctx);
      const owner = address(ctx);
      const pageSize = ctx.query.pageSize(500);
      const blockNumber = o.history ? await blockNumberParam(ctx, c) : undefined;
      let contracts: Uint8Array[] | undefined;
      if (o.multiContract) {
        const list = ctx.query.list("contractAddresses");
        contracts = list.map((v) => parseEvmAddress("contractAddresses", v));
      } else {
        const one = ctx.query.string("contractAddress");
        contracts = one === undefined ? undefined : [parseEvmAddress("contractAddress", one)];
      }
      const page = await list(() => listBalances(m.sql, {chainId: c.chainId, owner, ercs, contracts, blockNumber, pageSize, cursor: cursor(ctx)}));
      const items = page.items.map((r) => (r.erc === 20 ? erc20Balance(c.chainId, r) : nftBalance(c.chainId, r, owner)));
      const out: Record<string, unknown> = {nextPageToken: ctx.pageToken(page.next)};
      if (o.native) out.nativeTokenBalance = await nativeBalance(c, owner, blockNumber);
      out[field] = items;
      return out;
    });
  };
  balanceList("listErc20", [20], "erc20TokenBalances", {history: true, multiContract: true, native: true});
  balanceList("listErc721", [721], "erc721TokenBalances", {history: false, multiContract: false, native: true});
  // 9: ERC-1155 balances, at a past block too.
  balanceList("listErc1155", [1155], "erc1155TokenBalances", {history: true, multiContract: false, native: true});
  // 11: ERC-721 and ERC-1155 holdings.
  balanceList("listCollectibles", [721, 1155], "collectibleBalances", {history: false, multiContract: false, native: false});

  // ---- NFTs ----

  // 14: the tokens of a collection.
  router.get("/v1/chains/:chainId/nfts/collections/:address/tokens", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    const page = await list(() => listCollectionTokens(m.sql, {chainId: c.chainId, token: a, pageSize: ctx.query.pageSize(), cursor: cursor(ctx)}));
    return {nextPageToken: ctx.pageToken(page.next), tokens: page.items};
  });

  router.get("/v1/chains/:chainId/nfts/collections/:address/tokens/:tokenId", async (ctx) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    if (!INT_RE.test(ctx.params.tokenId)) throw badRequest("tokenId", `not a token ID (a decimal integer): ${JSON.stringify(ctx.params.tokenId)}`);
    const t = await getCollectionToken(m.sql, c.chainId, a, ctx.params.tokenId);
    if (!t) throw notFound(`token ${ctx.params.tokenId} of ${ctx.params.address} not found on chain ${c.chainId}`);
    return t;
  });
}

function tokenFields(t: NetworkToken): Record<string, unknown> {
  return {name: t.name, symbol: t.symbol, decimals: t.decimals};
}

/** GetChainResponse / ChainInfo. */
function chainInfo(chains: EvmChains, c: EvmChain, names: ReadonlyMap<string, string>): Record<string, unknown> {
  const s = c.follower?.status();
  const id = chains.chainIdOf(c);
  const blockchainId = chains.blockchainIdOf(c);
  const out: Record<string, unknown> = {
    chainId: id,
    status: s ? s.status : "OK",
    // An L1's name is the one its CreateChainTx gave it, once the P-chain view has it.
    chainName: c.isCChain ? "C-Chain" : ((blockchainId && names.get(blockchainId)) || `EVM chain ${id}`),
    description: c.isCChain ? "The Contract Chain of the Avalanche primary network" : `An EVM chain followed through ${c.rpc.opts.url}`,
    vmName: "EVM",
    rpcUrl: publicRpcUrl(c.rpc.opts.url),
    isTestnet: chains.network.name !== "mainnet",
    networkToken: c.networkToken ?? AVAX_TOKEN,
    enabledFeatures: ["nftIndexing"],
  };
  if (blockchainId) out.platformChainId = blockchainId;
  if (s) {
    // avaext's extension: the follower's own state (the hosted API has no such field).
    out.indexing = {
      head: s.head?.toString() ?? null,
      rpcHead: s.rpcHead?.toString() ?? null,
      internalTransactions: s.traces,
      ...(s.lastError ? {lastError: s.lastError} : {}),
    };
  } else {
    // A serve process: what the writer stored.
    const st = chains.storedState(c);
    out.indexing = {head: st?.head?.toString() ?? null, internalTransactions: st?.traces ?? null};
  }
  return out;
}

/**
 * The RPC URL as /v1/chains shows it: no credentials, no query, and no path beyond AvalancheGo's own
 * (`/ext/bc/<chain>/rpc`): operators put API keys in all three.
 */
export function publicRpcUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const path = /^\/ext\/bc\/[A-Za-z0-9]+\/rpc\/?$/.test(u.pathname) || u.pathname === "/" ? u.pathname : "/…";
    return `${u.protocol}//${u.host}${path === "/" ? "" : path}`;
  } catch {
    return "";
  }
}


