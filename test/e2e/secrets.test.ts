/**
 * No secret in an EVM RPC URL reaches anyone but that RPC (issue "Data API under hostile input": credentials, query
 * keys and path keys). A real node follows a real anvil through an HTTP proxy on 127.0.0.1 that answers only a
 * request with the URL's basic-auth credentials, its path key and its query key, so following the chain at all proves
 * credentials go as an `authorization` header (Node's fetch refuses them in a URL). Then every place a URL used to
 * show up is read, with the RPC up and then down (its errors in health checks and 503 bodies), and searched for each
 * secret: /ext/health, /v1/health-check, /v1/chains, /v1/chains/{id}, a 503 body, admin.getConfig (which also holds
 * the PostgreSQL store's password) and every log line down to DEBUG.
 */
import {createServer, type Server} from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {startNode, type TestNode} from "../helpers/node.js";
import {createTestDatabase, quietLogger} from "../helpers/sql.js";

const CHAIN = "99997";
const USER = "rpc-user-7f3a";
const PASS = "pass-9c1e-SECRET";
const PATH_KEY = "pathkey-4b2d-SECRET";
const QUERY_KEY = "querykey-81aa-SECRET";
const SECRETS = [USER, PASS, PATH_KEY, QUERY_KEY];

/** Forwards to anvil only a request that carries every secret; answers 502 to everything while `down`. */
class KeyedProxy {
  private server!: Server;
  port = 0;
  down = false;
  refused = 0;

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    const auth = "Basic " + Buffer.from(`${USER}:${PASS}`).toString("base64");
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        if (this.down) return void res.writeHead(502).end("bad gateway");
        if (req.headers.authorization !== auth || req.url !== `/v3/${PATH_KEY}?apikey=${QUERY_KEY}`) {
          this.refused++;
          return void res.writeHead(401).end("unauthorized");
        }
        const r = await fetch(this.target, {
          method: "POST",
          headers: {"content-type": "application/json"},
          body: Buffer.concat(chunks),
        });
        res.writeHead(r.status, {"content-type": "application/json"}).end(await r.text());
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

describe("secrets in configured URLs", () => {
  let anvil: Anvil;
  let proxy: KeyedProxy;
  let t: TestNode;
  let dbUrl: string;

  const expectNoSecret = (where: string, text: string): void => {
    for (const s of SECRETS) expect(text.includes(s), `${where} carries ${s}: ${text.slice(0, 2000)}`).toBe(false);
  };
  /** Every answer the secrets used to reach, as text. */
  const answers = async (): Promise<Array<[string, string]>> => {
    const out: Array<[string, string]> = [];
    for (const path of [
      "/ext/health",
      "/v1/health-check",
      "/v1/chains",
      `/v1/chains/${CHAIN}`,
      `/v1/chains/${CHAIN}/addresses/0x976EA74026E726554dB657fA54763abd0C3a0aa9/balances:getNative`,
    ]) {
      out.push([path, (await t.get(path)).text]);
    }
    out.push(["admin.getConfig", JSON.stringify((await t.rpc("/ext/admin", "admin.getConfig")).body)]);
    return out;
  };

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "auto"},
      {logger: quietLogger()},
    );
    await anvil.rawCall("anvil_mine", ["0x3"]);
    proxy = new KeyedProxy(anvil.url);
    await proxy.start();
    dbUrl = await createTestDatabase();
    const rpcUrl = `http://${USER}:${PASS}@127.0.0.1:${proxy.port}/v3/${PATH_KEY}?apikey=${QUERY_KEY}`;
    t = await startNode(
      {
        "network-id": "local",
        "index-enabled": true,
        feed: "dev",
        "dev-evm": false,
        "data-api-enabled": true,
        "data-api-db": dbUrl,
        "data-api-rate-limit": "0",
        "api-admin-enabled": true,
        "evm-rpc": `${CHAIN}=${rpcUrl}`,
        "log-display-level": "DEBUG",
      },
      {captureLogs: true},
    );
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await anvil?.stop();
  });

  it("follows an RPC whose URL has credentials, a path key and a query key, and shows none of them", async () => {
    const follower = t.node.dataApi!.evm!.chains.find((c) => c.follower?.status().chainId === CHAIN)!.follower!;
    await follower.waitFor(3n, 60_000);
    expect(proxy.refused, "every request carried the credentials, path and query").toBe(0);
    const chain = (await t.get(`/v1/chains/${CHAIN}`)).json() as {rpcUrl: string; description: string};
    expect(chain.rpcUrl).toBe(`http://127.0.0.1:${proxy.port}/…`);
    expect(chain.description).toContain(`http://127.0.0.1:${proxy.port}/…`);
    for (const [where, text] of await answers()) expectNoSecret(where, text);
    // The PostgreSQL store's password too, in the one answer that shows the store's URL.
    const password = new URL(dbUrl).password;
    const config = (await t.rpc("/ext/admin", "admin.getConfig")).body.result as
      | {config: Record<string, unknown>}
      | Record<string, unknown>;
    const text = JSON.stringify(config);
    expect(password.length).toBeGreaterThan(0);
    expect(text.includes(`:${password}@`), text).toBe(false);
    expect(text).toContain(`127.0.0.1:${proxy.port}/…`);
  }, 120_000);

  it("shows none of them in the errors of an RPC that fails: health checks, 503 bodies, logs", async () => {
    proxy.down = true;
    const balance = `/v1/chains/${CHAIN}/addresses/0x976EA74026E726554dB657fA54763abd0C3a0aa9/balances:getNative`;
    // The balance is read from the RPC: with it down, a 503 that says why.
    let r = await t.get(balance);
    for (let i = 0; i < 100 && r.status !== 503; i++) r = await t.get(balance);
    expect(r.status, r.text).toBe(503);
    expect(r.text).toContain("HTTP 502");
    // The follower's polls fail too: its health check names the error, once it has run since.
    let health = "";
    for (
      const deadline = Date.now() + 30_000;
      Date.now() < deadline;
      await new Promise((res) => setTimeout(res, 100))
    ) {
      health = (await t.get("/ext/health")).text;
      if (health.includes("HTTP 502")) break;
    }
    expect(health).toContain("HTTP 502");
    for (const [where, text] of await answers()) expectNoSecret(where, text);
    expect(t.logs.length).toBeGreaterThan(0);
    expectNoSecret("the logs", t.logs.map((l) => JSON.stringify(l)).join("\n"));
    proxy.down = false;
  }, 120_000);
});
