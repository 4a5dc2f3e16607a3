/** Feed fixtures: NDJSON lines of deterministic containers, and waiting on the index over HTTP. */
import {createHash} from "node:crypto";
import {cb58Encode} from "../../src/util/cb58.js";
import type {TestNode} from "./node.js";

export interface LineSpec {
  chain: string;
  kind: "block" | "tx" | "vtx";
  n: number;
  size?: number;
}

/** Deterministic container bytes for (chain, kind, n), `size` bytes (default 64). */
export function containerBytes(chain: string, kind: string, n: number, size = 64): Buffer {
  const out = Buffer.alloc(size);
  for (let o = 0; o < size; o += 32) createHash("sha256").update(`${chain}/${kind}/${n}/${o}`).digest().copy(out, o);
  return out;
}

/** `0x` + hex of `bytes ‖ sha256(bytes)[28:32]`: AvalancheGo's `hex` encoding, as an upstream serves it. */
export function hexWithChecksum(bytes: Uint8Array): string {
  const sum = createHash("sha256").update(bytes).digest().subarray(28);
  return "0x" + Buffer.from(bytes).toString("hex") + sum.toString("hex");
}

/** The ID avaext derives for undecodable bytes: sha256 (docs/api/index.md). */
export function sha256Id(bytes: Uint8Array): string {
  return cb58Encode(createHash("sha256").update(bytes).digest());
}

export function feedLine(s: LineSpec, extra: Record<string, unknown> = {}): string {
  const bytes = containerBytes(s.chain, s.kind, s.n, s.size);
  return JSON.stringify({chain: s.chain, kind: s.kind, bytes: "0x" + bytes.toString("hex"), ...extra}) + "\n";
}

/** Polls until the endpoint holds `count` containers. */
export async function waitForCount(t: TestNode, path: string, count: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await t.rpc(path, "index.getLastAccepted");
    const idx = (r.body.result as {index?: string} | undefined)?.index;
    if (idx !== undefined && Number(idx) + 1 >= count) return;
    if (Date.now() > deadline) throw new Error(`${path} did not reach ${count} containers: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}
