/**
 * A webhook receiver on 127.0.0.1: a real HTTP server that records each POST (its exact body bytes, headers, time)
 * and answers as told: 200, 500, slowly (past the deadline), or never (the request is held open).
 */
import http from "node:http";
import type {AddressInfo} from "node:net";

export type ReceiverMode = "ok" | "fail" | "slow" | "silent";

export interface Delivery {
  body: string;
  headers: Record<string, string>;
  at: number;
  /** What the receiver answered (0: nothing). */
  answered: number;
}

export interface Receiver {
  url: string;
  mode: ReceiverMode;
  deliveries: Delivery[];
  /** Deliveries answered 200, parsed. */
  accepted(): Array<{messageId: string; webhookId: string; event: any; reverses?: string}>;
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  /** Stops listening (connections are refused) until `up`, on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(mode: ReceiverMode = "ok", slowMs = 12_000): Promise<Receiver> {
  const held = new Set<http.ServerResponse>();
  const r: Receiver = {
    url: "",
    mode,
    deliveries: [],
    accepted: () => r.deliveries.filter((d) => d.answered === 200).map((d) => JSON.parse(d.body)),
    waitFor: async (n, timeoutMs = 30_000) => {
      for (const until = Date.now() + timeoutMs; r.deliveries.length < n; ) {
        if (Date.now() > until) throw new Error(`receiver got ${r.deliveries.length} deliveries, waited for ${n}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    },
    down: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((res) => server.close(() => res()));
    },
    up: async () => {
      if (!server.listening) await new Promise<void>((res) => server.listen(port, "127.0.0.1", () => res()));
    },
    close: async () => r.down(),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
      );
      const d: Delivery = {body: Buffer.concat(chunks).toString("utf8"), headers, at: Date.now(), answered: 0};
      r.deliveries.push(d);
      const answer = (status: number): void => {
        d.answered = status;
        res.writeHead(status, {"content-type": "text/plain"}).end(status === 200 ? "ok" : "no");
      };
      if (r.mode === "ok") answer(200);
      else if (r.mode === "fail") answer(500);
      else if (r.mode === "slow") {
        held.add(res);
        setTimeout(() => {
          held.delete(res);
          if (!res.destroyed) answer(200);
        }, slowMs).unref();
      } else held.add(res);
    });
  });
  await new Promise<void>((res) => server.listen(0, "127.0.0.1", () => res()));
  const port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${port}/hook`;
  return r;
}
