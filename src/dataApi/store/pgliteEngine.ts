/**
 * PGlite itself, behind the store's client: the database, its type parsers and its named prepared statements. It
 * runs on a worker thread of its own (pgliteWorker.ts), so PostgreSQL's work in WebAssembly does not hold the
 * thread that serves HTTP and builds the view's rows; in this thread only when the worker cannot start.
 */
import {PGlite, parse as pgliteParse, protocol, types as pgliteTypes} from "@electric-sql/pglite";

const OID_INT8 = 20;
const OID_INT8_ARRAY = 1016;

/** Distinct statement texts given a name: later ones run unnamed, so texts built from data cannot fill the cache. */
export const PREPARED_TEXTS = 1000;

/** What a failed statement carries across threads: PostgreSQL's fields (code, detail, ...) with the message. */
export interface EngineErrorFields {
  name: string;
  message: string;
  [field: string]: unknown;
}

export class PgliteEngine {
  private constructor(private readonly db: PGlite) {}

  static async open(dataDir: string | null, template?: Blob): Promise<PgliteEngine> {
    const db = await PGlite.create(dataDir ?? undefined, {
      ...(template ? {loadDataDir: template} : {}),
      parsers: {[OID_INT8]: (x: string): bigint => BigInt(x), [OID_INT8_ARRAY]: parseInt8Array},
    });
    return new PgliteEngine(db);
  }

  /** Statement texts prepared under a name (see `prepared`), with their parameters' type OIDs. */
  private readonly statements = new Map<string, {name: string; types: number[]}>();
  private prepares = 0;
  private inTransaction = false;

  /**
   * One statement. Parameterised ones outside a transaction run as named prepared statements: PGlite's query()
   * parses, describes and plans the text at every call, and planning in WebAssembly costs more than running a
   * list's index lookups (4.5 ms against 0.4 ms for a transaction page's UTXO join, measured). Inside a transaction
   * they run unnamed: a stale prepared statement could not be retried there (the transaction is aborted).
   */
  async query(sql: string, params?: unknown[]): Promise<unknown[]> {
    if (params === undefined || this.inTransaction || (this.statements.size >= PREPARED_TEXTS && !this.statements.has(sql))) {
      return (await this.db.query(sql, params)).rows;
    }
    return this.prepared(sql, params);
  }

  /** A script of one or more statements without parameters; BEGIN, COMMIT and ROLLBACK are tracked. */
  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
    const verb = sql.trim().toUpperCase();
    if (verb === "BEGIN") this.inTransaction = true;
    else if (verb === "COMMIT" || verb === "ROLLBACK") this.inTransaction = false;
  }

  private async prepared(text: string, params: unknown[], retried = false): Promise<unknown[]> {
    const {serialize} = protocol;
    try {
      let st = this.statements.get(text);
      if (st === undefined) {
        const name = `avaext_${++this.prepares}`;
        const described = [];
        try {
          await this.db.execProtocol(serialize.parse({name, text}));
          described.push(...(await this.db.execProtocol(serialize.describe({type: "S", name}))).messages);
        } finally {
          await this.db.execProtocol(serialize.sync());
        }
        st = {name, types: pgliteParse.parseDescribeStatementResults(described)};
        this.statements.set(text, st);
      }
      const types = st.types;
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = this.db.serializers[types[i]!];
        return serializer ? serializer(v) : String(v);
      });
      const messages = [];
      try {
        messages.push(...(await this.db.execProtocol(serialize.bind({statement: st.name, values}))).messages);
        messages.push(...(await this.db.execProtocol(serialize.describe({type: "P"}))).messages);
        messages.push(...(await this.db.execProtocol(serialize.execute({}))).messages);
      } finally {
        messages.push(...(await this.db.execProtocol(serialize.sync())).messages);
      }
      return pgliteParse.parseResults(messages, this.db.parsers)[0]?.rows ?? [];
    } catch (e) {
      if (retried || !stalePreparedStatement(e)) throw e;
      this.statements.delete(text);
      return this.prepared(text, params, true);
    }
  }

  /** The whole cluster as an uncompressed tarball (a template for a new client). */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir("none");
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}

function parseInt8Array(x: string): unknown {
  return pgliteTypes.arrayParser(x, (v: string) => BigInt(v), OID_INT8_ARRAY);
}

/**
 * A named statement prepared before its tables changed (a rebuild, a newer writer's migration): "cached plan must
 * not change result type" (0A000), or the statement is gone (26000). Preparing it afresh succeeds.
 */
export function stalePreparedStatement(e: unknown): boolean {
  const code = (e as {code?: string}).code;
  return code === "0A000" || code === "26000";
}

/** An error's own fields, cloneable to another thread (structured clone keeps only an Error's message and name). */
export function errorFields(e: unknown): EngineErrorFields {
  if (!(e instanceof Error)) return {name: "Error", message: String(e)};
  const out: EngineErrorFields = {name: e.name, message: e.message};
  for (const [k, v] of Object.entries(e)) {
    if (v === null || ["string", "number", "boolean"].includes(typeof v)) out[k] = v;
  }
  return out;
}

/** The error `errorFields` describes, rebuilt. */
export function errorFromFields(f: EngineErrorFields): Error {
  const err = new Error(f.message);
  Object.assign(err, f);
  return err;
}
