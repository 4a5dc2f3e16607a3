/**
 * Small real HTTP servers on 127.0.0.1 that play the external services signature aggregation talks to: validator
 * nodes (info.getNodeID, warp_getMessageSignature, signing with known BLS secret keys), a P-chain node
 * (platform.getHeight / getValidatorsAt / validatedBy) and an external aggregator (icm-services and Data API
 * formats). Each one's behaviour can be switched between requests (`mode`), and it records what it was asked.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from "node:http";
import type {AddressInfo} from "node:net";
import {aggregateSignatures, publicKeyOf, sign} from "../../src/warp/bls.js";
import {devNetworkSecretKeys, localSecretKey} from "../../src/dev/signers.js";
import {messageId, serializeSignedMessage} from "../../src/warp/message.js";
import type {CanonicalSet} from "../../src/warp/validators.js";
import {cb58Encode, idFromString} from "../../src/util/cb58.js";

export interface Recorded {
  path: string;
  method?: string;
  params?: unknown;
  body: unknown;
  authorization?: string;
}

export interface FakeServer {
  url: string;
  calls: Recorded[];
  close(): Promise<void>;
}

type Reply = {status?: number; json?: unknown; raw?: string} | "hang";

async function serve(
  handler: (path: string, body: unknown, req: IncomingMessage) => Reply | Promise<Reply>,
): Promise<FakeServer> {
  const calls: Recorded[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async (): Promise<void> => {
        let body: unknown = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          body = null;
        }
        const b = body as {method?: string; params?: unknown} | null;
        calls.push({
          path: req.url ?? "",
          method: b?.method,
          params: b?.params,
          body,
          authorization: req.headers.authorization,
        });
        let reply: Reply;
        try {
          reply = await handler(req.url ?? "", body, req);
        } catch (e) {
          reply = {status: 500, json: {message: `fake server: ${(e as Error).message}`}};
        }
        if (reply === "hang") {
          hanging.add(res);
          res.on("close", () => hanging.delete(res));
          return;
        }
        res.writeHead(reply.status ?? 200, {"content-type": "application/json"});
        res.end(reply.raw ?? JSON.stringify(reply.json));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: async (): Promise<void> => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const rpcResult = (id: unknown, result: unknown): Reply => ({json: {jsonrpc: "2.0", id, result}});
const rpcError = (id: unknown, code: number, message: string): Reply => ({
  json: {jsonrpc: "2.0", id, error: {code, message}},
});
const hex = (b: Uint8Array): string => "0x" + Buffer.from(b).toString("hex");

/** Messages the fake validators have "seen" (their VM accepted them): by message ID (hex). */
export class KnownMessages {
  private readonly byId = new Map<string, Uint8Array>();
  add(unsigned: Uint8Array): void {
    this.byId.set(Buffer.from(messageId(unsigned)).toString("hex"), unsigned);
  }
  /** The message of an ID given as CB58 or 0x hex. */
  get(id: unknown): Uint8Array | undefined {
    if (typeof id !== "string") return undefined;
    try {
      const bytes = /^0x[0-9a-fA-F]{64}$/.test(id) ? Buffer.from(id.slice(2), "hex") : idFromString(id);
      return this.byId.get(Buffer.from(bytes).toString("hex"));
    } catch {
      return undefined;
    }
  }
}

export type ValidatorMode = "sign" | "garbage" | "nothex" | "refuse" | "null" | "hang" | "nokey";

export interface FakeValidator extends FakeServer {
  mode: ValidatorMode;
  publicKey: Uint8Array;
  nodeId: string;
}

/** A validator node holding `secretKey` (local signer n when a number), signing what `known` holds. */
export async function fakeValidator(key: number | Uint8Array, known: KnownMessages): Promise<FakeValidator> {
  const secretKey = typeof key === "number" ? localSecretKey(key) : key;
  const publicKey = publicKeyOf(secretKey);
  const nodeId = `NodeID-fake${typeof key === "number" ? key : Buffer.from(publicKey.slice(0, 4)).toString("hex")}`;
  const v = {mode: "sign" as ValidatorMode, publicKey, nodeId} as FakeValidator;
  const s = await serve((path, body) => {
    const b = body as {id?: unknown; method?: string; params?: unknown[]};
    if (path === "/ext/info" && b.method === "info.getNodeID") {
      if (v.mode === "nokey") return rpcError(b.id, -32000, "not a validator");
      return rpcResult(b.id, {
        nodeID: nodeId,
        nodePOP: {publicKey: hex(publicKey), proofOfPossession: "0x" + "00".repeat(96)},
      });
    }
    const m = /^\/ext\/bc\/([^/]+)\/rpc$/.exec(path);
    if (m && b.method === "warp_getMessageSignature") {
      if (v.mode === "hang") return "hang";
      if (v.mode === "refuse") return rpcError(b.id, -32000, "failed to get signature: not found");
      if (v.mode === "null") return rpcResult(b.id, null);
      if (v.mode === "nothex") return rpcResult(b.id, "0xnothex");
      const unsigned = known.get(b.params?.[0]);
      if (!unsigned) return rpcError(b.id, -32000, "failed to get signature: not found");
      // The message must come from the chain the path names, as a VM signs only its own messages.
      if (cb58Encode(unsigned.slice(6, 38)) !== m[1]) return rpcError(b.id, -32000, "wrong chain");
      if (v.mode === "garbage") return rpcResult(b.id, hex(sign(localSecretKey(99), unsigned)));
      return rpcResult(b.id, hex(sign(secretKey, unsigned)));
    }
    return rpcError(b?.id ?? null, -32601, "the method does not exist");
  });
  return Object.assign(v, s);
}

export interface PValidator {
  nodeId: string;
  weight: bigint;
  /** Local signer n, or null: no BLS key. */
  signer: number | null;
}

export interface FakePChain extends FakeServer {
  height: bigint;
  sets: Map<string, PValidator[]>;
  chains: Map<string, string>;
  /** Older AvalancheGo: getValidatorsAt answers NodeID → weight. */
  legacy: boolean;
  /** Answer every call with HTTP 500. */
  failing: boolean;
  /** Answer no call (each hangs until the client gives up). */
  hanging: boolean;
  /**
   * The node's view of current validators: `platform.getCurrentValidators`' uptime and connected, and `info.peers`'
   * benched chains (a peer is listed when connected).
   */
  observed: Map<string, {uptime: string; connected: boolean; benched: string[]}>;
}

export async function fakePChain(): Promise<FakePChain> {
  const p = {
    height: 100n,
    sets: new Map(),
    chains: new Map(),
    legacy: false,
    failing: false,
    hanging: false,
    observed: new Map(),
  } as unknown as FakePChain;
  const s = await serve((path, body) => {
    const b = body as {id?: unknown; method?: string; params?: Record<string, unknown>};
    if (p.hanging) return "hang";
    if (p.failing) return {status: 500, raw: "internal error"};
    if (path === "/ext/info" && b.method === "info.peers") {
      const peers = [...p.observed]
        .filter(([, o]) => o.connected)
        .map(([nodeID, o]) => ({nodeID, ip: "127.0.0.1:9651", observedUptime: "100", benched: o.benched}));
      return rpcResult(b.id, {numPeers: String(peers.length), peers});
    }
    if (path !== "/ext/bc/P") return {status: 404, raw: "404 page not found"};
    switch (b.method) {
      case "platform.getCurrentValidators": {
        const validators = [...p.observed].map(([nodeID, o]) => ({
          txID: "x",
          nodeID,
          weight: "1",
          uptime: o.uptime,
          connected: o.connected,
        }));
        return rpcResult(b.id, {validators});
      }
      case "platform.getHeight":
        return rpcResult(b.id, {height: p.height.toString()});
      case "platform.getValidatorsAt": {
        const h = BigInt(String(b.params?.height));
        if (h > p.height) return rpcError(b.id, -32000, "height not available");
        const set = p.sets.get(String(b.params?.subnetID)) ?? [];
        const validators = Object.fromEntries(
          set.map((v) => [
            v.nodeId,
            p.legacy
              ? v.weight.toString()
              : {
                  publicKey: v.signer === null ? null : hex(publicKeyOf(localSecretKey(v.signer))),
                  weight: v.weight.toString(),
                },
          ]),
        );
        return rpcResult(b.id, {validators});
      }
      case "platform.validatedBy": {
        const subnet = p.chains.get(String(b.params?.blockchainID));
        return subnet
          ? rpcResult(b.id, {subnetID: subnet})
          : rpcError(b.id, -32000, "couldn't get blockchain's subnet: not found");
      }
      default:
        return rpcError(b.id, -32601, "the method does not exist");
    }
  });
  return Object.assign(p, s);
}

export type AggregatorMode = "valid" | "badsig" | "other" | "garbage" | "nofield" | "http500" | "hang";

export interface FakeAggregator extends FakeServer {
  mode: AggregatorMode;
}

/**
 * An external aggregator (both formats, by path) that signs with the local signers 1..5 it holds, over the
 * canonical set `setFor` gives for the requested subnet, or misbehaves as `mode` says.
 */
export async function fakeAggregator(setFor: (subnetId: string) => Promise<CanonicalSet>): Promise<FakeAggregator> {
  // The dev network's keys: the local signers and its own stakers (src/dev/signers.ts).
  const keys = new Map(devNetworkSecretKeys().map((sk) => [Buffer.from(publicKeyOf(sk)).toString("hex"), sk]));
  const a = {mode: "valid" as AggregatorMode} as FakeAggregator;
  const s = await serve(async (path, body) => {
    const icm = path.endsWith("/aggregate-signatures");
    if (!icm && !/^\/v1\/signatureAggregator\/[^/]+\/aggregateSignatures$/.test(path))
      return {status: 404, json: {message: "no route"}};
    const b = body as Record<string, unknown>;
    const message = String(icm ? b.message : b.message);
    const subnetId = String(icm ? b["signing-subnet-id"] : b.signingSubnetId);
    const field = icm ? "signed-message" : "signedMessage";
    const unsigned = Uint8Array.from(Buffer.from(message.replace(/^0x/, ""), "hex"));
    switch (a.mode) {
      case "http500":
        return {
          status: 500,
          json: icm ? {error: "failed to aggregate"} : {message: "aggregation failed upstream", statusCode: 500},
        };
      case "hang":
        return "hang";
      case "garbage":
        return {json: {[field]: "0xnot-hex-at-all"}};
      case "nofield":
        return {raw: "<html>gateway</html>"};
      default:
    }
    const set = await setFor(subnetId);
    const indices: number[] = [];
    const sigs: Uint8Array[] = [];
    const signed =
      a.mode === "other"
        ? Uint8Array.from([...unsigned.slice(0, unsigned.length - 1), unsigned[unsigned.length - 1]! ^ 1])
        : unsigned;
    set.validators.forEach((v, i) => {
      const sk = keys.get(Buffer.from(v.publicKey).toString("hex"));
      if (!sk) return;
      indices.push(i);
      sigs.push(sign(a.mode === "badsig" ? localSecretKey(99) : sk, signed));
    });
    const out = serializeSignedMessage(signed, indices, aggregateSignatures(sigs));
    const h = Buffer.from(out).toString("hex");
    return {json: {[field]: icm ? h : "0x" + h}};
  });
  return Object.assign(a, s);
}
