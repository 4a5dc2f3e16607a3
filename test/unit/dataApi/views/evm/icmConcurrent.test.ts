/**
 * Both ends of a message folded at once (docs/api/icm.md): on a server, the send's chain and the receipt's
 * chain are followed by different followers whose transactions overlap. Whatever the interleaving, the record ends
 * with both ends: here the receive's transaction folds while the send's has folded and not yet committed, the
 * interleaving in which each would see only its own events.
 */
import {afterAll, beforeAll, expect, it} from "vitest";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {foldIcmEvents} from "../../../../../src/dataApi/views/evm/icmFold.js";
import type {IcmEvent, TeleporterMessage} from "../../../../../src/dataApi/evm/icm.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";

const MESSENGER = "0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf";
const A = "aa".repeat(32);
const B = "bb".repeat(32);
const ID = "cd".repeat(32);
const message: TeleporterMessage = {
  messageNonce: 1n,
  originSenderAddress: "0x" + "11".repeat(20),
  destinationBlockchainId: B,
  destinationAddress: "0x" + "22".repeat(20),
  requiredGasLimit: 100_000n,
  allowedRelayerAddresses: [],
  receipts: [],
  message: "0x6869",
};
const send: IcmEvent = {
  kind: "SendCrossChainMessage",
  contract: MESSENGER,
  logIndex: 0,
  messageId: ID,
  destinationBlockchainId: B,
  message,
  feeInfo: {feeTokenAddress: "0x" + "00".repeat(20), amount: 0n},
};
const receive: IcmEvent = {
  kind: "ReceiveCrossChainMessage",
  contract: MESSENGER,
  logIndex: 0,
  messageId: ID,
  sourceBlockchainId: A,
  deliverer: "0x" + "33".repeat(20),
  rewardRedeemer: "0x" + "44".repeat(20),
  message,
};
const executed: IcmEvent = {
  kind: "MessageExecuted",
  contract: MESSENGER,
  logIndex: 1,
  messageId: ID,
  sourceBlockchainId: A,
};
const facts = (chainId: string, blockchainId: string, n: bigint) => ({
  chainId,
  blockchainId,
  blockNumber: n,
  timestamp: 1_700_000_000n + n,
  txs: new Map([[0, {hash: "0x" + "ee".repeat(32), gasUsed: 21_000n}]]),
});

describeBackends("ICM folds of both ends at once", (backend) => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
  });
  afterAll(async () => sql?.close());

  it("keeps both ends when the receipt's chain folds while the send's transaction is still open", async () => {
    let folded!: () => void;
    const sendFolded = new Promise<void>((r) => (folded = r));
    const sendTx = sql.transaction(async (tx) => {
      await foldIcmEvents(tx, [{facts: facts("1001", "2Bx", 5n), events: [{txIndex: 0, event: send}]}]);
      folded();
      // Still open: the other transaction folds meanwhile (on PGlite it waits for this one: one at a time).
      await new Promise((r) => setTimeout(r, 300));
    });
    if (backend.name !== "pglite") await Promise.race([sendFolded, sendTx]);
    const receiveTx = sql.transaction((tx) =>
      foldIcmEvents(tx, [
        {
          facts: facts("1002", "3Cy", 9n),
          events: [
            {txIndex: 0, event: receive},
            {txIndex: 0, event: executed},
          ],
        },
      ]),
    );
    await Promise.all([sendTx, receiveTx]);
    const [row] = await sql.query<{
      status: string;
      record: {messageExecuted: boolean; sourceChainId: string; destinationChainId: string};
    }>("SELECT status, record FROM icm_messages WHERE message_id = $1", [ID]);
    expect(row).toMatchObject({
      status: "delivered",
      record: {messageExecuted: true, sourceChainId: "1001", destinationChainId: "1002"},
    });
  });
});
