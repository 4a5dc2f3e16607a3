/**
 * One delivery attempt: a POST of the exact body bytes, signed in `x-signature` (base64 HMAC-SHA256 of the body, the
 * key being the secret's UTF-8 bytes, as chainkit's validateWebhook checks it), to an address the SSRF guard
 * (util/publicTarget.ts) checked, with the connection pinned to it. Redirects are not followed (a 3xx is a failure),
 * and an answer later than the deadline is one too. Never throws: the outcome says what happened. Connections are
 * kept alive per origin and checked address set (`Agents`): a new DNS answer gets new connections, never an old
 * socket to the address it replaced. The deadline runs from when the request has a socket: a POST queued behind
 * others to the same origin (an agent's maxSockets) is not failed for the wait.
 */
import {createHmac} from "node:crypto";
import http from "node:http";
import https from "node:https";
import {TargetRefused, checkedAddresses, pinnedLookup, type ResolvedAddress} from "../../util/publicTarget.js";

export interface PostOutcome {
  /** The HTTP status, 0 when none came. */
  status: number;
  latencyMs: number;
  /** Why it failed, null on a 2xx. */
  error: string | null;
}

export function signature(body: string, secret: string): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("base64");
}

/** Keep-alive agents by origin and the addresses it was checked to (a bounded number; the oldest is dropped). */
export class Agents {
  private readonly byKey = new Map<string, http.Agent>();
  constructor(private readonly max = 1024) {}

  get(u: URL, to: readonly ResolvedAddress[]): http.Agent {
    const key = `${u.origin}|${to.map((a) => a.address).join(",")}`;
    let a = this.byKey.get(key);
    if (!a) {
      const opts = {keepAlive: true, maxSockets: 16, lookup: pinnedLookup(to)};
      a = u.protocol === "https:" ? new https.Agent(opts) : new http.Agent(opts);
      this.byKey.set(key, a);
      if (this.byKey.size > this.max) {
        const [oldest, agent] = this.byKey.entries().next().value as [string, http.Agent];
        agent.destroy();
        this.byKey.delete(oldest);
      }
    }
    return a;
  }

  close(): void {
    for (const a of this.byKey.values()) a.destroy();
    this.byKey.clear();
  }
}

export async function postSigned(
  url: string,
  body: string,
  secret: string,
  o: {timeoutMs: number; allowPrivate: boolean; agents: Agents; headers?: Record<string, string>},
  elapsed: () => number,
): Promise<PostOutcome> {
  const started = elapsed();
  const done = (status: number, error: string | null): PostOutcome => ({
    status,
    latencyMs: Math.round(elapsed() - started),
    error,
  });
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return done(0, "not a URL");
  }
  let to;
  try {
    to = await checkedAddresses(u.hostname, o.allowPrivate);
  } catch (e) {
    return done(0, e instanceof TargetRefused ? e.message : (e as Error).message);
  }
  const bytes = Buffer.from(body, "utf8");
  const deadline = new Deadline(o.timeoutMs, elapsed);
  const first = await attempt(u, bytes, body, secret, to, o, deadline);
  // A kept-alive socket the receiver had closed fails before any answer: sent again once on a new connection, as
  // Node's docs advise (http.ClientRequest reusedSocket), so a receiver's restart is not a failed attempt.
  const out = first.staleSocket && deadline.left() > 0 ? await attempt(u, bytes, body, secret, to, o, deadline) : first;
  return done(out.status, out.error);
}

/** The attempt's deadline: it starts when a request first has a socket, and the retry on a new one shares it. */
class Deadline {
  private startedAt: number | null = null;
  constructor(
    readonly ms: number,
    private readonly elapsed: () => number,
  ) {}

  /** Starts it (once); the ms left. */
  start(): number {
    this.startedAt ??= this.elapsed();
    return this.left();
  }

  left(): number {
    return this.startedAt === null ? this.ms : Math.max(0, this.ms - (this.elapsed() - this.startedAt));
  }
}

function attempt(
  u: URL,
  bytes: Buffer,
  body: string,
  secret: string,
  to: ResolvedAddress[],
  o: {timeoutMs: number; agents: Agents; headers?: Record<string, string>},
  deadline: Deadline,
): Promise<{status: number; error: string | null; staleSocket: boolean}> {
  const mod = u.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let answered = false;
    let expired = false;
    let timer: NodeJS.Timeout | null = null;
    const finish = (status: number, error: string | null, staleSocket = false): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve({status, error, staleSocket});
    };
    const req = mod.request(
      u,
      {
        method: "POST",
        lookup: pinnedLookup(to),
        agent: o.agents.get(u, to),
        headers: {
          "content-type": "application/json",
          "content-length": String(bytes.length),
          "user-agent": "avaext-webhooks",
          "x-signature": signature(body, secret),
          ...o.headers,
        },
      },
      (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        res.resume();
        res.on("end", () =>
          finish(
            status,
            status >= 200 && status < 300
              ? null
              : status >= 300 && status < 400
                ? `HTTP ${status}: redirects are not followed`
                : `HTTP ${status}`,
          ),
        );
        res.on("error", (e) => finish(status, e.message));
        res.on("close", () => finish(status, status >= 200 && status < 300 && res.complete ? null : `HTTP ${status}`));
      },
    );
    const late = `no answer within ${o.timeoutMs} ms`;
    req.on("socket", () => {
      timer = setTimeout(() => {
        expired = true;
        req.destroy(new Error(late));
        finish(0, late);
      }, deadline.start());
    });
    req.on("error", (e) => finish(0, expired ? late : e.message, req.reusedSocket && !answered && !expired));
    req.end(bytes);
  });
}
