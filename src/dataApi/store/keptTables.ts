/**
 * The tables `avaext data-api rebuild` keeps (src/dataApi/rebuild.ts): the webhooks, their addresses, secrets,
 * outbox and delivery log are users' data, not derived from the chain. They are copied aside before the store is made
 * again, and copied back by the columns both versions have.
 */
import {MIGRATIONS_TABLE} from "./migrations.js";
import {MIGRATIONS} from "./schema.js";
import type {SqlTx} from "./sql.js";

/** Kept across a rebuild: not derived from the chain (docs/operations/backups.md). Parents first. */
export const KEPT_TABLES: readonly string[] = [
  "webhooks",
  "webhook_addresses",
  "webhook_keys",
  "webhook_secrets",
  "webhook_outbox",
  "webhook_attempts",
];
const keptCopy = (t: string): string => `rebuild_kept_${t}`;

/** The tables the migrations create, to drop before folding again (the kept ones too: they are copied back). */
export function dataApiTables(): string[] {
  const names = MIGRATIONS.flatMap((m) => [...m.sql.matchAll(/CREATE TABLE (\w+)/g)].map((x) => x[1]!));
  return [...names, MIGRATIONS_TABLE];
}

/** Whether the store has the table (one made by a migration after the store's own may not be there yet). */
export async function tableExists(tx: SqlTx, name: string): Promise<boolean> {
  const [r] = await tx.query<{t: string | null}>("SELECT to_regclass($1)::text AS t", [name]);
  return Boolean(r?.t);
}

/** Copies the kept tables aside (plain copies: no index or constraint whose name the migrations would reuse). */
export async function setAside(tx: SqlTx): Promise<string[]> {
  const out: string[] = [];
  const exists = (name: string): Promise<boolean> => tableExists(tx, name);
  for (const t of KEPT_TABLES) {
    // A copy left by a rebuild that died before copying back is the data: kept as it is, copied back this time.
    if (await exists(keptCopy(t))) out.push(t);
    else if (await exists(t)) {
      await tx.query(`CREATE TABLE ${keptCopy(t)} AS SELECT * FROM ${t}`);
      out.push(t);
    }
  }
  return out;
}

/** Copies the kept tables back into the store made again, by the columns both have, and drops the copies. */
export async function restore(tx: SqlTx, tables: readonly string[]): Promise<void> {
  for (const t of tables) {
    const cols = await tx.query<{c: string}>(
      `SELECT a.column_name AS c FROM information_schema.columns a
       JOIN information_schema.columns b ON b.column_name = a.column_name AND b.table_name = $2 AND b.table_schema = a.table_schema
       WHERE a.table_name = $1 AND a.table_schema = current_schema() ORDER BY a.ordinal_position`,
      [t, keptCopy(t)],
    );
    const list = cols.map((r) => `"${r.c}"`).join(", ");
    if (list) await tx.query(`INSERT INTO ${t} (${list}) SELECT ${list} FROM ${keptCopy(t)} ON CONFLICT DO NOTHING`);
    await tx.query(`DROP TABLE ${keptCopy(t)}`);
  }
}

/**
 * Each webhook's first event moves up to what the store had folded (EVM: the chain's head; P: its next height; X:
 * its next transaction in the view's order), so the refold sends it nothing it could have sent already. The kept
 * messages' IDs stopped a repeat too, but only while they are kept: past --webhooks-retention they are deleted, and
 * a refold would send those events again.
 */
export async function webhooksFromHere(tx: SqlTx): Promise<void> {
  const [r] = await tx.query<{t: string | null}>("SELECT to_regclass('webhooks')::text AS t");
  if (!r?.t) return;
  await tx.query(`UPDATE webhooks h SET from_block = greatest(h.from_block, CASE
      WHEN h.event_type IN ('address_activity', 'icm_activity') THEN COALESCE((SELECT c.head_number + 1 FROM evm_chains c WHERE c.chain_id = h.chain_id), 0)
      WHEN h.chain_id = (SELECT value::jsonb ->> 'X' FROM data_api_meta WHERE key = 'network') THEN COALESCE((SELECT value::int8 + 1 FROM data_api_meta WHERE key = 'view.seq.X'), 0)
      ELSE COALESCE((SELECT max(height) + 1 FROM blocks WHERE chain = 'P'), 0) END)`);
}

/** Drops every table the migrations made (the kept ones too: setAside has copied them). */
export async function dropDataApiTables(tx: SqlTx): Promise<void> {
  for (const t of dataApiTables()) await tx.query(`DROP TABLE IF EXISTS ${t} CASCADE`);
}
