/**
 * The ACP-77 continuous fee (AvalancheGo's gas.CalculatePrice, fee.State.AdvanceTime/CostOf/SecondsRemaining and
 * advanceValidatorFeeState) with numbers worked by hand, and an L1 validator's life through its five transactions.
 */
import {describe, expect, it} from "vitest";
import {
  INITIAL_L1_FEE_STATE,
  activeL1Validators,
  advanceExcess,
  advanceL1Fees,
  advanceL1Time,
  calculatePrice,
  convertSubnetToL1,
  costOf,
  deactivatedBy,
  disableL1Validator,
  increaseL1ValidatorBalance,
  registerL1Validator,
  remainingBalance,
  remainingBalanceAt,
  secondsRemaining,
  setL1ValidatorWeight,
} from "../../../../../src/dataApi/views/primary/l1.js";
import type {L1Validator, Owner} from "../../../../../src/dataApi/views/primary/model.js";
import {networkConfigFor} from "../../../../../src/dataApi/views/primary/networkConfig.js";

const MAX_U64 = (1n << 64n) - 1n;
const mainnet = networkConfigFor(1);
const fuji = networkConfigFor(5);
const fee = mainnet.l1ValidatorFee;
// A small config whose prices are easy to work by hand: price(x) = 10 × e^(x/10), fake-exponential truncated.
const small = {capacity: 4n, target: 1n, minPrice: 10n, excessConversionConstant: 10n};

describe("calculatePrice", () => {
  it("is minPrice with no excess", () => {
    expect(calculatePrice(512n, 0n, fee.excessConversionConstant)).toBe(512n);
  });

  it("follows the fake exponential's truncated terms", () => {
    // e^2 with factor 1, k 1: terms 1, 2, 2, 1, then 1 × 2 / 4 = 0: 6.
    expect(calculatePrice(1n, 2n, 1n)).toBe(6n);
    // 10 × e^(x/10): terms 100, 10 → 11 at x = 1; 100, 20, 2 → 12 at x = 2; 100, 30, 4 → 13 at x = 3.
    expect([1n, 2n, 3n].map((x) => calculatePrice(10n, x, 10n))).toEqual([11n, 12n, 13n]);
  });

  it("doubles over a day (mainnet) or an hour (fuji) at capacity, as the genesis comments say", () => {
    expect(calculatePrice(512n, (fee.capacity - fee.target) * 86_400n, fee.excessConversionConstant)).toBe(1024n);
    const f = fuji.l1ValidatorFee;
    expect(calculatePrice(512n, (f.capacity - f.target) * 3_600n, f.excessConversionConstant)).toBe(1024n);
  });

  it("saturates at 2^64 − 1, and is 0 for a zero conversion constant (Go's uint256 division by zero)", () => {
    expect(calculatePrice(MAX_U64, MAX_U64, 1n)).toBe(MAX_U64);
    expect(calculatePrice(512n, 5n, 0n)).toBe(0n);
  });
});

describe("fee state", () => {
  it("advances the excess by (current − target) × seconds, saturating", () => {
    expect(advanceExcess(100n, 3n, 1n, 10n)).toBe(120n);
    expect(advanceExcess(100n, 0n, 1n, 10n)).toBe(90n);
    expect(advanceExcess(5n, 0n, 1n, 10n)).toBe(0n);
    expect(advanceExcess(7n, 1n, 1n, 10n)).toBe(7n);
    expect(advanceExcess(MAX_U64 - 1n, 2n, 1n, 10n)).toBe(MAX_U64);
  });

  it("costs each second at the price after that second's excess", () => {
    // Two active over a target of one: excess 1, 2, 3 → 11 + 12 + 13.
    expect(costOf(small, 2n, 0n, 3n)).toBe(36n);
    // None active, excess 2: 1 → 11, then 0 → minPrice for the 2 seconds left: 11 + 20.
    expect(costOf(small, 0n, 2n, 3n)).toBe(31n);
    // At the target the price holds: 3 × 13.
    expect(costOf(small, 1n, 3n, 3n)).toBe(39n);
    expect(costOf(fee, 0n, 0n, 100n)).toBe(51_200n);
  });

  it("tells how long funds last", () => {
    expect(secondsRemaining(small, 2n, 0n, 100n, 36n)).toBe(3n);
    expect(secondsRemaining(small, 2n, 0n, 100n, 35n)).toBe(2n);
    expect(secondsRemaining(small, 1n, 0n, 100n, 95n)).toBe(9n);
    expect(secondsRemaining(small, 0n, 2n, 100n, 31n)).toBe(3n); // 11, then 20 pays 2 s at minPrice
    expect(secondsRemaining(small, 0n, 2n, 2n, 1_000n)).toBe(2n);
  });

  it("accrues one validator's cost between blocks from Etna on, the first Etna block counting from its parent", () => {
    const s = {excess: 0n, accruedFees: 1_000n};
    expect(advanceL1Fees(fee, mainnet.etnaTime, s, 3n, mainnet.etnaTime - 100n, mainnet.etnaTime - 1n)).toBe(s);
    expect(advanceL1Fees(fee, mainnet.etnaTime, s, 3n, mainnet.etnaTime - 100n, mainnet.etnaTime + 50n)).toEqual({
      excess: 0n,
      accruedFees: 1_000n + 150n * 512n,
    });
    expect(advanceL1Fees(small, 0n, s, 2n, 10n, 13n)).toEqual({excess: 3n, accruedFees: 1_036n});
  });
});

describe("an L1 validator's life", () => {
  const owner: Owner = {locktime: 0n, threshold: 1, addresses: [new Uint8Array(20).fill(4)]};
  const v = (n: number, balance: bigint): L1Validator => ({
    validationId: `v${n}`,
    nodeId: `NodeID-${n}`,
    weight: 100n,
    balance,
    bls: null,
    remainingBalanceOwner: owner,
    deactivationOwner: owner,
  });
  const t = mainnet.etnaTime + 1_000n;

  it("converts, charges, runs out, is topped up, reweighted, disabled and removed", () => {
    let state = {excess: 0n, accruedFees: 5_000n};
    const [a, b] = convertSubnetToL1(state, {subnetId: "S", validators: [v(0, 1_000_000n), v(1, 0n)]}, t);
    expect(a).toMatchObject({subnetId: "S", startTime: t, minNonce: 0n, endAccumulatedFee: 1_005_000n});
    expect(b!.endAccumulatedFee).toBe(0n);
    expect(activeL1Validators([a!, b!])).toBe(1);

    // 1,000 s with one active validator at 512 nAVAX/s.
    let step = advanceL1Time(fee, mainnet.etnaTime, state, [a!, b!], t, t + 1_000n);
    state = step.fee;
    expect(state.accruedFees).toBe(517_000n);
    expect(step.deactivated).toEqual([]);
    expect(remainingBalance(a!, state.accruedFees)).toBe(488_000n);
    expect(remainingBalanceAt(fee, mainnet.etnaTime, a!, state, 1n, t + 1_000n, t + 1_010n)).toBe(482_880n);

    // 1,000 s more: 1,029,000 accrued passes its 1,005,000: deactivated, nothing left.
    step = advanceL1Time(fee, mainnet.etnaTime, state, [a!], t + 1_000n, t + 2_000n);
    state = step.fee;
    expect(step.deactivated).toEqual([{...a!, endAccumulatedFee: 0n}]);
    const off = step.deactivated[0]!;
    expect(remainingBalance(off, state.accruedFees)).toBe(0n);

    // Topped up while inactive: funded from the accrued fees now; again while active: added on.
    const on = increaseL1ValidatorBalance(state, off, 10_000n);
    expect(on.endAccumulatedFee).toBe(1_039_000n);
    expect(increaseL1ValidatorBalance(state, on, 1n).endAccumulatedFee).toBe(1_039_001n);

    const reweighted = setL1ValidatorWeight(state, on, {nonce: 7n, weight: 50n}, 2);
    expect(reweighted).toEqual({record: {...on, weight: 50n, minNonce: 8n}, refund: null});

    const disabled = disableL1Validator(state, on, 1);
    expect(disabled.record.endAccumulatedFee).toBe(0n);
    expect(disabled.refund).toEqual({outputIndex: 1, owner, amount: 10_000n});
    expect(disableL1Validator(state, disabled.record, 1).refund).toBeNull();

    expect(setL1ValidatorWeight(state, on, {nonce: 9n, weight: 0n}, 3)).toEqual({
      record: null,
      refund: {outputIndex: 3, owner, amount: 10_000n},
    });
    expect(setL1ValidatorWeight(state, disabled.record, {nonce: 9n, weight: 0n}, 3)).toEqual({
      record: null,
      refund: null,
    });
  });

  it("registers a validator funded from the accrued fees at its registration", () => {
    const r = registerL1Validator({excess: 0n, accruedFees: 42n}, {subnetId: "S", validator: v(2, 8n)}, t);
    expect(r).toMatchObject({validationId: "v2", startTime: t, endAccumulatedFee: 50n, weight: 100n});
    expect(registerL1Validator(INITIAL_L1_FEE_STATE, {subnetId: "S", validator: v(3, 0n)}, t).endAccumulatedFee).toBe(
      0n,
    );
  });

  it("deactivates exactly those whose end fee the accrued fees reached", () => {
    const recs = [10n, 20n, 0n, 21n].map((e, i) => ({
      ...registerL1Validator(INITIAL_L1_FEE_STATE, {subnetId: "S", validator: v(i, 1n)}, t),
      endAccumulatedFee: e,
    }));
    expect(deactivatedBy(recs, 20n).map((r) => r.validationId)).toEqual(["v0", "v1"]);
  });
});
