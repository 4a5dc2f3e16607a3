/**
 * Head freshness with slow extras, over the real wire, on both store backends: a node follows a real anvil through a
 * real HTTP proxy (node:http on 127.0.0.1) that holds every request carrying an `eth_call` (token metadata) or a
 * `debug_trace*` (internal transactions) for 5 s before passing it on. A block and its transactions are served within
 * 2 s of anvil having them all the same; the new token's metadata and the internal transactions come later, from
 * their lanes (src/dataApi/views/evm/lanes.ts), and are then what the chain says. While they lag, /ext/health and the
 * metrics show each lane's lag; a kill of the process loses nothing of a lane (dataApiEvmCrash.test.ts).
 */
import {createServer, type Server} from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {DevFactory, DevToken} from "../../src/dev/evm/artifacts.js";
import {contractAddress} from "../../src/dev/evm/traffic.js";
import {encodeAbi, encodeCall} from "../../src/evm/abi.js";
import {bytesToHex, checksumAddress} from "../../src/evm/hex.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {startNode, type TestNode} from "../helpers/node.js";

const CHAIN = "99998";
const ME = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"; // anvil account 4
const YOU = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"; // anvil account 5
const THEM = "0x976EA74026E726554dB657fA54763abd0C3a0aa9"; // anvil account 6
const SLOW_MS = 5000;
/** A block is served within this long of the node having it (the design note's freshness rule). */
const FRESH_MS = 2000;

/** Holds each request that carries a slow method for SLOW_MS, then passes it to anvil. */
class SlowProxy {
  private server!: Server;
  url = "";
  held = 0;

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const parsed = JSON.parse(body) as {method?: string} | Array<{method?: string}>;
        const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((c) => c.method ?? "");
        if (methods.some((m) => m === "eth_call" || m.startsWith("debug_trace"))) {
          this.held++;
          await new Promise((r) => setTimeout(r, SLOW_MS));
        }
        try {
          const r = await fetch(this.target, {method: "POST", headers: {"content-type": "application/json"}, body});
          res.writeHead(r.status, {"content-type": "application/json"}).end(await r.text());
        } catch {
          res.destroy();
        }
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

describe.each(STORE_BACKENDS)("data API, EVM lanes behind the head ($name)", (backend) => {
  let anvil: Anvil;
  let proxy: SlowProxy;
  let t: TestNode;
  let factory: string;

  const rpc = (method: string, params: unknown[]): Promise<unknown> => anvil.rawCall(method, params);
  /** Sends through anvil itself (not the proxy), and returns once anvil serves the receipt. */
  const sendTx = async (tx: Record<string, unknown>): Promise<{hash: string; block: bigint; at: number}> => {
    const hash = (await rpc("eth_sendTransaction", [{gas: "0x7a1200", ...tx}])) as string;
    for (let i = 0; i < 200; i++) {
      const r = (await rpc("eth_getTransactionReceipt", [hash])) as {blockNumber: string} | null;
      if (r) return {hash, block: BigInt(r.blockNumber), at: Date.now()};
      await new Promise((res) => setTimeout(res, 10));
    }
    throw new Error(`no receipt for ${hash}`);
  };
  const follower = () => t.node.dataApi!.evm!.chains.find((c) => c.follower?.status().chainId === CHAIN)!.follower!;
  /** Polls `path` until it answers 200; returns the answer and when it came. */
  const served = async (path: string, timeoutMs = 10_000): Promise<{body: Record<string, unknown>; at: number}> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await t.get(path);
      if (r.status === 200) return {body: r.json() as Record<string, unknown>, at: Date.now()};
      if (Date.now() > deadline) throw new Error(`${path}: ${r.status} ${r.text}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  };

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "auto"},
      {logger: quietLogger()},
    );
    factory = contractAddress(ME, Number(BigInt((await rpc("eth_getTransactionCount", [ME, "latest"])) as string)));
    await sendTx({from: ME, data: DevFactory.bytecode});
    proxy = new SlowProxy(anvil.url);
    await proxy.start();
    const flags = {
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "dev-evm": false,
      "data-api-enabled": true,
      "data-api-db": await backend.db(),
      "data-api-rate-limit": "0",
      "evm-rpc": `${CHAIN}=${proxy.url}`,
    };
    t = await startNode(flags);
    await follower().waitFor(BigInt((await rpc("eth_blockNumber", [])) as string), 60_000);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await anvil?.stop();
  });

  it("serves a new token's block and transactions within 2 s; its metadata follows from the token lane", async () => {
    const token = contractAddress(ME, Number(BigInt((await rpc("eth_getTransactionCount", [ME, "latest"])) as string)));
    const deploy = await sendTx({
      from: ME,
      data:
        DevToken.bytecode + bytesToHex(encodeAbi(["string", "string", "uint256"], ["Slow Token", "SLOW", 10n ** 24n])),
    });
    const tx = await served(`/v1/chains/${CHAIN}/transactions/${deploy.hash}`);
    const block = await served(`/v1/chains/${CHAIN}/blocks/${deploy.block}`);
    expect(tx.at - deploy.at, "the transaction served within 2 s").toBeLessThan(FRESH_MS);
    expect(block.at - deploy.at, "the block served within 2 s").toBeLessThan(FRESH_MS);
    // The mint's transfer is there at once; its token's name, symbol and decimals are not read yet.
    const mint = () => (tx.body.erc20Transfers as Array<{erc20Token: Record<string, unknown>; value: string}>)[0]!;
    expect(mint()).toMatchObject({
      value: (10n ** 24n).toString(),
      erc20Token: {address: checksumAddress(token), name: "", symbol: "", decimals: 0, ercType: "ERC-20"},
    });
    const lanes = follower().status().lanes;
    expect(lanes.tokens.lag! > 0n || lanes.tokens.covered! < deploy.block, "the token lane lags").toBe(true);
    // The health check and the metrics say how far behind each lane is.
    // Health checks run every 100 ms (test/helpers/node.ts), so the answer may be from before the block: wait for
    // one that has it, well inside the 5 s the lane is held.
    type Details = {head?: string; lanes?: Record<string, {lag: number | null}>};
    let details: Details | undefined;
    for (const deadline = Date.now() + 3000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const health = (await t.get("/ext/health")).json() as {checks: Record<string, {message?: Details}>};
      details = health.checks[`evm:${CHAIN}`]?.message;
      if (details?.head !== undefined && BigInt(details.head) >= deploy.block) break;
    }
    expect(details?.lanes?.tokens?.lag, JSON.stringify(details)).toBeGreaterThan(0);
    expect((await t.get("/ext/metrics")).text).toMatch(
      new RegExp(`data_api_evm_lane_lag_blocks\\{chain="${CHAIN}",lane="tokens"\\} [1-9]`),
    );

    await follower().waitFor(deploy.block, 30_000);
    tx.body = (await served(`/v1/chains/${CHAIN}/transactions/${deploy.hash}`)).body;
    expect(mint().erc20Token).toEqual({
      address: checksumAddress(token),
      name: "Slow Token",
      symbol: "SLOW",
      decimals: 18,
      ercType: "ERC-20",
    });
    const contract = (await served(`/v1/chains/${CHAIN}/addresses/${token}`)).body;
    expect(contract).toMatchObject({ercType: "ERC-20", name: "Slow Token", symbol: "SLOW", decimals: 18});
    expect(follower().status().lanes.tokens).toMatchObject({lag: 0n, lastError: null});
  }, 60_000);

  it("serves a block with internal calls within 2 s; its internal transactions follow from the trace lane", async () => {
    const fanout = await sendTx({
      from: ME,
      to: factory,
      value: "0x3e8",
      data: encodeCall("fanout(address[])", ["address[]"], [[YOU, THEM]]),
    });
    const tx = await served(`/v1/chains/${CHAIN}/transactions/${fanout.hash}`);
    expect(tx.at - fanout.at, "the transaction served within 2 s").toBeLessThan(FRESH_MS);
    expect(tx.body.nativeTransaction).toMatchObject({txHash: fanout.hash, value: "1000"});
    // Not traced yet: no internal transactions, and THEM (only called internally) does not list the transaction.
    expect(tx.body.internalTransactions).toBeUndefined();
    const listed = async (): Promise<string[]> =>
      (
        (await served(`/v1/chains/${CHAIN}/addresses/${THEM}/transactions`)).body.transactions as Array<{
          nativeTransaction: {txHash: string};
        }>
      ).map((x) => x.nativeTransaction.txHash);
    expect(await listed()).not.toContain(fanout.hash);
    expect(follower().status().lanes.traces!.lag! > 0n, "the trace lane lags").toBe(true);

    await follower().waitFor(fanout.block, 30_000);
    const traced = (await served(`/v1/chains/${CHAIN}/transactions/${fanout.hash}`)).body as {
      internalTransactions: Array<Record<string, unknown>>;
    };
    expect(traced.internalTransactions.map((i) => [i.internalTxType, i.from, i.to, i.value, i.isReverted])).toEqual([
      ["CALL", {address: checksumAddress(factory)}, {address: YOU}, "500", false],
      ["CALL", {address: checksumAddress(factory)}, {address: THEM}, "500", false],
    ]);
    const internals = (await served(`/v1/chains/${CHAIN}/addresses/${THEM}/transactions:listInternals`)).body
      .transactions as Array<Record<string, unknown>>;
    expect(internals.find((x) => x.txHash === fanout.hash)).toMatchObject({
      to: {address: THEM},
      internalTxType: "CALL",
      value: "500",
      isReverted: false,
    });
    expect(await listed()).toContain(fanout.hash);
    expect(follower().status().lanes.traces).toMatchObject({lag: 0n, lastError: null});
  }, 60_000);

  it("keeps every block served within 2 s while both lanes are held on each of a run of blocks", async () => {
    const lags: number[] = [];
    for (let i = 0; i < 4; i++) {
      const token = await sendTx({
        from: ME,
        data: DevToken.bytecode + bytesToHex(encodeAbi(["string", "string", "uint256"], [`Run ${i}`, `R${i}`, 1000n])),
      });
      const call = await sendTx({
        from: ME,
        to: factory,
        value: "0x2",
        data: encodeCall("fanout(address[])", ["address[]"], [[YOU, THEM]]),
      });
      for (const s of [token, call]) lags.push((await served(`/v1/chains/${CHAIN}/transactions/${s.hash}`)).at - s.at);
    }
    expect(Math.max(...lags), `served after ${lags.join(", ")} ms`).toBeLessThan(FRESH_MS);
    const head = BigInt((await rpc("eth_blockNumber", [])) as string);
    await follower().waitFor(head, 60_000);
    expect(proxy.held).toBeGreaterThan(0);
  }, 120_000);
});
