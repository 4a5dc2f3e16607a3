/**
 * Waits shared by the tests that run the dev network: until its data API has folded a backfill, and until both
 * of its EVMs (the C-chain and the dev L1) are followed. Plain loops, not `expect.poll`, so hooks can use them.
 */
import type {TestNode} from "./node.js";

/** Polls `done()` every 100 ms; past `timeoutMs`, fails with `what`. */
export async function until(
  what: () => string,
  done: () => Promise<boolean> | boolean,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The view has folded everything indexed, and the index of `endpoint` has reached `minIndex`. */
export async function devFolded(t: TestNode, endpoint = "P/block", minIndex = 40, timeoutMs = 60_000): Promise<void> {
  await until(
    () => `the data API view did not fold ${endpoint} up to ${minIndex} within ${timeoutMs} ms`,
    async () => {
      const view = t.node.dataApi?.view;
      const last = await t.rpc(`/ext/index/${endpoint}`, "index.getLastAccepted", {encoding: "hex"});
      const index = (last.body.result as {index?: string} | undefined)?.index;
      return view != null && view.lag() === 0n && index !== undefined && Number(index) >= minIndex;
    },
    timeoutMs,
  );
}

/** The heads of the followed EVM chains. */
export function evmHeads(t: TestNode): bigint[] {
  return (t.node.dataApi?.evm?.chains ?? []).map((c) => c.follower?.status().head ?? -1n);
}

/** Both dev EVMs are followed up to at least `minHead` (the dev traffic's first interchain round by block 20). */
export async function devEvmsFollowed(t: TestNode, minHead = 20n, timeoutMs = 60_000): Promise<void> {
  await until(
    () => `the EVM followers did not catch up (heads ${evmHeads(t).join(", ")})`,
    // The lanes behind each head too (token metadata, traces: src/dataApi/views/evm/lanes.ts).
    () =>
      evmHeads(t).length === 2 &&
      evmHeads(t).every((h) => h >= minHead) &&
      (t.node.dataApi?.evm?.chains ?? []).every((c) => {
        const lanes = c.follower?.status().lanes;
        return (
          lanes !== undefined &&
          (lanes.tokens.covered ?? -1n) >= minHead &&
          (lanes.traces === null || (lanes.traces.covered ?? -1n) >= minHead)
        );
      }),
    timeoutMs,
  );
}
