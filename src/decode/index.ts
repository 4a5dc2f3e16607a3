/**
 * Container decoding: the seam the feed uses. Until the chain formats are decoded, every container is
 * "undecodable": its ID is sha256(bytes) (contract §5) and it is left out of derived views.
 */
import {sha256} from "../util/cb58.js";

export type DecodeChain = "P" | "X" | "C";
export type DecodeKind = "block" | "tx" | "vtx";

export interface DecodedContainer {
  format: string;
  id: Uint8Array;
  height: bigint;
  parentId: Uint8Array;
  timestamp: number | null;
  txIds: Uint8Array[];
  txCount: number;
}

export function decodeContainer(_chain: DecodeChain, _kind: DecodeKind, _bytes: Uint8Array): DecodedContainer | null {
  return null;
}

export function containerId(_chain: DecodeChain, _kind: DecodeKind, bytes: Uint8Array): Uint8Array {
  return sha256(bytes);
}
