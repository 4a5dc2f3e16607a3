/** A node that follows one test anvil with the data API and webhooks on, and the API keys its tests use. */
import {writeFileSync} from "node:fs";
import path from "node:path";
import {expect} from "vitest";
import {Avalanche} from "@avalanche-sdk/chainkit";
import {canonicalJson} from "../../src/util/canonicalJson.js";
import {tempDir} from "./tempDirs.js";
import type {Receiver} from "./webhookReceiver.js";

const ck = new Avalanche({enableTelemetry: false});

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


/** Every delivery verified by chainkit's validateWebhook with `secret`; returns the parsed payloads. */
export async function validated(r: Receiver, secret: string): Promise<Array<Awaited<ReturnType<Avalanche["validateWebhook"]>>>> {
  const out = [];
  for (const d of r.deliveries) {
    out.push(await ck.validateWebhook({request: {body: d.body, headers: d.headers, url: r.url, method: "POST"}, secret}));
    expect(d.body).toBe(canonicalJson(JSON.parse(d.body)));
  }
  return out;
}

