/**
 * When the dev network's own nodes stake (src/dev/primaryNetwork.ts issues the transactions): a pure schedule of
 * chain time, so the same at any tick pace. The rules are the local network's (`genesis/genesis_local.go`
 * LocalParams, `vms/platformvm/txs/executor/staker_tx_verification.go`): a validator stakes 2,000 AVAX to 3 M for
 * 24 h to 365 d with a delegation fee of 2 % or more; a delegator 25 AVAX or more for 24 h or more, within its
 * validator's period, all of them together under 5 times the validator's stake; a node validates once at a time.
 *
 * Validator k starts at the first tick at or after genesis + k days (k = 0, 1, ...) on node k mod 4, for 3 days;
 * a delegator to it starts at the next tick for 2 days, another half a day after it started for a day and a half.
 * So periods overlap: from the second tick on, at every moment, some validator and some delegator the schedule
 * added await their reward, at any tick pace under half a day (the backfill's 5 minutes, the live 2 seconds); a
 * node's period ends a day before it stakes again. test/unit/dev/staking.test.ts walks it.
 */
import {DEV_STAKER_NODES} from "./signers.js";

const NANO = 1_000_000_000n;
const DAY = 86_400n;

export const DEV_STAKING = {
  nodes: DEV_STAKER_NODES,
  every: DAY,
  period: 3n * DAY,
  /** Validator k's stake (nAVAX) and delegation fee (parts per million): these lists, at k modulo their length. */
  stakes: [2_000n * NANO, 3_000n * NANO, 4_000n * NANO],
  shares: [20_000, 30_000, 40_000, 50_000],
  delegations: [
    {after: 0n, period: 2n * DAY, stake: 100n * NANO},
    {after: DAY / 2n, period: DAY + DAY / 2n, stake: 25n * NANO},
  ],
} as const;

export interface PlannedValidation {
  k: number;
  /** The dev staker (0-3) that validates. */
  node: number;
  tick: number;
  start: bigint;
  end: bigint;
  stake: bigint;
  shares: number;
}

export interface PlannedDelegation {
  validation: PlannedValidation;
  tick: number;
  start: bigint;
  end: bigint;
  stake: bigint;
}

export class DevStakingSchedule {
  private next = 0;
  /** Validations not yet ended (pruned as time passes). */
  private readonly current: PlannedValidation[] = [];
  private readonly waiting: Array<{validation: PlannedValidation; due: bigint; period: bigint; stake: bigint}> = [];

  constructor(private readonly genesisTime: bigint) {}

  /** What starts at tick `t` (chain time `time`, ascending): at most one validation, then the delegations due. */
  at(t: number, time: bigint): {validation: PlannedValidation | null; delegations: PlannedDelegation[]} {
    // A staker whose end has come is rewarded at this tick, before anything is added (a proposal block first).
    for (const v of this.current.filter((x) => x.end <= time)) this.current.splice(this.current.indexOf(v), 1);
    let validation: PlannedValidation | null = null;
    const k = this.next;
    if (this.genesisTime + BigInt(k) * DEV_STAKING.every <= time) {
      this.next++;
      const node = k % DEV_STAKING.nodes;
      // Busy only if ticks were days apart: that day's validation is skipped.
      if (!this.current.some((v) => v.node === node)) {
        const stake = DEV_STAKING.stakes[k % DEV_STAKING.stakes.length]!;
        const shares = DEV_STAKING.shares[k % DEV_STAKING.shares.length]!;
        validation = {k, node, tick: t, start: time, end: time + DEV_STAKING.period, stake, shares};
        this.current.push(validation);
        for (const d of DEV_STAKING.delegations) {
          this.waiting.push({validation, due: time + d.after, period: d.period, stake: d.stake});
        }
      }
    }
    const delegations: PlannedDelegation[] = [];
    for (const w of this.waiting.filter((x) => x.due <= time && x.validation.tick < t)) {
      this.waiting.splice(this.waiting.indexOf(w), 1);
      const end = time + w.period < w.validation.end ? time + w.period : w.validation.end;
      // Shorter than AvalancheGo's minimum (24 h) only if the tick came too late: not made.
      if (end - time >= DAY) delegations.push({validation: w.validation, tick: t, start: time, end, stake: w.stake});
    }
    return {validation, delegations};
  }
}
