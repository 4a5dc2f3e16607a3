/** Routes: admin.alias semantics (docs/api/admin.md; AvalancheGo api/admin). */
import {describe, expect, it} from "vitest";
import {Routes, type Route} from "../../../src/api/routes.js";

const route = (template: string): Route => ({template});

function table(): Routes {
  const r = new Routes();
  for (const p of [
    "/ext/health",
    "/ext/health/readiness",
    "/ext/health/liveness",
    "/ext/metrics",
    "/ext/index/X/tx",
    "/ext/index/X/block",
  ]) {
    r.add(p, route(p));
  }
  return r;
}

describe("Routes.addAlias", () => {
  it("serves the endpoint and its sub-paths under the alias", () => {
    const r = table();
    r.addAlias("health", "h");
    expect(r.resolve("/ext/h")?.template).toBe("/ext/health");
    expect(r.resolve("/ext/h/readiness")?.template).toBe("/ext/health/readiness");
    expect(r.resolve("/ext/h/nope")).toBeNull();
    expect(r.resolve("/ext/hx")).toBeNull();
    expect(r.resolve("/ext/health")?.template).toBe("/ext/health");
  });

  it("accepts a base with routes under it, and an alias of an alias", () => {
    const r = table();
    r.addAlias("index/X", "ix");
    expect(r.resolve("/ext/ix/tx")?.template).toBe("/ext/index/X/tx");
    expect(r.resolve("/ext/ix")).toBeNull();
    r.addAlias("ix", "ix2");
    expect(r.resolve("/ext/ix2/block")?.template).toBe("/ext/index/X/block");
    r.addAlias("ix/tx", "txs");
    expect(r.resolve("/ext/txs")?.template).toBe("/ext/index/X/tx");
  });

  it("prefers the longest alias covering a path", () => {
    const r = table();
    r.addAlias("health", "a");
    r.addAlias("metrics", "a/b");
    expect(r.resolve("/ext/a/b")?.template).toBe("/ext/metrics");
    expect(r.resolve("/ext/a/liveness")?.template).toBe("/ext/health/liveness");
  });

  it("refuses with AvalancheGo's texts, and a refusal changes nothing", () => {
    const r = table();
    expect(() => r.addAlias("metrics", "x".repeat(513))).toThrow("alias length is too long");
    expect(() => r.addAlias("metrics", "é".repeat(257))).toThrow("alias length is too long");
    r.addAlias("metrics", "é".repeat(256));
    expect(() => r.addAlias("nope", "n")).toThrow("unknown endpoint: /ext/nope");
    expect(() => r.addAlias("ind", "n")).toThrow("unknown endpoint: /ext/ind"); // a prefix that is not a path segment
    expect(() => r.addAlias("metrics", "health")).toThrow("failed to create endpoint as /ext/health already exists");
    expect(() => r.addAlias("metrics", "health")).toThrow("failed to create endpoint as /ext/health already exists");
    r.addAlias("metrics", "m");
    expect(() => r.addAlias("health", "m")).toThrow(
      "route is either already aliased or already maps to a handle: /ext/m",
    );
    // /ext/index/X/tx would be served twice
    const s = table();
    s.add("/ext/other/tx", route("/ext/other/tx"));
    expect(() => s.addAlias("index/X", "other")).toThrow("failed to create endpoint as /ext/other/tx already exists");
  });
});
