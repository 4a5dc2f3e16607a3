/**
 * Bytes of the dev network's containers. Deterministic from (chain, kind, height, index), distinct per container.
 * The seam where real container formats plug in: until the decoders' builders exist these are opaque bytes, which
 * the index stores as given (contract §5) and derived views leave out.
 */
import {createHash} from "node:crypto";
import type {ChainName} from "../chains/index.js";
import type {ContainerKind} from "../index/endpoints.js";

export interface DevContainerSpec {
  chain: ChainName;
  kind: ContainerKind;
  height: number;
  /** Position among containers of the same kind in one tick. */
  index: number;
  timestampSec: number;
  /** Transactions in a block. */
  txs: number;
}

export function devContainer(s: DevContainerSpec): Uint8Array {
  const seed = createHash("sha256").update(`${s.chain}/${s.kind}/${s.height}/${s.index}`).digest();
  const size = 200 + (seed[0]! << 1);
  const out = Buffer.alloc(size);
  for (let o = 0; o < size; o += 32) {
    createHash("sha256").update(seed).update(Uint8Array.of(o >> 8, o & 0xff)).digest().copy(out, o);
  }
  return out;
}
