/**
 * The dev network's C-chain JSON-RPC at `/ext/bc/C/rpc` (and `/ext/bc/<C-chain ID>/rpc`), as a local AvalancheGo
 * serves it (docs/api/evm.md), so wallets and EVM tools can read the dev network's EVM. Read-only: every call
 * but the reading ones is refused with a JSON-RPC error, since the dev network's transactions come from its own
 * deterministic traffic (a foreign transaction would make the chain differ from what a restart replays).
 */
import {readBodyLimited} from "../../api/body.js";
import type {PlainResponse, Route} from "../../api/routes.js";
import type {RpcGuard} from "../../evm/rpc.js";

/** The methods passed through: reads of chain state, blocks, transactions, logs and traces. */
const READ_METHODS = new Set([
  "eth_chainId",
  "eth_blockNumber",
  "eth_getBlockByNumber",
  "eth_getBlockByHash",
  "eth_getBlockReceipts",
  "eth_getBlockTransactionCountByNumber",
  "eth_getBlockTransactionCountByHash",
  "eth_getTransactionByHash",
  "eth_getTransactionByBlockNumberAndIndex",
  "eth_getTransactionByBlockHashAndIndex",
  "eth_getTransactionReceipt",
  "eth_getTransactionCount",
  "eth_getRawTransactionByHash",
  "eth_getBalance",
  "eth_getCode",
  "eth_getStorageAt",
  "eth_getLogs",
  "eth_call",
  "eth_estimateGas",
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_feeHistory",
  "eth_syncing",
  "net_version",
  "web3_clientVersion",
  "debug_traceTransaction",
  "debug_traceBlockByNumber",
  "debug_traceBlockByHash",
]);

const JSON_CT = "application/json";
const BODY_LIMIT = 1024 * 1024;

interface Call {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
}

const error = (id: unknown, code: number, message: string): object => ({
  jsonrpc: "2.0",
  id: id ?? null,
  error: {code, message},
});

/**
 * The route: POST JSON-RPC (a call or a batch) forwarded to the dev EVM (`url()`, which changes on its restarts),
 * through the EVM's guard (DevEvmChain.guard: a user's trace must not overlap the dev feed's mining).
 */
export function devEvmRpcRoute(template: string, url: () => string | null, guard: RpcGuard): Route {
  return {
    template,
    plainAnyMethod: true,
    plain: async (req): Promise<PlainResponse> => {
      if (req.method !== "POST")
        return {
          status: 405,
          contentType: "text/plain; charset=utf-8",
          body: "POST JSON-RPC here\n",
          headers: {allow: "POST"},
        };
      const text = await readBodyLimited(req, BODY_LIMIT);
      if (text === null) {
        const body = JSON.stringify(error(null, -32600, `request body larger than ${BODY_LIMIT} bytes`));
        return {status: 413, contentType: JSON_CT, body, headers: {connection: "close"}};
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return {status: 200, contentType: JSON_CT, body: JSON.stringify(error(null, -32700, "parse error"))};
      }
      const batch = Array.isArray(parsed);
      const calls = (batch ? parsed : [parsed]) as Call[];
      if (calls.length === 0)
        return {status: 200, contentType: JSON_CT, body: JSON.stringify(error(null, -32600, "empty batch"))};
      const answers: object[] = new Array(calls.length);
      const forward: Array<{i: number; call: Call}> = [];
      calls.forEach((c, i) => {
        if (c === null || typeof c !== "object" || typeof c.method !== "string")
          answers[i] = error(c?.id, -32600, "invalid request");
        else if (!READ_METHODS.has(c.method))
          answers[i] = error(
            c.id,
            -32601,
            `${c.method} is not served here: the dev network's EVM is read-only over /ext/bc (its transactions are its own traffic)`,
          );
        else forward.push({i, call: c});
      });
      if (forward.length > 0) {
        if (url() === null)
          return {
            status: 503,
            contentType: JSON_CT,
            body: JSON.stringify(error(null, -32000, "the dev network's EVM is not running")),
          };
        try {
          // Forwarded with ids of our own, so answers map back whatever ids the client used. The URL is read once the
          // guard lets the request go: the EVM may have been restarted meanwhile.
          const got = await guard(
            forward.map((f) => f.call.method as string),
            async () => {
              const target = url();
              if (target === null) throw new Error("the dev network's EVM is not running");
              const res = await fetch(target, {
                method: "POST",
                headers: {"content-type": JSON_CT},
                body: JSON.stringify(forward.map((f, k) => ({...f.call, jsonrpc: "2.0", id: k}))),
                signal: AbortSignal.timeout(30_000),
              });
              return (await res.json()) as Array<{id: number; result?: unknown; error?: unknown}>;
            },
          );
          for (const g of Array.isArray(got) ? got : []) {
            const f = forward[g.id];
            if (f)
              answers[f.i] = {
                jsonrpc: "2.0",
                id: f.call.id ?? null,
                ...("error" in g ? {error: g.error} : {result: g.result}),
              };
          }
        } catch (e) {
          for (const f of forward)
            answers[f.i] = error(f.call.id, -32000, `the dev network's EVM did not answer: ${(e as Error).message}`);
        }
        for (const f of forward) answers[f.i] ??= error(f.call.id, -32000, "no answer from the dev network's EVM");
      }
      return {status: 200, contentType: JSON_CT, body: JSON.stringify(batch ? answers : answers[0])};
    },
  };
}
