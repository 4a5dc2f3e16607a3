/**
 * The primary-network decoder: one indexed container (P/X/C block, X vertex, X standalone tx) in, the decoded
 * model (model.ts) out. The framing (proposervm wrappers, platformvm/avm blocks, vertices, coreth blocks) is
 * avaext's own (`src/decode/`); every transaction is read in full by txCodec.ts. Anything that does not decode
 * throws a PrimaryDecodeError naming what failed, and nothing else.
 */
import {ripemd160} from "@noble/hashes/legacy.js";
import {cb58Encode, EMPTY_ID, sha256} from "../../../util/cb58.js";
import {bytesToHex} from "../../../util/hex.js";
import {decodeAvmBlock, decodeVertex} from "../../../decode/avm.js";
import {decodeEvmBlock} from "../../../decode/coreth.js";
import {decodePlatformBlock} from "../../../decode/platformvm.js";
import {decodeProposerBlock, type ProposerBlock} from "../../../decode/proposervm.js";
import {Reader} from "../../../decode/reader.js";
import type {PrimaryChain, PrimaryContainer, PrimaryTx, ProposerDetails} from "./model.js";
import {decodeInlineTx, decodeSignedTx, nodeIdString, PrimaryDecodeError, type TxDecodeOptions} from "./txCodec.js";

export {PrimaryDecodeError} from "./txCodec.js";

export type PrimaryContainerKind = "block" | "vtx" | "tx";

export interface PrimaryDecodeContext extends TxDecodeOptions {
  /** The index's ID of the container (CB58). */
  containerId: string;
}

/** platformvm block type IDs: Apricot 0-4, Banff 29-32. */
const P_BLOCK_TYPES: Record<number, string> = {
  0: "Proposal",
  1: "Abort",
  2: "Commit",
  3: "Standard",
  4: "Atomic",
  29: "Proposal",
  30: "Abort",
  31: "Commit",
  32: "Standard",
};

/** Everything of a container but the wrapper's facts: what the inner block (or bare container) gives. */
type Inner = Omit<PrimaryContainer, "chain" | "kind" | "containerId" | "sizeBytes" | "proposer">;

function reasonOf(e: unknown): string {
  if (e instanceof PrimaryDecodeError) return e.reason;
  return e instanceof Error ? e.message : String(e);
}

/** `NodeID-` + CB58(ripemd160(sha256(certificate DER))): AvalancheGo's ids.NodeIDFromCert. */
export function nodeIdFromCertificate(certificate: Uint8Array): string {
  return nodeIdString(ripemd160(sha256(certificate)));
}

function proposerDetails(w: ProposerBlock): ProposerDetails {
  return {
    proposerId: cb58Encode(w.id),
    proposerParentId: cb58Encode(w.parentId),
    proposerNodeId: w.certificate.length > 0 ? nodeIdFromCertificate(w.certificate) : "",
    proposerPChainHeight: w.pChainHeight ?? 0n,
    proposerTimestamp: BigInt(w.timestamp ?? 0),
  };
}

function platformBlock(bytes: Uint8Array, opts: TxDecodeOptions): Inner {
  const b = decodePlatformBlock(bytes);
  const txs = b.txRanges.map(([s, e]) => decodeInlineTx("P", bytes.subarray(s, e), opts));
  return {
    blockId: cb58Encode(sha256(bytes)),
    parentId: cb58Encode(b.parentId),
    parentIds: [cb58Encode(b.parentId)],
    height: b.height,
    timestamp: b.timestamp === null ? null : BigInt(b.timestamp),
    chainTime: b.timestamp === null ? null : BigInt(b.timestamp),
    blockType: P_BLOCK_TYPES[b.typeId] ?? "",
    txs,
  };
}

function avmBlock(bytes: Uint8Array, opts: TxDecodeOptions): Inner {
  const b = decodeAvmBlock(bytes);
  const txs = b.txRanges.map(([s, e]) => decodeInlineTx("X", bytes.subarray(s, e), opts));
  return {
    blockId: cb58Encode(sha256(bytes)),
    parentId: cb58Encode(b.parentId),
    parentIds: [cb58Encode(b.parentId)],
    height: b.height,
    timestamp: BigInt(b.timestamp),
    blockType: "",
    txs,
  };
}

/**
 * A coreth block's atomic transactions (`extData`): one signed tx (codec v0) before Apricot Phase 5, a batch
 * (codec v0 ‖ u32 count ‖ txs) after. The upgrade time is the network's, unknown here, so both are tried in that
 * order (a single tx never also reads as a batch: its type ID would be the count and its network ID a type ID).
 */
export function atomicTxsOf(extData: Uint8Array | null, opts: TxDecodeOptions = {}): PrimaryTx[] {
  if (extData === null || extData.length === 0) return [];
  let single: unknown;
  try {
    return [decodeSignedTx("C", extData, opts)];
  } catch (e) {
    single = e;
  }
  try {
    const r = new Reader(extData);
    if (r.u16() !== 0) throw new PrimaryDecodeError("atomic tx batch codec version");
    const n = r.u32();
    if (n > r.remaining) throw new PrimaryDecodeError("atomic tx batch count exceeds the input");
    const txs: PrimaryTx[] = [];
    for (let i = 0; i < n; i++) {
      txs.push(decodeBatchItem(r, opts));
    }
    r.end();
    return txs;
  } catch (e) {
    throw new PrimaryDecodeError(`extData is neither an atomic tx (${reasonOf(single)}) nor a batch (${reasonOf(e)})`);
  }
}

/** One tx of a batch at `r.pos`: its extent is found by the framing walker, then it is decoded in full. */
function decodeBatchItem(r: Reader, opts: TxDecodeOptions): PrimaryTx {
  const start = r.pos;
  skipAtomicTx(r);
  return decodeInlineTx("C", r.bytes.subarray(start, r.pos), opts);
}

/** Walks one inline C atomic tx (typeID ‖ fields ‖ credentials) without building anything. */
function skipAtomicTx(r: Reader): void {
  const t = r.u32();
  r.fixed(4 + 32 + 32); // network, blockchain, source/destination chain
  const transferable = (withInputs: boolean): void => {
    r.list((r) => {
      if (withInputs) r.fixed(36); // tx ID, index
      r.fixed(32); // asset
      const typeId = r.u32();
      if (withInputs) {
        if (typeId !== 5) throw new PrimaryDecodeError(`unknown C-chain input type ${typeId}`);
        r.u64();
        r.skipList(4);
      } else {
        if (typeId !== 7) throw new PrimaryDecodeError(`unknown C-chain output type ${typeId}`);
        r.fixed(16);
        r.u32();
        r.skipList(20);
      }
    });
  };
  if (t === 0) {
    transferable(true);
    r.skipList(20 + 8 + 32); // EVM outputs
  } else if (t === 1) {
    r.skipList(20 + 8 + 32 + 8); // EVM inputs
    transferable(false);
  } else {
    throw new PrimaryDecodeError(`unknown atomic tx type ${t}`);
  }
  r.list((r) => {
    r.u32();
    r.skipList(65);
  });
}

function evmBlock(bytes: Uint8Array, opts: TxDecodeOptions): Inner {
  const b = decodeEvmBlock(bytes);
  const parentId = `0x${bytesToHex(b.parentHash)}`;
  return {
    blockId: `0x${bytesToHex(b.hash)}`,
    parentId,
    parentIds: [parentId],
    height: b.height,
    timestamp: BigInt(b.timestamp),
    blockType: "",
    txs: atomicTxsOf(b.extData, opts),
  };
}

function innerBlock(chain: PrimaryChain, bytes: Uint8Array, opts: TxDecodeOptions): Inner {
  if (chain === "P") return platformBlock(bytes, opts);
  if (chain === "X") return avmBlock(bytes, opts);
  return evmBlock(bytes, opts);
}

function tryProposer(bytes: Uint8Array): ProposerBlock | null {
  try {
    return decodeProposerBlock(bytes);
  } catch {
    return null;
  }
}

function block(chain: PrimaryChain, bytes: Uint8Array, opts: TxDecodeOptions): Inner & {proposer: ProposerDetails | null} {
  const wrapper = tryProposer(bytes);
  let wrappedError: unknown = null;
  if (wrapper) {
    try {
      const inner = innerBlock(chain, wrapper.inner, opts);
      const timestamp = inner.timestamp ?? (wrapper.timestamp === null ? null : BigInt(wrapper.timestamp));
      return {...inner, timestamp, proposer: proposerDetails(wrapper)};
    } catch (e) {
      // Bytes may read as a wrapper by chance (an Apricot platformvm block also starts 0x0000 0000000x): try bare.
      wrappedError = e;
    }
  }
  try {
    return {...innerBlock(chain, bytes, opts), proposer: null};
  } catch (e) {
    const bare = `${chain} block: ${reasonOf(e)}`;
    throw new PrimaryDecodeError(wrappedError === null ? bare : `proposervm-wrapped ${chain} block: ${reasonOf(wrappedError)}; bare ${bare}`);
  }
}

function vertex(bytes: Uint8Array, opts: TxDecodeOptions): Inner {
  const v = decodeVertex(bytes);
  const parentIds = v.parentIds.map(cb58Encode);
  return {
    blockId: cb58Encode(sha256(bytes)),
    parentId: parentIds[0] ?? EMPTY_ID,
    parentIds,
    height: v.height,
    timestamp: null,
    blockType: "",
    txs: v.txs.map((tx) => decodeSignedTx("X", tx, opts)),
  };
}

function standaloneTx(bytes: Uint8Array, opts: TxDecodeOptions): Inner {
  const tx = decodeSignedTx("X", bytes, opts);
  return {blockId: tx.id, parentId: EMPTY_ID, parentIds: [], height: 0n, timestamp: null, blockType: "", txs: [tx]};
}

/**
 * Decodes one primary-network container as indexed: a P, X or C block (proposervm-wrapped, signed, unsigned or
 * an option, or bare), an X vertex (`vtx`) or a standalone X transaction (`tx`).
 * @throws PrimaryDecodeError for anything that does not decode in full (trailing bytes included).
 */
export function decodePrimaryContainer(chain: PrimaryChain, kind: PrimaryContainerKind, bytes: Uint8Array, ctx: PrimaryDecodeContext): PrimaryContainer {
  let inner: Inner & {proposer: ProposerDetails | null};
  try {
    if (kind === "block") inner = block(chain, bytes, ctx);
    else if (chain !== "X") throw new PrimaryDecodeError(`a ${chain}-chain container cannot be a ${kind}`);
    else if (kind === "vtx") inner = {...vertex(bytes, ctx), proposer: null};
    else inner = {...standaloneTx(bytes, ctx), proposer: null};
  } catch (e) {
    if (e instanceof PrimaryDecodeError) throw e;
    throw new PrimaryDecodeError(`${chain} ${kind}: ${reasonOf(e)}`);
  }
  return {chain, kind, containerId: ctx.containerId, sizeBytes: bytes.length, ...inner};
}

/** A container decoded, or why it does not decode (decodePrimaryContainer reports every failure as a PrimaryDecodeError). */
export type DecodeResult = {ok: true; container: PrimaryContainer} | {ok: false; error: string};

/** decodePrimaryContainer, its failure as a value (the view logs, counts and skips such a container). */
export function tryDecodePrimaryContainer(chain: PrimaryChain, kind: PrimaryContainerKind, bytes: Uint8Array, ctx: PrimaryDecodeContext): DecodeResult {
  try {
    return {ok: true, container: decodePrimaryContainer(chain, kind, bytes, ctx)};
  } catch (err) {
    return {ok: false, error: (err as Error).message};
  }
}
