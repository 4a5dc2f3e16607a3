/**
 * `@avalanche-sdk/chainkit` 0.3.13, Ava Labs' current SDK, unchanged, against a node on the dev network with the data
 * API on, on both store backends. chainkit checks every answer with its zod schemas (a missing required field, a
 * value outside an enum, a wrong type throws `ResponseValidationError`), so each call below that resolves is an
 * answer chainkit accepts. Every data read operation of its `data.*` classes is called, with `avaxSupply.get`.
 *
 * chainkit 0.3.13 has two obstacles for a user of a self-hosted data API, and this test goes around them the way a
 * user would (`devNetworkClient` below is the recipe):
 * - its data operations ignore the client's `serverURL` (each carries its own server list, data-api.avax.network,
 *   which its avacloud hook rewrites to glacier-api.avax.network): a call goes to avaext only with `{serverURL}`
 *   in its own options, or with an HTTP client that rewrites the origin;
 * - its `network` enums are closed (`mainnet`, `fuji`, `testnet`), in requests and answers (`chainInfo.network`,
 *   `LastActivityTimestamp.network`, `blockchainIds`): the dev network (`local`) is named `fuji` to chainkit, and an
 *   HTTP client translates the name (and the dev network's chain IDs) both ways.
 * It also posts each call to a telemetry service unless `enableTelemetry: false` (set here: no call leaves the host).
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Avalanche} from "@avalanche-sdk/chainkit";
import {HTTPClient} from "@avalanche-sdk/chainkit/lib/http.js";
import {NETWORKS} from "../../src/chains/index.js";
import {STORE_BACKENDS} from "../helpers/sql.js";
import {devEvmsFollowed, devFolded} from "../helpers/devNode.js";
import {startNode, type TestNode} from "../helpers/node.js";
import {fakePChain, type FakePChain} from "../helpers/fakeUpstreams.js";
import {devKeys} from "../../src/dev/primaryNetwork.js";

const DEV = {
  "network-id": "local",
  "index-enabled": true,
  feed: "dev",
  "dev-backfill": "4h25m",
  "data-api-enabled": true,
  "data-api-rate-limit": "0",
};
/** The network chainkit is told: one its closed enum has, translated to the dev network's on the wire. */
const AS = "fuji" as const;

/**
 * The recipe: a chainkit client for a data API at `base` that serves network `served` (a name chainkit's enum
 * lacks). Requests name the network `fuji`; the HTTP client sends them to `base`, naming `served`; answers name
 * `fuji` again, and `served`'s P/X/C chain IDs as fuji's, where chainkit's closed enums expect them. Everything
 * else in an answer reaches chainkit's schemas as avaext sent it.
 */
function devNetworkClient(
  base: URL,
  served: {name: string; chainIds: Record<"P" | "X" | "C", string>},
): {ck: Avalanche; sent: string[]} {
  const sent: string[] = [];
  const fuji = NETWORKS.fuji.chainIds;
  const toFuji = new Map<string, string>((["P", "X", "C"] as const).map((c) => [served.chainIds[c], fuji[c]]));
  const httpClient = new HTTPClient({
    fetcher: async (input, init) => {
      const req = input instanceof Request ? input : new Request(input, init);
      const url = new URL(req.url);
      const to = new URL(base);
      to.pathname = url.pathname.replace(
        /^\/v1\/(networks|signatureAggregator)\/fuji(?=\/|$)/,
        `/v1/$1/${served.name}`,
      );
      to.search = url.search.replace(/([?&]network=)fuji(?=&|$)/, `$1${served.name}`);
      sent.push(`${req.method} ${to.pathname}${to.search}`);
      const res = await fetch(new Request(to, req));
      if (!(res.headers.get("content-type") ?? "").includes("json")) return res;
      const answer = JSON.parse(await res.text(), (key, value: unknown) => {
        if (key === "network" && value === served.name) return AS;
        if (key === "blockchainIds" && Array.isArray(value)) return value.map((id: string) => toFuji.get(id) ?? id);
        return value;
      }) as unknown;
      return new Response(JSON.stringify(answer), {status: res.status, headers: res.headers});
    },
  });
  const ck = new Avalanche({
    serverURL: base.toString(),
    enableTelemetry: false,
    network: AS,
    httpClient,
    retryConfig: {strategy: "none"},
  });
  return {ck, sent};
}

/** Every page of a chainkit list (its page iterator; a list chainkit does not page is one page), with its items. */
async function all<P, T>(iter: AsyncIterable<{result: P}> | P, items: (page: P) => T[], maxPages = 50): Promise<T[]> {
  if (typeof iter !== "object" || iter === null || !(Symbol.asyncIterator in iter)) return items(iter as P);
  const out: T[] = [];
  let n = 0;
  for await (const page of iter as AsyncIterable<{result: P}>) {
    out.push(...items(page.result));
    if (++n >= maxPages) break;
  }
  return out;
}

const caughtUp = (t: TestNode): Promise<void> => devFolded(t);
const evmCaughtUp = (t: TestNode): Promise<void> => devEvmsFollowed(t);

describe.each(STORE_BACKENDS)("chainkit 0.3.13 against the data API ($name)", (backend) => {
  let t: TestNode;
  let ck: Avalanche;
  let sent: string[];
  const chainIds = NETWORKS.local.chainIds;

  // The EVM followers catch up here, once, in the hook's own time (up to 60 s past the P-chain's): the tests that
  // wait for them then find them caught up rather than spend their 30 s on it.
  beforeAll(async () => {
    t = await startNode({...DEV, "data-api-db": await backend.db()});
    await caughtUp(t);
    await evmCaughtUp(t);
    ({ck, sent} = devNetworkClient(t.url, {name: "local", chainIds}));
  }, 180_000);
  afterAll(async () => t?.close());

  it("sends a call to avaext only with the recipe: the client's serverURL alone is not used", async () => {
    const seen: string[] = [];
    const plain = new Avalanche({
      serverURL: t.url.toString(),
      enableTelemetry: false,
      httpClient: new HTTPClient({
        fetcher: async (input) => (seen.push((input as Request).url), new Response("{}", {status: 599})),
      }),
      retryConfig: {strategy: "none"},
    });
    await plain.data.healthCheck().catch(() => {});
    expect(seen[0]).toMatch(/^https:\/\/glacier-api\.avax\.network\/v1\/health-check/);
    // Per call, `serverURL` is honoured; the network stays chainkit's.
    await plain.data.healthCheck({serverURL: t.url.toString()}).catch(() => {});
    expect(seen[1]).toBe(new URL("/v1/health-check", t.url).toString());
    await expect(plain.data.primaryNetwork.getNetworkDetails({network: "local" as "fuji"})).rejects.toThrow(
      /Input validation failed/,
    );
  });

  it("lists and gets blocks, transactions, UTXOs, balances and vertices of P, X and C", async () => {
    const addresses: Record<string, string> = {};
    for (const blockchainId of ["p-chain", "x-chain", "c-chain"] as const) {
      const blocks = await all(
        await ck.data.primaryNetwork.blocks.listLatest({blockchainId, pageSize: 100}),
        (p) => p.blocks,
        5,
      );
      expect(blocks.length, blockchainId).toBeGreaterThan(10);
      for (const b of [blocks[0]!, blocks[blocks.length - 1]!]) {
        for (const blockId of [b.blockNumber, b.blockHash])
          expect((await ck.data.primaryNetwork.blocks.get({blockchainId, blockId})).blockHash).toBe(b.blockHash);
      }
      await all(
        await ck.data.primaryNetwork.blocks.listByNodeId({blockchainId, nodeId: "NodeID-111111111111111111116DBWJs"}),
        (p) => p.blocks,
      );
      const txs = await all(
        await ck.data.primaryNetwork.transactions.listLatest({blockchainId, pageSize: 100}),
        (p) => p.transactions as Array<{txHash: string; txType: string; emittedUtxos?: Array<{addresses: string[]}>}>,
        20,
      );
      const byType = new Map(txs.map((tx) => [tx.txType, tx]));
      expect(byType.size, blockchainId).toBeGreaterThanOrEqual(2);
      for (const tx of byType.values())
        expect((await ck.data.primaryNetwork.transactions.get({blockchainId, txHash: tx.txHash})).txHash).toBe(
          tx.txHash,
        );
      const address = txs.flatMap((tx) => tx.emittedUtxos?.flatMap((u) => u.addresses) ?? [])[0];
      if (address !== undefined) addresses[blockchainId] = address;
    }
    for (const [blockchainId, address] of [
      ["p-chain", addresses["p-chain"]!],
      ["x-chain", addresses["x-chain"]!],
      ["c-chain", addresses["x-chain"]!],
    ] as const) {
      const utxos = await all(
        await ck.data.primaryNetwork.utxos.listByAddresses({
          blockchainId,
          addresses: address,
          includeSpent: true,
          pageSize: 100,
        }),
        (p) => p.utxos as Array<{utxoId: string}>,
      );
      const posted = await all(
        await ck.data.primaryNetwork.utxos.listByAddressesV2({
          blockchainId,
          includeSpent: true,
          pageSize: 100,
          primaryNetworkAddressesBodyDto: {addresses: address},
        }),
        (p) => p.utxos as Array<{utxoId: string}>,
      );
      expect(
        posted.map((u) => u.utxoId),
        blockchainId,
      ).toEqual(utxos.map((u) => u.utxoId));
      if (blockchainId !== "c-chain") expect(utxos.length, blockchainId).toBeGreaterThan(0);
      await ck.data.primaryNetwork.balances.listByAddresses({blockchainId, addresses: address});
      if (blockchainId === "c-chain") continue;
      const last = await ck.data.primaryNetwork.utxos.getLastActivityTimestampByAddresses({
        blockchainId,
        addresses: address,
      });
      const lastPosted = await ck.data.primaryNetwork.utxos.getLastActivityTimestampByAddressesV2({
        blockchainId,
        primaryNetworkAddressesBodyDto: {addresses: address},
      });
      expect(lastPosted).toEqual(last);
      // What avaext answered, without the recipe's rewriting: the dev network, the chain asked, and a transaction of
      // that chain that emitted or consumed the UTXO named.
      const raw = await t.get(
        `/v1/networks/local/blockchains/${blockchainId}/lastActivityTimestampByAddresses?addresses=${address}`,
      );
      expect(raw.json()).toEqual({...last, network: "local"});
      expect(last.chainName).toBe(blockchainId);
      const tx = (await ck.data.primaryNetwork.transactions.get({blockchainId, txHash: last.txHash})) as {
        emittedUtxos?: Array<{utxoId: string}>;
        consumedUtxos?: Array<{utxoId: string}>;
      };
      const utxoIds = (last.isConsumed ? tx.consumedUtxos : tx.emittedUtxos)?.map((u) => u.utxoId);
      expect(utxoIds).toContain(last.utxoId);
    }
    const chainsOf = await ck.data.primaryNetwork.getChainIdsForAddresses({
      addresses: `P-${addresses["p-chain"]},${addresses["x-chain"]}`,
    });
    expect(chainsOf.addresses[0]!.blockchainIds).toContain(NETWORKS.fuji.chainIds.P);
    // X-chain assets and vertices.
    const x = await all(
      await ck.data.primaryNetwork.transactions.listLatest({blockchainId: "x-chain", pageSize: 100}),
      (p) => p.transactions as Array<{emittedUtxos: Array<{asset: {assetId: string}}>}>,
      3,
    );
    const assetIds = new Set(x.flatMap((tx) => tx.emittedUtxos.map((u) => u.asset.assetId)));
    expect(assetIds.size).toBeGreaterThan(1);
    for (const assetId of assetIds) {
      await ck.data.primaryNetwork.getAssetDetails({blockchainId: "x-chain", assetId});
      await all(
        await ck.data.primaryNetwork.transactions.listAssetTransactions({
          blockchainId: "x-chain",
          assetId,
          pageSize: 100,
        }),
        (p) => p.transactions,
        3,
      );
    }
    const vertices = await all(
      await ck.data.primaryNetwork.vertices.listLatest({blockchainId: "x-chain", pageSize: 100}),
      (p) => p.vertices,
    );
    await all(
      await ck.data.primaryNetwork.vertices.listByHeight({blockchainId: "x-chain", vertexHeight: 0}),
      (p) => p.vertices,
    );
    for (const v of vertices.slice(0, 3))
      await ck.data.primaryNetwork.vertices.getByHash({blockchainId: "x-chain", vertexHash: v.vertexHash});
  });

  it("answers a C-chain export's EVM inputs with the credentials that signed them", async () => {
    const c = await all(
      await ck.data.primaryNetwork.transactions.listLatest({blockchainId: "c-chain", pageSize: 100}),
      (p) => p.transactions as Array<{txHash: string; txType: string}>,
      5,
    );
    const exports = c.filter((tx) => tx.txType === "ExportTx");
    expect(exports.length).toBeGreaterThan(0);
    for (const {txHash} of exports.slice(0, 5)) {
      const tx = await ck.data.primaryNetwork.transactions.get({blockchainId: "c-chain", txHash});
      if (!("evmInputs" in tx)) throw new Error(`${txHash} has no evmInputs`);
      // The key recovered from each input's signature is the dev network's key that signed it: the one whose EVM
      // address the input spends from.
      for (const input of tx.evmInputs) {
        const signer = devKeys().find(
          (k) => "0x" + Buffer.from(k.evmAddress).toString("hex") === input.fromAddress.toLowerCase(),
        );
        expect(signer, input.fromAddress).toBeDefined();
        expect(input.credentials.length, txHash).toBeGreaterThan(0);
        for (const cred of input.credentials) {
          expect(Buffer.from(cred.publicKey!, "base64").toString("hex"), txHash).toBe(
            Buffer.from(signer!.publicKey).toString("hex"),
          );
          expect(Buffer.from(cred.signature!, "base64")).toHaveLength(65);
        }
      }
    }
  });

  it("answers the network, validators, delegators, rewards, subnets, blockchains and L1 validators", async () => {
    await ck.data.primaryNetwork.getNetworkDetails({});
    const validators = await all(await ck.data.primaryNetwork.listValidators({pageSize: 100}), (p) => p.validators);
    expect(new Set(validators.map((v) => v.validationStatus))).toContain("active");
    for (const validationStatus of ["active", "pending", "completed"] as const) {
      await all(await ck.data.primaryNetwork.listValidators({validationStatus, pageSize: 100}), (p) => p.validators);
    }
    // The dev network's validators are up all the time (the dev feed is all of them): nothing else is observed here.
    const actives = validators.filter((v) => v.validationStatus === "active");
    for (const v of actives) {
      expect(v.validationStatus === "active" && [v.uptimePerformance, v.validatorHealth], v.nodeId).toEqual([
        100,
        {
          reachabilityPercent: 100,
          benchedPChainRequestsPercent: 0,
          benchedXChainRequestsPercent: 0,
          benchedCChainRequestsPercent: 0,
        },
      ]);
    }
    const active = actives[0]!;
    const one = await all(
      await ck.data.primaryNetwork.getValidatorDetails({nodeId: active.nodeId}),
      (p) => p.validators,
    );
    expect(one.map((v) => v.nodeId)).toContain(active.nodeId);
    const delegators = await all(await ck.data.primaryNetwork.listDelegators({pageSize: 100}), (p) => p.delegators);
    expect(delegators.length).toBeGreaterThan(0);
    const nodeIds = [...new Set(validators.map((v) => v.nodeId))].join(",");
    await all(
      await ck.data.primaryNetwork.rewards.listPendingRewards({nodeIds, pageSize: 100}),
      (p) => p.pendingRewards,
    );
    const rewarded = delegators
      .flatMap((d) => d.rewardAddresses)
      .slice(0, 4)
      .join(",");
    await all(
      await ck.data.primaryNetwork.rewards.listHistoricalRewards({addresses: rewarded, pageSize: 100}),
      (p) => p.historicalRewards,
    );
    await all(
      await ck.data.primaryNetwork.transactions.listActiveStakingTransactions({blockchainId: "p-chain", pageSize: 100}),
      (p) => p.transactions,
    );
    const subnets = await all(await ck.data.primaryNetwork.listSubnets({pageSize: 100}), (p) => p.subnets);
    expect(subnets.length).toBeGreaterThan(0);
    for (const s of subnets) await ck.data.primaryNetwork.getSubnetById({subnetId: s.subnetId});
    const chains = await all(await ck.data.primaryNetwork.listBlockchains({pageSize: 100}), (p) => p.blockchains);
    for (const c of chains)
      expect((await ck.data.primaryNetwork.getBlockchainById({blockchainId: c.blockchainId})).blockchainId).toBe(
        c.blockchainId,
      );
    await all(
      await ck.data.primaryNetwork.listL1Validators({pageSize: 100, includeInactiveL1Validators: true}),
      (p) => p.validators,
    );
  });

  it("answers the AVAX supply: exact decimals that add up", async () => {
    const s = await ck.avaxSupply.get();
    expect(s.lastUpdated).toBeInstanceOf(Date);
    // In wei (10^-18 AVAX), so that the sums below are exact.
    const wei = (v: string): bigint => {
      expect(v).toMatch(/^-?[0-9]+(\.[0-9]{1,18})?$/);
      const [i, f = ""] = v.split(".");
      return BigInt(i! + f.padEnd(18, "0"));
    };
    const [total, genesis, rewards, p, x, c] = [
      s.totalSupply,
      s.genesisUnlock,
      s.totalRewards,
      s.totalPBurned,
      s.totalXBurned,
      s.totalCBurned,
    ].map(wei);
    expect(genesis).toBeGreaterThan(0n);
    for (const burned of [p!, x!, c!]) expect(burned).toBeGreaterThan(0n);
    expect(total).toBe(genesis! + rewards! - p! - x! - c!);
    expect(wei(s.circulatingSupply)).toBe(total! - wei(s.totalLocked));
    expect(wei(s.totalStaked)).toBeGreaterThan(0n);
    expect(wei(s.l1ValidatorFees)).toBeGreaterThanOrEqual(0n);
    expect(wei(s.l1ValidatorFees)).toBeLessThanOrEqual(p!);
  });

  it("answers the health check", async () => {
    await evmCaughtUp(t);
    expect((await ck.data.healthCheck()).status).toBe("ok");
  });

  // The calls below fail on main until the branch that fixes them lands (each named in its test's title).
  it("lists removed validators: chainkit's validationStatus enum has removed [folderr]", async () => {
    await all(
      await ck.data.primaryNetwork.listValidators({validationStatus: "removed", pageSize: 100}),
      (p) => p.validators,
    );
  });

  it("answers the live check [folderr]", async () => {
    expect((await ck.data.liveCheck()).status).toBe("ok");
  });

  it("answers an ICM list of a network this node does not serve with 404 [folderr]", async () => {
    await evmCaughtUp(t);
    const [m] = await all(await ck.data.icm.list({pageSize: 1}), (p) => p.messages, 1);
    const other = await ck.data.icm.listByAddress({address: m!.from, network: "mainnet"}).catch((e: unknown) => e);
    expect((other as {statusCode?: number}).statusCode).toBe(404);
  });

  it("answers each followed EVM chain, its blocks, transactions, addresses, tokens and contracts", async () => {
    await evmCaughtUp(t);
    const chains = await all(await ck.data.evm.chains.list({}), (p) => p.chains);
    expect(chains.map((c) => c.chainId).sort()).toEqual(["43112", "99999"]);
    await all(await ck.data.evm.blocks.listLatestAllChains({pageSize: 100}), (p) => p.blocks, 3);
    await all(await ck.data.evm.transactions.listLatestAllChains({pageSize: 100}), (p) => p.transactions, 3);
    await all(await ck.data.evm.chains.listAllLatestBlocks({pageSize: 100}), (p) => p.blocks, 3);
    await all(await ck.data.evm.chains.listAllLatestTransactions({pageSize: 100}), (p) => p.transactions, 3);
    for (const {chainId} of chains) {
      await ck.data.evm.chains.get({chainId});
      const blocks = await all(await ck.data.evm.blocks.listLatest({chainId, pageSize: 100}), (p) => p.blocks, 3);
      for (const b of blocks.filter((x) => x.txCount > 0).slice(0, 3)) {
        await ck.data.evm.blocks.get({chainId, blockId: b.blockHash});
        await all(
          await ck.data.evm.blocks.listTransactions({chainId, blockId: b.blockNumber, pageSize: 100}),
          (p) => p.transactions,
        );
      }
      const txs = await all(
        await ck.data.evm.transactions.listLatest({chainId, pageSize: 100}),
        (p) => p.transactions,
        3,
      );
      expect(txs.length, chainId).toBeGreaterThan(5);
      for (const tx of txs.slice(0, 40)) await ck.data.evm.transactions.get({chainId, txHash: tx.txHash});
    }
    const chainId = "43112";
    const txs = await all(
      await ck.data.evm.transactions.listLatest({chainId, pageSize: 100}),
      (p) => p.transactions,
      1,
    );
    const full = await Promise.all(txs.map((tx) => ck.data.evm.transactions.get({chainId, txHash: tx.txHash})));
    const tokens = new Map<string, string>();
    for (const f of full) {
      for (const x of f.erc20Transfers ?? []) tokens.set(x.erc20Token.address, "ERC-20");
      for (const x of f.erc721Transfers ?? []) tokens.set(x.erc721Token.address, "ERC-721");
      for (const x of f.erc1155Transfers ?? []) tokens.set(x.erc1155Token.address, "ERC-1155");
    }
    expect(new Set(tokens.values())).toEqual(new Set(["ERC-20", "ERC-721", "ERC-1155"]));
    const addresses = [...new Set(txs.flatMap((tx) => [tx.from.address, tx.to.address]))].slice(0, 4);
    for (const address of addresses) {
      await ck.data.evm.chains.getAddressChains({address});
      await ck.data.evm.address.chains.list({address});
      await ck.data.evm.address.balances.getNative({chainId, address});
      await all(
        await ck.data.evm.address.balances.listErc20({chainId, address, pageSize: 100}),
        (p) => p.erc20TokenBalances,
        3,
      );
      await all(
        await ck.data.evm.address.balances.listErc721({chainId, address, pageSize: 100}),
        (p) => p.erc721TokenBalances,
        3,
      );
      await all(
        await ck.data.evm.address.balances.listErc1155({chainId, address, pageSize: 100}),
        (p) => p.erc1155TokenBalances,
        3,
      );
      await all(
        await ck.data.evm.address.balances.listCollectibles({chainId, address, pageSize: 100}),
        (p) => p.collectibleBalances,
        3,
      );
      await all(
        await ck.data.evm.address.contracts.listDeployments({chainId, address, pageSize: 100}),
        (p) => p.contracts,
        3,
      );
      await all(
        await ck.data.evm.address.transactions.list({chainId, address, pageSize: 100}),
        (p) => p.transactions,
        3,
      );
      await all(
        await ck.data.evm.address.transactions.listNative({chainId, address, pageSize: 100}),
        (p) => p.transactions,
        3,
      );
      await all(
        await ck.data.evm.address.transactions.listErc20({chainId, address, pageSize: 100}),
        (p) => p.transactions,
        3,
      );
      await all(
        await ck.data.evm.address.transactions.listErc721({chainId, address, pageSize: 100}),
        (p) => p.transactions,
        3,
      );
      await all(
        await ck.data.evm.address.transactions.listErc1155({chainId, address, pageSize: 100}),
        (p) => p.transactions,
        3,
      );
      await all(
        await ck.data.evm.address.transactions.listInternal({chainId, address, pageSize: 100}),
        (p) => p.transactions,
        3,
      );
    }
    for (const [address, ercType] of tokens) {
      await ck.data.evm.contracts.getMetadata({chainId, address});
      await ck.data.evm.contracts.getDeploymentTransaction({chainId, address});
      await all(await ck.data.evm.contracts.listTransfers({chainId, address, pageSize: 100}), (p) => p.transfers, 3);
      if (ercType === "ERC-20") continue;
      const nfts = await all(await ck.data.nfts.list({chainId, address, pageSize: 100}), (p) => p.tokens, 3);
      expect(nfts.length, address).toBeGreaterThan(0);
      for (const n of nfts.slice(0, 3)) await ck.data.nfts.get({chainId, address, tokenId: n.tokenId});
    }
  });

  it("answers the interchain messages, under their ICM and Teleporter names", async () => {
    await evmCaughtUp(t);
    const messages = await all(await ck.data.icm.list({pageSize: 100}), (p) => p.messages, 5);
    expect(messages.length).toBeGreaterThan(0);
    await all(await ck.data.teleporter.listTeleporterMessages({pageSize: 100}), (p) => p.messages, 5);
    for (const m of messages.slice(0, 5)) {
      await ck.data.icm.get({messageId: m.messageId});
      await ck.data.teleporter.getTeleporterMessage({messageId: m.messageId});
    }
    const address = messages[0]!.from;
    await all(await ck.data.icm.listByAddress({address, pageSize: 100}), (p) => p.messages, 5);
    await all(await ck.data.teleporter.listTeleporterMessagesByAddress({address, pageSize: 100}), (p) => p.messages, 5);
  });

  it("aggregates signatures and answers a transaction's aggregated signatures, with the hosted API's 201 [folderr]", async () => {
    await evmCaughtUp(t);
    const [warp] = await t.node.dataApi!.sql.query<{unsigned: Uint8Array}>(
      "SELECT unsigned FROM warp_messages WHERE chain_id = '43112' ORDER BY block_number LIMIT 1",
    );
    const message = Buffer.from(warp!.unsigned).toString("hex");
    const signed = await ck.data.signatureAggregator.aggregate({signatureAggregatorRequest: {message}});
    expect(signed.signedMessage).toContain(message);
    const p = await all(
      await ck.data.primaryNetwork.transactions.listLatest({blockchainId: "p-chain", pageSize: 100}),
      (page) => page.transactions as Array<{txHash: string; txType: string}>,
      20,
    );
    const conversion = p.find((tx) => tx.txType === "ConvertSubnetToL1Tx")!;
    await ck.data.signatureAggregator.get({txHash: conversion.txHash});
  });

  it("sent every call to avaext, naming the dev network", () => {
    expect(sent.length).toBeGreaterThan(100);
    for (const s of sent) expect(s).not.toMatch(/fuji/);
  });
});

describe("chainkit 0.3.13: active validators' uptime and health from the node beside avaext (--platform-rpc)", () => {
  let t: TestNode;
  let p: FakePChain;
  const OBSERVED = "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg";

  beforeAll(async () => {
    p = await fakePChain();
    p.observed = new Map([[OBSERVED, {uptime: "87.5", connected: true, benched: ["X"]}]]);
    t = await startNode({...DEV, "platform-rpc": p.url});
    await caughtUp(t);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await p?.close();
  });

  it("answers the node's uptime and benching of a validator it observes, and up for one it does not report", async () => {
    const {ck} = devNetworkClient(t.url, {name: "local", chainIds: NETWORKS.local.chainIds});
    // A poll processed by the observations (not merely a call received by the fake node).
    await expect.poll(() => t.node.dataApi?.observations?.polls ?? 0, {timeout: 10_000}).toBeGreaterThan(0);
    const validators = await all(
      await ck.data.primaryNetwork.listValidators({validationStatus: "active", pageSize: 100}),
      (page) => page.validators,
    );
    const seen = validators.find((v) => v.nodeId === OBSERVED);
    const other = validators.find((v) => v.nodeId !== OBSERVED);
    expect(seen?.validationStatus === "active" && [seen.uptimePerformance, seen.validatorHealth]).toEqual([
      87.5,
      {
        reachabilityPercent: 100,
        benchedPChainRequestsPercent: 0,
        benchedXChainRequestsPercent: 100,
        benchedCChainRequestsPercent: 0,
      },
    ]);
    expect(other?.validationStatus === "active" && other.uptimePerformance).toBe(100);
    const one = await all(
      await ck.data.primaryNetwork.getValidatorDetails({nodeId: OBSERVED}),
      (page) => page.validators,
    );
    expect(one.find((v) => v.validationStatus === "active")).toMatchObject({uptimePerformance: 87.5});
  });
});
