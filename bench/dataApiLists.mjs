// Latency of the data API's list queries on a store the view built (issue 17: p99 < 50 ms at 8 connections, first
// page and page 1,000 alike). Run by bench/dataApi.mjs on its PostgreSQL store after the ingest: each list is asked
// for by 8 concurrent clients, half of them starting at page 1 and half at a deep page reached by cursor; the
// queries run in-process (no HTTP), so this is the store's share of an answer.
import {listBlocks} from "../dist/src/dataApi/queries/primary/blocks.js";
import {listXChainTransactions, listAssetTransactions} from "../dist/src/dataApi/queries/primary/transactions.js";
import {listXChainUtxos} from "../dist/src/dataApi/queries/primary/utxos.js";
import {fmt} from "./lib.mjs";

const CONNECTIONS = 8;
const REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 800);

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Follows cursors from page 1 to page `deep` (or the last), returning the cursor of that page. */
async function deepCursor(list, deep) {
  let cursor;
  for (let i = 1; i < deep; i++) {
    const page = await list(cursor);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return cursor;
}

export async function benchLists({sql, net, keys, avaxAssetId, deep = 1000}) {
  // A store that has been running is analysed by autovacuum; a freshly bulk-loaded one not yet.
  await sql.query("ANALYZE");
  const address = keys[0].address;
  const lists = {
    "X blocks (16)": (cursor) => listBlocks(sql, {chain: "X", pageSize: 10, cursor}),
    "X transactions (5)": (cursor) => listXChainTransactions(sql, net, {pageSize: 10, cursor}),
    "X transactions of an address (5)": (cursor) => listXChainTransactions(sql, net, {pageSize: 10, cursor, addresses: [address]}),
    "asset transactions (4)": (cursor) => listAssetTransactions(sql, net, {assetId: avaxAssetId, pageSize: 10, cursor}),
    "UTXOs of an address": (cursor) => listXChainUtxos(sql, net, {addresses: [address], pageSize: 10, cursor, includeSpent: true}),
  };
  const rows = [];
  for (const [name, list] of Object.entries(lists)) {
    const deepAt = await deepCursor(list, deep);
    const times = [];
    let next = 0;
    await Promise.all(
      Array.from({length: CONNECTIONS}, async (_, c) => {
        while (next < REQUESTS) {
          next++;
          const t0 = performance.now();
          await list(c % 2 === 0 ? undefined : deepAt);
          times.push(performance.now() - t0);
        }
      }),
    );
    rows.push({name: `list ${name}, page 1 and a deep page, ${CONNECTIONS} concurrent`, value: `p50 ${fmt(pct(times, 50), 1)} ms`, reference: `p99 ${fmt(pct(times, 99), 1)} ms`});
  }
  return rows;
}
