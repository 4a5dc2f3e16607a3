// The EVM list endpoints on a large store (run by bench/evm.mjs): BENCH_EVM_LIST_TXS (default 1,000,000) synthetic
// transactions in blocks of 20 written straight through writeBlocks into a PostgreSQL store (faster than anvil),
// with ~1.5 token transfers and ~0.3 internal transactions a transaction, addresses drawn with a Zipf skew
// (s = 1) from 5,000, tokens likewise from 20,000 ERC-20s, 200 ERC-721 and 200 ERC-1155 collections, one factory
// deploying by CREATE2, random (incompressible) hashes. Then ANALYZE, and the real server (`avaext --data-api-role
// serve`, its chain's RPC an anvil for the native balance) answers each list at page 1 and at page 1,000 (reached
// by nextPageToken with pageSize 10), autocannon at 8 connections, BENCH_RUNS runs of BENCH_SECONDS, medians.
import {Anvil} from "../dist/src/dev/evm/anvil.js";
import {LoggerRegistry} from "../dist/src/logger/index.js";
import {openSqlClient} from "../dist/src/dataApi/store/client.js";
import {migrate} from "../dist/src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../dist/src/dataApi/store/schema.js";
import {writeBlocks, writeTraces} from "../dist/src/dataApi/views/evm/write.js";
import {KIND} from "../dist/src/dataApi/views/evm/derive.js";
import {
  listAddressTransactions,
  listAddressTransfers,
  listBlocks,
  listInternalTransactions,
  listNativeTransactions,
  listTokenTransfers,
  listTransactions,
} from "../dist/src/dataApi/queries/evm/transactions.js";
import {listBalances, listCollectionTokens, listDeployments} from "../dist/src/dataApi/queries/evm/tokens.js";
import {RUNS, deepPage, fmt, latency, median, randomBytes, startAvaext, zipf} from "./lib.mjs";
import {mulberry32 as prng} from "../dist/src/util/prng.js";

const TXS = Number(process.env.BENCH_EVM_LIST_TXS ?? 1_000_000);
const TXS_PER_BLOCK = 20;
const BLOCKS = Math.ceil(TXS / TXS_PER_BLOCK);
const WRITE_BATCH = 100; // blocks a SQL transaction
export const CHAIN_ID = "43112";
const CONNECTIONS = 8;
const DEEP = 1000;
const GWEI = 10n ** 9n;

const rand = prng(7);

const hex = (b) => Buffer.from(b).toString("hex");
const ZERO = new Uint8Array(20);

/**
 * The synthetic chain: a generator of DerivedBlocks, and the addresses the lists are asked about. A block every
 * `secondsPerBlock` from `start` (bench/metrics.mjs spreads its history over 90 days).
 */
export function syntheticChain({secondsPerBlock = 2, start = 1_700_000_000} = {}) {
  const eoas = Array.from({length: 5000}, () => randomBytes(20));
  const erc20s = Array.from({length: 20_000}, () => randomBytes(20));
  const erc721s = Array.from({length: 200}, () => randomBytes(20));
  const erc1155s = Array.from({length: 200}, () => randomBytes(20));
  const router = randomBytes(20); // a contract whose calls send value on (internal CALLs)
  const factory = randomBytes(20); // deploys by CREATE2
  const addr = zipf(eoas, rand);
  const t20 = zipf(erc20s, rand);
  const t721 = zipf(erc721s, rand);
  const t1155 = zipf(erc1155s, rand);
  const minted = new Map(); // collection hex → ids minted so far
  const nonces = new Map();
  const tokens = new Map();
  for (const [list, erc] of [
    [erc20s, 20],
    [erc721s, 721],
    [erc1155s, 1155],
  ]) {
    list.forEach((a, i) =>
      tokens.set(hex(a), {
        erc,
        name: `Token ${erc}-${i}`,
        symbol: `T${i}`,
        decimals: erc === 20 ? 18 : 0,
        stored: false,
      }),
    );
  }
  let parent = randomBytes(32);

  function block(number) {
    const kinds = new Map();
    const touch = (a, i, k) => {
      if (!a) return;
      const key = `${hex(a)}:${i}`;
      kinds.set(key, (kinds.get(key) ?? 0) | k);
    };
    const txs = [];
    const transfers = [];
    const internals = [];
    const contracts = [];
    let logIndex = 0;
    let fees = 0n;
    for (let i = 0; i < TXS_PER_BLOCK; i++) {
      const from = addr();
      const nonce = nonces.get(from) ?? 0n;
      nonces.set(from, nonce + 1n);
      const r = rand();
      let to;
      let value = 0n;
      let input = new Uint8Array(0);
      const gasUsed = 21_000n + BigInt(Math.floor(rand() * 200_000));
      const status = rand() < 0.01 ? 0 : 1;
      if (r < 0.4) {
        to = addr();
        value = BigInt(Math.floor(rand() * 1e9)) * GWEI;
      } else if (r < 0.85) {
        // A token call: 1-5 transfers (mean ~3.3), so ~1.5 a transaction overall.
        const n = 1 + Math.floor(rand() * 4.6);
        const erc = rand() < 0.7 ? 20 : rand() < 0.5 ? 721 : 1155;
        const token = erc === 20 ? t20() : erc === 721 ? t721() : t1155();
        to = token;
        input = randomBytes(68);
        for (let k = 0; k < n; k++) {
          let tFrom = k === 0 ? from : addr();
          const tTo = addr();
          let tokenId = null;
          let v = 1n;
          if (erc === 20) v = BigInt(Math.floor(rand() * 1e12)) * GWEI;
          else if (erc === 721) {
            const ids = minted.get(hex(token)) ?? minted.set(hex(token), []).get(hex(token));
            if (ids.length === 0 || rand() < 0.5) {
              tokenId = BigInt(ids.length + 1);
              ids.push(tokenId);
              tFrom = ZERO;
            } else tokenId = ids[Math.floor(rand() * ids.length)];
          } else {
            tokenId = BigInt(1 + Math.floor(rand() * 50));
            v = BigInt(1 + Math.floor(rand() * 10));
          }
          transfers.push({
            txIndex: i,
            logIndex: logIndex++,
            item: 0,
            erc,
            token,
            from: tFrom,
            to: tTo,
            tokenId,
            value: v,
          });
          const kind = erc === 20 ? KIND.erc20 : erc === 721 ? KIND.erc721 : KIND.erc1155;
          touch(tFrom, i, kind);
          touch(tTo, i, kind);
        }
      } else if (r < 0.95) {
        // A router call passing value on to 1-4 addresses (mean 2.5 internal transactions).
        to = router;
        input = randomBytes(100);
        const n = 1 + Math.floor(rand() * 4);
        value = BigInt(n) * 10n ** 15n;
        for (let k = 0; k < n; k++) {
          const f = {
            txIndex: i,
            idx: k,
            callType: "CALL",
            from: router,
            to: addr(),
            value: 10n ** 15n,
            gasLimit: 30_000n,
            gasUsed: 9_000n,
            reverted: status === 0,
          };
          internals.push(f);
          touch(f.from, i, KIND.internal);
          touch(f.to, i, KIND.internal);
        }
      } else {
        // A CREATE2 deployment by the factory.
        to = factory;
        input = randomBytes(36);
        const child = randomBytes(20);
        internals.push({
          txIndex: i,
          idx: 0,
          callType: "CREATE2",
          from: factory,
          to: child,
          value: 0n,
          gasLimit: 900_000n,
          gasUsed: 400_000n,
          reverted: status === 0,
        });
        touch(factory, i, KIND.internal);
        touch(child, i, KIND.internal);
        if (status === 1) contracts.push({address: child, txIndex: i, deployer: from, deployerContract: factory});
      }
      const gasPrice = 25n * GWEI + BigInt(Math.floor(rand() * 1e9));
      fees += gasUsed * gasPrice;
      txs.push({
        txIndex: i,
        hash: randomBytes(32),
        from,
        to,
        created: null,
        value,
        nonce,
        gasLimit: gasUsed + 50_000n,
        gasUsed,
        gasPrice,
        maxFee: 50n * GWEI,
        maxPriorityFee: GWEI,
        txType: 2,
        status,
        input,
      });
      touch(from, i, KIND.native);
      touch(to, i, KIND.native);
    }
    const hash = randomBytes(32);
    const b = {
      number: BigInt(number),
      hash,
      parentHash: parent,
      timestamp: BigInt(start + Math.floor(number * secondsPerBlock)),
      txCount: txs.length,
      baseFee: 25n * GWEI,
      gasUsed: 5_000_000n,
      gasLimit: 15_000_000n,
      feesSpent: fees,
    };
    parent = hash;
    return {block: b, txs, transfers, internals, contracts, addressKinds: kinds, icm: [], warp: []};
  }
  return {block, tokens, heavy: {address: eoas[0], erc20: erc20s[0], erc721: erc721s[0], factory}};
}

/** The internal-transaction bits of a block's address kinds: what its traces add (DerivedTraces.addressKinds). */
function internalKinds(kinds) {
  return new Map([...kinds].filter(([, k]) => (k & KIND.internal) !== 0).map(([key]) => [key, KIND.internal]));
}

/** Fills `sql` with the synthetic chain (chain CHAIN_ID); returns {seconds, heavy}. */
export async function fill(sql) {
  await sql.query(
    "INSERT INTO evm_chains (chain_id, blockchain_id, updated_at, traces) VALUES ($1, NULL, 0, true) ON CONFLICT DO NOTHING",
    [CHAIN_ID],
  );
  const chain = syntheticChain();
  let cumulative = 0n;
  const t0 = performance.now();
  for (let from = 0; from < BLOCKS; from += WRITE_BATCH) {
    const blocks = [];
    for (let n = from; n < Math.min(from + WRITE_BATCH, BLOCKS); n++) blocks.push(chain.block(n));
    // The head lane's part, then the trace lane's (internal transactions, the contracts they create), as the
    // follower writes them.
    cumulative = await sql.transaction(async (tx) => {
      const head = await writeBlocks(
        tx,
        {chainId: CHAIN_ID, blockchainId: null},
        blocks.map((b) => ({...b, internals: null, contracts: []})),
        cumulative,
      );
      await writeTraces(
        tx,
        CHAIN_ID,
        blocks.map((b) => ({
          number: b.block.number,
          traced: {internals: b.internals, contracts: b.contracts, addressKinds: internalKinds(b.addressKinds)},
        })),
      );
      return head;
    });
    if ((from / WRITE_BATCH) % 50 === 0)
      console.error(
        `lists store: ${from + blocks.length} of ${BLOCKS} blocks (${fmt((performance.now() - t0) / 1000)} s)`,
      );
  }
  const seconds = (performance.now() - t0) / 1000;
  await sql.query("ANALYZE");
  return {seconds, heavy: chain.heavy};
}

/** The lists as the routes call them (same arguments as `?pageSize=10`), keyed like the HTTP lists below. */
function queryLists(heavy) {
  const a = {chainId: CHAIN_ID, pageSize: 10, sortOrder: "desc"};
  return {
    blocks: (sql, cursor) => listBlocks(sql, {...a, cursor}),
    transactions: (sql, cursor) => listTransactions(sql, {...a, cursor}),
    "address transactions": (sql, cursor) => listAddressTransactions(sql, {...a, cursor, address: heavy.address}),
    "address transactions:listNative": (sql, cursor) =>
      listNativeTransactions(sql, {...a, cursor, address: heavy.address}),
    "address transactions:listErc20": (sql, cursor) =>
      listAddressTransfers(sql, {...a, cursor, address: heavy.address, erc: 20}),
    "address transactions:listErc721": (sql, cursor) =>
      listAddressTransfers(sql, {...a, cursor, address: heavy.address, erc: 721}),
    "address transactions:listErc1155": (sql, cursor) =>
      listAddressTransfers(sql, {...a, cursor, address: heavy.address, erc: 1155}),
    "address transactions:listInternals": (sql, cursor) =>
      listInternalTransactions(sql, {...a, cursor, address: heavy.address}),
    "token transfers (top ERC-20)": (sql, cursor) => listTokenTransfers(sql, {...a, cursor, token: heavy.erc20}),
    "contract deployments (the factory)": (sql, cursor) =>
      listDeployments(sql, {chainId: CHAIN_ID, address: heavy.factory, pageSize: 10, cursor}),
    "address balances:listErc20": (sql, cursor) =>
      listBalances(sql, {
        chainId: CHAIN_ID,
        owner: heavy.address,
        ercs: [20],
        contracts: undefined,
        blockNumber: undefined,
        pageSize: 10,
        cursor,
      }),
    "address balances:listCollectibles": (sql, cursor) =>
      listBalances(sql, {
        chainId: CHAIN_ID,
        owner: heavy.address,
        ercs: [721, 1155],
        contracts: undefined,
        blockNumber: undefined,
        pageSize: 10,
        cursor,
      }),
    "collection tokens (top ERC-721)": (sql, cursor) =>
      listCollectionTokens(sql, {chainId: CHAIN_ID, token: heavy.erc721, pageSize: 10, cursor}),
  };
}

/**
 * The store's share, in process, one client: each list's page 1 and page DEEP (reached by cursor) timed (median of
 * 21 calls), and EXPLAIN (ANALYZE, BUFFERS) of every statement a page runs (the plans, and the summed execution time).
 */
async function sqlShare(sql, heavy) {
  const out = {};
  for (const [name, list] of Object.entries(queryLists(heavy))) {
    let cursor = null;
    let page = 1;
    for (; page < DEEP; page++) {
      const r = await list(sql, cursor);
      if (!r.next) break;
      cursor = r.next;
    }
    out[name] = {};
    for (const [which, c] of [
      ["first", null],
      ["deep", cursor],
    ]) {
      const times = [];
      for (let i = 0; i < 21; i++) {
        const t0 = performance.now();
        await list(sql, c);
        times.push(performance.now() - t0);
      }
      const statements = [];
      await list({query: (text, params) => (statements.push({text, params}), sql.query(text, params))}, c);
      let execMs = 0;
      const plans = [];
      for (const st of statements) {
        const plan = (await sql.query(`EXPLAIN (ANALYZE, BUFFERS) ${st.text}`, st.params))
          .map((r) => r["QUERY PLAN"])
          .join("\n");
        execMs += Number(/Execution Time: ([0-9.]+) ms/.exec(plan)?.[1] ?? 0);
        plans.push(plan);
      }
      out[name][which] = {page: which === "first" ? 1 : page, ms: median(times), execMs, plans};
    }
  }
  return out;
}

export async function benchEvmLists({pgServer}) {
  const rows = [];
  if (TXS <= 0) return rows;
  const loggers = new LoggerRegistry({logLevel: "OFF", displayLevel: "WARN", logDir: null});
  const logger = loggers.get("bench");
  const dbUrl = await pgServer.database();
  const sql = await openSqlClient({url: dbUrl, dataDir: null}, {logger});
  await migrate(sql, MIGRATIONS, {logger});
  const {seconds, heavy} = await fill(sql);
  const [{size}] = await sql.query("SELECT pg_database_size(current_database())::int8 AS size");
  const share = await sqlShare(sql, heavy);
  await sql.close();
  console.error(`lists store: ${TXS} txs in ${fmt(seconds, 1)} s, ${fmt(Number(size) / 2 ** 30, 2)} GiB`);
  rows.push({
    name: `EVM lists store: ${TXS} synthetic txs through writeBlocks into PostgreSQL`,
    value: `${fmt(seconds, 1)} s (${fmt(TXS / seconds)} tx/s)`,
    reference: `${fmt(Number(size) / 2 ** 30, 2)} GiB`,
  });

  const anvil = await Anvil.start(
    {chainId: Number(CHAIN_ID), genesisTimestamp: 1_700_000_000, mining: "auto"},
    {logger},
  );
  let node = null;
  try {
    node = await startAvaext([
      "--data-api-enabled",
      "--data-api-role=serve",
      `--data-api-db=${dbUrl}`,
      `--evm-rpc=${CHAIN_ID}=${anvil.url}`,
      "--data-api-rate-limit=0",
    ]);
    const base = `${node.url}/v1/chains/${CHAIN_ID}`;
    const a = "0x" + hex(heavy.address);
    const lists = {
      blocks: `${base}/blocks`,
      transactions: `${base}/transactions`,
      "address transactions": `${base}/addresses/${a}/transactions`,
      "address transactions:listNative": `${base}/addresses/${a}/transactions:listNative`,
      "address transactions:listErc20": `${base}/addresses/${a}/transactions:listErc20`,
      "address transactions:listErc721": `${base}/addresses/${a}/transactions:listErc721`,
      "address transactions:listErc1155": `${base}/addresses/${a}/transactions:listErc1155`,
      "address transactions:listInternals": `${base}/addresses/${a}/transactions:listInternals`,
      "token transfers (top ERC-20)": `${base}/tokens/0x${hex(heavy.erc20)}/transfers`,
      "contract deployments (the factory)": `${base}/contracts/0x${hex(heavy.factory)}/deployments`,
      "address balances:listErc20": `${base}/addresses/${a}/balances:listErc20`,
      "address balances:listCollectibles": `${base}/addresses/${a}/balances:listCollectibles`,
      "collection tokens (top ERC-721)": `${base}/nfts/collections/0x${hex(heavy.erc721)}/tokens`,
    };
    for (const [name, path] of Object.entries(lists)) {
      const first = `${path}?pageSize=10`;
      const deep = await deepPage(first, DEEP);
      await latency(first, {connections: CONNECTIONS}).catch(() => {}); // warm-up
      const res = {first: [], deep: []};
      for (let r = 0; r < RUNS; r++) {
        res.first.push(await latency(first, {connections: CONNECTIONS}));
        res.deep.push(await latency(deep.url, {connections: CONNECTIONS}));
      }
      for (const [which, xs, label] of [
        ["first", res.first, "page 1"],
        ["deep", res.deep, `page ${fmt(deep.page)}`],
      ]) {
        const p50 = median(xs.map((x) => x.p50));
        const p99 = median(xs.map((x) => x.p99));
        const q = share[name][which];
        const row = {
          name: `EVM list ${name}, ${label}, ${CONNECTIONS} connections`,
          value: `p50 ${fmt(p50, 1)} ms, ${fmt(median(xs.map((x) => x.rps)))} req/s`,
          reference: `SQL alone ${fmt(q.ms, 1)} ms a page (execution ${fmt(q.execMs, 2)} ms, page ${fmt(q.page)})`,
          ratio: p99 < 50 ? "< 50 ms" : "MISSES 50 ms",
          p99: `p99 ${fmt(p99, 1)} ms`,
        };
        console.error(`${row.name}: ${row.value}, ${row.p99}; ${row.reference}`);
        if (p99 >= 50 || q.ms >= 10)
          console.error(`EXPLAIN (ANALYZE, BUFFERS) of ${name}, ${label}:\n${q.plans.join("\n---\n")}`);
        rows.push(row);
      }
    }
  } finally {
    if (node) await node.stop();
    await anvil.stop();
    await loggers.close();
  }
  return rows;
}
