/** Whether the store answers at all (`/v1/live-check`, the metrics service's health). */
import type {SqlClientLike} from "./sql.js";

export async function ping(sql: SqlClientLike): Promise<void> {
  await sql.query("SELECT 1");
}
