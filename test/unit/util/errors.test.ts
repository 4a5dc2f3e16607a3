/** Retryable or not (src/util/errors.ts): outages of the store or the network are; the fold's own errors are not. */
import {describe, expect, it} from "vitest";
import {Backoff, NonRetryableError, RetryableError, isRetryable, sqlState} from "../../../src/util/errors.js";
import {RpcCallError} from "../../../src/evm/rpc.js";

const pgError = (code: string, message = "x"): Error => Object.assign(new Error(message), {code});

describe("isRetryable", () => {
  it("retries a store outage: connections refused or reset, SQLSTATE 08/53/57P0x, lock timeouts, serialization", () => {
    const network = ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"];
    const sqlStates = ["08000", "08003", "08006", "08P01", "53100", "53200", "53300", "57P01", "57P02", "57P03"];
    for (const code of [...network, ...sqlStates, "55P03", "40001", "40P01", "57014"]) {
      expect(isRetryable(pgError(code)), code).toBe(true);
    }
    expect(isRetryable(new Error("Connection terminated unexpectedly"))).toBe(true);
    // Outages outside the fold's SQLSTATE classes: read-only after a failover, idle timeouts, I/O; the client's own.
    for (const code of ["25006", "25P03", "57P05", "58030", "55006", "40003"]) {
      expect(isRetryable(pgError(code)), code).toBe(true);
    }
    expect(isRetryable(new Error("Query read timeout"))).toBe(true);
    expect(isRetryable(new Error("PGlite's thread exited (code 1)"))).toBe(true); // and the process exits (src/node.ts)
    expect(isRetryable(new RangeError("Array buffer allocation failed"))).toBe(true);
    expect(isRetryable(Object.assign(new Error("This operation was aborted"), {name: "AbortError"}))).toBe(true);
    expect(isRetryable(new DOMException("The operation was aborted due to timeout", "TimeoutError"))).toBe(true);
    // fetch failing at the socket: the system error is the cause.
    expect(isRetryable(new TypeError("fetch failed", {cause: pgError("ECONNREFUSED")}))).toBe(true);
    expect(isRetryable(new RpcCallError("eth_blockNumber: 502 Bad Gateway", "http", 502))).toBe(true);
  });

  it("does not retry the fold's own errors: invariants, division by zero, constraint violations, bugs", () => {
    expect(isRetryable(new RangeError("calculateReward: division by zero (current supply is 0)"))).toBe(false);
    for (const code of [
      "23505",
      "23503",
      "23502",
      "23514",
      "22P02",
      "22012",
      "42703",
      "42P01",
      "P0001",
      "21000",
      "XX000",
      "54001",
    ]) {
      expect(isRetryable(pgError(code)), code).toBe(false);
    }
    expect(isRetryable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isRetryable("a string thrown")).toBe(false);
  });

  it("takes the nearest explicit verdict along the causes", () => {
    expect(isRetryable(new NonRetryableError("bad block", {cause: pgError("ECONNRESET")}))).toBe(false);
    expect(isRetryable(new RetryableError("position moved", {cause: pgError("22P02")}))).toBe(true);
    expect(isRetryable(new Error("wrapped", {cause: new Error("again", {cause: pgError("57P01")})}))).toBe(true);
    expect(sqlState(new Error("wrapped", {cause: pgError("23505")}))).toBe("23505");
  });
});

describe("Backoff", () => {
  it("grows from the base to the bound, each wait drawn in the upper half of its step, and resets", () => {
    const low = new Backoff({baseMs: 100, maxMs: 1000, random: () => 0});
    expect(Array.from({length: 6}, () => low.next())).toEqual([50, 100, 200, 400, 500, 500]);
    const high = new Backoff({baseMs: 100, maxMs: 1000, random: () => 0.999999});
    expect(Array.from({length: 6}, () => high.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(high.attempts).toBe(6);
    high.reset();
    expect(high.next()).toBe(100);
    const real = new Backoff({baseMs: 100, maxMs: 1000});
    const draws = Array.from({length: 50}, () => (real.reset(), real.next()));
    expect(new Set(draws).size).toBeGreaterThan(1);
    for (const d of draws) expect(d >= 50 && d <= 100).toBe(true);
  });
});
