/**
 * A signature source backed by validator nodes' warp RPC (`--warp-signer-urls`): for a message an EVM chain sent,
 * each node is asked at once, `warp_getMessageSignature` on `/ext/bc/<source chain>/rpc`, and answers for itself.
 * Which validator a node is, it tells once (`info.getNodeID`: its BLS key from `nodePOP`), cached, asked again
 * after a failure. A node outside the request's set, or unreachable, says nothing; a JSON-RPC error is its refusal;
 * whatever it sends as a signature goes to the aggregator, which checks it before it counts. P-chain messages are
 * signed by AvalancheGo only over its peer-to-peer protocol: this source has nothing for them.
 */
import type {SignatureAnswer, SignatureRequest, SignatureSource} from "../../warp/aggregator.js";
import {messageId, parseUnsignedMessage, PUBLIC_KEY_LEN} from "../../warp/message.js";
import {cb58Encode} from "../../util/cb58.js";
import {bytesToHex} from "../../util/hex.js";
import type {Logger} from "../../logger/index.js";
import {redactUrl} from "../../util/url.js";
import {jsonRpc, joinUrl, parseHex, UpstreamError} from "./upstream.js";

export interface WarpSignersOptions {
  /** Validator nodes' base URLs (`http://10.0.0.5:9650`). */
  urls: string[];
  /** Deadline of each call to a node. */
  timeoutMs: number;
  /** After a failed `info.getNodeID`, the node's key is asked again no sooner than this. */
  keyRetryMs: number;
}

export const defaultWarpSignersOptions = {timeoutMs: 5_000, keyRetryMs: 5_000} as const;

export interface WarpSignersModules {
  logger: Pick<Logger, "warn" | "debug"> | null;
}

interface NodeKey {
  nodeId: string;
  /** Lowercase hex of the 48-byte compressed key. */
  publicKeyHex: string;
  publicKey: Uint8Array;
}

interface SignerNode {
  url: string;
  label: string;
  key: Promise<NodeKey> | null;
  failedAt: number;
}

export class WarpSigners implements SignatureSource {
  readonly name = "validator nodes (--warp-signer-urls)";
  private readonly nodes: SignerNode[];

  constructor(
    private readonly opts: WarpSignersOptions,
    private readonly modules: WarpSignersModules,
  ) {
    this.nodes = opts.urls.map((url) => ({url, label: redactUrl(url), key: null, failedAt: -Infinity}));
  }

  /** The node's BLS key and node ID, learned once; null while it cannot be learned (asked again after keyRetryMs). */
  private nodeKey(node: SignerNode): Promise<NodeKey> | null {
    if (node.key) return node.key;
    if (Date.now() - node.failedAt < this.opts.keyRetryMs) return null;
    const p = (async (): Promise<NodeKey> => {
      const r = (await jsonRpc(
        joinUrl(node.url, "/ext/info"),
        "info.getNodeID",
        {},
        {timeoutMs: this.opts.timeoutMs, maxBytes: 64 * 1024},
      )) as {nodeID?: unknown; nodePOP?: {publicKey?: unknown}} | null;
      const publicKey = parseHex(r?.nodePOP?.publicKey);
      if (!publicKey || publicKey.length !== PUBLIC_KEY_LEN)
        throw new UpstreamError(
          "transport",
          "info.getNodeID: no 48-byte nodePOP.publicKey (is it a validator with a BLS key?)",
        );
      return {nodeId: typeof r?.nodeID === "string" ? r.nodeID : "?", publicKey, publicKeyHex: bytesToHex(publicKey)};
    })();
    node.key = p;
    p.then(
      (k) => this.modules.logger?.debug({url: node.label, nodeId: k.nodeId}, "warp signer identified"),
      (e: Error) => {
        if (node.key === p) node.key = null;
        node.failedAt = Date.now();
        this.modules.logger?.warn({url: node.label, error: e.message}, "warp signer: cannot learn its BLS key");
      },
    );
    return p;
  }

  /** One node's answer for `req`, or null (not in the set, unreachable, cancelled). Never rejects. */
  private async ask(
    node: SignerNode,
    req: SignatureRequest,
    wanted: Set<string>,
    chain: string,
    id: string,
  ): Promise<SignatureAnswer | null> {
    try {
      const keyP = this.nodeKey(node);
      if (!keyP) return null;
      const key = await abortable(keyP, req.signal);
      if (!key || !wanted.has(key.publicKeyHex)) return null;
      let result: unknown;
      try {
        result = await jsonRpc(joinUrl(node.url, `/ext/bc/${chain}/rpc`), "warp_getMessageSignature", [id], {
          timeoutMs: this.opts.timeoutMs,
          signal: req.signal,
          maxBytes: 64 * 1024,
        });
      } catch (e) {
        if (e instanceof UpstreamError && e.kind === "rpc")
          return {publicKey: key.publicKey, refused: `warp_getMessageSignature: ${e.message}`};
        if (!req.signal.aborted)
          this.modules.logger?.debug({url: node.label, error: (e as Error).message}, "warp signer did not answer");
        return null;
      }
      if (result === null || result === undefined || result === "")
        return {publicKey: key.publicKey, refused: "warp_getMessageSignature: no signature"};
      // Not hex: an empty signature, which the aggregator counts invalid.
      return {publicKey: key.publicKey, signature: parseHex(result) ?? new Uint8Array(0)};
    } catch {
      return null;
    }
  }

  async *signatures(req: SignatureRequest): AsyncIterable<SignatureAnswer> {
    let sourceChainId: Uint8Array;
    try {
      sourceChainId = parseUnsignedMessage(req.unsigned).sourceChainId;
    } catch {
      return;
    }
    if (sourceChainId.every((b) => b === 0) || this.nodes.length === 0 || req.signal.aborted) return;
    // AvalancheGo's ids.ID is CB58 on the wire (JSON), as is the chain in the path.
    const chain = cb58Encode(sourceChainId);
    const id = cb58Encode(messageId(req.unsigned));
    const wanted = new Set(req.validators.map((v) => bytesToHex(v.publicKey)));
    const ready: SignatureAnswer[] = [];
    let left = this.nodes.length;
    let wake: (() => void) | null = null;
    const poke = (): void => {
      const w = wake;
      wake = null;
      w?.();
    };
    for (const node of this.nodes) {
      void this.ask(node, req, wanted, chain, id).then((a) => {
        if (a) ready.push(a);
        left--;
        poke();
      });
    }
    req.signal.addEventListener("abort", poke, {once: true});
    try {
      for (;;) {
        while (ready.length > 0) yield ready.shift()!;
        if (left === 0 || req.signal.aborted) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      req.signal.removeEventListener("abort", poke);
    }
  }
}

/** `p`, or null once `signal` aborts (p's own outcome is then ignored). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise<T | null>((resolve, reject) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener("abort", onAbort, {once: true});
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
