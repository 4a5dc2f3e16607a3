/**
 * Signature aggregation for a warp message, without HTTP: ask every source for the canonical set's signatures,
 * check each signature against its validator's key before it counts (batch verification: one pairing check for
 * many signatures, halving only to find a bad one), stop once quorum + buffer is reached (or everyone answered),
 * and build the signed message (bit set over the canonical set, the aggregate of the verified signatures).
 * Quorum as AvalancheGo `VerifyWeight`: signedWeight · 100 >= totalWeight · quorum.
 */
import {
  aggregateVerified,
  batchVerifyPoints,
  batchVerifyPointsAsync,
  verifyAggregate,
  type BatchItem,
  type BatchResult,
} from "./bls.js";

/** Batches this large are checked off the event loop. */
const ASYNC_BATCH = 64;
import {
  WarpError,
  messageId,
  parseSignedMessage,
  parseUnsignedMessage,
  serializeSignedMessage,
  type SignedMessage,
} from "./message.js";
import {hasQuorum, requiredWeight, type CanonicalSet, type CanonicalValidator} from "./validators.js";
import {bytesToHex as hex} from "../util/hex.js";

/** A source's answer for one validator (named by its compressed public key). */
export type SignatureAnswer = {publicKey: Uint8Array; signature: Uint8Array} | {publicKey: Uint8Array; refused: string};

export interface SignatureRequest {
  /** The unsigned message's bytes. */
  unsigned: Uint8Array;
  justification: Uint8Array | undefined;
  /** The validators to ask (entries of the canonical set, in its order). */
  validators: readonly CanonicalValidator[];
  /** Aborted once the aggregation needs nothing more. */
  signal: AbortSignal;
}

/**
 * Where signatures come from (the dev network's keys, validators' warp RPC, an external aggregator...). A source
 * answers for the validators it can reach, in any order, as soon as each answer is known; it says nothing about the
 * others. Several sources may answer for the same validator: its first valid signature counts.
 */
export interface SignatureSource {
  name: string;
  signatures(request: SignatureRequest): AsyncIterable<SignatureAnswer>;
}

export interface AggregateArgs {
  unsigned: Uint8Array;
  set: CanonicalSet;
  /** Percent, 1..100. */
  quorumNum: number;
  /** Percent, 0..100 - quorumNum: keep collecting up to quorum + buffer. */
  bufferPercent: number;
  sources: SignatureSource[];
  justification?: Uint8Array;
  signal?: AbortSignal;
  /** Signatures verified by earlier aggregations: counted without a second pairing check. */
  verified?: VerifiedSignatures;
}

/**
 * Signatures already verified: (validator key, message ID, signature bytes) → the verified point. A relayer asks
 * for the same message more than once and a validator's BLS signature of it is deterministic, so the repeated
 * check of the same bytes against the same key proves nothing new. Bounded (oldest entries go first).
 */
export class VerifiedSignatures {
  private readonly entries = new Map<string, Uint8Array>();

  constructor(private readonly maxEntries = 16_384) {}

  get(key: string): Uint8Array | undefined {
    return this.entries.get(key);
  }

  set(key: string, point: Uint8Array): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, point);
  }
}

export interface Refusal {
  nodeIds: string[];
  reason: string;
}

interface Common {
  totalWeight: bigint;
  /** Signatures that did not verify against their validator's key (never aggregated). */
  invalid: number;
  /** Validators that refused, or that no source answered for (`no answer`), or whose only signatures were invalid. */
  refusals: Refusal[];
  /** Sources that failed (threw) before answering for every validator. */
  sourceErrors: Array<{source: string; error: string}>;
}

export type AggregateResult =
  | (Common & {ok: true; signed: Uint8Array; signedWeight: bigint; signerIndices: number[]})
  | (Common & {ok: false; collectedWeight: bigint; requiredWeight: bigint});

const indexCache = new WeakMap<CanonicalSet, Map<string, number>>();
function indexOf(set: CanonicalSet): Map<string, number> {
  let m = indexCache.get(set);
  if (!m) {
    m = new Map(set.validators.map((v, i) => [hex(v.publicKey), i]));
    indexCache.set(set, m);
  }
  return m;
}

function checkPercent(name: string, v: number, min: number): void {
  if (!Number.isInteger(v) || v < min || v > 100)
    throw new WarpError(name, `must be an integer in ${min}..100, got ${v}`);
}

export async function aggregate(args: AggregateArgs): Promise<AggregateResult> {
  const {unsigned, set, quorumNum, bufferPercent, sources} = args;
  checkPercent("quorumPercentage", quorumNum, 1);
  checkPercent("quorumPercentageBuffer", bufferPercent, 0);
  if (quorumNum + bufferPercent > 100)
    throw new WarpError("quorumPercentageBuffer", `quorum ${quorumNum} + buffer ${bufferPercent} exceeds 100`);
  parseUnsignedMessage(unsigned);

  const n = set.validators.length;
  const index = indexOf(set);
  const verified = args.verified;
  const msgKey = verified ? hex(messageId(unsigned)) : "";
  const cacheKey = (i: number, signature: Uint8Array): string =>
    `${hex(set.validators[i]!.publicKey)}/${msgKey}/${hex(signature)}`;
  const target = Math.min(100, quorumNum + bufferPercent);
  const signatures: Array<Uint8Array | undefined> = new Array(n); // verified, uncompressed
  const pending = new Map<number, Uint8Array[]>(); // answered, not yet verified: every candidate signature
  const refused = new Map<number, string>();
  const badOnly = new Set<number>(); // validators whose every signature so far was invalid
  let verifiedWeight = 0n;
  let pendingWeight = 0n;
  let invalid = 0;
  const sourceErrors: Common["sourceErrors"] = [];

  // One batch check at a time. A large one runs its scalar multiplications on the thread pool (answers arriving
  // meanwhile wait in `pending` for the next); a small one (the dev network's five) is checked at once.
  let inFlight: Promise<void> | null = null;
  const takePending = (): {who: number[]; items: BatchItem[]} => {
    const who: number[] = [];
    const items: BatchItem[] = [];
    for (const [i, sigs] of pending) {
      for (const signature of sigs) {
        who.push(i);
        items.push({publicKey: set.validators[i]!.key, signature});
      }
    }
    pending.clear();
    pendingWeight = 0n;
    return {who, items};
  };
  const apply = (who: number[], items: BatchItem[], {valid, points}: BatchResult): void => {
    valid.forEach((good, k) => {
      const i = who[k]!;
      if (!good) {
        invalid++;
        if (!signatures[i]) badOnly.add(i);
      } else if (!signatures[i]) {
        signatures[i] = points[k]!; // uncompressed, verified
        verifiedWeight += set.validators[i]!.weight;
        badOnly.delete(i);
        verified?.set(cacheKey(i, items[k]!.signature), points[k]!);
      }
    });
  };
  const verifyPending = async (): Promise<void> => {
    const {who, items} = takePending();
    if (items.length === 0) return;
    apply(
      who,
      items,
      items.length < ASYNC_BATCH ? batchVerifyPoints(unsigned, items) : await batchVerifyPointsAsync(unsigned, items),
    );
  };
  const afterCheck = (): void => {
    if (reached(target)) stop.abort(new Error("quorum reached"));
    else maybeVerify();
  };
  /** Verifies once the pending signatures could complete the target: one batch in the common case. */
  const maybeVerify = (): void => {
    if (inFlight || stop.signal.aborted || pending.size === 0) return;
    if (!hasQuorum(verifiedWeight + pendingWeight, set.totalWeight, target)) return;
    const {who, items} = takePending();
    if (items.length < ASYNC_BATCH) {
      apply(who, items, batchVerifyPoints(unsigned, items));
      afterCheck();
      return;
    }
    inFlight = batchVerifyPointsAsync(unsigned, items)
      .then((r) => apply(who, items, r))
      .catch(() => undefined) // never expected: the batch's signatures are then simply not counted
      .finally(() => {
        inFlight = null;
        afterCheck();
      });
  };

  const reached = (pct: number): boolean => verifiedWeight > 0n && hasQuorum(verifiedWeight, set.totalWeight, pct);

  // Stop signal: the caller's, or ours once the target is reached.
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(args.signal?.reason);
  if (args.signal?.aborted) stop.abort(args.signal.reason);
  else args.signal?.addEventListener("abort", onAbort, {once: true});
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  stop.signal.addEventListener("abort", () => finish(), {once: true});

  const take = (a: SignatureAnswer): void => {
    if (stop.signal.aborted) return;
    if (!a || !(a.publicKey instanceof Uint8Array)) return; // a malformed answer names no validator
    const i = index.get(hex(a.publicKey));
    if (i === undefined || signatures[i]) return;
    if ("refused" in a) {
      if (!refused.has(i)) refused.set(i, String(a.refused));
      return;
    }
    if (!(a.signature instanceof Uint8Array)) {
      invalid++;
      badOnly.add(i);
      return;
    }
    const known = verified?.get(cacheKey(i, a.signature));
    if (known) {
      signatures[i] = known;
      verifiedWeight += set.validators[i]!.weight;
      badOnly.delete(i);
      afterCheck();
      return;
    }
    const candidates = pending.get(i);
    if (candidates) {
      candidates.push(a.signature); // another source's answer for the same validator: checked in the same batch
      return;
    }
    pending.set(i, [a.signature]);
    pendingWeight += set.validators[i]!.weight;
    maybeVerify();
  };

  const request: SignatureRequest = {
    unsigned,
    justification: args.justification,
    validators: set.validators,
    signal: stop.signal,
  };
  const runs = sources.map(async (s) => {
    try {
      for await (const a of s.signatures(request)) {
        take(a);
        if (stop.signal.aborted) break;
      }
    } catch (e) {
      if (!stop.signal.aborted) sourceErrors.push({source: s.name, error: (e as Error)?.message ?? String(e)});
    }
  });
  await Promise.race([Promise.all(runs), finished]);
  args.signal?.removeEventListener("abort", onAbort);
  while (inFlight) await inFlight;
  if (!reached(target)) await verifyPending(); // everyone answered (or the caller stopped): check what is left

  const signerIndices: number[] = [];
  for (let i = 0; i < n; i++) if (signatures[i]) signerIndices.push(i);
  const refusals: Refusal[] = [];
  for (let i = 0; i < n; i++) {
    if (signatures[i]) continue;
    const reason = badOnly.has(i)
      ? "invalid signature"
      : (refused.get(i) ?? (reached(target) ? undefined : "no answer"));
    if (reason) refusals.push({nodeIds: set.validators[i]!.nodeIds, reason});
  }
  const common: Common = {totalWeight: set.totalWeight, invalid, refusals, sourceErrors};
  if (!reached(quorumNum)) {
    return {
      ok: false,
      collectedWeight: verifiedWeight,
      requiredWeight: requiredWeight(set.totalWeight, quorumNum),
      ...common,
    };
  }
  const aggregateSig = aggregateVerified(signerIndices.map((i) => signatures[i]!));
  return {
    ok: true,
    signed: serializeSignedMessage(unsigned, signerIndices, aggregateSig),
    signedWeight: verifiedWeight,
    signerIndices,
    ...common,
  };
}

export type VerifyResult = {ok: true; message: SignedMessage; signedWeight: bigint} | {ok: false; reason: string};

/**
 * Checks a signed message (e.g. an external aggregator's answer) as AvalancheGo's `BitSetSignature.Verify` does:
 * it parses, the bit set is minimal and names only entries of the set, the signers' weight reaches quorum, and
 * the aggregate verifies against the sum of their keys. With `expectedUnsigned`, the unsigned part must be it.
 */
export function verifySignedMessage(
  signed: Uint8Array,
  set: CanonicalSet,
  quorumNum: number,
  expectedUnsigned?: Uint8Array,
): VerifyResult {
  let message: SignedMessage;
  try {
    message = parseSignedMessage(signed);
  } catch (e) {
    return {ok: false, reason: (e as Error).message};
  }
  if (expectedUnsigned && Buffer.compare(message.unsignedBytes, expectedUnsigned) !== 0) {
    return {ok: false, reason: "the signed message is not the message asked for"};
  }
  const idx = message.signerIndices;
  if (idx.length > 0 && idx[idx.length - 1]! >= set.validators.length) {
    return {ok: false, reason: `signers: index ${idx[idx.length - 1]} >= ${set.validators.length} validators`};
  }
  let signedWeight = 0n;
  for (const i of idx) signedWeight += set.validators[i]!.weight;
  if (!hasQuorum(signedWeight, set.totalWeight, quorumNum)) {
    return {ok: false, reason: `insufficient weight: ${signedWeight} of ${set.totalWeight}, ${quorumNum}% required`};
  }
  if (
    !verifyAggregate(
      idx.map((i) => set.validators[i]!.key),
      message.unsignedBytes,
      message.signature,
    )
  ) {
    return {ok: false, reason: "the aggregate signature does not verify"};
  }
  return {ok: true, message, signedWeight};
}
