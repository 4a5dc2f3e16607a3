import {describe, expect, it} from "vitest";
import {ReadWriteGate} from "../../../src/util/readWriteGate.js";

/** A section that runs until released, recording when it started. */
function section(log: string[], name: string): {fn: () => Promise<string>; release: () => void} {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return {
    fn: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
      return name;
    },
    release,
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("ReadWriteGate", () => {
  it("runs shared sections together and an exclusive one alone, after them", async () => {
    const gate = new ReadWriteGate();
    const log: string[] = [];
    const [a, b, w] = [section(log, "a"), section(log, "b"), section(log, "w")];
    const pa = gate.shared(a.fn);
    const pb = gate.shared(b.fn);
    const pw = gate.exclusive(w.fn);
    await tick();
    expect(log).toEqual(["start a", "start b"]);
    expect(gate.state()).toEqual({shared: 2, exclusive: false, waiting: 1});
    a.release();
    await tick();
    expect(log).not.toContain("start w");
    b.release();
    await tick();
    expect(log.at(-1)).toBe("start w");
    expect(gate.state()).toEqual({shared: 0, exclusive: true, waiting: 0});
    w.release();
    expect(await Promise.all([pa, pb, pw])).toEqual(["a", "b", "w"]);
    expect(gate.state()).toEqual({shared: 0, exclusive: false, waiting: 0});
  });

  it("holds shared sections that arrive after a waiting exclusive one until it has run", async () => {
    const gate = new ReadWriteGate();
    const log: string[] = [];
    const [a, w, b, c] = [section(log, "a"), section(log, "w"), section(log, "b"), section(log, "c")];
    const ps = [gate.shared(a.fn), gate.exclusive(w.fn), gate.shared(b.fn), gate.shared(c.fn)];
    await tick();
    expect(log).toEqual(["start a"]);
    a.release();
    await tick();
    expect(log).toEqual(["start a", "end a", "start w"]);
    w.release();
    await tick();
    // Both shared sections queued behind the exclusive one are let in together.
    expect(log.slice(3)).toEqual(["end w", "start b", "start c"]);
    b.release();
    c.release();
    await Promise.all(ps);
  });

  it("releases the gate when a section fails", async () => {
    const gate = new ReadWriteGate();
    await expect(gate.exclusive(async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    await expect(
      gate.shared(() => {
        throw new Error("thrown");
      }),
    ).rejects.toThrow("thrown");
    expect(gate.state()).toEqual({shared: 0, exclusive: false, waiting: 0});
    expect(await gate.exclusive(async () => "next")).toBe("next");
  });

  it("keeps a failed section held for the time its error asks, the caller rejected at once", async () => {
    const gate = new ReadWriteGate();
    const gaveUp = Object.assign(new Error("gave up"), {name: "TimeoutError"});
    const started = performance.now();
    const held = gate.sharedHeldOnFailure(
      () => Promise.reject(gaveUp),
      (e) => ((e as Error).name === "TimeoutError" ? 300 : 0),
    );
    await expect(held).rejects.toBe(gaveUp);
    expect(performance.now() - started).toBeLessThan(200);
    expect(gate.state().shared).toBe(1);
    const mined = gate.exclusive(async () => performance.now());
    expect((await mined) - started).toBeGreaterThanOrEqual(290);
    expect(gate.state()).toEqual({shared: 0, exclusive: false, waiting: 0});
  });

  it("releases at once after a success, or a failure its hold rule lets go", async () => {
    const gate = new ReadWriteGate();
    expect(
      await gate.sharedHeldOnFailure(
        async () => "traced",
        () => 60_000,
      ),
    ).toBe("traced");
    await tick();
    expect(gate.state().shared).toBe(0);
    await expect(
      gate.sharedHeldOnFailure(
        () => Promise.reject(new Error("refused")),
        () => 0,
      ),
    ).rejects.toThrow("refused");
    // A hold rule that throws lets go at once, the caller holding fn's own error.
    const broken = (): number => {
      throw new Error("hold broke");
    };
    await expect(gate.sharedHeldOnFailure(() => Promise.reject(new Error("refused")), broken)).rejects.toThrow(
      "refused",
    );
    await tick();
    expect(gate.state()).toEqual({shared: 0, exclusive: false, waiting: 0});
  });
});
