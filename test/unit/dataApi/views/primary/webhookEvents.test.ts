/**
 * The primary-network view's webhook messages (views/primary/webhookEvents.ts) over a real LevelDB index of signed
 * X-chain transactions and both SQL backends: a primary_network_address_activity webhook gets one balance_change
 * message per transaction that consumes or creates a UTXO of its address, written with the batch: a batch the store
 * refuses leaves none of its messages, the refold writes each once (same IDs); another address's webhook gets
 * nothing; a balance_threshold message is written only when the balance crossed (checked against balances summed
 * here from the store's UTXOs), its body made without the address's history; a rebuild's refold from genesis makes
 * no message again and none for a webhook made after the history.
 */
import {afterAll, beforeAll, expect, it} from "vitest";
import {NETWORKS} from "../../../../../src/chains/index.js";
import type {IndexStore} from "../../../../../src/containerIndex/store.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {PrimaryView, defaultPrimaryViewOptions} from "../../../../../src/dataApi/views/primary/view.js";
import {WebhookEvents} from "../../../../../src/dataApi/views/primary/webhookEvents.js";
import {runTogether} from "../../../../../src/dataApi/store/bulk.js";
import {insertWebhook, type WebhookKey} from "../../../../../src/dataApi/queries/webhooks.js";
import {dueMessages} from "../../../../../src/dataApi/queries/webhookOutbox.js";
import {getXChainTransaction} from "../../../../../src/dataApi/queries/primary/transactions.js";
import {buildBodies} from "../../../../../src/dataApi/webhooks/payload.js";
import {remakeTables} from "../../../../../src/dataApi/rebuild.js";
import {formatAddress} from "../../../../../src/dataApi/server/names.js";
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
const keys = makeKeys(12, "webhook-events-test");
const blocks = [
  ...xHistory({
    txs: 240,
    txsPerBlock: 8,
    keys,
    networkId: network.id,
    chainId: idFromString(X),
    assetId: idFromString(AVAX),
    startSeconds: 1_700_000_000,
    random: prng(3),
  }),
];
const NET = {networkName: "local", hrp: "local", chainIds: network.chainIds, avaxAssetId: AVAX};
const WATCHED = keys[0]!.address;
const STRANGER = makeKeys(1, "not in the history")[0]!.address;

const view = (store: IndexStore, sql: SqlClient): PrimaryView =>
  new PrimaryView(
    {...defaultPrimaryViewOptions, batchSize: 7},
    {index: store, sql, network, genesis: () => GENESIS, avaxAssetId: AVAX, logger: quietLogger(), metrics: null},
  );

const hook = xAddressHook;

const messages = (sql: SqlClient, webhook: string) =>
  sql.query<{message_id: string; primary_tx_id: string; seq: string; event: {subEvent: string; addresses: string[]}}>(
    "SELECT o.message_id, o.primary_tx_id, t.seq::text AS seq, o.event FROM webhook_outbox o JOIN txs t ON t.chain = 'X' AND t.tx_id = o.primary_tx_id WHERE o.webhook_id = $1 ORDER BY t.seq",
    [webhook],
  );

describeBackends("primary webhooks' messages from the view's fold", (backend) => {
  let sql: SqlClient;
  let idx: XIndex;
  let close: (() => Promise<void>) | undefined;
  /** The seqs of the transactions that consume or create a UTXO of WATCHED (their owners and signers). */
  let touching: string[] = [];

  beforeAll(async () => {
    ({sql, idx, close} = await storeAndIndex(backend, blocks));
    await hook(sql, "change", WATCHED, ["balance_change"]);
    await hook(sql, "stranger", STRANGER, ["balance_change", "balance_threshold"]);
  }, 60_000);
  afterAll(async () => close?.());

  it("writes a batch's messages in its statement: a refused batch leaves none, the refold each once", async () => {
    // The store refuses the first transaction of block 16 (batches of 7 blocks): that batch and those after roll back.
    await sql.exec(`CREATE FUNCTION refuse_tx() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.seq = 129 THEN RAISE EXCEPTION 'test: the store refuses this transaction'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_tx BEFORE INSERT ON txs FOR EACH ROW EXECUTE FUNCTION refuse_tx();`);
    const v = view(idx.store, sql);
    await v.load();
    await expect(v.catchUp()).rejects.toThrow(/the store refuses this transaction/);
    await v.close();
    const kept = Number((await sql.query<{n: string}>("SELECT max(seq)::text AS n FROM txs WHERE chain = 'X'"))[0]!.n);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(129);
    const before = await messages(sql, "change");
    // Every message's transaction was committed with it (the join found its row), and every committed touch has one.
    const committed = await sql.query<{seq: string}>(
      "SELECT DISTINCT seq::text AS seq FROM tx_addresses WHERE chain = 'X' AND address = $1 ORDER BY 1",
      [WATCHED],
    );
    expect(before.map((m) => m.seq).sort()).toEqual(committed.map((r) => r.seq).sort());
    expect(
      await sql.query(
        "SELECT 1 FROM webhook_outbox WHERE primary_tx_id IS NOT NULL AND primary_tx_id NOT IN (SELECT tx_id FROM txs)",
      ),
    ).toEqual([]);

    await sql.exec("DROP TRIGGER refuse_tx ON txs; DROP FUNCTION refuse_tx();");
    const again = view(idx.store, sql);
    await again.load();
    await again.catchUp();
    await again.close();
    const after = await messages(sql, "change");
    touching = (
      await sql.query<{seq: string}>(
        "SELECT DISTINCT seq::text AS seq FROM tx_addresses WHERE chain = 'X' AND address = $1",
        [WATCHED],
      )
    ).map((r) => r.seq);
    expect(touching.length).toBeGreaterThan(before.length);
    expect(after.map((m) => m.seq).sort()).toEqual([...touching].sort());
    // The messages committed before the failure kept their IDs.
    expect(after.filter((m) => before.some((b) => b.message_id === m.message_id))).toHaveLength(before.length);
    for (const m of after)
      expect(m.event).toEqual({subEvent: "balance_change", addresses: [Buffer.from(WATCHED).toString("hex")]});
    expect(await messages(sql, "stranger")).toEqual([]);
  });

  it("matches a 50,000-key webhook by index: a batch of 2,000 matched rows costs what a one-key webhook's does", async () => {
    // The review's case: 2,000 address events of one batch, all watched, and 2,000 validator events, against a
    // webhook of 50,000 keys and against one of 1 (each alone); the statements run and roll back.
    const many = Array.from({length: 50_000}, (_, i) =>
      Uint8Array.from(Buffer.from(i.toString(16).padStart(40, "0"), "hex")),
    );
    const nodes = many.map((a) => `NodeID-${Buffer.from(a).toString("hex")}`);
    const make = (id: string, n: number) =>
      sql.transaction(async (tx) => {
        for (const [eventType, chainId] of [
          ["primary_network_address_activity", X],
          ["validator_activity", network.chainIds.P],
        ] as const) {
          await insertWebhook(tx, {
            id: `${id}-${eventType}`,
            owner: "o",
            eventType,
            url: "http://x/",
            name: "",
            description: "",
            chainId,
            network: "local",
            metadata:
              eventType === "validator_activity"
                ? {keyType: "nodeId", subEvents: {validatorActivitySubEvents: ["validator_stake"]}}
                : {keyType: "addresses", subEvents: {addressActivitySubEvents: ["balance_change"]}},
            includeInternalTxs: false,
            includeLogs: false,
            secret: null,
            createdAt: 0,
            addresses: eventType === "validator_activity" ? [] : many.slice(0, n),
            keys: (eventType === "validator_activity" ? nodes : many.map((a) => `X-${formatAddress(a, "local")}`))
              .slice(0, n)
              .map((k): WebhookKey => ["key", k]),
            primaryChain: eventType === "validator_activity" ? "P" : "X",
          });
        }
        await tx.query("UPDATE webhooks SET from_block = 0 WHERE id LIKE $1", [`${id}-%`]);
      });
    // Every event matched: the one key's (2,000 transactions of it), or 2,000 of the 50,000.
    const batch = (spread: boolean): {statements: string[]; params: unknown[]} => {
      const ev = new WebhookEvents();
      for (let i = 0; i < 2000; i++) {
        const place = {chainId: X, pos: 10n, txId: `tx-${i}`, blockId: "b", height: 1n, txIndex: i};
        const k = spread ? i * 25 : 0;
        ev.addresses(place, [many[k]!]);
        ev.validatorEvent(
          {...place, chainId: network.chainIds.P},
          "validator_stake",
          {nodeId: nodes[k]!, subnetId: "primary"},
          {},
        );
      }
      const params: unknown[] = [];
      return {statements: ev.statements(params), params};
    };
    const time = async (spread: boolean): Promise<{ms: number; n: number}> => {
      const {statements, params} = batch(spread);
      let n = 0;
      const t0 = performance.now();
      await sql
        .transaction(async (tx) => {
          await runTogether(tx, statements, params);
          n = Number(
            (
              await tx.query<{n: string}>(
                "SELECT count(*)::text AS n FROM webhook_outbox WHERE primary_tx_id LIKE 'tx-%'",
              )
            )[0]!.n,
          );
          throw new Error("roll back");
        })
        .catch((e: Error) => {
          if (e.message !== "roll back") throw e;
        });
      return {ms: performance.now() - t0, n};
    };
    await make("one", 1);
    await time(false);
    const one = await time(false);
    await sql.query("UPDATE webhooks SET status = 'inactive' WHERE id LIKE 'one-%'");
    await make("many", 50_000);
    await time(true);
    const big = await time(true);
    await sql.query("UPDATE webhooks SET status = 'inactive' WHERE id LIKE 'many-%'");
    // Each event made its message, and the times are alike.
    expect(one.n).toBe(4000);
    expect(big.n).toBe(4000);
    console.log(
      `${backend.name}: 2,000 address + 2,000 validator events of one batch: ${one.ms.toFixed(0)} ms against a 1-key webhook, ${big.ms.toFixed(0)} ms against a 50,000-key one`,
    );
    expect(big.ms).toBeLessThan(one.ms * 3 + 1000);
  }, 120_000);

  it("builds a balance_change body with the transaction as the X-chain endpoint serves it", async () => {
    const due = (await dueMessages(sql, Date.now(), 1000, [])).filter((m) => m.webhook_id === "change");
    expect(due).toHaveLength(touching.length);
    const bodies = await buildBodies(
      sql,
      due.slice(0, 3),
      () => ({name: "", symbol: "", decimals: 18}),
      async () => null,
      NET,
    );
    for (const m of due.slice(0, 3)) {
      const body = JSON.parse(bodies.get(m.message_id)!);
      expect(body).toMatchObject({
        webhookId: "change",
        eventType: "primary_network_address_activity",
        messageId: m.message_id,
      });
      expect(body.event).toMatchObject({
        subEvent: "balance_change",
        chainId: X,
        network: "local",
        txHash: m.primary_tx_id,
        addresses: [`X-${formatAddress(WATCHED, "local")}`],
      });
      expect(body.event.transaction).toEqual(
        JSON.parse(JSON.stringify(await getXChainTransaction(sql, NET, m.primary_tx_id!))),
      );
    }
    // Without the network, a primary message is not delivered (skipped), never sent half-made.
    expect(
      (
        await buildBodies(
          sql,
          due.slice(0, 1),
          () => ({name: "", symbol: "", decimals: 18}),
          async () => null,
        )
      ).get(due[0]!.message_id),
    ).toBeNull();
  });

  it("writes a balance_threshold message only when the balance crossed, from balances the fold keeps", async () => {
    // Balances of WATCHED after each transaction, summed here from the store's UTXOs (created and spent by seq).
    const utxos = await sql.query<{amount: string; created_seq: string; spent_seq: string | null}>(
      `SELECT u.amount::text, u.created_seq::text, (SELECT t.seq::text FROM utxo_spends sp JOIN txs t ON t.chain = 'X' AND t.tx_id = sp.consuming_tx WHERE sp.utxo_id = u.utxo_id) AS spent_seq
       FROM utxo_addresses ua JOIN utxos u ON u.utxo_id = ua.utxo_id WHERE ua.address = $1 AND u.created_chain = $2`,
      [WATCHED, X],
    );
    const balanceAt = (seq: bigint): bigint =>
      utxos
        .filter((u) => BigInt(u.created_seq) <= seq && (u.spent_seq === null || BigInt(u.spent_seq) > seq))
        .reduce((a, u) => a + BigInt(u.amount), 0n);
    const seqs = [...touching].map(BigInt).sort((a, b) => (a < b ? -1 : 1));
    const balances = seqs.map((s) => [balanceAt(s - 1n), balanceAt(s)] as const);
    // A threshold some transactions cross and most do not: the median of the balances reached.
    const sorted = balances.map(([, b]) => b).sort((a, b) => (a < b ? -1 : 1));
    const threshold = sorted[Math.floor(sorted.length / 2)]!;
    const crossing = seqs.filter((_, i) => balances[i]![0] < threshold !== balances[i]![1] < threshold).map(String);
    expect(crossing.length).toBeGreaterThan(0);
    expect(crossing.length).toBeLessThan(seqs.length);

    // A new webhook after the history, then the refold a rebuild does: its events come from there on, so nothing.
    await hook(sql, "threshold", WATCHED, ["balance_threshold"], {
      balanceType: "unlocked",
      balanceThreshold: threshold.toString(),
    });
    const [made] = await sql.query<{from_block: string}>(
      "SELECT from_block::text FROM webhooks WHERE id = 'threshold'",
    );
    expect(made!.from_block).toBe("241");
    const count = async (): Promise<number> =>
      Number((await sql.query<{n: string}>("SELECT count(*)::text AS n FROM webhook_outbox"))[0]!.n);
    const held = await count();
    await remakeTables(sql, quietLogger());
    const refold = view(idx.store, sql);
    await refold.load();
    await refold.catchUp();
    await refold.close();
    expect(await count()).toBe(held);
    expect(await messages(sql, "threshold")).toEqual([]);

    // Made from the start instead (from_block 0): the fold writes a message for each crossing and none for the other
    // touching transactions (no candidate to skip), its balances kept from the address's first touch on.
    await sql.query("UPDATE webhooks SET from_block = 0 WHERE id = 'threshold'");
    await remakeTables(sql, quietLogger());
    const third = view(idx.store, sql);
    await third.load();
    await third.catchUp();
    await third.close();
    expect(await count()).toBe(held + crossing.length);
    const seqOf = new Map((await messages(sql, "threshold")).map((m) => [m.message_id, m.seq]));
    expect([...seqOf.values()].sort()).toEqual([...crossing].sort());
    // The kept balances are the address's as the store sums them after the history.
    const [kept] = await sql.query<{n: string}>(
      "SELECT COALESCE(sum(amount), 0)::text AS n FROM webhook_balances WHERE chain = 'X' AND address = $1",
      [WATCHED],
    );
    expect(kept!.n).toBe(String(balanceAt(BigInt(seqs.at(-1)!))));
    // The bodies come from the facts the fold wrote, not from the address's history: gone, the bodies are the same.
    await sql.query("DELETE FROM utxo_addresses WHERE address = $1", [WATCHED]);
    const due = (await dueMessages(sql, Date.now(), 1000, [])).filter((m) => m.webhook_id === "threshold");
    const bodies = await buildBodies(
      sql,
      due,
      () => ({name: "", symbol: "", decimals: 18}),
      async () => null,
      NET,
    );
    const delivered = due.filter((m) => bodies.get(m.message_id) !== null).map((m) => seqOf.get(m.message_id)!);
    expect(delivered.sort()).toEqual([...crossing].sort());
    for (const m of due) {
      const b = bodies.get(m.message_id);
      if (b === null || b === undefined) continue;
      const e = JSON.parse(b).event;
      const i = seqs.findIndex((s) => String(s) === seqOf.get(m.message_id));
      expect(e).toMatchObject({
        subEvent: "balance_threshold",
        address: `X-${formatAddress(WATCHED, "local")}`,
        balanceType: "unlocked",
        balanceThreshold: threshold.toString(),
        previousBalance: String(balances[i]![0]),
        balance: String(balances[i]![1]),
      });
    }
  });
});
