/** One feed line: IDs derived or given, the hex checksum passed on when deriving computed it, timestamp bounds. */
import {createHash} from "node:crypto";
import {describe, expect, it} from "vitest";
import {ChainRegistry, NETWORKS} from "../../../src/chains/index.js";
import {parseFeedLine} from "../../../src/feed/line.js";
import {containerBytes, feedLine} from "../../helpers/feed.js";

const chains = new ChainRegistry(NETWORKS.local);
const sha = (b: Uint8Array): Buffer => createHash("sha256").update(b).digest();

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
    expect(late).toEqual({ok: false, reason: expect.stringMatching(/^timestamp: 2262-04-11T23:47:16.854775808Z is past 2262-04-11T23:47:16.854775807Z/)});
    expect(parseFeedLine(at("9999-12-31T23:59:59Z"), chains).ok).toBe(false);
    expect(parseFeedLine(at("1969-12-31T23:59:59Z"), chains).ok).toBe(false);
  });
});
