/**
 * The store's own entries and liveness: what src/dataApi/service.ts needs of the store besides the views' rows.
 */
import {randomBytes} from "node:crypto";
import type {SqlClient} from "./sql.js";

/**
 * The per-store secret that authenticates page tokens: made once, shared by every process on the store. Read
 * before it is written, so that a serve process on a read-only replica of a store an ingest process has opened
 * starts without writing.
 */
export async function storeTokenSecret(sql: SqlClient): Promise<Uint8Array> {
  const read = async (): Promise<string | undefined> =>
    (await sql.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = 'tokenSecret'"))[0]?.value;
  let value = await read();
  if (value === undefined) {
    await sql.query("INSERT INTO data_api_meta (key, value) VALUES ('tokenSecret', $1) ON CONFLICT DO NOTHING", [
      randomBytes(32).toString("hex"),
    ]);
    value = (await read())!;
  }
  return Uint8Array.from(Buffer.from(value, "hex"));
}

/** How long the store takes to answer a trivial statement, ms (the health check's `storeLatencyMs`). */
export async function storeLatencyMs(sql: SqlClient): Promise<number> {
  const started = Date.now();
  await sql.query("SELECT 1");
  return Date.now() - started;
}
