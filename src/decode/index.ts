/**
 * Container decoding: what avaext reads from the bytes it indexes (docs/api/index.md). Each chain's containers may come
 * wrapped in a proposervm block or bare (pre-fork history), so the decoder tries the wrapper first and falls back.
 * A container that does not decode is still indexed: its ID is sha256(bytes) and derived views leave it out.
 */
import {sha256} from "../util/sha256.js";
import {decodeAvmBlock, decodeAvmTx, decodeVertex} from "./avm.js";
import {decodeEvmBlock} from "./coreth.js";
import {decodePlatformBlock} from "./platformvm.js";
import {decodeProposerBlock, type ProposerBlock} from "./proposervm.js";

export type DecodeChain = "P" | "X" | "C";
export type DecodeKind = "block" | "tx" | "vtx";

export interface DecodedContainer {
  /** What was read, e.g. `proposervm/coreth`, `platformvm`, `avm-tx`, `vertex`. */
  format: string;
  /** The container ID by the chain's rule. */
  id: Uint8Array;
  /** Block height (the inner block's for wrapped blocks); 0 for a standalone transaction. */
  height: bigint;
  /** Parent block (or the first parent vertex); zero for a standalone transaction. */
  parentId: Uint8Array;
  /** Block timestamp, Unix seconds: the inner block's, else the proposervm wrapper's; null when neither has one. */
  timestamp: number | null;
  /** IDs of the transactions in the container (EVM tx hashes on C). */
  txIds: Uint8Array[];
  txCount: number;
}

const ZERO_ID = new Uint8Array(32);

type Inner = Omit<DecodedContainer, "format" | "id"> & {format: string; id: Uint8Array};

function innerBlock(chain: DecodeChain, bytes: Uint8Array): Inner {
  switch (chain) {
    case "C": {
      const b = decodeEvmBlock(bytes);
      return {
        format: "coreth",
        id: b.hash,
        height: b.height,
        parentId: b.parentHash,
        timestamp: b.timestamp,
        txIds: b.txHashes,
        txCount: b.txHashes.length,
      };
    }
    case "P": {
      const b = decodePlatformBlock(bytes);
      return {
        format: "platformvm",
        id: sha256(bytes),
        height: b.height,
        parentId: b.parentId,
        timestamp: b.timestamp,
        txIds: b.txIds,
        txCount: b.txIds.length,
      };
    }
    case "X": {
      const b = decodeAvmBlock(bytes);
      return {
        format: "avm-block",
        id: sha256(bytes),
        height: b.height,
        parentId: b.parentId,
        timestamp: b.timestamp,
        txIds: b.txIds,
        txCount: b.txIds.length,
      };
    }
  }
}

/**
 * Cheap screens before a decode is tried: a failed decode throws, and an Error's stack trace costs more than the
 * decode itself. Containers that are not blocks at all (opaque test data, a hostile feed) would otherwise spend
 * most of the ingest's main thread building errors (a profile of random 1 KiB containers: 40 % of it).
 */
function codecV0(bytes: Uint8Array): boolean {
  return bytes.length >= 6 && bytes[0] === 0 && bytes[1] === 0;
}

/** A proposervm block: codec version 0 and a block type 0 (signed), 1 (option) or 2 (Granite). */
function mayBeProposer(bytes: Uint8Array): boolean {
  return codecV0(bytes) && bytes[2] === 0 && bytes[3] === 0 && bytes[4] === 0 && bytes[5]! <= 2;
}

/** An RLP list whose header declares exactly the bytes given, as an EVM block's does. */
function mayBeEvmBlock(bytes: Uint8Array): boolean {
  const b = bytes[0];
  if (b === undefined || b < 0xc0) return false;
  if (b <= 0xf7) return bytes.length === 1 + (b - 0xc0);
  const n = b - 0xf7;
  if (bytes.length < 1 + n) return false;
  let len = 0;
  for (let i = 1; i <= n; i++) len = len * 256 + bytes[i]!;
  return bytes.length === 1 + n + len;
}

function mayBeInner(chain: DecodeChain, bytes: Uint8Array): boolean {
  return chain === "C" ? mayBeEvmBlock(bytes) : codecV0(bytes);
}

function tryProposer(bytes: Uint8Array): ProposerBlock | null {
  if (!mayBeProposer(bytes)) return null;
  try {
    return decodeProposerBlock(bytes);
  } catch {
    return null;
  }
}

function decodeBlock(chain: DecodeChain, bytes: Uint8Array): DecodedContainer | null {
  const wrapper = tryProposer(bytes);
  if (wrapper && mayBeInner(chain, wrapper.inner)) {
    try {
      const inner = innerBlock(chain, wrapper.inner);
      return {
        ...inner,
        format: `proposervm/${inner.format}`,
        id: wrapper.id,
        timestamp: inner.timestamp ?? wrapper.timestamp,
      };
    } catch {
      // The bytes parsed as a wrapper by chance (a platformvm Apricot block also starts 0x0000 0000000x): try bare.
    }
  }
  if (!mayBeInner(chain, bytes)) return null;
  try {
    return innerBlock(chain, bytes);
  } catch {
    return null;
  }
}

/** Decodes a container of an index endpoint; null when it does not decode. Never throws. */
export function decodeContainer(chain: DecodeChain, kind: DecodeKind, bytes: Uint8Array): DecodedContainer | null {
  try {
    if (kind === "block") return decodeBlock(chain, bytes);
    if (chain !== "X") return null;
    // Codec version 0 (a vertex may also be 1, a stop vertex).
    if (bytes.length < 6 || bytes[0] !== 0 || bytes[1]! > (kind === "vtx" ? 1 : 0)) return null;
    if (kind === "tx") {
      const tx = decodeAvmTx(bytes);
      return {format: "avm-tx", id: tx.id, height: 0n, parentId: ZERO_ID, timestamp: null, txIds: [tx.id], txCount: 1};
    }
    const v = decodeVertex(bytes);
    return {
      format: "vertex",
      id: sha256(bytes),
      height: v.height,
      parentId: v.parentIds[0] ?? ZERO_ID,
      timestamp: null,
      txIds: v.txIds,
      txCount: v.txIds.length,
    };
  } catch {
    return null;
  }
}

/**
 * The ID a container has on its chain, as AvalancheGo's indexer records it: proposervm post-fork blocks hash their
 * unsigned part, option blocks all their bytes, pre-fork C-chain blocks are their Ethereum hash, everything else
 * sha256 of the bytes.
 */
export function containerId(chain: DecodeChain, kind: DecodeKind, bytes: Uint8Array): Uint8Array {
  return containerIdOf(chain, kind, bytes).id;
}

/**
 * The container ID by the chain's rule, and whether it is sha256 of the whole bytes (then its last 4 bytes are
 * also the checksum of the `hex` encoding, which the index stores with the record). A signed proposervm block's
 * ID hashes only its unsigned part, and a pre-fork C-chain block's is its EVM hash.
 */
export function containerIdOf(
  chain: DecodeChain,
  kind: DecodeKind,
  bytes: Uint8Array,
): {id: Uint8Array; hashOfBytes: boolean} {
  if (kind === "block") {
    const wrapper = tryProposer(bytes);
    if (wrapper) return {id: wrapper.id, hashOfBytes: wrapper.kind === "option"};
    if (chain === "C" && mayBeEvmBlock(bytes)) {
      try {
        return {id: decodeEvmBlock(bytes).hash, hashOfBytes: false};
      } catch {
        // not an EVM block: sha256 below
      }
    }
  }
  return {id: sha256(bytes), hashOfBytes: true};
}
