/** Decoders against the real containers of test/fixtures (a copy of ../shared/fixtures; IDs and facts checked independently there). */
import {randomBytes} from "node:crypto";
import {readFileSync} from "node:fs";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {buildCBlock, buildPBlock, buildXBlock, buildXTx} from "../../../src/decode/builders.js";
import {containerId, decodeContainer, type DecodeChain, type DecodeKind} from "../../../src/decode/index.js";
import {decodeProposerBlock} from "../../../src/decode/proposervm.js";
import {RLP} from "@ethereumjs/rlp";
import {keccak_256} from "@noble/hashes/sha3.js";
import {decodeEvmBlock} from "../../../src/decode/coreth.js";
import {cb58Encode} from "../../../src/util/cb58.js";

interface Fixture {
  name: string;
  chain: DecodeChain;
  kind: DecodeKind;
  hex: string;
  id: string;
  facts: Record<string, unknown> & {innerBlock?: Record<string, unknown>};
}

// Kept in the repository so a clean clone (CI) always runs them.
const FIXTURES = path.resolve(__dirname, "../../fixtures/containers.json");
const fixtures = JSON.parse(readFileSync(FIXTURES, "utf8")) as Fixture[];
const bytesOf = (f: Fixture): Uint8Array => Buffer.from(f.hex.slice(2), "hex");
const hex = (b: Uint8Array): string => "0x" + Buffer.from(b).toString("hex");

describe("fixtures (test/fixtures/containers.json)", () => {
  it("has all nine containers", () => expect(fixtures).toHaveLength(9));

  for (const f of fixtures) {
    it(`${f.name}: ID by the chain's rule, and the stated facts`, () => {
      const bytes = bytesOf(f);
      expect(cb58Encode(containerId(f.chain, f.kind, bytes))).toBe(f.id);
      const d = decodeContainer(f.chain, f.kind, bytes)!;
      expect(d, "decodes").not.toBeNull();
      expect(cb58Encode(d.id)).toBe(f.id);
      const facts = f.facts.innerBlock ?? f.facts;
      if (facts.height !== undefined) expect(d.height.toString()).toBe(facts.height);
      if (facts.timestamp !== undefined) expect(String(d.timestamp)).toBe(facts.timestamp);
      if (typeof facts.txCount === "number") expect(d.txCount).toBe(facts.txCount);
      if (Array.isArray(facts.txIDs)) expect(d.txIds.map(cb58Encode)).toEqual(facts.txIDs);
      if (Array.isArray(facts.txHashes)) expect(d.txIds.map(hex)).toEqual(facts.txHashes);
      if (typeof facts.parentHash === "string") expect(hex(d.parentId)).toBe(facts.parentHash);
      if (typeof f.facts.parentID === "string" && f.kind === "block" && !f.facts.innerBlock)
        expect(cb58Encode(d.parentId)).toBe(f.facts.parentID);
      if (Array.isArray(f.facts.parentIDs)) expect(cb58Encode(d.parentId)).toBe((f.facts.parentIDs as string[])[0]);
    });
  }

  it("reads the proposervm wrapper of the C-chain block: parent, timestamp, P-chain height", () => {
    const f = fixtures.find((x) => x.name === "c-local-proposervm-signed-h12")!;
    const w = decodeProposerBlock(bytesOf(f));
    expect(cb58Encode(w.parentId)).toBe(f.facts.parentID);
    expect(String(w.timestamp)).toBe(f.facts.timestamp);
    expect(String(w.pChainHeight)).toBe(f.facts.pChainHeight);
    // The ID is not sha256 of the whole container (the signature is left out).
    expect(cb58Encode(w.id)).not.toBe(f.facts.sha256OfFullBytesCB58);
    const inner = decodeContainer("C", "block", w.inner)!;
    expect(hex(inner.id)).toBe(f.facts.innerBlock!.ethHash);
  });

  it("gives null, never throws, for truncated, extended or retyped containers", () => {
    for (const f of fixtures) {
      const b = bytesOf(f);
      expect(decodeContainer(f.chain, f.kind, b.subarray(0, b.length - 1)), `${f.name} truncated`).toBeNull();
      expect(decodeContainer(f.chain, f.kind, Buffer.concat([b, Uint8Array.of(0)])), `${f.name} extended`).toBeNull();
    }
    const p = bytesOf(fixtures.find((x) => x.chain === "P")!);
    const retyped = Uint8Array.from(p);
    retyped[5] = 0x63; // type ID 99
    expect(decodeContainer("P", "block", retyped)).toBeNull();
    expect(decodeContainer("X", "tx", new Uint8Array(0))).toBeNull();
    expect(decodeContainer("C", "block", Uint8Array.of(0xff, 0xff))).toBeNull();
    expect(cb58Encode(containerId("C", "block", Uint8Array.of(1, 2, 3)))).toBe(
      cb58Encode(containerId("X", "tx", Uint8Array.of(1, 2, 3))),
    );
  });

  it("gives null for opaque bytes, whether the cheap screens or the decoders refuse them", () => {
    const kinds: Array<[DecodeChain, DecodeKind]> = [
      ["P", "block"],
      ["X", "block"],
      ["C", "block"],
      ["X", "tx"],
      ["X", "vtx"],
    ];
    for (let i = 0; i < 200; i++) {
      const b = Uint8Array.from(randomBytes(64 + i * 5));
      // Half pass the screens (codec version 0, a proposervm type, an RLP list header that spans the bytes).
      if (i % 2) {
        b.set([0, 0, 0, 0, 0, i % 3], 0);
        if (i % 4 === 1) b.set([0xf9, (b.length - 3) >> 8, (b.length - 3) & 0xff], 0);
      }
      for (const [chain, kind] of kinds) {
        expect(decodeContainer(chain, kind, b), `${chain}/${kind} #${i}`).toBeNull();
        expect(containerId(chain, kind, b)).toHaveLength(32);
      }
    }
  });
});

describe("EVM blocks (@ethereumjs/rlp, @noble/hashes keccak256)", () => {
  const f = fixtures.find((x) => x.name === "c-local-proposervm-signed-h12")!;
  const inner = decodeProposerBlock(bytesOf(f)).inner;

  it("hashes the header's own bytes and each transaction's encoding", () => {
    // Independently of the decoder: the header item's span inside the block list, and the uncle hash constant.
    const body = inner.subarray(inner[0]! >= 0xf8 ? 1 + inner[0]! - 0xf7 : 1);
    const header = body.subarray(0, body.length - RLP.decode(body, true).remainder.length);
    const b = decodeEvmBlock(inner);
    expect(hex(b.hash)).toBe(hex(keccak_256(header)));
    expect(hex(b.hash)).toBe(f.facts.innerBlock!.ethHash);
    expect(hex(keccak_256(RLP.encode([])))).toBe("0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347");
  });

  it("refuses non-canonical RLP (re-encoding for the hash must give back the decoded bytes)", () => {
    // block: f9 LL LL | header: f9 HH HH | a0 <parent hash> ...; write the parent hash's prefix 0xa0 (32 bytes) in
    // the long form 0xb8 0x20 instead: the same value in other bytes, each enclosing length one more.
    expect([inner[0], inner[3], inner[6]]).toEqual([0xf9, 0xf9, 0xa0]);
    const blockLen = (inner[1]! << 8) + inner[2]! + 1;
    const headerLen = (inner[4]! << 8) + inner[5]! + 1;
    const bad = Uint8Array.from([
      0xf9,
      blockLen >> 8,
      blockLen & 0xff,
      0xf9,
      headerLen >> 8,
      headerLen & 0xff,
      0xb8,
      0x20,
      ...inner.subarray(7),
    ]);
    expect(() => decodeEvmBlock(bad)).toThrow(/bad RLP: invalid RLP: expected string length to be greater than 55/);
    expect(decodeContainer("C", "block", bad)).toBeNull();
  });

  it("gives a DecodeError, not the library's error, for garbage", () => {
    for (const b of [new Uint8Array(0), Uint8Array.of(0xc0), Uint8Array.of(0xf9, 0xff), inner.subarray(0, 100)]) {
      expect(() => decodeEvmBlock(b)).toThrow(/not an EVM block|bad RLP/);
    }
  });
});

describe("builders (the dev network's containers)", () => {
  const zero = new Uint8Array(32);
  const spec = {
    networkId: 12345,
    chainId: zero,
    parentId: Uint8Array.from(zero).fill(9),
    height: 42,
    timestamp: 1_700_000_000,
    txs: 3,
    pChainHeight: 41n,
  };

  it("build blocks that decode back to their inputs, with IDs by the proposervm rule", () => {
    for (const [chain, bytes] of [
      ["P", buildPBlock(spec)],
      ["X", buildXBlock(spec)],
      ["C", buildCBlock({...spec, parentHash: zero})],
    ] as const) {
      const d = decodeContainer(chain, "block", bytes)!;
      expect(d.format).toBe(`proposervm/${chain === "P" ? "platformvm" : chain === "X" ? "avm-block" : "coreth"}`);
      expect(d.height).toBe(42n);
      expect(d.timestamp).toBe(1_700_000_000);
      expect(d.txCount).toBe(3);
      expect(Buffer.from(d.id).equals(Buffer.from(containerId(chain, "block", bytes)))).toBe(true);
      expect(Buffer.from(decodeProposerBlock(bytes).parentId).equals(Buffer.from(spec.parentId))).toBe(true);
    }
  });

  it("builds X-chain txs whose IDs are the IDs the X block lists", () => {
    const block = decodeContainer("X", "block", buildXBlock(spec))!;
    const tx = decodeContainer("X", "tx", buildXTx(12345, zero, 42 * 100 + 1))!;
    expect(cb58Encode(tx.id)).toBe(cb58Encode(block.txIds[1]!));
  });
});
