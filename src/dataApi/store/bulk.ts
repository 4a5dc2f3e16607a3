/**
 * Bulk inserts as one statement per batch, the same on PGlite and on a server:
 *   INSERT INTO t (a, b, ...) SELECT u.c0, u.c1, ... FROM unnest($1::text[], $2::int8[], ...) AS u(c0, c1, ...)
 * Each column travels as one array parameter in PostgreSQL's binary format (array_recv's): a Node Buffer, which both
 * drivers send as it is (see SqlClient). The server reads each element's bytes where it would parse the text of an
 * array literal (array_in: about 7 % of a PostgreSQL server's CPU while the views folded), and this process copies
 * bytes where it built escaped strings (pg's array serialiser and bytea's hex: about a fifth of the main thread's
 * CPU and most of its garbage, measured folding 300,000 X transactions). Three column types travel as text[] and are
 * converted in SQL:
 * - text[]: each cell is a PostgreSQL array literal (`{"a","b"}`) cast `::text[]` (unnest of a 2-D array would
 *   flatten it);
 * - jsonb: each cell is JSON text cast `::jsonb` (a JS `null` cell is SQL NULL, not JSON null);
 * - numeric: each cell is the number's decimal text cast `::numeric` (numeric's binary form is base-10000 digits).
 */
import type {SqlTx} from "./sql.js";

export type BulkColumnType = "text" | "int8" | "int4" | "bool" | "bytea" | "text[]" | "jsonb" | "numeric";

export interface BulkColumn {
  name: string;
  type: BulkColumnType;
}

export interface BulkInsertOptions {
  /** The clause after `ON CONFLICT`, e.g. `(id) DO NOTHING` or `(id) DO UPDATE SET x = excluded.x`. */
  onConflict?: string;
  /**
   * A column the table keys its rows by without a unique index (ON CONFLICT cannot see it): a row whose value the
   * table holds already is skipped, and so is a row repeating one before it in `rows`.
   */
  absentKey?: string;
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
  for (const c of columns)
    if (!IDENT.test(c.name) || c.name.includes("."))
      throw new Error(`bulkInsert: bad column name ${JSON.stringify(c.name)}`);
  for (let r = 0; r < rows.length; r++) {
    if (rows[r].length !== columns.length) {
      throw new Error(`bulkInsert ${table}: row ${r} has ${rows[r].length} values for ${columns.length} columns`);
    }
  }
  const first = params.length + 1;
  for (let c = 0; c < columns.length; c++) params.push(binaryArray(table, columns[c], rows, c));
  const arrays = columns.map((c, i) => `$${first + i}::${paramArrayType(c.type)}`).join(", ");
  const aliases = columns.map((_, i) => `c${i}`);
  const select = columns.map((c, i) => selectExpr(c.type, `u.${aliases[i]}`)).join(", ");
  const names = columns.map((c) => c.name).join(", ");
  const conflict = opts.onConflict ? ` ON CONFLICT ${opts.onConflict}` : "";
  if (opts.absentKey === undefined)
    return `INSERT INTO ${table} (${names}) SELECT ${select} FROM unnest(${arrays}) AS u(${aliases.join(", ")})${conflict}`;
  const k = columns.findIndex((c) => c.name === opts.absentKey);
  if (k < 0) throw new Error(`bulkInsert ${table}: the key ${JSON.stringify(opts.absentKey)} is not a column`);
  const key = `u.${aliases[k]}`;
  return (
    `INSERT INTO ${table} (${names}) SELECT DISTINCT ON (${key}) ${select} FROM unnest(${arrays}) WITH ORDINALITY AS u(${aliases.join(", ")}, ord) ` +
    `WHERE NOT EXISTS (SELECT 1 FROM ${table} AS held WHERE held.${opts.absentKey} = ${selectExpr(columns[k]!.type, key)}) ORDER BY ${key}, u.ord${conflict}`
  );
}

/**
 * Data-modifying statements (INSERT, UPDATE, DELETE, sharing `params`) run as ONE statement, each a CTE named `w0`,
 * `w1`, ...: one round trip, and a server runs them all without waiting for the client between them. They see the
 * same snapshot and not each other's rows, so none may depend on another's; each runs to completion, and all commit
 * or none. `select` is the main query: one that reads a CTE's RETURNING rows runs that CTE before the others, and
 * can raise to undo them all.
 */
export async function runTogether(
  tx: SqlTx,
  statements: readonly string[],
  params: readonly unknown[],
  select = "SELECT 1",
): Promise<void> {
  if (statements.length === 0) return;
  const ctes = statements.map((s, i) => `w${i} AS (${s})`).join(", ");
  await tx.query(`WITH ${ctes} ${select}`, params as unknown[]);
}

/** One array parameter in the binary form bulkInsert sends (`$n::<element>[]`, as paramArrayType names it). */
export function arrayParam(type: BulkColumnType, values: readonly unknown[]): Buffer {
  return binaryArray(
    "parameter",
    {name: "p", type},
    values.map((v) => [v]),
    0,
  );
}

export function paramArrayType(type: BulkColumnType): string {
  return `${ELEMENT[type]}[]`;
}

function selectExpr(type: BulkColumnType, ref: string): string {
  return ELEMENT[type] === type ? ref : `${ref}::${type}`;
}

/** The element type each column type travels as. */
const ELEMENT: Record<BulkColumnType, Element> = {
  text: "text",
  int8: "int8",
  int4: "int4",
  bool: "bool",
  bytea: "bytea",
  "text[]": "text",
  jsonb: "text",
  numeric: "text",
};

type Element = "text" | "int8" | "int4" | "bool" | "bytea";

const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** PostgreSQL's type OIDs of the elements: array_recv refuses an array whose element type is not the one cast to. */
const ELEMENT_OID: Record<Element, number> = {text: 25, int8: 20, int4: 23, bool: 16, bytea: 17};

type Cell = string | Uint8Array | bigint | number | boolean | null;
const cellScratch: Cell[] = [];

/**
 * Column `col` of `rows` as a one-dimensional array in PostgreSQL's binary format: ndim, has-nulls flag, element
 * type OID, length and lower bound, then each element as its length (-1 for NULL) and bytes.
 */
function binaryArray(table: string, column: BulkColumn, rows: readonly (readonly unknown[])[], col: number): Buffer {
  // One array for every call (binaryArray is synchronous): a column's cells, made once, are garbage once written.
  const cells = cellScratch;
  if (cells.length < rows.length) cells.length = rows.length;
  try {
    return encodeColumn(table, column, rows, col, cells);
  } finally {
    // A failed cell (a bad row) must not leave the batch's values held by the scratch array either.
    cells.fill(null, 0, rows.length);
  }
}

/** binaryArray's work, with `cells` to hold the column's cells between measuring and writing them. */
function encodeColumn(
  table: string,
  column: BulkColumn,
  rows: readonly (readonly unknown[])[],
  col: number,
  cells: Cell[],
): Buffer {
  const element = ELEMENT[column.type];
  const n = rows.length;
  let size = 20;
  let nulls = 0;
  for (let r = 0; r < n; r++) {
    const v = cell(column, rows[r][col], table);
    cells[r] = v;
    if (v === null) {
      nulls = 1;
      size += 4;
      continue;
    }
    switch (element) {
      case "text":
        size += 4 + Buffer.byteLength(v as string, "utf8");
        break;
      case "bytea":
        size += 4 + (v as Uint8Array).length;
        break;
      case "int8":
        size += 12;
        break;
      case "int4":
        size += 8;
        break;
      case "bool":
        size += 5;
        break;
    }
  }
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(nulls, 4);
  out.writeUInt32BE(ELEMENT_OID[element], 8);
  out.writeInt32BE(n, 12);
  out.writeInt32BE(1, 16);
  let at = 20;
  for (let r = 0; r < n; r++) {
    const v = cells[r];
    if (v === null) {
      at = out.writeInt32BE(-1, at);
      continue;
    }
    switch (element) {
      case "text": {
        const len = out.write(v as string, at + 4, "utf8");
        out.writeInt32BE(len, at);
        at += 4 + len;
        break;
      }
      case "bytea": {
        const b = v as Uint8Array;
        out.writeInt32BE(b.length, at);
        out.set(b, at + 4);
        at += 4 + b.length;
        break;
      }
      case "int8":
        out.writeInt32BE(8, at);
        if (typeof v === "number") {
          // Two 32-bit halves: Buffer's BigInt writer allocates three BigInts a cell (a tenth of the fold's garbage).
          const hi = Math.floor(v / 0x1_0000_0000);
          out.writeInt32BE(hi, at + 4);
          at = out.writeUInt32BE(v - hi * 0x1_0000_0000, at + 8);
        } else {
          at = out.writeBigInt64BE(v as bigint, at + 4);
        }
        break;
      case "int4":
        out.writeInt32BE(4, at);
        at = out.writeInt32BE(v as number, at + 4);
        break;
      case "bool":
        out.writeInt32BE(1, at);
        at = out.writeUInt8(v ? 1 : 0, at + 4);
        break;
    }
  }
  return out;
}

/**
 * A cell as its element travels, checked against its column's type and range: a string (text), Uint8Array (bytea),
 * number (int8 within 2^53, int4) or bigint (int8 beyond), boolean, or null.
 */
function cell(column: BulkColumn, v: unknown, table: string): Cell {
  if (v === null || v === undefined) return null;
  // The errors are built outside: closures made here would be allocated for every cell of a batch.
  switch (column.type) {
    case "text":
      if (typeof v === "string") return v;
      if (typeof v === "number" || typeof v === "bigint") return v.toString();
      throw badCell(table, column, v, "a text cell must be a string");
    case "text[]":
      if (!Array.isArray(v)) throw badCell(table, column, v, "a text[] cell must be an array");
      return textArrayLiteral(v);
    case "jsonb":
      return JSON.stringify(v);
    case "numeric":
      if (typeof v === "string" || typeof v === "bigint" || typeof v === "number") return v.toString();
      throw badCell(table, column, v, "a numeric cell must be a decimal string, a bigint or a number");
    case "int8": {
      // A safe integer travels as a number (see binaryArray); only one beyond 2^53 as a BigInt.
      if (typeof v === "number" && Number.isSafeInteger(v)) return v;
      if (typeof v === "bigint" && v >= MIN_SAFE && v <= MAX_SAFE) return Number(v);
      let n: bigint;
      if (typeof v === "bigint") n = v;
      else if ((typeof v === "number" && Number.isInteger(v)) || (typeof v === "string" && /^-?\d+$/.test(v)))
        n = BigInt(v);
      else throw badCell(table, column, v, "an int8 cell must be a bigint, an integer or a decimal integer string");
      if (n < INT8_MIN || n > INT8_MAX) throw cellOutOfRange(table, column, v, "int8");
      return n;
    }
    case "int4":
      if (!(typeof v === "number" && Number.isInteger(v)))
        throw badCell(table, column, v, "an int4 cell must be an integer");
      if (v < -0x80000000 || v > 0x7fffffff) throw cellOutOfRange(table, column, v, "int4");
      return v;
    case "bool":
      if (typeof v === "boolean") return v;
      throw badCell(table, column, v, "a bool cell must be a boolean");
    case "bytea":
      if (v instanceof Uint8Array) return v;
      throw badCell(table, column, v, "a bytea cell must be a Uint8Array");
  }
}

function badCell(table: string, column: BulkColumn, v: unknown, what: string): Error {
  return new Error(`bulkInsert ${table}.${column.name}: ${what}, got ${typeof v} ${String(v).slice(0, 40)}`);
}

function cellOutOfRange(table: string, column: BulkColumn, v: unknown, type: string): Error {
  return new Error(`bulkInsert ${table}.${column.name}: ${String(v)} is out of ${type}'s range`);
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
