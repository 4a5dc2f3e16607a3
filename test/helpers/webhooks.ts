/** A node that follows one test anvil with the data API and webhooks on, and the API keys its tests use. */
import {writeFileSync} from "node:fs";
import path from "node:path";
import {expect} from "vitest";
import {Avalanche} from "@avalanche-sdk/chainkit";
import {canonicalJson} from "../../src/util/canonicalJson.js";
import {tempDir} from "./tempDirs.js";
import {until} from "./devNode.js";
import {startNode, type TestNode} from "./node.js";
import type {Receiver} from "./webhookReceiver.js";

const ck = new Avalanche({enableTelemetry: false});

export const WEBHOOK_CHAIN = "99998";
export const KEY_A = "key-a-0123456789";
export const KEY_B = "key-b-0123456789";

export function webhookNodeFlags(
  anvilUrl: string,
  keysFile: string,
  db: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
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
export async function validated(
  r: Receiver,
  secret: string,
): Promise<Array<Awaited<ReturnType<Avalanche["validateWebhook"]>>>> {
  const out = [];
  for (const d of r.deliveries) {
    out.push(
      await ck.validateWebhook({request: {body: d.body, headers: d.headers, url: r.url, method: "POST"}, secret}),
    );
    expect(d.body).toBe(canonicalJson(JSON.parse(d.body)));
  }
  return out;
}

/**
 * A dev-network node (`--feed dev`, no EVM) with the data API and webhooks on, whose clock stands still until the
 * test moves it (`release`: chain time past the start, ms; the live ticks are 2 s of chain time each), its backfill
 * folded up to P height `foldedTo` within `foldMs`. `call` is the API with KEY_A, answering the parsed body; `pHeight` the last P block folded.
 */
export async function startHeldDevNode(
  db: string,
  backfill: string,
  foldedTo: number,
  foldMs: number,
): Promise<{
  node: TestNode;
  release: (ms: number) => void;
  call: (method: string, p: string, body?: unknown) => Promise<Record<string, any>>;
  pHeight: () => Promise<number>;
}> {
  const t0 = Date.now();
  let offset = 0;
  const node = await startNode(
    {
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "dev-backfill": backfill,
      "dev-evm": false,
      "data-api-enabled": true,
      "data-api-db": db,
      "data-api-rate-limit": "0",
      "data-api-keys-file": keysFile(),
      "webhooks-allow-private-urls": true,
    },
    {overrides: {devNow: () => t0 + offset}},
  );
  const pHeight = async (): Promise<number> =>
    Number(
      (
        await node.node.dataApi!.sql.query<{h: string}>(
          "SELECT COALESCE(max(height), -1)::text AS h FROM blocks WHERE chain = 'P'",
        )
      )[0]!.h,
    );
  await until(
    () => "the view did not fold the backfill",
    async () => node.node.dataApi?.view?.lag() === 0n && (await pHeight()) >= foldedTo,
    foldMs,
  );
  const call = async (method: string, p: string, body?: unknown): Promise<Record<string, any>> => {
    const res = await fetch(new URL(p, node.url), {
      method,
      headers: {"content-type": "application/json", "x-glacier-api-key": KEY_A},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };
  return {node, release: (ms) => (offset = ms), call, pHeight};
}
