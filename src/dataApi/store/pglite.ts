/**
 * The PGlite driver: PostgreSQL in WebAssembly on the calling thread (pgliteWorker.ts runs it on a thread of its
 * own). Rows come back as the store's contract gives them (sql.ts).
 */
import {PGlite, parse as pgliteParse, protocol, types as pgliteTypes} from "@electric-sql/pglite";
import {OID_INT8, OID_INT8_ARRAY, PREPARED_TEXTS, stalePreparedStatement} from "./driverCommon.js";
import type {SqlClient, SqlTx} from "./sql.js";

/** A result column: its name and the parser of its type (PGlite's, as its query() applies them), null for text. */
interface Column {
  name: string;
  oid: number;
  parse: ((text: string, oid: number) => unknown) | null;
}

/** A statement parsed once: its name, its parameters' type OIDs and its result columns (undefined: no rows). */
interface ParsedStatement {
  name: string;
  types: number[];
  columns: Column[] | undefined;
}

const MSG_DATA_ROW = 0x44; // 'D'
const MSG_ERROR = 0x45; // 'E'

/**
 * The rows of one statement's backend messages, read in place from the bytes PGlite's backend wrote. PGlite's own
 * reader (execProtocol) copies each field into an ArrayBuffer of its own before decoding it and builds a message
 * object for every row: a third of a transaction page's CPU on PGlite, measured. An error message is parsed by
 * PGlite's protocol parser and thrown, the DatabaseError its query() throws.
 */
function readPgliteRows<T>(raw: Buffer, columns: Column[] | undefined): T[] {
  const rows: T[] = [];
  let at = 0;
  while (at + 5 <= raw.length) {
    const type = raw[at]!;
    const end = at + 1 + raw.readInt32BE(at + 1);
    if (type === MSG_DATA_ROW && columns !== undefined) {
      const n = raw.readInt16BE(at + 5);
      let p = at + 7;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const len = raw.readInt32BE(p);
        p += 4;
        const c = columns[i]!;
        if (len < 0) {
          row[c.name] = null;
          continue;
        }
        const text = raw.toString("utf8", p, p + len);
        p += len;
        row[c.name] = c.parse === null ? text : c.parse(text, c.oid);
      }
      rows.push(row as T);
    } else if (type === MSG_ERROR) {
      let error: unknown = new Error("PGlite: unreadable error message");
      new protocol.Parser().parse(raw.subarray(at, end), (m) => {
        if (m.name === "error") error = m;
      });
      throw error;
    }
    at = end;
  }
  return rows;
}

export class PgliteSqlClient implements SqlClient {
  readonly kind = "pglite" as const;
  readonly offThread = false;

  private constructor(
    private readonly db: PGlite,
    /** The data directory, or null in memory: the writer lock keeps its lock file there. */
    readonly dataDir: string | null,
  ) {}

  static async open(
    dataDir: string | null,
    template: Blob | undefined,
    sharedBuffersMb: number,
  ): Promise<PgliteSqlClient> {
    const db = await PGlite.create(dataDir ?? undefined, {
      ...(template ? {loadDataDir: template} : {}),
      // Given at every start (not written into the cluster's postgresql.conf), so a restart with another value takes it.
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffersMb}MB`],
      // PGlite's own default already gives bigint for int8; pinned here so the contract does not hang on a default.
      parsers: {[OID_INT8]: (x: string): bigint => BigInt(x), [OID_INT8_ARRAY]: parseInt8Array},
    });
    return new PgliteSqlClient(db, dataDir);
  }

  /**
   * Statement texts prepared under a name (see `prepared`), with their parameters' type OIDs and the description of
   * their rows (undefined for a statement without rows).
   */
  private readonly statements = new Map<string, ParsedStatement>();
  private prepares = 0;

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    if (params === undefined || (this.statements.size >= PREPARED_TEXTS && !this.statements.has(sql))) {
      return (await this.db.query<T>(sql, params)).rows;
    }
    // The protocol calls are serialised neither with PGlite's statements nor with its transactions: hold its query
    // lock, as its own query() does, and wait for a transaction in progress (a read run between two of its
    // statements would run inside it).
    return this.exclusive(() => this.db.runExclusive(() => this.prepared<T>(sql, params)));
  }

  /**
   * The plan mode of this session's statements. The prepared reads run on generic plans: PostgreSQL would otherwise
   * plan a read afresh at every call whose custom plan it estimates cheaper (a transaction page's UTXO join: about
   * 2.5 ms of planning in WebAssembly against 1 ms of running), and the reads are keyset walks whose plan does not
   * hang on the values. Statements in a transaction (the views' batches) keep PostgreSQL's choice, planned for their
   * real arrays; a parameterised statement outside one goes through the prepared path and runs generic too.
   */
  private planMode: "auto" | "generic" = "auto";

  private async plans(mode: "auto" | "generic", inExclusive: boolean): Promise<void> {
    if (this.planMode === mode) return;
    const text = mode === "generic" ? "SET plan_cache_mode = force_generic_plan" : "RESET plan_cache_mode";
    // Under PGlite's query lock (a prepared read) its exec() would wait for that lock: the protocol call does not.
    if (inExclusive) await this.db.execProtocol(protocol.serialize.query(text));
    else await this.db.exec(text);
    this.planMode = mode;
  }

  /** Transactions and prepared reads, one at a time. */
  private tail: Promise<unknown> = Promise.resolve();

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * A parameterised read as a named prepared statement: PGlite's query() parses, describes and plans the text at
   * every call, and planning in WebAssembly costs more than running a list's index lookups (4.5 ms against 0.4 ms
   * for a transaction page's UTXO join, measured). The statement is parsed once; PostgreSQL keeps its plan.
   */
  private async prepared<T>(text: string, params: unknown[], retried = false): Promise<T[]> {
    await this.plans("generic", true);
    try {
      let st = this.statements.get(text);
      if (st === undefined) {
        st = await this.parse(text, `avaext_${++this.prepares}`);
        this.statements.set(text, st);
      }
      return await this.run<T>(st, params);
    } catch (e) {
      // Prepared before its tables changed: prepare it afresh, once.
      if (retried || !stalePreparedStatement(e)) throw e;
      this.statements.delete(text);
      return this.prepared<T>(text, params, true);
    }
  }

  /**
   * Binds `params` to a statement parsed already (by its types: a Buffer is sent as it is, in binary), runs it and
   * returns its rows. Bind, execute and sync go in one call: PGlite runs every message it is given before it
   * returns, and each call costs a round of its own. After an error PostgreSQL
   * skips to the sync, so the session is ready for the next statement either way. The backend's output is taken raw
   * (see readPgliteRows).
   */
  private async run<T>(st: ParsedStatement, params: unknown[]): Promise<T[]> {
    const {serialize} = protocol;
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      if (Buffer.isBuffer(v)) return v;
      const serializer = this.db.serializers[st.types[i]!];
      return serializer ? serializer(v) : String(v);
    });
    const chunks: Buffer[] = [];
    await this.db.execProtocolRawStream(
      Buffer.concat([serialize.bind({statement: st.name, values}), serialize.execute({}), serialize.sync()]),
      {
        // A view of the WebAssembly memory, reused by the next write: copied.
        onRawData: (chunk) => void chunks.push(Buffer.from(chunk)),
        // The store's file systems (a directory through Node's, or memory) write through: PGlite's sync of them does
        // nothing but take its lock and wait a turn, at every statement.
        syncToFs: false,
      },
    );
    return readPgliteRows<T>(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), st.columns);
  }

  /**
   * A statement with a binary parameter (a Buffer) in a transaction: PGlite's own query() would serialise the
   * Buffer by its parameter's type (an array's serialiser given bytes). Parsed unnamed and described, then run.
   */
  private async runBinary<T>(text: string, params: unknown[]): Promise<T[]> {
    return this.run<T>(await this.parse(text, ""), params);
  }

  /** Parses `text` as the statement `name` ("" unnamed): its parameters' type OIDs and its result columns. */
  private async parse(text: string, name: string): Promise<ParsedStatement> {
    const {serialize} = protocol;
    const described = [];
    try {
      await this.db.execProtocol(serialize.parse({name, text}));
      described.push(...(await this.db.execProtocol(serialize.describe({type: "S", name}))).messages);
    } finally {
      await this.db.execProtocol(serialize.sync());
    }
    const rows = described.find((m) => m.name === "rowDescription") as
      | {fields: {name: string; dataTypeID: number}[]}
      | undefined;
    const parsers = this.db.parsers as Record<number, Column["parse"] | undefined>;
    const defaults = pgliteTypes.parsers as Record<number, Column["parse"] | undefined>;
    return {
      name,
      types: pgliteParse.parseDescribeStatementResults(described),
      columns: rows?.fields.map((f) => ({
        name: f.name,
        oid: f.dataTypeID,
        parse: parsers[f.dataTypeID] ?? defaults[f.dataTypeID] ?? null,
      })),
    };
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    // PGlite queues every statement and holds other callers off while a transaction runs. The plan mode is set
    // before it: a SET inside would be undone by a rollback.
    return this.exclusive(async () => {
      await this.plans("auto", false);
      return this.db.transaction(async (tx) => {
        const wrapped: SqlTx = {
          query: async <R>(sql: string, params?: unknown[]): Promise<R[]> =>
            params?.some((v) => Buffer.isBuffer(v))
              ? this.runBinary<R>(sql, params)
              : (await tx.query<R>(sql, params)).rows,
          exec: async (sql: string): Promise<void> => {
            await tx.exec(sql);
          },
        };
        return fn(wrapped);
      });
    });
  }

  /** The whole cluster as an uncompressed tarball, for `pgliteTemplate`. */
  async dumpDataDir(): Promise<Blob> {
    return this.db.dumpDataDir("none");
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}

function parseInt8Array(x: string): unknown {
  return pgliteTypes.arrayParser(x, (v: string) => BigInt(v), OID_INT8_ARRAY);
}
