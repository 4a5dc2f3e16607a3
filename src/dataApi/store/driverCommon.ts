/**
 * What the two drivers (pglite.ts, pg.ts) share: the PostgreSQL type OIDs whose values the store's contract fixes
 * (sql.ts), the cap on named statements, and the error of a statement prepared before its tables changed.
 */

export const OID_INT8 = 20;
export const OID_INT8_ARRAY = 1016;
export const OID_BYTEA = 17;
export const OID_BYTEA_ARRAY = 1001;

/** Distinct statement texts given a name (see PgSqlClient.statementName and PgliteSqlClient.prepared). */
export const PREPARED_TEXTS = 1000;

/**
 * A named statement prepared before its tables changed (a rebuild, a newer writer's migration): "cached plan must
 * not change result type" (0A000), or the statement is gone (26000). Preparing it afresh succeeds.
 */
export function stalePreparedStatement(e: unknown): boolean {
  const code = (e as {code?: string}).code;
  return code === "0A000" || code === "26000";
}
