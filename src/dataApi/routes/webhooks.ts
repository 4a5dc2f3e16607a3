/**
 * The webhooks' management (defs/webhooks.ts declares it): bodies checked field by field (400 naming the field),
 * a webhook owned by the SHA-256 of the API key that made it (401 without a listed key, 404 for another key's), URLs
 * through the SSRF guard (util/publicTarget.ts) unless `--webhooks-allow-private-urls`. The store's reads and
 * writes are queries/webhooks.ts; delivery is src/dataApi/webhooks/.
 */
import {createHash, randomBytes, randomUUID} from "node:crypto";
import type {NetworkInfo} from "../../chains/index.js";
import {checksumAddress} from "../../evm/hex.js";
import {TargetRefused, checkedAddresses} from "../../util/publicTarget.js";
import type {SqlClient, SqlTx} from "../store/sql.js";
import type {EvmChains} from "../evm/chains.js";
import * as w from "../queries/webhooks.js";
import * as outbox from "../queries/webhookOutbox.js";
import {DataApiError, badRequest, notFound} from "../server/errors.js";
import {hrpOf, parseAddress, parseEvmAddress} from "../server/names.js";
import {parseBlockNumber} from "../server/params.js";
import {implement, type BoundRoute, type RouteCtx} from "../server/route.js";
import {WEBHOOK_ROUTES} from "./defs/webhooks.js";

export interface WebhookRoutesOptions {
  /** Most addresses one address_activity webhook watches (`--webhooks-max-addresses`). */
  maxAddresses: number;
  /** Most active webhooks one API key has (`--webhooks-max-per-key`). */
  maxPerKey: number;
  /** `--webhooks-allow-private-urls`: URLs may reach loopback, private and link-local addresses. */
  allowPrivateUrls: boolean;
}

export interface WebhookRoutesModules {
  sql: SqlClient;
  chains: EvmChains;
  network: NetworkInfo;
  /** Unix ms (a webhook's createdAt). */
  now: () => number;
}

export const EVENT_TYPES = [
  "address_activity",
  "primary_network_address_activity",
  "validator_activity",
  "icm_activity",
] as const;
/** icm_activity (avaext's): the messenger's events, by the names its webhooks take (views/evm/webhookOutbox.ts). */
const ICM_SUB_EVENTS = [
  "message_sent",
  "message_delivered",
  "message_executed",
  "message_execution_failed",
  "receipt_received",
  "fee_added",
] as const;
const PN_SUB_EVENTS = ["balance_change", "balance_threshold", "reward_distribution"] as const;
const VALIDATOR_SUB_EVENTS = [
  "validator_stake",
  "delegator_stake",
  "reward_distribution",
  "l1_validator_balance_increased",
  "l1_validator_disabled",
  "l1_validator_removed",
  "l1_validator_balance_threshold",
] as const;
/** The balance kinds a balance_threshold filter may watch, per chain (the chain's own AVAX, not its atomic memory). */
const BALANCE_TYPES: Record<"P" | "X", readonly string[]> = {
  // `unlocked` and `locked` on P: the sums of its unlocked and of its locked kinds (webhooks/primaryPayload.ts).
  P: [
    "unlockedUnstaked",
    "unlockedStaked",
    "lockedPlatform",
    "lockedStakeable",
    "lockedStaked",
    "pendingStaked",
    "unlocked",
    "locked",
  ],
  X: ["unlocked", "locked"],
};
/** The event types whose keys are webhook_keys rows (schema 23). */
const PRIMARY_TYPES: readonly string[] = ["primary_network_address_activity", "validator_activity"];
const SIGNATURE_RE = /^0x[0-9a-fA-F]{64}$/;
const TEXT_MAX = 1024;

type R = typeof WEBHOOK_ROUTES;
type Json = Record<string, unknown>;

/** The owner of a request's webhooks: the SHA-256 of its API key, so the store holds no key. */
export function ownerOf(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex");
}

/** A new shared secret: 32 random bytes as 64 hex digits (signed with as their UTF-8 text: docs/api/webhooks.md). */
/** Addresses a webhook's answer carries inline (the rest: GET /v1/webhooks/{id}/addresses). */
export const INLINE_ADDRESSES = 100;

export function newSecret(): string {
  return randomBytes(32).toString("hex");
}

export function webhookRoutes(o: WebhookRoutesOptions, m: WebhookRoutesModules): BoundRoute[] {
  const owner = (ctx: {apiKey: string | undefined}): string => {
    if (ctx.apiKey === undefined)
      throw new DataApiError(401, "webhooks need an API key (x-glacier-api-key) listed in --data-api-keys-file");
    return ownerOf(ctx.apiKey);
  };

  const found = async (ctx: {apiKey: string | undefined; params: {id: string}}): Promise<w.WebhookRow> => {
    const row = await w.getWebhook(m.sql, owner(ctx), ctx.params.id);
    if (!row) throw notFound(`webhook ${ctx.params.id} not found`);
    return row;
  };

  /** Refuses one more active webhook for a key that has `--webhooks-max-per-key` (in the transaction that adds it). */
  const withinLimit = async (tx: SqlTx, who: string): Promise<void> => {
    const n = await w.countActiveWebhooks(tx, who);
    if (n >= o.maxPerKey)
      throw new DataApiError(
        403,
        `this API key has ${n} active webhooks, the most --webhooks-max-per-key allows: deactivate one (DELETE /v1/webhooks/{id}) first`,
      );
  };

  /**
   * The hosted API's webhook model; address_activity's metadata carries its first INLINE_ADDRESSES addresses (a
   * webhook may watch 50,000, and a page of ten such would be 22 MB): GET /v1/webhooks/{id}/addresses pages them all.
   * A primary webhook's keys likewise (webhook_keys, in text order; paged by the same endpoint), and a validator
   * webhook's nodeIds and subnetIds filters, given, show their first INLINE_ADDRESSES.
   */
  const answer = async (r: w.WebhookRow) => {
    const metadata: Json = {...r.metadata};
    if (r.event_type === "address_activity") {
      metadata.addresses = (await w.listAddresses(m.sql, r.id, null, INLINE_ADDRESSES)).map((a) =>
        checksumAddress("0x" + Buffer.from(a).toString("hex")),
      );
    } else if (PRIMARY_TYPES.includes(r.event_type)) {
      metadata.keys = await w.listKeys(m.sql, r.id, "key", null, INLINE_ADDRESSES);
      if (Array.isArray(metadata.nodeIds))
        metadata.nodeIds = await w.listKeys(m.sql, r.id, "nodeId", null, INLINE_ADDRESSES);
      if (Array.isArray(metadata.subnetIds))
        metadata.subnetIds = await w.listKeys(m.sql, r.id, "subnetId", null, INLINE_ADDRESSES);
    }
    return {
      id: r.id,
      url: r.url,
      chainId: r.chain_id,
      status: r.status as "active" | "inactive",
      createdAt: Math.floor(Number(r.created_at) / 1000),
      name: r.name,
      description: r.description,
      eventType: r.event_type as (typeof EVENT_TYPES)[number],
      metadata,
      ...(r.event_type === "address_activity"
        ? {includeInternalTxs: r.include_internal_txs, includeLogs: r.include_logs}
        : {}),
      ...(r.deactivated_reason ? {deactivationReason: r.deactivated_reason} : {}),
    };
  };

  const checkUrl = async (v: unknown): Promise<string> => {
    const s = text("url", v, 2048);
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw badRequest("url", `not a URL: ${JSON.stringify(s)}`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw badRequest("url", `must be http or https, not ${u.protocol}`);
    if (u.username || u.password) throw badRequest("url", "must not carry credentials");
    try {
      await checkedAddresses(u.hostname, o.allowPrivateUrls);
    } catch (e) {
      // A host that does not resolve now may later: delivery checks it again at every attempt.
      if (!(e instanceof TargetRefused) || e.reason !== "unresolved") {
        throw badRequest("url", `${(e as Error).message} (allowed only with --webhooks-allow-private-urls)`);
      }
    }
    return u.toString();
  };

  const addresses = (field: string, v: unknown): Uint8Array[] => {
    if (!Array.isArray(v)) throw badRequest(field, "must be an array of 0x addresses");
    if (v.length === 0) throw badRequest(field, "must not be empty");
    if (v.length > o.maxAddresses)
      throw badRequest(field, `at most ${o.maxAddresses} addresses (--webhooks-max-addresses)`);
    const seen = new Map<string, Uint8Array>();
    v.forEach((a, i) => {
      if (typeof a !== "string") throw badRequest(`${field}[${i}]`, "must be a 0x address");
      const b = parseEvmAddress(`${field}[${i}]`, a);
      seen.set(Buffer.from(b).toString("hex"), b);
    });
    return [...seen.values()];
  };

  const secretField = (v: unknown): string | null => {
    if (v === undefined) return null;
    const s = text("secret", v, 256);
    if (s.length < 16) throw badRequest("secret", "at least 16 characters");
    return s;
  };

  /** `network` of a primary-network or validator webhook: the served network (fuji also as testnet). */
  const network = (v: unknown): string => {
    const s = text("network", v, 16);
    const n = s === "testnet" ? "fuji" : s;
    if (!["mainnet", "fuji", "local"].includes(n))
      throw badRequest("network", `one of mainnet, fuji, testnet, local, not ${JSON.stringify(s)}`);
    if (n !== m.network.name)
      throw badRequest("network", `${s} is not served here (this node follows ${m.network.name})`);
    return n;
  };

  const create = async (ctx: RouteCtx<R["createWebhook"]>) => {
    const who = owner(ctx);
    const b = body(ctx.body);
    const eventType = b.eventType;
    if (typeof eventType !== "string" || !(EVENT_TYPES as readonly string[]).includes(eventType)) {
      throw badRequest("eventType", `one of ${EVENT_TYPES.join(", ")}`);
    }
    const common = ["eventType", "url", "name", "description", "metadata", "secret"];
    const url = await checkUrl(b.url);
    const name = b.name === undefined ? "" : text("name", b.name, TEXT_MAX);
    const description = b.description === undefined ? "" : text("description", b.description, TEXT_MAX);
    const meta = object("metadata", b.metadata);
    const secret = secretField(b.secret);
    const row: w.NewWebhook = {
      id: randomUUID(),
      owner: who,
      eventType,
      url,
      name,
      description,
      chainId: "",
      network: null,
      metadata: {},
      includeInternalTxs: false,
      includeLogs: false,
      secret,
      createdAt: m.now(),
      addresses: [],
    };
    if (eventType === "address_activity") {
      known(b, [...common, "chainId", "includeInternalTxs", "includeLogs"], "");
      known(meta, ["addresses", "eventSignatures"], "metadata.");
      const chainId = text("chainId", b.chainId, 64);
      let chain;
      try {
        chain = m.chains.resolve(chainId);
      } catch (e) {
        throw badRequest("chainId", (e as Error).message);
      }
      row.chainId = chain.chainId;
      row.addresses = addresses("metadata.addresses", meta.addresses);
      if (meta.eventSignatures !== undefined) row.metadata.eventSignatures = signatures(meta.eventSignatures);
      row.includeInternalTxs = bool("includeInternalTxs", b.includeInternalTxs);
      row.includeLogs = bool("includeLogs", b.includeLogs);
    } else if (eventType === "icm_activity") {
      known(b, [...common, "chainId"], "");
      known(meta, ["subEvents", "addresses"], "metadata.");
      const chainId = text("chainId", b.chainId, 64);
      try {
        row.chainId = m.chains.resolve(chainId).chainId;
      } catch (e) {
        throw badRequest("chainId", (e as Error).message);
      }
      row.metadata = {
        subEvents: {
          icmActivitySubEvents: subEvents("metadata.subEvents", meta.subEvents, "icmActivitySubEvents", ICM_SUB_EVENTS),
        },
      };
      // The message's sender or recipient (lowercase: the fold compares them as text).
      if (meta.addresses !== undefined)
        row.metadata.addresses = addresses("metadata.addresses", meta.addresses).map(
          (a) => "0x" + Buffer.from(a).toString("hex"),
        );
    } else if (eventType === "primary_network_address_activity") {
      known(b, [...common, "network", "chainId"], "");
      known(meta, ["keyType", "keys", "subEvents", "balanceThresholdFilter", "eventSignatures"], "metadata.");
      row.network = network(b.network);
      row.chainId = primaryChain(text("chainId", b.chainId, 64), m.network);
      const chain = row.chainId === m.network.chainIds.P ? "P" : "X";
      row.primaryChain = chain;
      if (meta.keyType !== "addresses") throw badRequest("metadata.keyType", "must be addresses");
      const keys = strings("metadata.keys", meta.keys, o.maxAddresses);
      // Matched by the fold as 20-byte addresses (webhook_addresses); shown as given.
      const hrp = hrpOf(m.network);
      const seen = new Map<string, Uint8Array>();
      keys.forEach((k, i) => {
        const a = parseAddress(`metadata.keys[${i}]`, k, hrp);
        seen.set(Buffer.from(a).toString("hex"), a);
      });
      row.addresses = [...seen.values()];
      row.keys = keys.map((k) => ["key", k]);
      const subs = subEvents("metadata.subEvents", meta.subEvents, "addressActivitySubEvents", PN_SUB_EVENTS);
      // The keys are rows (webhook_keys), not metadata: the fold and delivery read metadata with every event.
      row.metadata = {keyType: "addresses", subEvents: {addressActivitySubEvents: subs}};
      if (subs.includes("balance_threshold") || meta.balanceThresholdFilter !== undefined) {
        const f = object("metadata.balanceThresholdFilter", meta.balanceThresholdFilter);
        known(f, ["balanceType", "balanceThreshold"], "metadata.balanceThresholdFilter.");
        const balanceType = text("metadata.balanceThresholdFilter.balanceType", f.balanceType, 32);
        // The kinds of the chain's own AVAX balance (models/primary/balances.ts); atomic memory is not ordered
        // with the chain's transactions, so it has no crossing to report.
        const types = BALANCE_TYPES[chain];
        if (!types.includes(balanceType))
          throw badRequest(
            "metadata.balanceThresholdFilter.balanceType",
            `on the ${chain}-chain one of ${types.join(", ")}`,
          );
        const threshold = text("metadata.balanceThresholdFilter.balanceThreshold", f.balanceThreshold, 40);
        if (!/^[0-9]+$/.test(threshold))
          throw badRequest("metadata.balanceThresholdFilter.balanceThreshold", "an integer amount, nAVAX");
        row.metadata.balanceThresholdFilter = {balanceType, balanceThreshold: threshold};
      }
    } else {
      known(b, [...common, "network"], "");
      known(
        meta,
        ["keyType", "keys", "subEvents", "nodeIds", "subnetIds", "l1ValidatorFeeBalanceThreshold", "eventSignatures"],
        "metadata.",
      );
      row.network = network(b.network);
      row.chainId = m.network.chainIds.P;
      row.primaryChain = "P";
      if (meta.keyType !== "nodeId" && meta.keyType !== "subnetId")
        throw badRequest("metadata.keyType", "must be nodeId or subnetId");
      const keys = strings("metadata.keys", meta.keys, o.maxAddresses);
      const subs = subEvents("metadata.subEvents", meta.subEvents, "validatorActivitySubEvents", VALIDATOR_SUB_EVENTS);
      // The keys and filters are rows (webhook_keys); metadata holds an empty list where a filter was given.
      row.metadata = {keyType: meta.keyType, subEvents: {validatorActivitySubEvents: subs}};
      row.keys = keys.map((k) => ["key", k]);
      if (meta.nodeIds !== undefined) {
        row.metadata.nodeIds = [];
        row.keys.push(
          ...strings("metadata.nodeIds", meta.nodeIds, o.maxAddresses, true).map((k): w.WebhookKey => ["nodeId", k]),
        );
      }
      if (meta.subnetIds !== undefined) {
        row.metadata.subnetIds = [];
        row.keys.push(
          ...strings("metadata.subnetIds", meta.subnetIds, o.maxAddresses, true).map(
            (k): w.WebhookKey => ["subnetId", k],
          ),
        );
      }
      if (meta.l1ValidatorFeeBalanceThreshold !== undefined) {
        const t = text("metadata.l1ValidatorFeeBalanceThreshold", meta.l1ValidatorFeeBalanceThreshold, 40);
        if (!/^[0-9]+$/.test(t))
          throw badRequest("metadata.l1ValidatorFeeBalanceThreshold", "an integer amount, nAVAX");
        row.metadata.l1ValidatorFeeBalanceThreshold = t;
      } else if (subs.includes("l1_validator_balance_threshold")) {
        throw badRequest(
          "metadata.l1ValidatorFeeBalanceThreshold",
          "required with the l1_validator_balance_threshold sub-event (nAVAX)",
        );
      }
    }
    await m.sql.transaction(async (tx) => {
      await w.lockOwner(tx, who);
      await withinLimit(tx, who);
      await w.insertWebhook(tx, row);
    });
    const stored = await w.getWebhook(m.sql, who, row.id);
    return answer(stored!);
  };

  const update = async (ctx: RouteCtx<R["updateWebhook"]>) => {
    const who = owner(ctx);
    const b = body(ctx.body);
    known(b, ["name", "description", "url", "status", "includeInternalTxs", "includeLogs", "secret"], "");
    const row = await found(ctx);
    const c: w.WebhookChanges = {};
    if (b.name !== undefined) c.name = text("name", b.name, TEXT_MAX);
    if (b.description !== undefined) c.description = text("description", b.description, TEXT_MAX);
    if (b.url !== undefined) c.url = await checkUrl(b.url);
    if (b.status !== undefined) {
      if (b.status !== "active" && b.status !== "inactive") throw badRequest("status", "active or inactive");
      c.status = b.status;
      c.deactivatedReason = b.status === "active" ? null : "deactivated by its owner";
    }
    if (b.includeInternalTxs !== undefined || b.includeLogs !== undefined) {
      if (row.event_type !== "address_activity")
        throw badRequest(
          b.includeLogs !== undefined ? "includeLogs" : "includeInternalTxs",
          "only an address_activity webhook has it",
        );
      if (b.includeInternalTxs !== undefined) c.includeInternalTxs = bool("includeInternalTxs", b.includeInternalTxs);
      if (b.includeLogs !== undefined) c.includeLogs = bool("includeLogs", b.includeLogs);
    }
    const secret = secretField(b.secret);
    if (secret !== null) c.secret = secret;
    let after: w.WebhookRow | null;
    if (c.status === "active" && row.status !== "active") {
      after = await m.sql.transaction(async (tx) => {
        await w.lockOwner(tx, who);
        await withinLimit(tx, who);
        // A primary webhook active again: a batch the view is building is built again with it.
        if (PRIMARY_TYPES.includes(row.event_type)) await w.primaryWebhooksChanged(tx);
        return w.updateWebhook(tx, who, row.id, c);
      });
    } else after = await w.updateWebhook(m.sql, who, row.id, c);
    return answer(after!);
  };

  const deactivate = async (ctx: RouteCtx<R["deactivateWebhook"]>) => {
    const row = await found(ctx);
    const after = await w.updateWebhook(m.sql, row.owner, row.id, {
      status: "inactive",
      deactivatedReason: "deactivated by its owner",
    });
    return answer(after!);
  };

  const changeAddresses = async (ctx: RouteCtx<R["addAddressesToWebhook"]>, add: boolean) => {
    const b = body(ctx.body);
    known(b, ["addresses"], "");
    const row = await found(ctx);
    if (row.event_type !== "address_activity")
      throw badRequest(
        "id",
        `webhook ${row.id} is ${row.event_type}: only an address_activity webhook watches addresses`,
      );
    const list = addresses("addresses", b.addresses);
    await m.sql.transaction(async (tx) => {
      if (add) {
        await w.addAddresses(tx, row.id, list);
        const n = await w.countAddresses(tx, row.id);
        if (n > o.maxAddresses)
          throw badRequest(
            "addresses",
            `the webhook would watch ${n} addresses, more than ${o.maxAddresses} (--webhooks-max-addresses)`,
          );
      } else await w.removeAddresses(tx, row.id, list);
    });
    return answer(row);
  };

  const sharedSecret = async (who: string, rotate: boolean): Promise<{secret: string}> => {
    if (rotate) {
      const secret = newSecret();
      await w.setSharedSecret(m.sql, who, secret);
      return {secret};
    }
    const had = await w.getSharedSecret(m.sql, who);
    if (had !== null) return {secret: had};
    await w.createSharedSecret(m.sql, who, newSecret());
    return {secret: (await w.getSharedSecret(m.sql, who))!};
  };

  const message = (r: outbox.MessageRow) => ({
    messageId: r.message_id,
    blockNumber: r.block_number.toString(),
    ...(r.tx_hash
      ? {txHash: "0x" + Buffer.from(r.tx_hash).toString("hex")}
      : r.primary_tx_id
        ? {txHash: r.primary_tx_id}
        : {}),
    ...(r.reverses ? {reverses: r.reverses} : {}),
    state: r.state as "pending" | "paused" | "delivered" | "failed" | "dropped" | "skipped",
    attempts: r.attempts,
    createdAt: Number(r.created_at),
    ...(r.delivered_at !== null ? {deliveredAt: Number(r.delivered_at)} : {}),
    ...(r.state === "pending" ? {nextAttemptAt: Number(r.next_attempt_at)} : {}),
  });

  const replay = async (ctx: RouteCtx<R["replayWebhook"]>) => {
    const b = body(ctx.body);
    known(b, ["fromBlock", "fromMessageId"], "");
    const row = await found(ctx);
    if ((b.fromBlock === undefined) === (b.fromMessageId === undefined))
      throw badRequest("fromBlock", "give fromBlock or fromMessageId, one of them");
    if (b.fromBlock !== undefined) {
      const v = typeof b.fromBlock === "number" ? String(b.fromBlock) : b.fromBlock;
      if (typeof v !== "string") throw badRequest("fromBlock", "must be a block number (an integer >= 0)");
      return {replayed: await outbox.replay(m.sql, row.id, {block: parseBlockNumber("fromBlock", v)}, m.now())};
    }
    const id = text("fromMessageId", b.fromMessageId, 64);
    const from = await outbox.getMessage(m.sql, row.id, id);
    if (!from) throw badRequest("fromMessageId", `webhook ${row.id} has no message ${id}`);
    return {replayed: await outbox.replay(m.sql, row.id, {createdAt: from.created_at}, m.now())};
  };

  return implement(WEBHOOK_ROUTES, {
    listWebhookMessages: async (ctx) => {
      const row = await found(ctx);
      const c = ctx.page.cursor;
      if (
        c !== null &&
        (c.length !== 2 || typeof c[0] !== "string" || typeof c[1] !== "string" || !/^[0-9]+$/.test(c[0]))
      )
        throw badRequest("pageToken", "not a token of this list");
      const page = await outbox.listMessages(
        m.sql,
        row.id,
        ctx.query.state,
        ctx.page.size,
        c ? [BigInt(c[0] as string), c[1] as string] : null,
      );
      return {
        nextPageToken: ctx.page.next(page.next ? [page.next[0].toString(), page.next[1]] : undefined),
        messages: page.items.map(message),
      };
    },
    getWebhookMessage: async (ctx) => {
      const row = await found(ctx);
      const msg = await outbox.getMessage(m.sql, row.id, ctx.params.messageId);
      if (!msg) throw notFound(`webhook ${row.id} has no message ${ctx.params.messageId}`);
      const attempts = await outbox.attemptsOf(m.sql, msg.message_id);
      return {
        ...message(msg),
        attemptLog: attempts.map((a) => ({
          attempt: a.attempt,
          at: Number(a.at),
          statusCode: a.status_code,
          latencyMs: a.latency_ms,
          ...(a.error ? {error: a.error} : {}),
        })),
        ...(msg.body !== null ? {body: msg.body} : {}),
      };
    },
    replayWebhook: replay,
    createWebhook: create,
    listWebhooks: async (ctx) => {
      const who = owner(ctx);
      const c = ctx.page.cursor;
      if (c !== null && (c.length !== 2 || typeof c[0] !== "string" || typeof c[1] !== "string"))
        throw badRequest("pageToken", "not a token of this list");
      const page = await w.listWebhooks(m.sql, {
        owner: who,
        status: ctx.query.status,
        pageSize: ctx.page.size,
        cursor: c ? [BigInt(c[0] as string), c[1] as string] : null,
      });
      return {
        nextPageToken: ctx.page.next(page.next ? [page.next[0].toString(), page.next[1]] : undefined),
        webhooks: await Promise.all(page.items.map(answer)),
      };
    },
    getWebhook: async (ctx) => answer(await found(ctx)),
    updateWebhook: update,
    deactivateWebhook: deactivate,
    generateOrRotateSharedSecret: async (ctx) => sharedSecret(owner(ctx), true),
    getSharedSecret: async (ctx) => sharedSecret(owner(ctx), false),
    addAddressesToWebhook: (ctx) => changeAddresses(ctx, true),
    removeAddressesFromWebhook: (ctx) => changeAddresses(ctx, false),
    getAddressesFromWebhook: async (ctx) => {
      const row = await found(ctx);
      const c = ctx.page.cursor;
      if (PRIMARY_TYPES.includes(row.event_type)) {
        // A primary webhook's keys (P/X addresses, node IDs or subnet IDs as given), in text order.
        if (c !== null && (c.length !== 1 || typeof c[0] !== "string"))
          throw badRequest("pageToken", "not a token of this list");
        const size = ctx.page.size;
        const got = await w.listKeys(m.sql, row.id, "key", c ? (c[0] as string) : null, size + 1);
        const items = got.slice(0, size);
        const last = items[items.length - 1];
        return {
          nextPageToken: ctx.page.next(got.length > size && last !== undefined ? [last] : undefined),
          addresses: items,
          totalAddresses: await w.countKeys(m.sql, row.id, "key"),
        };
      }
      if (c !== null && (c.length !== 1 || typeof c[0] !== "string" || !/^[0-9a-f]{40}$/.test(c[0])))
        throw badRequest("pageToken", "not a token of this list");
      const after = c ? Uint8Array.from(Buffer.from(c[0] as string, "hex")) : null;
      const size = ctx.page.size;
      const got = await w.listAddresses(m.sql, row.id, after, size + 1);
      const items = got.slice(0, size);
      const last = items[items.length - 1];
      return {
        nextPageToken: ctx.page.next(got.length > size && last ? [Buffer.from(last).toString("hex")] : undefined),
        addresses: items.map((a) => checksumAddress("0x" + Buffer.from(a).toString("hex"))),
        totalAddresses: await w.countAddresses(m.sql, row.id),
      };
    },
  });
}

function body(v: unknown): Json {
  if (v === undefined || v === null || typeof v !== "object" || Array.isArray(v))
    throw badRequest("body", "must be a JSON object");
  return v as Json;
}

function object(field: string, v: unknown): Json {
  if (v === undefined || v === null || typeof v !== "object" || Array.isArray(v))
    throw badRequest(field, "must be an object");
  return v as Json;
}

/** No field but these (a misspelt one would otherwise be ignored without a word). */
function known(o: Json, fields: string[], prefix: string): void {
  for (const k of Object.keys(o))
    if (!fields.includes(k)) throw badRequest(prefix + k, `unknown field (known: ${fields.join(", ")})`);
}

function text(field: string, v: unknown, max: number): string {
  if (typeof v !== "string") throw badRequest(field, "must be a string");
  if (v.length > max) throw badRequest(field, `at most ${max} characters`);
  return v;
}

function bool(field: string, v: unknown): boolean {
  if (v === undefined) return false;
  if (typeof v !== "boolean") throw badRequest(field, "must be true or false");
  return v;
}

function strings(field: string, v: unknown, max: number, allowEmpty = false): string[] {
  if (!Array.isArray(v)) throw badRequest(field, "must be an array of strings");
  if (v.length === 0 && !allowEmpty) throw badRequest(field, "must not be empty");
  if (v.length > max) throw badRequest(field, `at most ${max} entries`);
  return v.map((s, i) => text(`${field}[${i}]`, s, 128));
}

function signatures(v: unknown): string[] {
  if (!Array.isArray(v)) throw badRequest("metadata.eventSignatures", "must be an array of 0x topic hashes");
  return v.map((s, i) => {
    if (typeof s !== "string" || !SIGNATURE_RE.test(s))
      throw badRequest(`metadata.eventSignatures[${i}]`, "must be a 0x topic hash (64 hex digits)");
    return s.toLowerCase();
  });
}

function subEvents<T extends readonly string[]>(field: string, v: unknown, key: string, values: T): T[number][] {
  const o = object(field, v);
  const list = o[key];
  if (!Array.isArray(list) || list.length === 0)
    throw badRequest(`${field}.${key}`, `a non-empty array of ${values.join(", ")}`);
  return list.map((s, i) => {
    if (typeof s !== "string" || !values.includes(s))
      throw badRequest(`${field}.${key}[${i}]`, `one of ${values.join(", ")}`);
    return s as T[number];
  });
}

/** A primary-network webhook's chain: the P- or X-chain, by ID or alias; stored as its ID. */
function primaryChain(v: string, network: NetworkInfo): string {
  const alias: Record<string, string> = {"p-chain": network.chainIds.P, "x-chain": network.chainIds.X};
  const id = alias[v.toLowerCase()] ?? v;
  if (id !== network.chainIds.P && id !== network.chainIds.X)
    throw badRequest(
      "chainId",
      `the P- or X-chain of ${network.name} (an ID, p-chain or x-chain), not ${JSON.stringify(v)}`,
    );
  return id;
}
