import {describe, expect, it} from "vitest";
import {operatorChose, tuneV8} from "../../../src/cli/v8.js";

/** tuneV8 with a recording setter: the test process's own V8 flags stay untouched. */
function tune(pretenuring: boolean, execArgv: string[]): {returned: string[]; set: string[]} {
  const set: string[] = [];
  const returned = tuneV8({pretenuring}, execArgv, (f) => set.push(f));
  return {returned, set};
}

describe("V8 tuning", () => {
  it("turns allocation-site pretenuring off unless asked to keep it", () => {
    expect(tune(false, [])).toEqual({returned: ["--no-allocation-site-pretenuring"], set: ["--no-allocation-site-pretenuring"]});
    expect(tune(false, ["--max-old-space-size=4096", "--enable-source-maps"]).set).toEqual(["--no-allocation-site-pretenuring"]);
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
    ]) {
      expect(tune(false, ["--expose-gc", a]).set, a).toEqual([]);
    }
  });

  it("matches whole flag names only", () => {
    expect(operatorChose("allocation-site-pretenuring", ["--allocation-site-pretenuring-extra"])).toBe(false);
    expect(operatorChose("allocation-site-pretenuring", ["--trace-allocation-site-pretenuring"])).toBe(false);
  });
});
