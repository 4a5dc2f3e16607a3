/**
 * A request body as text, for routes that read their own (the data API's POST, the dev EVM's JSON-RPC): null when
 * it passes `limit` bytes. The rest is then read and dropped rather than the request destroyed: destroying it closed
 * the socket before the route's 413 was written, and the client saw ECONNRESET instead of an answer. The route
 * answers with `connection: close`, so Node closes the socket once the answer is out and a client that keeps sending
 * is cut off there.
 */
import type {IncomingMessage} from "node:http";

export function readBodyLimited(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve(null);
      } else chunks.push(c);
    });
    req.on("end", () => resolve(over ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", (e) => (over ? undefined : reject(e)));
  });
}
