/**
 * The one codec of each primary-network format (src/decode/codec/) against every container the project has:
 * test/fixtures/containers.json (real containers), AvalancheGo's own serialization vectors
 * (test/fixtures/avalanchego-vectors.json), and what the dev network's writer (src/decode/builders.ts), the test
 * helpers and the bench's synthetic history build. For each: decode → encode gives the same bytes, encode → decode
 * gives the same value, `skip` steps over exactly those bytes, and the framing (`raw` txs) cuts the same txs the
 * reading does.
 */
import {readFileSync} from "node:fs";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {NETWORKS} from "../../../src/chains/index.js";
import {
  array,
  type Codec,
  decode,
  encode,
  entry,
  raw,
  spanned,
  struct,
  union,
  versioned,
} from "../../../src/decode/codec/codec.js";
import {transferOutput} from "../../../src/decode/codec/fx.js";
import {cSignedTx} from "../../../src/decode/codec/atomic.js";
import {initialState, vertex, xBlock, xSignedTx} from "../../../src/decode/codec/avm.js";
import {pBlock, pBlockFields, pSignedTx, pUnsignedTx} from "../../../src/decode/codec/platformvm.js";
import {
  buildAvmBlock,
  buildBanffBlock,
  buildPBlock,
  buildStopVertex,
  buildVertex,
  buildXBlock,
  buildXTx,
} from "../../../src/decode/builders.js";
import {decodeEvmBlock} from "../../../src/decode/coreth.js";
import {decodeProposerBlock} from "../../../src/decode/proposervm.js";
import {Reader} from "../../../src/decode/reader.js";
import {makeKeys, xHistory} from "../../../src/dev/syntheticHistory.js";
import {idFromString} from "../../../src/util/cb58.js";
import {
  pAddSubnetValidatorTx,
  pBaseTx,
  pHeliconTxs,
  pPermissionlessValidatorTx,
  pRemoveSubnetValidatorTx,
  seeded,
} from "../../helpers/pChain.js";

const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h.replace(/^0x/, ""), "hex"));
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

const P_BLOCK = versioned("platformvm", pBlock(spanned(pSignedTx)));
const P_FRAMED = versioned("platformvm", pBlock(raw(pSignedTx)));
const X_BLOCK = versioned("avm", xBlock(spanned(xSignedTx)));
const X_FRAMED = versioned("avm", xBlock(raw(xSignedTx)));
const X_TX = versioned("avm", xSignedTx);
const P_TX = versioned("platformvm", pSignedTx);
const C_TX = versioned("atomic", cSignedTx);

/** decode → encode → same bytes; encode → decode → same value; skip steps over exactly the bytes. */
function roundTrip<T>(c: Codec<T>, bytes: Uint8Array): T {
  const value = decode(c, bytes);
  const again = encode(c, value);
  expect(hex(again)).toBe(hex(bytes));
  expect(decode(c, again)).toEqual(value);
  const r = new Reader(bytes);
  c.skip(r);
  expect(r.remaining).toBe(0);
  return value;
}

/** A P or X block: both uses of the one definition round-trip, and the framing cuts the txs the reading reads. */
function blockRoundTrip(chain: "P" | "X", bytes: Uint8Array): number {
  if (chain === "P") {
    const read = pBlockFields(roundTrip(P_BLOCK, bytes));
    const framed = pBlockFields(roundTrip(P_FRAMED, bytes));
    expect(framed.txs.map(hex)).toEqual(read.txs.map((t) => hex(t.bytes)));
    for (const t of framed.txs) roundTrip(pSignedTx, t);
    return read.txs.length;
  }
  const read = roundTrip(X_BLOCK, bytes).value;
  const framed = roundTrip(X_FRAMED, bytes).value;
  expect(framed.txs.map(hex)).toEqual(read.txs.map((t) => hex(t.bytes)));
  for (const t of framed.txs) roundTrip(xSignedTx, t);
  return read.txs.length;
}

interface Fixture {
  name: string;
  chain: "P" | "X" | "C";
  kind: "block" | "tx" | "vtx";
  hex: string;
}

const fixtures = JSON.parse(
  readFileSync(path.resolve(__dirname, "../../fixtures/containers.json"), "utf8"),
) as Fixture[];

describe("the codec against the real containers of test/fixtures/containers.json", () => {
  for (const f of fixtures) {
    it(f.name, () => {
      const bytes = fromHex(f.hex);
      if (f.chain === "P") expect(blockRoundTrip("P", bytes)).toBeGreaterThan(0);
      else if (f.kind === "tx") roundTrip(X_TX, bytes);
      else if (f.kind === "vtx") {
        const v = roundTrip(vertex, bytes);
        expect(v.typeId).toBe(0);
        if (v.typeId === 0) for (const tx of v.value.txs) roundTrip(X_TX, tx);
      } else {
        // C: the atomic tx in extData, where there is one (the proposervm block's inner coreth block has none).
        const inner = f.name.includes("proposervm") ? decodeProposerBlock(bytes).inner : bytes;
        const extData = decodeEvmBlock(inner).extData;
        if (extData !== null && extData.length > 0)
          expect(roundTrip(C_TX, extData).unsigned.value.type).toBe("ImportTx");
      }
    });
  }
});

interface Vector {
  name: string;
  source: string;
  line: number;
  hex: string;
}

const vectors = JSON.parse(
  readFileSync(path.resolve(__dirname, "../../fixtures/avalanchego-vectors.json"), "utf8"),
) as Vector[];

/** `add_permissionless_validator_tx_test.go` → AddPermissionlessValidatorTx. */
function typeOfTestFile(source: string): string {
  const file = path.basename(source.split("@")[0]!, "_test.go");
  return file
    .split("_")
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

describe("the codec against AvalancheGo's serialization vectors (vms/platformvm/txs, vms/avm/txs tests)", () => {
  it("has them all", () => expect(vectors.length).toBeGreaterThanOrEqual(30));

  for (const v of vectors) {
    const file = v.source.split("@")[0]!;
    it(`${file}:${v.line} ${v.name}`, () => {
      const bytes = fromHex(v.hex);
      if (file.endsWith("initial_state_test.go")) {
        // That test's own codec registers secp256k1fx.TransferOutput alone, as type 0; the avm's InitialState around it.
        const testCodec = union("test output type", {0: entry("TransferOutput", transferOutput)});
        roundTrip(versioned("avm", struct({...initialState.fields, outs: array(testCodec)})), bytes);
      } else if (file.startsWith("vms/avm/")) {
        // tx.Bytes() of an unsigned-so-far tx: its credentials are an empty list.
        expect(roundTrip(X_TX, bytes).unsigned.value.type).toBe(typeOfTestFile(v.source));
      } else {
        // Codec.Marshal of the unsigned tx.
        expect(roundTrip(versioned("platformvm", pUnsignedTx), bytes).type).toBe(typeOfTestFile(v.source));
      }
    });
  }
});

describe("the codec against the writers: src/decode/builders.ts, test/helpers/pChain.ts, the bench's history", () => {
  const chainId = seeded("chain");
  const spec = {
    networkId: 12345,
    chainId,
    parentId: seeded("parent"),
    height: 7,
    timestamp: 1_700_000_000,
    txs: 3,
    pChainHeight: 5n,
  };

  it("buildXTx, buildXBlock, buildAvmBlock", () => {
    roundTrip(X_TX, buildXTx(12345, chainId, 1));
    expect(blockRoundTrip("X", decodeProposerBlock(buildXBlock(spec)).inner)).toBe(3);
    const txs = [buildXTx(12345, chainId, 2), buildXTx(12345, chainId, 3)];
    expect(blockRoundTrip("X", buildAvmBlock({time: 9n, parentId: seeded("p"), height: 2n, txs}))).toBe(2);
    expect(
      blockRoundTrip(
        "X",
        buildAvmBlock({time: 9n, parentId: seeded("p"), height: 1n, txs: [], root: new Uint8Array(32)}),
      ),
    ).toBe(0);
  });

  it("buildVertex and buildStopVertex", () => {
    const txs = [buildXTx(12345, chainId, 4), buildXTx(12345, chainId, 5)];
    const v = roundTrip(vertex, buildVertex({chainId, height: 3n, parentIds: [seeded("a"), seeded("b")], txs}));
    if (v.typeId !== 0) throw new Error("a v0 vertex");
    for (const tx of v.value.txs) roundTrip(X_TX, tx);
    expect(roundTrip(vertex, buildStopVertex({chainId, height: 4n, parentIds: [seeded("c")]})).type).toBe("StopVertex");
  });

  it("buildPBlock and buildBanffBlock (standard, proposal, commit), with every P tx the helpers write", () => {
    expect(blockRoundTrip("P", decodeProposerBlock(buildPBlock(spec)).inner)).toBe(3);
    const net = NETWORKS.local;
    const base = {
      networkId: net.id,
      pChainId: net.chainIds.P,
      asset: idFromString("2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"),
    };
    const subnet = {...base, subnetId: seeded("subnet"), nodeId: seeded("node").subarray(0, 20)};
    const helicon = pHeliconTxs({...base, cycleEnd: 1_700_000_000n});
    const txs = [
      pBaseTx(base.networkId, base.pChainId, base.asset, 1),
      pPermissionlessValidatorTx({...subnet, start: 1n, end: 2n}),
      pAddSubnetValidatorTx({...subnet, start: 1n, end: 2n}),
      pRemoveSubnetValidatorTx(subnet),
      helicon.add,
      helicon.config,
    ];
    const names = txs.map((t) => roundTrip(P_TX, t).unsigned.value.type);
    expect(names).toEqual([
      "BaseTx",
      "AddPermissionlessValidatorTx",
      "AddSubnetValidatorTx",
      "RemoveSubnetValidatorTx",
      "AddAutoRenewedValidatorTx",
      "SetAutoRenewedValidatorConfigTx",
    ]);
    const at = {time: 5n, parentId: seeded("parent"), height: 9n};
    expect(blockRoundTrip("P", buildBanffBlock("standard", {...at, txs}))).toBe(txs.length);
    expect(blockRoundTrip("P", buildBanffBlock("proposal", {...at, txs: [helicon.reward]}))).toBe(1);
    expect(blockRoundTrip("P", buildBanffBlock("commit", {...at, txs: []}))).toBe(0);
  });

  it("the bench's synthetic X history (src/dev/syntheticHistory.ts)", () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const history = xHistory({
      txs: 60,
      keys: makeKeys(100, "codec"),
      networkId: 12345,
      chainId,
      assetId: seeded("asset"),
      startSeconds: 1_700_000_000,
      random,
    });
    let n = 0;
    for (const b of history) n += blockRoundTrip("X", decodeProposerBlock(b.bytes).inner);
    expect(n).toBe(60);
  });
});
