/**
 * An L1's validator set for warp, as AvalancheGo builds it (vms/platformvm/state/state.go): active validators sign
 * with their keys; an inactive (disabled or unfunded) one cannot sign, but its weight stays in the total (under the
 * empty NodeID, keyless), so the quorum is counted against it; a removed one (weight 0) is gone.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {validatorSetAt} from "../../../../src/dataApi/signatures/validatorSets.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {localSigner} from "../../../../src/dev/primaryNetwork.js";
import {TestDb} from "../queries/fixture.js";

describe("an L1's validator set", () => {
  const db = new TestDb();
  beforeAll(async () => {
    await db.init();
    await db.insert("blocks", {
      chain: "P",
      height: 7,
      block_id: "b7",
      container_id: "c7",
      parent_id: "b6",
      block_type: "standard",
      ts: 1_000,
      tx_count: 0,
      size_bytes: 1,
      tx_ids: [],
    });
    await db.insert("subnets", {
      subnet_id: "subL1",
      created_tx: "t",
      created_ts: 900,
      owner: {locktime: "0", threshold: 1, addresses: []},
      is_l1: true,
    });
    const row = (n: number, weight: string, active: boolean): Record<string, unknown> => ({
      validation_id: `v${n}`,
      subnet_id: "subL1",
      node_id: `NodeID-${n}`,
      weight,
      balance: active ? "10" : "0",
      bls: localSigner(n).credentials,
      created_tx: "t",
      created_ts: 900,
      active,
    });
    await db.insert("l1_validators", row(1, "100", true));
    await db.insert("l1_validators", row(2, "200", true));
    await db.insert("l1_validators", row(3, "100", false)); // disabled
    await db.insert("l1_validators", row(4, "0", false)); // removed
  }, 180_000);
  afterAll(async () => db.close());

  it("keys the active validators and counts the inactive one's weight in the total", async () => {
    const {set, height} = await validatorSetAt(db as unknown as SqlClient, "subL1", 0n);
    expect(BigInt(height)).toBe(7n);
    expect(set.validators.flatMap((v) => v.nodeIds).sort()).toEqual(["NodeID-1", "NodeID-2"]);
    expect(set.totalWeight).toBe(400n);
  });
});
