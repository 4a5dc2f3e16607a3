// The hand-written primitives (src/util/cb58.ts base58, src/util/sha256.ts one-block SHA-256) against the audited
// libraries, on the sizes the hot paths use: a 32-byte ID (every container an index answer carries has its ID in
// CB58: base58 of 36 bytes, with a checksum that is sha256 of 32 bytes) and its 50-character text (request params).
// A hand-written one stays only where the library costs a hot path a measurable share (docs/performance.md).
// Beside them, the work of formatting one 1 KiB container answer, so each difference reads as a share of it.
// `node bench/primitives.mjs` (needs `npm run build`), or part of `npm run bench`. A few seconds.
import {hash, randomBytes} from "node:crypto";
import {base58} from "@scure/base";
import {sha256 as nobleSha256} from "@noble/hashes/sha2.js";
import {base58Decode, base58Encode, cb58Encode} from "../dist/src/util/cb58.js";
import {sha256Tail} from "../dist/src/util/sha256.js";
import {containerJson} from "../dist/src/containerIndex/service.js";
import {median} from "./lib.mjs";

const RUNS = Number(process.env.BENCH_PRIMITIVE_RUNS ?? 7);
const IDS = Array.from({length: 4096}, () => randomBytes(32));
const TEXTS = IDS.map((id) => cb58Encode(id));

/** ns per call of fn over the IDs: the median of RUNS passes of at least 100 ms each, after a warm-up pass. */
function nsPerOp(fn) {
  const pass = () => {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < 100) {
      for (let i = 0; i < IDS.length; i++) fn(i);
      n += IDS.length;
      t = performance.now();
    }
    return ((t - t0) * 1e6) / n;
  };
  pass();
  const xs = [];
  for (let r = 0; r < RUNS; r++) xs.push(pass());
  return median(xs);
}

// Library versions of the same results: CB58 = base58(id ‖ sha256(id)[28:32]).
const tailCrypto = (b) => hash("sha256", b, "buffer").readUInt32BE(28);
const tailNoble = (b) => {
  const d = nobleSha256(b);
  return ((d[28] << 24) | (d[29] << 16) | (d[30] << 8) | d[31]) >>> 0;
};
const buf = new Uint8Array(36);
function cb58With(tail, encode, id) {
  buf.set(id);
  const t = tail(id);
  buf[32] = t >>> 24;
  buf[33] = (t >>> 16) & 0xff;
  buf[34] = (t >>> 8) & 0xff;
  buf[35] = t & 0xff;
  return encode(buf);
}
const withSum = IDS.map((id) => {
  const b = new Uint8Array(36);
  b.set(id);
  b.set(hash("sha256", id, "buffer").subarray(28), 32);
  return b;
});
const containers = IDS.slice(0, 256).map((id, i) => ({
  id,
  bytes: randomBytes(1024),
  checksum: null,
  timestampNs: 1_763_000_000_000_000_000n + BigInt(i),
  index: BigInt(i),
}));

// The libraries must agree before anything is timed.
for (let i = 0; i < 256; i++) {
  if (
    cb58With(tailCrypto, base58.encode, IDS[i]) !== TEXTS[i] ||
    cb58With(tailNoble, base58.encode, IDS[i]) !== TEXTS[i]
  )
    throw new Error("CB58 differs");
  if (Buffer.compare(Buffer.from(base58.decode(TEXTS[i])), Buffer.from(base58Decode(TEXTS[i]))) !== 0)
    throw new Error("base58 decode differs");
}

export async function benchPrimitives() {
  const m = {
    sumHand: nsPerOp((i) => sha256Tail(IDS[i])),
    sumCrypto: nsPerOp((i) => tailCrypto(IDS[i])),
    sumNoble: nsPerOp((i) => tailNoble(IDS[i])),
    b58Hand: nsPerOp((i) => base58Encode(withSum[i])),
    b58Scure: nsPerOp((i) => base58.encode(withSum[i])),
    cb58Hand: nsPerOp((i) => cb58Encode(IDS[i])),
    cb58Lib: nsPerOp((i) => cb58With(tailCrypto, base58.encode, IDS[i])),
    decHand: nsPerOp((i) => base58Decode(TEXTS[i])),
    decScure: nsPerOp((i) => base58.decode(TEXTS[i])),
    // One container's answer JSON (ID in CB58, 1 KiB of hex, its checksum by node:crypto, timestamp), hand-written CB58.
    answer: nsPerOp((i) => containerJson(containers[i & 255], "hex")),
  };
  const us = (ns) => `${(ns / 1000).toFixed(2)} µs`;
  const share = (lib, hand) => `${(((lib - hand) / m.answer) * 100).toFixed(0)} % of a 1 KiB container's answer`;
  return [
    {
      name: "sha256(32-byte ID)[28:32]: hand-written one block",
      value: us(m.sumHand),
      reference: `node:crypto ${us(m.sumCrypto)}, @noble/hashes ${us(m.sumNoble)}`,
      ratio: `${(m.sumCrypto / m.sumHand).toFixed(1)}× / ${(m.sumNoble / m.sumHand).toFixed(1)}×`,
    },
    {
      name: "base58 of 36 bytes (an ID and its checksum): hand-written",
      value: us(m.b58Hand),
      reference: `@scure/base ${us(m.b58Scure)}`,
      ratio: `${(m.b58Scure / m.b58Hand).toFixed(1)}×`,
    },
    {
      name: "CB58 of a 32-byte ID: hand-written",
      value: us(m.cb58Hand),
      reference: `@scure/base + node:crypto ${us(m.cb58Lib)}`,
      ratio: `${(m.cb58Lib / m.cb58Hand).toFixed(1)}×; ${share(m.cb58Lib, m.cb58Hand)}`,
    },
    // base58Decode is @scure/base now (the hand-written loop took 2.2 µs against its 0.9 µs): this is the cost of
    // the digit checks that keep AvalancheGo's error texts.
    {
      name: "base58 decode of an ID's CB58 (50 characters): base58Decode (digit checks + @scure/base)",
      value: us(m.decHand),
      reference: `@scure/base alone ${us(m.decScure)}`,
      ratio: `${(m.decScure / m.decHand).toFixed(1)}×`,
    },
    {name: "a 1 KiB container's answer JSON (containerJson, hex)", value: us(m.answer), reference: "-", ratio: "-"},
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchPrimitives()) console.log(`| ${r.name} | ${r.value} | ${r.reference} | ${r.ratio} |`);
}
