/**
 * Webhook delivery, in the process that folds (the outbox is written by the EVM fold, views/evm/webhookOutbox.ts):
 * it polls the outbox for messages due, claims each attempt in the store before its POST (so a crash mid-POST is
 * retried, never lost: at-least-once, with the message's stable ID), signs and POSTs it (post.ts), and records the
 * attempt. A 2xx within the deadline delivers it; otherwise the next attempt follows the hosted API's schedule
 * (10 s, 1 m, 5 m, 10 m, 30 m, 2 h, 6 h, 12 h, 24 h after each failure, counted from the attempt's end); a message that fails its last attempt
 * fails, and its webhook is deactivated with the reason its GET shows. Time is the injected clock's (`now`), so a
 * test can let a day pass at once; polling runs on real timers.
 */
import type {Logger} from "../../logger/index.js";
import type {SqlClient} from "../store/sql.js";
import * as q from "../queries/webhookOutbox.js";
import {buildBodies, type NetworkToken} from "./payload.js";
import type {NetworkCtx} from "../queries/primary/common.js";
import {Agents, postSigned} from "./post.js";
import {randomBytes} from "node:crypto";
import {isRetryable} from "../../util/errors.js";
import {expandOutboxBlocks} from "../views/evm/webhookOutbox.js";

/** The hosted API's retry schedule: the wait after attempt n (1-based) fails, ms; 10 attempts in all, about 44.8 h. */
export const RETRY_DELAYS_MS: readonly number[] = [
  10_000, 60_000, 300_000, 600_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
];

export interface WebhookDeliveryOptions {
  /** Delivery's deadline for a 2xx, ms (the hosted API's 10 s). */
  timeoutMs: number;
  /** POSTs in flight at once. */
  concurrency: number;
  /** POSTs of one webhook in flight at once: a receiver that never answers holds this many slots, not all. */
  perWebhook: number;
  /** How often the outbox is read when nothing is due, real ms. */
  pollMs: number;
  /**
   * After an attempt ends, how long the outbox read it frees a slot for waits for others to end too, real ms: one
   * read then fills many slots. A read of the due messages costs the store about the same for 1 as for 40
   * (bench/webhooks.mjs), and the store's statements bound delivery's rate.
   */
  gatherMs: number;
  /** `--webhooks-allow-private-urls`. */
  allowPrivateUrls: boolean;
  retryDelaysMs: readonly number[];
  /** How long a finished message (and its delivery log) is kept, ms (`--webhooks-retention`); 0 = for good. */
  retentionMs: number;
  /** How often finished messages past the retention are deleted, real ms. */
  pruneEveryMs: number;
}

export const defaultWebhookDeliveryOptions: WebhookDeliveryOptions = {
  timeoutMs: 10_000,
  concurrency: 64,
  perWebhook: 8,
  pollMs: 100,
  gatherMs: 5,
  allowPrivateUrls: false,
  retryDelaysMs: RETRY_DELAYS_MS,
  retentionMs: 14 * 86_400_000,
  pruneEveryMs: 3_600_000,
};

/** Blocks' rows one expansion makes messages of, at most (and about EXPAND_MESSAGES messages), whatever the backlog. */
export const EXPAND_BLOCKS = 50;

/** Finished messages one prune statement deletes: a long backlog goes in steps, each a short write. */
const PRUNE_BATCH = 10_000;

export interface WebhookDeliveryModules {
  sql: SqlClient;
  logger: Logger;
  /** Unix ms: the schedule's clock (tests inject one they move). */
  now: () => number;
  /** The native token of a followed chain, for networkToken. */
  networkToken: (chainId: string) => NetworkToken;
  /** The interchain message an icm_activity event carries, as the ICM endpoints serve it (null: not in the store). */
  icmMessage?: (sql: SqlClient, messageId: string) => Promise<Record<string, unknown> | null>;
  /** The served network, for primary_network_address_activity and validator_activity bodies (webhooks/primaryPayload.ts). */
  primaryNetwork?: NetworkCtx;
  /** Told of each attempt (metrics, benches). */
  onAttempt?: (a: {
    messageId: string;
    webhookId: string;
    status: number;
    latencyMs: number;
    createdAt: number;
    ok: boolean;
  }) => void;
}

export class WebhookDelivery {
  /** Messages in flight, by ID: their webhook's. */
  private readonly inFlight = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private wake: (() => void) | null = null;
  private backingOff = false;
  private readonly agents = new Agents();
  private pruneTimer: NodeJS.Timeout | null = null;
  private pruning: Promise<unknown> = Promise.resolve();
  private gather: NodeJS.Timeout | null = null;
  /** The last expansion of the outbox's blocks' rows: when (performance.now()), and how many rows it took. */
  private expandedAt = -Infinity;
  private expanded = 0;

  constructor(
    readonly opts: WebhookDeliveryOptions,
    private readonly modules: WebhookDeliveryModules,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = this.loop();
    if (this.opts.retentionMs > 0) {
      const prune = (): void => {
        this.pruning = this.prune().catch((err: unknown) =>
          this.modules.logger.warn(
            {err},
            "webhook messages past their retention not deleted; tried again at the next prune",
          ),
        );
      };
      prune();
      this.pruneTimer = setInterval(prune, this.opts.pruneEveryMs);
      this.pruneTimer.unref();
    }
  }

  /**
   * Deletes the finished messages made longer than the retention ago (by the schedule's clock), with their delivery
   * logs, a batch a statement; returns how many went. Replay reaches back as far as the messages kept.
   */
  async prune(): Promise<number> {
    const before = this.modules.now() - this.opts.retentionMs;
    let total = 0;
    for (;;) {
      if (this.closed) return total;
      const n = await q.pruneFinished(this.modules.sql, before, PRUNE_BATCH);
      total += n;
      if (n < PRUNE_BATCH) return total;
    }
  }

  /** Reads the outbox now rather than at the next poll (after a fold, or when a test moved the clock). */
  poke(): void {
    // A backoff is waited out (a fold's or an attempt's poke would end it), but for close.
    if (this.backingOff && !this.closed) return;
    this.wake?.();
  }

  /** A poke after `gatherMs`, one for all the attempts that end meanwhile. */
  private pokeSoon(): void {
    if (this.closed || this.opts.gatherMs <= 0) return this.poke();
    this.gather ??= setTimeout(() => {
      this.gather = null;
      this.poke();
    }, this.opts.gatherMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.gather) clearTimeout(this.gather);
    this.poke();
    if (this.timer) clearTimeout(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.running;
    await this.pruning;
  }

  private async loop(): Promise<void> {
    const tasks = new Set<Promise<void>>();
    // After a failed read or preparation, the wait doubles (to 5 s): a batch that always fails does not spin.
    let backoffMs = 0;
    while (!this.closed) {
      let found = 0;
      let room = 0;
      // The blocks the EVM fold wrote as one row each become their messages first: at each read while a backlog
      // lasts, else once a poll (the reads an attempt's end makes do not look for new blocks), with room or not. A
      // failure here is logged and retried at the next poll; the messages made already are still read and sent.
      if (this.expanded > 0 || performance.now() - this.expandedAt >= this.opts.pollMs) {
        this.expandedAt = performance.now();
        this.expanded = await expandOutboxBlocks(this.modules.sql, EXPAND_BLOCKS).then(
          (r) => r.blocks,
          (err: unknown) => {
            if (!this.closed) this.modules.logger.warn({err}, "webhook outbox blocks not made messages; retrying");
            return 0;
          },
        );
      }
      try {
        room = this.opts.concurrency - this.inFlight.size;
        if (room > 0) {
          const busy = new Map<string, number>();
          for (const w of this.inFlight.values()) busy.set(w, (busy.get(w) ?? 0) + 1);
          const due = await q.dueMessages(this.modules.sql, this.modules.now(), room, [...this.inFlight.keys()], {
            perWebhook: this.opts.perWebhook,
            busy,
          });
          found = due.length;
          for (const m of due) this.inFlight.set(m.message_id, m.webhook_id);
          let posts: Array<() => Promise<void>> = [];
          try {
            posts = await this.prepare(due);
          } finally {
            // Those not claimed (moved meanwhile, nothing to deliver, or the read failed) are free again.
            const claimed = new Set(posts.map((p) => (p as {id?: string}).id));
            for (const m of due) if (!claimed.has(m.message_id)) this.inFlight.delete(m.message_id);
          }
          for (const post of posts) {
            const id = (post as unknown as {id: string}).id;
            const p: Promise<void> = post()
              .catch((err: unknown) =>
                this.modules.logger.warn({err, messageId: id}, "webhook delivery attempt failed"),
              )
              .finally(() => {
                this.inFlight.delete(id);
                tasks.delete(p);
                this.pokeSoon();
              });
            tasks.add(p);
          }
        }
        backoffMs = 0;
      } catch (err) {
        if (this.closed) break;
        backoffMs = Math.min(5_000, Math.max(this.opts.pollMs, backoffMs * 2));
        this.modules.logger.warn({err, retryInMs: backoffMs}, "webhook outbox read failed; retrying");
      }
      if (this.closed) break;
      // A read that filled every slot it had: more may be due, so read again at once (room permitting). Else wait for
      // the poll, attempts ending (pokeSoon), or the backoff: a read that found fewer found all that could go now.
      if (backoffMs === 0 && found > 0 && found >= room && this.inFlight.size < this.opts.concurrency) continue;
      const waitMs = backoffMs || this.opts.pollMs;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.backingOff = backoffMs > 0;
        this.timer = setTimeout(resolve, waitMs);
      });
      this.wake = null;
    }
    await Promise.allSettled([...tasks]);
    await this.flush();
    this.agents.close();
  }

  /**
   * Bodies for the messages due, then one claim for all of them (each attempt's next time set before it is made);
   * returns a POST for each message claimed.
   */
  private async prepare(due: q.DueMessage[]): Promise<Array<(() => Promise<void>) & {id: string}>> {
    const {sql, now} = this.modules;
    if (due.length === 0) return [];
    const bodies = await this.bodies(due);
    const claims: q.Claim[] = [];
    const plans = new Map<string, {m: q.DueMessage; nth: number; last: boolean; body: string}>();
    const delays = this.opts.retryDelaysMs;
    for (const m of due) {
      // A message that could not be built has failed already (bodies()).
      if (!bodies.has(m.message_id)) continue;
      const body = bodies.get(m.message_id) ?? null;
      if (body === null) {
        // Its transaction is gone (a reversal of a message whose original is), or its event signatures match none
        // of its logs: nothing to deliver.
        await q.setState(sql, m.message_id, m.reverses !== null ? "dropped" : "skipped");
        continue;
      }
      // The schedule's place: attempts since the last replay (queries/webhookOutbox.ts replay).
      const nth = m.attempts + 1 - m.attempt_base;
      const last = nth > delays.length;
      // Past the last attempt, the lease is the deadline: a crash then gives it one more try.
      claims.push({
        id: m.message_id,
        attempts: m.attempts,
        body,
        nextAt: now() + (last ? this.opts.timeoutMs : delays[nth - 1]!),
      });
      plans.set(m.message_id, {m, nth, last, body});
    }
    const claimed = await q.claimAll(sql, claims);
    const out: Array<(() => Promise<void>) & {id: string}> = [];
    for (const id of claimed) {
      const plan = plans.get(id)!;
      const post = Object.assign(() => this.post(plan), {id});
      out.push(post);
    }
    return out;
  }

  /**
   * The batch's bodies, built together. A failure that is not an outage of the store is tried message by message,
   * so one message that cannot be built (a row the payload model rejects) does not hold back every other: it fails
   * at once, its error in its delivery log and the log, and the rest go (an outage is thrown, and the batch waits
   * out the loop's backoff).
   */
  private async bodies(due: q.DueMessage[]): Promise<Map<string, string | null>> {
    const {sql, now, logger} = this.modules;
    const icm = this.modules.icmMessage;
    const build = (ms: q.DueMessage[]) =>
      buildBodies(
        sql,
        ms,
        this.modules.networkToken,
        async (_tx, id) => (icm ? icm(sql, id) : null),
        this.modules.primaryNetwork ?? null,
      );
    try {
      return await build(due);
    } catch (err) {
      if (isRetryable(err)) throw err;
    }
    const out = new Map<string, string | null>();
    const broken: q.Outcome[] = [];
    for (const m of due) {
      try {
        for (const [id, b] of await build([m])) out.set(id, b);
      } catch (err) {
        if (isRetryable(err)) throw err;
        logger.error(
          {err, messageId: m.message_id, webhookId: m.webhook_id},
          "webhook message cannot be built: failed without an attempt",
        );
        broken.push({
          id: m.message_id,
          attempt: m.attempts + 1,
          at: now(),
          statusCode: 0,
          latencyMs: 0,
          error: `the message could not be built: ${(err as Error).message}`.slice(0, 500),
          state: "failed",
        });
      }
    }
    await q.recordAttempts(sql, broken);
    return out;
  }

  private async post(plan: {m: q.DueMessage; nth: number; last: boolean; body: string}): Promise<void> {
    const {sql, now} = this.modules;
    const {m, nth, last, body} = plan;
    const secret = m.secret ?? (await q.signingSecret(sql, m.owner, null, () => randomBytes(32).toString("hex")));
    const at = now();
    const out = await postSigned(
      m.url,
      body,
      secret,
      {timeoutMs: this.opts.timeoutMs, allowPrivate: this.opts.allowPrivateUrls, agents: this.agents},
      () => performance.now(),
    );
    const ok = out.error === null;
    const nextAt = !ok && !last ? now() + this.opts.retryDelaysMs[nth - 1]! : undefined;
    await this.record({
      id: m.message_id,
      attempt: m.attempts + 1,
      at,
      statusCode: out.status,
      latencyMs: out.latencyMs,
      error: out.error,
      state: ok ? "delivered" : last ? "failed" : "pending",
      nextAt,
    });
    this.modules.onAttempt?.({
      messageId: m.message_id,
      webhookId: m.webhook_id,
      status: out.status,
      latencyMs: out.latencyMs,
      createdAt: Number(m.created_at),
      ok,
    });
    if (!ok && last) {
      const reason = `message ${m.message_id} failed ${nth} attempts over the retry schedule; last: ${out.error}`;
      await q.deactivateFailing(sql, m.webhook_id, reason);
      this.modules.logger.warn(
        {webhookId: m.webhook_id, messageId: m.message_id, error: out.error},
        "webhook deactivated: its deliveries keep failing",
      );
    }
  }

  private pending: q.Outcome[] = [];
  private flushing: Promise<void> | null = null;

  /**
   * Attempts are recorded together: those that finish while a write is under way go in the next one. Resolves once
   * this outcome is in the store (a message stays in flight until then, so it is not read as due meanwhile).
   */
  private async record(o: q.Outcome): Promise<void> {
    this.pending.push(o);
    for (;;) {
      // Wait out the writes under way (one may hold this outcome), then write it unless one did.
      while (this.flushing) await this.flushing.catch(() => {});
      if (!this.pending.includes(o)) return;
      await this.flush();
    }
  }

  private async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    const batch = this.pending;
    this.pending = [];
    this.flushing = q.recordAttempts(this.modules.sql, batch).finally(() => (this.flushing = null));
    try {
      await this.flushing;
    } catch (e) {
      // Not recorded: the claim's next time stands, so the message is attempted again then (at-least-once).
      this.modules.logger.warn({err: e}, "webhook attempts not recorded; they are retried at their next time");
    }
  }
}
