/**
 * `GET /v1/health-check` (the SDK's `dataHealthCheck`): the data API's health checks (the store and its views, each
 * followed EVM chain) in the hosted API's HealthCheckResultDto: 200 with `status: "ok"` when every check passes,
 * else 503 with `status: "error"` and the failing checks under `error` with their reasons; `details` has every
 * check's status. `/ext/health` carries the same checks with their details for operators.
 */
import {implement, type BoundRoute} from "../server/route.js";
import {ping} from "../queries/live.js";
import {HEALTH_ROUTES} from "./defs/health.js";
import type {SqlClient} from "../store/sql.js";
import {UnavailableWithBody} from "../server/errors.js";
import type {Logger} from "../../logger/index.js";

export interface NamedCheck {
  name: string;
  check: () => Promise<{details?: unknown; error?: string}>;
}

/** `/v1/health-check` and `/v1/live-check` (defs/health.ts), on `checks` and the store. */
export function healthRoutes(
  checks: readonly NamedCheck[],
  sql: SqlClient,
  logger: Logger,
  timeoutMs = LIVE_TIMEOUT_MS,
): BoundRoute[] {
  return implement(HEALTH_ROUTES, {
    dataHealthCheck: () => healthCheck(checks),
    liveCheck: () => liveCheck(sql, logger, timeoutMs),
  });
}

async function healthCheck(checks: readonly NamedCheck[]): Promise<object> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        return {name: c.name, error: (await c.check()).error};
      } catch (e) {
        return {name: c.name, error: (e as Error).message};
      }
    }),
  );
  const up: Record<string, {status: "up"}> = {};
  const down: Record<string, {status: "down"; message: string}> = {};
  const details: Record<string, {status: "up" | "down"}> = {};
  for (const r of results) {
    if (r.error === undefined) up[r.name] = {status: "up"};
    else down[r.name] = {status: "down", message: r.error};
    details[r.name] = {status: r.error === undefined ? "up" : "down"};
  }
  const failed = Object.keys(down);
  const answer = {status: failed.length === 0 ? "ok" : "error", info: up, error: down, details};
  if (failed.length > 0) throw new UnavailableWithBody(`unhealthy: ${failed.join(", ")}`, answer);
  return answer;
}

/** How long the store has to answer a live check, ms: PGlite answers it after the fold's transaction in progress. */
export const LIVE_TIMEOUT_MS = 2000;

/**
 * `GET /v1/live-check` (chainkit's `liveCheck`, "the liveliness of the service (reads only)"), in the same
 * HealthCheckResultDto: whether reads are answered, that is whether the store answers. A view that stopped or lags
 * fails /v1/health-check, not this: reads are still served from what was folded. A store that fails or does not answer within `timeoutMs` is 503 with a generic reason
 * (the store's own error, such as its address, is logged, not answered to the public).
 */
export async function liveCheck(sql: SqlClient, logger: Logger, timeoutMs: number): Promise<Record<string, unknown>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const asked = ping(sql);
  asked.catch(() => {}); // answered late, after the timeout: nobody waits for it
  try {
    await Promise.race([asked, late]);
  } catch (e) {
    logger.warn({err: e}, "live check: the store does not answer");
    const down = {store: {status: "down" as const, message: "the store does not answer"}};
    const answer = {status: "error", info: {}, error: down, details: {store: {status: "down"}}};
    throw new UnavailableWithBody("unhealthy: store", answer);
  } finally {
    clearTimeout(timer);
  }
  return {status: "ok", info: {store: {status: "up"}}, error: {}, details: {store: {status: "up"}}};
}
