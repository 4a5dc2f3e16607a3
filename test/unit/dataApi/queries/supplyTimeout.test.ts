/**
 * The AVAX supply's statement timeout on a PostgreSQL server (queries/primary/supply.ts): a sum that runs past it is
 * cancelled (query_canceled, which the route answers 503), and the timeout is the transaction's own: the pool's
 * next statements run without it.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {getAvaxSupply} from "../../../../src/dataApi/queries/primary/supply.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";
import {recomputeSupplyTotals} from "../../../../src/dataApi/views/primary/supplyTotals.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {BACKENDS} from "../../../helpers/sql.js";
import {AVAX, NET, P_ID} from "./fixture.js";

describe("AVAX supply on a PostgreSQL server", () => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await BACKENDS.find((b) => b.name === "postgres")!.open();
    for (const m of MIGRATIONS) await sql.exec(m.sql);
    // 300,000 time-locked AVAX UTXOs (the part of the supply summed per answer): far more than a millisecond.
    await sql.exec(
      `INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_seq, created_ts, asset_id, amount, addresses, locktime)
       SELECT 'u' || i, 'tx' || i, 0, '${P_ID}', i, 1000, '${AVAX}', 1, '[]', 99999999999 FROM generate_series(1, 300000) i`,
    );
    await recomputeSupplyTotals(sql, AVAX);
  }, 180_000);
  afterAll(async () => sql?.close());

  it("cancels a sum past the timeout, and leaves the pool's other statements without it", async () => {
    await expect(getAvaxSupply(sql, NET, {now: 3000, timeoutMs: 1})).rejects.toMatchObject({code: "57014"});
    for (let i = 0; i < 6; i++) {
      const [r] = await sql.query<{t: string}>("SHOW statement_timeout");
      expect(r!.t ?? Object.values(r!)[0]).toBe("0");
    }
    const s = await getAvaxSupply(sql, NET, {now: 3000, timeoutMs: 60_000});
    expect(s.genesisUnlock).toBe("0");
    expect(s.totalPBurned).toBe("0");
    expect(s.totalLocked).toBe("0.0003");
  });
});
