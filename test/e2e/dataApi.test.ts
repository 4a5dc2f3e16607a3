/**
 * The data API over the real wire, on both store backends (PGlite embedded, and a real PostgreSQL server started by
 * the test setup): a node on the dev network folds its container index into the store and answers /v1; lists page
 * through every block exactly once; blocks and transactions agree with the index; every bad parameter is a 400 or
 * 404 naming it, never a 500; page tokens are bound to their endpoint and filters; keys, rate limits, the serve
 * role and the writer lock behave as the contract says.
 */
import {readFileSync, writeFileSync} from "node:fs";
import http from "node:http";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {formatAddress} from "../../src/dataApi/server/names.js";
import {bls12_381} from "@noble/curves/bls12-381.js";
import {bytesToHex, hexToBytes} from "../../src/evm/hex.js";
import {idFromString} from "../../src/util/cb58.js";
import {
  parseAddressedCall,
  parsePChainMessage,
  parseSignedMessage,
  pChainUnsignedMessage,
  type SignedMessage,
} from "../../src/warp/message.js";
import {DEV_L1_MANAGER, LOCAL_VALIDATORS, devKeys, devStakers} from "../../src/dev/primaryNetwork.js";
import {decodeAbi, eventTopic} from "../../src/evm/abi.js";
import {createTestDatabase, STORE_BACKENDS} from "../helpers/sql.js";
import {ValidatorSetCache, validatorSetAt} from "../../src/dataApi/signatures/validatorSets.js";
import {BlsKeyCache} from "../../src/warp/validators.js";
import {DataApiError} from "../../src/dataApi/server/errors.js";
import {EMPTY_ID} from "../../src/util/cb58.js";
import {V1_ROUTE_FAMILIES} from "../../src/dataApi/routes/defs/index.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

/** POSTs `body` and resolves with the answer as soon as it arrives, though the server close before reading it all. */
function postUnread(t: TestNode, p: string, body: Buffer): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(p, t.url),
      {method: "POST", headers: {"content-type": "application/json", "content-length": body.length}},
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8")}));
        res.on("error", () => resolve({status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8")}));
      },
    );
    req.on("error", (e) => setTimeout(() => reject(e), 200));
    req.end(body);
  });
}

/**
 * POSTs `total` bytes chunked (no content-length), a chunk at a time while the socket takes them, and resolves with
 * the answer as soon as it arrives; a write error after the answer (the server closed) is expected.
 */
function postChunked(
  t: TestNode,
  p: string,
  total: number,
): Promise<{status: number; text: string; connection?: string}> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      new URL(p, t.url),
      {method: "POST", headers: {"content-type": "application/json"}},
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        const done = (): void =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            connection: res.headers.connection,
          });
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", done);
        res.on("error", done);
      },
    );
    req.on("error", (e) => setTimeout(() => (answered ? undefined : reject(e)), 200));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < total && !answered && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (sent >= total && !req.destroyed) req.end();
    };
    pump();
  });
}

const MAINNET_ADDRESS = formatAddress(new Uint8Array(20).fill(7), "avax");
/** A local address nothing on the dev network pays or spends. */
const NOBODY = formatAddress(new Uint8Array(20).fill(9), "local");
// 53 ticks: past the dev schedule's L1 conversion (30), balance increase (40), registration (42), weight change (46)
// and disable (50).
const BACKFILL = "4h25m";
const DEV = {
  "network-id": "local",
  "index-enabled": true,
  feed: "dev",
  "dev-backfill": BACKFILL,
  "data-api-enabled": true,
};

/** Checks a signed message's aggregate with noble against the local signers `signers` (1-5) in canonical order. */
function verifiesWithLocal(m: SignedMessage, signers: number[]): boolean {
  const noble = bls12_381.longSignatures;
  const keys = signers.map((n) => noble.getPublicKey(new TextEncoder().encode(`AvalancheLocalNetworkValidator0${n}`)));
  keys.sort((x, y) => Buffer.compare(Buffer.from(x.toBytes(false)), Buffer.from(y.toBytes(false))));
  if (m.signerIndices.some((i) => i >= keys.length)) return false;
  return noble.verify(
    bls12_381.G2.Point.fromBytes(m.signature),
    noble.hash(m.unsignedBytes, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"),
    noble.aggregatePublicKeys(m.signerIndices.map((i) => keys[i]!)),
  );
}

interface ErrorBody {
  message: string;
  statusCode: number;
  error: string;
}

async function caughtUp(t: TestNode): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const view = t.node.dataApi?.view;
    const indexed = await t.rpc("/ext/index/P/block", "index.getLastAccepted", {encoding: "hex"});
    const ok =
      indexed.body.result !== undefined &&
      view !== null &&
      view !== undefined &&
      view.lag() === 0n &&
      Number((indexed.body.result as {index: string}).index) >= 40;
    if (ok) return;
    if (Date.now() > deadline) throw new Error("the data API view did not catch up");
    await new Promise((r) => setTimeout(r, 100));
  }
}

const BACKENDS = STORE_BACKENDS;

describe.each(BACKENDS)("data API over HTTP ($name)", (backend) => {
  let t: TestNode;
  let dbUrl: string;

  beforeAll(async () => {
    dbUrl = await backend.db();
    t = await startNode({...DEV, "data-api-db": dbUrl, "data-api-rate-limit": "0"});
    await caughtUp(t);
  }, 180_000);
  afterAll(async () => t?.close());

  it("pages through every P-chain block once, newest first, agreeing with the index", async () => {
    const last = await t.rpc("/ext/index/P/block", "index.getLastAccepted", {encoding: "hex"});
    const lastIndex = Number((last.body.result as {index: string}).index);
    const seen: Array<{
      blockNumber: string;
      blockHash: string;
      parentHash: string;
      proposerDetails: {proposerId: string};
    }> = [];
    let token: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = await t.get(
        `/v1/networks/local/blockchains/p-chain/blocks?pageSize=7${token ? `&pageToken=${token}` : ""}`,
      );
      expect(r.status).toBe(200);
      const body = r.json() as {blocks: typeof seen; nextPageToken?: string; chainInfo: unknown};
      expect(body.chainInfo).toEqual({chainName: "p-chain", network: "local"});
      seen.push(...body.blocks);
      token = body.nextPageToken;
      if (!token) break;
    }
    // Blocks folded after getLastAccepted may have been added: at least every block up to it, each once.
    expect(seen.length).toBeGreaterThanOrEqual(lastIndex + 1);
    const heights = seen.map((b) => Number(b.blockNumber));
    expect(new Set(heights).size).toBe(heights.length);
    heights.forEach((h, i) => expect(h).toBe(heights[0]! - i));
    // Inner blocks link to inner blocks; proposerDetails carries the index's container ID.
    for (let i = 0; i + 1 < seen.length; i++) expect(seen[i]!.parentHash).toBe(seen[i + 1]!.blockHash);
    const byIndex = await t.rpc("/ext/index/P/block", "index.getContainerByIndex", {index: "0", encoding: "hex"});
    expect(seen[seen.length - 1]!.proposerDetails.proposerId).toBe((byIndex.body.result as {id: string}).id);
  });

  it("answers a block by height and by ID, and its transactions by hash", async () => {
    const list = (await t.get("/v1/networks/local/blockchains/x-chain/blocks?pageSize=1")).json() as {
      blocks: Array<{blockNumber: string; blockHash: string; transactions: string[]}>;
    };
    const b = list.blocks[0]!;
    expect((await t.get(`/v1/networks/local/blockchains/x-chain/blocks/${b.blockNumber}`)).json()).toEqual(b);
    expect((await t.get(`/v1/networks/${"local"}/blockchains/x-chain/blocks/${b.blockHash}`)).json()).toEqual(b);
    for (const tx of b.transactions) {
      const r = await t.get(`/v1/networks/local/blockchains/x-chain/transactions/${tx}`);
      expect(r.status).toBe(200);
      expect((r.json() as {txHash: string}).txHash).toBe(tx);
    }
  });

  it("serves the aliases of a chain and testnet as fuji", async () => {
    const ids = ["p-chain", "P", "platform", "11111111111111111111111111111111LpoYY"];
    // The dev network keeps accepting blocks: the four answers agree once no block landed between them.
    const agree = async (): Promise<boolean> => {
      const answers = await Promise.all(
        ids.map(
          async (id) =>
            (await t.get(`/v1/networks/local/blockchains/${id}/blocks?pageSize=2`)).json() as {blocks: unknown[]},
        ),
      );
      expect(answers[0]!.blocks).toHaveLength(2);
      return answers.every((a) => JSON.stringify(a.blocks) === JSON.stringify(answers[0]!.blocks));
    };
    await expect.poll(agree, {timeout: 10_000}).toBe(true);
    const fuji = await t.get("/v1/networks/testnet/blockchains/p-chain/blocks");
    expect(fuji.status).toBe(404);
    expect((fuji.json() as ErrorBody).message).toBe("network testnet is not served here (this node follows local)");
  });

  it("answers every bad parameter with 400 or 404 naming it, never a 500", async () => {
    const P = "/v1/networks/local/blockchains/p-chain";
    const cases: Array<[string, number, RegExp]> = [
      [`${P}/blocks?pageSize=0`, 400, /^pageSize: must be an integer in \[1,100\]$/],
      [`${P}/blocks?pageSize=101`, 400, /^pageSize: /],
      [`${P}/blocks?pageSize=abc`, 400, /^pageSize: /],
      [`${P}/blocks?pageSize=-1`, 400, /^pageSize: /],
      [`${P}/blocks?startTimestamp=-5`, 400, /^startTimestamp: /],
      [`${P}/blocks?startTimestamp=20&endTimestamp=10`, 400, /^startTimestamp: must be <= endTimestamp/],
      [`${P}/blocks?endTimestamp=1.5`, 400, /^endTimestamp: /],
      [`${P}/blocks?pageToken=AAAA`, 400, /^pageToken: /],
      [`${P}/blocks?pageToken=%%%`, 400, /^pageToken: /],
      [`${P}/blocks/notablock`, 400, /^blockId: /],
      [`${P}/blocks/999999999`, 404, /not found/],
      [`${P}/transactions/xyz`, 400, /^txHash: /],
      [`${P}/transactions/2PFKtwnA8VGch1nGkSegxhqs9h6TQCADVFP9jnpDzZimJvbkyR`, 404, /not found/],
      [`${P}/transactions?txTypes=BaseTx`, 400, /^txTypes: needs the addresses filter$/],
      [`${P}/transactions?startTimestamp=1`, 400, /^startTimestamp: needs the addresses filter$/],
      [`${P}/transactions?addresses=local1qq`, 400, /^addresses: invalid address "local1qq"/],
      [
        `${P}/transactions?addresses=${MAINNET_ADDRESS}`,
        400,
        /^addresses: invalid address .*expected the local prefix/,
      ],
      [
        `${P}/transactions?addresses=local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u&txTypes=NoSuchTx`,
        400,
        /^txTypes: unknown value "NoSuchTx"$/,
      ],
      [`${P}/transactions?sortOrder=up`, 400, /^sortOrder: /],
      [`${P}/transactions?l1ValidationId=bad`, 400, /^l1ValidationId: /],
      [
        `/v1/networks/local/blockchains/x-chain/transactions?l1ValidationId=2PFKtwnA8VGch1nGkSegxhqs9h6TQCADVFP9jnpDzZimJvbkyR`,
        400,
        /^l1ValidationId: applies to the P-chain only$/,
      ],
      [`${P}/assets/abc/transactions`, 400, /^blockchainId: asset transactions serves the X-chain only$/],
      [`/v1/networks/local/blockchains/x-chain/assets/abc/transactions`, 400, /^assetId: /],
      [`${P}/utxos`, 400, /^addresses: required$/],
      [`${P}/utxos?addresses=local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u&sortBy=size`, 400, /^sortBy: /],
      [`${P}/utxos?addresses=local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u&includeSpent=maybe`, 400, /^includeSpent: /],
      [`/v1/networks/moon/blockchains/p-chain/blocks`, 400, /^network: unknown network "moon"/],
      [`/v1/networks/local/blockchains/z-chain/blocks`, 404, /^blockchain z-chain not found/],
      [`/v1/networks/local/blockchains/p-chain/nothing`, 404, /^no such path/],
      [`${P}/balances`, 400, /^addresses: required$/],
      [`${P}/balances?addresses=P-local1zzz`, 400, /^addresses: invalid address "P-local1zzz"/],
      [`${P}/assets/abc`, 400, /^blockchainId: asset details serves the X-chain only$/],
      [
        `/v1/networks/local/blockchains/x-chain/assets/2PFKtwnA8VGch1nGkSegxhqs9h6TQCADVFP9jnpDzZimJvbkyR`,
        404,
        /^asset .* not found$/,
      ],
      [`${P}/vertices:listByHeight?vertexHeight=1`, 400, /^blockchainId: vertices serves the X-chain only$/],
      [`/v1/networks/local/blockchains/x-chain/vertices:listByHeight`, 400, /^vertexHeight: required$/],
      [`/v1/networks/local/blockchains/x-chain/vertices:listByHeight?vertexHeight=-1`, 400, /^vertexHeight: /],
      [`/v1/networks/local/blockchains/x-chain/vertices/nope`, 400, /^vertexHash: /],
      [`/v1/networks/local/rewards:listPending`, 400, /^addresses: addresses or nodeIds is required$/],
      [`/v1/networks/local/rewards:listPending?nodeIds=Node-1`, 400, /^nodeIds: invalid node ID "Node-1"$/],
      [`/v1/networks/local/rewards`, 400, /^addresses: required$/],
      [`/v1/networks/local/validators?validationStatus=sleeping`, 400, /^validationStatus: unknown value "sleeping"/],
      [`/v1/networks/local/validators?subnetId=zz`, 400, /^subnetId: /],
      [`/v1/networks/local/validators/NodeID-xyz`, 400, /^nodeId: /],
      [`/v1/networks/local/delegators?rewardAddresses=local1bad`, 400, /^rewardAddresses: invalid address/],
      [`/v1/networks/local/delegators?delegationStatus=x`, 400, /^delegationStatus: /],
      [`/v1/networks/local/l1Validators?l1ValidationId=x`, 400, /^l1ValidationId: /],
      [`/v1/networks/local/l1Validators?nodeId=x`, 400, /^nodeId: /],
      [`/v1/networks/local/l1Validators?includeInactiveL1Validators=yes`, 400, /^includeInactiveL1Validators: /],
      [`/v1/networks/local/subnets/x`, 400, /^subnetId: /],
      [`/v1/networks/local/subnets/2PFKtwnA8VGch1nGkSegxhqs9h6TQCADVFP9jnpDzZimJvbkyR`, 404, /^subnet .* not found$/],
      [`/v1/networks/local/blockchains?sortOrder=sideways`, 400, /^sortOrder: /],
      [`/v1/networks/mainnet`, 404, /^network mainnet is not served here/],
      [`${P}/nodes/NodeID-xyz/blocks`, 400, /^nodeId: not a node ID: "NodeID-xyz"$/],
      [`${P}/nodes/NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg/blocks?pageSize=0`, 400, /^pageSize: /],
      [
        `${P}/nodes/NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg/blocks?startTimestamp=9&endTimestamp=1`,
        400,
        /^startTimestamp: must be <= endTimestamp/,
      ],
      [
        `/v1/networks/local/blockchains/x-chain/transactions:listStaking`,
        400,
        /^blockchainId: staking transactions serves the P-chain only$/,
      ],
      [`${P}/transactions:listStaking?addresses=local1qq`, 400, /^addresses: invalid address "local1qq"/],
      [`${P}/transactions:listStaking?txTypes=NoSuchTx`, 400, /^txTypes: unknown value "NoSuchTx"$/],
      [`${P}/transactions:listStaking?sortOrder=up`, 400, /^sortOrder: /],
      [`${P}/vertices`, 400, /^blockchainId: vertices serves the X-chain only$/],
      [`/v1/networks/local/blockchains/x-chain/vertices?pageSize=101`, 400, /^pageSize: /],
      [`/v1/networks/local/blockchains/not-an-id`, 400, /^blockchainId: not a blockchain ID: "not-an-id"$/],
      [
        `/v1/networks/local/blockchains/2PFKtwnA8VGch1nGkSegxhqs9h6TQCADVFP9jnpDzZimJvbkyR`,
        404,
        /^blockchain .* not found$/,
      ],
      [
        `/v1/networks/moon/blockchains/2PFKtwnA8VGch1nGkSegxhqs9h6TQCADVFP9jnpDzZimJvbkyR`,
        400,
        /^network: unknown network "moon"/,
      ],
      [`/v1/networks/local/addresses:listChainIds`, 400, /^addresses: required$/],
      [
        `/v1/networks/local/addresses:listChainIds?addresses=X-local1bad`,
        400,
        /^addresses: invalid address "X-local1bad"/,
      ],
      [
        `/v1/networks/local/addresses:listChainIds?addresses=${MAINNET_ADDRESS}`,
        400,
        /^addresses: invalid address .*expected the local prefix/,
      ],
      [`${P}/utxos?addresses=${NOBODY}&minUtxoAmount=-1`, 400, /^minUtxoAmount: not an amount: "-1"$/],
      [`${P}/utxos?addresses=${NOBODY}&minUtxoAmount=1e9`, 400, /^minUtxoAmount: /],
      [`${P}/lastActivityTimestampByAddresses`, 400, /^addresses: required$/],
      [`${P}/lastActivityTimestampByAddresses?addresses=local1qq`, 400, /^addresses: invalid address "local1qq"/],
      [
        `${P}/lastActivityTimestampByAddresses?addresses=${MAINNET_ADDRESS}`,
        400,
        /^addresses: invalid address .*expected the local prefix/,
      ],
      [
        `${P}/lastActivityTimestampByAddresses?addresses=${Array.from({length: 65}, () => NOBODY).join(",")}`,
        400,
        /^addresses: at most 64 addresses$/,
      ],
      [
        `${P}/lastActivityTimestampByAddresses?addresses=${NOBODY}`,
        404,
        /^activity of the addresses on the P-chain not found$/,
      ],
      [
        `/v1/networks/mainnet/blockchains/p-chain/lastActivityTimestampByAddresses?addresses=${NOBODY}`,
        404,
        /^network mainnet is not served here/,
      ],
      [
        `/v1/networks/local/blockchains/z-chain/lastActivityTimestampByAddresses?addresses=${NOBODY}`,
        404,
        /^blockchain z-chain not found/,
      ],
    ];
    for (const [p, status, message] of cases) {
      const r = await t.get(p);
      expect({p, status: r.status}).toEqual({p, status});
      const body = r.json() as ErrorBody;
      expect(body.statusCode).toBe(status);
      expect(body.error).toBe(status === 400 ? "Bad Request" : "Not Found");
      expect(body.message, p).toMatch(message);
      expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
    }
  });

  it("answers the POST address lists (utxos, lastActivityTimestampByAddresses) as their GETs, bad bodies with 400", async () => {
    const P = "/v1/networks/local/blockchains/p-chain";
    const owner = (
      (await t.get(`${P}/transactions?pageSize=20`)).json() as {
        transactions: Array<{emittedUtxos: Array<{addresses: string[]}>}>;
      }
    ).transactions.flatMap((tx) => tx.emittedUtxos.flatMap((u) => u.addresses))[0]!;
    const post = (p: string, body: string | Buffer): Promise<{status: number; json: () => unknown}> =>
      t.post(p, body as string, {"content-type": "application/json"});
    for (const route of ["utxos", "lastActivityTimestampByAddresses"]) {
      const get = await t.get(
        `${P}/${route}?addresses=${owner}${route === "utxos" ? "&includeSpent=true&pageSize=7" : ""}`,
      );
      expect(get.status, route).toBe(200);
      // The SDK's body (a comma list) and an array give the GET's answer.
      for (const addresses of [`${NOBODY},${owner}`.split(",").join(","), [owner, NOBODY]]) {
        const r = await post(
          `${P}/${route}${route === "utxos" ? "?includeSpent=true&pageSize=7" : ""}`,
          JSON.stringify({addresses}),
        );
        expect(r.status, route).toBe(200);
        if (route === "utxos")
          expect((r.json() as {utxos: unknown[]}).utxos).toEqual((get.json() as {utxos: unknown[]}).utxos);
        else expect(r.json()).toEqual(get.json());
      }
      const bad: Array<[string | Buffer, RegExp]> = [
        ["{not json", /^body: must be a JSON object$/],
        ["[]", /^body: must be a JSON object with addresses$/],
        ["null", /^body: must be a JSON object with addresses$/],
        ["{}", /^addresses: required$/],
        [JSON.stringify({addresses: 5}), /^addresses: must be a comma-separated string or an array of strings$/],
        [
          JSON.stringify({addresses: [owner, 5]}),
          /^addresses: must be a comma-separated string or an array of strings$/,
        ],
        [JSON.stringify({addresses: " , "}), /^addresses: required$/],
        [JSON.stringify({addresses: "local1qq"}), /^addresses: invalid address "local1qq"/],
        [JSON.stringify({addresses: MAINNET_ADDRESS}), /^addresses: invalid address .*expected the local prefix/],
        [
          JSON.stringify({addresses: Array.from({length: 257}, () => NOBODY).join(",")}),
          /^addresses: at most 256 addresses$/,
        ],
      ];
      for (const [body, message] of bad) {
        const r = await post(`${P}/${route}`, body);
        expect({route, body: body.toString().slice(0, 40), status: r.status}).toEqual({
          route,
          body: body.toString().slice(0, 40),
          status: 400,
        });
        expect((r.json() as ErrorBody).message).toMatch(message);
      }
      // A body past the limit: 413 with the error body, answered before the client has sent it all (the server
      // then closes), whether its length is declared or it comes chunked.
      const big = await postUnread(t, `${P}/${route}`, Buffer.alloc(1024 * 1024 + 10, 0x20));
      expect(big.status).toBe(413);
      expect(JSON.parse(big.text) as ErrorBody).toEqual({
        message: "body: larger than 1048576 bytes",
        statusCode: 413,
        error: "Payload Too Large",
      });
      const chunked = await postChunked(t, `${P}/${route}`, 4 * 1024 * 1024);
      expect(chunked.status).toBe(413);
      expect(chunked.connection).toBe("close");
      expect(JSON.parse(chunked.text) as ErrorBody).toEqual({
        message: "body: larger than 1048576 bytes",
        statusCode: 413,
        error: "Payload Too Large",
      });
      // As many addresses as a body takes, and the query's other parameters checked as the GET's.
      expect(
        (await post(`${P}/${route}`, JSON.stringify({addresses: Array.from({length: 256}, () => owner)}))).status,
      ).toBe(200);
      if (route === "utxos")
        expect(
          ((await post(`${P}/utxos?sortBy=size`, JSON.stringify({addresses: owner}))).json() as ErrorBody).message,
        ).toMatch(/^sortBy: /);
      expect(
        (await post(`/v1/networks/mainnet/blockchains/p-chain/${route}`, JSON.stringify({addresses: owner}))).status,
      ).toBe(404);
    }
    // Random bodies: never a 5xx.
    let st = 20261201;
    const rand = (): number => (st = (Math.imul(st, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const parts = [
      "{",
      "}",
      "[",
      "]",
      '"addresses"',
      ":",
      ",",
      owner,
      NOBODY,
      "null",
      "1e999",
      '"' + "a".repeat(500) + '"',
      "true",
      "\\u0000",
      '"x"',
    ];
    for (let i = 0; i < 300; i++) {
      const body = Array.from(
        {length: 1 + Math.floor(rand() * 8)},
        () => parts[Math.floor(rand() * parts.length)]!,
      ).join("");
      const r = await post(`${P}/${rand() < 0.5 ? "utxos" : "lastActivityTimestampByAddresses"}`, body);
      expect(r.status, body).toBeLessThan(500);
    }
  });

  it("answers the AVAX supply, and 405 to a POST", async () => {
    const r = await t.get("/v1/avax/supply");
    expect(r.status).toBe(200);
    expect(Object.keys(r.json() as object).sort()).toEqual([
      "circulatingSupply",
      "genesisUnlock",
      "l1ValidatorFees",
      "lastUpdated",
      "totalCBurned",
      "totalLocked",
      "totalPBurned",
      "totalRewards",
      "totalStaked",
      "totalSupply",
      "totalXBurned",
    ]);
    expect((await t.post("/v1/avax/supply", "{}", {"content-type": "application/json"})).status).toBe(405);
  });

  it("answers its OpenAPI document, the one docs/api/openapi.json holds", async () => {
    const r = await t.get("/v1/openapi.json");
    expect(r.status).toBe(200);
    expect(r.json()).toEqual(JSON.parse(readFileSync(path.resolve(__dirname, "../../docs/api/openapi.json"), "utf8")));
  });

  it("binds page tokens to the endpoint and its filters", async () => {
    const first = (await t.get("/v1/networks/local/blockchains/p-chain/blocks?pageSize=2&startTimestamp=0")).json() as {
      nextPageToken: string;
    };
    const token = first.nextPageToken;
    expect(token).toBeTruthy();
    expect(
      (await t.get(`/v1/networks/local/blockchains/p-chain/blocks?pageSize=2&startTimestamp=0&pageToken=${token}`))
        .status,
    ).toBe(200);
    // The same token with another filter, on another chain, or altered: 400.
    for (const p of [
      `/v1/networks/local/blockchains/p-chain/blocks?pageSize=2&startTimestamp=1&pageToken=${token}`,
      `/v1/networks/local/blockchains/x-chain/blocks?pageSize=2&startTimestamp=0&pageToken=${token}`,
      `/v1/networks/local/blockchains/p-chain/blocks?pageSize=2&startTimestamp=0&pageToken=${token.slice(0, -2)}${token.endsWith("A") ? "B" : "A"}A`,
    ]) {
      const r = await t.get(p);
      expect(r.status).toBe(400);
      expect((r.json() as ErrorBody).message).toMatch(/^pageToken: /);
    }
    // The page size may change between pages.
    expect(
      (await t.get(`/v1/networks/local/blockchains/p-chain/blocks?pageSize=5&startTimestamp=0&pageToken=${token}`))
        .status,
    ).toBe(200);
  });

  it("binds a POST's page tokens to the addresses in its body", async () => {
    const P = "/v1/networks/local/blockchains/p-chain";
    const txs = (
      (await t.get(`${P}/transactions?pageSize=50`)).json() as {
        transactions: Array<{emittedUtxos: Array<{addresses: string[]}>}>;
      }
    ).transactions;
    const owners = [...new Set(txs.flatMap((tx) => tx.emittedUtxos.flatMap((u) => u.addresses)))];
    expect(owners.length).toBeGreaterThanOrEqual(2);
    const post = (q: string, body: unknown): Promise<{status: number; json: () => unknown}> =>
      t.post(`${P}/utxos?includeSpent=true&pageSize=1${q}`, JSON.stringify(body), {"content-type": "application/json"});
    const first = (await post("", {addresses: owners[0]})).json() as {nextPageToken?: string};
    expect(first.nextPageToken).toBeTruthy();
    // The same body (an array, or keys in another order) takes the token; another address list is 400.
    expect((await post(`&pageToken=${first.nextPageToken}`, {addresses: owners[0]})).status).toBe(200);
    for (const body of [{addresses: owners[1]}, {addresses: `${owners[0]},${owners[1]}`}]) {
      const r = await post(`&pageToken=${first.nextPageToken}`, body);
      expect(r.status).toBe(400);
      expect((r.json() as ErrorBody).message).toMatch(/^pageToken: /);
    }
  });

  it("allows POST in the CORS preflight of the routes that take it, and only there", async () => {
    const preflight = async (p: string): Promise<Response> =>
      fetch(`${t.url.origin}${p}`, {
        method: "OPTIONS",
        headers: {origin: "https://explorer.example", "access-control-request-method": "POST"},
      });
    const utxos = await preflight("/v1/networks/local/blockchains/p-chain/utxos");
    expect(utxos.status).toBe(204);
    expect(utxos.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST");
    expect(
      (await preflight("/v1/signatureAggregator/local/aggregateSignatures")).headers.get(
        "access-control-allow-methods",
      ),
    ).toBe("POST");
    expect(
      (await preflight("/v1/networks/local/blockchains/p-chain/blocks")).headers.get("access-control-allow-methods"),
    ).toBe("GET, HEAD");
  });

  it("answers HEAD without a body, other methods with 405 and Allow, and CORS to any origin", async () => {
    const head = await fetch(`${t.url.origin}/v1/networks/local/blockchains/p-chain/blocks`, {method: "HEAD"});
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const del = await fetch(`${t.url.origin}/v1/networks/local/blockchains/p-chain/blocks`, {method: "DELETE"});
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET, HEAD");
    expect(((await del.json()) as ErrorBody).statusCode).toBe(405);
    const cors = await t.get("/v1/networks/local/blockchains/p-chain/blocks?pageSize=1", {
      origin: "https://explorer.example",
    });
    expect(cors.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers every list endpoint with its list and no nextPageToken past the last page", async () => {
    const lists: Array<[string, string]> = [
      ["/v1/networks/local/validators", "validators"],
      ["/v1/networks/local/delegators", "delegators"],
      ["/v1/networks/local/l1Validators", "validators"],
      ["/v1/networks/local/blockchains", "blockchains"],
      ["/v1/networks/local/subnets", "subnets"],
      ["/v1/networks/local/blockchains/x-chain/vertices:listByHeight?vertexHeight=0", "vertices"],
      ["/v1/networks/local/blockchains/x-chain/vertices", "vertices"],
      ["/v1/networks/local/blockchains/p-chain/nodes/NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg/blocks", "blocks"],
      ["/v1/networks/local/blockchains/p-chain/transactions:listStaking", "transactions"],
      ["/v1/networks/local/addresses:listChainIds?addresses=local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u", "addresses"],
      ["/v1/networks/local/blockchains/c-chain/transactions", "transactions"],
      ["/v1/networks/local/rewards:listPending?nodeIds=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg", "pendingRewards"],
    ];
    for (const [p, key] of lists) {
      const r = await t.get(p);
      expect({p, status: r.status}).toEqual({p, status: 200});
      expect(Array.isArray((r.json() as Record<string, unknown>)[key]), p).toBe(true);
    }
    const details = (await t.get("/v1/networks/local")).json() as {
      validatorDetails: {validatorCount: number};
      delegatorDetails: unknown;
    };
    expect(typeof details.validatorDetails.validatorCount).toBe("number");
  });

  it("survives fuzzed paths and queries: never a 500, always the JSON error body, no internals leaked", async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261124);
    let st = seed >>> 0 || 1;
    const rand = (): number => {
      st ^= st << 13;
      st ^= st >>> 17;
      st ^= st << 5;
      return (st >>> 0) / 2 ** 32;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const templates = t.node.routes.paths().filter((x) => x.startsWith("/v1/") && !x.startsWith("/v1/avg_tps"));
    expect(templates.length).toBeGreaterThan(15);
    const junk = [
      "",
      "0",
      "-1",
      "1e99",
      "99999999999999999999999",
      "9223372036854775807",
      "9223372036854775808",
      "18446744073709551616",
      "%00",
      "%F0%9F%92%A9",
      "'; DROP TABLE txs;--",
      "null",
      "[]",
      "{}",
      "local",
      "p-chain",
      "NodeID-",
      "0x",
      "0x" + "ab".repeat(20),
      "a".repeat(3000),
      "%ZZ",
      "..",
    ];
    const params = [
      "pageSize",
      "pageToken",
      "startTimestamp",
      "endTimestamp",
      "sortOrder",
      "txTypes",
      "addresses",
      "nodeIds",
      "vertexHeight",
      "assetId",
      "includeSpent",
      "minUtxoAmount",
      "sortBy",
      "l1ValidationId",
      "subnetId",
      "validationStatus",
      "rewardAddresses",
      "startBlock",
      "endBlock",
      "blockNumber",
      "contractAddress",
      "contractAddresses",
      "status",
      "network",
    ];
    // The dev EVM's deployer and its first contracts (the dev traffic's CREATE addresses), so EVM paths reach data.
    const EVM_ADDRESSES = [
      "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
      "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
    ];
    const LEAK = /\n\s+at |\/work\/|\/src\/|node_modules|\.ts:\d|\.js:\d/;
    const outcomes = new Map<number, number>();
    const evmOk = {n: 0};
    for (let i = 0; i < 1500; i++) {
      const path = pick(templates).replace(/:([a-zA-Z]+)/g, (_m, name: string) =>
        rand() < 0.4
          ? encodeURIComponent(pick(junk) || "x")
          : name === "network"
            ? "local"
            : name === "blockchainId"
              ? pick(["p-chain", "x-chain", "c-chain", "X"])
              : name === "chainId"
                ? pick(["43112", "c-chain", "C", "12345"])
                : name === "address" && rand() < 0.5
                  ? pick(EVM_ADDRESSES)
                  : encodeURIComponent(pick(junk) || "x"),
      );
      const q = Array.from(
        {length: Math.floor(rand() * 4)},
        () => `${pick(params)}=${encodeURIComponent(pick(junk))}`,
      ).join("&");
      const r = await t.get(q ? `${path}?${q}` : path);
      outcomes.set(r.status, (outcomes.get(r.status) ?? 0) + 1);
      if (r.status === 200 && path.startsWith("/v1/chains")) evmOk.n++;
      expect(r.status, `${path}?${q}`).toBeLessThan(500);
      expect(r.text).not.toMatch(LEAK);
      if (r.status >= 400) {
        const body = r.json() as ErrorBody;
        expect(body.statusCode).toBe(r.status);
        expect(body.message.length).toBeGreaterThan(0);
      }
    }
    console.log(
      `data API fuzz (seed ${seed}): ${JSON.stringify(Object.fromEntries(outcomes))}, EVM paths answered 200: ${evmOk.n}`,
    );
    expect(outcomes.get(400) ?? 0).toBeGreaterThan(100);
    expect(evmOk.n).toBeGreaterThan(20);
  }, 120_000);

  it("answers boundary block numbers (0, 2^63-1, 2^63, 2^64, negative) on every route that takes one: never a 500, a 400 naming the parameter past 2^63-1", async () => {
    // Past 2^63-1 a value would reach an int8 column and fail the query (PostgreSQL 22003) as a 500 (issue 49).
    const BOUNDARY = [
      "0",
      "9223372036854775807",
      "9223372036854775808",
      "18446744073709551616",
      "-1",
      "99999999999999999999",
      "9".repeat(40),
    ];
    const over = (v: string): boolean => /^[0-9]+$/.test(v) && BigInt(v) > 2n ** 63n - 1n;
    const fill: Record<string, string> = {
      network: "local",
      chainId: "43112",
      address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    };
    const BLOCK_QUERY = ["startBlock", "endBlock", "blockNumber"];
    const cases: Array<{path: string; param: string; value: string}> = [];
    for (const family of V1_ROUTE_FAMILIES) {
      for (const def of Object.values(family)) {
        if (def.method !== "GET") continue;
        const chains = def.path.includes(":blockchainId") ? ["p-chain", "x-chain", "c-chain"] : [""];
        for (const chain of chains) {
          // A parameter is a whole segment (`/transactions:listNative` is a literal).
          const base = def.path.replace(
            /\/:([a-zA-Z]+)/g,
            (_m, name: string) =>
              `/${name === "blockchainId" ? chain : name === "blockId" ? ":blockId" : (fill[name] ?? "x")}`,
          );
          for (const value of BOUNDARY) {
            if (base.includes(":blockId")) cases.push({path: base.replace(":blockId", value), param: "blockId", value});
            for (const q of BLOCK_QUERY.filter((n) => n in def.query))
              cases.push({path: `${base.replace(":blockId", "1")}?${q}=${value}`, param: q, value});
          }
        }
      }
    }
    expect(new Set(cases.map((c) => c.param))).toEqual(new Set(["blockId", ...BLOCK_QUERY]));
    const statuses = new Map<number, number>();
    for (const c of cases) {
      const r = await t.get(c.path);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      expect(r.status, c.path).toBeLessThan(500);
      if (over(c.value)) {
        expect({path: c.path, status: r.status}).toEqual({path: c.path, status: 400});
        expect((r.json() as ErrorBody).message, c.path).toMatch(new RegExp(`^${c.param}: `));
      }
    }
    console.log(
      `data API boundary block numbers: ${cases.length} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
  }, 120_000);

  it("builds a validator set once per height, decodes each BLS key once across heights, and answers 503 past its build slots", async () => {
    const sql = t.node.dataApi!.sql;
    const keys = new BlsKeyCache();
    const cache = new ValidatorSetCache({maxEntries: 64, maxBuilds: 1, maxWaiting: 2}, keys);
    const latest = await cache.get(sql, EMPTY_ID, 0n);
    const hexes = (s: typeof latest): string[] => s.set.validators.map((v) => bytesToHex(v.publicKey));
    expect(latest.set.validators.length).toBeGreaterThanOrEqual(5);
    expect([cache.built, keys.decoded]).toEqual([1, latest.set.validators.length]);
    // The same height again, named: no build.
    expect(hexes(await cache.get(sql, EMPTY_ID, latest.height))).toEqual(hexes(latest));
    expect(cache.built).toBe(1);
    // Another height: built, with only keys not seen before decoded.
    const earlier = await cache.get(sql, EMPTY_ID, latest.height - 1n);
    expect(cache.built).toBe(2);
    expect(keys.decoded).toBe(new Set([...hexes(latest), ...hexes(earlier)]).size);
    // Fresh heights all at once: one builds at a time, two may wait, the others are refused at once with a 503
    // (how many depends on how the head queries interleave; test/unit/util/slots.test.ts has the exact count).
    const heights = Array.from({length: 12}, (_, i) => latest.height - 2n - BigInt(i));
    const tries = await Promise.allSettled(heights.map((h) => cache.get(sql, EMPTY_ID, h)));
    for (const x of tries) {
      if (x.status === "fulfilled") continue;
      const e = x.reason as DataApiError;
      expect([e instanceof DataApiError, e.status, e.message]).toEqual([
        true,
        503,
        "validator sets: 1 being built and 2 waiting; retry shortly",
      ]);
    }
    // Refusals are not kept: each height builds when asked again.
    for (const h of heights) await cache.get(sql, EMPTY_ID, h);
    expect(keys.decoded).toBeLessThanOrEqual(new Set([...hexes(latest), ...hexes(earlier)]).size + 5);
  });

  it("reports the view in the data-api health check", async () => {
    const r = (await t.get("/ext/health")).json() as {
      checks: Record<string, {message?: {lag?: number; role?: string}; error?: unknown}>;
    };
    expect(r.checks["data-api"]?.error).toBeUndefined();
    expect(r.checks["data-api"]?.message).toMatchObject({role: "both"});
    const metrics = (await t.get("/ext/metrics")).text;
    expect(metrics).toMatch(/^avaext_data_api_view_lag_containers \d+$/m);
    expect(metrics).toMatch(/^avaext_data_api_txs_folded_total\{chain="P"\} [1-9]\d*$/m);
  });

  it("signs the P-chain's message for an L1 conversion with the L1's validators (endpoint 2), verified by a second library", async () => {
    const [conv] = await t.node.dataApi!.sql.query<{
      tx_id: string;
      details: {subnetId: string; conversion: {conversionId: string}};
    }>("SELECT tx_id, details FROM txs WHERE chain = 'P' AND tx_type = 'ConvertSubnetToL1Tx'");
    expect(conv).toBeDefined();
    const r = await t.get(`/v1/signatureAggregator/local/aggregateSignatures/${conv!.tx_id}`);
    expect(r.status, r.text).toBe(201);
    const m = parseSignedMessage(hexToBytes((r.json() as {signedMessage: string}).signedMessage));
    // The message AvalancheGo's P-chain signs: SubnetToL1Conversion(conversionID), from the P-chain (zero ID).
    expect(bytesToHex(m.unsignedBytes)).toBe(
      bytesToHex(
        pChainUnsignedMessage(12345, {
          type: "SubnetToL1Conversion",
          conversionId: idFromString(conv!.details.conversion.conversionId),
        }),
      ),
    );
    // The L1's validators are local nodes 1-3 (signer1..3; one is disabled later in the schedule): the active ones,
    // their keys derived here from AvalancheGo's local secret keys, in canonical order (uncompressed key).
    const active = await t.node.dataApi!.sql.query<{node_id: string}>(
      "SELECT node_id FROM l1_validators WHERE active AND weight > 0",
    );
    const keys = active.map((v) =>
      bls12_381.longSignatures.getPublicKey(
        new TextEncoder().encode(`AvalancheLocalNetworkValidator0${LOCAL_VALIDATORS.indexOf(v.node_id) + 1}`),
      ),
    );
    expect(keys.length).toBeGreaterThanOrEqual(2);
    keys.sort((x, y) => Buffer.compare(Buffer.from(x.toBytes(false)), Buffer.from(y.toBytes(false))));
    const noble = bls12_381.longSignatures;
    expect(
      noble.verify(
        bls12_381.G2.Point.fromBytes(m.signature),
        noble.hash(m.unsignedBytes, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"),
        noble.aggregatePublicKeys(m.signerIndices.map((i) => keys[i]!)),
      ),
    ).toBe(true);
    expect(m.signerIndices.length).toBe(keys.length);
    // Bad input: not an ID, unknown, a transaction without a P-chain message.
    expect((await t.get("/v1/signatureAggregator/local/aggregateSignatures/nope")).status).toBe(400);
    expect((await t.get(`/v1/signatureAggregator/local/aggregateSignatures/${"1".repeat(32)}LpoYY`)).status).toBe(404);
    const [base] = await t.node.dataApi!.sql.query<{tx_id: string}>(
      "SELECT tx_id FROM txs WHERE chain = 'P' AND tx_type = 'BaseTx' LIMIT 1",
    );
    const other = await t.get(`/v1/signatureAggregator/local/aggregateSignatures/${base!.tx_id}`);
    expect(other.status).toBe(400);
    expect((other.json() as {message: string}).message).toMatch(/txHash: a BaseTx has no P-chain warp message/);
  });

  it("folds the L1 validators' continuous fee: balances fall with time, a disable returns the rest as a UTXO", async () => {
    type L1V = {validationId: string; nodeId: string; remainingBalance: number};
    const active = (await t.get("/v1/networks/local/l1Validators")).json() as {validators: L1V[]};
    const all = (await t.get("/v1/networks/local/l1Validators?includeInactiveL1Validators=true")).json() as {
      validators: L1V[];
    };
    // Three converted with 10 AVAX each; the first got 5 AVAX more; a fourth registered with 10; the third was disabled.
    expect(all.validators).toHaveLength(4);
    expect(active.validators).toHaveLength(3);
    const disabled = all.validators.find((v) => !active.validators.some((a) => a.validationId === v.validationId))!;
    expect(disabled.remainingBalance).toBe(0);
    // Active ones pay 1 nAVAX a second on the local network: below what funded them, by the seconds since.
    for (const v of active.validators) expect(v.remainingBalance).toBeLessThan(15e9);
    expect(Math.min(...active.validators.map((v) => v.remainingBalance))).toBeLessThan(10e9);
    expect(Math.min(...active.validators.map((v) => v.remainingBalance))).toBeGreaterThan(10e9 - 86_400);

    type Tx = {
      txType: string;
      l1ValidatorDetails?: Array<{validationId: string; remainingBalance: number; balanceChange: number}>;
      emittedUtxos: Array<{amount: string; addresses: string[]}>;
      amountBurned: Array<{amount: string}>;
      blockNumber: string;
    };
    const txs = (
      (
        await t.get(`/v1/networks/local/blockchains/p-chain/transactions?l1ValidationId=${disabled.validationId}`)
      ).json() as {transactions: Tx[]}
    ).transactions;
    expect(txs.map((x) => x.txType)).toEqual(["DisableL1ValidatorTx", "ConvertSubnetToL1Tx"]);
    const [disable, convert] = txs as [Tx, Tx];
    expect(convert.l1ValidatorDetails!.map((d) => [d.remainingBalance, d.balanceChange])).toEqual([
      [10e9, 10e9],
      [10e9, 10e9],
      [10e9, 10e9],
    ]);
    // The disable returns what the fee left of the 10 AVAX, in a UTXO after the transaction's change.
    const [detail] = disable.l1ValidatorDetails!;
    expect(detail!.remainingBalance).toBe(0);
    const returned = -detail!.balanceChange;
    expect(returned).toBeGreaterThan(10e9 - 86_400);
    expect(returned).toBeLessThan(10e9);
    expect(disable.emittedUtxos.map((u) => Number(u.amount))).toContain(returned);
    // Only the transaction fee is burned: the returned balance is not counted against it.
    expect(Number(disable.amountBurned[0]!.amount)).toBeGreaterThan(0);
    expect(Number(disable.amountBurned[0]!.amount)).toBeLessThan(1e9);

    // Each P block carries the chain's accrued fees and the active count after it.
    const tip = (
      (await t.get("/v1/networks/local/blockchains/p-chain/blocks?pageSize=1")).json() as {
        blocks: Array<{l1ValidatorsAccruedFees: number; activeL1Validators: number}>;
      }
    ).blocks[0]!;
    expect(tip.activeL1Validators).toBe(3);
    expect(tip.l1ValidatorsAccruedFees).toBeGreaterThan(0);
  });

  it("registers an L1 validator and changes its weight from the manager's warp messages, and signs both (endpoint 2)", async () => {
    const l1SubnetOf = async (validationId: string): Promise<string> =>
      (
        await t.node.dataApi!.sql.query<{subnet_id: string}>(
          "SELECT subnet_id FROM l1_validators WHERE validation_id = $1",
          [validationId],
        )
      )[0]!.subnet_id;
    type L1V = {
      validationId: string;
      nodeId: string;
      weight: number;
      remainingBalance: number;
      blsCredentials: {publicKey: string};
    };
    const node4 = LOCAL_VALIDATORS[3]!;
    const all = (
      (await t.get("/v1/networks/local/l1Validators?includeInactiveL1Validators=true")).json() as {validators: L1V[]}
    ).validators;
    const registered = all.find((v) => v.nodeId === node4)!;
    expect(registered, JSON.stringify(all.map((v) => v.nodeId))).toBeDefined();
    // Registered with weight 100, then doubled; its own balance of 10 AVAX, falling with the fee.
    expect(registered.weight).toBe(200);
    expect(registered.remainingBalance).toBeLessThan(10e9);
    expect(registered.remainingBalance).toBeGreaterThan(10e9 - 86_400);
    const byId = (
      (await t.get(`/v1/networks/local/l1Validators?l1ValidationId=${registered.validationId}`)).json() as {
        validators: L1V[];
      }
    ).validators;
    expect(byId.map((v) => v.nodeId)).toEqual([node4]);

    // Endpoint 5 finds both transactions by the validation ID, newest first, each with the validator's details.
    type Tx = {
      txHash: string;
      txType: string;
      l1ValidatorDetails?: Array<{validationId: string; nodeId: string; weight: number}>;
    };
    const txs = (
      (
        await t.get(`/v1/networks/local/blockchains/p-chain/transactions?l1ValidationId=${registered.validationId}`)
      ).json() as {transactions: Tx[]}
    ).transactions;
    expect(txs.map((x) => x.txType)).toEqual(["SetL1ValidatorWeightTx", "RegisterL1ValidatorTx"]);
    const [weightTx, registerTx] = txs as [Tx, Tx];
    expect(registerTx.l1ValidatorDetails!.map((d) => [d.validationId, d.nodeId, d.weight])).toEqual([
      [registered.validationId, node4, 100],
    ]);
    expect(weightTx.l1ValidatorDetails!.map((d) => [d.validationId, d.weight])).toEqual([
      [registered.validationId, 200],
    ]);

    // The messages they carried: from the L1's chain and its manager's address (the conversion's), signed by the
    // L1's validators then (1-3 for the registration; 1-4 for the weight change).
    const [conv] = await t.node.dataApi!.sql.query<{
      details: {conversion: {chainId: string; managerAddress: Record<string, number>}};
    }>("SELECT details FROM txs WHERE chain = 'P' AND tx_type = 'ConvertSubnetToL1Tx'");
    const l1Chain = conv!.details.conversion.chainId;
    for (const [tx, signers, type] of [
      [registerTx, [1, 2, 3], "RegisterL1Validator"],
      [weightTx, [1, 2, 3, 4], "L1ValidatorWeight"],
    ] as const) {
      const [row] = await t.node.dataApi!.sql.query<{details: {warpMessage: Record<string, number> | string}}>(
        "SELECT details FROM txs WHERE chain = 'P' AND tx_id = $1",
        [tx.txHash],
      );
      const raw = row!.details.warpMessage;
      const bytes = typeof raw === "string" ? hexToBytes(raw) : Uint8Array.from(Object.values(raw));
      const carried = parseSignedMessage(bytes);
      expect(bytesToHex(carried.unsigned.sourceChainId)).toBe(bytesToHex(idFromString(l1Chain)));
      const call = parseAddressedCall(carried.unsigned.payload);
      expect("0x" + bytesToHex(call.sourceAddress)).toBe(DEV_L1_MANAGER);
      expect(parsePChainMessage(call.payload).type).toBe(type);
      expect(carried.signerIndices).toEqual(signers.map((_, i) => i));
      expect(verifiesWithLocal(carried, [...signers])).toBe(true);
    }

    // The L1's EVM carried them: the manager's SendWarpMessage logs hold those unsigned messages.
    const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
      const r = await t.post(`/ext/bc/${l1Chain}/rpc`, JSON.stringify({jsonrpc: "2.0", id: 1, method, params}), {
        "content-type": "application/json",
      });
      return (r.json() as {result: unknown}).result;
    };
    const manager = "0x" + DEV_L1_MANAGER.slice(2).padStart(64, "0");
    const logs = (await rpc("eth_getLogs", [
      {
        fromBlock: "0x0",
        toBlock: "latest",
        address: "0x0200000000000000000000000000000000000005",
        topics: [eventTopic("SendWarpMessage(address,bytes32,bytes)"), manager],
      },
    ])) as Array<{data: string}>;
    const sent = logs.map((l) => bytesToHex((decodeAbi(["bytes"], hexToBytes(l.data)) as [Uint8Array])[0]));
    for (const tx of [registerTx, weightTx]) {
      const [row] = await t.node.dataApi!.sql.query<{details: {warpMessage: Record<string, number> | string}}>(
        "SELECT details FROM txs WHERE chain = 'P' AND tx_id = $1",
        [tx.txHash],
      );
      const raw = row!.details.warpMessage;
      const bytes = typeof raw === "string" ? hexToBytes(raw) : Uint8Array.from(Object.values(raw));
      expect(sent).toContain(bytesToHex(parseSignedMessage(bytes).unsignedBytes));
    }

    // Endpoint 2 for both: the P-chain's L1ValidatorRegistration(validationID, true) and L1ValidatorWeight(validationID,
    // 1, 200), signed by the L1's active validators now (1, 2 and 4: 3 was disabled).
    const expected = {
      [registerTx.txHash]: pChainUnsignedMessage(12345, {
        type: "L1ValidatorRegistration",
        validationId: idFromString(registered.validationId),
        registered: true,
      }),
      [weightTx.txHash]: pChainUnsignedMessage(12345, {
        type: "L1ValidatorWeight",
        validationId: idFromString(registered.validationId),
        nonce: 1n,
        weight: 200n,
      }),
    };
    // The L1's set: 1, 2 and 4 sign (100, 100, 200); disabled 3's 100 still counts in the total, as in AvalancheGo,
    // so 67 % of 500 takes all three.
    const set = await validatorSetAt(t.node.dataApi!.sql, await l1SubnetOf(registered.validationId), 0n);
    expect(set.set.totalWeight).toBe(500n);
    expect(set.set.validators.map((v) => v.weight).sort()).toEqual([100n, 100n, 200n]);
    for (const tx of [registerTx, weightTx]) {
      const r = await t.get(`/v1/signatureAggregator/local/aggregateSignatures/${tx.txHash}`);
      expect(r.status, `${tx.txType}: ${r.text}`).toBe(201);
      const m = parseSignedMessage(hexToBytes((r.json() as {signedMessage: string}).signedMessage));
      expect(bytesToHex(m.unsignedBytes)).toBe(bytesToHex(expected[tx.txHash]!));
      expect(verifiesWithLocal(m, [1, 2, 4])).toBe(true);
      expect(m.signerIndices.length).toBe(3);
    }
  });

  it("lists the validators and delegators the dev network's transactions added, with their pending rewards", async () => {
    const own = devStakers().map((s) => s.nodeId);
    type V = {
      txHash: string;
      nodeId: string;
      amountStaked: string;
      delegationFee: string;
      validationStatus: string;
      blsCredentials?: {publicKey: string};
      delegatorCount: number;
    };
    const validators = (
      (await t.get(`/v1/networks/local/validators?nodeIds=${own.join(",")}`)).json() as {validators: V[]}
    ).validators;
    // A 4h backfill: validator 0 (node 1, 2,000 AVAX, 2 %), with its first delegator; the second comes 12 h in.
    expect(validators.map((v) => [v.nodeId, v.validationStatus, v.amountStaked, v.delegationFee])).toEqual([
      [own[0], "active", String(2_000e9), "2.0000"],
    ]);
    expect(validators[0]!.blsCredentials?.publicKey).toBe(devStakers()[0]!.bls.credentials.publicKey);
    expect(validators[0]!.delegatorCount).toBe(1);
    const [tx] = await t.node.dataApi!.sql.query<{tx_type: string}>(
      "SELECT tx_type FROM txs WHERE chain = 'P' AND tx_id = $1",
      [validators[0]!.txHash],
    );
    expect(tx!.tx_type).toBe("AddPermissionlessValidatorTx");

    type R = {
      txHash: string;
      nodeId: string;
      rewardType: string;
      amountStaked: string;
      estimatedReward: {amount: string};
      addresses: string[];
    };
    const pending = (
      (await t.get(`/v1/networks/local/rewards:listPending?nodeIds=${own[0]}`)).json() as {pendingRewards: R[]}
    ).pendingRewards;
    const kinds = pending.map((r) => [r.rewardType, r.amountStaked]).sort();
    expect(kinds).toEqual([
      ["DELEGATOR", String(100e9)],
      ["VALIDATOR", String(2_000e9)],
    ]);
    for (const r of pending) expect(BigInt(r.estimatedReward.amount)).toBeGreaterThan(0n);
    // By address: the validation's reward owner (key 6) and the delegation fee owner (key 7).
    const keys = devKeys();
    const key6 = formatAddress(keys[6]!.address, "local");
    const key7 = formatAddress(keys[7]!.address, "local");
    const byOwner = (
      (await t.get(`/v1/networks/local/rewards:listPending?addresses=${key6},${key7}`)).json() as {pendingRewards: R[]}
    ).pendingRewards;
    expect(byOwner.map((r) => r.rewardType).sort()).toEqual(["VALIDATOR", "VALIDATOR_FEE"]);
  });
});

describe("data API keys and rate limits", () => {
  let t: TestNode;
  beforeAll(async () => {
    const dir = tempDir();
    const keys = path.join(dir, "keys.json");
    writeFileSync(keys, JSON.stringify({"key-123": {name: "partner", rateLimit: 2}}));
    t = await startNode(
      {...DEV, "dev-backfill": "0", "data-api-keys-file": keys, "data-api-rate-limit": "3"},
      {dataDir: dir},
    );
  }, 180_000);
  afterAll(async () => t?.close());

  it("refuses an unknown key with 401 and limits each client with 429, Retry-After and RateLimit headers", async () => {
    const p = "/v1/networks/local/blockchains/p-chain/blocks";
    const unknown = await t.get(p, {"x-glacier-api-key": "typo"});
    expect(unknown.status).toBe(401);
    expect(unknown.json()).toEqual({message: "unknown API key", statusCode: 401, error: "Unauthorized"});
    // The key's own limit (2 a minute), counted apart from the anonymous one.
    const keyed = [
      await t.get(p, {"x-service-api-key": "key-123"}),
      await t.get(p, {"x-glacier-api-key": "key-123"}),
      await t.get(p, {"x-glacier-api-key": "key-123"}),
    ];
    expect(keyed.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(keyed[0]!.headers.get("ratelimit-policy")).toBe('"partner";q=2;w=60');
    expect(Number(keyed[2]!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Anonymous: 3 a minute per IP, the unknown key's 401 among them (key guessing is limited too).
    const anon = [await t.get(p), await t.get(p), await t.get(p)];
    expect(anon.map((r) => r.status)).toEqual([200, 200, 429]);
    const refused = anon[2]!;
    expect((refused.json() as ErrorBody).message).toMatch(/^rate limit of 3 requests a minute exceeded/);
    expect(refused.headers.get("ratelimit")).toMatch(/^"anonymous";r=0;t=\d+$/);
    // Other APIs are not limited by it.
    expect((await t.get("/ext/health/liveness")).status).toBe(200);
  });
});

describe("data API roles on one PostgreSQL server", () => {
  it("refuses to fold without the container index, naming the flags", async () => {
    await expect(
      startNode({
        "network-id": "local",
        feed: "dev",
        "dev-backfill": "0",
        "data-api-enabled": true,
        "index-enabled": false,
      }),
    ).rejects.toThrow(
      "--data-api-enabled folds the container index: it needs --index-enabled (or --data-api-role serve, to answer from a store another process writes)",
    );
  });

  it("lets serve processes share a store with one writer, and refuses a second writer naming the first", async () => {
    const db = await createTestDatabase();
    const writer = await startNode({...DEV, "dev-backfill": "1h", "data-api-db": db});
    try {
      await caughtUp2(writer);
      const second = startNode({...DEV, "dev-backfill": "0", "data-api-db": db});
      await expect(second).rejects.toThrow(/locked by another writer: "avaext .* pid \d+"/);
      // A serve process reaches the writer's EVM through --evm-rpc (for native balances), and follows nothing. Its
      // sessions are read-only, as on a streaming replica: it writes nothing, not even at start.
      const evmRpc = `C=${writer.node.devFeed!.evmUrl()!}`;
      const readOnly = `${db}${db.includes("?") ? "&" : "?"}options=${encodeURIComponent("-c default_transaction_read_only=on")}`;
      // It runs no feed (a serve replica needs none) and takes the dev network's genesis from the file the writer's
      // feed wrote, as an operator's replica of a custom network takes --genesis-file.
      const reader = await startNode({
        "network-id": "local",
        feed: null,
        "genesis-file": path.join(writer.dataDir, "genesis.json"),
        "data-api-enabled": true,
        "data-api-role": "serve",
        "data-api-db": readOnly,
        "evm-rpc": evmRpc,
      });
      try {
        const a = (await writer.get("/v1/networks/local/blockchains/p-chain/blocks?pageSize=3")).json() as {
          blocks: Array<{blockHash: string}>;
        };
        const b = (await reader.get("/v1/networks/local/blockchains/p-chain/blocks?pageSize=3")).json() as {
          blocks: Array<{blockHash: string}>;
        };
        // The reader answers from the writer's store (the writer may have folded one more block since).
        expect(b.blocks.length).toBe(3);
        expect(a.blocks.map((x) => x.blockHash)).toContain(b.blocks[2]!.blockHash);
        // The EVM side too: the writer's blocks, and the chain's state as the writer stored it.
        const evmA = (await writer.get("/v1/chains/43112/blocks?pageSize=3")).json() as {
          blocks: Array<{blockHash: string}>;
        };
        const evmB = (await reader.get("/v1/chains/43112/blocks?pageSize=3")).json() as {
          blocks: Array<{blockHash: string}>;
        };
        expect(evmB.blocks.length).toBe(3);
        expect(evmA.blocks.map((x) => x.blockHash)).toContain(evmB.blocks[2]!.blockHash);
        const info = (await reader.get("/v1/chains/43112")).json() as {
          status: string;
          indexing: {internalTransactions: boolean; head: string};
        };
        expect(info).toMatchObject({status: "OK", indexing: {internalTransactions: true}});
        expect(BigInt(info.indexing.head)).toBeGreaterThan(0n);
        const balance = (
          await reader.get("/v1/chains/43112/addresses/0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266/balances:getNative")
        ).json() as {nativeTokenBalance: {balance: string}};
        expect(BigInt(balance.nativeTokenBalance.balance)).toBeGreaterThan(0n);
        // The check's first round may still be running: wait for its result.
        const deadline = Date.now() + 20_000;
        let role: string | undefined;
        while (role === undefined && Date.now() < deadline) {
          const health = (await reader.get("/ext/health")).json() as {
            checks: Record<string, {message?: {role?: string}}>;
          };
          role = health.checks["data-api"]?.message?.role;
          if (role === undefined) await new Promise((r) => setTimeout(r, 50));
        }
        expect(role).toBe("serve");
        // No feed runs in it, so it has none of the feed's checks (they are the writer's) and no dev network.
        expect(reader.node.ingester).toBeNull();
        expect(reader.node.devFeed).toBeNull();
        const checks = ((await reader.get("/ext/health")).json() as {checks: Record<string, unknown>}).checks;
        expect(Object.keys(checks)).toContain("database");
        for (const feedCheck of ["network", "bootstrapped", "P", "X", "C"])
          expect(checks).not.toHaveProperty(feedCheck);
        // A process of another network would read the store's chain IDs and addresses wrongly: it is refused.
        await expect(
          startNode({
            "network-id": "1337",
            feed: "dev",
            "dev-backfill": "0",
            "dev-evm": false,
            "data-api-enabled": true,
            "data-api-role": "serve",
            "data-api-db": readOnly,
            "evm-rpc": evmRpc,
          }),
        ).rejects.toThrow(
          "the data API store holds network local (ID 12345), and this process runs ID 1337: start it with --network-id=local",
        );
      } finally {
        await reader.close();
      }
    } finally {
      await writer.close();
    }
  }, 120_000);
});

async function caughtUp2(t: TestNode): Promise<void> {
  const deadline = Date.now() + 60_000;
  const ready = async (): Promise<boolean> =>
    t.node.dataApi?.view?.lag() === 0n &&
    ((await t.get("/v1/networks/local/blockchains/p-chain/blocks?pageSize=3")).json() as {blocks: unknown[]}).blocks
      .length === 3;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error("the data API view did not catch up");
    await new Promise((r) => setTimeout(r, 100));
  }
}
