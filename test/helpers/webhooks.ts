/** A node that follows one test anvil with the data API and webhooks on, and the API keys its tests use. */
import {writeFileSync} from "node:fs";
import path from "node:path";
import {tempDir} from "./tempDirs.js";

export const WEBHOOK_CHAIN = "99998";
export const KEY_A = "key-a-0123456789";
export const KEY_B = "key-b-0123456789";

export function webhookNodeFlags(anvilUrl: string, keysFile: string, db: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "network-id": "local",
    "index-enabled": true,
    feed: "dev",
    "dev-backfill": "10m",
    "dev-evm": false,
    "data-api-enabled": true,
    "data-api-db": db,
    "data-api-rate-limit": "0",
    "data-api-keys-file": keysFile,
    "evm-rpc": `${WEBHOOK_CHAIN}=${anvilUrl}`,
    "webhooks-max-addresses": 5_000,
    ...extra,
  };
}

export function keysFile(): string {
  const f = path.join(tempDir(), "keys.json");
  writeFileSync(f, JSON.stringify({[KEY_A]: {name: "a", rateLimit: 0}, [KEY_B]: {name: "b", rateLimit: 0}}));
  return f;
}

