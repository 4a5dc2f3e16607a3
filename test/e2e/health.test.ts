/** The health API over HTTP (docs/api/health.md): GET probes, JSON-RPC, tags, failing checks, gauge. */
import {afterEach, describe, expect, it} from "vitest";
import {idleFeed, startNode as start, type TestNode} from "../helpers/node.js";

/** Health tests drive the feed status by hand, so the node runs with a feed that does nothing. */
const startNode = (
  flags: Record<string, unknown> = {},
  opts: Parameters<typeof start>[1] = {},
): ReturnType<typeof start> => start(flags, {...opts, overrides: {feed: idleFeed, ...opts.overrides}});

const SUBNET = "11111111111111111111111111111111LpoYY";
let t: TestNode | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** Makes the feed look connected and caught up, with a block on every chain. */
function feedHealthy(n: TestNode): void {
  const f = n.node.feedStatus;
  f.sent();
  f.received();
  f.setCaughtUp(true);
  f.accepted("P", 7n, "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM");
}

/**
 * Waits until a GET returns the wanted status with every check run at least once (rounds run every 100 ms in
 * tests): a report served before the first round ends is 503 with "not yet run" errors, not the failure sought.
 */
async function until(n: TestNode, path: string, status: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await n.get(path);
    const settled = () => Object.values((r.json() as Report).checks).every((c) => c.error !== "not yet run");
    if (r.status === status && settled()) return r.json() as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`${path} stayed ${r.status}: ${r.text}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

type Report = {
  checks: Record<string, {message?: unknown; error?: string; contiguousFailures?: number}>;
  healthy: boolean;
};

describe("health API", () => {
  it("serves 503 while the feed is not connected and 200 once it is, with every check", async () => {
    t = await startNode();
    const bad = (await until(t, "/ext/health", 503)) as Report;
    expect(bad.healthy).toBe(false);
    expect(bad.checks.network!.error).toMatch(/^network layer is unhealthy reason: not connected/);
    expect(bad.checks.bootstrapped!.error).toBe("subnets not bootstrapped");
    feedHealthy(t);
    const good = (await until(t, "/ext/health", 200)) as Report;
    expect(Object.keys(good.checks)).toEqual([
      "C",
      "P",
      "X",
      "bootstrapped",
      "database",
      "diskspace",
      "network",
      "router",
    ]);
    expect(good.checks.P!.message).toEqual({
      engine: {
        consensus: {
          lastAcceptedHeight: 7,
          lastAcceptedID: "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
          longestProcessingBlock: "0s",
          processingBlocks: 0,
        },
        vm: null,
      },
      networking: {percentConnected: 1},
    });
    expect((good.checks.diskspace!.message as {availableDiskBytes: number}).availableDiskBytes).toBeGreaterThan(0);
    expect(good.checks.router!.message).toMatchObject({outstandingRequests: expect.any(Number)});
    const r = await t.get("/ext/health/health");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
  });

  it("HEAD returns the status without a body; sub-paths answer any method; PUT on /ext/health is 405", async () => {
    t = await startNode();
    await until(t, "/ext/health", 503);
    const head = await fetch(new URL("/ext/health/readiness", t.url), {method: "HEAD"});
    expect(head.status).toBe(503);
    expect(await head.text()).toBe("");
    const post = await t.post("/ext/health/liveness", "{}");
    expect(post.json()).toEqual({checks: {}, healthy: true});
    const put = await fetch(new URL("/ext/health", t.url), {method: "PUT"});
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, POST");
  });

  it("filters by repeatable tag, always adding application checks", async () => {
    t = await startNode();
    feedHealthy(t);
    await until(t, "/ext/health", 200);
    const bySubnet = (await t.get(`/ext/health?tag=${SUBNET}`)).json() as Report;
    expect(Object.keys(bySubnet.checks)).toEqual([
      "C",
      "P",
      "X",
      "bootstrapped",
      "database",
      "diskspace",
      "network",
      "router",
    ]);
    const unknown = (await t.get("/ext/health?tag=nope&tag=other")).json() as Report;
    expect(Object.keys(unknown.checks)).toEqual(["bootstrapped", "database", "diskspace", "network", "router"]);
    const rpc = await t.rpc("/ext/health", "health.health", {tags: ["nope"]});
    expect(Object.keys((rpc.body.result as Report).checks)).toEqual([
      "bootstrapped",
      "database",
      "diskspace",
      "network",
      "router",
    ]);
  });

  it("JSON-RPC: HTTP 200 even when unhealthy; liveness has no checks; bad tags are -32602", async () => {
    t = await startNode();
    await until(t, "/ext/health", 503);
    const h = await t.rpc("/ext/health", "health.health");
    expect(h.status).toBe(200);
    expect((h.body.result as Report).healthy).toBe(false);
    expect((await t.rpc("/ext/health", "health.liveness")).body.result).toEqual({checks: {}, healthy: true});
    const ready = (await t.rpc("/ext/health", "health.readiness", [{tags: []}])).body.result as Report;
    expect(Object.keys(ready.checks)).toEqual(["bootstrapped"]);
    expect((await t.rpc("/ext/health", "health.health", {tags: "P"})).body.error).toEqual({
      code: -32602,
      message: "invalid params: tags: expected an array, got a string",
    });
    expect((await t.rpc("/ext/health", "health.Health")).body.error?.code).toBe(-32601);
  });

  it("readiness is monotonic while health's bootstrapped is not", async () => {
    t = await startNode();
    feedHealthy(t);
    await until(t, "/ext/health/readiness", 200);
    t.node.feedStatus.setCaughtUp(false);
    const h = (await until(t, "/ext/health", 503)) as Report;
    expect(h.checks.bootstrapped!.error).toBe("subnets not bootstrapped");
    expect((await t.get("/ext/health/readiness")).status).toBe(200);
  });

  it("diskspace fails below the warning threshold, counting contiguous failures", async () => {
    t = await startNode({"system-tracker-disk-warning-available-space-percentage": "100"});
    feedHealthy(t);
    const r = (await until(t, "/ext/health", 503)) as Report;
    expect(r.checks.diskspace!.error).toMatch(/is below warning threshold available space percentage \(100%\)$/);
    // Rounds run every 100 ms; under a loaded machine a round can take longer, so poll for the second failure.
    let failures = 0;
    for (let i = 0; i < 100 && failures <= 1; i++) {
      await new Promise((res) => setTimeout(res, 50));
      failures = ((await t.get("/ext/health")).json() as Report).checks.diskspace!.contiguousFailures ?? 0;
    }
    expect(failures).toBeGreaterThan(1);
  });

  it("router reports a request in flight", async () => {
    t = await startNode();
    const {request} = await import("node:http");
    // A request whose body never finishes stays in flight.
    const req = request({
      host: "127.0.0.1",
      port: t.url.port,
      path: "/ext/health",
      method: "POST",
      headers: {"content-type": "application/json", "content-length": "100"},
    });
    req.on("error", () => {});
    req.write("{");
    // Polled, not slept on: on a loaded machine the server may take a while to see the headers.
    let outstanding = 0;
    for (let i = 0; i < 100 && outstanding < 1; i++) {
      await new Promise((res) => setTimeout(res, 50));
      const r = (await t.get("/ext/health")).json() as Report;
      outstanding = (r.checks.router!.message as {outstandingRequests: number}).outstandingRequests;
    }
    expect(outstanding).toBeGreaterThanOrEqual(1);
    req.destroy();
  });

  it("shows shuttingDown during shutdown and exports the failing-checks gauge", async () => {
    t = await startNode();
    feedHealthy(t);
    await until(t, "/ext/health", 200);
    const m = (await t.get("/ext/metrics")).text;
    expect(m).toMatch(/avaext_health_checks_failing\{check="health",tag="application"\} 0/);
    expect(m).toMatch(/avaext_health_checks_failing\{check="liveness",tag="all"\} 0/);
    await t.node.health.markShuttingDown();
    const r = await t.get("/ext/health");
    expect(r.status).toBe(503);
    expect((r.json() as Report).checks.shuttingDown).toMatchObject({
      message: {isShuttingDown: true},
      error: "server shutting down",
    });
    const after = (await t.get("/ext/metrics")).text;
    expect(after).toMatch(/avaext_health_checks_failing\{check="health",tag="application"\} 1/);
    // An application check counts under every tag, as every report includes it (as AvalancheGo's gauge does).
    expect(after).toMatch(new RegExp(`avaext_health_checks_failing\\{check="health",tag="${SUBNET}"\\} 1`));
    expect(after).toMatch(/avaext_health_checks_failing\{check="health",tag="all"\} 1/);
  });

  it("is absent (404) when --api-health-enabled=false", async () => {
    t = await startNode({"api-health-enabled": "false"});
    expect((await t.get("/ext/health")).status).toBe(404);
    expect((await t.get("/ext/health/liveness")).status).toBe(404);
  });

  it("logs pass/fail transitions", async () => {
    t = await startNode({}, {captureLogs: true});
    await until(t, "/ext/health", 503);
    feedHealthy(t);
    await until(t, "/ext/health", 200);
    const msgs = t.logs.map((l) => `${l.msg as string}:${l.check as string}`);
    expect(msgs).toContain("health check failing:network");
    expect(msgs).toContain("health check passing:network");
    expect(msgs.filter((m) => m === "health check failing:network")).toHaveLength(1);
  });
});
