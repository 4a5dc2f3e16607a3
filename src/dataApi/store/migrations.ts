/**
 * Versioned schema migrations. Each migration runs in its own transaction together with the row that records it in
 * `data_api_migrations`, so a crash leaves the database at the last whole version.
 */
import type {Logger} from "../../logger/index.js";
import type {SqlClient} from "./sql.js";

export interface Migration {
  /** 1, 2, 3, ...: strictly ascending in the list. */
  version: number;
  name: string;
  /** One or more statements. */
  sql: string;
}

export interface MigrateModules {
  logger: Logger;
}

/** The table that records the applied versions. */
export const MIGRATIONS_TABLE = "data_api_migrations";

/** Thrown for a database written by a newer avaext than this one. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly dbVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `data API database schema version ${dbVersion} is newer than this avaext supports (${codeVersion}): ` +
        "run a newer avaext or point it at another database",
    );
    this.name = "SchemaTooNewError";
  }
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
  version int4 PRIMARY KEY,
  name text NOT NULL,
  applied_at int8 NOT NULL
)`;

/** The highest applied version; 0 for a database without the migrations table or with no row. */
export async function schemaVersion(client: SqlClient): Promise<number> {
  const [t] = await client.query<{present: boolean}>("SELECT to_regclass($1) IS NOT NULL AS present", [
    MIGRATIONS_TABLE,
  ]);
  if (!t?.present) return 0;
  const [row] = await client.query<{v: number | null}>(`SELECT max(version) AS v FROM ${MIGRATIONS_TABLE}`);
  return row?.v ?? 0;
}

/**
 * Brings the database to the last version of `migrations`, applying the missing ones in order.
 * Refuses (SchemaTooNewError, before any change) a database whose version is newer than the list's last.
 * Run it while holding the writer lock: two concurrent runs would race on the same version.
 */
export async function migrate(
  client: SqlClient,
  migrations: readonly Migration[],
  modules: MigrateModules,
): Promise<{from: number; to: number}> {
  checkList(migrations);
  const codeVersion = migrations.length > 0 ? migrations[migrations.length - 1].version : 0;
  const from = await schemaVersion(client);
  if (from > codeVersion) throw new SchemaTooNewError(from, codeVersion);
  if (from === codeVersion) return {from, to: from};

  await client.exec(CREATE_TABLE);
  for (const m of migrations) {
    if (m.version <= from) continue;
    await client.transaction(async (tx) => {
      await tx.exec(m.sql);
      await tx.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, applied_at) VALUES ($1, $2, $3)`, [
        m.version,
        m.name,
        Math.floor(Date.now() / 1000),
      ]);
    });
    modules.logger.info({version: m.version, migration: m.name}, "data API migration applied");
  }
  return {from, to: codeVersion};
}

function checkList(migrations: readonly Migration[]): void {
  let prev = 0;
  for (const m of migrations) {
    if (!Number.isSafeInteger(m.version) || m.version <= prev) {
      throw new Error(`migration versions must be positive and strictly ascending: ${m.version} after ${prev}`);
    }
    prev = m.version;
  }
}
