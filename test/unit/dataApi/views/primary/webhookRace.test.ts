/**
 * A primary webhook made while the view builds a batch (views/primary/view.ts writeBuilt, schema 26). Its from_block
 * is the position after what was folded when it was made, so the batch being built may hold its first events. That
 * batch read the webhooks before the webhook existed. The store is opened through a client that makes the webhook
 * right after the view's read of the webhooks for its third batch: the timing is the test's, the store and index are
 * real. Every transaction of the watched address from the webhook's from_block on must have its message, on both
 * backends (on a server the batches are pipelined, with statements in flight when the webhook is made).
 */
import {afterAll, beforeAll, expect, it} from "vitest";
import {NETWORKS} from "../../../../../src/chains/index.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {PrimaryView, defaultPrimaryViewOptions} from "../../../../../src/dataApi/views/primary/view.js";
import {makeKeys, xHistory} from "../../../../../src/dev/syntheticHistory.js";
import {idFromString} from "../../../../../src/util/cb58.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";
import {storeAndIndex, xAddressHook, type XIndex} from "./stores.js";
import {builtInGenesisText} from "../../../../../src/genesis/files.js";
import {genesisFromText} from "../../../../../src/genesis/resolve.js";
import {prng} from "../../../../helpers/prng.js";

const network = NETWORKS.local;
const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";
const X = network.chainIds.X;
const GENESIS = genesisFromText(builtInGenesisText(network.id)!, "local").build().state;
const keys = makeKeys(6, "webhook-race-test");
const blocks = [
  ...xHistory({
    txs: 200,
    txsPerBlock: 4,
    keys,
    networkId: network.id,
    chainId: idFromString(X),
    assetId: idFromString(AVAX),
    startSeconds: 1_700_000_000,
    random: prng(5),
  }),
];
const WATCHED = keys[0]!.address;
/** The view's read of a chain's primary webhooks (webhookEvents.ts webhooksOfBatch). */
const READS_WEBHOOKS = /bool_or\(status = 'active'\) AS events/;

const makeHook = (sql: SqlClient) => xAddressHook(sql, "late", WATCHED, ["balance_change"]);

/** `sql` as the view sees it, but the webhook is made once the view has read the webhooks `nth` times. */
function makingHookAfterRead(sql: SqlClient, nth: number): SqlClient {
  let reads = 0;
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop !== "query") {
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      }
      return async (text: string, params?: unknown[]) => {
        const rows = await target.query(text, params);
        if (READS_WEBHOOKS.test(text) && ++reads === nth) await makeHook(target);
        return rows;
      };
    },
  });
}

describeBackends("a primary webhook made while a batch is built", (backend) => {
  let sql: SqlClient;
  let idx: XIndex;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({sql, idx, close} = await storeAndIndex(backend, blocks));
  }, 60_000);
  afterAll(async () => close?.());

  it("gets every event from its from_block on: the batch built before it is built again", async () => {
    const view = new PrimaryView(
      {...defaultPrimaryViewOptions, batchSize: 5},
      {
        index: idx.store,
        sql: makingHookAfterRead(sql, 3),
        network,
        genesis: () => GENESIS,
        avaxAssetId: AVAX,
        logger: quietLogger(),
        metrics: null,
      },
    );
    await view.load();
    await view.catchUp();
    await view.close();
    const [hook] = await sql.query<{from_block: string}>(
      "SELECT from_block::text AS from_block FROM webhooks WHERE id = 'late'",
    );
    const from = BigInt(hook!.from_block);
    // Made after two batches of 5 blocks of 4 transactions were read, before the whole history was folded.
    expect(from).toBeGreaterThan(0n);
    expect(from).toBeLessThan(150n);
    const touching = await sql.query<{seq: string}>(
      "SELECT DISTINCT seq::text AS seq FROM tx_addresses WHERE chain = 'X' AND address = $1 AND seq >= $2 ORDER BY 1",
      [WATCHED, from],
    );
    const sent = await sql.query<{seq: string}>(
      "SELECT t.seq::text AS seq FROM webhook_outbox o JOIN txs t ON t.chain = 'X' AND t.tx_id = o.primary_tx_id WHERE o.webhook_id = 'late' ORDER BY 1",
    );
    expect(touching.length).toBeGreaterThan(10);
    expect(sent.map((r) => r.seq)).toEqual(touching.map((r) => r.seq));
  });
});
