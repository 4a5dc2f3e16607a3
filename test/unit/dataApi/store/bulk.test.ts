import {afterAll, beforeAll, expect, it} from "vitest";
import {
  bulkInsert,
  insertSql,
  runTogether,
  textArrayLiteral,
  type BulkColumn,
} from "../../../../src/dataApi/store/bulk.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
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
      [
        -5n,
        'quote" back\\slash, {brace} NULL',
        0,
        true,
        new Uint8Array([0, 255, 92, 34]),
        ["", 'x"y', "a,b", "{c}", "\\", null, "NULL"],
        "a string",
        10n ** 30n,
      ],
      [4, "number id", 1, false, new Uint8Array([0]), ["é ünïcode"], {deep: {null: null}}, 42],
    ];
    const n = await db.transaction((tx) => bulkInsert(tx, "b", COLUMNS, rows));
    expect(n).toBe(5);
    const got = await db.query("SELECT * FROM b ORDER BY id");
    expect(got).toEqual([
      {
        id: -5n,
        label: 'quote" back\\slash, {brace} NULL',
        n4: 0,
        flag: true,
        bytes: new Uint8Array([0, 255, 92, 34]),
        tags: ["", 'x"y', "a,b", "{c}", "\\", null, "NULL"],
        doc: "a string",
        amount: "1000000000000000000000000000000",
      },
      {
        id: 1n,
        label: "plain",
        n4: 7,
        flag: true,
        bytes: new Uint8Array([1, 2, 3]),
        tags: ["a", "b"],
        doc: {k: "v", n: [1, 2]},
        amount: "1.5",
      },
      {
        id: 4n,
        label: "number id",
        n4: 1,
        flag: false,
        bytes: new Uint8Array([0]),
        tags: ["é ünïcode"],
        doc: {deep: {null: null}},
        amount: "42",
      },
      {id: 2n ** 53n + 1n, label: null, n4: null, flag: null, bytes: null, tags: null, doc: null, amount: null},
      {
        id: big,
        label: "",
        n4: -2147483648,
        flag: false,
        bytes: new Uint8Array([]),
        tags: [],
        doc: [],
        amount: "123456789012345678901234567890.123456789",
      },
    ]);
  });

  it("writes int8 cells given as numbers across the 32-bit halves, negatives and the safe range's ends", async () => {
    await db.exec("CREATE TABLE i8 (n int8, k int4)");
    const values = [
      0,
      1,
      -1,
      2 ** 31,
      -(2 ** 31) - 1,
      2 ** 32 - 1,
      2 ** 32,
      -(2 ** 32),
      -(2 ** 32) - 1,
      1_795_890_600_123,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
    ];
    // 2^53 is an integer but not a safe one: it travels as a BigInt, exactly.
    // The same as BigInts, and BigInts just past the safe range and at int8's ends (those travel as BigInts).
    const bigs = [
      ...values.map((v) => BigInt(v)),
      2n ** 53n,
      -(2n ** 53n),
      2n ** 53n + 1n,
      2n ** 63n - 1n,
      -(2n ** 63n),
    ];
    const rows = [...values, 2 ** 53, -(2 ** 60), ...bigs].map((v, k) => [v, k]);
    await db.transaction((tx) =>
      bulkInsert(
        tx,
        "i8",
        [
          {name: "n", type: "int8"},
          {name: "k", type: "int4"},
        ],
        rows,
      ),
    );
    const got = await db.query<{n: bigint}>("SELECT n FROM i8 ORDER BY k");
    expect(got.map((r) => r.n)).toEqual([...values.map((v) => BigInt(v)), 2n ** 53n, -(2n ** 60n), ...bigs]);
  });

  it("applies ON CONFLICT and counts only the rows written", async () => {
    await db.exec("CREATE TABLE oc (id int8 PRIMARY KEY, v text)");
    const cols: BulkColumn[] = [
      {name: "id", type: "int8"},
      {name: "v", type: "text"},
    ];
    await db.transaction((tx) =>
      bulkInsert(tx, "oc", cols, [
        [1n, "a"],
        [2n, "b"],
      ]),
    );
    const skipped = await db.transaction((tx) =>
      bulkInsert(
        tx,
        "oc",
        cols,
        [
          [2n, "x"],
          [3n, "c"],
        ],
        {onConflict: "(id) DO NOTHING"},
      ),
    );
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

  it("with absentKey, skips the keys the table holds and keeps the first of keys repeated in the rows", async () => {
    // A key without a unique index: ON CONFLICT sees nothing, plain INSERTs would write every repeat.
    await db.exec("CREATE TABLE ak (k text NOT NULL, n int8); CREATE INDEX ak_k ON ak USING hash (k)");
    const cols: BulkColumn[] = [
      {name: "k", type: "text"},
      {name: "n", type: "int8"},
    ];
    await db.transaction((tx) => bulkInsert(tx, "ak", cols, [["held", 1n]]));
    const written = await db.transaction((tx) =>
      bulkInsert(
        tx,
        "ak",
        cols,
        [
          ["held", 2n],
          ["new", 3n],
          ["new", 4n],
          ["other", 5n],
          ["new", 6n],
        ],
        {absentKey: "k"},
      ),
    );
    expect(written).toBe(2);
    expect(await db.query("SELECT k, n FROM ak ORDER BY n")).toEqual([
      {k: "held", n: 1n},
      {k: "new", n: 3n},
      {k: "other", n: 5n},
    ]);
    await expect(
      db.transaction((tx) => bulkInsert(tx, "ak", cols, [["x", 1n]], {absentKey: "missing"})),
    ).rejects.toThrow(/"missing" is not a column/);
  });

  it("writes nothing for no rows and rejects bad names and ragged rows", async () => {
    await db.exec("CREATE TABLE e (id int8)");
    expect(await db.transaction((tx) => bulkInsert(tx, "e", [{name: "id", type: "int8"}], []))).toBe(0);
    await expect(
      db.transaction((tx) => bulkInsert(tx, "e; DROP TABLE e", [{name: "id", type: "int8"}], [[1n]])),
    ).rejects.toThrow(/bad table name/);
    await expect(db.transaction((tx) => bulkInsert(tx, "e", [{name: "id", type: "int8"}], [[1n, 2n]]))).rejects.toThrow(
      /row 0 has 2 values/,
    );
    expect(await db.query("SELECT count(*)::int4 AS n FROM e")).toEqual([{n: 0}]);
  });

  it("names the column of a cell its type cannot hold, and writes nothing", async () => {
    await db.exec("CREATE TABLE bad (id int8, n4 int4, flag bool, bytes bytea, s text)");
    const cols: BulkColumn[] = [
      {name: "id", type: "int8"},
      {name: "n4", type: "int4"},
      {name: "flag", type: "bool"},
      {name: "bytes", type: "bytea"},
      {name: "s", type: "text"},
    ];
    const ok: unknown[] = [1n, 1, true, new Uint8Array([1]), "s"];
    const cases: Array<[number, unknown, RegExp]> = [
      [0, 1.5, /bad\.id: an int8 cell/],
      [0, "12abc", /bad\.id: an int8 cell/],
      [0, 2n ** 63n, /bad\.id: 9223372036854775808 is out of int8's range/],
      [1, "7", /bad\.n4: an int4 cell/],
      [1, 2 ** 31, /bad\.n4: 2147483648 is out of int4's range/],
      [2, "true", /bad\.flag: a bool cell/],
      [3, "0102", /bad\.bytes: a bytea cell/],
      [4, {}, /bad\.s: a text cell/],
    ];
    for (const [col, value, message] of cases) {
      const row = [...ok];
      row[col] = value;
      await expect(db.transaction((tx) => bulkInsert(tx, "bad", cols, [ok, row]))).rejects.toThrow(message);
    }
    expect(await db.query("SELECT count(*)::int4 AS n FROM bad")).toEqual([{n: 0}]);
  });

  it("keeps multi-byte text exact, in and outside a transaction", async () => {
    await db.exec("CREATE TABLE u (id int8, s text, doc jsonb, tags text[])");
    const cols: BulkColumn[] = [
      {name: "id", type: "int8"},
      {name: "s", type: "text"},
      {name: "doc", type: "jsonb"},
      {name: "tags", type: "text[]"},
    ];
    const text = "Ωmega ünïcode 🚀 \u0001 end";
    await db.transaction((tx) => bulkInsert(tx, "u", cols, [[1n, text, {name: text}, [text, "ascii"]]]));
    // Outside a transaction (a view's batch statement on PGlite goes this way: a prepared statement).
    const params: unknown[] = [];
    await runTogether(db, [insertSql("u", cols, [[2n, text, {name: text}, [text]]], {}, params)], params);
    expect(await db.query("SELECT id, s, doc, tags FROM u ORDER BY id")).toEqual([
      {id: 1n, s: text, doc: {name: text}, tags: [text, "ascii"]},
      {id: 2n, s: text, doc: {name: text}, tags: [text]},
    ]);
  });

  it("sends a Buffer parameter as its bytes, in and outside a transaction", async () => {
    const bytes = Buffer.from([0, 1, 92, 255]);
    expect(await db.query("SELECT $1::bytea AS b, $2::text AS t", [bytes, "x"])).toEqual([
      {b: new Uint8Array(bytes), t: "x"},
    ]);
    expect(await db.transaction((tx) => tx.query("SELECT $1::bytea AS b, $2::int8 AS n", [bytes, 5n]))).toEqual([
      {b: new Uint8Array(bytes), n: 5n},
    ]);
  });

  it("inserts 10k rows in one statement", async () => {
    await db.exec("CREATE TABLE many (id int8, h bytea, s text)");
    const rows = Array.from({length: 10_000}, (_, i) => [
      BigInt(i) * 1_000_000_007n,
      new Uint8Array([i & 255, i >> 8]),
      `s${i}`,
    ]);
    const n = await db.transaction((tx) =>
      bulkInsert(
        tx,
        "many",
        [
          {name: "id", type: "int8"},
          {name: "h", type: "bytea"},
          {name: "s", type: "text"},
        ],
        rows,
      ),
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
