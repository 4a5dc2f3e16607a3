import {describe, expect, it} from "vitest";
import {parseArgs, v8Tuning} from "../../../src/cli/index.js";
import {operatorChose, tuneV8} from "../../../src/cli/v8.js";

/** tuneV8 with a recording setter: the test process's own V8 flags stay untouched. */
function tune(pretenuring: boolean, execArgv: string[], heapGrowingPercent = 0): {returned: string[]; set: string[]} {
  const set: string[] = [];
  const returned = tuneV8({pretenuring, heapGrowingPercent}, execArgv, (f) => set.push(f));
  return {returned, set};
}

describe("V8 tuning", () => {
  it("turns allocation-site pretenuring off unless asked to keep it", () => {
    expect(tune(false, [])).toEqual({
      returned: ["--no-allocation-site-pretenuring"],
      set: ["--no-allocation-site-pretenuring"],
    });
    expect(tune(false, ["--max-old-space-size=4096", "--enable-source-maps"]).set).toEqual([
      "--no-allocation-site-pretenuring",
    ]);
    expect(tune(true, [])).toEqual({returned: [], set: []});
  });

  it("leaves Node's own command line alone, in every spelling Node accepts", () => {
    for (const a of [
      "--allocation-site-pretenuring",
      "--no-allocation-site-pretenuring",
      "--noallocation-site-pretenuring",
      "--allocation_site_pretenuring",
      "--allocation_site-pretenuring",
      "--no_allocation-site-pretenuring",
      "--no_allocation_site_pretenuring",
      "--allocation-site-pretenuring=false",
      "-allocation-site-pretenuring",
      "-no-allocation-site-pretenuring",
    ]) {
      expect(tune(false, ["--expose-gc", a]).set, a).toEqual([]);
    }
  });

  it("fixes the heap growing factor unless 0 or Node's command line sets it", () => {
    expect(tune(true, [], 20)).toEqual({returned: ["--heap-growing-percent=20"], set: ["--heap-growing-percent=20"]});
    expect(tune(false, [], 35).set).toEqual(["--no-allocation-site-pretenuring", "--heap-growing-percent=35"]);
    expect(tune(true, [], 0).set).toEqual([]);
    for (const a of ["--heap-growing-percent=50", "--heap_growing_percent=50", "-heap-growing-percent=50"]) {
      expect(tune(false, [a], 20).set, a).toEqual(["--no-allocation-site-pretenuring"]);
    }
    // The other flag's choice does not hide this one.
    expect(tune(false, ["--allocation-site-pretenuring"], 20).set).toEqual(["--heap-growing-percent=20"]);
  });

  it("names flags this Node's V8 knows (setFlagsFromString ignores unknown ones silently)", async () => {
    const {execFileSync} = await import("node:child_process");
    const options = execFileSync(process.execPath, ["--v8-options"]).toString();
    for (const f of tune(false, [], 20).set) expect(options, f).toContain(`--${f.replace(/^--(no-)?|=.*$/g, "")} `);
  });

  it("matches whole flag names only", () => {
    expect(operatorChose("allocation-site-pretenuring", ["--allocation-site-pretenuring-extra"])).toBe(false);
    expect(operatorChose("allocation-site-pretenuring", ["--trace-allocation-site-pretenuring"])).toBe(false);
    expect(operatorChose("heap-growing-percent", ["---heap-growing-percent=50", "heap-growing-percent=50"])).toBe(
      false,
    );
  });

  it("reads its settings from the flags, and refuses a factor V8 would not take", () => {
    expect(v8Tuning(parseArgs([], {}))).toEqual({pretenuring: false, heapGrowingPercent: 0});
    expect(v8Tuning(parseArgs(["--v8-heap-growing-percent", "50", "--v8-pretenuring"], {}))).toEqual({
      pretenuring: true,
      heapGrowingPercent: 50,
    });
    expect(v8Tuning(parseArgs([], {AVAEXT_V8_HEAP_GROWING_PERCENT: "1000"})).heapGrowingPercent).toBe(1000);
    expect(() => parseArgs(["--v8-heap-growing-percent", "1001"], {})).toThrow(/v8-heap-growing-percent.*0-1000/);
    expect(() => parseArgs(["--v8-heap-growing-percent", "-1"], {})).toThrow(/v8-heap-growing-percent/);
  });
});
