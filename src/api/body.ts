/**
 * A request body as text, for routes that read their own (the data API's POST, the dev EVM's JSON-RPC): null when
 * it passes `limit` bytes (the request is destroyed then, nothing more is read).
 */
import type {IncomingMessage} from "node:http";

export function readBodyLimited(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
