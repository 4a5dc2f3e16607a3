/**
 * What every query builds on: the client it is given, `$n` parameters, and what bounds a filtered list's work: a page whose filter is checked on rows an index walk finds (a transaction
 * type, a timestamp, a second address, a kind bit) reads at most SCAN_BUDGET entries of that walk. A filter that
 * few entries pass cannot then walk a busy address, asset or chain back to its first entry in one request: the page
 * ends at the budget, short or empty, with a cursor past the last entry read, and the next page goes on from there
 * (docs/api/data-api.md, "Filtered lists"). On PGlite, one session that every read and the fold share, this is the
 * only bound; on a server the reads' statement timeout is the other.
 */
/** The part of the store's SQL client the queries use. int8/numeric columns may come back as bigint or string. */
export interface SqlClientLike {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** Index entries one filtered page reads at most. */
export const SCAN_BUDGET = 10_000;

/**
 * Builds `$n` placeholders while collecting parameters, so dynamic WHERE clauses stay parameterised. `values` are
 * parameters the statement numbers itself ($1, $2, ...), before those `add` numbers.
 */
export class Params {
  constructor(readonly values: unknown[] = []) {}

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The row at entry `budget` of an index walk (`walk`: a SELECT of the walk's sort key with its WHERE and ORDER BY,
 * no LIMIT), or null when the walk holds fewer entries: the page then needs no bound. An index-only read of
 * `budget` entries, cheaper by far than the rows a filter would fetch.
 */
export async function scanBound<K>(
  sql: SqlClientLike,
  walk: string,
  params: unknown[],
  budget = SCAN_BUDGET,
): Promise<K | null> {
  const rows = await sql.query<K>(`${walk} OFFSET ${Math.max(0, Math.floor(budget) - 1)} LIMIT 1`, params);
  return rows[0] ?? null;
}

/**
 * A request whose answer needs more than the budget's entries at once (a sum, not a page): answered 503 with this
 * message, which says what to narrow.
 */
export class ScanBudgetExceeded extends Error {}
