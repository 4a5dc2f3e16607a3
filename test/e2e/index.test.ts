/** The index API over HTTP, fed by a real file feed (docs/api/index.md; AvalancheGo indexer). */
import {createHash} from "node:crypto";
import {appendFileSync, writeFileSync} from "node:fs";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {containerBytes, feedLine, sha256Id, waitForCount} from "../helpers/feed.js";
import {startNode, tempDir, type TestNode} from "../helpers/node.js";

const X = "/ext/index/X/tx";
const P = "/ext/index/P/block";
const XB = "/ext/index/X/block";
const GIVEN_ID = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM";
let t: TestNode;
let feed: string;

type Container = {id: string; bytes: string; timestamp: string; encoding: string; index: string};
const result = <T>(r: {body: {result?: unknown}}): T => r.body.result as T;

beforeAll(async () => {
  const dir = tempDir();
  feed = path.join(dir, "feed.ndjson");
  const lines = [
    feedLine({chain: "X", kind: "tx", n: 0}, {timestamp: "2024-05-01T12:00:00.123456789Z"}),
    feedLine({chain: "X", kind: "tx", n: 1}, {timestamp: "2024-05-01T14:00:00.5+02:00"}),
    "this is not json\n",
    feedLine({chain: "avm", kind: "tx", n: 2}),
    JSON.stringify({chain: "Q", kind: "tx", bytes: "0x00"}) + "\n",
    JSON.stringify({chain: "P", kind: "tx", bytes: "0x00"}) + "\n",
    JSON.stringify({chain: "X", kind: "tx", bytes: "0xzz"}) + "\n",
    JSON.stringify({chain: "X", kind: "tx", bytes: "abcd"}) + "\n",
    feedLine({chain: "X", kind: "tx", n: 3}, {id: GIVEN_ID}),
    feedLine({chain: "X", kind: "tx", n: 1}), // duplicate of line 2: skipped silently
    feedLine({chain: "11111111111111111111111111111111LpoYY", kind: "block", n: 0}),
    "\n",
    // 100 containers of 1 KiB: a range of them is answered as byte chunks, not one string.
    ...Array.from({length: 100}, (_, n) => feedLine({chain: "X", kind: "block", n, size: 1024})),
  ];
  writeFileSync(feed, lines.join(""));
  t = await startNode(
    {"index-enabled": "true", "api-admin-enabled": "true", feed: `file:${feed}`},
    {captureLogs: true},
  );
  await waitForCount(t, X, 4);
  await waitForCount(t, P, 1);
  await waitForCount(t, XB, 100);
});
afterAll(async () => t.close());

describe("index methods", () => {
  it("getContainerByIndex: AvalancheGo's shape, hex with checksum, RFC 3339 UTC with ns", async () => {
    const c = result<Container>(await t.rpc(X, "index.getContainerByIndex", {index: 0, encoding: "hex"}));
    const bytes = containerBytes("X", "tx", 0);
    expect(Object.keys(c)).toEqual(["id", "bytes", "timestamp", "encoding", "index"]);
    expect(c.id).toBe(sha256Id(bytes));
    expect(c.bytes.slice(0, 2 + bytes.length * 2)).toBe("0x" + bytes.toString("hex"));
    expect(c.bytes).toHaveLength(2 + (bytes.length + 4) * 2);
    expect(c.bytes.slice(2 + bytes.length * 2)).toBe(
      createHash("sha256").update(bytes).digest().subarray(28).toString("hex"),
    );
    expect(c.timestamp).toBe("2024-05-01T12:00:00.123456789Z");
    expect(c.encoding).toBe("hex");
    expect(c.index).toBe("0");
    const c1 = result<Container>(await t.rpc(X, "index.getContainerByIndex", {index: "001"}));
    expect(c1.timestamp).toBe("2024-05-01T12:00:00.5Z");
    expect((await t.rpc(X, "index.getContainerByIndex", {index: 9})).body.error).toEqual({
      code: -32000,
      message: "no container at index 9",
    });
  });

  it("encodings: hexnc without checksum, hexc, case-insensitive; json and unknown refused", async () => {
    const bytes = containerBytes("X", "tx", 0);
    const nc = result<Container>(await t.rpc(X, "index.getContainerByIndex", {index: 0, encoding: "hexnc"}));
    expect(nc.bytes).toBe("0x" + bytes.toString("hex"));
    expect(nc.encoding).toBe("hexnc");
    const hc = result<Container>(await t.rpc(X, "index.getContainerByIndex", {index: 0, encoding: "HEXC"}));
    expect(hc.encoding).toBe("hexc");
    expect(hc.bytes).toHaveLength(2 + (bytes.length + 4) * 2);
    expect((await t.rpc(X, "index.getLastAccepted", {encoding: "json"})).body.error).toEqual({
      code: -32000,
      message: "unsupported encoding in method",
    });
    expect((await t.rpc(X, "index.getLastAccepted", {encoding: "cb58"})).body.error?.code).toBe(-32602);
  });

  it("getLastAccepted, getIndex, isAccepted, getContainerByID; ids given on the line are kept", async () => {
    const last = result<Container>(await t.rpc(X, "index.getLastAccepted"));
    expect(last.index).toBe("3");
    expect(last.id).toBe(GIVEN_ID);
    expect(result(await t.rpc(X, "index.getIndex", {id: GIVEN_ID, encoding: "hex"}))).toEqual({index: "3"});
    expect(result(await t.rpc(X, "index.isAccepted", {id: GIVEN_ID}))).toEqual({isAccepted: true});
    const byId = result<Container>(await t.rpc(X, "index.getContainerByID", {id: GIVEN_ID}));
    expect(byId).toEqual(last);
    const unknown = "11111111111111111111111111111111LpoYY";
    expect((await t.rpc(X, "index.getIndex", {id: unknown})).body.error).toEqual({code: -32000, message: "not found"});
    expect((await t.rpc(X, "index.getContainerByID", {id: unknown})).body.error).toEqual({
      code: -32000,
      message: "not found",
    });
    expect(result(await t.rpc(X, "index.isAccepted", {id: unknown}))).toEqual({isAccepted: false});
    expect((await t.rpc(X, "index.getIndex", {id: "X"})).body.error).toEqual({
      code: -32602,
      message: "invalid params: id: input string is smaller than the checksum size",
    });
    expect((await t.rpc(X, "index.getIndex", {})).body.error).toEqual({
      code: -32602,
      message: "invalid params: id: missing required field",
    });
  });

  it("getContainerRange: {containers}, truncation, 0, the 1024 cap, empty index, start past the end", async () => {
    const r = result<{containers: Container[]}>(
      await t.rpc(X, "index.getContainerRange", {startIndex: 1, numToFetch: 10}),
    );
    expect(r.containers.map((c) => c.index)).toEqual(["1", "2", "3"]);
    expect(result(await t.rpc(X, "index.getContainerRange", {startIndex: 99, numToFetch: 0}))).toEqual({
      containers: [],
    });
    expect(result(await t.rpc("/ext/index/X/vtx", "index.getContainerRange", {startIndex: 0, numToFetch: 0}))).toEqual({
      containers: [],
    });
    expect((await t.rpc(X, "index.getContainerRange", {startIndex: 0, numToFetch: 1025})).body.error).toEqual({
      code: -32000,
      message: "numToFetch must be in [0,1024] but is 1025",
    });
    expect(
      (await t.rpc("/ext/index/X/vtx", "index.getContainerRange", {startIndex: 0, numToFetch: 1})).body.error,
    ).toEqual({
      code: -32000,
      message: "no containers have been accepted",
    });
    expect((await t.rpc(X, "index.getContainerRange", {startIndex: 5, numToFetch: 1})).body.error).toEqual({
      code: -32000,
      message: "start index (5) > last accepted index (3)",
    });
    expect((await t.rpc(X, "index.getContainerRange", {startIndex: -1, numToFetch: 1})).body.error?.code).toBe(-32602);
    expect((await t.rpc("/ext/index/C/block", "index.getLastAccepted")).body.error).toEqual({
      code: -32000,
      message: "no containers have been accepted",
    });
  });

  it("getContainerRange pages equal getContainerByIndex answers, whether written in place, admitted or cached", async () => {
    for (const encoding of ["hex", "hexnc", "hexc"]) {
      // First read of the range: written into the page; second: admitted into the cache; third: from the cache.
      const texts = [];
      for (let k = 0; k < 3; k++) {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "index.getContainerRange",
          params: {startIndex: 0, numToFetch: 4, encoding},
        });
        texts.push((await t.post(X, body, {"content-type": "application/json"})).text);
      }
      expect(new Set(texts).size).toBe(1);
      const single = [];
      for (let i = 0; i < 4; i++)
        single.push(result<Container>(await t.rpc(X, "index.getContainerByIndex", {index: i, encoding})));
      expect((JSON.parse(texts[0]!) as {result: {containers: Container[]}}).result.containers).toEqual(single);
    }
  });

  it("a large page (answered as byte chunks) and a batch mixing it with text answers: exact content-length", async () => {
    const post = async (body: unknown): Promise<{text: string; length: number}> => {
      const res = await fetch(new URL(XB, t.url), {
        method: "POST",
        headers: {"content-type": "application/json"},
        body: JSON.stringify(body),
      });
      const buf = Buffer.from(await res.arrayBuffer());
      expect(res.status).toBe(200);
      expect(Number(res.headers.get("content-length"))).toBe(buf.length);
      return {text: buf.toString("utf8"), length: buf.length};
    };
    const call = (id: number, method: string, params: unknown) => ({jsonrpc: "2.0", id, method, params});
    const page = await post(call(7, "index.getContainerRange", {startIndex: 0, numToFetch: 100, encoding: "hex"}));
    expect(page.length).toBeGreaterThan(200 * 1024);
    expect(page.text.endsWith('"id":7}\n')).toBe(true);
    const containers = (JSON.parse(page.text) as {result: {containers: Container[]}}).result.containers;
    expect(containers).toHaveLength(100);
    for (const n of [0, 57, 99]) {
      const bytes = containerBytes("X", "block", n, 1024);
      expect(containers[n]).toMatchObject({id: sha256Id(bytes), index: String(n), encoding: "hex"});
      expect(containers[n]!.bytes).toBe(
        "0x" + bytes.toString("hex") + createHash("sha256").update(bytes).digest().subarray(28).toString("hex"),
      );
    }
    const batch = await post([
      call(1, "index.getContainerByIndex", {index: 3, encoding: "hexnc"}),
      call(2, "index.getContainerRange", {startIndex: 0, numToFetch: 100, encoding: "hex"}),
      call(3, "index.nope", {}),
      {jsonrpc: "2.0", method: "index.getLastAccepted", params: {}}, // a notification: no answer
      call(4, "index.getContainerRange", {startIndex: 1, numToFetch: 2, encoding: "hexc"}),
      call(5, "index.getIndex", {id: "not an id"}),
    ]);
    const answers = JSON.parse(batch.text) as {id: number; result?: unknown; error?: {code: number}}[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5]);
    expect(answers[1]!.result).toEqual({containers});
    expect(answers[0]!.result).toEqual(
      result(await t.rpc(XB, "index.getContainerByIndex", {index: 3, encoding: "hexnc"})),
    );
    expect(answers[3]!.result).toEqual(
      result(await t.rpc(XB, "index.getContainerRange", {startIndex: 1, numToFetch: 2, encoding: "hexc"})),
    );
    expect([answers[2]!.error?.code, answers[4]!.error?.code]).toEqual([-32601, -32602]);
    // A container answered as bytes, with an id outside ASCII: the id is encoded as UTF-8 and counted so.
    const odd = 'é😀\u2028"';
    const byIndex = await post({
      jsonrpc: "2.0",
      id: odd,
      method: "index.getContainerByIndex",
      params: {index: 5, encoding: "hex"},
    });
    const parsed = JSON.parse(byIndex.text) as {id: string; result: Container};
    expect(parsed.id).toBe(odd);
    expect(parsed.result).toEqual(containers[5]);
  });

  it("chain aliases and chain IDs work in the path; unknown chains and kinds are 404", async () => {
    const viaAlias = result<Container>(await t.rpc("/ext/index/avm/tx", "index.getLastAccepted"));
    expect(viaAlias.id).toBe(GIVEN_ID);
    const viaId = result<Container>(
      await t.rpc("/ext/index/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM/tx", "index.getLastAccepted"),
    );
    expect(viaId.id).toBe(GIVEN_ID);
    expect(result(await t.rpc("/ext/admin", "admin.aliasChain", {chain: "X", alias: "myX"}))).toEqual({});
    expect(result<Container>(await t.rpc("/ext/index/myX/tx", "index.getLastAccepted")).id).toBe(GIVEN_ID);
    expect((await t.post("/ext/index/Q/tx", "{}")).status).toBe(404);
    expect((await t.post("/ext/index/P/tx", "{}")).status).toBe(404);
    expect((await t.post("/ext/index/X/tx/", "{}")).status).toBe(404);
  });
});

describe("file feed", () => {
  it("logs bad lines with their numbers, counts them, and goes on", async () => {
    const bad = t.logs.filter((l) => l.msg === "bad feed line skipped").map((l) => [l.line, l.reason]);
    expect(bad).toEqual([
      [3, expect.stringMatching(/^not JSON: /)],
      [5, 'chain: unknown chain "Q"'],
      [6, 'kind: chain P has no "tx" index'],
      [7, "bytes: encoding/hex: invalid byte: U+007A 'z'"],
      [8, "bytes: missing 0x prefix to hex encoding"],
    ]);
    const m = (await t.get("/ext/metrics")).text;
    expect(m).toMatch(/avaext_feed_bad_lines_total 5/);
    expect(m).toMatch(/avaext_index_containers_accepted_total\{chain="X",kind="tx"\} 4/);
    expect(m).toMatch(/avaext_index_containers_duplicate_total\{chain="X",kind="tx"\} 1/);
    expect(m).toMatch(/avaext_index_containers\{chain="P",kind="block"\} 1/);
  });

  it("waits for a last line without its newline, then accepts it", async () => {
    const line = feedLine({chain: "X", kind: "tx", n: 10});
    appendFileSync(feed, line.slice(0, 40));
    await new Promise((r) => setTimeout(r, 300));
    appendFileSync(feed, line.slice(40, -1));
    await new Promise((r) => setTimeout(r, 300));
    expect(result<Container>(await t.rpc(X, "index.getLastAccepted")).index).toBe("3");
    appendFileSync(feed, "\n");
    await waitForCount(t, X, 5);
    expect(result<Container>(await t.rpc(X, "index.getLastAccepted")).id).toBe(sha256Id(containerBytes("X", "tx", 10)));
    expect(t.logs.filter((l) => l.msg === "bad feed line skipped")).toHaveLength(5);
  });

  it("feeds the chain checks: last accepted block ID and height", async () => {
    type P = {message?: {engine: {consensus: {lastAcceptedHeight: number; lastAcceptedID: string}}}};
    // Checks run in rounds (every 100 ms here): poll until a round has seen the block.
    const id = sha256Id(containerBytes("11111111111111111111111111111111LpoYY", "block", 0));
    let p: P | undefined;
    for (let i = 0; i < 100 && p?.message?.engine.consensus.lastAcceptedID !== id; i++) {
      if (i > 0) await new Promise((res) => setTimeout(res, 50));
      const r = await t.rpc("/ext/health", "health.health", {tags: ["11111111111111111111111111111111LpoYY"]});
      p = (r.body.result as {checks: Record<string, P>}).checks.P;
    }
    expect(p?.message?.engine.consensus).toMatchObject({lastAcceptedHeight: 0, lastAcceptedID: id});
  });
});

describe("disabled", () => {
  it("serves no index paths without --index-enabled", async () => {
    const n = await startNode({feed: `file:${feed}`});
    try {
      expect((await n.post("/ext/index/X/tx", "{}")).status).toBe(404);
    } finally {
      await n.close();
    }
  });
});
