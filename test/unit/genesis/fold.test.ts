/**
 * A genesis folded into a fresh store, on both SQL backends, and read back through the balance queries the API
 * serves: each genesis allocation's address has the balance kinds its file gives it (X-chain unlocked, P-chain
 * unlocked, stakeable-locked, staked and locked-staked), the genesis stakers are current with their real tx IDs,
 * and the supply is the allocations' sum.
 */
import {rmSync} from "node:fs";
import {bech32} from "@scure/base";
import {afterAll, expect, it} from "vitest";
import {NETWORKS} from "../../../src/chains/index.js";
import {openIndexDatabase} from "../../../src/containerIndex/database.js";
import {IndexStore} from "../../../src/containerIndex/store.js";
import {migrate} from "../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../src/dataApi/store/sql.js";
import {PrimaryView, defaultPrimaryViewOptions} from "../../../src/dataApi/views/primary/view.js";
import type {GenesisState} from "../../../src/dataApi/views/primary/model.js";
import {getPChainBalances, getXChainBalances} from "../../../src/dataApi/queries/primary/utxos.js";
import type {NetworkCtx} from "../../../src/dataApi/queries/primary/common.js";
import {buildGenesis, type NetworkGenesis} from "../../../src/genesis/build.js";
import {builtInGenesisText} from "../../../src/genesis/files.js";
import {genesisFromText} from "../../../src/genesis/resolve.js";
import {GENESIS_SUPPLY_AFTER_STAKERS, networkConfigFor} from "../../../src/dataApi/views/primary/networkConfig.js";
import {genesisStakers} from "../../../src/dataApi/views/primary/stakers.js";
import {describeBackends, quietLogger} from "../../helpers/sql.js";
import {tempDir} from "../../helpers/node.js";

const AVAX = 1_000_000_000n;
const START = 1_700_000_000n;
const addr = (n: number): Uint8Array => new Uint8Array(20).fill(n);
const x = (n: number): string => `X-${bech32.encode("local", bech32.toWords(addr(n)), 90)}`;
const eth = (n: number): string => `0x${Buffer.from(addr(n)).toString("hex")}`;

// A (1) holds 7 AVAX on X, and on P 5 AVAX unlocked, 1 AVAX unlocked since before the start, 3 AVAX locked until
// START + 10^6. S (2) is staked: 2,000 AVAX unlocked and 1,000 AVAX locked until START + 10^8, over one staker whose
// rewards go to R (3). The stake period (10^7 s) ends before S's locked part unlocks.
const TEXT = JSON.stringify({
  networkID: 12345,
  allocations: [
    {
      ethAddr: eth(11),
      avaxAddr: x(1),
      initialAmount: 7 * 1e9,
      unlockSchedule: [{amount: 5 * 1e9}, {amount: 1e9, locktime: 1000}, {amount: 3 * 1e9, locktime: 1_701_000_000}],
    },
    {
      ethAddr: eth(12),
      avaxAddr: x(2),
      initialAmount: 0,
      unlockSchedule: [{amount: 2000 * 1e9}, {amount: 1000 * 1e9, locktime: 1_800_000_000}],
    },
  ],
  startTime: Number(START),
  initialStakeDuration: 10_000_000,
  initialStakeDurationOffset: 0,
  initialStakedFunds: [x(2)],
  initialStakers: [{nodeID: "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg", rewardAddress: x(3), delegationFee: 20000}],
  cChainGenesis: '{"config":{"chainId":43112}}',
  message: "test",
});

const opened: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of opened.reverse()) await c();
});

/** A fresh store with `genesis` folded (the view's load() on an empty store), and an empty index. */
async function folded(open: () => Promise<SqlClient>, g: NetworkGenesis): Promise<SqlClient> {
  const sql = await open();
  await migrate(sql, MIGRATIONS, {logger: quietLogger()});
  const dir = tempDir();
  const db = await openIndexDatabase(dir);
  const index = await IndexStore.open(db);
  opened.push(async () => {
    await sql.close();
    await db.close();
    rmSync(dir, {recursive: true, force: true});
  });
  const network = {...NETWORKS.local, chainIds: g.chainIds};
  const view = new PrimaryView(defaultPrimaryViewOptions, {
    index,
    sql,
    network,
    genesis: () => g.state,
    avaxAssetId: g.avaxAssetId,
    logger: quietLogger(),
    metrics: null,
  });
  await view.load();
  expect(await view.catchUp()).toBe(0);
  await view.close();
  return sql;
}

const total = (list: Array<{amount: string}>): bigint => list.reduce((s, a) => s + BigInt(a.amount), 0n);

describeBackends("a genesis folded into the store", (backend) => {
  const g = genesisFromText(TEXT, "test").build();
  const net: NetworkCtx = {networkName: "local", hrp: "local", chainIds: g.chainIds, avaxAssetId: g.avaxAssetId};
  const now = Number(START) + 100;

  it("gives each allocation's address the balance kinds its file gives it", async () => {
    const sql = await folded(backend.open, g);
    const xa = await getXChainBalances(sql, net, {addresses: [addr(1)], now});
    expect(total(xa.unlocked)).toBe(7n * AVAX);
    expect(xa.unlocked[0]!.assetId).toBe(g.avaxAssetId);
    expect(total(xa.locked)).toBe(0n);

    const pa = await getPChainBalances(sql, net, {addresses: [addr(1)], now});
    expect(total(pa.unlockedUnstaked)).toBe(6n * AVAX);
    expect(total(pa.lockedStakeable)).toBe(3n * AVAX);
    expect(total(pa.unlockedStaked) + total(pa.lockedStaked)).toBe(0n);

    const ps = await getPChainBalances(sql, net, {addresses: [addr(2)], now});
    expect(total(ps.unlockedStaked)).toBe(2000n * AVAX);
    expect(total(ps.lockedStaked)).toBe(1000n * AVAX);
    expect(total(ps.unlockedUnstaked) + total(ps.lockedStakeable)).toBe(0n);
    expect(total((await getXChainBalances(sql, net, {addresses: [addr(2)], now})).unlocked)).toBe(0n);

    // Once its locktime passes, A's locked AVAX is unlocked.
    const later = await getPChainBalances(sql, net, {addresses: [addr(1)], now: 1_701_000_001});
    expect(total(later.unlockedUnstaked)).toBe(9n * AVAX);
  });

  it("holds the genesis staker with its real tx ID, and the supply", async () => {
    const sql = await folded(backend.open, g);
    const stakers = await sql.query<{
      tx_id: string;
      node_id: string;
      weight: string;
      start_ts: bigint;
      end_ts: bigint;
      delegation_shares: number;
      potential_reward: string;
    }>("SELECT tx_id, node_id, weight::text, start_ts, end_ts, delegation_shares, potential_reward::text FROM stakers");
    expect(stakers).toHaveLength(1);
    expect(stakers[0]!.tx_id).toBe([...g.state.stakers][0]!.txId);
    expect(BigInt(stakers[0]!.weight)).toBe(3000n * AVAX);
    expect(BigInt(stakers[0]!.start_ts)).toBe(START);
    expect(BigInt(stakers[0]!.end_ts)).toBe(START + 10_000_000n);
    expect(stakers[0]!.delegation_shares).toBe(20000);
    expect(BigInt(stakers[0]!.potential_reward)).toBeGreaterThan(0n);
    // The genesis chains are the network's X and C, not blockchains a CreateChainTx of a block made.
    expect(g.state.chains.map((c) => [c.name, c.chainId])).toEqual([
      ["X-Chain", g.chainIds.X],
      ["C-Chain", g.chainIds.C],
    ]);
    expect(await sql.query("SELECT blockchain_id FROM blockchains")).toEqual([]);
    // AvalancheGo's syncGenesis: the allocations' sum, then the staker's potential reward added.
    const [supply] = await sql.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = 'view.supply'");
    expect(BigInt(supply!.value)).toBe(3016n * AVAX + BigInt(stakers[0]!.potential_reward));
  });

  it("ends local's genesis with AvalancheGo's supply: each validator's reward added on the supply before it", async () => {
    const local = buildGenesis(genesisFromText(builtInGenesisText(12345)!, "local").config);
    const sql = await folded(backend.open, local);
    const [supply] = await sql.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = 'view.supply'");
    expect(BigInt(supply!.value)).toBe(GENESIS_SUPPLY_AFTER_STAKERS[12345]);
    // The same as the staker records' own sum, computed independently of the fold.
    const {supply: independent} = genesisStakers(local.state.supply, [...local.state.stakers], networkConfigFor(12345));
    expect(independent).toBe(GENESIS_SUPPLY_AFTER_STAKERS[12345]);
  });

  it("folds local's built-in genesis: ewoq's X and P funds, the five stakers' stake", async () => {
    const local = buildGenesis(genesisFromText(builtInGenesisText(12345)!, "local").config);
    const sql = await folded(backend.open, local);
    const lnet: NetworkCtx = {
      networkName: "local",
      hrp: "local",
      chainIds: local.chainIds,
      avaxAssetId: local.avaxAssetId,
    };
    const ewoq = Uint8Array.from(bech32.fromWords(bech32.decode("local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u").words));
    const staked = Uint8Array.from(
      bech32.fromWords(bech32.decode("local1g65uqn6t77p656w64023nh8nd9updzmxyymev2").words),
    );
    const at = Number(local.state.timestamp) + 1;
    expect(total((await getXChainBalances(sql, lnet, {addresses: [ewoq], now: at})).unlocked)).toBe(
      300_000_000n * AVAX,
    );
    expect(total((await getPChainBalances(sql, lnet, {addresses: [ewoq], now: at})).unlockedUnstaked)).toBe(
      30_000_000n * AVAX,
    );
    expect(total((await getPChainBalances(sql, lnet, {addresses: [staked], now: at})).unlockedStaked)).toBe(
      10_000_000n * AVAX,
    );
  });
});

it("never folds a genesis without supply", async () => {
  const {BACKENDS} = await import("../../helpers/sql.js");
  const g = genesisFromText(TEXT, "test").build();
  const broke: GenesisState = {...g.state, supply: 0n};
  await expect(folded(BACKENDS[0]!.open, {...g, state: broke})).rejects.toThrow(/has no supply/);
});
