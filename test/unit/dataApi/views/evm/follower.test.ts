/**
 * The EVM follower against a real anvil, on both store backends: blocks, transactions and native transfers as
 * the test sent them, a real reorg (evm_snapshot / evm_revert, then a different block at the same height) rolled
 * back to the common ancestor, and a wrong chain ID reported without stopping.
 */
import {createServer} from "node:http";
import {afterAll, beforeAll, expect, it} from "vitest";
import {Anvil} from "../../../../../src/dev/evm/anvil.js";
import {EvmRpc, defaultEvmRpcOptions} from "../../../../../src/evm/rpc.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {EvmFollower, defaultEvmFollowerOptions} from "../../../../../src/dataApi/views/evm/follower.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";

const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const A2 = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";

describeBackends("EVM follower", (backend) => {
  let anvil: Anvil;
  let sql: SqlClient;
  let follower: EvmFollower;
  const logger = quietLogger();

  beforeAll(async () => {
    anvil = await Anvil.start({chainId: 43112, genesisTimestamp: 1_700_000_000, mining: "manual"}, {logger});
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger});
  });
  afterAll(async () => {
    await follower?.close();
    await sql?.close();
    await anvil?.stop();
  });

  const send = (from: string, to: string, value: bigint): Promise<unknown> =>
    anvil.rawCall("eth_sendTransaction", [{from, to, value: "0x" + value.toString(16)}]);
  const mine = async (ts: number): Promise<void> => {
    await anvil.rawCall("evm_mine", [{timestamp: ts}]);
  };

  /** The chain's fee total (the AVAX supply's burned part) is its stored blocks' fees: each tx's gas × price, 21,000 gas each. */
  async function expectFeesKept(txs: number): Promise<void> {
    const [r] = await sql.query<{total: string; blocks: string; n: string}>(
      `SELECT c.fees_total::text AS total, (SELECT sum(fees_spent)::text FROM evm_blocks WHERE chain_id = c.chain_id) AS blocks,
              (SELECT count(*)::text FROM evm_txs WHERE chain_id = c.chain_id) AS n
       FROM evm_chains c WHERE c.chain_id = '43112'`,
    );
    expect(r!.n).toBe(String(txs));
    expect(r!.total).toBe(r!.blocks);
    expect(BigInt(r!.total) >= BigInt(txs) * 21_000n).toBe(true);
  }

  it("folds blocks, transactions and who took part, as sent", async () => {
    await send(A0, A1, 10n ** 18n);
    await send(A1, A2, 5n);
    await mine(1_700_000_010);
    await send(A2, A0, 7n);
    await mine(1_700_000_020);
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url: anvil.url}, {logger});
    follower = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: "43112", blockchainId: null, pollMs: 20},
      {sql, rpc, logger, tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null})},
    );
    follower.start();
    await follower.waitFor(2n);
    const blocks = await sql.query<{number: bigint; tx_count: number; cumulative_txs: bigint; timestamp: bigint}>(
      "SELECT number, tx_count, cumulative_txs, timestamp FROM evm_blocks WHERE chain_id = '43112' ORDER BY number",
    );
    expect(blocks.map((b) => [b.number, b.tx_count, b.cumulative_txs, b.timestamp])).toEqual([
      [0n, 0, 0n, 1_700_000_000n],
      [1n, 2, 2n, 1_700_000_010n],
      [2n, 1, 3n, 1_700_000_020n],
    ]);
    const a1 = await sql.query<{block_number: bigint; kinds: number}>(
      "SELECT block_number, kinds FROM evm_address_txs WHERE chain_id = '43112' AND address = $1 ORDER BY block_number, tx_index",
      [Buffer.from(A1.slice(2), "hex")],
    );
    expect(a1.map((r) => [r.block_number, r.kinds])).toEqual([
      [1n, 1],
      [1n, 1],
    ]);
    const txs = await sql.query<{status: number; value: string}>(
      "SELECT status, value::text AS value FROM evm_txs WHERE chain_id = '43112' ORDER BY block_number, tx_index",
    );
    expect(txs.map((t) => t.value)).toEqual([(10n ** 18n).toString(), "5", "7"]);
    expect(txs.every((t) => t.status === 1)).toBe(true);
    expect(follower.status()).toMatchObject({status: "OK", chainId: "43112", head: 2n, traces: true});
    await expectFeesKept(3);
  });

  it("rolls a reorg back to the common ancestor and follows the new chain", async () => {
    const snap = await anvil.rawCall("evm_snapshot", []);
    await send(A0, A2, 111n);
    await mine(1_700_000_030);
    await follower.waitFor(3n);
    const before = await sql.query<{hash: Uint8Array}>(
      "SELECT hash FROM evm_blocks WHERE chain_id = '43112' AND number = 3",
    );
    await anvil.rawCall("evm_revert", [snap]);
    await send(A0, A1, 222n);
    await mine(1_700_000_031);
    await send(A0, A1, 333n);
    await mine(1_700_000_040);
    await follower.waitFor(4n);
    const after = await sql.query<{hash: Uint8Array}>(
      "SELECT hash FROM evm_blocks WHERE chain_id = '43112' AND number = 3",
    );
    expect(Buffer.from(after[0]!.hash).equals(Buffer.from(before[0]!.hash))).toBe(false);
    const remote = (await anvil.rawCall("eth_getBlockByNumber", ["0x3", false])) as {hash: string};
    expect("0x" + Buffer.from(after[0]!.hash).toString("hex")).toBe(remote.hash);
    const values = await sql.query<{value: string}>(
      "SELECT value::text AS value FROM evm_txs WHERE chain_id = '43112' AND block_number >= 3 ORDER BY block_number",
    );
    expect(values.map((v) => v.value)).toEqual(["222", "333"]);
    const a2 = await sql.query<{n: number}>(
      "SELECT count(*)::int4 AS n FROM evm_address_txs WHERE chain_id = '43112' AND address = $1 AND block_number = 3",
      [Buffer.from(A2.slice(2), "hex")],
    );
    expect(a2[0]!.n).toBe(0);
    const [{cumulative_txs}] = await sql.query<{cumulative_txs: bigint}>(
      "SELECT cumulative_txs FROM evm_blocks WHERE chain_id = '43112' AND number = 4",
    );
    expect(cumulative_txs).toBe(5n);
    // The reorged-out block's fees are taken back from the chain's total.
    await expectFeesKept(5);
  });

  it("reports a wrong chain ID and keeps trying without stopping", async () => {
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url: anvil.url, retries: 0}, {logger});
    const wrong = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: "43114", blockchainId: null, pollMs: 20},
      {sql, rpc, logger, tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null})},
    );
    wrong.start();
    await expect.poll(() => wrong.status().lastError, {timeout: 20_000}).toMatch(/answers chain ID 43112, not 43114/);
    expect(wrong.status().status).toBe("UNAVAILABLE");
    await wrong.close();
  });

  it("asks for smaller batches when the RPC refuses one for its size, and goes on", async () => {
    // A node with a batch limit (AvalancheGo: batch-request-limit) in front of the same anvil.
    const limit = 10;
    const proxy = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", async () => {
        const parsed = JSON.parse(body) as unknown[];
        if (Array.isArray(parsed) && parsed.length > limit) {
          res.writeHead(200, {"content-type": "application/json"}).end(
            JSON.stringify({
              jsonrpc: "2.0",
              id: null,
              error: {code: -32600, message: `batch too large: ${parsed.length} > ${limit}`},
            }),
          );
          return;
        }
        const r = await fetch(anvil.url, {method: "POST", headers: {"content-type": "application/json"}, body});
        res.writeHead(200, {"content-type": "application/json"}).end(await r.text());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(proxy.address() as {port: number}).port}`;
    try {
      const other = await backend.open();
      await migrate(other, MIGRATIONS, {logger});
      const rpc = new EvmRpc({...defaultEvmRpcOptions, url, retries: 0}, {logger});
      const f = new EvmFollower(
        {...defaultEvmFollowerOptions, chainId: "43112", blockchainId: null, pollMs: 20},
        {sql: other, rpc, logger, tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null})},
      );
      f.start();
      const head = BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
      await f.waitFor(head, 30_000);
      await f.close();
      const [{n}] = await other.query<{n: number}>(
        "SELECT count(*)::int4 AS n FROM evm_blocks WHERE chain_id = '43112'",
      );
      expect(BigInt(n)).toBe(head + 1n);
      await other.close();
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });
  it("stops at a block the store refuses by a constraint (the fold's error): named, counted once, not retried", async () => {
    const other = await backend.open();
    await migrate(other, MIGRATIONS, {logger});
    // A constraint block 3 violates (SQLSTATE 23514): every try would fail the same way.
    await other.exec(`CREATE FUNCTION refuse_block() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.number = 3 THEN RAISE EXCEPTION 'test: block 3 violates a check' USING ERRCODE = 'check_violation'; END IF;
      RETURN NEW; END $$;
      CREATE TRIGGER refuse_block BEFORE INSERT ON evm_blocks FOR EACH ROW EXECUTE FUNCTION refuse_block();`);
    const counted = {error: 0, stopped: [] as string[]};
    const metrics = {
      blocks: () => {},
      txs: () => {},
      reorg: () => {},
      error: () => void counted.error++,
      stopped: (c: string) => void counted.stopped.push(c),
    };
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url: anvil.url, retries: 0}, {logger});
    const f = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: "43112", blockchainId: null, pollMs: 20},
      {
        sql: other,
        rpc,
        logger,
        metrics,
        tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null}),
      },
    );
    f.start();
    try {
      await expect.poll(() => f.status().stopped, {timeout: 30_000}).not.toBeNull();
      const block3 = (await anvil.rawCall("eth_getBlockByNumber", ["0x3", false])) as {hash: string};
      // Narrowed from the batch (blocks 0-4) to the block: the ones before it are folded.
      expect(f.status()).toMatchObject({
        status: "UNAVAILABLE",
        head: 2n,
        stopped: {fromBlock: "3", toBlock: "3", blockHash: block3.hash, error: "test: block 3 violates a check"},
      });
      expect(f.status().lastError).toContain(`block 3 (${block3.hash}): test: block 3 violates a check`);
      await new Promise((r) => setTimeout(r, 300));
      expect(counted).toEqual({error: 0, stopped: ["43112"]});
      const [{n}] = await other.query<{n: number}>(
        "SELECT count(*)::int4 AS n FROM evm_blocks WHERE chain_id = '43112'",
      );
      expect(n).toBe(3);
    } finally {
      await f.close();
      await other.close();
    }
  });

  it("reads its head back from the store after a write that committed but answered an error, and goes on", async () => {
    for (let i = 0; i < 4; i++) await mine(1_800_000_000 + i);
    // The store committed the batch and the connection was lost before the answer (the server restarting as COMMIT
    // ran): the client sees an outage. Retrying from the head in memory would write the same blocks again (23505).
    const other = await backend.open();
    await migrate(other, MIGRATIONS, {logger});
    let lost = 0;
    // The head's writes are transactions that insert its blocks; the first to commit is the one whose answer is lost.
    // Every other member is the store's own, bound to it (a driver's private fields do not follow a prototype).
    const transaction = async <T>(fn: Parameters<SqlClient["transaction"]>[0]): Promise<T> => {
      const out = (await other.transaction(fn)) as T;
      const [{n}] = await other.query<{n: number}>(
        "SELECT count(*)::int4 AS n FROM evm_blocks WHERE chain_id = '43112'",
      );
      if (n > 0 && lost++ === 0) throw new Error("Connection terminated unexpectedly");
      return out;
    };
    const flaky = new Proxy(other, {
      get: (target, key) => {
        if (key === "transaction") return transaction;
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as SqlClient;
    const head = BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
    const counted = {stopped: 0};
    const metrics = {
      blocks: () => {},
      txs: () => {},
      reorg: () => {},
      error: () => {},
      stopped: () => void counted.stopped++,
    };
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url: anvil.url, retries: 0}, {logger});
    const opts = {...defaultEvmFollowerOptions, chainId: "43112", blockchainId: null, pollMs: 20, batchBlocks: 2};
    const f = new EvmFollower(opts, {
      sql: flaky,
      rpc,
      logger,
      metrics,
      tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null}),
    });
    f.start();
    try {
      await f.waitFor(head, 30_000);
      expect(f.status().stopped).toBeNull();
      expect(counted.stopped).toBe(0);
      const [{n, txs}] = await other.query<{n: number; txs: string}>(
        "SELECT count(*)::int4 AS n, max(cumulative_txs)::text AS txs FROM evm_blocks WHERE chain_id = '43112'",
      );
      const [{m}] = await other.query<{m: number}>("SELECT count(*)::int4 AS m FROM evm_txs WHERE chain_id = '43112'");
      expect(BigInt(n)).toBe(head + 1n);
      expect(txs).toBe(String(m)); // the running count neither lost nor counted the committed batch twice
    } finally {
      await f.close();
      await other.close();
    }
  });

  it("tries a block that failed by the fold's error once more before stopping: a passing failure does not stop it", async () => {
    const other = await backend.open();
    await migrate(other, MIGRATIONS, {logger});
    for (let i = 0; i < 4; i++) await mine(1_850_000_000 + i);
    // Block 2 is refused twice (in its batch, then alone), then accepted: a transient failure that carried a fold's
    // SQLSTATE. The refusals are counted by a sequence, which the rolled-back transactions do not undo.
    await other.exec(`CREATE SEQUENCE refusals;
      CREATE FUNCTION refuse_twice() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.number = 2 THEN IF nextval('refusals') <= 2 THEN
        RAISE EXCEPTION 'test: block 2 refused' USING ERRCODE = 'check_violation'; END IF; END IF;
      RETURN NEW; END $$;
      CREATE TRIGGER refuse_twice BEFORE INSERT ON evm_blocks FOR EACH ROW EXECUTE FUNCTION refuse_twice();`);
    const counted = {stopped: 0};
    const metrics = {
      blocks: () => {},
      txs: () => {},
      reorg: () => {},
      error: () => {},
      stopped: () => void counted.stopped++,
    };
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url: anvil.url, retries: 0}, {logger});
    const head = BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
    const opts = {...defaultEvmFollowerOptions, chainId: "43112", blockchainId: null, pollMs: 20};
    const f = new EvmFollower(opts, {
      sql: other,
      rpc,
      logger,
      metrics,
      tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null}),
    });
    f.start();
    try {
      // Refused in its batch (then narrowed to it) and once alone: the try after that passes.
      await f.waitFor(head, 30_000);
      expect(f.status().stopped).toBeNull();
      expect(counted.stopped).toBe(0);
      const [{v}] = await other.query<{v: string}>("SELECT last_value::text AS v FROM refusals");
      expect(Number(v)).toBe(3);
    } finally {
      await f.close();
      await other.close();
    }
  });

  it("folds the blocks of a batch before one that fails to derive, then stays at that block", async () => {
    // An RPC that serves block 3 malformed (its transactions not a list), in front of the same anvil.
    for (let i = 0; i < 5; i++) await mine(1_900_000_000 + i);
    const proxy = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", async () => {
        const r = await fetch(anvil.url, {method: "POST", headers: {"content-type": "application/json"}, body});
        const answer = JSON.parse(await r.text()) as unknown;
        const calls = (Array.isArray(JSON.parse(body)) ? JSON.parse(body) : [JSON.parse(body)]) as Array<{
          method: string;
          params: unknown[];
        }>;
        const answers = (Array.isArray(answer) ? answer : [answer]) as Array<{
          id: unknown;
          result?: {number?: string; transactions?: unknown};
        }>;
        for (const a of answers) {
          const call = calls.find((c) => (c as {id?: unknown}).id === a.id);
          if (call?.method === "eth_getBlockByNumber" && a.result?.number === "0x3")
            a.result.transactions = "not a list";
        }
        res
          .writeHead(200, {"content-type": "application/json"})
          .end(JSON.stringify(Array.isArray(answer) ? answers : answers[0]));
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(proxy.address() as {port: number}).port}`;
    const other = await backend.open();
    await migrate(other, MIGRATIONS, {logger});
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url, retries: 0}, {logger});
    const opts = {...defaultEvmFollowerOptions, chainId: "43112", blockchainId: null, pollMs: 20};
    const f = new EvmFollower(opts, {
      sql: other,
      rpc,
      logger,
      tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null}),
    });
    f.start();
    try {
      // One batch (0 to the head); blocks 0-2 are folded although block 3 of the same batch does not derive.
      await f.waitFor(2n, 20_000);
      await expect.poll(() => f.status().lastError ?? "", {timeout: 10_000}).toContain("block 3");
      expect(f.status().head).toBe(2n);
    } finally {
      await f.close();
      await other.close();
      await new Promise((r) => proxy.close(r));
    }
  });

  it("retries an RPC that does not answer, and never stops for it", async () => {
    const counted = {error: 0, stopped: 0};
    const metrics = {
      blocks: () => {},
      txs: () => {},
      reorg: () => {},
      error: () => void counted.error++,
      stopped: () => void counted.stopped++,
    };
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(dead.address() as {port: number}).port}`;
    await new Promise((r) => dead.close(r));
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url, retries: 0}, {logger});
    const f = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: "43112", blockchainId: null, pollMs: 20},
      {sql, rpc, logger, metrics, tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null})},
    );
    f.start();
    try {
      await expect.poll(() => counted.error, {timeout: 10_000}).toBeGreaterThanOrEqual(2);
      expect(f.status()).toMatchObject({status: "UNAVAILABLE", stopped: null});
      expect(f.status().lastError).toBeTruthy();
      expect(counted.stopped).toBe(0);
    } finally {
      await f.close();
    }
  });
});
