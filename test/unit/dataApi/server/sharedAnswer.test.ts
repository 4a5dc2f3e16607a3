/**
 * One computation at a time, its answer kept for a while from when it finished (the AVAX supply's cache,
 * routes/primary.ts): requests during a computation share it, a slow computation does not let a second one start,
 * a failure is not kept.
 */
import {describe, expect, it} from "vitest";
import {SharedAnswer} from "../../../../src/dataApi/server/sharedAnswer.js";

function deferred<T>(): {promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return {promise, resolve, reject};
}

describe("SharedAnswer", () => {
  it("shares the computation in progress and counts the answer's age from its completion", async () => {
    let clock = 0;
    const runs: Array<ReturnType<typeof deferred<number>>> = [];
    const a = new SharedAnswer<number>(
      {ttlMs: 30_000},
      {
        now: () => clock,
        compute: () => {
          runs.push(deferred<number>());
          return runs[runs.length - 1]!.promise;
        },
      },
    );
    const first = a.get();
    // The computation takes 45 s, past the lifetime: requests meanwhile wait for it, none starts another.
    clock = 45_000;
    const second = a.get();
    expect(runs.length).toBe(1);
    runs[0]!.resolve(1);
    expect([await first, await second]).toEqual([1, 1]);
    // Kept 30 s from when it finished (45 s), not from when it started.
    clock = 74_999;
    expect(await a.get()).toBe(1);
    expect(runs.length).toBe(1);
    clock = 75_000;
    const third = a.get();
    expect(runs.length).toBe(2);
    runs[1]!.resolve(2);
    expect(await third).toBe(2);
  });

  it("keeps no failure: the next request computes again", async () => {
    let n = 0;
    const a = new SharedAnswer<number>(
      {ttlMs: 30_000},
      {
        compute: async () => {
          n++;
          if (n === 1) throw new Error("store down");
          return n;
        },
      },
    );
    await expect(a.get()).rejects.toThrow("store down");
    expect(await a.get()).toBe(2);
    expect(await a.get()).toBe(2);
  });
});
