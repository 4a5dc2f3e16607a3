/** The admin API over the real wire (docs/api/admin.md; AvalancheGo api/admin). */
import {chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from "node:fs";
import path from "node:path";
import {Level} from "level";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {NETWORKS} from "../../src/chains/index.js";
import {FLAGS} from "../../src/cli/flags.js";
import {cb58Encode} from "../../src/util/cb58.js";
import {startNode, tempDir, type RpcResult, type TestNode} from "../helpers/node.js";

const ADMIN = "/ext/admin";
const X = NETWORKS.mainnet.chainIds.X;
const vmId = (fill: number): string => cb58Encode(new Uint8Array(32).fill(fill));
const VM_BY_ID = vmId(1);
const VM_BY_ALIAS = vmId(2);
const VM_NOT_EXEC = vmId(3);

let t: TestNode;
let db: Level<Uint8Array, Uint8Array>;
let profileDir: string;
let pluginDir: string;

const call = (m: string, params?: unknown): Promise<RpcResult> => t.rpc(ADMIN, `admin.${m}`, params);
async function ok(m: string, params?: unknown): Promise<unknown> {
  const r = await call(m, params);
  expect(r.status).toBe(200);
  expect(r.body.error, `${m}: ${JSON.stringify(r.body.error)}`).toBeUndefined();
  return r.body.result;
}
async function fails(m: string, params: unknown, code: number, message: string | RegExp): Promise<void> {
  const r = await call(m, params);
  expect(r.status).toBe(200);
  expect(r.body.result).toBeUndefined();
  expect(r.body.error?.code).toBe(code);
  if (typeof message === "string") expect(r.body.error?.message).toBe(message);
  else expect(r.body.error?.message).toMatch(message);
}

beforeAll(async () => {
  const dataDir = tempDir();
  profileDir = path.join(dataDir, "not", "yet", "profiles");
  pluginDir = path.join(dataDir, "plugins");
  mkdirSync(pluginDir);
  writeFileSync(path.join(pluginDir, VM_BY_ID), "#!/bin/sh\n", {mode: 0o755});
  writeFileSync(path.join(pluginDir, "myvm"), "#!/bin/sh\n", {mode: 0o755});
  writeFileSync(path.join(pluginDir, VM_NOT_EXEC), "#!/bin/sh\n", {mode: 0o644});
  writeFileSync(path.join(pluginDir, "garbage"), "", {mode: 0o755});
  mkdirSync(path.join(pluginDir, "some-dir"));
  const aliasesFile = path.join(dataDir, "vm-aliases.json");
  writeFileSync(aliasesFile, JSON.stringify({[VM_BY_ALIAS]: ["myvm", "othervm"]}));

  db = new Level<Uint8Array, Uint8Array>(path.join(dataDir, "rawdb"), {keyEncoding: "view", valueEncoding: "view"});
  await db.open();
  await db.put(Uint8Array.from([1, 2]), Uint8Array.from([0xca, 0xfe]));

  t = await startNode(
    {"api-admin-enabled": "true", "profile-dir": profileDir, "plugin-dir": pluginDir, "vm-aliases-file": aliasesFile},
    {
      dataDir,
      overrides: {rawDb: db},
      // a route that a sub-path of an alias can collide with
      setup: (n) =>
        n.routes.add("/ext/probe/readiness", {
          template: "/ext/probe/readiness",
          plain: () => ({status: 200, contentType: "text/plain", body: "probe\n"}),
        }),
    },
  );
});
afterAll(async () => {
  await t.close();
  await db.close();
});

describe("admin API: serving", () => {
  it("is absent (404) unless --api-admin-enabled", async () => {
    const off = await startNode();
    try {
      const r = await off.post(ADMIN, JSON.stringify({jsonrpc: "2.0", id: 1, method: "admin.getConfig"}));
      expect(r.status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it("is never opened to a wildcard CORS origin; an explicitly listed origin may call it", async () => {
    const preflight = (n: TestNode, origin: string, p = ADMIN): Promise<Response> =>
      fetch(new URL(p, n.url), {method: "OPTIONS", headers: {origin, "access-control-request-method": "POST"}});
    // t runs with the default --http-allowed-origins=*
    const pre = await preflight(t, "https://evil.example");
    expect(pre.status).toBe(403);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    const r = await t.post(ADMIN, JSON.stringify({jsonrpc: "2.0", id: 1, method: "admin.getConfig"}), {
      "content-type": "application/json",
      origin: "https://evil.example",
    });
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
    // the health API on the same node is open to *
    expect((await preflight(t, "https://evil.example", "/ext/health")).status).toBe(204);

    const listed = await startNode({"api-admin-enabled": "true", "http-allowed-origins": "https://ops.example"});
    try {
      const good = await preflight(listed, "https://ops.example");
      expect(good.status).toBe(204);
      expect(good.headers.get("access-control-allow-origin")).toBe("https://ops.example");
      expect(good.headers.get("access-control-allow-credentials")).toBe("true");
      expect((await preflight(listed, "https://other.example")).status).toBe(403);
    } finally {
      await listed.close();
    }
  });

  it("answers unknown methods with -32601 and takes no scalar params for param-less methods", async () => {
    await fails("foo", undefined, -32601, "method not found: admin.foo");
    await fails("getConfig", [5], -32602, /^invalid params: /);
    await fails("lockProfile", 5, -32602, /^invalid params: /);
    expect(await ok("lockProfile", [])).toEqual({});
    expect(await ok("lockProfile", [{ignored: true}])).toEqual({});
  });
});

describe("admin.alias", () => {
  it("serves an endpoint and its sub-paths under /ext/<alias>; the original keeps working", async () => {
    expect(await ok("alias", {endpoint: "health", alias: "myhealth"})).toEqual({});
    for (const p of ["/ext/myhealth", "/ext/myhealth/readiness", "/ext/myhealth/liveness", "/ext/health/liveness"]) {
      const r = await t.get(p);
      expect([200, 503], p).toContain(r.status);
      expect(r.json()).toHaveProperty("checks");
    }
    const rpc = await t.rpc("/ext/myhealth", "health.liveness");
    expect(rpc.body.result).toEqual({checks: {}, healthy: true});
    expect((await t.get("/ext/myhealth/nope")).status).toBe(404);
    // an alias of an alias serves the real endpoint
    expect(await ok("alias", {endpoint: "myhealth", alias: "h2"})).toEqual({});
    expect((await t.get("/ext/h2/liveness")).status).toBe(200);
  });

  it("aliases the admin API itself, still closed to a wildcard origin", async () => {
    expect(await ok("alias", {endpoint: "admin", alias: "adm"})).toEqual({});
    const r = await t.rpc("/ext/adm", "admin.getChainAliases", {chain: X});
    expect(r.body.result).toEqual({aliases: ["X", "avm", X]});
    const pre = await fetch(new URL("/ext/adm", t.url), {
      method: "OPTIONS",
      headers: {origin: "https://evil.example", "access-control-request-method": "POST"},
    });
    expect(pre.status).toBe(403);
  });

  it("has AvalancheGo's error texts", async () => {
    await fails("alias", {endpoint: "metrics", alias: "a".repeat(513)}, -32000, "alias length is too long");
    // the limit is in bytes: 256 two-byte characters are fine, 257 are not
    expect(await ok("alias", {endpoint: "metrics", alias: "é".repeat(256)})).toEqual({});
    await fails("alias", {endpoint: "metrics", alias: "é".repeat(257)}, -32000, "alias length is too long");
    expect(await ok("alias", {endpoint: "metrics", alias: "m"})).toEqual({});
    await fails(
      "alias",
      {endpoint: "health", alias: "m"},
      -32000,
      "route is either already aliased or already maps to a handle: /ext/m",
    );
    await fails(
      "alias",
      {endpoint: "metrics", alias: "health"},
      -32000,
      "failed to create endpoint as /ext/health already exists",
    );
    // a sub-path of the alias would collide with a real route
    await fails(
      "alias",
      {endpoint: "health", alias: "probe"},
      -32000,
      "failed to create endpoint as /ext/probe/readiness already exists",
    );
    expect(await ok("alias", {endpoint: "metrics", alias: "probe"})).toEqual({}); // no collision: /ext/metrics has no sub-paths
    await fails("alias", {endpoint: "nope", alias: "n"}, -32000, "unknown endpoint: /ext/nope");
    await fails("alias", {endpoint: "health"}, -32602, "invalid params: alias: missing required field");
    await fails("alias", {alias: "zz"}, -32602, "invalid params: endpoint: missing required field");
    await fails("alias", {endpoint: 5, alias: "zz"}, -32602, /^invalid params: endpoint: expected a string/);
    expect((await t.get("/ext/m")).status).toBe(200);
  });
});

describe("admin.aliasChain / admin.getChainAliases", () => {
  it("lists the genesis aliases and the chain ID itself, then added ones", async () => {
    expect(await ok("getChainAliases", {chain: NETWORKS.mainnet.chainIds.P})).toEqual({
      aliases: ["P", "platform", NETWORKS.mainnet.chainIds.P],
    });
    expect(await ok("getChainAliases", {chain: NETWORKS.mainnet.chainIds.C})).toEqual({
      aliases: ["C", "evm", NETWORKS.mainnet.chainIds.C],
    });
    expect(await ok("aliasChain", {chain: "X", alias: "myX"})).toEqual({});
    expect(await ok("aliasChain", {chain: X, alias: "myX2"})).toEqual({});
    expect(await ok("aliasChain", {chain: "myX", alias: "myX3"})).toEqual({});
    expect(await ok("getChainAliases", {chain: X})).toEqual({aliases: ["X", "avm", X, "myX", "myX2", "myX3"]});
    // usable wherever a chain is named: the index API resolves its paths through the same registry
    expect(t.node.chains.resolveChain("myX3")).toBe("X");
    // a valid ID that names no chain
    expect(await ok("getChainAliases", {chain: vmId(9)})).toEqual({aliases: null});
  });

  it("has AvalancheGo's lookup and alias errors", async () => {
    await fails("aliasChain", {chain: "nope", alias: "a1"}, -32000, "there is no ID with alias: nope");
    await fails("aliasChain", {chain: "", alias: "a1"}, -32000, "there is no ID with alias: ");
    await fails("aliasChain", {chain: "X", alias: "avm"}, -32000, "alias already mapped to an ID: avm");
    await fails("aliasChain", {chain: "X", alias: "P"}, -32000, "alias already mapped to an ID: P");
    await fails("aliasChain", {chain: "X", alias: "a".repeat(513)}, -32000, "alias length is too long");
    await fails("aliasChain", {alias: "a1"}, -32602, "invalid params: chain: missing required field");
  });

  it("requires a CB58 chain ID in getChainAliases, with ids.FromString's texts", async () => {
    const bad: Array<[unknown, string]> = [
      ["", "base58 decoding error: zero length string"],
      ["X", "input string is smaller than the checksum size"],
      ["11111111111111111111111111111111LpoYZ", "invalid input checksum"],
      ["111111111111111111116DBWJs", "invalid hash length: expected 32 bytes but got 20"],
      ["0abc", "base58 decoding error: Invalid base58 digit ('0')"],
      ["é", "base58 decoding error: High-bit set on invalid digit"],
    ];
    for (const [chain, reason] of bad)
      await fails("getChainAliases", {chain}, -32602, `invalid params: chain: ${reason}`);
    await fails("getChainAliases", {}, -32602, "invalid params: chain: missing required field");
  });

  it("uses each network's genesis chain IDs", async () => {
    const fuji = await startNode({"api-admin-enabled": "true", "network-id": "fuji"});
    try {
      const r = await fuji.rpc(ADMIN, "admin.getChainAliases", {chain: NETWORKS.fuji.chainIds.C});
      expect(r.body.result).toEqual({aliases: ["C", "evm", NETWORKS.fuji.chainIds.C]});
    } finally {
      await fuji.close();
    }
  });
});

describe("admin.getLoggerLevel / admin.setLoggerLevel", () => {
  it("reads and sets levels, as AvalancheGo's results", async () => {
    const all = (await ok("getLoggerLevel")) as {loggerLevels: Record<string, unknown>};
    expect(Object.keys(all.loggerLevels)).toEqual(expect.arrayContaining(["main", "P", "X", "C"]));
    expect(all.loggerLevels.main).toEqual({logLevel: "INFO", displayLevel: "OFF"});
    expect(await ok("getLoggerLevel", {loggerName: "P"})).toEqual({
      loggerLevels: {P: {logLevel: "INFO", displayLevel: "OFF"}},
    });
    expect(await ok("getLoggerLevel", {loggerName: ""})).toEqual(all);
    expect(await ok("setLoggerLevel", {loggerName: "X", logLevel: "debug", displayLevel: null})).toEqual({
      loggerLevels: {X: {logLevel: "DEBUG", displayLevel: "OFF"}},
    });
    const every = (await ok("setLoggerLevel", {displayLevel: "Verbo"})) as {
      loggerLevels: Record<string, {displayLevel: string}>;
    };
    expect(Object.keys(every.loggerLevels)).toEqual(Object.keys(all.loggerLevels));
    for (const l of Object.values(every.loggerLevels)) expect(l.displayLevel).toBe("VERBO");
    expect(await ok("getLoggerLevel", {loggerName: "X"})).toEqual({
      loggerLevels: {X: {logLevel: "DEBUG", displayLevel: "VERBO"}},
    });
    await ok("setLoggerLevel", {logLevel: "INFO", displayLevel: "OFF"});
  });

  it("has AvalancheGo's errors", async () => {
    await fails("getLoggerLevel", {loggerName: "nope"}, -32000, 'logger with name "nope" not found');
    await fails("setLoggerLevel", {loggerName: "nope", logLevel: "INFO"}, -32000, 'logger with name "nope" not found');
    await fails("setLoggerLevel", {}, -32000, "need to specify either displayLevel or logLevel");
    await fails(
      "setLoggerLevel",
      {loggerName: "P", logLevel: null},
      -32000,
      "need to specify either displayLevel or logLevel",
    );
    await fails("setLoggerLevel", {logLevel: "loud"}, -32602, 'invalid params: logLevel: unknown log level: "loud"');
    await fails("setLoggerLevel", {displayLevel: 3}, -32602, /^invalid params: displayLevel: expected a string/);
  });

  it("visibly changes what is logged, on stdout and in the log file", async () => {
    const n = await startNode({"api-admin-enabled": "true"}, {captureLogs: true, keepData: true});
    try {
      const apiCalls = (): Record<string, unknown>[] => n.logs.filter((l) => l.msg === "API called");
      await n.rpc(ADMIN, "admin.getConfig");
      expect(apiCalls()).toEqual([]); // debug, below the display level INFO
      await n.rpc(ADMIN, "admin.setLoggerLevel", {loggerName: "main", displayLevel: "DEBUG"});
      await n.rpc(ADMIN, "admin.getConfig");
      await waitFor(() => apiCalls().some((l) => l.method === "getConfig"));
      expect(apiCalls().find((l) => l.method === "getConfig")).toMatchObject({
        level: "debug",
        name: "main",
        service: "admin",
      });

      await n.rpc(ADMIN, "admin.setLoggerLevel", {loggerName: "main", displayLevel: "WARN", logLevel: "DEBUG"});
      await new Promise((r) => setTimeout(r, 50));
      const before = n.logs.length;
      await n.rpc(ADMIN, "admin.lockProfile");
      await new Promise((r) => setTimeout(r, 50));
      expect(n.logs.slice(before)).toEqual([]); // neither the debug call line nor the info "written" line
    } finally {
      await n.close();
    }
    // the file threshold went to DEBUG: the lockProfile call is in main.log, the getConfig calls before it are not
    const lines = readFileSync(path.join(n.dataDir, "logs", "main.log"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    rmSync(n.dataDir, {recursive: true, force: true});
    expect(lines.filter((l) => l.msg === "API called").map((l) => l.method)).toEqual(["lockProfile"]);
    expect(lines.some((l) => l.msg === "lock profile written")).toBe(true);
  });
});

describe("admin profiles", () => {
  it("writes a V8 CPU profile between start and stop, with AvalancheGo's errors", async () => {
    await fails("stopCPUProfiler", undefined, -32000, "cpu profiler doesn't exist");
    expect(await ok("startCPUProfiler")).toEqual({});
    await fails("startCPUProfiler", undefined, -32000, "cpu profiler already running");
    busy(50);
    expect(await ok("stopCPUProfiler")).toEqual({});
    await fails("stopCPUProfiler", undefined, -32000, "cpu profiler doesn't exist");
    const profile = readJson("cpu.profile") as {
      nodes: unknown[];
      samples: number[];
      timeDeltas: number[];
      startTime: number;
      endTime: number;
    };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(profile.nodes[0]).toHaveProperty("callFrame");
    expect(profile.samples.length).toBeGreaterThan(0);
    expect(profile.timeDeltas.length).toBe(profile.samples.length);
    expect(profile.endTime).toBeGreaterThan(profile.startTime);
    expectModes("cpu.profile");
  });

  it("writes a heap snapshot, a lock profile and a diagnostic report into --profile-dir (created if missing)", async () => {
    expect(await ok("memoryProfile")).toEqual({});
    const heap = readJson("mem.profile") as {
      snapshot: {meta: {node_fields: string[]}; node_count: number};
      nodes: number[];
      edges: number[];
      strings: string[];
    };
    expect(heap.snapshot.meta.node_fields).toContain("type");
    expect(heap.nodes.length).toBe(heap.snapshot.node_count * heap.snapshot.meta.node_fields.length);
    expect(heap.edges.length).toBeGreaterThan(0);
    expect(heap.strings.length).toBeGreaterThan(0);

    expect(await ok("lockProfile")).toEqual({});
    const lock = readJson("lock.profile") as {
      type: string;
      eventLoopDelay: {percentiles: Record<string, number>; count: number};
      eventLoopUtilization: {utilization: number};
    };
    expect(lock.type).toBe("event-loop-contention");
    expect(lock.eventLoopDelay.percentiles).toHaveProperty("p99");
    expect(lock.eventLoopUtilization.utilization).toBeGreaterThanOrEqual(0);

    expect(await ok("stacktrace")).toEqual({});
    const report = readJson("stacktrace.json") as Record<string, unknown>;
    expect(report).toHaveProperty("header");
    expect(report).toHaveProperty("javascriptStack");
    expect(report).not.toHaveProperty("environmentVariables");
    for (const f of ["mem.profile", "lock.profile", "stacktrace.json"]) expectModes(f);
  });

  it("serialises concurrent profiling calls", async () => {
    const starts = await Promise.all([
      call("startCPUProfiler"),
      call("memoryProfile"),
      call("startCPUProfiler"),
      call("lockProfile"),
      call("startCPUProfiler"),
      call("stacktrace"),
      call("startCPUProfiler"),
    ]);
    const startResults = [0, 2, 4, 6].map((i) => starts[i]!.body);
    expect(startResults.filter((b) => b.error === undefined)).toHaveLength(1);
    expect(startResults.filter((b) => b.error?.message === "cpu profiler already running")).toHaveLength(3);
    for (const i of [1, 3, 5]) expect(starts[i]!.body.result).toEqual({});
    const stops = await Promise.all([call("stopCPUProfiler"), call("stopCPUProfiler"), call("stopCPUProfiler")]);
    expect(stops.filter((r) => r.body.error === undefined)).toHaveLength(1);
    expect(stops.filter((r) => r.body.error?.message === "cpu profiler doesn't exist")).toHaveLength(2);
    expect(readJson("cpu.profile")).toHaveProperty("timeDeltas");
    expect(readJson("mem.profile")).toHaveProperty("snapshot");
  });

  it("reports an OS error without the path", async () => {
    const dataDir = tempDir();
    const notADir = path.join(dataDir, "file");
    writeFileSync(notADir, "");
    const n = await startNode({"api-admin-enabled": "true", "profile-dir": path.join(notADir, "profiles")}, {dataDir});
    try {
      const r = await n.rpc(ADMIN, "admin.lockProfile");
      expect(r.body.error).toEqual({
        code: -32000,
        message: expect.stringMatching(/^couldn't write the lock profile: E[A-Z]+$/),
      });
      const s = await n.rpc(ADMIN, "admin.startCPUProfiler");
      expect(s.body.error?.message).toMatch(/^couldn't start the CPU profiler: E[A-Z]+$/);
      await n
        .rpc(ADMIN, "admin.stopCPUProfiler")
        .then((x) => expect(x.body.error?.message).toBe("cpu profiler doesn't exist"));
    } finally {
      await n.close();
    }
  });
});

describe("admin.loadVMs", () => {
  it("loads new plugins with their aliases, reports failures, and nothing new the second time", async () => {
    const first = (await ok("loadVMs")) as {newVMs: Record<string, string[]>; failedVMs?: Record<string, string>};
    expect(first.newVMs).toEqual({[VM_BY_ID]: [], [VM_BY_ALIAS]: ["myvm", "othervm"]});
    expect(first.failedVMs).toEqual({
      [VM_NOT_EXEC]: `plugin ${VM_NOT_EXEC} is not executable`,
      garbage: 'invalid vmID: "garbage": the file name is neither a CB58 VM ID nor an alias in --vm-aliases-file',
    });
    const second = (await ok("loadVMs")) as {newVMs: Record<string, string[]>; failedVMs?: Record<string, string>};
    expect(second.newVMs).toEqual({});
    expect(Object.keys(second.failedVMs!)).toEqual(Object.keys(first.failedVMs!));

    // fixed plugins load on the next call; failedVMs is omitted when nothing failed
    chmodSync(path.join(pluginDir, VM_NOT_EXEC), 0o755);
    rmSync(path.join(pluginDir, "garbage"));
    const [a, b] = await Promise.all([call("loadVMs"), call("loadVMs")]);
    const results = [a!.body.result, b!.body.result];
    expect(results).toContainEqual({newVMs: {[VM_NOT_EXEC]: []}});
    expect(results).toContainEqual({newVMs: {}});
  });

  it("treats a missing plugin dir as no plugins and a broken aliases file as an error", async () => {
    const dataDir = tempDir();
    const aliases = path.join(dataDir, "aliases.json");
    writeFileSync(aliases, JSON.stringify({notAnId: ["a"]}));
    const n = await startNode({"api-admin-enabled": "true", "vm-aliases-file": aliases}, {dataDir});
    try {
      let r = await n.rpc(ADMIN, "admin.loadVMs");
      expect(r.body.error).toEqual({code: -32000, message: 'invalid --vm-aliases-file: "notAnId" is not a CB58 VM ID'});
      writeFileSync(aliases, "{}");
      r = await n.rpc(ADMIN, "admin.loadVMs");
      expect(r.body.result).toEqual({newVMs: {}});
      expect(existsSync(path.join(dataDir, "plugins"))).toBe(false);
    } finally {
      await n.close();
    }
  });
});

describe("admin.getConfig", () => {
  it("returns the effective configuration keyed by flag name", async () => {
    const c = (await ok("getConfig")) as Record<string, unknown>;
    expect(Object.keys(c)).toEqual(FLAGS.map((f) => f.name));
    expect(c).toMatchObject({
      "api-admin-enabled": true,
      "http-port": 0,
      "http-host": "127.0.0.1",
      "profile-dir": profileDir,
      "plugin-dir": pluginDir,
      "network-id": "mainnet",
      "health-check-frequency": "100ms",
      "http-allowed-origins": ["*"],
      "log-level": "INFO",
      "config-file": null,
    });
  });
});

describe("admin.dbGet", () => {
  it("reads raw keys with AvalancheGo's result codes", async () => {
    expect(await ok("dbGet", {key: "0x0102"})).toEqual({value: "0xcafe", errorCode: 0});
    expect(await ok("dbGet", {key: "0x0103"})).toEqual({value: "", errorCode: 2});
    expect(await ok("dbGet", {key: ""})).toEqual({value: "", errorCode: 2});
    expect(await ok("dbGet", [{key: "0X0102"}])).toEqual({value: "0xcafe", errorCode: 0});
  });

  it("rejects malformed keys with Go's hex texts", async () => {
    await fails("dbGet", {key: "0102"}, -32602, "invalid params: key: missing 0x prefix to hex encoding");
    await fails("dbGet", {key: "0xzz"}, -32602, "invalid params: key: encoding/hex: invalid byte: U+007A 'z'");
    await fails("dbGet", {key: "0x123"}, -32602, "invalid params: key: encoding/hex: odd length hex string");
    await fails("dbGet", {}, -32602, "invalid params: key: missing required field");
  });

  it("reads the node's own database, and reports a closed database as errorCode 1", async () => {
    const n = await startNode({"api-admin-enabled": "true"});
    try {
      // Bucket 0x01 "hasRun" is written on every start (src/db/buckets.ts).
      expect(
        (await n.rpc(ADMIN, "admin.dbGet", {key: "0x01" + Buffer.from("hasRun").toString("hex")})).body.result,
      ).toEqual({value: "0x", errorCode: 0});
      expect((await n.rpc(ADMIN, "admin.dbGet", {key: "0xff"})).body.result).toEqual({value: "", errorCode: 2});
    } finally {
      await n.close();
    }
    const dir = tempDir();
    const closing = new Level<Uint8Array, Uint8Array>(dir, {keyEncoding: "view", valueEncoding: "view"});
    await closing.open();
    const m = await startNode({"api-admin-enabled": "true"}, {overrides: {rawDb: closing}});
    try {
      await closing.close();
      expect((await m.rpc(ADMIN, "admin.dbGet", {key: "0x0102"})).body.result).toEqual({value: "", errorCode: 1});
    } finally {
      await m.close();
      rmSync(dir, {recursive: true, force: true});
    }
  });
});

function readJson(name: string): unknown {
  return JSON.parse(readFileSync(path.join(profileDir, name), "utf8"));
}

/** Files 0640 in a directory 0750, as AvalancheGo's perms. */
function expectModes(name: string): void {
  expect(statSync(path.join(profileDir, name)).mode & 0o777).toBe(0o640);
  expect(statSync(profileDir).mode & 0o777).toBe(0o750);
}

/** Keeps the CPU busy so the profiler has samples. */
function busy(ms: number): void {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
}

async function waitFor(cond: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
