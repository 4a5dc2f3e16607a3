/**
 * The data API's EVM side over the real wire, on both store backends, against real EVMs:
 * - a test anvil (`--evm-rpc 99999=...`) where the test itself deploys the dev contracts and sends ERC-20, ERC-721,
 *   ERC-1155 single and batch transfers, value-carrying internal calls, CREATE2 deployments and a reverted call,
 *   then checks that every EVM endpoint answers exactly what was sent;
 * - the dev network's own EVM (the C-chain): the container index, the primary-network view and the EVM view agree
 *   with anvil on every block hash;
 * - bad input: malformed addresses, hashes, block numbers, unknown chains, ranges and page tokens are 400/404 naming
 *   the parameter, never a 500.
 */
import {writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {DevFactory, DevMulti, DevNFT, DevToken} from "../../src/dev/evm/artifacts.js";
import {contractAddress} from "../../src/dev/evm/traffic.js";
import {encodeAbi, encodeCall} from "../../src/evm/abi.js";
import {bytesToHex, checksumAddress} from "../../src/evm/hex.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const CHAIN = "99999";
const ME = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"; // anvil account 4
const YOU = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"; // anvil account 5
const THEM = "0x976EA74026E726554dB657fA54763abd0C3a0aa9"; // anvil account 6

const BACKENDS = STORE_BACKENDS;

interface Sent {
  token: string;
  nft: string;
  multi: string;
  factory: string;
  transferTx: string;
  fanoutTx: string;
  boomTx: string;
  deployTx: string;
  batchBlock: bigint;
}

describe.each(BACKENDS)("data API, EVM chains ($name)", (backend) => {
  let anvil: Anvil;
  let t: TestNode;
  let sent: Sent;

  const rpc = (method: string, params: unknown[]): Promise<unknown> => anvil.rawCall(method, params);
  const sendTx = async (tx: Record<string, unknown>): Promise<string> => {
    const hash = (await rpc("eth_sendTransaction", [{gas: "0x7a1200", ...tx}])) as string;
    // anvil's auto-mining answers before the block is queryable: wait for the receipt.
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      if (await rpc("eth_getTransactionReceipt", [hash])) return hash;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no receipt for ${hash}`);
  };
  const get = async <T = Record<string, unknown>>(path: string, status = 200): Promise<T> => {
    const r = await t.get(path);
    expect(r.status, `${path}: ${r.text}`).toBe(status);
    return r.json() as T;
  };
  const head = async (): Promise<bigint> => BigInt((await rpc("eth_blockNumber", [])) as string);
  const caughtUp = async (): Promise<void> => {
    const want = await head();
    const c = t.node.dataApi!.evm!.chains.find((x) => x.follower?.status().chainId === CHAIN)!;
    await c.follower!.waitFor(want, 60_000);
  };

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "auto"},
      {logger: quietLogger()},
    );
    const nonce = Number(BigInt((await rpc("eth_getTransactionCount", [ME, "latest"])) as string));
    const token = contractAddress(ME, nonce);
    const nft = contractAddress(ME, nonce + 1);
    const multi = contractAddress(ME, nonce + 2);
    const factory = contractAddress(ME, nonce + 3);
    await sendTx({
      from: ME,
      data:
        DevToken.bytecode + bytesToHex(encodeAbi(["string", "string", "uint256"], ["Test Token", "TT", 10n ** 24n])),
    });
    await sendTx({from: ME, data: DevNFT.bytecode});
    await sendTx({from: ME, data: DevMulti.bytecode});
    await sendTx({from: ME, data: DevFactory.bytecode});
    const transferTx = await sendTx({
      from: ME,
      to: token,
      data: encodeCall("transfer(address,uint256)", ["address", "uint256"], [YOU, 1234n]),
    });
    await sendTx({from: ME, to: nft, data: encodeCall("mint(address)", ["address"], [ME])});
    await sendTx({
      from: ME,
      to: nft,
      data: encodeCall("transferFrom(address,address,uint256)", ["address", "address", "uint256"], [ME, YOU, 1n]),
    });
    await sendTx({
      from: ME,
      to: multi,
      data: encodeCall("mint(address,uint256,uint256)", ["address", "uint256", "uint256"], [ME, 7n, 100n]),
    });
    await sendTx({
      from: ME,
      to: multi,
      data: encodeCall("mint(address,uint256,uint256)", ["address", "uint256", "uint256"], [ME, 8n, 50n]),
    });
    await sendTx({
      from: ME,
      to: multi,
      data: encodeCall(
        "safeTransferFrom(address,address,uint256,uint256,bytes)",
        ["address", "address", "uint256", "uint256", "bytes"],
        [ME, YOU, 7n, 10n, "0x"],
      ),
    });
    await sendTx({
      from: ME,
      to: multi,
      data: encodeCall(
        "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
        ["address", "address", "uint256[]", "uint256[]", "bytes"],
        [ME, YOU, [7n, 8n], [5n, 20n], "0x"],
      ),
    });
    const batchBlock = await head();
    const fanoutTx = await sendTx({
      from: ME,
      to: factory,
      value: "0x3e8",
      data: encodeCall("fanout(address[])", ["address[]"], [[YOU, THEM]]),
    });
    const deployTx = await sendTx({
      from: THEM,
      to: factory,
      data: encodeCall("deploy(bytes32)", ["bytes32"], ["0x" + "ab".repeat(32)]),
    });
    const boomTx = await sendTx({from: ME, to: factory, data: encodeCall("boom()", [], []), gas: "0x30000"});
    sent = {token, nft, multi, factory, transferTx, fanoutTx, boomTx, deployTx, batchBlock};

    const curated = path.join(tempDir(), "contracts.json");
    writeFileSync(
      curated,
      JSON.stringify({
        [checksum(token)]: {description: "The test's own token", officialSite: "https://example.org", tags: ["test"]},
      }),
    );
    t = await startNode({
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "dev-backfill": "1h",
      "data-api-enabled": true,
      "data-api-db": await backend.db(),
      "data-api-rate-limit": "0",
      "evm-rpc": `${CHAIN}=${anvil.url}`,
      "contract-metadata-file": curated,
    });
    await caughtUp();
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await anvil?.stop();
  });

  it("lists both followed chains with their status", async () => {
    type Chains = {chains: Array<{chainId: string; status: string; indexing: {internalTransactions: boolean}}>};
    // The dev C-chain's follower is not awaited by beforeAll: it is OK once it has probed its RPC for traces.
    let {chains} = await get<Chains>("/v1/chains");
    for (const until = Date.now() + 30_000; Date.now() < until && !chains.every((c) => c.status === "OK"); ) {
      await new Promise((r) => setTimeout(r, 100));
      ({chains} = await get<Chains>("/v1/chains"));
    }
    expect(chains.map((c) => c.chainId).sort()).toEqual(["43112", CHAIN]);
    expect(chains.every((c) => c.status === "OK" && c.indexing.internalTransactions)).toBe(true);
    expect((await get(`/v1/chains/${CHAIN}`)).chainId).toBe(CHAIN);
    expect((await get("/v1/chains/c-chain")).chainId).toBe("43112");
  });

  it("serves a transaction with its ERC-20 transfer, exactly as sent", async () => {
    const tx = await get<{nativeTransaction: Record<string, unknown>; erc20Transfers: Array<Record<string, unknown>>}>(
      `/v1/chains/${CHAIN}/transactions/${sent.transferTx}`,
    );
    expect(tx.nativeTransaction).toMatchObject({
      txHash: sent.transferTx,
      txStatus: "1",
      from: {address: ME},
      to: {address: checksum(sent.token), name: "Test Token", symbol: "TT", decimals: 18},
      method: {callType: "CONTRACT_CALL", methodHash: "0xa9059cbb", methodName: "transfer(address,uint256)"},
      value: "0",
    });
    expect(tx.erc20Transfers).toEqual([
      {
        from: {address: ME},
        to: {address: YOU},
        logIndex: 0,
        value: "1234",
        erc20Token: {address: checksum(sent.token), name: "Test Token", symbol: "TT", decimals: 18, ercType: "ERC-20"},
      },
    ]);
    const {transactions} = await get<{transactions: Array<Record<string, unknown>>}>(
      `/v1/chains/${CHAIN}/addresses/${YOU}/transactions:listErc20`,
    );
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({
      txHash: sent.transferTx,
      value: "1234",
      from: {address: ME},
      to: {address: YOU},
    });
  });

  it("folds ERC-20, ERC-721 and ERC-1155 balances from the transfers, and ERC-1155 at a past block", async () => {
    const erc20 = await get<{
      erc20TokenBalances: Array<Record<string, unknown>>;
      nativeTokenBalance: {balance: string};
    }>(`/v1/chains/${CHAIN}/addresses/${YOU}/balances:listErc20`);
    expect(erc20.erc20TokenBalances).toEqual([
      {
        address: checksum(sent.token),
        name: "Test Token",
        symbol: "TT",
        decimals: 18,
        ercType: "ERC-20",
        chainId: CHAIN,
        balance: "1234",
        tokenReputation: null,
      },
    ]);
    expect(erc20.nativeTokenBalance.balance).toBe(
      BigInt((await rpc("eth_getBalance", [YOU, "latest"])) as string).toString(),
    );
    const mine = await get<{erc20TokenBalances: Array<{balance: string}>}>(
      `/v1/chains/${CHAIN}/addresses/${ME}/balances:listErc20`,
    );
    expect(mine.erc20TokenBalances[0]!.balance).toBe((10n ** 24n - 1234n).toString());
    const nfts = await get<{erc721TokenBalances: Array<Record<string, unknown>>}>(
      `/v1/chains/${CHAIN}/addresses/${YOU}/balances:listErc721`,
    );
    expect(nfts.erc721TokenBalances).toHaveLength(1);
    expect(nfts.erc721TokenBalances[0]).toMatchObject({
      address: checksum(sent.nft),
      tokenId: "1",
      ownerAddress: YOU,
      ercType: "ERC-721",
    });
    expect(
      (await get<{erc721TokenBalances: unknown[]}>(`/v1/chains/${CHAIN}/addresses/${ME}/balances:listErc721`))
        .erc721TokenBalances,
    ).toEqual([]);
    const multi = await get<{erc1155TokenBalances: Array<{tokenId: string; balance: string}>}>(
      `/v1/chains/${CHAIN}/addresses/${YOU}/balances:listErc1155`,
    );
    expect(multi.erc1155TokenBalances.map((b) => [b.tokenId, b.balance])).toEqual([
      ["7", "15"],
      ["8", "20"],
    ]);
    // The contract agrees (ERC-1155's balanceOf(account, id)).
    const onChain = (await rpc("eth_call", [
      {to: sent.multi, data: encodeCall("balanceOf(address,uint256)", ["address", "uint256"], [YOU, 7n])},
      "latest",
    ])) as string;
    expect(BigInt(onChain)).toBe(15n);
    const before = await get<{erc1155TokenBalances: Array<{tokenId: string; balance: string}>}>(
      `/v1/chains/${CHAIN}/addresses/${YOU}/balances:listErc1155?blockNumber=${sent.batchBlock - 1n}`,
    );
    expect(before.erc1155TokenBalances.map((b) => [b.tokenId, b.balance])).toEqual([["7", "10"]]);
    const collectibles = await get<{collectibleBalances: Array<{ercType: string; tokenId: string}>}>(
      `/v1/chains/${CHAIN}/addresses/${YOU}/balances:listCollectibles?pageSize=2`,
    );
    expect(collectibles.collectibleBalances.map((b) => [b.ercType, b.tokenId])).toEqual([
      ["ERC-721", "1"],
      ["ERC-1155", "7"],
    ]);
    // ERC-1155 transfers: one item per id of the batch.
    const transfers = await get<{transactions: Array<{value: string; erc1155Token: {tokenId: string}}>}>(
      `/v1/chains/${CHAIN}/addresses/${YOU}/transactions:listErc1155`,
    );
    expect(transfers.transactions.map((x) => [x.erc1155Token.tokenId, x.value])).toEqual([
      ["8", "20"],
      ["7", "5"],
      ["7", "10"],
    ]);
  });

  it("lists internal value transfers and contract deployments by contracts, from the call traces", async () => {
    const internals = await get<{transactions: Array<Record<string, unknown>>}>(
      `/v1/chains/${CHAIN}/addresses/${THEM}/transactions:listInternals`,
    );
    expect(internals.transactions.find((x) => x.txHash === sent.fanoutTx)).toMatchObject({
      from: {address: checksum(sent.factory)},
      to: {address: THEM},
      internalTxType: "CALL",
      value: "500",
      isReverted: false,
    });
    const tx = await get<{internalTransactions: Array<{internalTxType: string; value: string}>}>(
      `/v1/chains/${CHAIN}/transactions/${sent.fanoutTx}`,
    );
    expect(tx.internalTransactions.map((i) => [i.internalTxType, i.value])).toEqual([
      ["CALL", "500"],
      ["CALL", "500"],
    ]);
    const deployments = await get<{contracts: Array<{address: string; deploymentDetails: Record<string, string>}>}>(
      `/v1/chains/${CHAIN}/contracts/${sent.factory}/deployments`,
    );
    expect(deployments.contracts).toHaveLength(1);
    expect(deployments.contracts[0]!.deploymentDetails).toEqual({
      txHash: sent.deployTx,
      deployerAddress: THEM,
      deployerContractAddress: checksum(sent.factory),
    });
    const deployed = await get<{nativeTransaction: {txHash: string}}>(
      `/v1/chains/${CHAIN}/contracts/${deployments.contracts[0]!.address}/transactions:getDeployment`,
    );
    expect(deployed.nativeTransaction.txHash).toBe(sent.deployTx);
    const byMe = await get<{contracts: Array<{address: string; ercType: string}>}>(
      `/v1/chains/${CHAIN}/contracts/${ME}/deployments`,
    );
    expect(byMe.contracts.map((c) => [c.address, c.ercType])).toEqual([
      [checksum(sent.factory), "UNKNOWN"],
      [checksum(sent.multi), "ERC-1155"],
      [checksum(sent.nft), "ERC-721"],
      [checksum(sent.token), "ERC-20"],
    ]);
  });

  it("marks the reverted transaction failed, and describes contracts and collections", async () => {
    const boom = await get<{nativeTransaction: {txStatus: string}}>(`/v1/chains/${CHAIN}/transactions/${sent.boomTx}`);
    expect(boom.nativeTransaction.txStatus).toBe("0");
    const failed = await get<{transactions: Array<{txHash: string}>}>(`/v1/chains/${CHAIN}/transactions?status=failed`);
    expect(failed.transactions.map((x) => x.txHash)).toEqual([sent.boomTx]);
    expect(await get(`/v1/chains/${CHAIN}/addresses/${sent.token}`)).toMatchObject({
      address: checksum(sent.token),
      ercType: "ERC-20",
      name: "Test Token",
      symbol: "TT",
      decimals: 18,
      deploymentDetails: {deployerAddress: ME},
      // Curated by the operator (--contract-metadata-file).
      description: "The test's own token",
      officialSite: "https://example.org",
      tags: ["test"],
    });
    await get(`/v1/chains/${CHAIN}/addresses/${YOU}`, 404);
    const tokens = await get<{tokens: Array<{tokenId: string; metadata: {indexStatus: string}}>}>(
      `/v1/chains/${CHAIN}/nfts/collections/${sent.nft}/tokens`,
    );
    expect(tokens.tokens.map((x) => x.tokenId)).toEqual(["1"]);
    // The metadata lane indexes the data: URI shortly after.
    await expect
      .poll(
        async () =>
          (
            await get<{metadata: {indexStatus: string; name?: string}}>(
              `/v1/chains/${CHAIN}/nfts/collections/${sent.nft}/tokens/1`,
            )
          ).metadata,
        {timeout: 10_000},
      )
      .toMatchObject({indexStatus: "INDEXED", name: "Dev NFT #1"});
    const transfers = await get<{transfers: unknown[]}>(`/v1/chains/${CHAIN}/tokens/${sent.multi}/transfers`);
    expect(transfers.transfers).toHaveLength(5); // two mints, one single transfer, a batch of two
  });

  it("pages every list by keyset: no item twice, none skipped", async () => {
    const all = await get<{transactions: Array<{txHash: string}>}>(
      `/v1/chains/${CHAIN}/addresses/${ME}/transactions?pageSize=100`,
    );
    const paged: string[] = [];
    let token: string | undefined;
    do {
      const page = await get<{transactions: Array<{nativeTransaction: {txHash: string}}>; nextPageToken?: string}>(
        `/v1/chains/${CHAIN}/addresses/${ME}/transactions?pageSize=3${token ? `&pageToken=${token}` : ""}`,
      );
      paged.push(...page.transactions.map((x) => x.nativeTransaction.txHash));
      token = page.nextPageToken;
    } while (token);
    expect(paged).toEqual(
      all.transactions.map((x) => (x as unknown as {nativeTransaction: {txHash: string}}).nativeTransaction.txHash),
    );
    expect(new Set(paged).size).toBe(paged.length);
    const asc = await get<{transactions: Array<{nativeTransaction: {blockNumber: string}}>}>(
      `/v1/chains/${CHAIN}/addresses/${ME}/transactions?pageSize=100&sortOrder=asc`,
    );
    expect(asc.transactions.map((x) => x.nativeTransaction.blockNumber)).toEqual(
      [...paged]
        .reverse()
        .map((h) =>
          all.transactions.find(
            (x) => (x as unknown as {nativeTransaction: {txHash: string}}).nativeTransaction.txHash === h,
          ),
        )
        .map((x) => (x as unknown as {nativeTransaction: {blockNumber: string}}).nativeTransaction.blockNumber),
    );
  });

  it("lists the latest blocks and transactions of both chains together, in time order, by keyset", async () => {
    await caughtUp();
    const walk = async <T>(path: string, key: string): Promise<T[]> => {
      const out: T[] = [];
      let token: string | undefined;
      do {
        const page = await get<Record<string, unknown> & {nextPageToken?: string}>(
          `${path}${path.includes("?") ? "&" : "?"}pageSize=7${token ? `&pageToken=${token}` : ""}`,
        );
        out.push(...(page[key] as T[]));
        token = page.nextPageToken;
      } while (token);
      return out;
    };
    type B = {chainId: string; blockNumber: string; blockTimestamp: number};
    type Tx = B & {blockIndex: number; txHash: string; txStatus: string};
    const byTime = (a: B & {blockIndex?: number}, b: B & {blockIndex?: number}): number =>
      b.blockTimestamp - a.blockTimestamp ||
      (a.chainId < b.chainId ? 1 : a.chainId > b.chainId ? -1 : 0) ||
      Number(BigInt(b.blockNumber) - BigInt(a.blockNumber)) ||
      (b.blockIndex ?? 0) - (a.blockIndex ?? 0);
    const chains = ["43112", CHAIN];
    // The dev C-chain grows every few minutes: the walks agree with the per-chain lists read in the same round.
    await expect
      .poll(
        async () => {
          const blocks = await walk<B>("/v1/blocks", "blocks");
          const perChain = (await Promise.all(chains.map((c) => walk<B>(`/v1/chains/${c}/blocks`, "blocks"))))
            .flat()
            .sort(byTime);
          return (
            JSON.stringify(blocks) === JSON.stringify(perChain) && new Set(blocks.map((b) => b.chainId)).size === 2
          );
        },
        {timeout: 20_000},
      )
      .toBe(true);
    await expect
      .poll(
        async () => {
          const txs = await walk<Tx>("/v1/transactions", "transactions");
          const perChain = (
            await Promise.all(chains.map((c) => walk<Tx>(`/v1/chains/${c}/transactions`, "transactions")))
          )
            .flat()
            .sort(byTime);
          const failed = await walk<Tx>("/v1/transactions?status=failed", "transactions");
          return (
            JSON.stringify(txs) === JSON.stringify(perChain) &&
            JSON.stringify(failed) === JSON.stringify(perChain.filter((x) => x.txStatus === "0")) &&
            failed.some((x) => x.txHash === sent.boomTx)
          );
        },
        {timeout: 20_000},
      )
      .toBe(true);
    // The SDK's deprecated names answer the same (their page tokens are their own: a token is bound to its path);
    // another network's lists are 404 (the table of bad parameters below).
    // The dev C-chain may add a block between the two reads: they agree once none landed between them.
    const items = async (path: string): Promise<string> =>
      JSON.stringify({...(await get(path)), nextPageToken: undefined});
    const same = async (a: string, b: string): Promise<boolean> => (await items(a)) === (await items(b));
    await expect
      .poll(() => same("/v1/chains/allBlocks?pageSize=3", "/v1/blocks?pageSize=3"), {timeout: 20_000})
      .toBe(true);
    await expect
      .poll(() => same("/v1/chains/allTransactions?pageSize=3", "/v1/transactions?pageSize=3"), {timeout: 20_000})
      .toBe(true);
  });

  it("names the followed chains an address took part in", async () => {
    const chainsOf = async (path: string): Promise<string[]> =>
      (await get<{indexedChains: Array<{chainId: string}>}>(path)).indexedChains.map((c) => c.chainId);
    // The chains where the address's own transaction list is not empty (the dev C-chain's traffic uses anvil's
    // accounts too).
    const active: string[] = [];
    for (const c of ["43112", CHAIN])
      if (
        (await get<{transactions: unknown[]}>(`/v1/chains/${c}/addresses/${ME}/transactions?pageSize=1`)).transactions
          .length > 0
      )
        active.push(c);
    expect(active).toContain(CHAIN);
    expect((await chainsOf(`/v1/address/${ME}/chains`)).sort()).toEqual(active);
    expect((await chainsOf(`/v1/chains/address/${ME}`)).sort()).toEqual(active);
    expect(await chainsOf(`/v1/address/0x${"12".repeat(20)}/chains`)).toEqual([]);
  });

  it("agrees with the index, the primary-network view and anvil on every dev C-chain block hash", async () => {
    const dev = t.node.dataApi!.evm!.chains.find((c) => c.isCChain)!;
    // The dev feed backfills an hour (12 ticks) once the node starts: wait for the index to hold it.
    let lastIndex = -1;
    await expect
      .poll(
        async () => {
          const last = await t.rpc("/ext/index/C/block", "index.getLastAccepted", {encoding: "hex"});
          lastIndex = last.body.result ? Number((last.body.result as {index: string}).index) : -1;
          return lastIndex;
        },
        {timeout: 60_000},
      )
      .toBeGreaterThanOrEqual(11);
    await dev.follower!.waitFor(BigInt(lastIndex + 1), 60_000);
    await expect.poll(() => t.node.dataApi!.view!.lag(), {timeout: 60_000}).toBe(0n);
    const evmUrl = t.node.devFeed!.evmUrl()!;
    for (let n = 1; n <= lastIndex + 1; n++) {
      const primary = await get<{blockHash: string}>(`/v1/networks/local/blockchains/c-chain/blocks/${n}`);
      const evm = await get<{blockHash: string}>(`/v1/chains/43112/blocks/${n}`);
      const res = await fetch(evmUrl, {
        method: "POST",
        headers: {"content-type": "application/json"},
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "eth_getBlockByNumber",
          params: ["0x" + n.toString(16), false],
        }),
      });
      const remote = ((await res.json()) as {result: {hash: string}}).result.hash;
      expect([primary.blockHash, evm.blockHash]).toEqual([remote, remote]);
    }
  });

  it("answers every bad EVM parameter with a 400 or 404 naming it", async () => {
    const cases: Array<[string, number, RegExp]> = [
      ["/v1/chains/12345/blocks", 404, /chain 12345 is not followed here/],
      [`/v1/chains/${CHAIN}/blocks/0x12`, 400, /blockId/],
      [`/v1/chains/${CHAIN}/blocks/99999999`, 404, /block 99999999 not found/],
      [`/v1/chains/${CHAIN}/transactions/0x1234`, 400, /txHash/],
      [`/v1/chains/${CHAIN}/transactions/0x${"0".repeat(64)}`, 404, /not found/],
      [`/v1/chains/${CHAIN}/addresses/0x123/transactions`, 400, /address: invalid EVM address/],
      [
        `/v1/chains/${CHAIN}/addresses/${ME}/transactions?startBlock=10&endBlock=5`,
        400,
        /startBlock: must be <= endBlock/,
      ],
      [`/v1/chains/${CHAIN}/addresses/${ME}/transactions?startBlock=-1`, 400, /startBlock/],
      [`/v1/chains/${CHAIN}/addresses/${ME}/transactions?sortOrder=up`, 400, /sortOrder/],
      [`/v1/chains/${CHAIN}/addresses/${ME}/transactions?pageSize=101`, 400, /pageSize/],
      [`/v1/chains/${CHAIN}/addresses/${ME}/balances:listErc20?pageSize=501`, 400, /pageSize/],
      [`/v1/chains/${CHAIN}/addresses/${ME}/balances:listErc20?contractAddresses=0xzz`, 400, /contractAddresses/],
      [`/v1/chains/${CHAIN}/addresses/${ME}/balances:listErc1155?blockNumber=abc`, 400, /blockNumber/],
      [
        `/v1/chains/${CHAIN}/addresses/${ME}/balances:listErc1155?blockNumber=99999999`,
        400,
        /blockNumber: block 99999999 is past the indexed head/,
      ],
      [
        `/v1/chains/${CHAIN}/addresses/${ME}/balances:getNative?blockNumber=99999999`,
        400,
        /blockNumber: block 99999999 is past the indexed head/,
      ],
      [`/v1/chains/${CHAIN}/addresses/${ME}/transactions?pageToken=garbage`, 400, /pageToken/],
      [`/v1/chains/${CHAIN}/transactions?status=maybe`, 400, /status/],
      [`/v1/chains/${CHAIN}/nfts/collections/${ME}/tokens/abc`, 400, /tokenId/],
      [`/v1/chains/${CHAIN}/nfts/collections/${ME}/tokens/5`, 404, /not found/],
      [`/v1/chains/${CHAIN}/contracts/${YOU}/transactions:getDeployment`, 404, /no deployment/],
      ["/v1/chains?network=moon", 400, /network/],
      ["/v1/blocks?network=moon", 400, /^network: unknown network "moon" \(one of mainnet, fuji, testnet, local\)$/],
      // A network this node does not serve is 404, in a query as in a path.
      ["/v1/blocks?network=mainnet", 404, /^network mainnet is not served here \(this node follows local\)$/],
      ["/v1/chains?network=fuji", 404, /^network fuji is not served here \(this node follows local\)$/],
      ["/v1/transactions?network=testnet", 404, /^network testnet is not served here/],
      [`/v1/address/${ME}/chains?network=fuji`, 404, /^network fuji is not served here/],
      ["/v1/blocks?pageSize=0", 400, /^pageSize: /],
      ["/v1/transactions?status=maybe", 400, /^status: /],
      ["/v1/chains/allTransactions?pageToken=garbage", 400, /^pageToken: /],
      ["/v1/address/0x12/chains", 400, /^address: invalid EVM address "0x12"$/],
      ["/v1/chains/address/nope", 400, /^address: invalid EVM address "nope"$/],
    ];
    for (const [path, status, message] of cases) {
      const r = await t.get(path);
      expect(r.status, path).toBe(status);
      expect((r.json() as {message: string}).message, path).toMatch(message);
    }
    expect((await get<{chains: unknown[]}>("/v1/chains?network=local")).chains.length).toBeGreaterThan(0);
    // A page token of one list is refused by another.
    const page = await get<{nextPageToken: string}>(`/v1/chains/${CHAIN}/blocks?pageSize=1`);
    const r = await t.get(`/v1/chains/${CHAIN}/transactions?pageToken=${page.nextPageToken}`);
    expect(r.status).toBe(400);
    const across = await get<{nextPageToken: string}>("/v1/blocks?pageSize=1");
    for (const p of [
      `/v1/transactions?pageToken=${across.nextPageToken}`,
      `/v1/chains/${CHAIN}/blocks?pageToken=${across.nextPageToken}`,
    ]) {
      const refused = await t.get(p);
      expect(refused.status, p).toBe(400);
      expect((refused.json() as {message: string}).message, p).toMatch(/^pageToken: /);
    }
  });
});

const checksum = (a: string): string => checksumAddress(a);
