/**
 * Webhook delivery, in the process that folds (the outbox is written by the EVM fold, views/evm/webhookOutbox.ts):
 * it polls the outbox for messages due, claims each attempt in the store before its POST (so a crash mid-POST is
 * retried, never lost: at-least-once, with the message's stable ID), signs and POSTs it (post.ts), and records the
 * attempt. A 2xx within the deadline delivers it; otherwise the next attempt follows the hosted API's schedule
 * (10 s, 1 m, 5 m, 10 m, 30 m, 2 h, 6 h, 12 h, 24 h after each failure); a message that fails its last attempt
 * fails, and its webhook is deactivated with the reason its GET shows. Time is the injected clock's (`now`), so a
 * test can let a day pass at once; polling runs on real timers.
 */
import type {Logger} from "../../logger/index.js";
import type {SqlClient} from "../store/client.js";
import * as q from "../queries/webhookOutbox.js";
import {buildBody, type NetworkToken} from "./payload.js";
import {postSigned} from "./post.js";
import {randomBytes} from "node:crypto";

/** The hosted API's retry schedule: the wait after attempt n (1-based) fails, ms; 10 attempts in all, about 44.8 h. */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000, 600_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];

export interface WebhookDeliveryOptions {
  /** Delivery's deadline for a 2xx, ms (the hosted API's 10 s). */
  timeoutMs: number;
  /** POSTs in flight at once. */
  concurrency: number;
  /** How often the outbox is read when nothing is due, real ms. */
  pollMs: number;
  /** `--webhooks-allow-private-urls`. */
  allowPrivateUrls: boolean;
  retryDelaysMs: readonly number[];
}

export const defaultWebhookDeliveryOptions: WebhookDeliveryOptions = {
  timeoutMs: 10_000,
  concurrency: 64,
  pollMs: 100,
  allowPrivateUrls: false,
  retryDelaysMs: RETRY_DELAYS_MS,
};

export interface WebhookDeliveryModules {
  sql: SqlClient;
  logger: Logger;
  /** Unix ms: the schedule's clock (tests inject one they move). */
  now: () => number;
  /** The native token of a followed chain, for networkToken. */
  networkToken: (chainId: string) => NetworkToken;
  /** Told of each attempt (metrics, benches). */
  onAttempt?: (a: {messageId: string; webhookId: string; status: number; latencyMs: number; createdAt: number; ok: boolean}) => void;
}

export class WebhookDelivery {
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(
    readonly opts: WebhookDeliveryOptions,
    private readonly modules: WebhookDeliveryModules,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = this.loop();
  }

  /** Reads the outbox now rather than at the next poll (after a fold, or when a test moved the clock). */
  poke(): void {
    this.wake?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.poke();
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async loop(): Promise<void> {
    const tasks = new Set<Promise<void>>();
    while (!this.closed) {
      let found = 0;
      try {
        const room = this.opts.concurrency - this.inFlight.size;
        if (room > 0) {
          const due = await q.dueMessages(this.modules.sql, this.modules.now(), room, [...this.inFlight]);
          found = due.length;
          for (const m of due) {
            this.inFlight.add(m.message_id);
            const p: Promise<void> = this.attempt(m)
              .catch((err: unknown) => this.modules.logger.warn({err, messageId: m.message_id}, "webhook delivery attempt failed"))
              .finally(() => {
                this.inFlight.delete(m.message_id);
                tasks.delete(p);
                this.poke();
              });
            tasks.add(p);
          }
        }
      } catch (err) {
        if (this.closed) break;
        this.modules.logger.warn({err}, "webhook outbox read failed; retrying");
      }
      if (this.closed) break;
      // Full batch: read again at once; else wait for the poll or a finished attempt.
      if (found > 0 && this.inFlight.size < this.opts.concurrency) continue;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.opts.pollMs);
      });
      this.wake = null;
    }
    await Promise.allSettled([...tasks]);
  }

  private async attempt(m: q.DueMessage): Promise<void> {
    const {sql, now} = this.modules;
    const body = m.body ?? (await buildBody(sql, m, this.modules.networkToken));
    if (body === null) {
      // Its transaction is gone (a rollback's reversal of a message never attempted), or its event signatures match
      // none of its logs: nothing to deliver.
      await q.setState(sql, m.message_id, m.reverses !== null ? "dropped" : "skipped");
      return;
    }
    const attempt = m.attempts + 1;
    // The schedule's place: attempts since the last replay (queries/webhookOutbox.ts replay).
    const nth = attempt - m.attempt_base;
    const delays = this.opts.retryDelaysMs;
    const last = nth > delays.length;
    // Past the last attempt, the lease is the deadline: a crash then gives it one more try.
    const nextAt = now() + (last ? this.opts.timeoutMs : delays[nth - 1]!);
    if (!(await q.claim(sql, m.message_id, m.attempts, body, nextAt))) return;
    const secret = await q.signingSecret(sql, m.owner, m.secret, () => randomBytes(32).toString("hex"));
    const at = now();
    const out = await postSigned(m.url, body, secret, {timeoutMs: this.opts.timeoutMs, allowPrivate: this.opts.allowPrivateUrls}, () => performance.now());
    const ok = out.error === null;
    await q.recordAttempt(sql, m.message_id, attempt, {at, statusCode: out.status, latencyMs: out.latencyMs, error: out.error}, ok ? "delivered" : last ? "failed" : "pending");
    this.modules.onAttempt?.({messageId: m.message_id, webhookId: m.webhook_id, status: out.status, latencyMs: out.latencyMs, createdAt: Number(m.created_at), ok});
    if (!ok && last) {
      const reason = `message ${m.message_id} failed ${nth} attempts over the retry schedule; last: ${out.error}`;
      await q.deactivateFailing(sql, m.webhook_id, reason);
      this.modules.logger.warn({webhookId: m.webhook_id, messageId: m.message_id, error: out.error}, "webhook deactivated: its deliveries keep failing");
    }
  }
}
