/**
 * proposervm wrappers (avalanchego vms/proposervm/block): the form in which C, P and X index containers are
 * accepted today. A post-fork block (type 0) is `parent ‖ timestamp ‖ P-chain height ‖ certificate ‖ inner
 * block ‖ signature`; a Granite one (type 2) has the P-chain epoch (3 × u64) before the signature; the ID is
 * sha256 of everything but the trailing signature. An option block (type 1) is
 * `parent ‖ inner block`; its ID is sha256 of all its bytes.
 */
import {sha256} from "../util/sha256.js";
import {DecodeError, Reader, Writer} from "./reader.js";

export interface ProposerBlock {
  kind: "signed" | "option";
  id: Uint8Array;
  parentId: Uint8Array;
  /** Unix seconds (signed blocks only). */
  timestamp: number | null;
  pChainHeight: bigint | null;
  /** The proposer's X.509 certificate (DER) of a signed block; empty for unsigned and option blocks. */
  certificate: Uint8Array;
  inner: Uint8Array;
}

export function decodeProposerBlock(bytes: Uint8Array): ProposerBlock {
  const r = new Reader(bytes);
  if (r.u16() !== 0) throw new DecodeError("unknown proposervm codec version");
  const typeId = r.u32();
  if (typeId === 0 || typeId === 2) {
    const parentId = r.fixed(32);
    const timestamp = Number(r.u64());
    const pChainHeight = r.u64();
    const certificate = r.bytesU32(); // empty when unsigned
    const inner = r.bytesU32();
    // Granite blocks (type 2) add the P-chain epoch: height, number, start time.
    if (typeId === 2) r.fixed(24);
    const unsignedEnd = r.pos;
    r.bytesU32(); // signature
    r.end();
    return {
      kind: "signed",
      id: sha256(bytes.subarray(0, unsignedEnd)),
      parentId,
      timestamp,
      pChainHeight,
      certificate,
      inner,
    };
  }
  if (typeId === 1) {
    const parentId = r.fixed(32);
    const inner = r.bytesU32();
    r.end();
    return {
      kind: "option",
      id: sha256(bytes),
      parentId,
      timestamp: null,
      pChainHeight: null,
      certificate: new Uint8Array(0),
      inner,
    };
  }
  throw new DecodeError(`unknown proposervm block type ${typeId}`);
}

/** Builds an unsigned post-fork block (empty certificate and signature, as proposervm's BuildUnsigned). */
export function buildProposerBlock(
  parentId: Uint8Array,
  timestamp: number,
  pChainHeight: bigint,
  inner: Uint8Array,
): Uint8Array {
  return new Writer()
    .u16(0)
    .u32(0)
    .fixed(parentId)
    .u64(BigInt(timestamp))
    .u64(pChainHeight)
    .bytesU32(new Uint8Array(0))
    .bytesU32(inner)
    .bytesU32(new Uint8Array(0))
    .finish();
}
