/**
 * What every primary-network query takes: the SQL client (the store's `SqlClient` satisfies it) and the served
 * network's facts, plus the keyset page shape the router turns into page tokens.
 */

export interface NetworkCtx {
  /** `mainnet`, `fuji`, `local`. */
  networkName: string;
  /** Bech32 HRP: `avax`, `fuji`, `local`. */
  hrp: string;
  /** CB58 chain IDs. */
  chainIds: {P: string; X: string; C: string};
  avaxAssetId: string;
}

export type SortOrder = "asc" | "desc";

/** One page of a keyset list: `nextCursor` is the sort key of the last item, absent on the last page. */
export interface Page<T, C = string> {
  items: T[];
  nextCursor?: C;
}

/** Shared list arguments: `cursor` is the previous page's `nextCursor` (decimal string of the sort key). */
export interface PageArgs {
  pageSize: number;
  cursor?: string;
}

export {Params, type SqlClientLike} from "../sql.js";
