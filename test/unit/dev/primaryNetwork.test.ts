/**
 * The dev network's primary-network activity: a week of ticks decoded by the data API's decoder. Every transaction
 * decodes, its credentials recover to the keys that own what it spends, no UTXO is spent twice or spent before it
 * exists, amounts balance less the fee, every kind of transaction occurs, and the schedule is deterministic (what a
 * restart replays is byte for byte what ran).
 */
import {describe, expect, it} from "vitest";
import {createHash} from "node:crypto";
import {NETWORKS} from "../../../src/chains/index.js";
import {decodeSignedTx} from "../../../src/dataApi/views/primary/txCodec.js";
import type {PrimaryTx} from "../../../src/dataApi/views/primary/model.js";
import {
  GENESIS_STAKE,
  DevPrimaryNetwork,
  devKeys,
  LOCAL_VALIDATORS,
  localSigner,
} from "../../../src/dev/primaryNetwork.js";
import {devGenesisText} from "../../../src/dev/genesis.js";
import {builtInGenesisText} from "../../../src/genesis/files.js";
import {genesisFromText} from "../../../src/genesis/resolve.js";

/** AvalancheGo's local AVAX asset ID (genesis/genesis_test.go TestAVAXAssetID): the dev network's too. */
const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";

const network = NETWORKS.local;
const START = 1_700_000_000n;
const TICKS = 7 * 288; // a week of 5-minute ticks

function run(): Array<{chain: "P" | "X" | "C"; tx: Uint8Array; tick: number}> {
  const net = new DevPrimaryNetwork(network, START - 60n);
  const out: Array<{chain: "P" | "X" | "C"; tx: Uint8Array; tick: number}> = [];
  for (let t = 0; t < TICKS; t++) {
    const tick = net.tick(t, START + BigInt(t) * 300n);
    for (const b of tick.pBlocks) for (const tx of b.txs) out.push({chain: "P", tx, tick: t});
    for (const tx of tick.xTxs) out.push({chain: "X", tx, tick: t});
    if (tick.cAtomic) out.push({chain: "C", tx: tick.cAtomic, tick: t});
  }
  return out;
}

const ripemd = (b: Uint8Array): string =>
  createHash("ripemd160").update(createHash("sha256").update(b).digest()).digest("hex");

describe("dev network primary-network activity", () => {
  const txs = run();
  const decoded: PrimaryTx[] = txs.map(({chain, tx}) => decodeSignedTx(chain, tx));

  it("stakes the genesis with AvalancheGo's five local validators and their signer keys", () => {
    // AvalancheGo's genesis_local.json: signer1's public key and proof of possession.
    expect(localSigner(1).credentials).toEqual({
      publicKey: "900c9b119b5c82d781d4b49be78c3fc7ae65f2b435b7ed9e3a8b9a03e475edff86d8a64827fec8db23a6f236afbf127d",
      proofOfPossession:
        "8bfd6d4d2086b2b8115d8f72f94095fefe5a6c07876b2accf51a811adf520f389e74a3d2152a6d90b521e2be58ffe468043dc5ea68b4c44410eb67f8dc24f13ed4f194000764c0e922cd254a3588a4962b1cb4db7de4bb9cda9d9d4d6b03f3d2",
    });
    const g = new DevPrimaryNetwork(network, START).genesis();
    expect([...g.stakers].map((s) => s.staker.nodeId).sort()).toEqual([...LOCAL_VALIDATORS].sort());
    const byNode = new Map([...g.stakers].map((s) => [s.staker.nodeId, s.staker]));
    expect(LOCAL_VALIDATORS.map((n) => byNode.get(n)!.bls!.publicKey)).toEqual(
      [1, 2, 3, 4, 5].map((n) => localSigner(n).credentials.publicKey),
    );
    // genesis_local.json's stake: 10,000,000 AVAX over the five, from the dev network's genesis time.
    for (const s of g.stakers) {
      expect(s.staker.weight).toBe(GENESIS_STAKE);
      expect(s.staker.startTime).toBe(START);
    }
    expect(g.timestamp).toBe(START);
  });

  it("starts from genesis_local.json with its own start time: AvalancheGo's local chain IDs and AVAX", () => {
    const text = devGenesisText(network.id, START);
    const local = builtInGenesisText(network.id)!;
    // Only the start time differs from AvalancheGo's file.
    expect(text.replace(/"startTime":\s*\d+/, "")).toBe(local.replace(/"startTime":\s*\d+/, ""));
    const g = genesisFromText(text, "dev").build();
    expect(g.avaxAssetId).toBe(AVAX);
    expect(g.chainIds).toEqual(network.chainIds);
    expect(new DevPrimaryNetwork(network, START).genesis()).toEqual(g.state);
    // ewoq (the dev wallet's first key) holds X and P funds there.
    const ewoq = Buffer.from(devKeys()[0]!.address).toString("hex");
    const own = [...g.state.utxos].filter((u) => Buffer.from(u.output.owner.addresses[0]!).toString("hex") === ewoq);
    expect(own.filter((u) => u.chain === "X").reduce((a, u) => a + u.output.amount, 0n)).toBe(300_000_000_000_000_000n);
    expect(own.filter((u) => u.chain === "P").reduce((a, u) => a + u.output.amount, 0n)).toBe(30_000_000_000_000_000n);
  });

  it("is deterministic: a replay gives the same bytes", () => {
    const again = run();
    expect(again.length).toBe(txs.length);
    for (let i = 0; i < txs.length; i++) expect(Buffer.compare(again[i]!.tx, txs[i]!.tx)).toBe(0);
  });

  it("issues every kind of transaction the dev network promises", () => {
    const kinds = new Map<string, number>();
    for (const d of decoded) kinds.set(`${d.chain}:${d.txType}`, (kinds.get(`${d.chain}:${d.txType}`) ?? 0) + 1);
    for (const k of [
      "X:BaseTx",
      "X:ExportTx",
      "X:CreateAssetTx",
      "P:ImportTx",
      "P:BaseTx",
      "P:AddPermissionlessDelegatorTx",
      "P:RewardValidatorTx",
      "P:CreateSubnetTx",
      "P:CreateChainTx",
      "X:ImportTx",
      "C:ImportTx",
      "C:ExportTx",
      "P:ConvertSubnetToL1Tx",
      "P:IncreaseL1ValidatorBalanceTx",
      "P:DisableL1ValidatorTx",
      "P:AddPermissionlessValidatorTx",
      "P:RegisterL1ValidatorTx",
      "P:SetL1ValidatorWeightTx",
    ]) {
      expect(kinds.get(k) ?? 0, k).toBeGreaterThan(0);
    }
  });

  it("spends only UTXOs that exist and are unspent, with the owners' signatures, and balances amounts", () => {
    const net = new DevPrimaryNetwork(network, START - 60n);
    const unspent = new Map<string, {amount: bigint; owner: string}>();
    for (const u of net.genesis().utxos)
      unspent.set(u.output.utxoId, {
        amount: u.output.amount,
        owner: Buffer.from(u.output.owner.addresses[0]!).toString("hex"),
      });
    for (const d of decoded) {
      const inSum = new Map<string, bigint>();
      for (const i of d.inputs) {
        const u = unspent.get(i.utxoId);
        expect(u, `${d.txType} ${d.id} spends ${i.utxoId}`).toBeDefined();
        unspent.delete(i.utxoId);
        expect(i.amount).toBe(u!.amount);
        // The credential recovers to the key that owns the UTXO.
        expect(i.credentials.map((c) => (c.publicKey ? ripemd(c.publicKey) : null))).toEqual([u!.owner]);
        inSum.set(i.assetId, (inSum.get(i.assetId) ?? 0n) + i.amount);
      }
      const outSum = new Map<string, bigint>();
      for (const o of d.evmOutputs) outSum.set(o.assetId, (outSum.get(o.assetId) ?? 0n) + o.amount);
      for (const o of d.outputs) {
        outSum.set(o.assetId, (outSum.get(o.assetId) ?? 0n) + o.amount);
        // Exported outputs become spendable on the destination chain; every other output on this one.
        unspent.set(o.utxoId, {amount: o.amount, owner: Buffer.from(o.owner.addresses[0]!).toString("hex")});
      }
      if (d.inputs.length === 0) continue; // RewardValidatorTx spends nothing
      // AVAX that funds L1 validators' balances leaves the UTXO set.
      const funded = d.txType === "IncreaseL1ValidatorBalanceTx" || d.txType === "RegisterL1ValidatorTx";
      const l1 =
        (d.details.conversion?.validators ?? []).reduce((a, v) => a + v.balance, 0n) +
        (funded ? (d.details.l1Validator?.balance ?? 0n) : 0n);
      for (const [asset, amount] of inSum) {
        const fee = asset === AVAX ? 1_000_000n + l1 : 0n;
        expect(outSum.get(asset) ?? 0n, `${d.txType} ${asset}`).toBe(amount - fee);
      }
    }
  });
});
