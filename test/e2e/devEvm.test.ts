/**
 * The dev network's EVM (docs/development.md) as an operator meets it: it is the C-chain (index, primary view and
 * EVM view agree on every hash), a crash of its process is logged and healed (a fresh EVM, the schedule replayed
 * into it, the same hashes), and a restart of avaext replays it to the same chain.
 */
import {existsSync, readFileSync} from "node:fs";
import {afterAll, describe, expect, it} from "vitest";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const FLAGS = {
  "network-id": "local",
  "index-enabled": true,
  feed: "dev",
  "dev-backfill": "1h",
  "data-api-enabled": true,
  "data-api-rate-limit": "0",
};

async function blockHashes(t: TestNode, upTo: number): Promise<string[]> {
  const out: string[] = [];
  for (let n = 1; n <= upTo; n++) {
    const r = await t.get(`/v1/chains/43112/blocks/${n}`);
    expect(r.status).toBe(200);
    out.push((r.json() as {blockHash: string}).blockHash);
  }
  return out;
}

async function anvilHash(t: TestNode, n: number): Promise<string> {
  const res = await fetch(t.node.devFeed!.evmUrl()!, {
    method: "POST",
    headers: {"content-type": "application/json"},
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_getBlockByNumber",
      params: ["0x" + n.toString(16), false],
    }),
  });
  return ((await res.json()) as {result: {hash: string} | null}).result?.hash ?? "";
}

const evmHead = (t: TestNode): bigint => t.node.dataApi!.evm!.chains[0]!.follower!.status().head ?? -1n;

describe("the dev network's EVM", () => {
  const dataDir = tempDir();
  let t: TestNode | null = null;
  afterAll(async () => t?.close());

  it("heals a crash of its process: a fresh EVM replays the same chain and the C-chain goes on", async () => {
    t = await startNode(FLAGS, {dataDir, keepData: true, captureLogs: true});
    await expect.poll(() => evmHead(t!), {timeout: 60_000}).toBeGreaterThanOrEqual(13n);
    const before = await blockHashes(t, 13);
    const pid = t.node.devFeed!.evmPid()!;
    // The pid is anvil's sh wrapper (src/dev/evm/anvil.ts spawnTied): the crash is anvil's own, so the wrapper
    // sees it and exits. Killing the wrapper instead left anvil running, orphaned, after the test process ended.
    const anvil = anvilUnder(pid);
    // Anvil keeps older states on disk under its HOME and removes them only on a graceful exit: its HOME is a
    // folder of its own, removed once it has exited, however that happened.
    const home = anvilHome(anvil);
    expect(home).toMatch(/avaext-anvil-/);
    expect(existsSync(home)).toBe(true);
    process.kill(anvil, "SIGKILL");
    await expect
      .poll(() => t!.node.devFeed!.evmPid() !== pid && t!.node.devFeed!.evmFailure() === null, {timeout: 30_000})
      .toBe(true);
    await expect.poll(() => existsSync(home), {timeout: 10_000}).toBe(false);
    await expect
      .poll(() => t!.logs.some((l) => String(l.msg).includes("the dev EVM is down")), {timeout: 30_000})
      .toBe(true);
    // The replayed chain is the same chain, block for block, and it grows again.
    const head = evmHead(t);
    await expect.poll(() => evmHead(t!), {timeout: 30_000}).toBeGreaterThan(head);
    for (let n = 1; n <= 13; n++) expect(await anvilHash(t, n)).toBe(before[n - 1]);
    expect(await blockHashes(t, 13)).toEqual(before);
  }, 120_000);

  it("replays to the same chain after a restart of avaext", async () => {
    const before = await blockHashes(t!, 13);
    const home = anvilHome(anvilUnder(t!.node.devFeed!.evmPid()!));
    await t!.close();
    expect(existsSync(home)).toBe(false);
    t = await startNode(FLAGS, {dataDir, keepData: true});
    await expect.poll(async () => anvilHash(t!, 13), {timeout: 60_000}).toBe(before[12]);
    for (let n = 1; n <= 13; n++) expect(await anvilHash(t, n)).toBe(before[n - 1]);
    const primary = await t.get("/v1/networks/local/blockchains/c-chain/blocks/13");
    expect((primary.json() as {blockHash: string}).blockHash).toBe(before[12]);
  }, 120_000);
});

describe("the dev network's EVM over /ext/bc/C/rpc", () => {
  let t: TestNode;
  afterAll(async () => t?.close());

  it("answers reads as the EVM does, refuses writes, and serves the C-chain ID's path too", async () => {
    t = await startNode({...FLAGS, "dev-backfill": "1h"});
    await expect.poll(() => evmHead(t), {timeout: 60_000}).toBeGreaterThanOrEqual(5n);
    const rpc = async (path: string, body: unknown): Promise<unknown> =>
      (await t.post(path, JSON.stringify(body), {"content-type": "application/json"})).json();
    expect(await rpc("/ext/bc/C/rpc", {jsonrpc: "2.0", id: 7, method: "eth_chainId", params: []})).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: "0xa868",
    });
    const block = (await rpc("/ext/bc/C/rpc", {
      jsonrpc: "2.0",
      id: "x",
      method: "eth_getBlockByNumber",
      params: ["0x3", false],
    })) as {result: {hash: string}};
    expect(block.result.hash).toBe(await anvilHash(t, 3));
    const batch = (await rpc(`/ext/bc/${t.node.chains.network.chainIds.C}/rpc`, [
      {jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: []},
      {jsonrpc: "2.0", id: 2, method: "eth_sendRawTransaction", params: ["0x00"]},
      {jsonrpc: "2.0", id: 3, method: "anvil_setBalance", params: ["0x" + "1".repeat(40), "0x1"]},
      {id: 4},
    ])) as Array<{id: unknown; result?: unknown; error?: {code: number; message: string}}>;
    expect(batch.map((b) => b.id)).toEqual([1, 2, 3, 4]);
    expect(typeof batch[0]!.result).toBe("string");
    expect(batch[1]!.error).toMatchObject({code: -32601, message: expect.stringMatching(/read-only/)});
    expect(batch[2]!.error?.code).toBe(-32601);
    expect(batch[3]!.error?.code).toBe(-32600);
    expect((await t.get("/ext/bc/C/rpc")).status).toBe(405);
    expect(await rpc("/ext/bc/C/rpc", "not json")).toMatchObject({error: {code: -32600}});
  }, 120_000);
});

/** The HOME a process runs with. */
function anvilHome(pid: number): string {
  const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  return env.find((e) => e.startsWith("HOME="))!.slice("HOME=".length);
}

/** The anvil binary under its sh wrapper (its one child on Linux), else the wrapper itself. */
function anvilUnder(wrapper: number): number {
  try {
    const child = Number(readFileSync(`/proc/${wrapper}/task/${wrapper}/children`, "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(child) && child > 0 ? child : wrapper;
  } catch {
    return wrapper;
  }
}
