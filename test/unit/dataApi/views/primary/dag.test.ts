/**
 * The primary-network view over the dev network's X-chain as mainnet's was: a DAG of vertices (X/vtx), the stop
 * vertex, then blocks (X/block). Folded one small batch per endpoint per round, the blocks wait for the DAG: the
 * X transactions keep their acceptance order. Vertex transactions take the index's acceptance time (a vertex has
 * no time of its own), and the stop vertex is a vertex without transactions.
 */
import {rmSync} from "node:fs";
import {afterAll, beforeAll, expect, it} from "vitest";
import {NETWORKS} from "../../../../../src/chains/index.js";
import {openIndexDatabase} from "../../../../../src/containerIndex/database.js";
import {IndexStore} from "../../../../../src/containerIndex/store.js";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {PrimaryView, defaultPrimaryViewOptions} from "../../../../../src/dataApi/views/primary/view.js";
import {DevFeed, defaultDevFeedOptions} from "../../../../../src/dev/feed.js";
import {FeedStatus} from "../../../../../src/feed/status.js";
import type {FeedItem} from "../../../../../src/feed/types.js";
import {genesisFromText} from "../../../../../src/genesis/resolve.js";
import type {NetworkGenesis} from "../../../../../src/genesis/build.js";
import {idToString} from "../../../../../src/util/cb58.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";
import {tempDir} from "../../../../helpers/node.js";

const network = NETWORKS.local;

/** The dev network's genesis (its feed's genesis file), set by devX(). */
let genesis: NetworkGenesis;

/** The X containers of 40 backfilled dev ticks (Cortina at tick 20). */
async function devX(): Promise<FeedItem[]> {
  const f = new DevFeed(
    {...defaultDevFeedOptions, backfillMs: 40 * defaultDevFeedOptions.backfillStepMs},
    {status: new FeedStatus(), network, evm: null},
  );
  const ctl = new AbortController();
  const items: FeedItem[] = [];
  await f.run(
    null,
    async (b) => {
      items.push(...b.items);
      ctl.abort();
    },
    ctl.signal,
  );
  genesis = genesisFromText(f.genesisText(), "dev").build();
  return items.filter((i) => i.chain === "X" && i.kind !== "tx");
}

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

describeBackends("primary-network view of a DAG, then blocks", (backend) => {
  let sql: SqlClient;
  let items: FeedItem[];

  beforeAll(async () => {
    items = await devX();
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
    const dir = tempDir();
    const db = await openIndexDatabase(dir);
    const store = await IndexStore.open(db);
    await store.accept(
      items.map((i) => ({endpoint: i.endpoint, id: i.id, bytes: i.bytes, timestampNs: i.timestampNs})),
      null,
    );
    const view = new PrimaryView(
      {...defaultPrimaryViewOptions, batchSize: 4, batchesPerRound: 1},
      {
        index: store,
        sql,
        network,
        genesis: () => genesis.state,
        avaxAssetId: genesis.avaxAssetId,
        logger: quietLogger(),
        metrics: null,
      },
    );
    await view.load();
    expect(await view.catchUp()).toBe(items.length);
    await view.close();
    closers.push(async () => {
      await sql.close();
      await db.close();
      rmSync(dir, {recursive: true, force: true});
    });
  }, 180_000);

  it("folds the vertex transactions before the block transactions, in acceptance order", async () => {
    const vtxs = items.filter((i) => i.kind === "vtx");
    const blocks = items.filter((i) => i.kind === "block");
    const rows = await sql.query<{block_id: string; seq: bigint}>(
      "SELECT block_id, seq FROM txs WHERE chain = 'X' ORDER BY seq",
    );
    const vertexIds = new Set(vtxs.map((v) => idToString(v.id)));
    const firstBlockTx = rows.findIndex((r) => !vertexIds.has(r.block_id));
    // Every vertex but the stop vertex holds one transaction; the blocks hold the rest.
    expect(firstBlockTx).toBe(vtxs.length - 1);
    expect(rows.slice(firstBlockTx).every((r) => !vertexIds.has(r.block_id))).toBe(true);
    expect(await sql.query("SELECT 1 FROM blocks WHERE chain = 'X'")).toHaveLength(blocks.length);
  });

  it("gives a vertex and its transactions the index's acceptance time", async () => {
    const first = items[0]!;
    const [v] = await sql.query<{ts: bigint; height: bigint; tx_count: number; parent_ids: string[]}>(
      "SELECT ts, height, tx_count, parent_ids FROM vertices WHERE vertex_id = $1",
      [idToString(first.id)],
    );
    expect(v).toMatchObject({ts: first.timestampNs / 1_000_000_000n, height: 0n, tx_count: 1, parent_ids: []});
    const [t] = await sql.query<{ts: bigint}>("SELECT ts FROM txs WHERE block_id = $1", [idToString(first.id)]);
    expect(t!.ts).toBe(v!.ts);
  });

  it("lists the stop vertex as the DAG's last vertex, without transactions", async () => {
    const stop = items.filter((i) => i.kind === "vtx").at(-1)!;
    const [v] = await sql.query<{seq: bigint; tx_count: number; tx_ids: string[]}>(
      "SELECT seq, tx_count, tx_ids FROM vertices WHERE vertex_id = $1",
      [idToString(stop.id)],
    );
    expect(v).toMatchObject({tx_count: 0, tx_ids: []});
    const [max] = await sql.query<{n: bigint}>("SELECT max(seq) AS n FROM vertices");
    expect(v!.seq).toBe(max!.n);
  });
});
