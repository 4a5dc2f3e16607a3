/**
 * The EVM endpoints of the data API (defs/evm.ts declares them): chains, blocks, transactions, transfers, internal
 * transactions, contracts, balances and NFTs of the followed EVM chains. Formats are checked here (400 naming the
 * parameter), answers come from the store; native balances and contract checks ask the chain's RPC through the
 * state reader (evm/stateReader.ts; 503 when it does not answer).
 */
import {hexToBytes, toHex} from "../../evm/hex.js";
import {indexedHead} from "../queries/evm/transactions.js";
import {blockchainNames} from "../queries/evm/chains.js";
import {icmInfoOfTx} from "../queries/icm.js";
import type {SqlClient} from "../store/sql.js";
import {implement, type BoundRoute, type RouteCtx, type ValuesPage} from "../server/route.js";
import {BlockNotServedError, RpcUnansweredError, type EvmState} from "../evm/stateReader.js";
import {EVM_ROUTES} from "./defs/evm.js";
import {badRequest, notFound, unavailable} from "../server/errors.js";
import {ScanBudgetExceeded} from "../queries/sql.js";
import {parseEvmAddress, servedNetworkQuery} from "../server/names.js";
import {looksLikeBlockNumber, parseBlockNumber} from "../server/params.js";
import {AVAX_TOKEN, type EvmChain, type EvmChains} from "../evm/chains.js";
import {
  CursorError,
  chainsOfAddress,
  getBlock,
  getTransaction,
  listAddressTransactions,
  listBlocksAcrossChains,
  listTransactionsAcrossChains,
  listAddressTransfers,
  listBlocks,
  listInternalTransactions,
  listNativeTransactions,
  listTokenTransfers,
  listTransactions,
  type EvmListArgs,
} from "../queries/evm/transactions.js";
import {
  contractModel,
  erc20Balance,
  getCollectionToken,
  getContract,
  getToken,
  listBalances,
  listCollectionTokens,
  listDeployments,
  nftBalance,
  type CuratedMetadata,
} from "../queries/evm/tokens.js";
import type {NetworkToken} from "../models/evm/index.js";

export interface EvmRoutesModules {
  sql: SqlClient;
  chains: EvmChains;
  /** Curated contract fields by lowercase 0x address (`--contract-metadata-file`). */
  curated: Map<string, CuratedMetadata>;
  /** Native balances and code, asked of each chain's RPC. */
  state: EvmState;
}

const TX_HASH_RE = /^0x[0-9a-fA-F]{64}$/;
const INT_RE = /^(0|[1-9][0-9]{0,77})$/;

type Chain = EvmChain & {chainId: string};
type R = typeof EVM_ROUTES;
type BlockRange = {readonly startBlock: bigint | undefined; readonly endBlock: bigint | undefined};

/** The EVM routes (defs/evm.ts) answered from the store, and from the chains' RPC for native balances and code. */
export function evmRoutes(m: EvmRoutesModules): BoundRoute[] {
  const chainOf = async (ctx: {params: {chainId: string}}): Promise<Chain> => {
    await m.chains.refresh();
    return m.chains.resolve(ctx.params.chainId);
  };
  const address = (ctx: {params: {address: string}}): Uint8Array => parseEvmAddress("address", ctx.params.address);
  /** Runs a list query; a cursor of the wrong shape (a token of another list) is a 400. */
  const list = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      if (e instanceof CursorError) throw badRequest("pageToken", "not a token of this list");
      if (e instanceof ScanBudgetExceeded) throw unavailable(e.message);
      throw e;
    }
  };
  /** A list's paging, block range and order, read in that order (which 400 a request with several faults gets). */
  const listArgs = (
    page: ValuesPage,
    chainId: string,
    o: {range?: BlockRange; sort?: () => "asc" | "desc"} = {},
  ): EvmListArgs => {
    const pageSize = page.size;
    const startBlock = o.range?.startBlock;
    const endBlock = o.range?.endBlock;
    return {chainId, pageSize, cursor: page.cursor, sortOrder: o.sort ? o.sort() : "desc", startBlock, endBlock};
  };
  const nativeBalance = async (c: Chain, owner: Uint8Array, block: bigint | undefined) => {
    let wei: bigint;
    try {
      wei = await m.state.nativeBalance(c, owner, block);
    } catch (e) {
      // The node's own answer at a block it cannot serve (past its head, pruned state) is about the parameter.
      if (e instanceof BlockNotServedError)
        throw badRequest("blockNumber", `chain ${c.chainId} cannot answer at block ${block}: ${e.reason}`);
      if (e instanceof RpcUnansweredError) throw unavailable(e.message);
      throw e;
    }
    return {...tokenFields(c.networkToken), chainId: c.chainId, balance: wei.toString()};
  };
  /** GetTransactionResponse: the transaction, its transfers and internal transactions, its ICM message. */
  const transactionAnswer = async (c: Chain, hash: Uint8Array): Promise<Record<string, unknown> | null> => {
    const found = await getTransaction(m.sql, c.chainId, hash);
    if (!found) return null;
    const out: Record<string, unknown> = {
      ...found.details,
      networkTokenDetails: {networkToken: c.networkToken},
      nativeTransaction: found.tx,
    };
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
  const blockNumberParam = async (v: string | undefined, c: Chain): Promise<bigint | undefined> => {
    if (v === undefined) return undefined;
    const n = parseBlockNumber("blockNumber", v);
    const head = await indexedHead(m.sql, c.chainId);
    if (head === null || n > head)
      throw badRequest("blockNumber", `block ${v} is past the indexed head of chain ${c.chainId} (${head ?? "none"})`);
    return n;
  };

  /** The followed chains with a known EVM chain ID; a `network` other than this node's is not served here (404). */
  const listedChains = async (network: string | undefined): Promise<EvmChain[]> => {
    servedNetworkQuery(network, m.chains.network);
    await m.chains.refresh();
    return m.chains.chains.filter((c) => m.chains.chainIdOf(c) !== null);
  };
  const chainInfos = async (listed: EvmChain[]) => {
    const names = await blockchainNames(
      m.sql,
      listed.map((c) => m.chains.blockchainIdOf(c)).filter((id): id is string => id !== null),
    );
    return listed.map((c) => chainInfo(m.chains, c, names));
  };

  // Across the followed chains: the latest blocks and transactions, and the chains an address took part in. The
  // SDK's deprecated names (`/v1/chains/allBlocks`, `/v1/chains/allTransactions`, `/v1/chains/address/...`) too.
  const idsOf = (chains: EvmChain[]): string[] => chains.map((c) => m.chains.chainIdOf(c)!);
  const blocksAcross = async (ctx: RouteCtx<R["listLatestBlocksAllChains"]>) => {
    const chainIds = idsOf(await listedChains(ctx.query.network));
    const page = await list(() =>
      listBlocksAcrossChains(m.sql, {chainIds, pageSize: ctx.page.size, cursor: ctx.page.cursor}),
    );
    return {nextPageToken: ctx.page.next(page.next), blocks: page.items};
  };
  const transactionsAcross = async (ctx: RouteCtx<R["listLatestTransactionsAllChains"]>) => {
    const chainIds = idsOf(await listedChains(ctx.query.network));
    const status = ctx.query.status;
    const page = await list(() =>
      listTransactionsAcrossChains(m.sql, {
        chainIds,
        pageSize: ctx.page.size,
        cursor: ctx.page.cursor,
        status: status === undefined ? undefined : status === "success" ? 1 : 0,
      }),
    );
    return {nextPageToken: ctx.page.next(page.next), transactions: page.items};
  };
  const addressChains = async (ctx: RouteCtx<R["listAddressChains"]>) => {
    const owner = parseEvmAddress("address", ctx.params.address);
    const listed = await listedChains(ctx.query.network);
    const active = new Set(await chainsOfAddress(m.sql, idsOf(listed), owner));
    return {indexedChains: await chainInfos(listed.filter((c) => active.has(m.chains.chainIdOf(c)!)))};
  };

  const blockIdOf = (id: string): {number?: bigint; hash?: Uint8Array} => {
    if (looksLikeBlockNumber(id)) return {number: parseBlockNumber("blockId", id)};
    if (TX_HASH_RE.test(id)) return {hash: hexToBytes(id)};
    throw badRequest("blockId", `not a block number or hash: ${JSON.stringify(id)}`);
  };

  const transfers = (erc: 20 | 721 | 1155) => async (ctx: RouteCtx<R["listErc20Transactions"]>) => {
    const c = await chainOf(ctx);
    const a = address(ctx);
    const page = await list(() =>
      listAddressTransfers(m.sql, {...listArgs(ctx.page, c.chainId, {range: ctx.query}), address: a, erc}),
    );
    return {nextPageToken: ctx.page.next(page.next), transactions: page.items};
  };

  type BalanceCtx =
    | RouteCtx<R["listErc20Balances"]>
    | RouteCtx<R["listErc721Balances"]>
    | RouteCtx<R["listErc1155Balances"]>
    | RouteCtx<R["listCollectibleBalances"]>;
  /** A page of an owner's token balances (at `blockNumber` where the route takes it), of `contracts` if given. */
  const balances = async (
    ctx: BalanceCtx,
    ercs: number[],
    o: {blockNumber?: () => string | undefined; contracts: () => Uint8Array[] | undefined},
  ) => {
    const c = await chainOf(ctx);
    const owner = address(ctx);
    const pageSize = ctx.page.size;
    const blockNumber = o.blockNumber ? await blockNumberParam(o.blockNumber(), c) : undefined;
    const contracts = o.contracts();
    const page = await list(() =>
      listBalances(m.sql, {chainId: c.chainId, owner, ercs, contracts, blockNumber, pageSize, cursor: ctx.page.cursor}),
    );
    const items = page.items.map((r) => (r.erc === 20 ? erc20Balance(c.chainId, r) : nftBalance(c.chainId, r, owner)));
    return {c, owner, blockNumber, nextPageToken: ctx.page.next(page.next), items};
  };
  const oneContract = (v: string | undefined): Uint8Array[] | undefined =>
    v === undefined ? undefined : [parseEvmAddress("contractAddress", v)];

  return implement(EVM_ROUTES, {
    supportedChains: async (ctx) => ({chains: await chainInfos(await listedChains(ctx.query.network))}),
    listLatestBlocksAllChains: blocksAcross,
    listAllLatestBlocks: blocksAcross,
    listLatestTransactionsAllChains: transactionsAcross,
    listAllLatestTransactions: transactionsAcross,
    listAddressChains: addressChains,
    getAddressChains: addressChains,

    getChainInfo: async (ctx) => {
      const c = await chainOf(ctx);
      const id = m.chains.blockchainIdOf(c);
      return chainInfo(m.chains, c, await blockchainNames(m.sql, id ? [id] : []));
    },

    getLatestBlocks: async (ctx) => {
      const c = await chainOf(ctx);
      const page = await list(() => listBlocks(m.sql, listArgs(ctx.page, c.chainId)));
      return {nextPageToken: ctx.page.next(page.next), blocks: page.items};
    },

    getBlock: async (ctx) => {
      const c = await chainOf(ctx);
      const b = await getBlock(m.sql, c.chainId, blockIdOf(ctx.params.blockId));
      if (!b) throw notFound(`block ${ctx.params.blockId} not found on chain ${c.chainId}`);
      return b;
    },

    getTransactionsForBlock: async (ctx) => {
      const c = await chainOf(ctx);
      const b = await getBlock(m.sql, c.chainId, blockIdOf(ctx.params.blockId));
      if (!b) throw notFound(`block ${ctx.params.blockId} not found on chain ${c.chainId}`);
      const args = {...listArgs(ctx.page, c.chainId), sortOrder: "asc" as const, blockNumber: BigInt(b.blockNumber)};
      const page = await list(() => listTransactions(m.sql, args));
      return {nextPageToken: ctx.page.next(page.next), transactions: page.items};
    },

    listLatestTransactions: async (ctx) => {
      const c = await chainOf(ctx);
      const status = ctx.query.status;
      const page = await list(() =>
        listTransactions(m.sql, {
          ...listArgs(ctx.page, c.chainId),
          status: status === undefined ? undefined : status === "success" ? 1 : 0,
        }),
      );
      return {nextPageToken: ctx.page.next(page.next), transactions: page.items};
    },

    getTransaction: async (ctx) => {
      const c = await chainOf(ctx);
      if (!TX_HASH_RE.test(ctx.params.txHash))
        throw badRequest(
          "txHash",
          `not a transaction hash (0x and 64 hex digits): ${JSON.stringify(ctx.params.txHash)}`,
        );
      const found = await transactionAnswer(c, hexToBytes(ctx.params.txHash));
      if (!found) throw notFound(`transaction ${ctx.params.txHash} not found on chain ${c.chainId}`);
      return found;
    },

    listTransactions: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      const page = await list(() =>
        listAddressTransactions(m.sql, {
          ...listArgs(ctx.page, c.chainId, {range: ctx.query, sort: () => ctx.query.sortOrder}),
          address: a,
        }),
      );
      return {nextPageToken: ctx.page.next(page.next), transactions: page.items};
    },

    listNativeTransactions: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      const page = await list(() =>
        listNativeTransactions(m.sql, {...listArgs(ctx.page, c.chainId, {range: ctx.query}), address: a}),
      );
      return {nextPageToken: ctx.page.next(page.next), transactions: page.items};
    },

    listErc20Transactions: transfers(20),
    listErc721Transactions: transfers(721),
    listErc1155Transactions: transfers(1155),

    listInternalTransactions: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      if (m.chains.traces(c) === false)
        throw unavailable(
          `chain ${c.chainId}'s RPC serves no call traces: internal transactions are not indexed (enable debug-tracer)`,
        );
      const page = await list(() =>
        listInternalTransactions(m.sql, {...listArgs(ctx.page, c.chainId, {range: ctx.query}), address: a}),
      );
      return {nextPageToken: ctx.page.next(page.next), transactions: page.items};
    },

    listTransfers: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      const page = await list(() =>
        listTokenTransfers(m.sql, {...listArgs(ctx.page, c.chainId, {range: ctx.query}), token: a}),
      );
      return {nextPageToken: ctx.page.next(page.next), transfers: page.items};
    },

    getDeploymentTransaction: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      const contract = await getContract(m.sql, c.chainId, a);
      if (!contract) throw notFound(`no deployment of ${ctx.params.address} is indexed on chain ${c.chainId}`);
      const found = await transactionAnswer(c, contract.tx_hash);
      if (!found) throw notFound(`no deployment of ${ctx.params.address} is indexed on chain ${c.chainId}`);
      return found;
    },

    listContractDeployments: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      const page = await list(() =>
        listDeployments(m.sql, {chainId: c.chainId, address: a, pageSize: ctx.page.size, cursor: ctx.page.cursor}),
      );
      return {
        nextPageToken: ctx.page.next(page.next),
        contracts: page.items.map((r) => contractModel(r, m.curated.get(toHex(r.address)))),
      };
    },

    getContractMetadata: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      const curated = m.curated.get(toHex(a));
      const contract = await getContract(m.sql, c.chainId, a);
      const token = await getToken(m.sql, c.chainId, a);
      if (!contract && !token) {
        // Not deployed in the indexed range (a genesis contract, a precompile, or an EOA): the chain says which.
        let code: string;
        try {
          code = await m.state.code(c, a);
        } catch (e) {
          if (e instanceof RpcUnansweredError) throw unavailable(e.message);
          throw e;
        }
        if (code === "0x" && !curated) throw notFound(`${ctx.params.address} is not a contract on chain ${c.chainId}`);
      }
      return contractModel(
        {
          address: a,
          tx_hash: contract?.tx_hash ?? null,
          deployer: contract?.deployer ?? a,
          deployer_contract: contract?.deployer_contract ?? null,
          erc: token?.erc ?? null,
          name: token?.name ?? null,
          symbol: token?.symbol ?? null,
          decimals: token?.decimals ?? null,
        },
        curated,
      );
    },

    getNativeBalance: async (ctx) => {
      const c = await chainOf(ctx);
      const owner = address(ctx);
      return {nativeTokenBalance: await nativeBalance(c, owner, await blockNumberParam(ctx.query.blockNumber, c))};
    },

    listErc20Balances: async (ctx) => {
      const b = await balances(ctx, [20], {
        blockNumber: () => ctx.query.blockNumber,
        contracts: () => ctx.query.contractAddresses.map((v) => parseEvmAddress("contractAddresses", v)),
      });
      return {
        nextPageToken: b.nextPageToken,
        nativeTokenBalance: await nativeBalance(b.c, b.owner, b.blockNumber),
        erc20TokenBalances: b.items,
      };
    },
    listErc721Balances: async (ctx) => {
      const b = await balances(ctx, [721], {contracts: () => oneContract(ctx.query.contractAddress)});
      return {
        nextPageToken: b.nextPageToken,
        nativeTokenBalance: await nativeBalance(b.c, b.owner, b.blockNumber),
        erc721TokenBalances: b.items,
      };
    },
    // ERC-1155 balances, at a past block too.
    listErc1155Balances: async (ctx) => {
      const b = await balances(ctx, [1155], {
        blockNumber: () => ctx.query.blockNumber,
        contracts: () => oneContract(ctx.query.contractAddress),
      });
      return {
        nextPageToken: b.nextPageToken,
        nativeTokenBalance: await nativeBalance(b.c, b.owner, b.blockNumber),
        erc1155TokenBalances: b.items,
      };
    },
    // ERC-721 and ERC-1155 holdings.
    listCollectibleBalances: async (ctx) => {
      const b = await balances(ctx, [721, 1155], {contracts: () => oneContract(ctx.query.contractAddress)});
      return {nextPageToken: b.nextPageToken, collectibleBalances: b.items};
    },

    listTokens: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      const page = await list(() =>
        listCollectionTokens(m.sql, {chainId: c.chainId, token: a, pageSize: ctx.page.size, cursor: ctx.page.cursor}),
      );
      return {nextPageToken: ctx.page.next(page.next), tokens: page.items};
    },

    getTokenDetails: async (ctx) => {
      const c = await chainOf(ctx);
      const a = address(ctx);
      if (!INT_RE.test(ctx.params.tokenId))
        throw badRequest("tokenId", `not a token ID (a decimal integer): ${JSON.stringify(ctx.params.tokenId)}`);
      const t = await getCollectionToken(m.sql, c.chainId, a, ctx.params.tokenId);
      if (!t) throw notFound(`token ${ctx.params.tokenId} of ${ctx.params.address} not found on chain ${c.chainId}`);
      return t;
    },
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
    chainName: c.isCChain ? "C-Chain" : (blockchainId && names.get(blockchainId)) || `EVM chain ${id}`,
    description: c.isCChain
      ? "The Contract Chain of the Avalanche primary network"
      : `An EVM chain followed through ${c.rpc.label}`,
    vmName: "EVM",
    rpcUrl: c.rpc.label,
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
