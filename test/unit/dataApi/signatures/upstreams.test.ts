/**
 * The signature sources that talk to other services, over the real wire against small fake servers: validator nodes'
 * warp RPC (WarpSigners through aggregate()), an external aggregator in icm-services format, and validator sets
 * from a P-chain node.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {WarpSigners} from "../../../../src/dataApi/signatures/warpSigners.js";
import {ExternalAggregator} from "../../../../src/dataApi/signatures/externalAggregator.js";
import {PlatformRpcValidatorSets} from "../../../../src/dataApi/signatures/platformRpc.js";
import {HeightError} from "../../../../src/dataApi/signatures/validatorSets.js";
import {badUpstreamUrl, redactUrl, redactUrls, withoutCredentials} from "../../../../src/util/url.js";
import {DataApiError} from "../../../../src/dataApi/server/errors.js";
import {aggregate, verifySignedMessage} from "../../../../src/warp/aggregator.js";
import {publicKeyOf} from "../../../../src/warp/bls.js";
import {localSecretKey} from "../../../../src/dev/signers.js";
import {serializeUnsignedMessage} from "../../../../src/warp/message.js";
import {canonicalValidatorSet, type CanonicalSet} from "../../../../src/warp/validators.js";
import {cb58Encode, EMPTY_ID} from "../../../../src/util/cb58.js";
import {
  fakeAggregator,
  fakePChain,
  fakeValidator,
  KnownMessages,
  type FakeAggregator,
  type FakePChain,
  type FakeValidator,
} from "../../../helpers/fakeUpstreams.js";

const CHAIN = new Uint8Array(32).fill(7);
const msg = (text: string, chain = CHAIN): Uint8Array =>
  serializeUnsignedMessage({networkId: 5, sourceChainId: chain, payload: new TextEncoder().encode(text)});
const setOf = (signers: number[], extra: Array<{weight: bigint}> = []): CanonicalSet =>
  canonicalValidatorSet([
    ...signers.map((n) => ({nodeId: `NodeID-${n}`, weight: 100n, blsPublicKey: publicKeyOf(localSecretKey(n))})),
    ...extra.map((e, i) => ({nodeId: `NodeID-x${i}`, weight: e.weight, blsPublicKey: null})),
  ]);

describe("WarpSigners (validator nodes' warp RPC)", () => {
  const known = new KnownMessages();
  let nodes: FakeValidator[];
  let source: WarpSigners;
  beforeAll(async () => {
    nodes = await Promise.all([1, 2, 3, 4, 5].map((n) => fakeValidator(n, known)));
    // The fifth URL is a port nothing listens on. The fakes sign in this process: at a 500 ms bound a busy machine
    // timed their answers out (a hanging node is ended by the caller's abort below, not by this bound).
    source = new WarpSigners(
      {urls: [...nodes.map((n) => n.url), "http://127.0.0.1:9"], timeoutMs: 10_000, keyRetryMs: 0},
      {logger: null},
    );
  });
  afterAll(async () => Promise.all(nodes.map((n) => n.close())));
  const reset = (): void => nodes.forEach((n) => (n.mode = "sign"));

  it("collects the nodes' signatures, asks by the message ID in CB58 on the source chain's path, learns each key once", async () => {
    reset();
    const unsigned = msg("one");
    known.add(unsigned);
    const set = setOf([1, 2, 3, 4, 5]);
    const r = await aggregate({unsigned, set, quorumNum: 100, bufferPercent: 0, sources: [source]});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.signerIndices).toEqual([0, 1, 2, 3, 4]);
    expect(verifySignedMessage(r.signed, set, 100, unsigned).ok).toBe(true);
    const call = nodes[0]!.calls.find((c) => c.method === "warp_getMessageSignature")!;
    expect(call.path).toBe(`/ext/bc/${cb58Encode(CHAIN)}/rpc`);
    expect(typeof (call.params as string[])[0]).toBe("string");
    await aggregate({unsigned: msg("two"), set, quorumNum: 67, bufferPercent: 0, sources: [source]});
    expect(nodes[0]!.calls.filter((c) => c.method === "info.getNodeID")).toHaveLength(1);
  });

  it("counts a node's garbage signature invalid and still reaches quorum with the others; refusals are reported", async () => {
    reset();
    const unsigned = msg("garbage");
    known.add(unsigned);
    nodes[4]!.mode = "garbage";
    nodes[3]!.mode = "nothex";
    const set = setOf([1, 2, 3, 4, 5]);
    const ok = await aggregate({unsigned, set, quorumNum: 60, bufferPercent: 0, sources: [source]});
    expect(ok.ok).toBe(true);
    expect(ok.ok && ok.signerIndices.length).toBe(3);
    nodes[2]!.mode = "refuse";
    const short = await aggregate({unsigned, set, quorumNum: 60, bufferPercent: 0, sources: [source]});
    expect(short.ok).toBe(false);
    expect(short.invalid).toBe(2);
    expect(short.refusals.map((x) => x.reason).sort()).toEqual([
      "invalid signature",
      "invalid signature",
      "warp_getMessageSignature: failed to get signature: not found",
    ]);
  });

  it("answers only for validators of the request's set, nothing for a P-chain message, and stops on abort", async () => {
    reset();
    const unsigned = msg("subset");
    known.add(unsigned);
    const r = await aggregate({
      unsigned,
      set: setOf([2, 3], [{weight: 100n}]),
      quorumNum: 60,
      bufferPercent: 0,
      sources: [source],
    });
    expect(r.ok && r.signerIndices).toEqual([0, 1]);
    const p = msg("p-chain", new Uint8Array(32));
    const before = nodes[0]!.calls.length;
    const none = await aggregate({unsigned: p, set: setOf([1, 2]), quorumNum: 67, bufferPercent: 0, sources: [source]});
    expect(none.ok).toBe(false);
    expect(nodes[0]!.calls.length).toBe(before);
    nodes.forEach((n) => (n.mode = "hang"));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const t0 = Date.now();
    const aborted = await aggregate({
      unsigned,
      set: setOf([1, 2, 3]),
      quorumNum: 67,
      bufferPercent: 0,
      sources: [source],
      signal: ac.signal,
    });
    expect(aborted.ok).toBe(false);
    expect(Date.now() - t0).toBeLessThan(400);
  });

  it("asks again for a key it could not learn", async () => {
    reset();
    const known2 = new KnownMessages();
    const node = await fakeValidator(1, known2);
    try {
      node.mode = "nokey";
      const s = new WarpSigners({urls: [node.url], timeoutMs: 10_000, keyRetryMs: 0}, {logger: null});
      const unsigned = msg("retry");
      known2.add(unsigned);
      expect((await aggregate({unsigned, set: setOf([1]), quorumNum: 67, bufferPercent: 0, sources: [s]})).ok).toBe(
        false,
      );
      node.mode = "sign";
      expect((await aggregate({unsigned, set: setOf([1]), quorumNum: 67, bufferPercent: 0, sources: [s]})).ok).toBe(
        true,
      );
    } finally {
      await node.close();
    }
  });
});

describe("ExternalAggregator", () => {
  let agg: FakeAggregator;
  const set = setOf([1, 2, 3]);
  beforeAll(async () => {
    agg = await fakeAggregator(async () => set);
  });
  afterAll(async () => agg.close());

  it("speaks icm-services' format when the URL ends in /aggregate-signatures, with basic auth from the URL", async () => {
    const url = new URL(agg.url);
    const ext = new ExternalAggregator({
      url: `http://op:s3cret@${url.host}/v1/aggregate-signatures`,
      network: "fuji",
      timeoutMs: 10_000,
    });
    expect(ext.format).toBe("icm-services");
    expect(ext.label).not.toMatch(/s3cret/);
    const unsigned = msg("ext");
    agg.mode = "valid";
    const signed = await ext.signedMessage({
      unsigned,
      justification: Uint8Array.of(1, 2),
      subnetId: EMPTY_ID,
      quorumPercentage: 67,
      pChainHeight: 0n,
    });
    expect(verifySignedMessage(signed, set, 67, unsigned).ok).toBe(true);
    const call = agg.calls.at(-1)!;
    expect(call.body).toEqual({
      message: Buffer.from(unsigned).toString("hex"),
      justification: "0102",
      "signing-subnet-id": EMPTY_ID,
      "quorum-percentage": 67,
    });
    expect(call.authorization).toBe("Basic " + Buffer.from("op:s3cret").toString("base64"));
    agg.mode = "http500";
    const e = await ext
      .signedMessage({unsigned, justification: undefined, subnetId: EMPTY_ID, quorumPercentage: 67, pChainHeight: 0n})
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DataApiError);
    expect((e as DataApiError).status).toBe(502);
    expect((e as DataApiError).message).toBe(
      "the signature aggregator (--signature-aggregator-url): HTTP 500: failed to aggregate",
    );
  });

  it("speaks the Data API's format otherwise", async () => {
    const ext = new ExternalAggregator({url: agg.url + "/", network: "fuji", timeoutMs: 10_000});
    expect(ext.format).toBe("data-api");
    agg.mode = "valid";
    const unsigned = msg("data api");
    await ext.signedMessage({
      unsigned,
      justification: undefined,
      subnetId: EMPTY_ID,
      quorumPercentage: 80,
      pChainHeight: 7n,
    });
    const call = agg.calls.at(-1)!;
    expect(call.path).toBe("/v1/signatureAggregator/fuji/aggregateSignatures");
    expect(call.body).toEqual({
      message: "0x" + Buffer.from(unsigned).toString("hex"),
      signingSubnetId: EMPTY_ID,
      quorumPercentage: 80,
      pChainHeight: 7,
    });
  });
});

describe("PlatformRpcValidatorSets", () => {
  let p: FakePChain;
  beforeAll(async () => {
    p = await fakePChain();
  });
  afterAll(async () => p.close());

  it("builds the canonical set from getValidatorsAt (both answer formats), keyless validators in the total", async () => {
    p.sets.set("S1", [
      {nodeId: "NodeID-a", weight: 100n, signer: 2},
      {nodeId: "NodeID-b", weight: 50n, signer: null},
      {nodeId: "NodeID-c", weight: 100n, signer: 1},
    ]);
    const sets = new PlatformRpcValidatorSets({url: p.url, timeoutMs: 10_000, cacheSize: 4}, {fallback: null});
    const at = await sets.setAt("S1", 0n);
    expect(at.height).toBe(100n);
    expect(at.set.totalWeight).toBe(250n);
    // Canonical order (uncompressed key), as a set built from the same keys here.
    const byNode: Record<string, string> = {"NodeID-1": "NodeID-c", "NodeID-2": "NodeID-a"};
    expect(at.set.validators.map((v) => v.nodeIds)).toEqual(
      setOf([1, 2]).validators.map((v) => [byNode[v.nodeIds[0]!]]),
    );
    const calls = p.calls.length;
    await sets.setAt("S1", 100n);
    expect(p.calls.length).toBe(calls + 1); // getHeight only: the set at 100 is kept
    p.legacy = true;
    const old = await sets.setAt("S1", 99n);
    expect(old.set.validators).toHaveLength(0);
    expect(old.set.totalWeight).toBe(250n);
    p.legacy = false;
    await expect(sets.setAt("S1", 101n)).rejects.toBeInstanceOf(HeightError);
  });

  it("asks validatedBy for a chain the fallback does not know; a failing node is a 502 naming it", async () => {
    p.chains.set("ChainX", "S1");
    const sets = new PlatformRpcValidatorSets(
      {url: p.url, timeoutMs: 10_000, cacheSize: 4},
      {
        fallback: {
          name: "view",
          setAt: async () => Promise.reject(new Error("no")),
          subnetOf: async (c) => (c === "Known" ? "S0" : null),
        },
      },
    );
    expect(await sets.subnetOf("Known")).toBe("S0");
    expect(await sets.subnetOf("ChainX")).toBe("S1");
    expect(await sets.subnetOf("ChainY")).toBeNull();
    p.failing = true;
    const e = await sets.setAt("S1", 0n).catch((x: unknown) => x);
    p.failing = false;
    expect((e as DataApiError).status).toBe(502);
    expect((e as DataApiError).message).toMatch(
      /^the P-chain RPC \(--platform-rpc\): platform.getHeight: HTTP 500, the answer is not JSON/,
    );
  });
});

describe("upstream URLs", () => {
  it("are checked and shown without credentials", () => {
    expect(badUpstreamUrl("http://127.0.0.1:9650")).toBeNull();
    expect(badUpstreamUrl("ftp://x")).toMatch(/not an http\(s\) URL/);
    expect(badUpstreamUrl("nope")).toMatch(/not a URL/);
    expect(redactUrl("https://u:p@glacier.example/x?token=1")).toBe("https://glacier.example/…");
  });

  it("are shown redacted wherever they sit in a flag's value", () => {
    expect(redactUrls("C=https://u:p@node.example/ext/bc/C/rpc?k=1,99999=http://127.0.0.1:8545/v3/KEY")).toBe(
      "C=https://node.example/ext/bc/C/rpc,99999=http://127.0.0.1:8545/…",
    );
    expect(redactUrls("postgres://avaext:hunter2@db.example:5432/avaext")).toBe("postgres://db.example:5432/…");
    expect(redactUrls("embedded")).toBe("embedded");
    expect(redactUrls("C=HTTPS://u:SECRET@h.example/v3/KEY")).toBe("C=https://h.example/…");
  });

  it("send their credentials as basic auth, not in the URL", () => {
    const {url, headers} = withoutCredentials("https://us%40er:p%3Ass@node.example/ext/bc/C/rpc");
    expect(url.toString()).toBe("https://node.example/ext/bc/C/rpc");
    expect(headers.authorization).toBe("Basic " + Buffer.from("us@er:p:ss").toString("base64"));
    expect(withoutCredentials("http://127.0.0.1:9650").headers).toEqual({});
  });
});
