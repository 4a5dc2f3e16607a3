import http from "node:http";
import type {AddressInfo} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {
  fetchNftMetadata,
  isForbiddenAddress,
  parseNftMetadata,
  substituteTokenId,
  type NftFetchOptions,
} from "../../../../src/dataApi/evm/nftMetadata.js";

const DOC = {
  name: "Kitty #1",
  description: "a cat",
  image: "ipfs://QmImage/1.png",
  external_url: "https://example.com/1",
  animation_url: "https://example.com/1.mp4",
  background_color: "ffffff",
  attributes: [{trait_type: "eyes", value: "green"}],
};
const EXPECTED = {
  name: "Kitty #1",
  description: "a cat",
  imageUri: "ipfs://QmImage/1.png",
  externalUrl: "https://example.com/1",
  animationUri: "https://example.com/1.mp4",
  background: "ffffff",
  attributes: JSON.stringify(DOC.attributes),
};
const CID = "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG";

/** A real HTTP server on 127.0.0.1 that records every request it sees. */
async function server(
  handler: http.RequestListener,
): Promise<{url: string; port: number; seen: string[]; close: () => Promise<void>}> {
  const seen: string[] = [];
  const s = http.createServer((req, res) => {
    seen.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () => {
      s.closeAllConnections();
      return new Promise((r) => s.close(() => r()));
    },
  };
}

const json = (res: http.ServerResponse, body: unknown): void => {
  res.writeHead(200, {"content-type": "application/json"}).end(JSON.stringify(body));
};

describe("substituteTokenId", () => {
  it("puts 64 lowercase hex digits in every {id}", () => {
    expect(substituteTokenId("https://x/{id}.json?v={id}", 0x1abn)).toBe(
      `https://x/${"0".repeat(61)}1ab.json?v=${"0".repeat(61)}1ab`,
    );
    expect(substituteTokenId("https://x/1.json", 5n)).toBe("https://x/1.json");
  });

  it("refuses a result past the cap: each {id} grows by 60 bytes", () => {
    const max = 2 * 1024 * 1024;
    // 2 MiB as the contract returns it, 32 MiB substituted.
    expect(substituteTokenId("{id}".repeat(524_288), 1n, max)).toBeUndefined();
    const fits = "a".repeat(max - 64) + "{id}";
    expect(substituteTokenId(fits, 1n, max)).toHaveLength(max);
    expect(substituteTokenId("b" + fits, 1n, max)).toBeUndefined();
  });
});

describe("isForbiddenAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.255",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:a9fe:a9fe",
    "::ffff:100.64.0.1",
    "64:ff9b::a00:1",
    "not-an-ip",
    // IPv4 carried in IPv6: NAT64 local-use, 6to4 (2002:7f00:1:: is 127.0.0.1), Teredo; and the discard prefix.
    "64:ff9b:1::a00:1",
    "2002:7f00:1::1",
    "2002:a00:1::",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "100::1",
  ])("refuses %s", (a) => expect(isForbiddenAddress(a)).toBe(true));
  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "11.0.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"])(
    "allows %s",
    (a) => expect(isForbiddenAddress(a)).toBe(false),
  );
});

describe("fetchNftMetadata: data: URIs and schemes", () => {
  const opts: NftFetchOptions = {ipfsGateway: "https://ipfs.invalid/ipfs/", allowPrivate: false};

  it("reads base64, percent-encoded and raw JSON", async () => {
    const text = JSON.stringify(DOC);
    expect(
      await fetchNftMetadata(`data:application/json;base64,${Buffer.from(text).toString("base64")}`, opts),
    ).toEqual({
      indexStatus: "INDEXED",
      metadata: EXPECTED,
    });
    expect(await fetchNftMetadata(`data:application/json,${encodeURIComponent(text)}`, opts)).toEqual({
      indexStatus: "INDEXED",
      metadata: EXPECTED,
    });
    expect(await fetchNftMetadata(`data:application/json;utf8,{"name":"100% cat"}`, opts)).toEqual({
      indexStatus: "INDEXED",
      metadata: {name: "100% cat"},
    });
    expect(
      await fetchNftMetadata(
        `data:text/plain;charset=utf-8;base64,${Buffer.from('{"name":"é"}').toString("base64")}`,
        opts,
      ),
    ).toEqual({
      indexStatus: "INDEXED",
      metadata: {name: "é"},
    });
  });

  it("tells invalid JSON from JSON that is not metadata", async () => {
    expect((await fetchNftMetadata("data:application/json,{not json", opts)).indexStatus).toBe("INVALID_METADATA_JSON");
    expect(
      (await fetchNftMetadata(`data:application/json;base64,${Buffer.from("[1,2]").toString("base64")}`, opts))
        .indexStatus,
    ).toBe("INVALID_METADATA");
    expect((await fetchNftMetadata("data:application/json,null", opts)).indexStatus).toBe("INVALID_METADATA");
    expect((await fetchNftMetadata("data:application/json", opts)).indexStatus).toBe("INVALID_TOKEN_URI");
  });

  it("caps a data: URI's size", async () => {
    const big = `data:application/json,{"name":"${"a".repeat(2000)}"}`;
    expect((await fetchNftMetadata(big, {...opts, maxBytes: 1024})).indexStatus).toBe("METADATA_CONTENT_TOO_LARGE");
  });

  it.each(["ftp://example.com/1.json", "javascript:alert(1)", "file:///etc/passwd", "gopher://x/"])(
    "refuses the scheme of %s",
    async (uri) => {
      expect((await fetchNftMetadata(uri, opts)).indexStatus).toBe("INVALID_TOKEN_URI_SCHEME");
    },
  );

  it("refuses what is no URI", async () => {
    expect((await fetchNftMetadata("", opts)).indexStatus).toBe("INVALID_TOKEN_URI");
    expect((await fetchNftMetadata("just words", opts)).indexStatus).toBe("INVALID_TOKEN_URI");
    expect((await fetchNftMetadata("http://", opts)).indexStatus).toBe("INVALID_TOKEN_URI");
    expect((await fetchNftMetadata("ipfs://", opts)).indexStatus).toBe("INVALID_TOKEN_URI");
    // The URL parser drops tabs and newlines, so `.\t.` is `..` once parsed.
    for (const climb of [
      `ipfs://${CID}/../../admin`,
      `ipfs://${CID}/%2e%2E/x`,
      `ipfs://${CID}\\..\\x`,
      "ipfs://../x",
      `ipfs://${CID}/.\t./.\n./admin`,
      `ipfs://${CID}/%2e\r%2e/x`,
    ])
      expect((await fetchNftMetadata(climb, opts)).indexStatus, climb).toBe("INVALID_TOKEN_URI");
  });

  it("keeps metadata fields' types sane", () => {
    expect(
      parseNftMetadata('{"name":7,"description":{"x":1},"image_url":"u","properties":{"a":1},"attributes":null}'),
    ).toEqual({
      indexStatus: "INDEXED",
      metadata: {name: "7", imageUri: "u", properties: '{"a":1}'},
    });
    expect(parseNftMetadata('\uFEFF{"name":"a\\u0000b"}').metadata).toEqual({name: "ab"});
    expect(parseNftMetadata('{"decimals":2}').metadata).toEqual({decimals: 2});
    expect(parseNftMetadata('{"decimals":256}').metadata).toEqual({});
    // Lone surrogates (valid JSON, refused by jsonb) become U+FFFD; a pair is one character and stays.
    expect(parseNftMetadata('{"name":"\\ud800x","description":"\\udc00","image":"\\ud83d\\ude00"}').metadata).toEqual({
      name: "\uFFFDx",
      description: "\uFFFD",
      imageUri: "\u{1F600}",
    });
  });
});

describe("fetchNftMetadata over HTTP", () => {
  let a: Awaited<ReturnType<typeof server>>;
  let b: Awaited<ReturnType<typeof server>>;

  beforeAll(async () => {
    b = await server((_req, res) => json(res, {name: "from b"}));
    a = await server((req, res) => {
      const path = req.url ?? "";
      if (path === "/1.json" || path === `/ipfs/${CID}/1.json`) return json(res, DOC);
      if (path === "/big") return res.writeHead(200, {"content-length": "4096"}).end("x".repeat(4096));
      if (path === "/big-chunked") {
        res.writeHead(200);
        for (let i = 0; i < 8; i++) res.write("x".repeat(512));
        return res.end();
      }
      if (path === "/slow") return void setTimeout(() => json(res, DOC), 3000).unref();
      if (path === "/trickle") {
        res.writeHead(200);
        res.write('{"name":');
        return void setTimeout(() => res.end('"late"}'), 3000).unref();
      }
      if (path === "/404") return res.writeHead(404).end();
      if (path === "/429") return res.writeHead(429).end();
      const hops = /^\/hop\/(\d+)$/.exec(path);
      if (hops)
        return res.writeHead(302, {location: hops[1] === "0" ? "/1.json" : `/hop/${Number(hops[1]) - 1}`}).end();
      if (path === "/ipfs/to-localhost" || path === "/to-localhost")
        return res.writeHead(302, {location: `http://localhost:${b.port}/x`}).end();
      if (path === "/ipfs/to-ftp") return res.writeHead(301, {location: "ftp://example.com/x"}).end();
      res.writeHead(500).end();
    });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const priv: NftFetchOptions = {ipfsGateway: "https://ipfs.invalid/ipfs/", allowPrivate: true};
  const pub: NftFetchOptions = {...priv, allowPrivate: false};

  it("refuses a loopback address without contacting it, and serves it when private addresses are allowed", async () => {
    const before = a.seen.length;
    expect(await fetchNftMetadata(`${a.url}/1.json`, pub)).toMatchObject({indexStatus: "UNREACHABLE_TOKEN_URI"});
    expect(await fetchNftMetadata(`http://[::ffff:127.0.0.1]:${a.port}/1.json`, pub)).toMatchObject({
      indexStatus: "UNREACHABLE_TOKEN_URI",
    });
    expect(a.seen.length).toBe(before);
    expect(await fetchNftMetadata(`${a.url}/1.json`, priv)).toEqual({indexStatus: "INDEXED", metadata: EXPECTED});
    expect(a.seen.length).toBe(before + 1);
  });

  it("refuses a hostname that resolves to a loopback address (localhost) without contacting it", async () => {
    const before = a.seen.length;
    const r = await fetchNftMetadata(`http://localhost:${a.port}/1.json`, pub);
    expect(r.indexStatus).toBe("UNREACHABLE_TOKEN_URI");
    expect(r.detail).toMatch(/non-public/);
    expect(a.seen.length).toBe(before);
  });

  it("caps the body, declared or streamed", async () => {
    expect((await fetchNftMetadata(`${a.url}/big`, {...priv, maxBytes: 1024})).indexStatus).toBe(
      "METADATA_CONTENT_TOO_LARGE",
    );
    expect((await fetchNftMetadata(`${a.url}/big-chunked`, {...priv, maxBytes: 1024})).indexStatus).toBe(
      "METADATA_CONTENT_TOO_LARGE",
    );
  });

  it("gives up on a slow server at the deadline", async () => {
    for (const path of ["/slow", "/trickle"]) {
      const t0 = Date.now();
      expect((await fetchNftMetadata(`${a.url}${path}`, {...priv, timeoutMs: 300})).indexStatus).toBe(
        "UNREACHABLE_TOKEN_URI",
      );
      expect(Date.now() - t0).toBeLessThan(2000);
    }
  });

  it("maps HTTP errors", async () => {
    expect((await fetchNftMetadata(`${a.url}/404`, priv)).indexStatus).toBe("UNREACHABLE_TOKEN_URI");
    expect((await fetchNftMetadata(`${a.url}/429`, priv)).indexStatus).toBe("THROTTLED_TOKEN_URI");
    expect((await fetchNftMetadata(`http://127.0.0.1:1/x`, priv)).indexStatus).toBe("UNREACHABLE_TOKEN_URI");
  });

  it("follows at most 3 redirects", async () => {
    expect(await fetchNftMetadata(`${a.url}/hop/2`, priv)).toEqual({indexStatus: "INDEXED", metadata: EXPECTED});
    expect((await fetchNftMetadata(`${a.url}/hop/3`, priv)).indexStatus).toBe("UNREACHABLE_TOKEN_URI");
  });

  it("reads ipfs:// through the (trusted, operator-chosen) gateway", async () => {
    const gw: NftFetchOptions = {ipfsGateway: `${a.url}/ipfs`, allowPrivate: false};
    expect(await fetchNftMetadata(`ipfs://${CID}/1.json`, gw)).toEqual({indexStatus: "INDEXED", metadata: EXPECTED});
    expect(await fetchNftMetadata(`ipfs://ipfs/${CID}/1.json`, gw)).toEqual({
      indexStatus: "INDEXED",
      metadata: EXPECTED,
    });
    expect(await fetchNftMetadata(`${CID}/1.json`, gw)).toEqual({indexStatus: "INDEXED", metadata: EXPECTED});
  });

  it("checks every redirect: one to a private host is refused without contacting it", async () => {
    const gw: NftFetchOptions = {ipfsGateway: `${a.url}/ipfs/`, allowPrivate: false};
    const r = await fetchNftMetadata("ipfs://to-localhost", gw);
    expect(r.indexStatus).toBe("UNREACHABLE_TOKEN_URI");
    expect(r.detail).toMatch(/localhost resolves to .*non-public/);
    expect(b.seen).toEqual([]);
    expect((await fetchNftMetadata("ipfs://to-ftp", gw)).indexStatus).toBe("INVALID_TOKEN_URI_SCHEME");
    // With private addresses allowed, the same redirect is followed.
    expect(await fetchNftMetadata(`${a.url}/to-localhost`, priv)).toEqual({
      indexStatus: "INDEXED",
      metadata: {name: "from b"},
    });
    expect(b.seen).toEqual(["/x"]);
  });
});
