import {writeFileSync} from "node:fs";
import path from "node:path";
import {afterEach, describe, expect, it} from "vitest";
import {NETWORKS} from "../../../../../src/chains/index.js";
import {DecodePool, decodeOne, type DecodeJob, type DecodePoolOptions} from "../../../../../src/dataApi/views/primary/decodePool.js";
import {makeKeys, xHistory} from "../../../../../src/dev/syntheticHistory.js";
import {idFromString, idToString} from "../../../../../src/util/cb58.js";
import {prng} from "../../../../helpers/prng.js";
import {tempDir} from "../../../../helpers/tempDirs.js";

const network = NETWORKS.local;
const keys = makeKeys(20, "decode-pool");
// 12 X blocks of 20 signed transactions (~13 KB each): a job of all of them is past the inline limit, one is under it.
const blocks = [
  ...xHistory({
    txs: 240,
    keys,
    networkId: network.id,
    chainId: idFromString(network.chainIds.X),
    assetId: idFromString("2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"),
    startSeconds: 1_700_000_000,
    random: prng(7),
  }),
].map((b) => ({bytes: b.bytes, containerId: idToString(b.id)}));
// Decoded on this thread, then copied as a worker's answer is (a Node Buffer, such as a tx's hash, arrives a Uint8Array).
const inThread = (items: DecodeJob["items"]) => structuredClone(items.map((it) => decodeOne({id: 0, chain: "X", kind: "block", items, deferInputKeys: true}, it)));

const pools: DecodePool[] = [];
function pool(opts: Partial<DecodePoolOptions> = {}): DecodePool {
  const p = new DecodePool({threads: 1, inlineBytes: 32 * 1024, idleStopMs: 0, ...opts});
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const until = async (cond: () => boolean, ms = 5000): Promise<void> => {
  for (const end = Date.now() + ms; !cond(); await new Promise((r) => setTimeout(r, 10))) if (Date.now() > end) throw new Error("timed out");
};

describe("DecodePool", () => {
  it("decodes a large job on a worker, and the same as on this thread", async () => {
    const p = pool();
    expect(blocks.reduce((a, b) => a + b.bytes.length, 0)).toBeGreaterThan(32 * 1024);
    const results = await p.decode("X", "block", blocks, true);
    expect(p.started).toBe(1);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.flatMap((r) => (r.ok ? r.container.txs : [])).length).toBe(240);
    expect(results).toEqual(inThread(blocks));
  });

  it("decodes a small job on this thread, without starting a worker", async () => {
    const p = pool();
    const one = blocks.slice(0, 1);
    expect(one[0]!.bytes.length).toBeLessThan(32 * 1024);
    expect(structuredClone(await p.decode("X", "block", one, true))).toEqual(inThread(one));
    expect(p.started).toBe(0);
  });

  it("stops its workers when idle and starts them again for the next large job", async () => {
    const p = pool({idleStopMs: 50});
    await p.decode("X", "block", blocks, true);
    expect(p.running).toBe(1);
    await until(() => p.running === 0);
    expect(await p.decode("X", "block", blocks, true)).toEqual(inThread(blocks));
    expect(p.started).toBe(2);
  });

  it("decodes the jobs of a worker that dies here, and starts a new worker for the next job", async () => {
    const p = pool();
    await p.decode("X", "block", blocks, true);
    const job = p.decode("X", "block", blocks, true);
    // The worker, which has answered before, ends with a job in flight: as if it had crashed.
    await (p as unknown as {slots: Array<{terminate(): Promise<number>}>}).slots[0]!.terminate();
    expect(structuredClone(await job)).toEqual(inThread(blocks));
    expect(p.running).toBe(0);
    expect(await p.decode("X", "block", blocks, true)).toEqual(inThread(blocks));
    expect(p.started).toBe(2);
  });

  it("decodes here for good once a worker dies before its first answer (a script that throws)", async () => {
    const script = path.join(tempDir("decode-pool-"), "throws.mjs");
    writeFileSync(script, 'import {parentPort} from "node:worker_threads";\nparentPort.on("message", () => { throw new Error("boom"); });\n');
    const p = pool({script});
    expect(structuredClone(await p.decode("X", "block", blocks, true))).toEqual(inThread(blocks));
    expect(p.started).toBe(1);
    expect(structuredClone(await p.decode("X", "block", blocks, true))).toEqual(inThread(blocks));
    expect(p.started).toBe(1);
  });

  it("fails a job in flight when it is closed", async () => {
    const p = pool();
    const job = p.decode("X", "block", blocks, true);
    await p.close();
    await expect(job).rejects.toThrow(/the decode pool is closed/);
  });

  it("decodes on this thread with no worker threads, and after close", async () => {
    const none = pool({threads: 0});
    expect(structuredClone(await none.decode("X", "block", blocks, true))).toEqual(inThread(blocks));
    expect(none.started).toBe(0);
    const closed = pool();
    await closed.close();
    expect(structuredClone(await closed.decode("X", "block", blocks, true))).toEqual(inThread(blocks));
    expect(closed.started).toBe(0);
  });
});
