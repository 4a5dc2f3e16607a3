/** One feed line: IDs derived or given, the hex checksum passed on when deriving computed it, timestamp bounds. */
import {createHash} from "node:crypto";
import {readFileSync} from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {describe, expect, it} from "vitest";
import {ChainRegistry, NETWORKS} from "../../../src/chains/index.js";
import {parseFeedLine} from "../../../src/feed/line.js";
import {cb58Encode as cb58} from "../../../src/util/cb58.js";
import {containerBytes, feedLine} from "../../helpers/feed.js";

const chains = new ChainRegistry(NETWORKS.local);
const sha = (b: Uint8Array): Buffer => createHash("sha256").update(b).digest();
const fixtures = JSON.parse(
  readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/containers.json"), "utf8"),
) as {
  name: string;
  chain: string;
  kind: string;
  hex: string;
  id: string;
}[];

describe("parseFeedLine", () => {
  it("derives an X tx's ID as sha256(bytes) and passes its last 4 bytes on as the hex checksum", () => {
    const r = parseFeedLine(feedLine({chain: "X", kind: "tx", n: 5}), chains);
    if (!r.ok) throw new Error(r.reason);
    const bytes = containerBytes("X", "tx", 5);
    expect(Buffer.from(r.item.id).equals(sha(bytes))).toBe(true);
    expect(Buffer.from(r.item.checksum!).equals(sha(bytes).subarray(28))).toBe(true);
  });

  it("keeps a given ID and leaves the checksum to the index (the ID need not hash the bytes)", () => {
    const id = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM";
    const r = parseFeedLine(feedLine({chain: "X", kind: "tx", n: 5}, {id}), chains);
    if (!r.ok) throw new Error(r.reason);
    expect(r.item.checksum ?? null).toBeNull();
  });

  it("refuses timestamps before 1970 or past Go's UnixNano range (2262), which the index cannot store", () => {
    const at = (timestamp: string): string => feedLine({chain: "X", kind: "tx", n: 1}, {timestamp});
    expect(parseFeedLine(at("2262-04-11T23:47:16.854775807Z"), chains).ok).toBe(true);
    const late = parseFeedLine(at("2262-04-11T23:47:16.854775808Z"), chains);
    expect(late).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^timestamp: 2262-04-11T23:47:16.854775808Z is past 2262-04-11T23:47:16.854775807Z/,
      ),
    });
    expect(parseFeedLine(at("9999-12-31T23:59:59Z"), chains).ok).toBe(false);
    expect(parseFeedLine(at("1969-12-31T23:59:59Z"), chains).ok).toBe(false);
  });

  it("passes the checksum on only when the derived ID is sha256 of all the bytes (real containers)", () => {
    const line = (chain: string, kind: string, hex: string): string => JSON.stringify({chain, kind, bytes: hex}) + "\n";
    const parse = (chain: string, kind: string, hex: string) => {
      const r = parseFeedLine(line(chain, kind, hex), chains);
      if (!r.ok) throw new Error(r.reason);
      return r.item;
    };
    const cases: [fixture: string, hashOfBytes: boolean][] = [
      ["c-local-proposervm-signed-h12", false], // sha256 of the bytes without the signature
      ["c-testvector-coreth-block-3", false], // keccak of the header
      ["p-mainnet-banff-standard-4827146", true],
      ["x-mainnet-tx-index1", true],
    ];
    for (const [name, hashOfBytes] of cases) {
      const f = fixtures.find((x) => x.name === name)!;
      const item = parse(f.chain, f.kind, f.hex);
      expect(cb58(item.id), name).toBe(f.id);
      const bytes = Buffer.from(f.hex.slice(2), "hex");
      expect(item.checksum === null ? null : Buffer.from(item.checksum!).toString("hex"), name).toBe(
        hashOfBytes ? sha(bytes).subarray(28).toString("hex") : null,
      );
    }
    // A proposervm option block (type 1: parent ‖ inner block): its ID is sha256 of all its bytes.
    const signed = Buffer.from(fixtures.find((x) => x.name === "c-local-proposervm-signed-h12")!.hex.slice(2), "hex");
    const inner = Buffer.from(fixtures.find((x) => x.name === "c-testvector-coreth-block-3")!.hex.slice(2), "hex");
    const len = Buffer.alloc(4);
    len.writeUInt32BE(inner.length);
    const option = Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 1]), signed.subarray(6, 38), len, inner]);
    const item = parse("C", "block", "0x" + option.toString("hex"));
    expect(Buffer.from(item.id).equals(sha(option))).toBe(true);
    expect(Buffer.from(item.checksum!).equals(sha(option).subarray(28))).toBe(true);
  });
});
