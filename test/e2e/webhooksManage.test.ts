/**
 * The webhooks' management API over the real wire, on both store backends, as both SDKs call it:
 * `@avalabs/glacier-sdk`'s WebhooksService and `@avalanche-sdk/chainkit`'s `webhooks.*` (chainkit checks every
 * answer with its zod schemas, so a call that resolves is an answer it accepts). Also: 401 without a key, 404 for
 * another key's webhook, 400 naming the field for bad bodies, the SSRF guard on URLs, paging.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Glacier} from "@avalabs/glacier-sdk";
import {Avalanche} from "@avalanche-sdk/chainkit";
import {HTTPClient} from "@avalanche-sdk/chainkit/lib/http.js";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {startNode, type TestNode} from "../helpers/node.js";
import {keysFile, webhookNodeFlags} from "../helpers/webhooks.js";
import {formatAddress} from "../../src/dataApi/server/names.js";

const CHAIN = "99998";
const KEY_A = "key-a-0123456789";
const KEY_B = "key-b-0123456789";
const A1 = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const A2 = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const A3 = "0x976EA74026E726554dB657fA54763abd0C3a0aa9";
/** `--webhooks-max-per-key` of the node under test: KEY_A's own tests stay below it. */
const MAX_PER_KEY = 20;

/** A chainkit client whose every call goes to `base` (its webhook operations carry their own server list). */
function chainkit(base: URL, apiKey: string): Avalanche {
  const httpClient = new HTTPClient({
    fetcher: async (input, init) => {
      const req = input instanceof Request ? input : new Request(input, init);
      const url = new URL(req.url);
      const to = new URL(url.pathname + url.search, base);
      // chainkit's network enum is closed (mainnet, fuji): the dev network is named fuji to it, local on the wire.
      const body =
        req.method === "GET" ? undefined : (await req.text()).replace(/"network":"fuji"/g, '"network":"local"');
      return fetch(to, {method: req.method, headers: req.headers, body: body === "" ? undefined : body});
    },
  });
  return new Avalanche({
    serverURL: base.toString(),
    apiKey,
    enableTelemetry: false,
    httpClient,
    retryConfig: {strategy: "none"},
  });
}

describe.each(STORE_BACKENDS)("webhooks' management ($name)", (backend) => {
  let anvil: Anvil;
  let t: TestNode;
  let glacier: Glacier;
  let ck: Avalanche;
  const call = async (method: string, p: string, body?: unknown, key: string | null = KEY_A) => {
    const headers: Record<string, string> = {"content-type": "application/json"};
    if (key !== null) headers["x-glacier-api-key"] = key;
    const res = await fetch(new URL(p, t.url), {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    return {status: res.status, json: (await res.json()) as Record<string, unknown>};
  };
  const evmBody = (extra: Record<string, unknown> = {}) => ({
    eventType: "address_activity",
    url: "http://127.0.0.1:9/hook",
    chainId: CHAIN,
    metadata: {addresses: [A1]},
    ...extra,
  });

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "auto"},
      {logger: quietLogger()},
    );
    t = await startNode(
      webhookNodeFlags(anvil.url, keysFile(), await backend.db(), {
        "webhooks-allow-private-urls": true,
        "webhooks-max-per-key": MAX_PER_KEY,
      }),
    );
    glacier = new Glacier({BASE: t.url.toString().replace(/\/$/, ""), HEADERS: {"x-glacier-api-key": KEY_A}});
    ck = chainkit(t.url, KEY_A);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await anvil?.stop();
  });

  it("creates, reads, lists, changes and deactivates a webhook with glacier-sdk", async () => {
    const made = await glacier.webhooks.createWebhook({
      requestBody: {
        eventType: "address_activity" as never,
        url: "http://127.0.0.1:9/g",
        chainId: CHAIN,
        name: "g",
        description: "by glacier-sdk",
        metadata: {addresses: [A1.toLowerCase(), A2], eventSignatures: ["0x" + "dd".repeat(32)]},
        includeLogs: true,
      },
    });
    expect(made).toMatchObject({
      url: "http://127.0.0.1:9/g",
      chainId: CHAIN,
      status: "active",
      name: "g",
      description: "by glacier-sdk",
      eventType: "address_activity",
      includeLogs: true,
      includeInternalTxs: false,
    });
    expect(made.metadata).toEqual({
      addresses: [A1, A2].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)),
      eventSignatures: ["0x" + "dd".repeat(32)],
    });
    expect(Math.abs(made.createdAt - Date.now() / 1000)).toBeLessThan(600);
    expect(await glacier.webhooks.getWebhook({id: made.id})).toEqual(made);
    const changed = await glacier.webhooks.updateWebhook({
      id: made.id,
      requestBody: {name: "g2", includeInternalTxs: true},
    });
    expect(changed).toMatchObject({name: "g2", includeInternalTxs: true, includeLogs: true});
    await glacier.webhooks.addAddressesToWebhook({id: made.id, requestBody: {addresses: [A3]}});
    const listed = await glacier.webhooks.getAddressesFromWebhook({id: made.id, pageSize: 2});
    expect(listed.totalAddresses).toBe(3);
    expect(listed.addresses).toHaveLength(2);
    const rest = await glacier.webhooks.getAddressesFromWebhook({
      id: made.id,
      pageSize: 2,
      pageToken: listed.nextPageToken,
    });
    expect([...listed.addresses, ...rest.addresses].map((a) => a.toLowerCase()).sort()).toEqual(
      [A1, A2, A3].map((a) => a.toLowerCase()).sort(),
    );
    expect(rest.nextPageToken).toBeUndefined();
    await glacier.webhooks.removeAddressesFromWebhook({id: made.id, requestBody: {addresses: [A2]}});
    expect((await glacier.webhooks.getAddressesFromWebhook({id: made.id})).totalAddresses).toBe(2);
    const off = await glacier.webhooks.deactivateWebhook({id: made.id});
    expect(off.status).toBe("inactive");
    expect((off as {deactivationReason?: string}).deactivationReason).toBe("deactivated by its owner");
    const inactive = await glacier.webhooks.listWebhooks({status: "inactive" as never});
    expect(inactive.webhooks.map((w) => w.id)).toContain(made.id);
    const back = await glacier.webhooks.updateWebhook({id: made.id, requestBody: {status: "active" as never}});
    expect(back.status).toBe("active");
    expect((back as {deactivationReason?: string}).deactivationReason).toBeUndefined();
  });

  it("makes, reads and rotates the key's shared secret with glacier-sdk", async () => {
    const first = await glacier.webhooks.getSharedSecret();
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    expect((await glacier.webhooks.getSharedSecret()).secret).toBe(first.secret);
    const rotated = await glacier.webhooks.generateOrRotateSharedSecret();
    expect(rotated.secret).not.toBe(first.secret);
    expect((await glacier.webhooks.getSharedSecret()).secret).toBe(rotated.secret);
  });

  it("does all of it with chainkit, whose schemas accept every answer", async () => {
    const made = await ck.webhooks.create({
      eventType: "address_activity",
      url: "http://127.0.0.1:9/c",
      chainId: CHAIN,
      metadata: {addresses: [A2]},
    });
    expect(made).toMatchObject({status: "active", eventType: "address_activity", name: "", description: ""});
    expect((await ck.webhooks.get({id: made.id})).id).toBe(made.id);
    expect((await ck.webhooks.update({id: made.id, updateWebhookRequest: {description: "chainkit"}})).description).toBe(
      "chainkit",
    );
    await ck.webhooks.addresses.add({id: made.id, addressesChangeRequest: {addresses: [A1]}});
    await ck.webhooks.addresses.remove({id: made.id, addressesChangeRequest: {addresses: [A2]}});
    const addrs = await ck.webhooks.addresses.list({id: made.id});
    expect(addrs.result.addresses).toEqual([A1]);
    const pn = await ck.webhooks.create({
      eventType: "primary_network_address_activity",
      url: "http://127.0.0.1:9/p",
      network: "fuji",
      chainId: "p-chain",
      metadata: {
        keyType: "addresses",
        keys: ["P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],
        subEvents: {addressActivitySubEvents: ["balance_change", "balance_threshold"]},
        balanceThresholdFilter: {balanceType: "unlocked", balanceThreshold: "1000"},
      },
    });
    expect(pn.eventType).toBe("primary_network_address_activity");
    const va = await ck.webhooks.create({
      eventType: "validator_activity",
      url: "http://127.0.0.1:9/v",
      network: "fuji",
      metadata: {
        keyType: "nodeId",
        keys: ["NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"],
        subEvents: {validatorActivitySubEvents: ["validator_stake", "l1_validator_disabled"]},
      },
    });
    expect(va.eventType).toBe("validator_activity");
    const seen: string[] = [];
    for await (const page of await ck.webhooks.list({pageSize: 2})) seen.push(...page.result.webhooks.map((w) => w.id));
    expect(seen).toEqual(expect.arrayContaining([made.id, pn.id, va.id]));
    expect(new Set(seen).size).toBe(seen.length);
    expect((await ck.webhooks.deactivate({id: made.id})).status).toBe("inactive");
    const s = await ck.webhooks.generateOrRotateSharedSecret();
    expect((await ck.webhooks.getSharedSecret()).secret).toBe(s.secret);
  });

  it("answers 401 without a listed key, and 404 for another key's webhook", async () => {
    const made = await call("POST", "/v1/webhooks", evmBody());
    expect(made.status).toBe(201);
    const id = made.json.id as string;
    for (const [m, p] of [
      ["GET", "/v1/webhooks"],
      ["GET", `/v1/webhooks/${id}`],
      ["POST", "/v1/webhooks:generateOrRotateSharedSecret"],
      ["GET", "/v1/webhooks:getSharedSecret"],
    ] as const) {
      const r = await call(m, p, undefined, null);
      expect(r.status, `${m} ${p}`).toBe(401);
      expect(r.json.message).toMatch(/API key/);
    }
    expect((await call("GET", `/v1/webhooks/${id}`, undefined, "not-a-key")).status).toBe(401);
    for (const [m, p, b] of [
      ["GET", `/v1/webhooks/${id}`],
      ["PATCH", `/v1/webhooks/${id}`, {name: "x"}],
      ["DELETE", `/v1/webhooks/${id}`],
      ["GET", `/v1/webhooks/${id}/addresses`],
      ["PATCH", `/v1/webhooks/${id}/addresses`, {addresses: [A2]}],
    ] as const) {
      const r = await call(m, p, b, KEY_B);
      expect(r.status, `${m} ${p}`).toBe(404);
    }
    expect((await call("GET", "/v1/webhooks", undefined, KEY_B)).json.webhooks).not.toContainEqual(
      expect.objectContaining({id}),
    );
    expect((await call("GET", `/v1/webhooks/${id}`)).json.status).toBe("active");
  });

  it("keeps a primary webhook's keys as rows: answers inline the first 100, GET addresses pages them all", async () => {
    const keys = Array.from(
      {length: 150},
      (_, i) =>
        `P-${formatAddress(
          Uint8Array.from({length: 20}, (_, j) => (j === 19 ? i + 1 : j === 18 ? 7 : 0)),
          "local",
        )}`,
    );
    const made = await call("POST", "/v1/webhooks", {
      eventType: "primary_network_address_activity",
      url: "http://127.0.0.1:9/p",
      network: "local",
      chainId: "p-chain",
      metadata: {keyType: "addresses", keys, subEvents: {addressActivitySubEvents: ["balance_change"]}},
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const id = made.json.id as string;
    const sorted = [...keys].sort();
    const inline = (j: Record<string, unknown>): unknown[] => (j.metadata as {keys: unknown[]}).keys;
    expect(inline(made.json)).toEqual(sorted.slice(0, 100));
    expect(inline((await call("GET", `/v1/webhooks/${id}`)).json)).toHaveLength(100);
    const listed = (await call("GET", "/v1/webhooks?pageSize=100")).json.webhooks as Array<Record<string, unknown>>;
    expect(inline(listed.find((x) => x.id === id)!)).toHaveLength(100);
    const paged: unknown[] = [];
    let token: string | undefined;
    do {
      const r = (
        await call(
          "GET",
          `/v1/webhooks/${id}/addresses?pageSize=60${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`,
        )
      ).json;
      expect(r.totalAddresses).toBe(150);
      paged.push(...(r.addresses as unknown[]));
      token = r.nextPageToken as string | undefined;
    } while (token);
    expect(paged).toEqual(sorted);
    // A validator webhook's keys and nodeIds filter likewise; an empty subnetIds filter stays as given.
    const nodes = Array.from({length: 120}, (_, i) => `NodeID-${i.toString().padStart(4, "0")}`);
    const va = await call("POST", "/v1/webhooks", {
      eventType: "validator_activity",
      url: "http://127.0.0.1:9/v",
      network: "local",
      metadata: {
        keyType: "nodeId",
        keys: nodes,
        nodeIds: nodes,
        subnetIds: [],
        subEvents: {validatorActivitySubEvents: ["validator_stake"]},
      },
    });
    expect(va.status, JSON.stringify(va.json)).toBe(201);
    expect(va.json.metadata).toMatchObject({
      keyType: "nodeId",
      keys: nodes.slice(0, 100),
      nodeIds: nodes.slice(0, 100),
      subnetIds: [],
    });
    expect((await call("GET", `/v1/webhooks/${va.json.id as string}/addresses?pageSize=100`)).json).toMatchObject({
      totalAddresses: 120,
      addresses: nodes.slice(0, 100),
    });
    // The webhooks' rows hold no keys: the fold and delivery read metadata with every event.
    const rows = await t.node.dataApi!.sql.query<{n: number}>(
      "SELECT octet_length(metadata::text)::int4 AS n FROM webhooks WHERE id = ANY($1::text[])",
      [[id, va.json.id]],
    );
    for (const r of rows) expect(r.n).toBeLessThan(200);
    for (const x of [id, va.json.id as string]) expect((await call("DELETE", `/v1/webhooks/${x}`)).status).toBe(200);
  });

  it("inlines a webhook's first 100 addresses and pages them all; refuses a key's webhook past --webhooks-max-per-key", async () => {
    const many = Array.from({length: 150}, (_, i) => "0x" + (i + 1).toString(16).padStart(40, "0"));
    const made = await call("POST", "/v1/webhooks", evmBody({metadata: {addresses: many}}), KEY_B);
    expect(made.status).toBe(201);
    const id = made.json.id as string;
    const inline = (j: Record<string, unknown>): unknown[] => (j.metadata as {addresses: unknown[]}).addresses;
    expect(inline(made.json)).toHaveLength(100);
    expect(inline((await call("GET", `/v1/webhooks/${id}`, undefined, KEY_B)).json)).toHaveLength(100);
    const listed = (await call("GET", "/v1/webhooks?pageSize=100", undefined, KEY_B)).json.webhooks as Array<
      Record<string, unknown>
    >;
    expect(inline(listed.find((x) => x.id === id)!)).toHaveLength(100);
    const paged: unknown[] = [];
    let token: string | undefined;
    do {
      const r = (
        await call(
          "GET",
          `/v1/webhooks/${id}/addresses?pageSize=100${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`,
          undefined,
          KEY_B,
        )
      ).json;
      paged.push(...(r.addresses as unknown[]));
      token = r.nextPageToken as string | undefined;
    } while (token);
    expect(paged).toHaveLength(150);
    // KEY_B now has one active webhook of the node's MAX_PER_KEY.
    const ids = [id];
    for (let i = 1; i < MAX_PER_KEY; i++) {
      const r = await call("POST", "/v1/webhooks", evmBody(), KEY_B);
      expect(r.status).toBe(201);
      ids.push(r.json.id as string);
    }
    const refused = await call("POST", "/v1/webhooks", evmBody(), KEY_B);
    expect(refused).toMatchObject({status: 403, json: {statusCode: 403, error: "Forbidden"}});
    expect(refused.json.message).toMatch(new RegExp(`has ${MAX_PER_KEY} active webhooks.*--webhooks-max-per-key`));
    // Another key is not held by B's count; a deactivated webhook frees its place, and taking it back is refused.
    expect((await call("POST", "/v1/webhooks", evmBody(), KEY_A)).status).toBe(201);
    expect((await call("DELETE", `/v1/webhooks/${ids[0]}`, undefined, KEY_B)).status).toBe(200);
    expect((await call("POST", "/v1/webhooks", evmBody(), KEY_B)).status).toBe(201);
    expect((await call("PATCH", `/v1/webhooks/${ids[0]}`, {status: "active"}, KEY_B)).status).toBe(403);
    expect((await call("GET", `/v1/webhooks/${ids[0]}`, undefined, KEY_B)).json.status).toBe("inactive");
    for (const x of ids.slice(1))
      expect((await call("DELETE", `/v1/webhooks/${x}`, undefined, KEY_B)).status).toBe(200);
  });

  it("answers 400 naming the field for bad bodies", async () => {
    const cases: Array<[unknown, string]> = [
      ["{not json", "body"],
      [[1], "body"],
      [evmBody({eventType: "nope"}), "eventType"],
      [evmBody({url: "ftp://x/"}), "url"],
      [evmBody({url: "not a url"}), "url"],
      [evmBody({chainId: "12345"}), "chainId"],
      [evmBody({metadata: {addresses: []}}), "metadata.addresses"],
      [evmBody({metadata: {addresses: ["0x12"]}}), "metadata.addresses[0]"],
      [evmBody({metadata: {addresses: [A1], eventSignatures: ["0x1"]}}), "metadata.eventSignatures[0]"],
      [evmBody({metadata: {addresses: [A1], extra: 1}}), "metadata.extra"],
      [evmBody({includeLogs: "yes"}), "includeLogs"],
      [evmBody({name: 5}), "name"],
      [evmBody({secret: "short"}), "secret"],
      [
        evmBody({
          metadata: {addresses: Array.from({length: 5_001}, (_, i) => "0x" + i.toString(16).padStart(40, "0"))},
        }),
        "metadata.addresses",
      ],
      [{eventType: "validator_activity", url: "http://127.0.0.1:9/", network: "mainnet", metadata: {}}, "network"],
      [
        {
          eventType: "validator_activity",
          url: "http://127.0.0.1:9/",
          network: "local",
          metadata: {keyType: "nodeId", keys: ["x"], subEvents: {validatorActivitySubEvents: ["nope"]}},
        },
        "metadata.subEvents.validatorActivitySubEvents[0]",
      ],
      [
        {
          eventType: "primary_network_address_activity",
          url: "http://127.0.0.1:9/",
          network: "local",
          chainId: "c-chain",
          metadata: {},
        },
        "chainId",
      ],
    ];
    for (const [body, field] of cases) {
      const r = await call("POST", "/v1/webhooks", body);
      expect(r.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(r.json.message, JSON.stringify(body).slice(0, 120)).toMatch(
        new RegExp(`^${field.replace(/[[\].]/g, "\\$&")}: `),
      );
      expect(r.json).toMatchObject({statusCode: 400, error: "Bad Request"});
    }
    const id = (await call("POST", "/v1/webhooks", evmBody())).json.id as string;
    expect((await call("PATCH", `/v1/webhooks/${id}`, {status: "paused"})).json.message).toMatch(/^status: /);
    expect((await call("PATCH", `/v1/webhooks/${id}`, {colour: "red"})).json.message).toMatch(/^colour: unknown field/);
    expect((await call("PATCH", `/v1/webhooks/${id}/addresses`, {addresses: "0x"})).json.message).toMatch(
      /^addresses: /,
    );
    expect((await call("GET", "/v1/webhooks?status=paused")).json.message).toMatch(/^status: /);
    expect((await call("GET", "/v1/webhooks?pageToken=garbage")).status).toBe(400);
    expect((await call("GET", `/v1/webhooks/${id}/addresses?pageSize=0`)).json.message).toMatch(/^pageSize: /);
    expect((await call("PUT", `/v1/webhooks/${id}`, {})).status).toBe(405);
  });
});

describe("webhooks' URLs without --webhooks-allow-private-urls", () => {
  let anvil: Anvil;
  let t: TestNode;
  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "auto"},
      {logger: quietLogger()},
    );
    t = await startNode(webhookNodeFlags(anvil.url, keysFile(), "embedded"));
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await anvil?.stop();
  });

  it("refuses loopback, private and link-local targets by the NFT fetcher's SSRF guard", async () => {
    for (const url of [
      "http://127.0.0.1:8080/",
      "http://localhost/",
      "http://10.1.2.3/",
      "http://169.254.169.254/latest",
      "http://[::1]/",
      "http://192.168.0.1/",
    ]) {
      const res = await fetch(new URL("/v1/webhooks", t.url), {
        method: "POST",
        headers: {"content-type": "application/json", "x-glacier-api-key": KEY_A},
        body: JSON.stringify({eventType: "address_activity", url, chainId: CHAIN, metadata: {addresses: [A1]}}),
      });
      const body = (await res.json()) as {message: string};
      expect(res.status, url).toBe(400);
      expect(body.message, url).toMatch(/^url: .*non-public address.*--webhooks-allow-private-urls/);
    }
  });
});
