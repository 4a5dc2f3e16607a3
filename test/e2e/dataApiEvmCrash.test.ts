/**
 * Crash safety of the EVM follower (docs/operations/evm-chains.md): a real avaext process follows a real anvil holding
 * a history of the dev network's traffic (ERC-20/721/1155 transfers, internal value calls, CREATE2 deployments,
 * reverts) and is killed with SIGKILL at random moments, several times, the head and its lanes (token metadata, traces)
 * each mid-way; after a last clean run, once the lanes have caught up with the head, its EVM tables and the lanes'
 * positions must equal what one uninterrupted fold of the same chain gives (nothing lost, nothing twice, balances
 * exact).
 */
import {rmSync} from "node:fs";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import type {SqlClient} from "../../src/dataApi/store/sql.js";
import {migrate} from "../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../src/dataApi/store/schema.js";
import {EvmFollower, defaultEvmFollowerOptions} from "../../src/dataApi/views/evm/follower.js";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {ANVIL_ACCOUNTS, DevEvmTraffic, runTick} from "../../src/dev/evm/traffic.js";
import {EvmRpc, defaultEvmRpcOptions} from "../../src/evm/rpc.js";
import {startChild} from "../helpers/child.js";
import {tempDir} from "../helpers/node.js";
import {createTestDatabase, quietLogger, withStore, STORE_BACKENDS} from "../helpers/sql.js";

const CHAIN = "99998";
const BLOCKS = 500;
const dir = tempDir();
let anvil: Anvil;

beforeAll(async () => {
  anvil = await Anvil.start(
    {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "manual"},
    {logger: quietLogger()},
  );
  const traffic = new DevEvmTraffic({accounts: [...ANVIL_ACCOUNTS]});
  for (let t = 0; t < BLOCKS; t++) await runTick(anvil, traffic, t, 1_700_000_010 + t * 2);
}, 180_000);
afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, {recursive: true, force: true});
});

/** The EVM tables as order-independent digests (the NFT metadata lane's fields left out: they are fetched later). */
async function digest(sql: SqlClient): Promise<Record<string, string>> {
  const q = async (table: string, cols: string, order: string): Promise<string> =>
    String(
      (
        await sql.query<{d: string}>(
          `SELECT count(*) || ':' || coalesce(md5(string_agg(concat_ws('/', ${cols}), ',' ORDER BY ${order})), '') AS d FROM ${table} WHERE chain_id = '${CHAIN}'`,
        )
      )[0]!.d,
    );
  return {
    blocks: await q("evm_blocks", "number, encode(hash, 'hex'), tx_count, fees_spent, cumulative_txs", "number"),
    txs: await q(
      "evm_txs",
      "block_number, tx_index, encode(hash, 'hex'), status, gas_used, value",
      "block_number, tx_index",
    ),
    transfers: await q(
      "evm_transfers",
      "block_number, log_index, item, erc, encode(token, 'hex'), encode(from_addr, 'hex'), encode(to_addr, 'hex'), token_id, value",
      "block_number, log_index, item",
    ),
    addressTransfers: await q(
      "evm_address_transfers",
      "encode(address, 'hex'), erc, block_number, log_index, item",
      "address, erc, block_number, log_index, item",
    ),
    internals: await q(
      "evm_internal_txs",
      "block_number, tx_index, idx, call_type, value, reverted",
      "block_number, tx_index, idx",
    ),
    addressInternals: await q(
      "evm_address_internals",
      "encode(address, 'hex'), block_number, tx_index, idx",
      "address, block_number, tx_index, idx",
    ),
    addressTxs: await q(
      "evm_address_txs",
      "encode(address, 'hex'), block_number, tx_index, kinds",
      "address, block_number, tx_index",
    ),
    contracts: await q(
      "evm_contracts",
      "encode(address, 'hex'), block_number, encode(deployer, 'hex'), encode(deployer_contract, 'hex')",
      "address",
    ),
    tokens: await q("evm_tokens", "encode(address, 'hex'), erc, name, symbol, decimals", "address"),
    balances: await q(
      "evm_balances",
      "encode(owner, 'hex'), erc, encode(token, 'hex'), token_id, balance",
      "owner, erc, token, token_id",
    ),
    nfts: await q(
      "evm_nfts",
      "encode(token, 'hex'), token_id, erc, encode(owner, 'hex'), first_block",
      "token, token_id",
    ),
    head: String(
      (await sql.query<{head_number: bigint}>(`SELECT head_number FROM evm_chains WHERE chain_id = '${CHAIN}'`))[0]
        ?.head_number,
    ),
    lanes: JSON.stringify(
      (
        await sql.query<{token_lane: bigint; trace_lane: bigint}>(
          `SELECT token_lane::text, trace_lane::text FROM evm_chains WHERE chain_id = '${CHAIN}'`,
        )
      )[0],
    ),
  };
}

/** The reference: one uninterrupted fold of the same chain, in-process, into a fresh PostgreSQL database. */
async function referenceDigest(): Promise<Record<string, string>> {
  const url = await createTestDatabase();
  return withStore(url, null, async (sql) => {
    const logger = quietLogger();
    await migrate(sql, MIGRATIONS, {logger});
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url: anvil.url}, {logger});
    const service = await import("../../src/dataApi/service.js");
    const follower = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: CHAIN, blockchainId: null},
      {sql, rpc, logger, tokenInfo: service.tokenInfoReader(rpc)},
    );
    follower.start();
    await follower.waitFor(BigInt(BLOCKS), 120_000);
    await follower.close();
    return digest(sql);
  });
}

const BACKENDS = STORE_BACKENDS;

describe.each(BACKENDS)("kill -9 while the EVM follower folds ($name)", (backend) => {
  it("resumes exactly: the EVM tables equal one uninterrupted fold", async () => {
    const seed = Date.now() % 100000;
    let s = seed || 1;
    const rand = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s / 2 ** 32);
    const data = path.join(dir, backend.name);
    const url = await backend.db();
    const storeDir = url === "embedded" ? path.join(data, "data-api") : null;
    const flags = [
      `--data-dir=${data}`,
      "--network-id=local",
      "--index-enabled",
      "--feed=dev",
      "--dev-evm=false",
      "--dev-backfill=0",
      "--data-api-enabled",
      `--data-api-db=${url}`,
      `--evm-rpc=${CHAIN}=${anvil.url}`,
      "--log-level=WARN",
    ];
    const head = (): Promise<bigint> =>
      withStore(
        url,
        storeDir,
        async (sql) =>
          (
            await sql
              .query<{head_number: bigint | null}>("SELECT head_number FROM evm_chains WHERE chain_id = $1", [CHAIN])
              .catch(() => [])
          )[0]?.head_number ?? -1n,
      );
    let kills = 0;
    let midFold = 0;
    for (let round = 0; round < 8 && (round < 4 || midFold === 0); round++) {
      const child = await startChild(flags, 60_000);
      // Once the fold is under way (however slow the store's start), a random moment.
      const started = Date.now();
      while (Date.now() - started < 30_000) {
        const r = (await fetch(`${child.url}/v1/chains/${CHAIN}/blocks?pageSize=1`).then(
          (x) => x.json(),
          () => ({}),
        )) as {blocks?: unknown[]};
        if ((r.blocks?.length ?? 0) > 0) break;
        await new Promise((res) => setTimeout(res, 10));
      }
      await new Promise((r) => setTimeout(r, Math.floor(rand() * (round < 4 ? 600 : 200))));
      child.proc.kill("SIGKILL");
      await child.exited;
      kills++;
      const h = await head();
      if (h > 0n && h < BigInt(BLOCKS)) midFold++;
    }
    console.log(`EVM crash test (${backend.name}, seed ${seed}): kills ${kills}, during the fold ${midFold}`);
    expect(midFold).toBeGreaterThanOrEqual(1);

    const child = await startChild(flags, 60_000);
    const deadline = Date.now() + 120_000;
    type Lanes = Record<string, {covered: string | null}>;
    for (;;) {
      const r = (await fetch(`${child.url}/v1/chains/${CHAIN}/blocks?pageSize=1`).then((x) => x.json())) as {
        blocks?: Array<{blockNumber: string}>;
      };
      // The head's blocks are served first; the token and trace lanes (their positions in the health check) follow.
      const health = (await fetch(`${child.url}/ext/health`).then((x) => x.json())) as {
        checks: Record<string, {message?: {lanes?: Lanes}}>;
      };
      const lanes = health.checks[`evm:${CHAIN}`]?.message?.lanes;
      if (
        r.blocks?.[0]?.blockNumber === String(BLOCKS) &&
        lanes?.tokens?.covered === String(BLOCKS) &&
        lanes.traces?.covered === String(BLOCKS)
      )
        break;
      if (Date.now() > deadline)
        throw new Error(`the EVM view did not catch up: ${JSON.stringify(r)}, lanes ${JSON.stringify(lanes)}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);

    const got = await withStore(url, storeDir, digest);
    const want = await referenceDigest();
    expect(got).toEqual(want);
    expect(got.blocks.startsWith(`${BLOCKS + 1}:`)).toBe(true);
    expect(Number(got.transfers.split(":")[0])).toBeGreaterThan(BLOCKS);
    expect(Number(got.internals.split(":")[0])).toBeGreaterThan(10);
  }, 300_000);
});
