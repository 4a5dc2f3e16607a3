/**
 * A fold that cannot proceed is never silent, in a real avaext process (bin/avaext.js) fed from a file:
 * - a well-formed P-chain block whose AddPermissionlessValidatorTx validates a subnet that was never transformed
 *   (the fold has no staking rules for it, src/dataApi/views/primary/stakers.ts): the P-chain's view stops at that
 *   block and transaction; `/ext/health` and `/v1/health-check` name the chain, the block (height and ID), the
 *   transaction and the error; the stop is logged once at error level and counted; the X-chain's view goes on;
 *   reads answer from what was folded; the process keeps running. On both stores.
 * - PostgreSQL terminating the writer's connections while it folds (an outage): retried with backoff, counted,
 *   and the fold then ends exactly (every transaction once), with no chain stopped.
 */
import {rmSync, writeFileSync} from "node:fs";
import path from "node:path";
import pg from "pg";
import {afterAll, describe, expect, inject, it} from "vitest";
import {NETWORKS} from "../../src/chains/index.js";
import {tryDecodePrimaryContainer} from "../../src/dataApi/views/primary/decode.js";
import {makeKeys, xHistory, type HistoryBlock} from "../../src/dev/syntheticHistory.js";
import {cb58Encode, idFromString} from "../../src/util/cb58.js";
import {startChild, type Child} from "../helpers/child.js";
import {tempDir} from "../helpers/node.js";
import {pBaseTx, pChainBlocks, pPermissionlessValidatorTx, seeded} from "../helpers/pChain.js";
import {prng} from "../helpers/prng.js";
import {STORE_BACKENDS, createTestDatabase, quietLogger} from "../helpers/sql.js";
import {openSqlClient} from "../../src/dataApi/store/client.js";
import {migrate} from "../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../src/dataApi/store/schema.js";

const network = NETWORKS.local;
const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";
const asset = idFromString(AVAX);
const dir = tempDir();
afterAll(() => rmSync(dir, {recursive: true, force: true}));

const T0 = 1_700_000_000n;
const subnetId = seeded("never-transformed-subnet");
const base = {networkId: network.id, pChainId: network.chainIds.P, asset};
const pTx = (n: number): Uint8Array => pBaseTx(network.id, network.chainIds.P, asset, n);
const unknownSubnetValidator = pPermissionlessValidatorTx({...base, subnetId, start: T0 + 20n, end: T0 + 100_000n});
const pBlocks = pChainBlocks([
  {time: T0, txs: [pTx(1)]},
  {time: T0 + 10n, txs: [pTx(2)]},
  {time: T0 + 20n, txs: [pTx(3), unknownSubnetValidator]},
  {time: T0 + 30n, txs: [pTx(4)]},
]);
const bad = tryDecodePrimaryContainer("P", "block", pBlocks[2]!.bytes, {containerId: pBlocks[2]!.id});
if (!bad.ok) throw new Error(`the test's P block does not decode: ${bad.error}`);
const badBlockId = bad.container.blockId;
const badTxId = bad.container.txs[1]!.id;

/** Signed X-chain blocks of `blocks` × `perBlock` transfers. */
function xChain(blocks: number, perBlock: number, label: string, seed: number, keyCount = 8): HistoryBlock[] {
  const chainId = idFromString(network.chainIds.X);
  const keys = makeKeys(keyCount, label);
  const o = {txs: blocks * perBlock, txsPerBlock: perBlock, keys, networkId: network.id, chainId, assetId: asset};
  return [...xHistory({...o, startSeconds: Number(T0), random: prng(seed)})];
}
const X_BLOCKS = 30;
const xBlocks = xChain(X_BLOCKS, 4, "view-stop", 5);

function line(chain: string, kind: string, id: string, bytes: Uint8Array, ts: bigint): string {
  const timestamp = new Date(Number(ts) * 1000).toISOString();
  return JSON.stringify({chain, kind, id, bytes: "0x" + Buffer.from(bytes).toString("hex"), timestamp});
}
const xLine = (b: HistoryBlock): string =>
  line("X", "block", cb58Encode(b.id), b.bytes, b.timestampNs / 1_000_000_000n);
const feed = path.join(dir, "stop.ndjson");
const pLines = pBlocks.map((b) => line("P", "block", b.id, b.bytes, b.time));
writeFileSync(feed, [...pLines, ...xBlocks.map(xLine)].join("\n") + "\n");

async function get(c: Child, p: string): Promise<{status: number; body: any}> {
  const r = await fetch(c.url + p);
  const text = await r.text();
  return {status: r.status, body: text.length > 0 && text.startsWith("{") ? JSON.parse(text) : text};
}

async function stop(c: Child): Promise<void> {
  c.proc.kill("SIGTERM");
  const code = await Promise.race([c.exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 20_000))]);
  if (code === "timeout") {
    c.proc.kill("SIGKILL");
    await c.exited;
  }
}

function metric(text: string, name: string): number {
  const m = new RegExp(`^${name.replace(/[{}"]/g, (ch) => "\\" + ch)} (\\d+)$`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/** A data API node on the local network fed from `feedFile`. */
function flags(data: string, feedFile: string, db: string): string[] {
  const dataApi = ["--data-api-enabled", `--data-api-db=${db}`, "--health-check-frequency=1s"];
  return [`--data-dir=${data}`, "--network-id=local", "--index-enabled", `--feed=file:${feedFile}`, ...dataApi];
}

describe.each(STORE_BACKENDS)("a P-chain block the fold rejects ($name)", (backend) => {
  it("stops the P-chain's view naming the block, transaction and error; the rest goes on", async () => {
    const data = path.join(dir, `stop-${backend.name}`);
    const url = await backend.db();
    const c = await startChild(flags(data, feed, url), 60_000);
    try {
      // The X-chain's view folds all of its blocks although the P-chain's stopped before them in the file.
      const xBlocksServed = async (): Promise<number | undefined> =>
        (await get(c, "/v1/networks/local/blockchains/x-chain/blocks?pageSize=100")).body?.blocks?.length;
      await expect.poll(xBlocksServed, {timeout: 60_000, interval: 250}).toBe(X_BLOCKS);
      const healthError = async (): Promise<unknown> => (await get(c, "/ext/health")).body?.checks?.["data-api"]?.error;
      await expect.poll(healthError, {timeout: 20_000, interval: 250}).toBeDefined();
      const named = ["P-chain", "block 3", badBlockId, badTxId, "which has no TransformSubnetTx"];

      const health = await get(c, "/ext/health");
      expect(health.status).toBe(503);
      const check = health.body.checks["data-api"];
      const message = String(check.error?.message ?? check.error);
      for (const want of named) expect(message).toContain(want);
      expect(check.message.stopped).toEqual([
        expect.objectContaining({
          chain: "P",
          endpoint: "P/block",
          index: "2",
          height: "3",
          blockId: badBlockId,
          txId: badTxId,
          error: expect.stringContaining(cb58Encode(subnetId)),
        }),
      ]);

      const v1 = await get(c, "/v1/health-check");
      expect(v1.status).toBe(503);
      expect(v1.body.status).toBe("error");
      const v1Message = v1.body.error["data-api"].message as string;
      for (const want of named) expect(v1Message).toContain(want);

      const metrics = (await get(c, "/ext/metrics")).body as string;
      expect(metric(metrics, 'avaext_data_api_view_stopped_total{chain="P"}')).toBe(1);
      expect(metric(metrics, 'avaext_data_api_view_stopped_total{chain="X"}')).toBe(0);
      // Not retried: no error counted as an outage.
      expect(metric(metrics, "avaext_data_api_view_errors_total")).toBe(0);

      // Reads answer from what was folded: the P-chain's two blocks before the one that failed, nothing after it.
      const pList = await get(c, "/v1/networks/local/blockchains/p-chain/blocks?pageSize=10");
      expect(pList.status).toBe(200);
      expect(pList.body.blocks.map((b: {blockNumber: string}) => b.blockNumber)).toEqual(["2", "1"]);
      expect((await get(c, `/v1/networks/local/blockchains/p-chain/transactions/${badTxId}`)).status).toBe(404);
      const folded = pBlocks[1]!.txIds[0];
      expect((await get(c, `/v1/networks/local/blockchains/p-chain/transactions/${folded}`)).status).toBe(200);

      // Tried once more before stopping, then logged once at error level, however long it stays stopped: the view
      // goes on with its rounds (every 200 ms idle, and on every container the X-chain's feed brings) for 3 s.
      await new Promise((r) => setTimeout(r, 3000));
      const lines = c.output().split("\n");
      expect(lines.filter((l) => l.includes("folding it once more before stopping"))).toHaveLength(1);
      const errors = lines.filter((l) => l.includes("this chain's view stopped"));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/"level":"error"|ERROR|"lvl":"error"/i);
      expect(errors[0]).toContain(badTxId);
      // Still running and serving.
      expect(c.proc.exitCode).toBeNull();
      expect((await get(c, "/ext/health/liveness")).status).toBe(200);
    } finally {
      await stop(c);
    }
  }, 120_000);
});

describe("PostgreSQL terminating the writer's connections while it folds", () => {
  it("is retried with backoff, then the fold proceeds and ends exactly", async () => {
    const BLOCKS = 600;
    const history = xChain(BLOCKS, 10, "outage", 9, 30);
    const f = path.join(dir, "outage.ndjson");
    writeFileSync(f, history.map(xLine).join("\n") + "\n");
    const url = await createTestDatabase();
    const db = new URL(url).pathname.slice(1);
    const admin = new pg.Client({connectionString: inject("pgUrl")});
    await admin.connect();
    // Migrated by the test, so that avaext's start writes nothing to txs; then the fold's inserts wait on the lock.
    const schema = await openSqlClient({url, dataDir: null}, {logger: quietLogger()});
    await migrate(schema, MIGRATIONS, {logger: quietLogger()});
    await schema.close();
    const holder = new pg.Client({connectionString: url});
    await holder.connect();
    await holder.query("BEGIN; LOCK TABLE txs IN EXCLUSIVE MODE");
    const holderPid = (await holder.query<{pid: number}>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    const store = new pg.Client({connectionString: url});
    await store.connect();
    const folded = async (): Promise<{n: number; d: number}> => {
      const q = "SELECT count(*) AS n, count(DISTINCT tx_id) AS d FROM txs";
      const r = await store.query<{n: string; d: string}>(q);
      return {n: Number(r.rows[0]!.n), d: Number(r.rows[0]!.d)};
    };
    const c = await startChild(flags(path.join(dir, "outage"), f, url), 60_000);
    try {
      // The fold is held back by a lock the test holds on its table (taken on the migrated store before avaext
      // starts), so a termination lands mid-fold however fast the host: the writer's statement waiting on it is cut,
      // as a server's restart would cut it; the connection that holds the writer lock (an advisory lock) is spared.
      const deadline = Date.now() + 60_000;
      let killed = 0;
      for (;;) {
        const r = await admin.query<{n: number}>(
          `SELECT count(pg_terminate_backend(a.pid))::int AS n FROM pg_stat_activity a
            WHERE a.datname = $1 AND a.pid <> pg_backend_pid() AND a.pid <> $2 AND a.state = 'active'
              AND a.wait_event_type = 'Lock'
              AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory')`,
          [db, holderPid],
        );
        killed += r.rows[0]!.n;
        const m = (await get(c, "/ext/metrics")).body as string;
        if (killed > 0 && metric(m, "avaext_data_api_view_errors_total") > 0) break;
        if (Date.now() > deadline) throw new Error(`no failure counted after ${killed} terminated backends`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await folded()).toEqual({n: 0, d: 0});
      await holder.query("COMMIT");
      // Then it proceeds: every transaction folded once, no chain stopped, healthy.
      await expect.poll(async () => (await folded()).n, {timeout: 90_000, interval: 500}).toBe(BLOCKS * 10);
      expect(await folded()).toEqual({n: BLOCKS * 10, d: BLOCKS * 10});
      const healthStatus = async (): Promise<number> => (await get(c, "/v1/health-check")).status;
      await expect.poll(healthStatus, {timeout: 30_000, interval: 500}).toBe(200);
      const metrics = (await get(c, "/ext/metrics")).body as string;
      expect(metrics).not.toMatch(/^avaext_data_api_view_stopped_total\{[^}]*\} [1-9]/m);
      expect(c.output()).toContain("retrying");
      expect(c.proc.exitCode).toBeNull();
    } finally {
      await stop(c);
      await holder.end().catch(() => {});
      await store.end();
      await admin.end();
    }
  }, 180_000);
});
