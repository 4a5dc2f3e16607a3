import {describe, expect, it} from "vitest";
import {Slots} from "../../../src/util/slots.js";

describe("Slots", () => {
  it("runs at most max tasks at once, queues maxWaiting more in order, and refuses the rest at once", async () => {
    const slots = new Slots({max: 2, maxWaiting: 2}, (busy, waiting) => new Error(`busy ${busy}, waiting ${waiting}`));
    const gates: Array<() => void> = [];
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (n: number) => () =>
      new Promise<number>((resolve) => {
        running++;
        most = Math.max(most, running);
        order.push(n);
        gates.push(() => {
          running--;
          resolve(n);
        });
      });
    const runs = [1, 2, 3, 4, 5, 6].map((n) => slots.run(task(n)));
    const settled = Promise.allSettled(runs);
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([1, 2]);
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((r) => setTimeout(r, 10));
    }
    const out = await settled;
    expect(out.map((x) => (x.status === "fulfilled" ? x.value : (x.reason as Error).message))).toEqual([
      1,
      2,
      3,
      4,
      "busy 2, waiting 2",
      "busy 2, waiting 2",
    ]);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(most).toBe(2);
    // A failing task frees its slot too.
    await expect(slots.run(() => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(await Promise.all([slots.run(async () => 7), slots.run(async () => 8)])).toEqual([7, 8]);
  });
});
