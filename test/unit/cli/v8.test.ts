import {describe, expect, it} from "vitest";
import {operatorChose, tuneV8} from "../../../src/cli/v8.js";

describe("V8 tuning", () => {
  it("turns allocation-site pretenuring off when the operator did not choose", () => {
    expect(tuneV8([], "")).toEqual(["--no-allocation-site-pretenuring"]);
    expect(tuneV8(["--max-old-space-size=4096"], "--enable-source-maps")).toEqual(["--no-allocation-site-pretenuring"]);
  });

  it("leaves an explicit choice alone, in either spelling and from either source", () => {
    expect(tuneV8(["--allocation-site-pretenuring"], "")).toEqual([]);
    expect(tuneV8([], "--no-allocation-site-pretenuring")).toEqual([]);
    expect(tuneV8(["--allocation_site_pretenuring"], "")).toEqual([]);
    expect(tuneV8([], "  --expose-gc   --noallocation-site-pretenuring ")).toEqual([]);
  });

  it("matches whole flag names only", () => {
    expect(operatorChose("allocation-site-pretenuring", ["--allocation-site-pretenuring-extra"])).toBe(false);
    expect(operatorChose("allocation-site-pretenuring", ["--allocation-site-pretenuring=false"])).toBe(true);
  });
});
