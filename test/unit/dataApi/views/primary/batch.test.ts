/** A batch's rows: an aborted staking proposal's stake outputs still in the batch become plain UTXOs. */
import {expect, it} from "vitest";
import type {TxOutput} from "../../../../../src/dataApi/views/primary/model.js";
import {UTXO_CREATE_COLUMNS, utxoCreateRow, type TxPlace} from "../../../../../src/dataApi/views/primary/rows.js";
import {Batch} from "../../../../../src/dataApi/views/primary/batch.js";

const place: TxPlace = {
  chain: "P",
  chainId: "11111111111111111111111111111111LpoYY",
  seq: 1n,
  blockId: "b",
  height: 1n,
  ts: 1n,
};
const out = (index: number, staked: boolean): TxOutput => ({
  outputIndex: index,
  utxoId: `u${index}`,
  assetId: "a",
  amount: 5n,
  owner: {locktime: 0n, threshold: 1, addresses: [new Uint8Array(20)]},
  stakeableLocktime: 0n,
  staked,
  utxoType: staked ? "STAKE" : "TRANSFER",
  exportedTo: null,
  groupId: 0,
  payload: new Uint8Array(0),
  utxoBytes: new Uint8Array(1),
});
const col = (row: unknown[], name: string): unknown => row[UTXO_CREATE_COLUMNS.findIndex((c) => c.name === name)];

it("unstake makes the named transaction's stake outputs plain and leaves the others", () => {
  const b = new Batch();
  b.utxoCreates.push(
    utxoCreateRow("aborted", out(0, false), place),
    utxoCreateRow("aborted", out(1, true), place),
    utxoCreateRow("aborted", {...out(2, true), stakeableLocktime: 1_800_000_000n}, place),
    utxoCreateRow("other", out(0, true), place),
  );
  b.unstake("aborted");
  expect(
    b.utxoCreates.map((r) => [col(r, "tx_id"), col(r, "output_index"), col(r, "staked"), col(r, "utxo_type")]),
  ).toEqual([
    ["aborted", 0, false, "TRANSFER"],
    ["aborted", 1, false, "TRANSFER"],
    ["aborted", 2, false, "STAKEABLE_LOCK"],
    ["other", 0, true, "STAKE"],
  ]);
});
