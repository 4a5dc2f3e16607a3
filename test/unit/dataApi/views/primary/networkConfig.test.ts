/**
 * The per-network parameters against AvalancheGo's genesis params and upgrade times, and the genesis supply
 * constants against a fold of local's genesis stakers (genesis_local.json: five stakers of 2M AVAX each, a 365-day
 * stake shortened by 5,400 s per staker).
 */
import {describe, expect, it} from "vitest";
import {
  GENESIS_INITIAL_SUPPLY,
  GENESIS_SUPPLY_AFTER_STAKERS,
  networkConfigFor,
} from "../../../../../src/dataApi/views/primary/networkConfig.js";
import {genesisStakers} from "../../../../../src/dataApi/views/primary/stakers.js";
import {EMPTY_ID, idToString} from "../../../../../src/util/cb58.js";

const AVAX = 1_000_000_000n;
const DAY = 86_400n;
const utc = (s: string): bigint => BigInt(Date.parse(s) / 1000);

describe("networkConfigFor", () => {
  it("gives mainnet's staking params and upgrade times", () => {
    const c = networkConfigFor(1);
    expect(c).toMatchObject({
      minStakeDuration: 14n * DAY,
      maxStakeDuration: 365n * DAY,
      minValidatorStake: 2_000n * AVAX,
      maxValidatorStake: 3_000_000n * AVAX,
      minDelegatorStake: 25n * AVAX,
      minDelegationFee: 20_000,
      maxValidatorWeightFactor: 5n,
    });
    expect(c.cortinaTime).toBe(utc("2023-04-25T15:00:00Z"));
    expect(c.durangoTime).toBe(utc("2024-03-06T16:00:00Z"));
    expect(c.etnaTime).toBe(utc("2024-12-16T17:00:00Z"));
    expect(c.heliconTime).toBe(utc("9999-12-01T00:00:00Z"));
    expect(c.l1ValidatorFee).toEqual({
      capacity: 20_000n,
      target: 10_000n,
      minPrice: 512n,
      excessConversionConstant: 1_246_488_515n,
    });
  });

  it("gives fuji's", () => {
    const c = networkConfigFor(5);
    expect(c).toMatchObject({minStakeDuration: DAY, minValidatorStake: AVAX, minDelegatorStake: AVAX});
    expect(c.cortinaTime).toBe(utc("2023-04-06T15:00:00Z"));
    expect(c.durangoTime).toBe(utc("2024-02-13T16:00:00Z"));
    expect(c.etnaTime).toBe(utc("2024-11-25T16:00:00Z"));
    expect(c.l1ValidatorFee.excessConversionConstant).toBe(51_937_021n);
  });

  it("gives local's to local, the dev network and any other network, every upgrade active from 2020-12-05", () => {
    for (const id of [12345, 1337, 99]) {
      const c = networkConfigFor(id);
      expect(c.networkId).toBe(id);
      expect(c.durangoTime).toBe(utc("2020-12-05T05:00:00Z"));
      expect(c.etnaTime).toBe(c.durangoTime);
      expect(c.l1ValidatorFee).toEqual({
        capacity: 20_000n,
        target: 10_000n,
        minPrice: 1n,
        excessConversionConstant: 865_617n,
      });
    }
    expect(networkConfigFor(1).reward).toEqual(networkConfigFor(12345).reward);
  });
});

describe("genesis supply", () => {
  it("reaches local's supply after its stakers by folding them in the genesis heap's order", () => {
    const start = 1_721_016_000n;
    const stakers = [0, 1, 2, 3, 4].map((i) => ({
      txId: idToString(new Uint8Array(32).fill(i + 1)),
      staker: {
        kind: "validator" as const,
        nodeId: `NodeID-${i}`,
        subnetId: EMPTY_ID,
        startTime: start,
        endTime: start + 365n * DAY - BigInt(i) * 5_400n,
        weight: 2_000_000n * AVAX,
        rewardOwner: null,
        delegationRewardOwner: null,
        delegationShares: 1_000_000,
        bls: null,
      },
    }));
    // Pushing ends e0 > e1 > e2 > e3 > e4 into a min-heap leaves the array [e4, e3, e1, e0, e2].
    const order = [4, 3, 1, 0, 2].map((i) => stakers[i]!);
    const out = genesisStakers(GENESIS_INITIAL_SUPPLY[12345]!, order, networkConfigFor(12345));
    expect(out.supply).toBe(GENESIS_SUPPLY_AFTER_STAKERS[12345]);
    // The order matters: in push order the total differs.
    expect(genesisStakers(GENESIS_INITIAL_SUPPLY[12345]!, stakers, networkConfigFor(12345)).supply).not.toBe(
      out.supply,
    );
  });

  it("has mainnet's allocations 9,790 nAVAX under 360M AVAX", () => {
    expect(360_000_000n * AVAX - GENESIS_INITIAL_SUPPLY[1]!).toBe(9_790n);
    expect(GENESIS_INITIAL_SUPPLY[5]).toBe(360_000_000n * AVAX);
  });
});
