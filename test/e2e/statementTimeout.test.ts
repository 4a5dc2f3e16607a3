/**
 * /v1 reads on a PostgreSQL server are bounded (issue "Data API under hostile input": no statement timeout, no
 * cancellation): a read that runs past `--data-api-statement-timeout` is cancelled by the server and answered 503
 * while other reads go on, and a read whose client goes away is cancelled at once, not left running. The slow read
 * is made real by another session holding an exclusive lock on `txs`, which every primary-network list reads.
 */
import path from "node:path";
import pg from "pg";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {startNode, type TestNode} from "../helpers/node.js";
import {createTestDatabase} from "../helpers/sql.js";

const LIST = "/v1/networks/local/blockchains/p-chain/transactions?pageSize=1";

describe("statement timeout and cancellation on a PostgreSQL server", () => {
  let db: string;
  let ingest: TestNode;
  let serve: TestNode;
  let locker: pg.Client;

  /** Runs `fn` while another session holds `txs` exclusively. */
  const whileLocked = async <T>(fn: () => Promise<T>): Promise<T> => {
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE txs IN ACCESS EXCLUSIVE MODE");
    try {
      return await fn();
    } finally {
      await locker.query("ROLLBACK");
    }
  };
  /** The API reads of this process (not the fold's writes) waiting on that lock. */
  const waiting = async (): Promise<number> => {
    const r = await locker.query<{n: number}>(
      "SELECT count(*)::int4 AS n FROM pg_stat_activity WHERE application_name LIKE $1 AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      [`avaext reads % pid ${process.pid}`],
    );
    return r.rows[0]!.n;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const common = {"network-id": "local", "data-api-enabled": true, "data-api-db": db, "data-api-rate-limit": "0"};
    // The writer, whose reads wait as long as they must (no timeout), and a replica with a short one.
    ingest = await startNode({
      ...common,
      "index-enabled": true,
      feed: "dev",
      "dev-evm": false,
      "data-api-statement-timeout": "0",
    });
    for (let i = 0; i < 600 && (await ingest.get(LIST)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await ingest.get(LIST)).status).toBe(200);
    // The replica runs no feed, with the dev network's genesis from the file the writer's feed wrote.
    serve = await startNode({
      ...common,
      feed: null,
      "genesis-file": path.join(ingest.dataDir, "genesis.json"),
      "data-api-role": "serve",
      "data-api-statement-timeout": "300ms",
    });
    locker = new pg.Client({connectionString: db});
    await locker.connect();
  }, 180_000);

  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    await serve?.close();
    await ingest?.close();
  });

  it("answers a read past the timeout 503, and keeps answering the others", async () => {
    await whileLocked(async () => {
      const started = Date.now();
      const r = await serve.get(LIST);
      expect(r.status, r.text).toBe(503);
      expect(r.json()).toMatchObject({statusCode: 503, message: expect.stringMatching(/statement timeout/)});
      expect(Date.now() - started).toBeLessThan(5000);
      // A read of another table is not held.
      expect((await serve.get("/v1/networks/local/blockchains/p-chain/blocks?pageSize=1")).status).toBe(200);
    });
    expect((await serve.get(LIST)).status).toBe(200);
  }, 60_000);

  it("cancels the statement of a request whose client went away", async () => {
    await whileLocked(async () => {
      const abort = new AbortController();
      const pending = fetch(ingest.url.toString().replace(/\/$/, "") + LIST, {signal: abort.signal}).catch(
        (e: Error) => e.name,
      );
      await expect.poll(waiting, {timeout: 10_000}).toBeGreaterThan(0);
      abort.abort();
      expect(await pending).toBe("AbortError");
      // Without a timeout it would wait for the lock for ever; cancelled, it is gone.
      await expect.poll(waiting, {timeout: 10_000}).toBe(0);
    });
    expect((await ingest.get(LIST)).status).toBe(200);
  }, 60_000);
});
