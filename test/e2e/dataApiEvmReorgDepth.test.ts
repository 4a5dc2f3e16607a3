/**
 * `--evm-max-reorg-depth` over the real wire (issue 49): a node follows an EVM chain through a forwarding JSON-RPC
 * server (a real node:http server on 127.0.0.1) in front of a real anvil. A reorg within the depth (evm_snapshot /
 * evm_revert, then other blocks) is rolled back and followed; then the same URL forwards to a second anvil with the
 * same chain ID and another history (what a second writer following another EVM did to a shared store): no common
 * block within the depth, so the chain's view stops with an error naming the block, in `/ext/health`,
 * `/v1/health-check` and `/v1/chains`, and the store keeps what it had instead of being refolded from genesis.
 */
import {createServer, type Server} from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {startNode, type TestNode} from "../helpers/node.js";

const CHAIN = "777";
const DEPTH = 4;

/** Forwards every JSON-RPC POST to `target`. */
class Forwarder {
  target = "";
  private server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        fetch(this.target, {method: "POST", headers: {"content-type": "application/json"}, body: Buffer.concat(chunks)})
          .then(async (r) =>
            res.writeHead(r.status, {"content-type": "application/json"}).end(Buffer.from(await r.arrayBuffer())),
          )
          .catch(() => res.writeHead(502).end("upstream down"));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

interface Health {
  checks: Record<
    string,
    {
      message?: {head?: string | null; stopped?: {fromBlock: string; blockHash: string | null; error: string}};
      error?: unknown;
    }
  >;
}

describe.each(STORE_BACKENDS)("EVM reorg depth ($name)", (backend) => {
  const logger = quietLogger();
  let a: Anvil;
  let b: Anvil;
  const fwd = new Forwarder();
  let t: TestNode;
  const follower = () => t.node.dataApi!.evm!.chains.find((c) => c.chainId === CHAIN)!.follower!;
  const mine = async (anvil: Anvil, n: number, ts: number): Promise<void> => {
    for (let i = 0; i < n; i++) await anvil.rawCall("evm_mine", [{timestamp: ts + i}]);
  };
  const hashOf = async (n: number): Promise<string> =>
    ((await t.get(`/v1/chains/${CHAIN}/blocks/${n}`)).json() as {blockHash: string}).blockHash;
  const until = async <T>(what: string, f: () => Promise<T | null | undefined>, ms = 30_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await f();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    // Same chain ID, other genesis times: every block hash differs from block 0 up.
    a = await Anvil.start({chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "manual"}, {logger});
    b = await Anvil.start({chainId: Number(CHAIN), genesisTimestamp: 1_600_000_000, mining: "manual"}, {logger});
    await mine(a, 10, 1_700_000_010);
    await mine(b, 20, 1_600_000_010);
    await fwd.start();
    fwd.target = a.url;
    t = await startNode({
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "dev-backfill": "0",
      "dev-evm": false,
      "data-api-enabled": true,
      "data-api-db": await backend.db(),
      "data-api-rate-limit": "0",
      "evm-rpc": `${CHAIN}=${fwd.url}`,
      "evm-max-reorg-depth": String(DEPTH),
      "health-check-frequency": "200ms",
    });
    await follower().waitForHead(10n);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await fwd.stop();
    await a?.stop();
    await b?.stop();
  });

  it("rolls back a reorg within the depth and follows the new blocks", async () => {
    const snap = await a.rawCall("evm_snapshot", []);
    await mine(a, 2, 1_700_000_100);
    await follower().waitForHead(12n);
    const old12 = await hashOf(12);
    await a.rawCall("evm_revert", [snap]);
    await mine(a, 3, 1_700_000_200); // blocks 11-13, other times: 11 and 12 replaced (2 deep, within 4)
    await follower().waitForHead(13n);
    const now12 = await hashOf(12);
    expect(now12).not.toBe(old12);
    expect(now12).toBe(((await a.rawCall("eth_getBlockByNumber", ["0xc", false])) as {hash: string}).hash);
    expect(follower().status()).toMatchObject({status: "OK", stopped: null});
  }, 60_000);

  it("stops the chain's view, naming the block, when no common block is within the depth: nothing refolded", async () => {
    const ours13 = await hashOf(13);
    const ours0 = await hashOf(0);
    fwd.target = b.url;
    const h = await until("the evm check to fail with the reorg", async () => {
      const body = (await t.get("/ext/health")).json() as Health;
      const c = body.checks[`evm:${CHAIN}`];
      return c?.message?.stopped ? c : null;
    });
    expect(h.message!.stopped).toMatchObject({fromBlock: "13", blockHash: ours13});
    expect(h.message!.stopped!.error).toMatch(/reorg deeper than --evm-max-reorg-depth 4/);
    expect(String(h.error)).toMatch(/stopped at block 13 \(0x[0-9a-f]{64}\)/);
    const v1 = await t.get("/v1/health-check");
    expect(v1.status).toBe(503);
    expect(JSON.stringify(v1.json())).toContain("reorg deeper than --evm-max-reorg-depth 4");
    const chains = (await t.get("/v1/chains")).json() as {
      chains: Array<{chainId: string; status: string; indexing?: {lastError?: string}}>;
    };
    const c = chains.chains.find((x) => x.chainId === CHAIN)!;
    expect(c.status).toBe("UNAVAILABLE");
    expect(c.indexing?.lastError).toMatch(/block 13/);
    // The store keeps the first chain's blocks: not rolled back, not refolded from the second's genesis.
    await new Promise((r) => setTimeout(r, 1000));
    expect(follower().status().head).toBe(13n);
    expect(await hashOf(0)).toBe(ours0);
    expect(await hashOf(13)).toBe(ours13);
    expect((await t.get(`/v1/chains/${CHAIN}/blocks/14`)).status).toBe(404);
  }, 60_000);
});
