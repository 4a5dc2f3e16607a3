import {afterAll, beforeAll, expect, it} from "vitest";
import {bulkInsert, textArrayLiteral, type BulkColumn} from "../../../../src/dataApi/store/bulk.js";
import type {SqlClient} from "../../../../src/dataApi/store/client.js";
import {describeBackends} from "../../../helpers/sql.js";

const COLUMNS: BulkColumn[] = [
  {name: "id", type: "int8"},
  {name: "label", type: "text"},
  {name: "n4", type: "int4"},
  {name: "flag", type: "bool"},
  {name: "bytes", type: "bytea"},
  {name: "tags", type: "text[]"},
  {name: "doc", type: "jsonb"},
  {name: "amount", type: "numeric"},
];

const TABLE = `CREATE TABLE b (
  id int8 PRIMARY KEY, label text, n4 int4, flag bool, bytes bytea, tags text[], doc jsonb, amount numeric
)`;

describeBackends("bulkInsert", (backend) => {
  let db: SqlClient;
  beforeAll(async () => {
    db = await backend.open();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("writes every column type, nulls, bigints beyond 2^53, empty strings and awkward text", async () => {
    await db.exec(TABLE);
    const big = 2n ** 63n - 1n;
    const rows: unknown[][] = [
      [1n, "plain", 7, true, new Uint8Array([1, 2, 3]), ["a", "b"], {k: "v", n: [1, 2]}, "1.5"],
      [big, "", -2147483648, false, new Uint8Array([]), [], [], "123456789012345678901234567890.123456789"],
      [2n ** 53n + 1n, null, null, null, null, null, null, null],
      [-5n, 'quote" back\\slash, {brace} NULL', 0, true, new Uint8Array([0, 255, 92, 34]), ["", 'x"y', "a,b", "{c}", "\\", null, "NULL"], "a string", 10n ** 30n],
      [4, "number id", 1, false, new Uint8Array([0]), ["é ünïcode"], {deep: {null: null}}, 42],
    ];
    const n = await db.transaction((tx) => bulkInsert(tx, "b", COLUMNS, rows));
    expect(n).toBe(5);
    const got = await db.query("SELECT * FROM b ORDER BY id");
    expect(got).toEqual([
      {id: -5n, label: 'quote" back\\slash, {brace} NULL', n4: 0, flag: true, bytes: new Uint8Array([0, 255, 92, 34]), tags: ["", 'x"y', "a,b", "{c}", "\\", null, "NULL"], doc: "a string", amount: "1000000000000000000000000000000"},
      {id: 1n, label: "plain", n4: 7, flag: true, bytes: new Uint8Array([1, 2, 3]), tags: ["a", "b"], doc: {k: "v", n: [1, 2]}, amount: "1.5"},
      {id: 4n, label: "number id", n4: 1, flag: false, bytes: new Uint8Array([0]), tags: ["é ünïcode"], doc: {deep: {null: null}}, amount: "42"},
      {id: 2n ** 53n + 1n, label: null, n4: null, flag: null, bytes: null, tags: null, doc: null, amount: null},
      {id: big, label: "", n4: -2147483648, flag: false, bytes: new Uint8Array([]), tags: [], doc: [], amount: "123456789012345678901234567890.123456789"},
    ]);
  });

  it("applies ON CONFLICT and counts only the rows written", async () => {
    await db.exec("CREATE TABLE oc (id int8 PRIMARY KEY, v text)");
    const cols: BulkColumn[] = [{name: "id", type: "int8"}, {name: "v", type: "text"}];
    await db.transaction((tx) => bulkInsert(tx, "oc", cols, [[1n, "a"], [2n, "b"]]));
    const skipped = await db.transaction((tx) => bulkInsert(tx, "oc", cols, [[2n, "x"], [3n, "c"]], {onConflict: "(id) DO NOTHING"}));
    expect(skipped).toBe(1);
    const updated = await db.transaction((tx) =>
      bulkInsert(tx, "oc", cols, [[1n, "z"]], {onConflict: "(id) DO UPDATE SET v = excluded.v"}),
    );
    expect(updated).toBe(1);
    expect(await db.query("SELECT id, v FROM oc ORDER BY id")).toEqual([
      {id: 1n, v: "z"},
      {id: 2n, v: "b"},
      {id: 3n, v: "c"},
    ]);
    // Without ON CONFLICT a duplicate fails the statement and the transaction.
    await expect(db.transaction((tx) => bulkInsert(tx, "oc", cols, [[3n, "dup"]]))).rejects.toThrow(/duplicate key/);
  });

  it("writes nothing for no rows and rejects bad names and ragged rows", async () => {
    await db.exec("CREATE TABLE e (id int8)");
    expect(await db.transaction((tx) => bulkInsert(tx, "e", [{name: "id", type: "int8"}], []))).toBe(0);
    await expect(db.transaction((tx) => bulkInsert(tx, "e; DROP TABLE e", [{name: "id", type: "int8"}], [[1n]]))).rejects.toThrow(/bad table name/);
    await expect(db.transaction((tx) => bulkInsert(tx, "e", [{name: "id", type: "int8"}], [[1n, 2n]]))).rejects.toThrow(/row 0 has 2 values/);
    expect(await db.query("SELECT count(*)::int4 AS n FROM e")).toEqual([{n: 0}]);
  });

  it("inserts 10k rows in one statement", async () => {
    await db.exec("CREATE TABLE many (id int8, h bytea, s text)");
    const rows = Array.from({length: 10_000}, (_, i) => [BigInt(i) * 1_000_000_007n, new Uint8Array([i & 255, i >> 8]), `s${i}`]);
    const n = await db.transaction((tx) =>
      bulkInsert(tx, "many", [{name: "id", type: "int8"}, {name: "h", type: "bytea"}, {name: "s", type: "text"}], rows),
    );
    expect(n).toBe(10_000);
    expect(await db.query("SELECT sum(id)::text AS s, count(DISTINCT h)::int4 AS h FROM many")).toEqual([
      {s: (1_000_000_007n * ((9_999n * 10_000n) / 2n)).toString(), h: 10_000},
    ]);
  });
});

it("textArrayLiteral quotes every element", () => {
  expect(textArrayLiteral(["a", "", null, 'b"c', "d\\e"])).toBe('{"a","",NULL,"b\\"c","d\\\\e"}');
});
