/**
 * Bulk inserts as one statement per batch, the same on PGlite and on a server:
 *   INSERT INTO t (a, b, ...) SELECT u.c0, u.c1, ... FROM unnest($1::text[], $2::int8[], ...) AS u(c0, c1, ...)
 * Each column travels as one array parameter. Two column types do not fit a one-dimensional array of their own
 * type and travel as text[] instead, converted back in SQL:
 * - text[]: each cell is sent as a PostgreSQL array literal (`{"a","b"}`) and cast `::text[]` (unnest of a 2-D array
 *   would flatten it);
 * - jsonb: each cell is sent as JSON text and cast `::jsonb` (a JS `null` cell is SQL NULL, not JSON null).
 */
import type {SqlTx} from "./client.js";

export type BulkColumnType = "text" | "int8" | "int4" | "bool" | "bytea" | "text[]" | "jsonb" | "numeric";

export interface BulkColumn {
  name: string;
  type: BulkColumnType;
}

export interface BulkInsertOptions {
  /** The clause after `ON CONFLICT`, e.g. `(id) DO NOTHING` or `(id) DO UPDATE SET x = excluded.x`. */
  onConflict?: string;
}

const IDENT = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

/**
 * Inserts `rows` (each one value per column, in `columns`' order) in one statement and returns the number of rows
 * written (fewer than `rows.length` when ON CONFLICT skipped some).
 *
 * Cells: text = string; int8 = bigint | number | decimal string; int4 = number; bool = boolean;
 * bytea = Uint8Array; text[] = Array<string | null>; jsonb = any JSON value; numeric = string | bigint | number;
 * null (or undefined) = SQL NULL in every column.
 */
export async function bulkInsert(
  tx: SqlTx,
  table: string,
  columns: readonly BulkColumn[],
  rows: readonly (readonly unknown[])[],
  opts: BulkInsertOptions = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  const params: unknown[] = [];
  // The count comes back as one row, not one row per inserted row.
  const sql = `WITH ins AS (${insertSql(table, columns, rows, opts, params)} RETURNING 1) SELECT count(*)::int4 AS n FROM ins`;
  const [res] = await tx.query<{n: number}>(sql, params);
  return res?.n ?? 0;
}

/**
 * The INSERT of `rows` into `table` as bulkInsert sends it (cells as there), without RETURNING; its column arrays are
 * appended to `params`, numbered after what `params` holds.
 */
export function insertSql(
  table: string,
  columns: readonly BulkColumn[],
  rows: readonly (readonly unknown[])[],
  opts: BulkInsertOptions,
  params: unknown[],
): string {
  if (!IDENT.test(table)) throw new Error(`bulkInsert: bad table name ${JSON.stringify(table)}`);
  if (columns.length === 0) throw new Error("bulkInsert: no columns");
  for (const c of columns) if (!IDENT.test(c.name) || c.name.includes(".")) throw new Error(`bulkInsert: bad column name ${JSON.stringify(c.name)}`);
  const arraysOf: unknown[][] = columns.map(() => new Array<unknown>(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (row.length !== columns.length) {
      throw new Error(`bulkInsert ${table}: row ${r} has ${row.length} values for ${columns.length} columns`);
    }
    for (let c = 0; c < columns.length; c++) arraysOf[c][r] = encodeCell(columns[c].type, row[c]);
  }
  const first = params.length + 1;
  params.push(...arraysOf);
  const arrays = columns.map((c, i) => `$${first + i}::${paramArrayType(c.type)}`).join(", ");
  const aliases = columns.map((_, i) => `c${i}`);
  const select = columns.map((c, i) => selectExpr(c.type, `u.${aliases[i]}`)).join(", ");
  const names = columns.map((c) => c.name).join(", ");
  const conflict = opts.onConflict ? ` ON CONFLICT ${opts.onConflict}` : "";
  return `INSERT INTO ${table} (${names}) SELECT ${select} FROM unnest(${arrays}) AS u(${aliases.join(", ")})${conflict}`;
}

/**
 * Data-modifying statements (INSERT, UPDATE, DELETE, sharing `params`) run as ONE statement, each a CTE named `w0`,
 * `w1`, ...: one round trip, and a server runs them all without waiting for the client between them. They see the
 * same snapshot and not each other's rows, so none may depend on another's; each runs to completion, and all commit
 * or none. `select` is the main query: one that reads a CTE's RETURNING rows runs that CTE before the others, and
 * can raise to undo them all.
 */
export async function runTogether(tx: SqlTx, statements: readonly string[], params: readonly unknown[], select = "SELECT 1"): Promise<void> {
  if (statements.length === 0) return;
  const ctes = statements.map((s, i) => `w${i} AS (${s})`).join(", ");
  await tx.query(`WITH ${ctes} ${select}`, params as unknown[]);
}

function paramArrayType(type: BulkColumnType): string {
  switch (type) {
    case "text[]":
    case "jsonb":
      return "text[]";
    default:
      return `${type}[]`;
  }
}

function selectExpr(type: BulkColumnType, ref: string): string {
  switch (type) {
    case "text[]":
      return `${ref}::text[]`;
    case "jsonb":
      return `${ref}::jsonb`;
    default:
      return ref;
  }
}

function encodeCell(type: BulkColumnType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case "text[]":
      if (!Array.isArray(v)) throw new Error(`bulkInsert: a text[] cell must be an array, got ${typeof v}`);
      return textArrayLiteral(v);
    case "jsonb":
      return JSON.stringify(v);
    case "int8":
    case "numeric":
      // Strings both drivers send unchanged: a bigint is exact, and PGlite would not take a bigint in numeric[].
      return typeof v === "bigint" || typeof v === "number" ? v.toString() : v;
    default:
      return v;
  }
}

/** A PostgreSQL array literal of text elements, every element quoted, NULL for null. */
export function textArrayLiteral(items: readonly unknown[]): string {
  const parts = items.map((x) => {
    if (x === null || x === undefined) return "NULL";
    if (typeof x !== "string") throw new Error(`bulkInsert: a text[] element must be a string, got ${typeof x}`);
    return `"${x.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  });
  return `{${parts.join(",")}}`;
}
