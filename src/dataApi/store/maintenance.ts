/**
 * What a PostgreSQL server's background processes do that PGlite, PostgreSQL in single-user mode, does not: the
 * writer does it on a timer.
 * - Table statistics for the query planner: autovacuum never runs, so a store the views fill would be planned with
 *   default estimates for good. Each check analyses the tables whose rows changed since their last analysis past
 *   autovacuum's own threshold (50 rows + 10 % of the rows that analysis found).
 * - Vacuum, by autovacuum's rules too (1,000 rows inserted + 20 %, or 50 dead + 20 %, since the last): without it no
 *   page is ever marked all-visible, so an index-only scan fetches every row from the heap (a filtered list's scan
 *   bound, queries/sql.ts, read 10,000 heap pages of ICM records instead of 10,000 index entries), and the rows
 *   updates and deletes leave behind are never reused. A vacuum reads only the pages changed since the last one.
 * - Checkpoints: there is no checkpointer, and the write-ahead log is recycled only at a checkpoint, so `pg_wal`
 *   grew until the process closed (4.7 GB while folding 1,000,000 transactions). A check runs CHECKPOINT once
 *   `checkpointBytes` of WAL have been written since the last one; the next checkpoint then removes the segments
 *   past `max_wal_size`.
 */
import type {Logger} from "../../logger/index.js";
import type {SqlClient} from "./sql.js";

export interface StoreMaintenanceOptions {
  intervalMs: number;
  /** WAL written since the last checkpoint that makes a check run one. */
  checkpointBytes: number;
}

export const defaultStoreMaintenanceOptions: StoreMaintenanceOptions = {
  intervalMs: 60_000,
  checkpointBytes: 256 * 2 ** 20,
};

export interface StoreMaintenanceModules {
  sql: SqlClient;
  logger: Logger;
}

/** autovacuum_analyze_threshold and autovacuum_analyze_scale_factor, PostgreSQL's defaults. */
const THRESHOLD_ROWS = 50;
const THRESHOLD_SHARE = 0.1;
/** autovacuum_vacuum_insert_threshold / _scale_factor, autovacuum_vacuum_threshold / _scale_factor: the defaults. */
const VACUUM_INSERTED = 1000;
const VACUUM_DEAD = 50;
const VACUUM_SHARE = 0.2;
/** The first check after the start, ms. */
const FIRST_CHECK_MS = 10_000;

export class StoreMaintenance {
  private timer: NodeJS.Timeout | null = null;
  private first: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly opts: StoreMaintenanceOptions,
    private readonly modules: StoreMaintenanceModules,
  ) {}

  /** Checks every interval, the first time soon after the start (a store filled by an earlier run, or a rebuild). */
  start(): void {
    if (this.timer !== null) return;
    const check = (): void => {
      this.running = this.runOnce().catch((err: unknown) =>
        this.modules.logger.warn({err}, "data API store: maintenance failed; retried at the next check"),
      );
    };
    this.first = setTimeout(check, Math.min(FIRST_CHECK_MS, this.opts.intervalMs));
    this.first.unref();
    this.timer = setInterval(check, this.opts.intervalMs);
    this.timer.unref();
  }

  /** One check: vacuums and analyses the tables past their thresholds and checkpoints past `checkpointBytes`. */
  async runOnce(): Promise<{analysed: string[]; vacuumed: string[]; checkpoint: boolean}> {
    // One after the other, the checkpoint last (it covers what the analysis wrote), each even if the other failed.
    let failure: unknown = null;
    const vacuumed = await this.vacuum().catch((e: unknown): string[] => {
      failure = e;
      return [];
    });
    const analysed = await this.analyse().catch((e: unknown): string[] => {
      failure ??= e;
      return [];
    });
    const checkpoint = await this.checkpoint().catch((e: unknown): boolean => {
      failure ??= e;
      return false;
    });
    if (failure !== null) throw failure;
    return {analysed, vacuumed, checkpoint};
  }

  private async vacuum(): Promise<string[]> {
    const {sql, logger} = this.modules;
    await sql.query("SELECT pg_stat_force_next_flush()");
    const due = await sql.query<{relname: string}>(
      `SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
       WHERE s.n_ins_since_vacuum > ${VACUUM_INSERTED} + ${VACUUM_SHARE} * greatest(c.reltuples, 0)
          OR s.n_dead_tup > ${VACUUM_DEAD} + ${VACUUM_SHARE} * greatest(c.reltuples, 0)
       ORDER BY s.relname`,
    );
    const started = performance.now();
    // One table a statement (VACUUM runs outside a transaction block), each analysed as well: ANALYZE's turn then
    // finds it done.
    for (const {relname} of due) await sql.query(`VACUUM (ANALYZE) ${quoteIdent(relname)}`);
    if (due.length > 0)
      logger.debug(
        {tables: due.map((r) => r.relname), ms: Math.round(performance.now() - started)},
        "data API store vacuumed",
      );
    return due.map((r) => r.relname);
  }

  private async analyse(): Promise<string[]> {
    const {sql, logger} = this.modules;
    // The backend reports its row counts when idle, at most once a second: reported now, the check sees them all.
    await sql.query("SELECT pg_stat_force_next_flush()");
    // Autovacuum's rule: rows changed since the last analysis against the table's size as that analysis found it.
    const due = await sql.query<{relname: string}>(
      `SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
       WHERE s.n_mod_since_analyze > ${THRESHOLD_ROWS} + ${THRESHOLD_SHARE} * greatest(c.reltuples, 0) ORDER BY s.relname`,
    );
    const started = performance.now();
    for (const {relname} of due) await sql.query(`ANALYZE ${quoteIdent(relname)}`);
    if (due.length > 0)
      logger.debug(
        {tables: due.map((r) => r.relname), ms: Math.round(performance.now() - started)},
        "data API store analysed",
      );
    return due.map((r) => r.relname);
  }

  private async checkpoint(): Promise<boolean> {
    const {sql, logger} = this.modules;
    const [row] = await sql.query<{since: string}>(
      "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS since FROM pg_control_checkpoint()",
    );
    const since = Number(row!.since);
    if (since < this.opts.checkpointBytes) return false;
    const started = performance.now();
    await sql.query("CHECKPOINT");
    logger.debug({walBytes: since, ms: Math.round(performance.now() - started)}, "data API store checkpointed");
    return true;
  }

  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    if (this.first !== null) clearTimeout(this.first);
    this.timer = null;
    this.first = null;
    await this.running.catch(() => {});
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
