/**
 * The dev network is a whole network: its history, exported through `/ext/index` and replayed into a fresh avaext
 * (`--feed=file:... --network-id=local --genesis-file=<its genesis.json>`), or mirrored from it (`--feed=http://...`),
 * folds to the same answers on every list endpoint, every page, P/X/C and EVM alike.
 *
 * The dev node's clock is fixed, so once it has backfilled its history it stands still and the three nodes can be
 * compared answer for answer. The replay folds into a PostgreSQL server, the mirror into PGlite (the dev node's
 * own store), so both backends are held against the same history. The replay and the mirror follow the dev node's
 * EVMs through the JSON-RPC it serves for them (`/ext/bc/C/rpc`, `/ext/bc/<L1>/rpc`), as they would a real node's.
 */
import {writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {sha256} from "../../src/util/sha256.js";
import {parseRfc3339Nano} from "../../src/util/time.js";
import {createTestDatabase} from "../helpers/sql.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

/** Long enough to cover the dev schedule's eras: the X-chain's DAG and its linearization, staking periods ending, the L1. */
const BACKFILL = "30h";
const FROZEN_AT = Date.now();
const DEV = {"network-id": "local", "index-enabled": true, "data-api-enabled": true, "data-api-rate-limit": "0"};
const ENDPOINTS = ["P/block", "X/vtx", "X/tx", "X/block", "C/block"] as const;

let dev: TestNode;
let replay: TestNode;
let mirror: TestNode;
const feedFile = path.join(tempDir(), "dev-history.ndjson");

interface Container {
  id: string;
  bytes: string;
  timestamp: string;
  index: string;
}

type Json = Record<string, unknown>;

async function lastIndex(t: TestNode, ep: string): Promise<number> {
  const r = await t.rpc(`/ext/index/${ep}`, "index.getLastAccepted", {encoding: "hex"});
  const index = (r.body.result as {index?: string} | undefined)?.index;
  return index === undefined ? -1 : Number(index);
}

/** Every container of an endpoint, in index order, through the index API's pages. */
async function exportEndpoint(t: TestNode, ep: string): Promise<Container[]> {
  const last = await lastIndex(t, ep);
  const out: Container[] = [];
  while (out.length <= last) {
    const r = await t.rpc(`/ext/index/${ep}`, "index.getContainerRange", {
      startIndex: out.length,
      numToFetch: 1024,
      encoding: "hex",
    });
    const page = (r.body.result as {containers: Container[]}).containers;
    if (page.length === 0) throw new Error(`${ep}: empty page at ${out.length} of ${last + 1}`);
    out.push(...page);
  }
  return out;
}

/** The index API's hex carries a 4-byte checksum (sha256's last four bytes) that a feed line's bytes do not. */
function withoutChecksum(hex: string): string {
  const bytes = Buffer.from(hex.slice(2), "hex");
  const body = bytes.subarray(0, bytes.length - 4);
  expect(Buffer.from(sha256(body).subarray(28)).equals(bytes.subarray(bytes.length - 4))).toBe(true);
  return "0x" + body.toString("hex");
}

/** The dev node's whole index as a feed file: every container with its ID and acceptance time, in acceptance order. */
async function exportHistory(t: TestNode): Promise<Record<string, number>> {
  const all: Array<{chain: string; kind: string; c: Container}> = [];
  const counts: Record<string, number> = {};
  for (const ep of ENDPOINTS) {
    const [chain, kind] = ep.split("/") as [string, string];
    const containers = await exportEndpoint(t, ep);
    counts[ep] = containers.length;
    for (const c of containers) all.push({chain, kind, c});
  }
  // The dev feed gives every container of a tick its own nanosecond, so acceptance time orders the whole history.
  // RFC 3339 times drop trailing zeros of their fraction ("…37.7Z", "…37.71Z"): compare them as numbers.
  const ns = new Map(all.map((x) => [x, parseRfc3339Nano(x.c.timestamp)!]));
  all.sort((a, b) => (ns.get(a)! < ns.get(b)! ? -1 : ns.get(a)! > ns.get(b)! ? 1 : 0));
  const lines = all.map(({chain, kind, c}) =>
    JSON.stringify({chain, kind, bytes: withoutChecksum(c.bytes), timestamp: c.timestamp, id: c.id}),
  );
  writeFileSync(feedFile, lines.join("\n") + "\n");
  return counts;
}

function evmHeads(t: TestNode): bigint[] {
  return (t.node.dataApi?.evm?.chains ?? []).map((c) => c.follower?.status().head ?? -1n);
}

/** Whether every EVM follower's lanes (token metadata, traces: src/dataApi/views/evm/lanes.ts) have caught up with its head. */
function evmLanesCaughtUp(t: TestNode): boolean {
  return (t.node.dataApi?.evm?.chains ?? []).every((c) => {
    const lanes = c.follower?.status().lanes;
    return lanes !== undefined && lanes.tokens.lag === 0n && (lanes.traces === null || lanes.traces.lag === 0n);
  });
}

/** Indexed as many containers as the dev node on every endpoint, views caught up, EVM followers at the dev EVMs' heads. */
/** Polls until `state()` says "caught up"; past the deadline, fails with the last state it said. */
async function until(what: string, state: () => Promise<string> | string, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while ((last = await state()) !== "caught up") {
    if (Date.now() > deadline) throw new Error(`${what}: still ${last} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function caughtUpWith(t: TestNode, counts: Record<string, number>, heads: bigint[]): Promise<void> {
  await until(t.url.toString(), async () => {
    for (const ep of ENDPOINTS) if ((await lastIndex(t, ep)) + 1 !== counts[ep]) return `indexing ${ep}`;
    const stops = [...(t.node.dataApi?.view?.stops.values() ?? [])];
    if (stops.length > 0) throw new Error(`a view stopped: ${JSON.stringify(stops)}`);
    if (t.node.dataApi?.view?.lag() !== 0n) return "folding";
    const h = evmHeads(t);
    if (h.length !== heads.length || h.some((x, i) => x !== heads[i]))
      return `EVM heads ${h.join(",")} of ${heads.join(",")}`;
    // Token metadata and internal transactions come behind the head: compared once they are in.
    if (!evmLanesCaughtUp(t)) return "EVM lanes behind their heads";
    return "caught up";
  });
}

async function getJson(t: TestNode, p: string): Promise<{status: number; body: Json}> {
  const r = await t.get(p);
  return {status: r.status, body: r.json() as Json};
}

/** The one array field of a page (`transactions`, `blocks`, `utxos`...). */
function items(page: Json): unknown[] {
  const arrays = Object.entries(page).filter(([k, v]) => k !== "nextPageToken" && Array.isArray(v));
  return arrays.length === 1 ? (arrays[0]![1] as unknown[]) : [page];
}

/** Every page of a list on one node: the items of all pages, and the non-list fields of the first page. */
async function walk(t: TestNode, p: string, maxPages = 400): Promise<{status: number; items: unknown[]; rest: Json}> {
  const all: unknown[] = [];
  let token: string | undefined;
  let rest: Json = {};
  for (let i = 0; i < maxPages; i++) {
    const sep = p.includes("?") ? "&" : "?";
    const r = await getJson(t, token === undefined ? p : `${p}${sep}pageToken=${encodeURIComponent(token)}`);
    if (r.status !== 200) return {status: r.status, items: [r.body], rest: {}};
    const page = r.body;
    all.push(...items(page));
    if (i === 0)
      rest = Object.fromEntries(Object.entries(page).filter(([k, v]) => k !== "nextPageToken" && !Array.isArray(v)));
    token = page.nextPageToken as string | undefined;
    if (token === undefined) return {status: 200, items: all, rest};
  }
  throw new Error(`${p}: more than ${maxPages} pages`);
}

/**
 * Fields that say how a node follows a chain or when it was read, not what the chain holds: its indexing state, the
 * RPC it reads (a followed chain's `rpcUrl`, and the `description` that names it), when it fetched an NFT's metadata,
 * and a staker's `progress` (its elapsed share of its period at the moment of the read, which moves with the clock).
 */
const MOVING = new Set(["indexing", "lastError", "rpcUrl", "description", "metadataLastUpdatedTimestamp", "progress"]);
function stable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stable);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v as Json)
      .filter(([k]) => !MOVING.has(k))
      .map(([k, x]) => [k, stable(x)]),
  );
}

/** The list on `other` equals the dev node's, page after page; the dev node's items (for deriving more requests). */
async function same(other: TestNode, p: string): Promise<unknown[]> {
  const want = await walk(dev, p);
  const got = await walk(other, p);
  expect({status: got.status, items: stable(got.items), rest: stable(got.rest)}, p).toEqual({
    status: want.status,
    items: stable(want.items),
    rest: stable(want.rest),
  });
  return want.items;
}

const NET = "/v1/networks/local";
const PAGE = "pageSize=100";

/** Walks the list endpoints of the primary network, deriving addresses, node IDs, assets and IDs from the answers. */
async function comparePrimary(other: TestNode): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  const count = (k: string, n: number): void => void (seen[k] = (seen[k] ?? 0) + n);
  const addresses: Record<"p-chain" | "x-chain" | "c-chain", Set<string>> = {
    "p-chain": new Set(),
    "x-chain": new Set(),
    "c-chain": new Set(),
  };
  const collect = (chain: keyof typeof addresses, tx: unknown): void => {
    const visit = (v: unknown): void => {
      if (Array.isArray(v)) return v.forEach(visit);
      if (v === null || typeof v !== "object") return;
      for (const [k, x] of Object.entries(v as Json)) {
        if (k !== "addresses" || !Array.isArray(x)) visit(x);
        else for (const a of x) if (typeof a === "string") addresses[chain].add(a);
      }
    };
    visit(tx);
  };

  const chains = ["p-chain", "x-chain", "c-chain"] as const;
  for (const chain of chains) {
    const blocks = (await same(other, `${NET}/blockchains/${chain}/blocks?${PAGE}`)) as Json[];
    count(`${chain} blocks`, blocks.length);
    const txs = (await same(other, `${NET}/blockchains/${chain}/transactions?${PAGE}`)) as Json[];
    count(`${chain} transactions`, txs.length);
    for (const tx of txs) collect(chain, tx);
    // One in seven of the single-item reads, spread over the history.
    for (const [i, b] of blocks.entries())
      if (i % 7 === 0) await same(other, `${NET}/blockchains/${chain}/blocks/${String(b.blockHash ?? b.blockHeight)}`);
    for (const [i, tx] of txs.entries())
      if (i % 7 === 0) await same(other, `${NET}/blockchains/${chain}/transactions/${String(tx.txHash)}`);
  }
  await same(other, `${NET}/blockchains/p-chain/transactions:listStaking?${PAGE}`);

  for (const chain of chains) {
    const list = [...addresses[chain]].sort();
    count(`${chain} addresses`, list.length);
    for (let i = 0; i < list.length; i += 16) {
      const a = list.slice(i, i + 16).join(",");
      await same(other, `${NET}/blockchains/${chain}/transactions?addresses=${a}&${PAGE}`);
      await same(other, `${NET}/blockchains/${chain}/utxos?addresses=${a}&includeSpent=true&${PAGE}`);
      await same(other, `${NET}/blockchains/${chain}/utxos?addresses=${a}&${PAGE}`);
      await same(other, `${NET}/blockchains/${chain}/balances?addresses=${a}`);
    }
  }
  const pAddresses = [...addresses["p-chain"]].sort();
  for (let i = 0; i < pAddresses.length; i += 16) {
    const a = pAddresses.slice(i, i + 16).join(",");
    await same(other, `${NET}/rewards:listPending?addresses=${a}&${PAGE}`);
    await same(other, `${NET}/rewards?addresses=${a}&${PAGE}`);
    await same(other, `${NET}/addresses:listChainIds?addresses=${a}`);
  }

  // X-chain: assets, and the DAG era's vertices by height.
  const xTxs = (await walk(dev, `${NET}/blockchains/x-chain/transactions?${PAGE}`)).items as Json[];
  const assets = new Set<string>();
  for (const tx of xTxs)
    for (const amount of [...((tx.amountCreated as Json[]) ?? []), ...((tx.amountUnlocked as Json[]) ?? [])])
      assets.add(String(amount.assetId));
  for (const asset of assets) {
    await same(other, `${NET}/blockchains/x-chain/assets/${asset}`);
    await same(other, `${NET}/blockchains/x-chain/assets/${asset}/transactions?${PAGE}`);
  }
  const vertices = (await same(other, `${NET}/blockchains/x-chain/vertices?${PAGE}`)) as Json[];
  count("x-chain vertices", vertices.length);
  const heights = new Set(vertices.map((v) => String(v.vertexHeight)));
  for (const h of heights)
    await same(other, `${NET}/blockchains/x-chain/vertices:listByHeight?vertexHeight=${h}&${PAGE}`);
  for (const v of vertices.slice(0, 20))
    await same(other, `${NET}/blockchains/x-chain/vertices/${String(v.vertexHash)}`);

  // Staking and the network.
  await same(other, NET);
  const validators = (await same(other, `${NET}/validators?${PAGE}`)) as Json[];
  count("validators", validators.length);
  for (const status of ["active", "pending", "completed", "removed"])
    await same(other, `${NET}/validators?validationStatus=${status}&${PAGE}`);
  const nodeIds = [...new Set(validators.map((v) => String(v.nodeId)))];
  for (const nodeId of nodeIds) {
    await same(other, `${NET}/validators/${nodeId}?${PAGE}`);
    await same(other, `${NET}/blockchains/p-chain/nodes/${nodeId}/blocks?${PAGE}`);
  }
  if (nodeIds.length > 0) await same(other, `${NET}/rewards:listPending?nodeIds=${nodeIds.join(",")}&${PAGE}`);
  count("delegators", (await same(other, `${NET}/delegators?${PAGE}`)).length);
  count("l1Validators", (await same(other, `${NET}/l1Validators?${PAGE}`)).length);
  count("blockchains", (await same(other, `${NET}/blockchains?${PAGE}`)).length);
  const subnets = (await same(other, `${NET}/subnets?${PAGE}`)) as Json[];
  for (const s of subnets) await same(other, `${NET}/subnets/${String(s.subnetId)}`);
  return seen;
}

/** Walks the EVM and ICM lists of every followed chain, deriving addresses, tokens and contracts from the answers. */
async function compareEvm(other: TestNode): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  await same(other, "/v1/chains");
  const chains = ((await getJson(dev, "/v1/chains")).body.chains as Json[]).map((c) => String(c.chainId));
  for (const chainId of chains) {
    const base = `/v1/chains/${chainId}`;
    await same(other, base);
    const blocks = (await same(other, `${base}/blocks?${PAGE}`)) as Json[];
    seen[`${chainId} blocks`] = blocks.length;
    for (const [i, b] of blocks.entries()) {
      if (i % 10 !== 0) continue;
      await same(other, `${base}/blocks/${String(b.blockNumber)}`);
      await same(other, `${base}/blocks/${String(b.blockNumber)}/transactions?${PAGE}`);
    }
    const txs = (await same(other, `${base}/transactions?${PAGE}`)) as Json[];
    seen[`${chainId} transactions`] = txs.length;
    const addresses = new Set<string>();
    const contracts = new Set<string>();
    for (const [i, entry] of txs.entries()) {
      const tx = (entry.nativeTransaction ?? entry) as Json;
      for (const side of ["from", "to"]) {
        const a = (tx[side] as Json | undefined)?.address;
        if (typeof a === "string") addresses.add(a);
      }
      if (i % 5 === 0) await same(other, `${base}/transactions/${String(tx.txHash)}`);
    }
    seen[`${chainId} addresses`] = addresses.size;
    for (const a of [...addresses].sort()) {
      await same(other, `${base}/addresses/${a}/transactions?${PAGE}`);
      for (const kind of ["listNative", "listErc20", "listErc721", "listErc1155", "listInternals"])
        await same(other, `${base}/addresses/${a}/transactions:${kind}?${PAGE}`);
      for (const kind of ["listErc20", "listErc721", "listErc1155", "listCollectibles"]) {
        for (const token of (await same(other, `${base}/addresses/${a}/balances:${kind}?${PAGE}`)) as Json[])
          contracts.add(String(token.address));
      }
      for (const c of (await same(other, `${base}/contracts/${a}/deployments?${PAGE}`)) as Json[])
        contracts.add(String(c.address));
      await same(other, `/v1/icm/addresses/${a}/messages?${PAGE}`);
    }
    seen[`${chainId} contracts`] = contracts.size;
    for (const c of [...contracts].sort()) {
      await same(other, `${base}/addresses/${c}`);
      await same(other, `${base}/contracts/${c}/transactions:getDeployment`);
      await same(other, `${base}/tokens/${c}/transfers?${PAGE}`);
      await same(other, `${base}/nfts/collections/${c}/tokens?${PAGE}`);
    }
  }
  seen["icm messages"] = (await same(other, `/v1/icm/messages?${PAGE}`)).length;
  await same(other, `/v1/teleporter/messages?${PAGE}`);
  await same(other, `/v1/blocks?${PAGE}`);
  await same(other, `/v1/transactions?${PAGE}`);
  return seen;
}

describe("the dev network's history, replayed and mirrored", () => {
  let counts: Record<string, number>;

  beforeAll(async () => {
    dev = await startNode({...DEV, feed: "dev", "dev-backfill": BACKFILL}, {overrides: {devNow: () => FROZEN_AT}});
    // The dev node has backfilled to its fixed clock: nothing moves from here on.
    await until("the dev node", () => {
      if (!dev.node.feedStatus.caughtUp()) return "backfilling";
      if (dev.node.dataApi?.view?.lag() !== 0n) return "folding";
      const chains = dev.node.dataApi?.evm?.chains ?? [];
      const behind = chains
        .map((c) => c.follower?.status())
        .filter((s) => s == null || s.head === null || s.head !== s.rpcHead);
      if (chains.length !== 2 || behind.length > 0) return "following its EVMs";
      return evmLanesCaughtUp(dev) ? "caught up" : "EVM lanes behind their heads";
    });
    counts = await exportHistory(dev);
    const heads = evmHeads(dev);
    const url = dev.url.toString().replace(/\/$/, "");
    const l1 = dev.node.devFeed!.l1BlockchainId();
    const followed = {
      "genesis-file": path.join(dev.dataDir, "genesis.json"),
      "evm-rpc": `C=${url}/ext/bc/C/rpc,${l1}=${url}/ext/bc/${l1}/rpc`,
    };
    replay = await startNode({
      ...DEV,
      ...followed,
      feed: `file:${feedFile}`,
      "data-api-db": await createTestDatabase(),
    });
    mirror = await startNode({...DEV, ...followed, feed: url});
    await caughtUpWith(replay, counts, heads);
    await caughtUpWith(mirror, counts, heads);
  }, 600_000);
  afterAll(async () => {
    await mirror?.close();
    await replay?.close();
    await dev?.close();
  });

  it("exported every era of the dev network", () => {
    for (const ep of ENDPOINTS) expect(counts[ep], ep).toBeGreaterThan(0);
  });

  for (const [name, node] of [
    ["replayed from a file into PostgreSQL", () => replay],
    ["mirrored over HTTP into PGlite", () => mirror],
  ] as const) {
    it(`${name}: every primary-network list, every page, answers as the dev node`, async () => {
      const seen = await comparePrimary(node());
      for (const k of [
        "p-chain transactions",
        "x-chain transactions",
        "c-chain transactions",
        "x-chain vertices",
        "validators",
        "delegators",
        "l1Validators",
      ]) {
        expect(seen[k], k).toBeGreaterThan(0);
      }
    }, 600_000);

    it(`${name}: every EVM and ICM list, every page, answers as the dev node`, async () => {
      const seen = await compareEvm(node());
      expect(seen["icm messages"]).toBeGreaterThan(0);
    }, 600_000);
  }
});
