/**
 * The dev network's own staking, as `npm start` runs it (defaultDevFeedOptions: a week backfilled at 5-minute ticks,
 * then a tick every 2 seconds):
 * - the schedule (src/dev/staking.ts) walked over the backfill and 12 days of live ticks (and at other paces):
 *   at every tick from the second on, some validator and some delegator it added await their reward, and every
 *   staker keeps AvalancheGo's local-network rules;
 * - the network's real transactions (src/dev/primaryNetwork.ts) decoded over the backfill and live ticks past a
 *   validator's start: AddPermissionlessValidatorTx with valid BLS proofs of possession, NodeIDs of real
 *   certificates, delegations within their validators' periods and weight limits, each period ended by a
 *   RewardValidatorTx in a proposal block at the staker's end time, in AvalancheGo's order, then its commit, and
 *   the invariant again at every tick, read from the decoded transactions alone.
 */
import {X509Certificate, createHash} from "node:crypto";
import {describe, expect, it} from "vitest";
import {bls12_381} from "@noble/curves/bls12-381.js";
import {NETWORKS} from "../../../src/chains/index.js";
import {decodeSignedTx} from "../../../src/dataApi/views/primary/txCodec.js";
import {DevPrimaryNetwork, LOCAL_VALIDATORS, devStakers} from "../../../src/dev/primaryNetwork.js";
import {DEV_STAKING, DevStakingSchedule} from "../../../src/dev/staking.js";
import {defaultDevFeedOptions, devGenesisTime, devTickTimes} from "../../../src/dev/feed.js";
import {cb58Encode} from "../../../src/util/cb58.js";

const NANO = 1_000_000_000n;
const DAY = 86_400n;
/** genesis/genesis_local.go LocalParams; MaxValidatorWeightFactor of txs/executor. */
const LOCAL = {
  minValidatorStake: 2_000n * NANO,
  maxValidatorStake: 3_000_000n * NANO,
  minDelegatorStake: 25n * NANO,
  minDelegationFee: 20_000,
  minDuration: DAY,
  maxDuration: 365n * DAY,
  weightFactor: 5n,
};

/** The tick times (seconds) `npm start` gives a schedule started now, as DevFeed computes them. */
function npmStartTimes(
  backfillMs = defaultDevFeedOptions.backfillMs,
  nowMs = 1_764_600_000_000,
): {genesis: bigint; time: (t: number) => bigint; backfillTicks: number} {
  const o = {...defaultDevFeedOptions, backfillMs};
  const backfillTicks = Math.floor(o.backfillMs / o.backfillStepMs);
  const startMs = nowMs - backfillTicks * o.backfillStepMs;
  const at = devTickTimes(o, startMs, nowMs);
  return {genesis: devGenesisTime(startMs), time: (t) => BigInt(Math.floor(at(t) / 1000)), backfillTicks};
}

interface Staker {
  kind: "validator" | "delegator";
  tick: number;
  start: bigint;
  end: bigint;
  weight: bigint;
  node: string;
}

/** At the end of tick t (time): the stakers added at or before t not yet ended (a reward comes at the first tick at or after the end). */
function pendingAt(stakers: Staker[], t: number, time: bigint): {validators: number; delegators: number} {
  const live = stakers.filter((s) => s.tick <= t && s.end > time);
  return {
    validators: live.filter((s) => s.kind === "validator").length,
    delegators: live.filter((s) => s.kind === "delegator").length,
  };
}

/** AvalancheGo's checks of a new staker against the others (staker_tx_verification.go), on the dev stakers alone. */
function checkRules(all: Staker[], s: Staker): void {
  const duration = s.end - s.start;
  expect(duration).toBeGreaterThanOrEqual(LOCAL.minDuration);
  expect(duration).toBeLessThanOrEqual(LOCAL.maxDuration);
  const current = all.filter((x) => x !== s && x.start <= s.start && x.end > s.start);
  if (s.kind === "validator") {
    expect(s.weight).toBeGreaterThanOrEqual(LOCAL.minValidatorStake);
    expect(s.weight).toBeLessThanOrEqual(LOCAL.maxValidatorStake);
    expect(
      current.some((x) => x.kind === "validator" && x.node === s.node),
      `${s.node} validates twice`,
    ).toBe(false);
    return;
  }
  expect(s.weight).toBeGreaterThanOrEqual(LOCAL.minDelegatorStake);
  const v = current.find((x) => x.kind === "validator" && x.node === s.node);
  expect(v, `delegation to ${s.node} without a current validator`).toBeDefined();
  // BoundedBy: within the validator's period.
  expect(s.start).toBeGreaterThanOrEqual(v!.start);
  expect(s.end).toBeLessThanOrEqual(v!.end);
  // overDelegated, bounded above by the sum of every delegation overlapping the new one.
  const delegated = all
    .filter(
      (x) => x.kind === "delegator" && x.node === s.node && x.tick <= s.tick && x.end > s.start && x.start < s.end,
    )
    .reduce((a, x) => a + x.weight, 0n);
  const max =
    LOCAL.weightFactor * v!.weight < LOCAL.maxValidatorStake ? LOCAL.weightFactor * v!.weight : LOCAL.maxValidatorStake;
  expect(v!.weight + delegated).toBeLessThanOrEqual(max);
}

describe("the dev network's staking schedule", () => {
  it("keeps a validator and a delegator it added pending at every tick of npm start: the backfill, then 12 days live", () => {
    const {genesis, time, backfillTicks} = npmStartTimes();
    const liveTicks = 12 * 43_200; // 12 days of 2-second ticks: four turns of the four nodes
    const schedule = new DevStakingSchedule(genesis);
    const stakers: Staker[] = [];
    let rewarded = 0;
    let minimum = {validators: Infinity, delegators: Infinity};
    const failures: string[] = [];
    for (let t = 0; t < backfillTicks + liveTicks; t++) {
      const now = time(t);
      const plan = schedule.at(t, now);
      const added: Staker[] = [];
      if (plan.validation)
        added.push({
          kind: "validator",
          tick: t,
          start: now,
          end: plan.validation.end,
          weight: plan.validation.stake,
          node: String(plan.validation.node),
        });
      for (const d of plan.delegations)
        added.push({
          kind: "delegator",
          tick: t,
          start: d.start,
          end: d.end,
          weight: d.stake,
          node: String(d.validation.node),
        });
      for (const s of added) {
        stakers.push(s);
        checkRules(stakers, s);
      }
      if (plan.validation) expect(DEV_STAKING.shares).toContain(plan.validation.shares);
      // Forget long-ended stakers, so the walk stays linear.
      if (t % 10_000 === 0) stakers.splice(0, stakers.length, ...stakers.filter((s) => s.end + 10n * DAY > now));
      rewarded += stakers.filter((s) => s.end <= now && s.end > time(t - 1)).length;
      if (t === 0) continue; // the first delegation comes at the second tick
      // Checked without expect() per tick (half a million ticks): the failures are listed at the end.
      const p = pendingAt(stakers, t, now);
      if (p.validators < 1 || p.delegators < 1) failures.push(`tick ${t}: ${JSON.stringify(p)}`);
      minimum = {
        validators: Math.min(minimum.validators, p.validators),
        delegators: Math.min(minimum.delegators, p.delegators),
      };
    }
    expect(failures.slice(0, 5)).toEqual([]);
    // Periods end (with rewards) all along: 19 days, a validator each day, two delegators each.
    expect(rewarded).toBeGreaterThan(40);
    expect(minimum).toEqual({validators: 1, delegators: 1});
  }, 120_000);

  it("keeps the invariant at other paces, down to ticks hours apart", () => {
    const failures: string[] = [];
    for (const step of [60n, 3_600n, 6n * 3_600n]) {
      const genesis = 1_700_000_000n;
      const schedule = new DevStakingSchedule(genesis);
      const stakers: Staker[] = [];
      const ticks = Number((20n * DAY) / step);
      for (let t = 0; t < ticks; t++) {
        const now = genesis + 60n + BigInt(t) * step;
        const plan = schedule.at(t, now);
        if (plan.validation)
          stakers.push({
            kind: "validator",
            tick: t,
            start: now,
            end: plan.validation.end,
            weight: plan.validation.stake,
            node: String(plan.validation.node),
          });
        for (const d of plan.delegations)
          stakers.push({
            kind: "delegator",
            tick: t,
            start: d.start,
            end: d.end,
            weight: d.stake,
            node: String(d.validation.node),
          });
        if (t % 10_000 === 0) stakers.splice(0, stakers.length, ...stakers.filter((s) => s.end + 10n * DAY > now));
        if (t === 0) continue;
        const p = pendingAt(stakers, t, now);
        if (p.validators < 1 || p.delegators < 1) failures.push(`step ${step}, tick ${t}: ${JSON.stringify(p)}`);
      }
    }
    expect(failures.slice(0, 5)).toEqual([]);
  }, 120_000);
});

describe("the dev network's staking transactions", () => {
  const stakerNodes = devStakers();

  it("derives its nodes' IDs from real certificates and gives them valid BLS proofs of possession", () => {
    const ids = new Set<string>();
    for (const s of stakerNodes) {
      const cert = new X509Certificate(Buffer.from(s.certificate));
      expect(cert.verify(cert.publicKey)).toBe(true);
      const id = createHash("ripemd160").update(createHash("sha256").update(s.certificate).digest()).digest();
      expect(s.nodeId).toBe(`NodeID-${cb58Encode(id)}`);
      expect(LOCAL_VALIDATORS).not.toContain(s.nodeId);
      ids.add(s.nodeId);
      const bls = bls12_381.longSignatures;
      const pk = Buffer.from(s.bls.credentials.publicKey, "hex");
      expect(Buffer.from(bls.getPublicKey(s.bls.secretKey).toBytes(true)).equals(pk)).toBe(true);
      const pop = bls12_381.G2.Point.fromBytes(Buffer.from(s.bls.credentials.proofOfPossession, "hex"));
      expect(
        bls.verify(pop, bls.hash(pk, "BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"), bls12_381.G1.Point.fromBytes(pk)),
      ).toBe(true);
    }
    expect(ids.size).toBe(4);
  });

  it("stakes by AvalancheGo's rules and rewards every period in order, with stakers pending at every tick", () => {
    // Half an hour less backfill than npm start's week, so that the eighth validator's day begins 29 minutes into
    // the live ticks (with the full week it begins a day in, 43,000 ticks later).
    const {genesis, time, backfillTicks} = npmStartTimes(defaultDevFeedOptions.backfillMs - 1_800_000);
    const net = new DevPrimaryNetwork(NETWORKS.local, genesis);
    const ownNodes = new Set(stakerNodes.map((s) => s.nodeId));
    const keys = new Map(stakerNodes.map((s) => [s.nodeId, s.bls.credentials.publicKey]));
    const stakers = new Map<string, Staker & {priority: number}>();
    let ownRewards = 0;
    const liveTicks = 1_000;
    let liveValidators = 0;
    const failures: string[] = [];
    for (let t = 0; t < backfillTicks + liveTicks; t++) {
      const now = time(t);
      const tick = net.tick(t, now);
      for (const b of tick.pBlocks) {
        for (const bytes of b.txs) {
          const tx = decodeSignedTx("P", bytes);
          const st = tx.details.staker;
          if (tx.txType === "AddPermissionlessValidatorTx" && st) {
            expect(b.kind).toBe("standard");
            expect(ownNodes.has(st.nodeId), st.nodeId).toBe(true);
            expect(st.bls?.publicKey).toBe(keys.get(st.nodeId));
            expect(st.delegationShares).toBeGreaterThanOrEqual(LOCAL.minDelegationFee);
            const s = {
              kind: "validator" as const,
              tick: t,
              start: b.time,
              end: st.endTime,
              weight: st.weight,
              node: st.nodeId,
              priority: 1,
            };
            checkRules([...stakers.values()], s);
            stakers.set(tx.id, s);
            if (t >= backfillTicks) liveValidators++;
          }
          if (tx.txType === "AddPermissionlessDelegatorTx" && st && ownNodes.has(st.nodeId)) {
            const s = {
              kind: "delegator" as const,
              tick: t,
              start: b.time,
              end: st.endTime,
              weight: st.weight,
              node: st.nodeId,
              priority: 0,
            };
            checkRules([...stakers.values()], {...s});
            stakers.set(tx.id, s);
          }
          if (tx.txType === "RewardValidatorTx") {
            expect(b.kind).toBe("proposal");
            const id = (tx.details as {rewardedTxId?: string}).rewardedTxId!;
            const s = stakers.get(id);
            if (!s) continue; // a delegation to a genesis validator
            // The current staker set's head: the earliest end, delegators first, then by tx ID.
            const head = [...stakers.entries()].sort(([ia, a], [ib, b]) =>
              a.end < b.end
                ? -1
                : a.end > b.end
                  ? 1
                  : a.priority - b.priority || Buffer.compare(Buffer.from(ia), Buffer.from(ib)),
            )[0]!;
            expect(head[0]).toBe(id);
            expect(b.time).toBe(s.end);
            expect(s.end).toBeLessThanOrEqual(now);
            stakers.delete(id);
            ownRewards++;
          }
        }
        if (b.kind === "proposal") expect(tick.pBlocks[tick.pBlocks.indexOf(b) + 1]?.kind).toBe("commit");
      }
      // Nothing overdue stays: every period that ended by now was rewarded in this tick.
      for (const s of stakers.values())
        if (s.end <= now) failures.push(`tick ${t}: a staker ended at ${s.end} is not rewarded`);
      if (t === 0) continue;
      const p = pendingAt([...stakers.values()], t, now);
      if (p.validators < 1 || p.delegators < 1) failures.push(`tick ${t}: ${JSON.stringify(p)}`);
    }
    expect(failures.slice(0, 5)).toEqual([]);
    // A week: validators of days 0-3 and their delegators ended, with their rewards.
    expect(ownRewards).toBeGreaterThanOrEqual(4 * 3);
    expect(liveValidators).toBe(1);
  }, 120_000);
});
