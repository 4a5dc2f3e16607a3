/**
 * A webhook message whose body cannot be built does not hold back the others (review finding, issue 47): delivery
 * builds a batch's bodies together, and one row the payload rejects made the whole batch fail and be read again
 * after a backoff, for ever. On both stores, with a real receiver: the good messages are delivered, the bad one
 * fails at once with the reason in its delivery log, and delivery goes on with messages that come later.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {migrate} from "../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {writeBlocks} from "../../../../src/dataApi/views/evm/write.js";
import {insertWebhook} from "../../../../src/dataApi/queries/webhooks.js";
import {WebhookDelivery, defaultWebhookDeliveryOptions} from "../../../../src/dataApi/webhooks/delivery.js";
import {BACKENDS, quietLogger} from "../../../helpers/sql.js";
import {startReceiver, type Receiver} from "../../../helpers/webhookReceiver.js";

const CHAIN = "99998";
const SIG = "0x" + "ab".repeat(32);

describe.each(BACKENDS)("a webhook message that cannot be built ($name)", (backend) => {
  let sql: SqlClient;
  let receiver: Receiver;
  let delivery: WebhookDelivery;
  const message = async (id: string, logs: unknown): Promise<void> => {
    await sql.query(
      "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, tx_index, logs, created_at) VALUES ($1, 'w1', $2, 1, 0, $3::jsonb, $4)",
      [id, CHAIN, JSON.stringify(logs), Date.now()],
    );
  };
  const state = async (id: string): Promise<string> =>
    (await sql.query<{state: string}>("SELECT state FROM webhook_outbox WHERE message_id = $1", [id]))[0]!.state;

  beforeAll(async () => {
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
    await sql.query(
      "INSERT INTO evm_chains (chain_id, blockchain_id, updated_at, traces) VALUES ($1, NULL, 0, false)",
      [CHAIN],
    );
    const a = new Uint8Array(20).fill(7);
    const hash = (k: number): Uint8Array => new Uint8Array(32).fill(k);
    await sql.transaction((tx) =>
      writeBlocks(
        tx,
        {chainId: CHAIN, blockchainId: null},
        [
          {
            block: {
              number: 1n,
              hash: hash(1),
              parentHash: hash(0),
              timestamp: 1000n,
              txCount: 1,
              baseFee: 1n,
              gasUsed: 21_000n,
              gasLimit: 8_000_000n,
              feesSpent: 21_000n,
            },
            txs: [
              {
                txIndex: 0,
                hash: hash(2),
                from: a,
                to: a,
                created: null,
                value: 1n,
                nonce: 0n,
                gasLimit: 21_000n,
                gasUsed: 21_000n,
                gasPrice: 1n,
                maxFee: null,
                maxPriorityFee: null,
                txType: 0,
                status: 1,
                input: new Uint8Array(0),
              },
            ],
            transfers: [],
            internals: null,
            contracts: [],
            addressKinds: new Map(),
            icm: [],
            warp: [],
          },
        ],
        0n,
      ),
    );
    receiver = await startReceiver("ok");
    await sql.transaction((tx) =>
      insertWebhook(tx, {
        id: "w1",
        owner: "o",
        eventType: "address_activity",
        url: receiver.url,
        name: "",
        description: "",
        chainId: CHAIN,
        network: null,
        metadata: {eventSignatures: [SIG]},
        includeInternalTxs: false,
        includeLogs: true,
        secret: "s".repeat(32),
        createdAt: Date.now(),
        addresses: [a],
      }),
    );
    // Logs that are not a list: the payload model throws on them (a row no fold writes, as a defect or an edit could).
    await message("bad", {topic0: SIG});
    await message("good-1", [{topic0: SIG}]);
    await message("good-2", [{topic0: SIG}]);
    delivery = new WebhookDelivery(
      {...defaultWebhookDeliveryOptions, allowPrivateUrls: true, pollMs: 20},
      {
        sql,
        logger: quietLogger(),
        now: Date.now,
        networkToken: () => ({name: "Avalanche", symbol: "AVAX", decimals: 18}),
      },
    );
    delivery.start();
  }, 120_000);

  afterAll(async () => {
    await delivery?.close();
    await receiver?.close();
    await sql?.close();
  });

  it("delivers the others, fails the bad one at once with its reason, and goes on", async () => {
    await receiver.waitFor(2, 20_000);
    expect(receiver.deliveries.map((d) => JSON.parse(d.body).messageId).sort()).toEqual(["good-1", "good-2"]);
    await expect.poll(() => state("bad"), {timeout: 10_000}).toBe("failed");
    const log = await sql.query<{attempt: number; status_code: number; error: string}>(
      "SELECT attempt, status_code, error FROM webhook_attempts WHERE message_id = 'bad'",
    );
    expect(log).toEqual([
      {attempt: 1, status_code: 0, error: expect.stringMatching(/^the message could not be built: /)},
    ]);
    // The webhook stays active (the fault is the message's, not its receiver's), and later messages still go.
    expect((await sql.query<{status: string}>("SELECT status FROM webhooks WHERE id = 'w1'"))[0]!.status).toBe(
      "active",
    );
    await message("good-3", [{topic0: SIG}]);
    delivery.poke();
    await receiver.waitFor(3, 20_000);
    expect(JSON.parse(receiver.deliveries[2]!.body).messageId).toBe("good-3");
    expect(receiver.deliveries).toHaveLength(3);
  });
});
