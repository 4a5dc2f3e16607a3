/**
 * The genesis builder against AvalancheGo: from each of the three shipped config files it recomputes the X and C
 * chain IDs, the AVAX asset ID and the P-chain genesis ID (sha256 of `genesis.FromConfig`'s bytes) that
 * AvalancheGo's genesis/genesis_test.go and utils/constants state; the supply is the allocations' sum; the
 * initial stakers are AvalancheGo's; and a real mainnet X-chain transaction spends genesis UTXOs the builder made.
 */
import {readFileSync, writeFileSync} from "node:fs";
import {bech32} from "@scure/base";
import {describe, expect, it} from "vitest";
import {NETWORKS} from "../../../src/chains/index.js";
import {buildGenesis, genesisIds, type NetworkGenesis} from "../../../src/genesis/build.js";
import {genesisInitialSupply, parseGenesisConfig, type GenesisConfig} from "../../../src/genesis/config.js";
import {builtInGenesisText, recentLocalStartTime} from "../../../src/genesis/files.js";
import {GenesisError, networkWithGenesis, resolveGenesis} from "../../../src/genesis/resolve.js";
import {decodeSignedTx} from "../../../src/dataApi/views/primary/txCodec.js";
import {cb58Encode, idFromString} from "../../../src/util/cb58.js";
import {sha256} from "../../../src/util/sha256.js";
import {tempDir} from "../../helpers/node.js";

/** genesis/genesis_test.go TestGenesis (the P-chain genesis ID), TestVMGenesis, TestAVAXAssetID. */
const AVALANCHEGO = {
  1: {
    genesisId: "UUvXi6j7QhVvgpbKM89MP5HdrxKm9CaJeHc187TsDNf8nZdLk",
    X: "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
    C: "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
    avax: "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z",
  },
  5: {
    genesisId: "MSj6o9TpezwsQx4Tv7SHqpVvCbJ8of1ikjsqPZ1bKRjc9zBy3",
    X: "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
    C: "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
    avax: "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK",
  },
  // The local C-chain ID since AvalancheGo #3413 (its cChainGenesis timestamp), genesis_test.go at 1cf1fc3d.
  12345: {
    genesisId: "2nRRoR76HuEk1JjDpRdN8FKvZFvUXWxY3b9C5rZRPFjcgEh7S7",
    X: "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
    C: "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC",
    avax: "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe",
  },
} as const;

const configs = new Map<number, GenesisConfig>();
const builds = new Map<number, NetworkGenesis>();
function built(id: 1 | 5 | 12345): {config: GenesisConfig; g: NetworkGenesis} {
  if (!builds.has(id)) {
    // The file as shipped: for local, its own start time (AvalancheGo's unmodifiedLocalConfig).
    configs.set(id, parseGenesisConfig(builtInGenesisText(id)!));
    builds.set(id, buildGenesis(configs.get(id)!));
  }
  return {config: configs.get(id)!, g: builds.get(id)!};
}

describe.each([1, 5, 12345] as const)("network %i's genesis", (id) => {
  it("has AvalancheGo's chain IDs, AVAX asset ID and P-chain genesis bytes", () => {
    const {g} = built(id);
    const want = AVALANCHEGO[id];
    expect(g.chainIds).toEqual({P: "11111111111111111111111111111111LpoYY", X: want.X, C: want.C});
    expect(g.avaxAssetId).toBe(want.avax);
    expect(cb58Encode(sha256(g.platformGenesis))).toBe(want.genesisId);
    // The IDs alone, without the rest of the genesis (what a restart computes).
    expect(genesisIds(built(id).config)).toEqual({chainIds: g.chainIds, avaxAssetId: g.avaxAssetId});
    // src/chains holds the same constants.
    const net = Object.values(NETWORKS).find((n) => n.id === id)!;
    expect(net.chainIds).toEqual(g.chainIds);
  });

  it("has the allocations' sum as its supply, and every nAVAX of it at genesis once", () => {
    const {config, g} = built(id);
    let sum = 0n;
    for (const a of config.allocations) sum += a.initialAmount + a.unlockSchedule.reduce((s, u) => s + u.amount, 0n);
    expect(g.state.supply).toBe(sum);
    expect(genesisInitialSupply(config)).toBe(sum);
    const utxos = [...g.state.utxos].reduce((s, u) => s + u.output.amount, 0n);
    const staked = [...g.state.stakers].reduce((s, v) => s + v.stake.reduce((t, o) => t + o.amount, 0n), 0n);
    expect(utxos + staked).toBe(sum);
    for (const v of g.state.stakers) expect(v.staker.weight).toBe(v.stake.reduce((t, o) => t + o.amount, 0n));
  });

  it("has the file's stakers, from its start time, with their reward address and fee", () => {
    const {config, g} = built(id);
    expect([...g.state.stakers].map((s) => s.staker.nodeId).sort()).toEqual(
      config.initialStakers.map((s) => s.nodeId).sort(),
    );
    const byNode = new Map(config.initialStakers.map((s) => [s.nodeId, s]));
    const ids = new Set<string>();
    for (const s of g.state.stakers) {
      const cfg = byNode.get(s.staker.nodeId)!;
      expect(s.staker.startTime).toBe(config.startTime);
      expect(s.staker.endTime > config.startTime).toBe(true);
      expect(s.staker.endTime <= config.startTime + config.initialStakeDuration).toBe(true);
      expect(s.staker.rewardOwner!.addresses).toEqual([cfg.rewardAddress]);
      expect(s.staker.delegationShares).toBe(cfg.delegationFee);
      expect(s.staker.bls?.publicKey ?? null).toBe(cfg.signer?.publicKey ?? null);
      ids.add(s.txId);
    }
    expect(ids.size).toBe(config.initialStakers.length);
    // The tx IDs are those of the validator txs in the P-chain genesis bytes (each stake output names its tx).
    for (const s of g.state.stakers)
      for (const o of s.stake)
        expect(Buffer.from(o.utxoBytes.subarray(2, 34))).toEqual(Buffer.from(idFromString(s.txId)));
  });
});

describe("mainnet's genesis in detail", () => {
  it("locks what unlocks after the start: stakeable.LockOut P UTXOs and stake outputs", () => {
    const {config, g} = built(1);
    const p = [...g.state.utxos].filter((u) => u.chain === "P");
    const locked = p.filter((u) => u.output.stakeableLocktime > config.startTime);
    expect(locked.length).toBeGreaterThan(0);
    for (const u of locked) {
      expect(u.output.utxoType).toBe("STAKEABLE_LOCK");
      // codec ‖ empty tx ID ‖ index ‖ asset ‖ LockOut (22) ‖ locktime ‖ TransferOutput (7)
      expect(u.output.utxoBytes.subarray(70, 74)).toEqual(Uint8Array.of(0, 0, 0, 22));
    }
    for (const u of p.filter((x) => x.output.stakeableLocktime === 0n))
      expect(u.output.utxoBytes.subarray(70, 74)).toEqual(Uint8Array.of(0, 0, 0, 7));
    // P UTXOs are numbered in the allocations' order from 0, under the empty tx ID.
    expect(p.map((u) => u.output.outputIndex)).toEqual(p.map((_, i) => i));
    expect(new Set(p.map((u) => u.txId))).toEqual(new Set(["11111111111111111111111111111111LpoYY"]));
    const stake = [...g.state.stakers].flatMap((s) => s.stake);
    expect(stake.some((o) => o.stakeableLocktime > config.startTime)).toBe(true);
    expect(stake.every((o) => o.staked && o.utxoType === "STAKE")).toBe(true);
    // Mainnet's stakers have no BLS signer: AddValidatorTx (type 12), the 75 of its file.
    expect([...g.state.stakers]).toHaveLength(75);
    expect([...g.state.stakers].every((s) => s.staker.bls === null)).toBe(true);
  });

  it("gives the X-chain's AVAX holders their UTXOs under the AVAX asset ID, sorted by amount and address", () => {
    const {config, g} = built(1);
    const x = [...g.state.utxos].filter((u) => u.chain === "X");
    expect(x.length).toBe(config.allocations.filter((a) => a.initialAmount > 0n).length);
    for (const [i, u] of x.entries()) {
      expect(u.txId).toBe(g.avaxAssetId);
      expect(u.output.assetId).toBe(g.avaxAssetId);
      expect(u.output.outputIndex).toBe(i);
      if (i > 0) {
        const prev = x[i - 1]!.output;
        const order =
          prev.amount < u.output.amount ||
          (prev.amount === u.output.amount &&
            Buffer.compare(prev.owner.addresses[0]!, u.output.owner.addresses[0]!) <= 0);
        expect(order).toBe(true);
      }
    }
  });

  it("agrees with a real mainnet X-chain transaction's chain ID and asset", () => {
    // test/fixtures: /ext/index/X/tx index 1 of a mainnet node (AvalancheGo indexer/service.md). It spends no
    // genesis UTXO, but its bytes name the X-chain and AVAX the builder computes.
    const fixtures = JSON.parse(
      readFileSync(new URL("../../fixtures/containers.json", import.meta.url), "utf8"),
    ) as Array<{name: string; hex: string}>;
    const bytes = Buffer.from(fixtures.find((f) => f.name === "x-mainnet-tx-index1")!.hex.slice(2), "hex");
    const tx = decodeSignedTx("X", bytes, {recoverPublicKeys: false});
    expect(cb58Encode(bytes.subarray(10, 42))).toBe(built(1).g.chainIds.X);
    expect(tx.outputs.map((o) => o.assetId)).toEqual([built(1).g.avaxAssetId, built(1).g.avaxAssetId]);
  });
});

describe("local's genesis", () => {
  it("has BLS signers: AddPermissionlessValidatorTx stakers of 2,000,000 AVAX each, rewarded to ewoq", () => {
    const {g} = built(12345);
    expect([...g.state.stakers]).toHaveLength(5);
    for (const s of g.state.stakers) {
      expect(s.staker.weight).toBe(2_000_000_000_000_000n);
      expect(s.staker.bls).not.toBeNull();
      expect(cb58Encode(sha256(s.stake[0]!.utxoBytes)).length).toBeGreaterThan(0);
      const ewoq = bech32.fromWords(bech32.decode("local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u").words);
      expect(s.staker.rewardOwner!.addresses).toEqual([Uint8Array.from(ewoq)]);
      expect(s.staker.delegationRewardOwner!.addresses).toEqual([Uint8Array.from(ewoq)]);
    }
  });

  it("moves the built-in local start time forward by nine 30-day periods, as AvalancheGo does", () => {
    const defined = 1_721_016_000n;
    const period = 9n * 30n * 86_400n;
    expect(recentLocalStartTime(defined, defined + period - 1n)).toBe(defined);
    expect(recentLocalStartTime(defined, defined + period)).toBe(defined + period);
    expect(recentLocalStartTime(defined, defined + 3n * period + 5n)).toBe(defined + 3n * period);
    const now = defined + 2n * period + 100n;
    const g = resolveGenesis(12345, null, now)!;
    expect(g.config.startTime).toBe(defined + 2n * period);
    // The chain IDs do not depend on the start time.
    expect(g.build().chainIds).toEqual(built(12345).g.chainIds);
  });
});

describe("resolving a network's genesis", () => {
  const fileFor = (text: string): string => {
    const f = `${tempDir()}/genesis.json`;
    writeFileSync(f, text);
    return f;
  };
  const custom = (networkId: number): string =>
    builtInGenesisText(12345)!.replace(/"networkID":\s*12345/, `"networkID": ${networkId}`);

  it("builds mainnet, fuji and local in; another network has none without --genesis-file", () => {
    expect(resolveGenesis(1, null)!.config.networkId).toBe(1);
    expect(resolveGenesis(5, null)!.config.networkId).toBe(5);
    expect(resolveGenesis(12345, null)!.config.networkId).toBe(12345);
    expect(resolveGenesis(1337, null)).toBeNull();
  });

  it("takes a custom network's chain IDs from its genesis file, and its EVM chain ID from its cChainGenesis", () => {
    const g = resolveGenesis(1337, fileFor(custom(1337)))!;
    const net = networkWithGenesis("1337", g);
    expect(net.id).toBe(1337);
    expect(net.chainIds).toEqual(g.build().chainIds);
    // Not local's: the network ID is in every genesis transaction's bytes.
    expect(net.chainIds.X).not.toBe(NETWORKS.local.chainIds.X);
    expect(net.cChainEvmId).toBe(43112);
    // Without a file, AvalancheGo's own fallback: the local config with the network's ID.
    expect(networkWithGenesis("1337", null).chainIds).toEqual(net.chainIds);
  });

  it("refuses a file whose networkID is not --network-id's, naming both", () => {
    expect(() => resolveGenesis(1337, fileFor(custom(4242)))).toThrow(GenesisError);
    expect(() => resolveGenesis(1337, fileFor(custom(4242)))).toThrow(/network 4242, but --network-id is 1337/);
  });

  it("refuses a file for mainnet and fuji, as AvalancheGo does; accepts one for local", () => {
    expect(() => resolveGenesis(1, fileFor(custom(1)))).toThrow(/not accepted for network 1/);
    expect(() => resolveGenesis(5, fileFor(custom(5)))).toThrow(/not accepted for network 5/);
    expect(resolveGenesis(12345, fileFor(custom(12345)))!.origin).toMatch(/^--genesis-file /);
  });

  it("refuses what AvalancheGo's validateConfig refuses, and a file that is not there or not JSON", () => {
    expect(() =>
      resolveGenesis(
        1337,
        fileFor(
          custom(1337).replace(
            /"initialStakers": \[[\s\S]*?\],\n\t"cChainGenesis"/,
            '"initialStakers": [],\n\t"cChainGenesis"',
          ),
        ),
      ),
    ).toThrow(/initial stakers must be > 0/);
    expect(() => resolveGenesis(1337, fileFor("{"))).toThrow(/not JSON/);
    expect(() => resolveGenesis(1337, `${tempDir()}/none.json`)).toThrow(/unable to load genesis file/);
  });
});
