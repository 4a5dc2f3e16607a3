/**
 * The webhooks' management reads and writes (schema 17): a webhook of an owner (the SHA-256 of the API key that
 * made it), its watched addresses, the owner's shared secret. Every statement names the owner, so another key's
 * webhook is not found. The outbox and the delivery log are webhooks/outbox.ts's.
 */
import type {SqlTx} from "../store/sql.js";
import {Params} from "./sql.js";

export interface WebhookRow {
  id: string;
  owner: string;
  event_type: string;
  url: string;
  name: string;
  description: string;
  chain_id: string;
  network: string | null;
  status: string;
  metadata: Record<string, unknown>;
  include_internal_txs: boolean;
  include_logs: boolean;
  secret: string | null;
  created_at: bigint;
  deactivated_reason: string | null;
  /** The first block it gets: its chain's head + 1 when it was made. */
  from_block: bigint;
}

export interface NewWebhook {
  id: string;
  owner: string;
  eventType: string;
  url: string;
  name: string;
  description: string;
  chainId: string;
  network: string | null;
  metadata: Record<string, unknown>;
  includeInternalTxs: boolean;
  includeLogs: boolean;
  secret: string | null;
  createdAt: number;
  /** The watched addresses (address_activity's EVM ones, primary_network_address_activity's P/X ones), 20 bytes each. */
  addresses: Uint8Array[];
  /** A primary webhook's keys as given, and a validator webhook's nodeIds and subnetIds filters (webhook_keys). */
  keys?: WebhookKey[];
  /**
   * A primary-network or validator webhook's chain, whose position its from_block is: the P-chain's next block
   * height, or the X-chain's next transaction in the view's order (views/primary/webhookEvents.ts). Null: an EVM one.
   */
  primaryChain?: "P" | "X" | null;
}

/** The first block (or, on X, transaction) a new webhook gets: its chain's position after what is folded now. */
function fromBlockSql(chain: "P" | "X" | null | undefined): string {
  if (chain === "P") return "COALESCE((SELECT max(height) + 1 FROM blocks WHERE chain = 'P'), 0)";
  if (chain === "X") return "COALESCE((SELECT value::int8 + 1 FROM data_api_meta WHERE key = 'view.seq.X'), 0)";
  return "COALESCE((SELECT head_number + 1 FROM evm_chains WHERE chain_id = $7), 0)";
}

/**
 * Kinds of webhook_keys rows (schema 23): a primary webhook's `metadata.keys`, a validator webhook's
 * `metadata.nodeIds` and `metadata.subnetIds`. Rows, not metadata arrays: the fold matches them by index.
 */
export type KeyKind = "key" | "nodeId" | "subnetId";
export type WebhookKey = [KeyKind, string];

/**
 * A primary webhook is made or reactivated: every view position's count of such changes moves (schema 26), before
 * the webhook's row is written. A batch statement holding a position row is waited for, so the webhook's from_block
 * is read after it; a batch built before this and written after it is built again with the webhook
 * (views/primary/view.ts writeBuilt), with the batches in flight and read ahead. Rare, so every endpoint's, not its
 * chain's. The rows are locked in one order: two webhooks made at once wait for each other, never deadlock.
 */
export async function primaryWebhooksChanged(sql: SqlTx): Promise<void> {
  await sql.query(
    "UPDATE view_positions SET webhooks = webhooks + 1 WHERE endpoint IN (SELECT endpoint FROM view_positions ORDER BY endpoint FOR UPDATE)",
  );
}

export async function insertWebhook(sql: SqlTx, w: NewWebhook): Promise<void> {
  if (w.primaryChain === "P" || w.primaryChain === "X") await primaryWebhooksChanged(sql);
  // An EVM chain's fold locks its chain's row before it writes a block's messages (views/evm/write.ts lockChainRow):
  // a fold under way is waited for and its head is read after it, or it waits for this webhook and then sees it.
  // Read the head without the lock, and a fold that wrote its messages before the webhook existed could commit after
  // it, with the webhook's first block among its own.
  else await sql.query("SELECT 1 AS locked FROM evm_chains WHERE chain_id = $1 FOR UPDATE", [w.chainId]);
  await sql.query(
    `INSERT INTO webhooks (id, owner, event_type, url, name, description, chain_id, network, status, metadata, include_internal_txs, include_logs, secret, created_at, from_block)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active', $9::jsonb, $10, $11, $12, $13, ${fromBlockSql(w.primaryChain)})`,
    [
      w.id,
      w.owner,
      w.eventType,
      w.url,
      w.name,
      w.description,
      w.chainId,
      w.network,
      JSON.stringify(w.metadata),
      w.includeInternalTxs,
      w.includeLogs,
      w.secret,
      w.createdAt,
    ],
  );
  await addAddresses(sql, w.id, w.addresses);
  if (w.keys && w.keys.length > 0) {
    await sql.query(
      "INSERT INTO webhook_keys (webhook_id, kind, key) SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS u(k, v) ON CONFLICT DO NOTHING",
      [w.id, w.keys.map((k) => k[0]), w.keys.map((k) => k[1])],
    );
  }
}

/** A webhook's keys of one kind in text order, from after `after` (null: the first), at most `limit`. */
export async function listKeys(
  sql: SqlTx,
  id: string,
  kind: KeyKind,
  after: string | null,
  limit: number,
): Promise<string[]> {
  const rows =
    after === null
      ? await sql.query<{key: string}>(
          "SELECT key FROM webhook_keys WHERE webhook_id = $1 AND kind = $2 ORDER BY key LIMIT $3",
          [id, kind, limit],
        )
      : await sql.query<{key: string}>(
          "SELECT key FROM webhook_keys WHERE webhook_id = $1 AND kind = $2 AND key > $3 ORDER BY key LIMIT $4",
          [id, kind, after, limit],
        );
  return rows.map((r) => r.key);
}

export async function countKeys(sql: SqlTx, id: string, kind: KeyKind): Promise<number> {
  const rows = await sql.query<{n: bigint}>(
    "SELECT count(*)::int8 AS n FROM webhook_keys WHERE webhook_id = $1 AND kind = $2",
    [id, kind],
  );
  return Number(rows[0]?.n ?? 0n);
}

/**
 * Serialises, until its transaction ends, what adds webhooks to one owner's set, so a count read under it still
 * holds at the insert (two concurrent creations could otherwise both pass `--webhooks-max-per-key`).
 */
export async function lockOwner(tx: SqlTx, owner: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('avaext webhooks of ' || $1, 0))", [owner]);
}

/** How many of the owner's webhooks are active. */
export async function countActiveWebhooks(sql: SqlTx, owner: string): Promise<number> {
  const rows = await sql.query<{n: number}>(
    "SELECT count(*)::int4 AS n FROM webhooks WHERE owner = $1 AND status = 'active'",
    [owner],
  );
  return rows[0]!.n;
}

export async function getWebhook(sql: SqlTx, owner: string, id: string): Promise<WebhookRow | null> {
  const rows = await sql.query<WebhookRow>("SELECT * FROM webhooks WHERE id = $1 AND owner = $2", [id, owner]);
  return rows[0] ?? null;
}

/** An owner's webhooks, newest first, keyset-paged on (created_at, id). */
export async function listWebhooks(
  sql: SqlTx,
  o: {owner: string; status: string | undefined; pageSize: number; cursor: [bigint, string] | null},
): Promise<{items: WebhookRow[]; next: [bigint, string] | undefined}> {
  const p = new Params([o.owner, o.pageSize + 1]);
  let where = "owner = $1";
  if (o.status !== undefined) where += ` AND status = ${p.add(o.status)}`;
  if (o.cursor) where += ` AND (created_at, id) < (${p.add(o.cursor[0])}, ${p.add(o.cursor[1])})`;
  const rows = await sql.query<WebhookRow>(
    `SELECT * FROM webhooks WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $2`,
    p.values,
  );
  const items = rows.slice(0, o.pageSize);
  const last = items[items.length - 1];
  return {items, next: rows.length > o.pageSize && last ? [last.created_at, last.id] : undefined};
}

export interface WebhookChanges {
  name?: string;
  description?: string;
  url?: string;
  status?: string;
  includeInternalTxs?: boolean;
  includeLogs?: boolean;
  /** Set with a status change: why it is inactive (null when active again). */
  deactivatedReason?: string | null;
  /** The webhook's own secret (`secret` of a PATCH), over the owner's shared one. */
  secret?: string;
}

/** Applies the changes given; returns the row after them, or null when the owner has no such webhook. */
export async function updateWebhook(
  sql: SqlTx,
  owner: string,
  id: string,
  c: WebhookChanges,
): Promise<WebhookRow | null> {
  const sets: string[] = [];
  const p = new Params([id, owner]);
  const set = (col: string, v: unknown): void => {
    sets.push(`${col} = ${p.add(v)}`);
  };
  if (c.name !== undefined) set("name", c.name);
  if (c.description !== undefined) set("description", c.description);
  if (c.url !== undefined) set("url", c.url);
  if (c.status !== undefined) set("status", c.status);
  if (c.includeInternalTxs !== undefined) set("include_internal_txs", c.includeInternalTxs);
  if (c.includeLogs !== undefined) set("include_logs", c.includeLogs);
  if (c.deactivatedReason !== undefined) set("deactivated_reason", c.deactivatedReason);
  if (c.secret !== undefined) set("secret", c.secret);
  if (sets.length === 0) return getWebhook(sql, owner, id);
  const rows = await sql.query<WebhookRow>(
    `UPDATE webhooks SET ${sets.join(", ")} WHERE id = $1 AND owner = $2 RETURNING *`,
    p.values,
  );
  if (rows[0] && c.status !== undefined) await pauseMessages(sql, id, c.status !== "active");
  return rows[0] ?? null;
}

/**
 * An inactive webhook's pending messages wait as `paused`, out of the index delivery reads (so a long-failing
 * webhook's backlog costs the others nothing), and are pending again when it is active again.
 */
export async function pauseMessages(sql: SqlTx, id: string, pause: boolean): Promise<void> {
  await sql.query(`UPDATE webhook_outbox SET state = $2 WHERE webhook_id = $1 AND state = $3`, [
    id,
    pause ? "paused" : "pending",
    pause ? "pending" : "paused",
  ]);
}

export async function addAddresses(sql: SqlTx, id: string, addresses: Uint8Array[]): Promise<void> {
  if (addresses.length === 0) return;
  await sql.query(
    "INSERT INTO webhook_addresses (webhook_id, address) SELECT $1, a FROM unnest($2::bytea[]) AS a ON CONFLICT DO NOTHING",
    [id, addresses],
  );
}

export async function removeAddresses(sql: SqlTx, id: string, addresses: Uint8Array[]): Promise<void> {
  if (addresses.length === 0) return;
  await sql.query("DELETE FROM webhook_addresses WHERE webhook_id = $1 AND address = ANY($2::bytea[])", [
    id,
    addresses,
  ]);
}

export async function countAddresses(sql: SqlTx, id: string): Promise<number> {
  const rows = await sql.query<{n: bigint}>("SELECT count(*)::int8 AS n FROM webhook_addresses WHERE webhook_id = $1", [
    id,
  ]);
  return Number(rows[0]?.n ?? 0n);
}

/** A webhook's addresses in byte order, from after `after` (null: the first), at most `limit`. */
export async function listAddresses(
  sql: SqlTx,
  id: string,
  after: Uint8Array | null,
  limit: number,
): Promise<Uint8Array[]> {
  const rows = after
    ? await sql.query<{address: Uint8Array}>(
        "SELECT address FROM webhook_addresses WHERE webhook_id = $1 AND address > $2 ORDER BY address LIMIT $3",
        [id, after, limit],
      )
    : await sql.query<{address: Uint8Array}>(
        "SELECT address FROM webhook_addresses WHERE webhook_id = $1 ORDER BY address LIMIT $2",
        [id, limit],
      );
  return rows.map((r) => r.address);
}

export async function getSharedSecret(sql: SqlTx, owner: string): Promise<string | null> {
  const rows = await sql.query<{secret: string}>("SELECT secret FROM webhook_secrets WHERE owner = $1", [owner]);
  return rows[0]?.secret ?? null;
}

/** Makes the owner's first shared secret, unless one was made meanwhile (the caller reads back which is kept). */
export async function createSharedSecret(sql: SqlTx, owner: string, secret: string): Promise<void> {
  await sql.query("INSERT INTO webhook_secrets (owner, secret) VALUES ($1, $2) ON CONFLICT (owner) DO NOTHING", [
    owner,
    secret,
  ]);
}

/** Sets the owner's shared secret (a first one, or a rotation). */
export async function setSharedSecret(sql: SqlTx, owner: string, secret: string): Promise<void> {
  await sql.query(
    "INSERT INTO webhook_secrets (owner, secret) VALUES ($1, $2) ON CONFLICT (owner) DO UPDATE SET secret = excluded.secret",
    [owner, secret],
  );
}
