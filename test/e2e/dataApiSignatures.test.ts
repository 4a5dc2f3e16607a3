/**
 * Signature aggregation on a real (non-dev) network over the real wire: a fuji node whose signatures come from
 * validator nodes' warp RPC (--warp-signer-urls), an external aggregator (--signature-aggregator-url) whose every
 * answer is checked against the node's own set, and validator sets from a P-chain node (--platform-rpc). The
 * validator nodes, P-chain node and aggregator are small real HTTP servers (test/helpers/fakeUpstreams.ts) signing
 * with AvalancheGo's local BLS keys; every signed message returned is verified again with @noble/curves.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {bls12_381} from "@noble/curves/bls12-381.js";
import {NETWORKS} from "../../src/chains/index.js";
import {LOCAL_VALIDATORS} from "../../src/dev/primaryNetwork.js";
import {validatorSetAt} from "../../src/dataApi/signatures/validatorSets.js";
import {hexToBytes} from "../../src/evm/hex.js";
import {cb58Encode, EMPTY_ID, idFromString} from "../../src/util/cb58.js";
import {sha256} from "../../src/util/sha256.js";
import {devStakerSecretKey} from "../../src/dev/signers.js";
import {parseSignedMessage, pChainUnsignedMessage, serializeUnsignedMessage} from "../../src/warp/message.js";
import {startNode, type HttpResult, type TestNode} from "../helpers/node.js";
import {devPublicKey, type DevKeyName} from "../helpers/devKeys.js";
import {
  fakeAggregator,
  fakePChain,
  fakeValidator,
  KnownMessages,
  type FakeAggregator,
  type FakePChain,
  type FakeValidator,
} from "../helpers/fakeUpstreams.js";

const FUJI = NETWORKS.fuji;
const C = idFromString(FUJI.chainIds.C);
const message = (text: string, chain: Uint8Array = C): Uint8Array =>
  serializeUnsignedMessage({networkId: FUJI.id, sourceChainId: chain, payload: new TextEncoder().encode(text)});
const hex = (b: Uint8Array): string => "0x" + Buffer.from(b).toString("hex");

/**
 * Checks a signed message with noble alone: its signers are entries of the canonical set of the dev keys `set`
 * (local signers 1-5, dev stakers "s1".."s4"); returns their names, sorted.
 */
function nobleVerify(signedHex: string, expectedUnsigned: Uint8Array, set: DevKeyName[]): DevKeyName[] {
  const m = parseSignedMessage(hexToBytes(signedHex));
  expect(hex(m.unsignedBytes)).toBe(hex(expectedUnsigned));
  const noble = bls12_381.longSignatures;
  const keys = set.map((n) => ({n, key: devPublicKey(n)}));
  keys.sort((x, y) => Buffer.compare(Buffer.from(x.key.toBytes(false)), Buffer.from(y.key.toBytes(false))));
  const signers = m.signerIndices.map((i) => keys[i]!);
  expect(
    noble.verify(
      bls12_381.G2.Point.fromBytes(m.signature),
      noble.hash(m.unsignedBytes, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"),
      noble.aggregatePublicKeys(signers.map((s) => s.key)),
    ),
  ).toBe(true);
  return signers.map((s) => s.n).sort();
}

const known = new KnownMessages();
let validators: FakeValidator[] = [];
const setMode = (mode: FakeValidator["mode"]): void => validators.forEach((v) => (v.mode = mode));

beforeAll(async () => {
  // The local signers 1-5, then the dev network's first own staker, which validates from the first tick.
  validators = await Promise.all([
    ...[1, 2, 3, 4, 5].map((n) => fakeValidator(n, known)),
    fakeValidator(devStakerSecretKey(1), known),
  ]);
});
afterAll(async () => Promise.all(validators.map((v) => v.close())));

const post = (t: TestNode, body: unknown): Promise<HttpResult> =>
  t.post("/v1/signatureAggregator/fuji/aggregateSignatures", JSON.stringify(body), {
    "content-type": "application/json",
  });
const messageOf = (r: HttpResult): string => (r.json() as {message: string}).message;

describe("fuji: validator nodes' warp RPC, then an external aggregator (P-chain view sets)", () => {
  let t: TestNode;
  let agg: FakeAggregator;

  beforeAll(async () => {
    agg = await fakeAggregator(async (subnetId) => (await validatorSetAt(t.node.dataApi!.sql, subnetId, 0n)).set);
    const port = new URL(agg.url).port;
    t = await startNode({
      "network-id": "fuji",
      feed: "dev",
      "dev-evm": false,
      "dev-backfill": "3h", // 36 ticks: the L1 conversion is tick 30
      "index-enabled": true,
      "data-api-enabled": true,
      "data-api-rate-limit": "0",
      "warp-signer-urls": validators.map((v) => v.url).join(","),
      "signature-aggregator-url": `http://op:s3cret@127.0.0.1:${port}`,
      "signature-aggregator-timeout": "1s",
    });
    // The view must have folded the conversion.
    const deadline = Date.now() + 60_000;
    while (
      (await t.node.dataApi!.sql.query("SELECT 1 FROM txs WHERE chain = 'P' AND tx_type = 'ConvertSubnetToL1Tx'"))
        .length === 0
    ) {
      if (Date.now() > deadline) throw new Error("the view did not fold the L1 conversion");
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await agg?.close();
  });

  it("aggregates the validator nodes' signatures of a C-chain message (endpoint 1); a node's garbage does not count", async () => {
    setMode("sign");
    const unsigned = message("hello from fuji C");
    known.add(unsigned);
    const calls = agg.calls.length;
    const r = await post(t, {message: hex(unsigned)});
    expect(r.status, r.text).toBe(201);
    // The primary network: the five genesis validators (genesis_local's 2,000,000 AVAX each, some delegated to)
    // and the dev network's own first one (2,000 AVAX and 100 delegated): four genesis validators are a quorum.
    const primary: DevKeyName[] = [1, 2, 3, 4, 5, "s1"];
    expect(
      nobleVerify((r.json() as {signedMessage: string}).signedMessage, unsigned, primary).length,
    ).toBeGreaterThanOrEqual(4);
    validators[4]!.mode = "garbage";
    const g = await post(t, {message: hex(unsigned), quorumPercentage: 80});
    expect(g.status, g.text).toBe(201);
    expect(nobleVerify((g.json() as {signedMessage: string}).signedMessage, unsigned, primary)).toEqual([
      1,
      2,
      3,
      4,
      "s1",
    ]);
    expect(agg.calls.length).toBe(calls); // quorum was reached here: the aggregator was not asked
  });

  it("falls back to the external aggregator when the nodes refuse, and checks its answer", async () => {
    setMode("refuse");
    const unsigned = message("only the aggregator has it");
    agg.mode = "valid";
    const r = await post(t, {message: hex(unsigned), quorumPercentage: 70});
    expect(r.status, r.text).toBe(201);
    expect(nobleVerify((r.json() as {signedMessage: string}).signedMessage, unsigned, [1, 2, 3, 4, 5, "s1"])).toEqual([
      1,
      2,
      3,
      4,
      5,
      "s1",
    ]);
    const call = agg.calls.at(-1)!;
    expect(call.path).toBe("/v1/signatureAggregator/fuji/aggregateSignatures");
    expect(call.body).toMatchObject({message: hex(unsigned), signingSubnetId: EMPTY_ID, quorumPercentage: 70});
    expect(call.authorization).toBe("Basic " + Buffer.from("op:s3cret").toString("base64"));

    const bad: Array<[FakeAggregator["mode"], RegExp]> = [
      [
        "badsig",
        /its signed message does not verify against subnet 11111111111111111111111111111111LpoYY's validators at P-chain height \d+: the aggregate signature does not verify/,
      ],
      ["other", /its signed message does not verify .*: the signed message is not the message asked for/],
      ["garbage", /"signedMessage" is not hex: 0xnot-hex-at-all/],
      ["nofield", /HTTP 200, the answer is not JSON: <html>gateway<\/html>/],
      ["http500", /HTTP 500: aggregation failed upstream/],
      ["hang", /no answer within 1000 ms/],
    ];
    for (const [mode, reason] of bad) {
      agg.mode = mode;
      const b = await post(t, {message: hex(unsigned)});
      expect(b.status, `${mode}: ${b.text}`).toBe(502);
      expect(b.json()).toMatchObject({statusCode: 502, error: "Bad Gateway"});
      expect(messageOf(b).startsWith("the signature aggregator (--signature-aggregator-url): "), messageOf(b)).toBe(
        true,
      );
      expect(messageOf(b)).not.toContain("127.0.0.1");
      expect(messageOf(b)).toMatch(reason);
      expect(b.text).not.toMatch(/s3cret|op:/);
    }
    // Still serving, and the aggregator's next good answer goes through.
    agg.mode = "valid";
    expect((await post(t, {message: hex(unsigned)})).status).toBe(201);
    expect((await t.get("/v1/chains")).status).toBe(200);
  }, 120_000);

  it("signs the P-chain's L1 conversion message through the aggregator only (endpoint 2): nodes do not sign P-chain messages over RPC", async () => {
    setMode("sign");
    const [conv] = await t.node.dataApi!.sql.query<{tx_id: string; details: {conversion: {conversionId: string}}}>(
      "SELECT tx_id, details FROM txs WHERE chain = 'P' AND tx_type = 'ConvertSubnetToL1Tx'",
    );
    const unsigned = pChainUnsignedMessage(FUJI.id, {
      type: "SubnetToL1Conversion",
      conversionId: idFromString(conv!.details.conversion.conversionId),
    });
    const active = await t.node.dataApi!.sql.query<{node_id: string}>(
      "SELECT node_id FROM l1_validators WHERE active AND weight > 0",
    );
    const l1Signers = active.map((v) => LOCAL_VALIDATORS.indexOf(v.node_id) + 1);
    expect(l1Signers.length).toBeGreaterThanOrEqual(2);
    const warpCalls = validators[0]!.calls.filter((c) => c.method === "warp_getMessageSignature").length;
    agg.mode = "valid";
    const r = await t.get(`/v1/signatureAggregator/fuji/aggregateSignatures/${conv!.tx_id}`);
    expect(r.status, r.text).toBe(201);
    expect(nobleVerify((r.json() as {signedMessage: string}).signedMessage, unsigned, l1Signers)).toEqual(
      [...l1Signers].sort(),
    );
    expect(validators[0]!.calls.filter((c) => c.method === "warp_getMessageSignature").length).toBe(warpCalls);
    agg.mode = "http500";
    const e = await t.get(`/v1/signatureAggregator/fuji/aggregateSignatures/${conv!.tx_id}`);
    expect(e.status).toBe(502);
    expect(messageOf(e)).toBe(
      "the signature aggregator (--signature-aggregator-url): HTTP 500: aggregation failed upstream",
    );
  });
});

describe("fuji: validator sets from a P-chain node (--platform-rpc), no external aggregator", () => {
  let t: TestNode;
  let p: FakePChain;
  const subnet = cb58Encode(sha256(new TextEncoder().encode("a subnet only the P-chain node knows")));
  const chain = sha256(new TextEncoder().encode("its chain"));

  beforeAll(async () => {
    p = await fakePChain();
    p.height = 1000n;
    p.sets.set(EMPTY_ID, [
      ...[1, 2, 3, 4, 5].map((n) => ({nodeId: LOCAL_VALIDATORS[n - 1]!, weight: 100n, signer: n})),
      {nodeId: "NodeID-keyless", weight: 50n, signer: null},
    ]);
    p.sets.set(
      subnet,
      [1, 2, 3].map((n) => ({nodeId: LOCAL_VALIDATORS[n - 1]!, weight: 100n, signer: n})),
    );
    p.chains.set(cb58Encode(chain), subnet);
    t = await startNode({
      "network-id": "fuji",
      feed: "dev",
      "dev-evm": false,
      "dev-backfill": "0",
      "index-enabled": true,
      "data-api-enabled": true,
      "data-api-rate-limit": "0",
      "warp-signer-urls": validators.map((v) => v.url).join(","),
      "platform-rpc": p.url + "/",
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await p?.close();
  });

  it("signs a message of a chain only the P-chain node knows, with that subnet's set", async () => {
    setMode("sign");
    const unsigned = message("from an L1", chain);
    known.add(unsigned);
    const r = await post(t, {message: hex(unsigned), quorumPercentage: 100});
    expect(r.status, r.text).toBe(201);
    expect(nobleVerify((r.json() as {signedMessage: string}).signedMessage, unsigned, [1, 2, 3])).toEqual([1, 2, 3]);
    expect(p.calls.some((c) => c.method === "platform.validatedBy")).toBe(true);
    expect(p.calls.find((c) => c.method === "platform.getValidatorsAt")?.params).toEqual({
      height: "1000",
      subnetID: subnet,
    });
  });

  it("answers 503 when the nodes fall short, 400 past the node's height, 502 when the P-chain node fails", async () => {
    setMode("sign");
    const unknown = message("never seen", chain);
    const r = await post(t, {message: hex(unknown)});
    expect(r.status).toBe(503);
    expect(messageOf(r)).toBe(
      `collected 0% of subnet ${subnet} at P-chain height 1000, 67% required; 3 validators refused: warp_getMessageSignature: failed to get signature: not found`,
    );
    // A P-chain message: validator nodes sign those only peer-to-peer, and there is no aggregator.
    const pMsg = serializeUnsignedMessage({
      networkId: FUJI.id,
      sourceChainId: new Uint8Array(32),
      payload: Uint8Array.of(1),
    });
    const pr = await post(t, {message: hex(pMsg)});
    expect(pr.status).toBe(503);
    expect(messageOf(pr)).toMatch(
      /^collected 0% of subnet 11111111111111111111111111111111LpoYY at P-chain height 1000, 67% required; 5 validators refused: no answer$/,
    );
    const h = await post(t, {message: hex(unknown), pChainHeight: 1001});
    expect(h.status).toBe(400);
    expect(messageOf(h)).toBe(
      "pChainHeight: P-chain height 1001 is past the P-chain RPC's (--platform-rpc) height (1000)",
    );
    p.failing = true;
    const f = await post(t, {message: hex(unknown)});
    p.failing = false;
    expect(f.status).toBe(502);
    expect(messageOf(f), messageOf(f)).toBe(
      "the P-chain RPC (--platform-rpc): platform.getHeight: HTTP 500, the answer is not JSON: internal error",
    );
    expect((await post(t, {message: hex(message("from an L1", chain))})).status).toBe(201);
  });
});

describe("signature flags at start-up", () => {
  it("refuses URLs that do not parse or are not http(s), naming the flag", async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        {"warp-signer-urls": "http://127.0.0.1:9650,ftp://10.0.0.5"},
        /invalid value for --warp-signer-urls: "ftp:\/\/10\.0\.0\.5" is not an http\(s\) URL/,
      ],
      [
        {"signature-aggregator-url": "not a url"},
        /invalid value for --signature-aggregator-url: "not a url" is not a URL/,
      ],
      [{"platform-rpc": "ws://127.0.0.1:9650"}, /invalid value for --platform-rpc: .* is not an http\(s\) URL/],
      [
        {"signature-aggregator-timeout": "0s"},
        /invalid value for --signature-aggregator-timeout: must be greater than 0/,
      ],
    ];
    for (const [flags, error] of cases)
      await expect(startNode({"network-id": "fuji", ...flags})).rejects.toThrow(error);
  });
});
