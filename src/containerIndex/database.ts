/** The container index's database (src/db/controller.ts) with a containers store per index endpoint. */
import {Database, type DatabaseOptions} from "../db/controller.js";
import {ENDPOINTS} from "./endpoints.js";

export function openIndexDatabase(
  dir: string,
  opts: Omit<DatabaseOptions, "containersStores"> = {},
): Promise<Database> {
  return Database.open(dir, {...opts, containersStores: ENDPOINTS});
}
