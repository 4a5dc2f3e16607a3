/**
 * Opens the data API's SQL client (sql.ts) that a URL names: PGlite (pglite.ts), on a thread of its own
 * (pgliteThread.ts) unless told otherwise and seeded from the build's empty cluster (pgliteTemplate.ts), or a pool
 * on a PostgreSQL server (pg.ts).
 */
import {PgliteThreadClient} from "./pgliteThread.js";
import {PGLITE_SHARED_BUFFERS_MB} from "./defaults.js";
import {seedNewStore} from "./pgliteTemplate.js";
import {PgliteSqlClient} from "./pglite.js";
import {PgSqlClient} from "./pg.js";
import type {SqlClient, SqlClientModules} from "./sql.js";

export interface SqlClientOptions {
  /** "embedded" for PGlite, else a PostgreSQL connection string (`postgres://user:pass@host:port/db`). */
  url: "embedded" | string;
  /** PGlite's data directory; null = in memory. Unused with a server. */
  dataDir: string | null;
  /** Connections in the pg pool (default 10). Unused with PGlite. */
  poolSize?: number;
  /**
   * PGlite only: start a new cluster from this dump (PgliteSqlClient.dumpDataDir) instead of an initdb; much faster.
   * Absent: the build's empty cluster (pgliteTemplate.ts) for a new store on disk; null: an initdb.
   */
  pgliteTemplate?: Blob | null;
  /**
   * PGlite only: run it on a thread of its own (pgliteThread.ts; default true). False, or without the compiled
   * worker script, it runs on the calling thread.
   */
  pgliteThread?: boolean;
  /** PGlite only: its `shared_buffers` (its page cache), MiB; default PostgreSQL's 128 (see PGLITE_SHARED_BUFFERS_MB). */
  pgliteSharedBuffersMb?: number;
  /**
   * A server only: the longest a statement runs before the server cancels it (query_canceled, 57014); 0 or absent =
   * no limit. For the API's reads (dataApi/service.ts opens them a pool of their own), never for the fold's writes.
   * PGlite cannot interrupt a statement (its statement_timeout never fires: one thread, no timer signal).
   */
  statementTimeoutMs?: number;
}

/** Opens the client `opts.url` names: PGlite for "embedded", else a pg pool. */
export async function openSqlClient(opts: SqlClientOptions, modules: SqlClientModules): Promise<SqlClient> {
  if (opts.url !== "embedded")
    return PgSqlClient.open(opts.url, opts.poolSize ?? 10, modules, opts.statementTimeoutMs ?? 0);
  const script = opts.pgliteThread === false ? null : PgliteThreadClient.script();
  // A new store on disk starts from the build's empty cluster (pgliteTemplate.ts), not an initdb here: its files are
  // written into the directory unless the caller brings a template of its own.
  if (opts.pgliteTemplate === undefined) await seedNewStore(opts.dataDir);
  const template = opts.pgliteTemplate ?? undefined;
  const sharedBuffersMb = opts.pgliteSharedBuffersMb ?? PGLITE_SHARED_BUFFERS_MB.default;
  const client = script
    ? await PgliteThreadClient.open(script, {
        dataDir: opts.dataDir,
        template: template ? new Uint8Array(await template.arrayBuffer()) : null,
        sharedBuffersMb,
      })
    : await PgliteSqlClient.open(opts.dataDir, template, sharedBuffersMb);
  if (client instanceof PgliteThreadClient) client.onLost = modules.onLost ?? null;
  modules.logger.debug({dataDir: opts.dataDir, thread: script !== null}, "PGlite opened");
  return client;
}
