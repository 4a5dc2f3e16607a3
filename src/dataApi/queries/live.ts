/** Whether the store answers at all (`/v1/live-check`). */
import type {SqlClient} from "../store/sql.js";

export async function ping(sql: SqlClient): Promise<void> {
  await sql.query("SELECT 1");
}
