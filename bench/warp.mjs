#!/usr/bin/env node
// Warp signature aggregation at scale (issue 20): a canonical set of 1,000 validators whose keys the bench makes,
// every one of them signing; the figure is collect + verify + aggregate (aggregate() from the answers to the signed
// message), target < 500 ms, with batch verification. Median of BENCH_WARP_RUNS (5) runs.
// `npm run build` first: it imports the compiled modules. Exports benchWarp() (rows like bench/run.js's) and prints a
// table when run directly: `node bench/warp.mjs`.
import {createHash} from "node:crypto";
import os from "node:os";
import {fileURLToPath} from "node:url";
import {
  BlsKeyCache,
  aggregate,
  batchVerify,
  canonicalValidatorSet,
  publicKeyOf,
  sign,
  verify,
  verifySignedMessage,
} from "../dist/src/warp/index.js";

const N = Number(process.env.BENCH_WARP_VALIDATORS ?? 1000);
const RUNS = Number(process.env.BENCH_WARP_RUNS ?? 5);
const TARGET_MS = 500;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = () => Number(process.hrtime.bigint()) / 1e6;
const time = async (f) => {
  const t = ms();
  const r = await f();
  return [ms() - t, r];
};

/** A 32-byte secret key below the group order (top byte < 0x73). */
const secretKey = (i) => {
  const sk = new Uint8Array(createHash("sha256").update(`avaext warp bench validator ${i}`).digest());
  sk[0] &= 0x3f;
  return sk;
};

/** The source: answers precomputed (validators sign on their own machines), yielded as they would arrive. */
const replay = (name, answers) => ({
  name,
  async *signatures(req) {
    for (const a of answers) {
      if (req.signal.aborted) return;
      yield a;
    }
  },
});

export async function benchWarp() {
  const unsigned = Buffer.from(
    "00000000303982900e9ff184b708895a39e5ba12491de180ca649e67c6393e64f4e18751cfcd0000002c00000000000100000014253b2784c75e510dd0ff1da844684a1ac0aa5fcf0000000a68656c6c6f2077617270",
    "hex",
  );
  const sks = Array.from({length: N}, (_, i) => secretKey(i));
  const [tKeys, inputs] = await time(() =>
    sks.map((sk, i) => ({
      nodeId: `NodeID-bench${i}`,
      weight: BigInt(1000 + (i % 7) * 100),
      blsPublicKey: publicKeyOf(sk),
    })),
  );
  const [tSet, set] = await time(() => canonicalValidatorSet(inputs));
  const byKey = new Map(sks.map((sk, i) => [Buffer.from(inputs[i].blsPublicKey).toString("hex"), sk]));
  const [tSign, answers] = await time(() =>
    set.validators.map((v) => ({
      publicKey: v.publicKey,
      signature: sign(byKey.get(Buffer.from(v.publicKey).toString("hex")), unsigned),
    })),
  );
  // One bad answer (another message's signature) among them, to show the cost of finding it.
  const withBad = answers.map((a, i) => (i === 17 ? {publicKey: a.publicKey, signature: answers[18].signature} : a));

  const cases = [
    ["all sign, quorum 67 + buffer 33 (every answer)", {quorumNum: 67, bufferPercent: 33}, answers],
    ["all sign, quorum 67, no buffer (stops at 67%)", {quorumNum: 67, bufferPercent: 0}, answers],
    ["one bad signature, quorum 67 + buffer 33", {quorumNum: 67, bufferPercent: 33}, withBad],
  ];
  const rows = [];
  let signed;
  for (const [name, q, list] of cases) {
    const runs = [];
    let last;
    await aggregate({unsigned, set, ...q, sources: [replay("bench", list)]}); // warm-up, not counted
    for (let r = 0; r < RUNS; r++) {
      const [t, res] = await time(() => aggregate({unsigned, set, ...q, sources: [replay("bench", list)]}));
      if (!res.ok) throw new Error(`${name}: quorum not reached`);
      runs.push(t);
      last = res;
    }
    signed ??= last.signed;
    rows.push({
      name: `warp ${N} validators: ${name}`,
      value: median(runs),
      unit: "ms",
      target: TARGET_MS,
      note: `${last.signerIndices.length} signers, ${last.invalid} invalid`,
    });
  }
  // References: the same verification one signature at a time, and one batch check alone.
  const oneByOne = [];
  const batch = [];
  const items = set.validators.map((v, i) => ({publicKey: v.key, signature: answers[i].signature}));
  for (let r = 0; r < RUNS; r++) {
    oneByOne.push(
      (await time(() => set.validators.forEach((v, i) => verify(v.key, unsigned, answers[i].signature))))[0],
    );
    batch.push((await time(() => batchVerify(unsigned, items)))[0]);
  }
  rows.push({name: `warp ${N} validators: batch verification alone`, value: median(batch), unit: "ms", note: ""});
  rows.push({
    name: `warp ${N} validators: one-by-one verification (reference)`,
    value: median(oneByOne),
    unit: "ms",
    note: "",
  });
  const verifyRuns = [];
  for (let r = 0; r < RUNS; r++) verifyRuns.push((await time(() => verifySignedMessage(signed, set, 67)))[0]);
  rows.push({
    name: `warp ${N} validators: verifySignedMessage (external aggregator's answer)`,
    value: median(verifyRuns),
    unit: "ms",
    note: "",
  });
  // A set rebuilt at another P-chain height (the same validators): every key decoded again without the key cache,
  // none with it (src/warp/validators.ts BlsKeyCache, as the data API keeps it across heights).
  const keys = new BlsKeyCache();
  canonicalValidatorSet(inputs, keys);
  const cold = [];
  const warm = [];
  for (let r = 0; r < RUNS; r++) {
    cold.push((await time(() => canonicalValidatorSet(inputs)))[0]);
    warm.push((await time(() => canonicalValidatorSet(inputs, keys)))[0]);
  }
  rows.push({
    name: `warp ${N} validators: canonical set rebuilt, keys decoded again`,
    value: median(cold),
    unit: "ms",
    note: "",
  });
  rows.push({
    name: `warp ${N} validators: canonical set rebuilt, keys from the key cache`,
    value: median(warm),
    unit: "ms",
    note: `${keys.decoded} keys decoded in all`,
  });
  rows.push({name: `setup: ${N} keys (not timed above)`, value: tKeys, unit: "ms", note: "once"});
  rows.push({name: `setup: canonical set of ${N} (not timed above)`, value: tSet, unit: "ms", note: "once"});
  rows.push({
    name: `setup: ${N} signatures by the validators (not timed above)`,
    value: tSign,
    unit: "ms",
    note: "once",
  });
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await benchWarp();
  console.log(
    `\nMedian of ${RUNS} runs; ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}; Node ${process.version}\n`,
  );
  console.log("| figure | ms | target | note |");
  console.log("| --- | --- | --- | --- |");
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.value.toFixed(1)} | ${r.target ? `< ${r.target} ${r.value < r.target ? "ok" : "MISSED"}` : ""} | ${r.note} |`,
    );
}
