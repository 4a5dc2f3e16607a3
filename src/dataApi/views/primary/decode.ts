/**
 * The primary-network decoder: one indexed container (P/X/C block, X vertex, X standalone tx) in, the decoded
 * model (model.ts) out. P and X blocks, their txs and C atomic txs are read once, with the codec the index frames
 * them with (src/decode/codec/); txCodec.ts makes the model of each tx. Proposervm wrappers, vertices and coreth
 * blocks are src/decode/'s. Anything that does not decode throws a PrimaryDecodeError naming what failed, and
 * nothing else.
 */
import {ripemd160} from "@noble/hashes/legacy.js";
import {cb58Encode, EMPTY_ID} from "../../../util/cb58.js";
import {sha256} from "../../../util/sha256.js";
import {bytesToHex} from "../../../util/hex.js";
import {decodeVertex} from "../../../decode/avm.js";
import {decode, spanned, versioned} from "../../../decode/codec/codec.js";
import {atomicBatch} from "../../../decode/codec/atomic.js";
import {xBlock, xSignedTx} from "../../../decode/codec/avm.js";
import {pBlock, pBlockFields, pSignedTx} from "../../../decode/codec/platformvm.js";
import {decodeEvmBlock} from "../../../decode/coreth.js";
import {decodeProposerBlock, type ProposerBlock} from "../../../decode/proposervm.js";
import type {PrimaryChain, PrimaryContainer, PrimaryTx, ProposerDetails} from "./model.js";
import {blockTx, decodeSignedTx, nodeIdString, PrimaryDecodeError, type TxDecodeOptions} from "./txCodec.js";

export {PrimaryDecodeError} from "./txCodec.js";

export type PrimaryContainerKind = "block" | "vtx" | "tx";

export interface PrimaryDecodeContext extends TxDecodeOptions {
  /** The index's ID of the container (CB58). */
  containerId: string;
}

/** Blocks read with their txs in full (the index frames the same definitions with `raw` txs). */
const P_BLOCK = versioned("platformvm", pBlock(spanned(pSignedTx)));
const X_BLOCK = versioned("avm", xBlock(spanned(xSignedTx)));

/** A platformvm block's type as the model names it: ApricotProposalBlock, BanffProposalBlock → Proposal. */
function pBlockType(name: string): string {
  return name.replace(/^(Apricot|Banff)/, "").replace(/Block$/, "");
}

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
  const block = decode(P_BLOCK, bytes);
  const b = pBlockFields(block);
  return {
    blockId: cb58Encode(sha256(bytes)),
    parentId: cb58Encode(b.parentId),
    parentIds: [cb58Encode(b.parentId)],
    height: b.height,
    timestamp: b.time,
    chainTime: b.time,
    blockType: pBlockType(block.type),
    txs: b.txs.map((t) => blockTx({chain: "P", tx: t.value}, t.bytes, opts)),
  };
}

function avmBlock(bytes: Uint8Array, opts: TxDecodeOptions): Inner {
  const b = decode(X_BLOCK, bytes).value;
  return {
    blockId: cb58Encode(sha256(bytes)),
    parentId: cb58Encode(b.parentId),
    parentIds: [cb58Encode(b.parentId)],
    height: b.height,
    timestamp: b.time,
    blockType: "",
    txs: b.txs.map((t) => blockTx({chain: "X", tx: t.value}, t.bytes, opts)),
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
    return decode(atomicBatch, extData).map((t) => blockTx({chain: "C", tx: t.value}, t.bytes, opts));
  } catch (e) {
    throw new PrimaryDecodeError(`extData is neither an atomic tx (${reasonOf(single)}) nor a batch (${reasonOf(e)})`);
  }
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

function block(
  chain: PrimaryChain,
  bytes: Uint8Array,
  opts: TxDecodeOptions,
): Inner & {proposer: ProposerDetails | null} {
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
    throw new PrimaryDecodeError(
      wrappedError === null ? bare : `proposervm-wrapped ${chain} block: ${reasonOf(wrappedError)}; bare ${bare}`,
    );
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
export function decodePrimaryContainer(
  chain: PrimaryChain,
  kind: PrimaryContainerKind,
  bytes: Uint8Array,
  ctx: PrimaryDecodeContext,
): PrimaryContainer {
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
export function tryDecodePrimaryContainer(
  chain: PrimaryChain,
  kind: PrimaryContainerKind,
  bytes: Uint8Array,
  ctx: PrimaryDecodeContext,
): DecodeResult {
  try {
    return {ok: true, container: decodePrimaryContainer(chain, kind, bytes, ctx)};
  } catch (err) {
    return {ok: false, error: (err as Error).message};
  }
}
