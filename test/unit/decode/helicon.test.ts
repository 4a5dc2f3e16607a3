/**
 * AvalancheGo's next P-chain types (Helicon, vms/platformvm/txs/codec.go RegisterHeliconTypes: 40
 * AddAutoRenewedValidatorTx, 41 SetAutoRenewedValidatorConfigTx, 42 RewardAutoRenewedValidatorTx) decode, in both
 * decoders: the index's block reader (src/decode/platformvm.ts) and the data API's (txCodec.ts), inside real blocks.
 */
import {describe, expect, it} from "vitest";
import {NETWORKS} from "../../../src/chains/index.js";
import {decodePlatformBlock, platformTx} from "../../../src/decode/platformvm.js";
import {decodeProposerBlock} from "../../../src/decode/proposervm.js";
import {Reader} from "../../../src/decode/reader.js";
import {tryDecodePrimaryContainer} from "../../../src/dataApi/views/primary/decode.js";
import {cb58Encode, idFromString} from "../../../src/util/cb58.js";
import {sha256} from "../../../src/util/sha256.js";
import {pChainBlocks, pHeliconTxs, seeded} from "../../helpers/pChain.js";

const network = NETWORKS.local;
const asset = idFromString("2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe");
const T0 = 1_700_000_000n;
const base = {networkId: network.id, pChainId: network.chainIds.P, asset};
const {add, config, reward} = pHeliconTxs({...base, cycleEnd: T0 + 1_209_600n});
const blocks = pChainBlocks([
  {time: T0, txs: [add, config]},
  {time: T0 + 1_209_600n, txs: [reward], kind: "proposal"},
  {time: T0 + 1_209_600n, txs: [], kind: "commit"},
]);

describe("Helicon P-chain transactions", () => {
  it("are read whole by the index's block decoder", () => {
    const named = [
      [add, "AddAutoRenewedValidatorTx"],
      [config, "SetAutoRenewedValidatorConfigTx"],
      [reward, "RewardAutoRenewedValidatorTx"],
    ] as const;
    for (const [bytes, name] of named) {
      const r = new Reader(bytes);
      r.u16();
      expect(platformTx(r)).toBe(name);
      expect(r.remaining).toBe(0);
    }
    const b = decodePlatformBlock(decodeProposerBlock(blocks[0]!.bytes).inner);
    expect(b.txTypes).toEqual(["AddAutoRenewedValidatorTx", "SetAutoRenewedValidatorConfigTx"]);
    expect(b.txIds.map(cb58Encode)).toEqual([cb58Encode(sha256(add)), cb58Encode(sha256(config))]);
  });

  it("decode into the data API's model: UTXOs, the stake as staked outputs, their fields", () => {
    const first = tryDecodePrimaryContainer("P", "block", blocks[0]!.bytes, {containerId: blocks[0]!.id});
    if (!first.ok) throw new Error(first.error);
    const [a, c] = first.container.txs;
    expect(a!.txType).toBe("AddAutoRenewedValidatorTx");
    expect(a!.outputs.map((o) => [o.amount, o.staked])).toEqual([
      [5n, false],
      [2_000_000_000_000n, true],
    ]);
    expect(a!.details.staker).toBeUndefined();
    const fields = {delegationShares: 20_000, autoCompoundRewardShares: 300_000, period: "1209600"};
    expect(a!.details.extra?.validatorAuthorityThreshold).toBe(1);
    expect(a!.details.extra).toMatchObject(fields);
    const key = Buffer.concat([seeded("bls-key").subarray(0, 32), seeded("bls-key", 1).subarray(0, 16)]);
    expect(a!.details.extra?.blsCredentials).toMatchObject({publicKey: key.toString("hex")});
    expect(c!.txType).toBe("SetAutoRenewedValidatorConfigTx");
    expect(c!.details.extra).toMatchObject({stakerTxId: a!.id, autoCompoundRewardShares: 1_000_000, period: "2419200"});
    const second = tryDecodePrimaryContainer("P", "block", blocks[1]!.bytes, {containerId: blocks[1]!.id});
    if (!second.ok) throw new Error(second.error);
    const rewardExtra = {stakerTxId: a!.id, timestamp: String(T0 + 1_209_600n)};
    const rewards = second.container.txs.map((t) => [t.txType, t.details.extra]);
    expect(rewards).toEqual([["RewardAutoRenewedValidatorTx", rewardExtra]]);
    expect(second.container.txs[0]!.details.rewardedTxId).toBeUndefined();
  });
});
