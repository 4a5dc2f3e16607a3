/**
 * Both SQL backends for data-API tests: PGlite in memory and a fresh database on the run's PostgreSQL server
 * (started once by test/setup/postgres.ts). Every `open()` gives an isolated, empty database.
 */
import {randomBytes} from "node:crypto";
import {Writable} from "node:stream";
import pg from "pg";
import {describe, inject} from "vitest";
import {openSqlClient} from "../../src/dataApi/store/client.js";
import type {SqlClient} from "../../src/dataApi/store/sql.js";
import {LoggerRegistry, type Logger} from "../../src/logger/index.js";
import {pgliteTemplate, seedPgliteDir} from "./pglite.js";

export type BackendName = "pglite" | "postgres";

export interface Backend {
  name: BackendName;
  /** A new client on a new, empty database. The caller closes it. */
  open(): Promise<SqlClient>;
}

/** A logger that writes nothing. */
export function quietLogger(): Logger {
  const sink = new Writable({write: (_chunk, _enc, cb): void => cb()});
  return new LoggerRegistry({logDir: null, logLevel: "OFF", displayLevel: "OFF", displayStream: sink}).get("test");
}

/** The URL of a new, empty database on the test server. */
export async function createTestDatabase(): Promise<string> {
  const admin = inject("pgUrl");
  const name = `t_${randomBytes(8).toString("hex")}`;
  const c = new pg.Client({connectionString: admin});
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

// A new PGlite cluster costs an initdb (2-5 s idle, 20-40 s on a busy machine); the run's empty one is loaded from
// its dump instead (test/helpers/pglite.ts).
async function openPglite(): Promise<SqlClient> {
  return openSqlClient(
    {url: "embedded", dataDir: null, pgliteTemplate: await pgliteTemplate()},
    {logger: quietLogger()},
  );
}

export const BACKENDS: Backend[] = [
  {name: "pglite", open: openPglite},
  {
    name: "postgres",
    open: async () =>
      openSqlClient({url: await createTestDatabase(), dataDir: null, poolSize: 4}, {logger: quietLogger()}),
  },
];

/** `describe` once per backend: "title (pglite)", "title (postgres)". */
/** The two stores an e2e test runs a node against: `db` gives its `--data-api-db` (a fresh server database each call). */
export const STORE_BACKENDS = [
  {name: "pglite", db: async (): Promise<string> => "embedded"},
  {name: "postgres", db: createTestDatabase},
] as const;

export function describeBackends(title: string, fn: (backend: Backend) => void): void {
  describe.each(BACKENDS)(`${title} ($name)`, fn);
}

/** Opens a store (a URL, or `embedded` with its data directory), runs `fn` on it, and closes it. */
export async function withStore<T>(
  url: string,
  dataDir: string | null,
  fn: (sql: SqlClient) => Promise<T>,
): Promise<T> {
  if (url === "embedded" && dataDir !== null) await seedPgliteDir(dataDir);
  const sql = await openSqlClient({url, dataDir}, {logger: quietLogger()});
  try {
    return await fn(sql);
  } finally {
    await sql.close();
  }
}
