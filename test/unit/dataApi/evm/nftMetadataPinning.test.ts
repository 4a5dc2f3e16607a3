/**
 * The connection goes to the addresses that were checked, never to a second DNS answer (DNS rebinding): the
 * resolver is replaced so `rebind.test` (which the system resolver cannot resolve) maps to a local server.
 */
import http from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it, vi} from "vitest";

const answers = new Map<string, {address: string; family: number}[]>();
vi.mock("node:dns/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:dns/promises")>();
  const lookup = async (host: string, opts: unknown) => answers.get(host) ?? actual.lookup(host, opts as {all: true});
  return {...actual, lookup, default: {...actual, lookup}};
});

const {fetchNftMetadata} = await import("../../../../src/dataApi/evm/nftMetadata.js");

describe("fetchNftMetadata address pinning", () => {
  let srv: http.Server;
  let port: number;
  const hosts: string[] = [];

  beforeAll(async () => {
    srv = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? "");
      res.writeHead(200, {"content-type": "application/json"}).end('{"name":"pinned"}');
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    port = (srv.address() as AddressInfo).port;
  });

  afterAll(async () => {
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  });

  it("connects to the checked address, sending the URL's Host", async () => {
    answers.set("rebind.test", [{address: "127.0.0.1", family: 4}]);
    const r = await fetchNftMetadata(`http://rebind.test:${port}/1.json`, {
      ipfsGateway: "https://ipfs.invalid/ipfs/",
      allowPrivate: true,
    });
    expect(r).toEqual({indexStatus: "INDEXED", metadata: {name: "pinned"}});
    expect(hosts).toEqual([`rebind.test:${port}`]);
  });

  it("refuses a host when any of its addresses is private, even next to a public one", async () => {
    answers.set("mixed.test", [
      {address: "8.8.8.8", family: 4},
      {address: "127.0.0.1", family: 4},
    ]);
    const r = await fetchNftMetadata(`http://mixed.test:${port}/1.json`, {
      ipfsGateway: "https://ipfs.invalid/ipfs/",
      allowPrivate: false,
    });
    expect(r.indexStatus).toBe("UNREACHABLE_TOKEN_URI");
    expect(r.detail).toMatch(/127\.0\.0\.1/);
    expect(hosts).toHaveLength(1);
  });
});
