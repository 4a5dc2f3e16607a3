/**
 * The lanes behind the EVM follower's head (src/dataApi/views/evm/lanes.ts) against a real anvil, on both store
 * backends: a reorg rolls each lane back with the blocks it covered, and the lanes cover the new chain's blocks; a
 * trace answered for a block that a reorg then replaced is not written (the lane's commit is refused and it reads
 * again: a real HTTP proxy holds the trace's answer until the rollback is in); a chain without traces has no trace
 * lane to wait for, and its position moves with the head.
 */
import {createServer, type Server} from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, expect, it} from "vitest";
import {Anvil} from "../../../../../src/dev/evm/anvil.js";
import {DevFactory, DevToken} from "../../../../../src/dev/evm/artifacts.js";
import {contractAddress} from "../../../../../src/dev/evm/traffic.js";
import {encodeAbi, encodeCall} from "../../../../../src/evm/abi.js";
import {bytesToHex} from "../../../../../src/evm/hex.js";
import {EvmRpc, defaultEvmRpcOptions} from "../../../../../src/evm/rpc.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {EvmFollower, defaultEvmFollowerOptions} from "../../../../../src/dataApi/views/evm/follower.js";
import {tokenInfoReader} from "../../../../../src/dataApi/service.js";
import {untracedKey} from "../../../../../src/dataApi/views/evm/traceLane.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";

const CHAIN = "43112";
const ME = "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65";
const YOU = "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc";
const THEM = "0x976ea74026e726554db657fa54763abd0c3a0aa9";

/** Passes every request to anvil at once; while closed, holds the answers to `debug_trace*` requests. */
class TraceGate {
  private server!: Server;
  private open = true;
  private readonly held: Array<() => void> = [];
  url = "";
  heldCount = 0;
  /** While set, every `debug_trace*` call is answered with the error a pruned node gives. */
  refuse = false;
  refused = 0;

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        if (this.refuse && body.includes('"debug_trace')) {
          this.refused++;
          const calls = JSON.parse(body) as Array<{id: number}>;
          const error = {code: -32000, message: "required historical state unavailable (reexec=128)"};
          return void res
            .writeHead(200, {"content-type": "application/json"})
            .end(JSON.stringify(calls.map((c) => ({jsonrpc: "2.0", id: c.id, error}))));
        }
        const r = await fetch(this.target, {method: "POST", headers: {"content-type": "application/json"}, body});
        const text = await r.text();
        if (!this.open && body.includes('"debug_trace')) {
          this.heldCount++;
          await new Promise<void>((release) => this.held.push(release));
        }
        res.writeHead(r.status, {"content-type": "application/json"}).end(text);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): void {
    this.open = false;
  }

  release(): void {
    this.open = true;
    this.held.splice(0).forEach((r) => r());
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

describeBackends("EVM lanes", (backend) => {
  let anvil: Anvil;
  let gate: TraceGate;
  let sql: SqlClient;
  let follower: EvmFollower;
  let factory: string;
  const logger = quietLogger();
  let ts = 1_700_000_010;

  const send = (tx: Record<string, unknown>): Promise<unknown> =>
    anvil.rawCall("eth_sendTransaction", [{gas: "0x7a1200", ...tx}]);
  const mine = async (): Promise<bigint> => {
    await anvil.rawCall("evm_mine", [{timestamp: ts++}]);
    return BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
  };
  const nonce = async (): Promise<number> =>
    Number(BigInt((await anvil.rawCall("eth_getTransactionCount", [ME, "pending"])) as string));
  const fanout = (to: string[], value: bigint): Promise<unknown> =>
    send({
      from: ME,
      to: factory,
      value: "0x" + value.toString(16),
      data: encodeCall("fanout(address[])", ["address[]"], [to]),
    });
  const deployToken = async (name: string): Promise<string> => {
    const at = contractAddress(ME, await nonce());
    await send({
      from: ME,
      data:
        DevToken.bytecode +
        bytesToHex(encodeAbi(["string", "string", "uint256"], [name, name.slice(0, 3).toUpperCase(), 1000n])),
    });
    return at.toLowerCase();
  };
  const row = async (): Promise<{head: string; tokens: string; traces: string; reorgs: string}> =>
    (
      await sql.query<{head: string; tokens: string; traces: string; reorgs: string}>(
        "SELECT head_number::text AS head, token_lane::text AS tokens, trace_lane::text AS traces, reorgs::text AS reorgs FROM evm_chains WHERE chain_id = $1",
        [CHAIN],
      )
    )[0]!;
  const internals = async (block: bigint): Promise<string[]> =>
    (
      await sql.query<{to: string; value: string}>(
        "SELECT encode(to_addr, 'hex') AS to, value::text AS value FROM evm_internal_txs WHERE chain_id = $1 AND block_number = $2 ORDER BY tx_index, idx",
        [CHAIN, block],
      )
    ).map((r) => `0x${r.to}:${r.value}`);
  const kindsOf = async (address: string, block: bigint): Promise<number[]> =>
    (
      await sql.query<{kinds: number}>(
        "SELECT kinds FROM evm_address_txs WHERE chain_id = $1 AND address = $2 AND block_number = $3 ORDER BY tx_index",
        [CHAIN, Buffer.from(address.slice(2), "hex"), block],
      )
    ).map((r) => r.kinds);

  beforeAll(async () => {
    anvil = await Anvil.start({chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "manual"}, {logger});
    factory = contractAddress(ME, await nonce()).toLowerCase();
    await send({from: ME, data: DevFactory.bytecode});
    await mine();
    gate = new TraceGate(anvil.url);
    await gate.start();
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger});
    const rpc = (): EvmRpc => new EvmRpc({...defaultEvmRpcOptions, url: gate.url}, {logger});
    const lanes = {
      ...defaultEvmFollowerOptions.lanes,
      pollMs: 20,
      traces: {...defaultEvmFollowerOptions.lanes.traces, maxAttempts: 2},
    };
    follower = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: CHAIN, blockchainId: null, pollMs: 20, lanes},
      {sql, rpc: rpc(), logger, tokenInfo: tokenInfoReader(rpc()), traceRpc: rpc()},
    );
    follower.start();
    await follower.waitFor(1n);
  });
  afterAll(async () => {
    await follower?.close();
    await sql?.close();
    await gate?.stop();
    await anvil?.stop();
  });

  it("rolls each lane back with the blocks a reorg dropped, and covers the new chain's blocks", async () => {
    const snap = await anvil.rawCall("evm_snapshot", []);
    await fanout([YOU, THEM], 1000n);
    const dropped = await deployToken("Dropped");
    const n = await mine();
    await follower.waitFor(n);
    expect(await internals(n)).toEqual([`${YOU}:500`, `${THEM}:500`]);
    expect(await kindsOf(YOU, n)).toEqual([16]);
    expect(await row()).toMatchObject({head: String(n), tokens: String(n), traces: String(n), reorgs: "0"});

    await anvil.rawCall("evm_revert", [snap]);
    await fanout([THEM], 7n);
    const kept = await deployToken("Kept");
    const n2 = await mine();
    await mine();
    await follower.waitFor(n2 + 1n);
    // The dropped block's internal transactions and who took part in them are gone; the new block's are there.
    expect(await internals(n)).toEqual([`${THEM}:7`]);
    expect(await kindsOf(YOU, n)).toEqual([]);
    expect(await kindsOf(THEM, n)).toEqual([16]);
    expect(await row()).toMatchObject({
      head: String(n2 + 1n),
      tokens: String(n2 + 1n),
      traces: String(n2 + 1n),
      reorgs: "1",
    });
    const tokens = await sql.query<{address: string; name: string}>(
      "SELECT '0x' || encode(address, 'hex') AS address, name FROM evm_tokens WHERE chain_id = $1 ORDER BY name",
      [CHAIN],
    );
    // The same deployer and nonce on the new chain: another contract at the dropped token's address, read again.
    expect(kept).toBe(dropped);
    expect(tokens).toEqual([{address: kept, name: "Kept"}]);
  });

  it("refuses a trace lane's write for a block a reorg replaced while its trace was in flight, and traces the new one", async () => {
    const snap = await anvil.rawCall("evm_snapshot", []);
    gate.close();
    const held = gate.heldCount;
    await fanout([YOU], 1000n);
    const n = await mine();
    await follower.waitForHead(n);
    // The trace of the first block `n` is answered, and held on its way back.
    await expect.poll(() => gate.heldCount, {timeout: 10_000}).toBeGreaterThan(held);
    const reorgs = Number((await row()).reorgs);
    await anvil.rawCall("evm_revert", [snap]);
    await fanout([THEM], 3n);
    await mine();
    await mine();
    await expect.poll(async () => Number((await row()).reorgs), {timeout: 10_000}).toBe(reorgs + 1);
    await follower.waitForHead(n + 1n);
    gate.release();
    await follower.waitFor(n + 1n);
    expect(await internals(n)).toEqual([`${THEM}:3`]);
    expect(await kindsOf(YOU, n)).toEqual([]);
    expect(follower.status().lanes.traces).toMatchObject({covered: n + 1n, lag: 0n, lastError: null});
  });

  it("leaves the blocks the node will not trace untraced after their attempts, records them, and goes on", async () => {
    gate.refuse = true;
    // Two such blocks, which the lane may meet in one step or apart: both are left untraced, neither holds it.
    await fanout([YOU, THEM], 1000n);
    const n = await mine();
    await fanout([THEM], 5n);
    const n1 = await mine();
    await follower.waitForHead(n1);
    await expect.poll(() => follower.status().lanes.traces?.skipped ?? 0, {timeout: 30_000}).toBe(2);
    expect(gate.refused).toBeGreaterThanOrEqual(2);
    gate.refuse = false;
    await fanout([THEM], 9n);
    const n2 = await mine();
    await follower.waitFor(n2);
    expect(await internals(n)).toEqual([]);
    expect(await internals(n1)).toEqual([]);
    expect(await internals(n2)).toEqual([`${THEM}:9`]);
    const [meta] = await sql.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = $1", [
      untracedKey(CHAIN),
    ]);
    const reason = (b: bigint): string =>
      `block ${b}: debug_traceBlockByHash: required historical state unavailable (reexec=128)`;
    expect(JSON.parse(meta!.value)).toEqual([
      {number: String(n), reason: reason(n)},
      {number: String(n1), reason: reason(n1)},
    ]);
    expect(follower.status().lanes.traces).toMatchObject({covered: n2, lag: 0n, lastError: null, skipped: 2});
  }, 60_000);

  it("has no trace lane on a chain without traces: its position moves with the head", async () => {
    const other = await backend.open();
    await migrate(other, MIGRATIONS, {logger});
    const rpc = (): EvmRpc => new EvmRpc({...defaultEvmRpcOptions, url: anvil.url}, {logger});
    const f = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: CHAIN, blockchainId: null, pollMs: 20, traces: "off"},
      {sql: other, rpc: rpc(), logger, tokenInfo: tokenInfoReader(rpc())},
    );
    f.start();
    try {
      const head = BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
      await f.waitFor(head, 30_000);
      expect(f.status().lanes.traces).toBeNull();
      const [r] = await other.query<{trace_lane: string; head: string}>(
        "SELECT trace_lane::text, head_number::text AS head FROM evm_chains WHERE chain_id = $1",
        [CHAIN],
      );
      expect(r).toEqual({trace_lane: String(head), head: String(head)});
      const [{n}] = await other.query<{n: number}>("SELECT count(*)::int4 AS n FROM evm_internal_txs");
      expect(n).toBe(0);
    } finally {
      await f.close();
      await other.close();
    }
  });
});
