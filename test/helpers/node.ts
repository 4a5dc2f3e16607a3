/**
 * Shared test harness: a real avaext node on 127.0.0.1:0 with a real LevelDB in a fresh temp dir, and small
 * HTTP/JSON-RPC clients. Every e2e test goes through here, over the real wire.
 */
import {rmSync} from "node:fs";
import {Writable} from "node:stream";
import {resolveConfig} from "../../src/cli/config.js";
import type {AvaextConfig} from "../../src/cli/flags.js";
import type {FeedSource} from "../../src/feed/types.js";
import {AvaextNode, type NodeOverrides} from "../../src/node.js";

export interface TestNode {
  node: AvaextNode;
  url: URL;
  dataDir: string;
  /** Display log lines captured (JSON objects), when captureLogs is set. */
  logs: Record<string, unknown>[];
  rpc: (path: string, method: string, params?: unknown, id?: unknown) => Promise<RpcResult>;
  post: (path: string, body: string, headers?: Record<string, string>) => Promise<HttpResult>;
  get: (path: string, headers?: Record<string, string>) => Promise<HttpResult>;
  close: () => Promise<void>;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: () => unknown;
}

export interface RpcResult {
  status: number;
  body: {jsonrpc: string; id: unknown; result?: unknown; error?: {code: number; message: string; data?: unknown}};
}

import {dataApiPgliteDir, seedPgliteDir} from "./pglite.js";
import {tempDir} from "./tempDirs.js";

export {tempDir};

function withoutNulls(flags: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== null));
}

/** Flags for a test node: port 0, loopback, temp data dir, quiet stdout, unless overridden. */
export function testConfig(flags: Record<string, unknown> = {}, dataDir = tempDir()): AvaextConfig {
  return resolveConfig({
    cli: {
      "data-dir": dataDir,
      "http-host": "127.0.0.1",
      "http-port": "0",
      "log-display-level": "OFF",
      "health-check-frequency": "100ms",
      "dev-backfill": "0",
      // --feed has no default: the dev network unless the test names a feed, or none (null).
      ...withoutNulls({feed: "dev", ...flags}),
    },
    env: {},
  });
}

export async function startNode(
  flags: Record<string, unknown> = {},
  opts: {
    captureLogs?: boolean;
    dataDir?: string;
    keepData?: boolean;
    setup?: (n: AvaextNode) => void;
    /** Node overrides besides the captured display stream (e.g. `rawDb` for admin.dbGet). */
    overrides?: Omit<NodeOverrides, "displayStream">;
  } = {},
): Promise<TestNode> {
  const dataDir = opts.dataDir ?? tempDir();
  const logs: Record<string, unknown>[] = [];
  const config = testConfig(opts.captureLogs ? {"log-display-level": "INFO", ...flags} : flags, dataDir);
  const displayStream = new Writable({
    write(chunk: Buffer, _enc, cb): void {
      if (opts.captureLogs) {
        for (const line of chunk.toString("utf8").split("\n"))
          if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      cb();
    },
  });
  // The data API's PGlite store starts as a copy of the run's empty cluster, not an initdb of its own.
  const pgliteDir = dataApiPgliteDir(config);
  if (pgliteDir !== null) await seedPgliteDir(pgliteDir);
  const node = await AvaextNode.create(config, {...opts.overrides, displayStream});
  opts.setup?.(node);
  const url = await node.start();
  const base = url.toString().replace(/\/$/, "");

  const request = async (p: string, init: RequestInit): Promise<HttpResult> => {
    const res = await fetch(base + p, init);
    const text = await res.text();
    return {status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as unknown};
  };
  return {
    node,
    url,
    dataDir,
    logs,
    post: (p, body, headers = {"content-type": "application/json"}) => request(p, {method: "POST", body, headers}),
    get: (p, headers = {}) => request(p, {method: "GET", headers}),
    rpc: async (p, method, params, id = 1) => {
      const res = await request(p, {
        method: "POST",
        headers: {"content-type": "application/json"},
        body: JSON.stringify({jsonrpc: "2.0", id, method, ...(params === undefined ? {} : {params})}),
      });
      return {status: res.status, body: res.json() as RpcResult["body"]};
    },
    close: async () => {
      await node.close();
      if (!opts.keepData) rmSync(dataDir, {recursive: true, force: true});
    },
  };
}

/** A feed source that delivers nothing and leaves the feed status to the test (health tests drive it by hand). */
export const idleFeed: FeedSource = {
  key: "test:idle",
  run: (_position, _sink, signal) =>
    new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), {once: true})),
};
