/**
 * A reorg takes back what the dropped blocks added to the interchain messages (docs/api/icm.md): a message
 * sent in a block that a real anvil reorg (evm_snapshot / evm_revert) replaces disappears from the store, events
 * and record alike, on both backends.
 */
import {afterAll, beforeAll, expect, it} from "vitest";
import {TELEPORTER_MESSAGE_INPUT_SPEC} from "../../../../../src/dataApi/evm/icm.js";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {EvmFollower, defaultEvmFollowerOptions} from "../../../../../src/dataApi/views/evm/follower.js";
import {Anvil} from "../../../../../src/dev/evm/anvil.js";
import {installIcm} from "../../../../../src/dev/evm/icm.js";
import {ANVIL_ACCOUNTS} from "../../../../../src/dev/evm/traffic.js";
import {encodeCallSpec} from "../../../../../src/evm/abi.js";
import {hexToBytes} from "../../../../../src/evm/hex.js";
import {EvmRpc, defaultEvmRpcOptions} from "../../../../../src/evm/rpc.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";

const MESSENGER = "0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf";

describeBackends("ICM messages through a reorg", (backend) => {
  let anvil: Anvil;
  let sql: SqlClient;
  let follower: EvmFollower;
  const logger = quietLogger();
  let ts = 1_700_000_010;
  const mine = async (): Promise<void> => {
    await anvil.rawCall("evm_mine", [{timestamp: ts++}]);
  };
  const count = async (table: string): Promise<number> =>
    (await sql.query<{n: number}>(`SELECT count(*)::int4 AS n FROM ${table}`))[0]!.n;

  beforeAll(async () => {
    anvil = await Anvil.start({chainId: 99971, genesisTimestamp: 1_700_000_000, mining: "manual"}, {logger});
    await installIcm(anvil, {networkId: 12345, blockchainId: "aa".repeat(32)});
    await mine();
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger});
    const rpc = new EvmRpc({...defaultEvmRpcOptions, url: anvil.url}, {logger});
    follower = new EvmFollower(
      {...defaultEvmFollowerOptions, chainId: "99971", blockchainId: null, pollMs: 20, icmMessengers: [MESSENGER]},
      {sql, rpc, logger, tokenInfo: async (_a, erc) => ({erc, name: null, symbol: null, decimals: null})},
    );
    follower.start();
    await follower.waitFor(1n);
  });
  afterAll(async () => {
    await follower?.close();
    await sql?.close();
    await anvil?.stop();
  });

  it("removes the message a dropped block sent, and keeps the one the new chain sends", async () => {
    const snapshot = await anvil.rawCall("evm_snapshot", []);
    const send = (text: string): Promise<unknown> =>
      anvil.rawCall("eth_sendTransaction", [
        {
          from: ANVIL_ACCOUNTS[0],
          to: MESSENGER,
          gas: "0x2dc6c0",
          data: encodeCallSpec(
            "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
            [TELEPORTER_MESSAGE_INPUT_SPEC],
            [
              [
                hexToBytes("bb".repeat(32)),
                ANVIL_ACCOUNTS[1],
                ["0x" + "0".repeat(40), 0n],
                100_000n,
                [],
                new TextEncoder().encode(text),
              ],
            ],
          ),
        },
      ]);
    await send("dropped");
    await mine();
    await follower.waitFor(2n);
    expect(await count("icm_messages")).toBe(1);
    const [before] = await sql.query<{record: {data: string; sourceBlockchainId: string}}>(
      "SELECT record FROM icm_messages",
    );
    expect(new TextDecoder().decode(hexToBytes(before!.record.data))).toBe("dropped");
    expect(await count("warp_messages")).toBe(1);

    await anvil.rawCall("evm_revert", [snapshot]);
    await mine(); // block 2 again, without the message
    await send("kept");
    await mine(); // block 3 sends another (nonce 1 again: the dropped send never happened)
    await follower.waitFor(3n);
    await expect
      .poll(async () =>
        (await sql.query<{record: {data: string}}>("SELECT record FROM icm_messages")).map((r) =>
          new TextDecoder().decode(hexToBytes(r.record.data)),
        ),
      )
      .toEqual(["kept"]);
    expect(await count("icm_events")).toBe(1);
    expect(await count("warp_messages")).toBe(1);
  });
});
