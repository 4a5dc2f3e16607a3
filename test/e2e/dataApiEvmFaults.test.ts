/**
 * The data API's EVM followers when an RPC misbehaves, over the real wire: a node follows a real anvil (auto mining)
 * and four chains served by one deliberately misbehaving JSON-RPC server (a real node:http server on 127.0.0.1,
 * one path per chain, each switched between modes by the test):
 * - 11: garbage (not JSON), then HTTP 500, then a tiny valid chain;
 * - 12: hangs past the RPC timeout, then valid;
 * - 13: answers the wrong chain ID, then valid;
 * - 14: a block whose receipt is another transaction's, then valid.
 * While they misbehave the anvil chain keeps folding (a transaction sent meanwhile is served), the process answers,
 * `/v1/chains` shows each bad chain UNAVAILABLE with `indexing.lastError` naming why, and the `evm:<id>` health
 * check fails with the reason (GET and JSON-RPC); once valid, each recovers to OK and serves its block 0.
 *
 * EvmRpc's defaults (20 s timeout, 5 retries) would make a hanging RPC take 6 × 20 s before the follower even
 * reports it: the test lowers them in-process (nothing exposes them as flags yet). The follower's own backoff
 * (1 s, 2 s, 4 s, ... up to 30 s) is fixed, so the test switches modes as soon as each one is seen.
 */
import {createServer, type Server, type ServerResponse} from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {defaultEvmRpcOptions} from "../../src/evm/rpc.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {startNode, type TestNode} from "../helpers/node.js";

const GOOD = "99999";
const ME = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const YOU = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";

const BACKENDS = STORE_BACKENDS;

type Mode =
  | "good"
  | "garbage"
  | "http500"
  | "hang"
  | "wrongChain"
  | "badReceipts"
  | "gethGenesis"
  | "otherChain"
  | "blankHead";

const word = (b: string): string => "0x" + b.repeat(32);
const BLOCK0 = {
  number: "0x0",
  hash: word("a0"),
  parentHash: word("00"),
  timestamp: "0x6553f100",
  gasUsed: "0x0",
  gasLimit: "0x1c9c380",
  baseFeePerGas: "0x3b9aca00",
  transactions: [] as unknown[],
};
const TX1 = {
  hash: word("c1"),
  from: "0x" + "11".repeat(20),
  to: "0x" + "22".repeat(20),
  value: "0x1",
  nonce: "0x0",
  gas: "0x5208",
  gasPrice: "0x3b9aca00",
  type: "0x0",
  input: "0x",
};
const BLOCK1 = {
  ...BLOCK0,
  number: "0x1",
  hash: word("a1"),
  parentHash: BLOCK0.hash,
  timestamp: "0x6553f10a",
  gasUsed: "0x5208",
  transactions: [TX1],
};
const EMPTY1 = {...BLOCK1, gasUsed: "0x0", transactions: []};
/** Another chain's genesis (what an RPC URL now pointing at another network serves). */
const OTHER0 = {...BLOCK0, hash: word("b0")};

/** One JSON-RPC server, one path per chain (`/chain/<id>`), each in the mode the test sets. */
class BadRpc {
  readonly modes = new Map<string, Mode>();
  readonly hits = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();
  private server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const chain = /^\/chain\/(\d+)$/.exec(req.url ?? "")?.[1] ?? "";
        this.hits.set(chain, (this.hits.get(chain) ?? 0) + 1);
        const mode = this.modes.get(chain) ?? "good";
        if (mode === "garbage")
          return void res
            .writeHead(200, {"content-type": "application/json"})
            .end("<html>502 Bad Gateway, but with a 200</html>");
        if (mode === "http500") return void res.writeHead(500).end("internal error: upstream exploded");
        if (mode === "hang") {
          this.hanging.add(res);
          res.on("close", () => this.hanging.delete(res));
          return;
        }
        const batch = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Array<{
          id: number;
          method: string;
          params: unknown[];
        }>;
        res.writeHead(200, {"content-type": "application/json"});
        res.end(
          JSON.stringify(
            batch.map((r) => ({jsonrpc: "2.0", id: r.id, ...this.answer(chain, mode, r.method, r.params)})),
          ),
        );
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A tiny valid chain (block 0 only), or with `badReceipts` a block 1 whose receipt is another transaction's. */
  private answer(
    chain: string,
    mode: Mode,
    method: string,
    params: unknown[],
  ): {result: unknown} | {error: {code: number; message: string}} {
    const n = typeof params[0] === "string" ? params[0] : "";
    const bad = mode === "badReceipts";
    const geth = mode === "gethGenesis";
    switch (method) {
      case "eth_chainId":
        return {result: "0x" + BigInt(mode === "wrongChain" || mode === "otherChain" ? 1 : Number(chain)).toString(16)};
      case "eth_blockNumber":
        return {result: mode === "blankHead" ? "" : bad || geth ? "0x1" : "0x0"};
      case "eth_getBlockByNumber":
        if (n === "0x0") return {result: mode === "otherChain" ? OTHER0 : BLOCK0};
        return {result: n === "0x1" && bad ? BLOCK1 : n === "0x1" && geth ? EMPTY1 : null};
      case "eth_getBlockReceipts":
        if (n === "0x1" && bad)
          return {
            result: [
              {
                transactionHash: word("ee"),
                status: "0x1",
                gasUsed: "0x5208",
                effectiveGasPrice: "0x3b9aca00",
                logs: [],
              },
            ],
          };
        return {result: n === "0x0" || (n === "0x1" && geth) ? [] : null};
      case "debug_traceBlockByNumber":
        if (n === "0x1" && bad)
          return {
            result: [
              {
                txHash: TX1.hash,
                result: {type: "CALL", from: TX1.from, to: TX1.to, value: "0x1", gas: "0x5208", gasUsed: "0x5208"},
              },
            ],
          };
        // geth, coreth and subnet-evm cannot trace the genesis block (eth/tracers/api.go).
        if (n === "0x0" && geth) return {error: {code: -32000, message: "genesis is not traceable"}};
        return {result: []};
      default:
        return {error: {code: -32601, message: `the method ${method} does not exist/is not available`}};
    }
  }

  async stop(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

interface ChainInfo {
  chainId: string;
  status: string;
  indexing?: {head: string | null; rpcHead: string | null; internalTransactions: boolean | null; lastError?: string};
}
interface HealthReport {
  healthy: boolean;
  checks: Record<string, {message?: unknown; error?: unknown; contiguousFailures?: number}>;
}

describe.each(BACKENDS)("data API, EVM followers against a misbehaving RPC ($name)", (backend) => {
  let anvil: Anvil;
  const bad = new BadRpc();
  let t: TestNode;
  const saved = {...defaultEvmRpcOptions};

  const sendTx = async (tx: Record<string, unknown>): Promise<string> => {
    const hash = (await anvil.rawCall("eth_sendTransaction", [{gas: "0x7a1200", ...tx}])) as string;
    for (let i = 0; i < 100; i++) {
      if (await anvil.rawCall("eth_getTransactionReceipt", [hash])) return hash;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no receipt for ${hash}`);
  };
  const follower = (id: string) => t.node.dataApi!.evm!.chains.find((c) => c.chainId === id)!.follower!;
  const caughtUp = async (): Promise<void> => {
    const head = BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
    await follower(GOOD).waitFor(head, 20_000);
  };
  const chains = async (): Promise<Map<string, ChainInfo>> => {
    const r = await t.get("/v1/chains");
    expect(r.status).toBe(200);
    return new Map((r.json() as {chains: ChainInfo[]}).chains.map((c) => [c.chainId, c]));
  };
  const health = async (): Promise<HealthReport> => (await t.get("/ext/health")).json() as HealthReport;
  /** Polls until `check` passes (it throws until then), or fails with its last error. */
  const eventually = async <T>(check: () => Promise<T>, timeoutMs = 20_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await check();
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const unavailable = async (id: string, why: RegExp): Promise<void> => {
    await eventually(async () => {
      const c = (await chains()).get(id)!;
      expect(c.status).toBe("UNAVAILABLE");
      expect(c.indexing?.lastError).toMatch(why);
      const h = await health();
      expect(h.healthy).toBe(false);
      expect(String(h.checks[`evm:${id}`]?.error ?? "")).toMatch(why);
      // The SDK's dataHealthCheck: 503, the chain down with its reason, the good chain up.
      const v1 = await t.get("/v1/health-check");
      expect(v1.status).toBe(503);
      const dto = v1.json() as {
        status: string;
        error: Record<string, {status: string; message: string}>;
        details: Record<string, {status: string}>;
      };
      expect(dto.status).toBe("error");
      expect(dto.error[`evm:${id}`]?.message).toMatch(why);
      expect(dto.details[`evm:${GOOD}`]).toEqual({status: "up"});
    });
  };

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(GOOD), genesisTimestamp: 1_700_000_000, mining: "auto"},
      {logger: quietLogger()},
    );
    await sendTx({from: ME, to: YOU, value: "0x1"});
    await sendTx({from: YOU, to: ME, value: "0x2"});
    await bad.start();
    bad.modes.set("11", "garbage");
    bad.modes.set("12", "hang");
    bad.modes.set("13", "wrongChain");
    bad.modes.set("14", "badReceipts");
    // See the header: a 1 s timeout and one retry, so a hanging RPC is reported in ~2 s, not ~2 min.
    Object.assign(defaultEvmRpcOptions, {timeoutMs: 1000, retries: 1, retryBaseMs: 50});
    const evmRpc = [
      `${GOOD}=${anvil.url}`,
      ...["11", "12", "13", "14"].map((id) => `${id}=${bad.url}/chain/${id}`),
    ].join(",");
    t = await startNode({
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "dev-evm": false,
      "data-api-enabled": true,
      "data-api-db": await backend.db(),
      "data-api-rate-limit": "0",
      "evm-rpc": evmRpc,
    });
    await caughtUp();
  }, 180_000);

  afterAll(async () => {
    Object.assign(defaultEvmRpcOptions, saved);
    await t?.close();
    await bad.stop();
    await anvil?.stop();
  });

  it("reports each misbehaving chain UNAVAILABLE with the reason, in /v1/chains and the health checks", async () => {
    await unavailable("11", /not JSON/);
    await unavailable("12", /timed out after 1000 ms/);
    await unavailable("13", /answers chain ID 1, not 13/);
    await unavailable("14", /block 1 .*malformed: .*receipt 0 is not transaction 0's/);
    // The JSON-RPC health API says the same.
    const r = await t.rpc("/ext/health", "health.health");
    const report = r.body.result as HealthReport;
    expect(report.healthy).toBe(false);
    expect(String(report.checks["evm:13"]?.error)).toMatch(/answers chain ID 1, not 13/);
    // The good chain is OK throughout.
    const good = (await chains()).get(GOOD)!;
    expect(good.status).toBe("OK");
    expect(good.indexing?.lastError).toBeUndefined();
    expect((await health()).checks[`evm:${GOOD}`]?.error).toBeUndefined();
    // Nothing of the chains whose RPC never answered well was folded; chain 14's block 0 was good, so it was
    // folded before its malformed block 1 stopped the batch.
    const heads = Object.fromEntries(["11", "12", "13", "14"].map((id) => [id, follower(id).status().head]));
    expect(heads).toEqual({"11": null, "12": null, "13": null, "14": 0n});
  }, 120_000);

  it("switches chain 11 from garbage to HTTP 500, and the reason follows", async () => {
    bad.modes.set("11", "http500");
    await unavailable("11", /HTTP 500 internal error: upstream exploded/);
  }, 120_000);

  it("keeps folding the good chain and answering while the others misbehave", async () => {
    const before = new Map([...bad.hits]);
    const hash = await sendTx({from: ME, to: YOU, value: "0x3e8"});
    await caughtUp();
    const tx = await t.get(`/v1/chains/${GOOD}/transactions/${hash}`);
    expect(tx.status, tx.text).toBe(200);
    expect((tx.json() as {nativeTransaction: {txHash: string; value: string}}).nativeTransaction).toMatchObject({
      txHash: hash,
      value: "1000",
    });
    const list = await t.get(`/v1/chains/${GOOD}/addresses/${YOU}/transactions`);
    expect(list.status).toBe(200);
    expect(
      (list.json() as {transactions: Array<{nativeTransaction: {txHash: string}}>}).transactions.map(
        (x) => x.nativeTransaction.txHash,
      ),
    ).toContain(hash);
    expect((await t.get("/ext/health/liveness")).status).toBe(200);
    // The bad chains are still being retried (not given up on) meanwhile.
    await eventually(async () => {
      for (const id of ["11", "13"]) expect(bad.hits.get(id) ?? 0).toBeGreaterThan(before.get(id) ?? 0);
    });
    // A bad chain's endpoints answer from what is stored (nothing), not a 500.
    const empty = await t.get("/v1/chains/13/blocks");
    expect(empty.status).toBe(200);
    expect((empty.json() as {blocks: unknown[]}).blocks).toEqual([]);
  }, 120_000);

  it("recovers each chain to OK once its RPC serves a valid chain", async () => {
    for (const id of ["11", "12", "13", "14"]) bad.modes.set(id, "good");
    // The follower backs off up to 30 s after repeated failures; each of these has failed a few times at most.
    await eventually(async () => {
      const all = await chains();
      for (const id of ["11", "12", "13", "14"]) {
        const c = all.get(id)!;
        expect(c.status, `chain ${id}: ${c.indexing?.lastError}`).toBe("OK");
        expect(c.indexing).toMatchObject({head: "0", rpcHead: "0", internalTransactions: true});
        expect(c.indexing?.lastError).toBeUndefined();
      }
      const h = await health();
      for (const id of ["11", "12", "13", "14", GOOD])
        expect(h.checks[`evm:${id}`]?.error, `evm:${id}`).toBeUndefined();
    }, 90_000);
    const block = await t.get("/v1/chains/14/blocks/0");
    expect(block.status, block.text).toBe(200);
    expect(block.json()).toMatchObject({blockNumber: "0", blockHash: BLOCK0.hash});
  }, 120_000);
});

/** Odd but real RPC behaviours: geth-based nodes that cannot trace genesis, an RPC that switches chains, a malformed head. */
describe("data API, EVM follower against odd RPCs (pglite)", () => {
  const bad = new BadRpc();
  let t: TestNode;
  const saved = {...defaultEvmRpcOptions};
  const follower = (id: string) => t.node.dataApi!.evm!.chains.find((c) => c.chainId === id)!.follower!;
  const chain = async (id: string): Promise<ChainInfo> => (await t.get(`/v1/chains/${id}`)).json() as ChainInfo;
  /** Waits until the follower of `id` has asked the RPC `n` more times. */
  const polls = async (id: string, n: number): Promise<void> => {
    const start = bad.hits.get(id) ?? 0;
    const deadline = Date.now() + 15_000;
    while ((bad.hits.get(id) ?? 0) < start + n) {
      if (Date.now() > deadline) throw new Error(`chain ${id}: fewer than ${n} requests in 15 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    await bad.start();
    bad.modes.set("15", "gethGenesis");
    bad.modes.set("16", "good");
    bad.modes.set("17", "blankHead");
    Object.assign(defaultEvmRpcOptions, {timeoutMs: 1000, retries: 1, retryBaseMs: 50});
    const evmRpc = ["15", "16", "17"].map((id) => `${id}=${bad.url}/chain/${id}`).join(",");
    t = await startNode({
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "dev-evm": false,
      "data-api-enabled": true,
      "data-api-db": "embedded",
      "data-api-rate-limit": "0",
      "evm-rpc": evmRpc,
    });
    await follower("16").waitFor(0n, 10_000);
  }, 180_000);

  afterAll(async () => {
    Object.assign(defaultEvmRpcOptions, saved);
    await t?.close();
    await bad.stop();
  });

  // Geth-based nodes (coreth, subnet-evm) refuse to trace the genesis block ("genesis is not traceable"): that is
  // not a chain without traces, and its empty genesis block needs none.
  it("a geth-like RPC that cannot trace the genesis block still has internal transactions", async () => {
    await follower("15").waitFor(1n, 10_000);
    const c = await chain("15");
    expect(c.status).toBe("OK");
    expect(c.indexing?.internalTransactions).toBe(true);
  }, 120_000);

  // An RPC that later answers for another chain (a URL now pointing at another network, a load balancer's bad
  // backend) looks like a reorg down to genesis: the chain ID is checked again before any rollback.
  it("an RPC that starts answering for another chain is refused, not taken for a reorg", async () => {
    expect((await chain("16")).status).toBe("OK");
    bad.modes.set("16", "otherChain");
    await polls("16", 10);
    const block = (await t.get("/v1/chains/16/blocks/0")).json() as {blockHash: string};
    expect(block.blockHash).toBe(BLOCK0.hash);
    const c = await chain("16");
    expect(c.status).toBe("UNAVAILABLE");
    expect(c.indexing?.lastError).toMatch(/chain ID 1, not 16/);
  }, 120_000);

  // eth_blockNumber and eth_chainId answers must be JSON-RPC quantities: "" is not block 0.
  it('an eth_blockNumber of "" is a malformed answer, not block 0', async () => {
    await polls("17", 2);
    const c = await chain("17");
    expect(c.status).toBe("UNAVAILABLE");
    expect(c.indexing?.lastError).toMatch(/quantity/);
  }, 120_000);
});
