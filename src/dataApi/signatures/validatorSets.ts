/**
 * Validator sets for warp signatures (docs/api/signatures.md), from the P-chain view's store: the primary network's
 * validators at the time of a P-chain height (their stakes and BLS keys), a converted L1's validators
 * (`l1_validators`: the active ones sign, the inactive ones' weight counts), and a permissioned subnet's validators
 * (their subnet stakes, keyed by their primary-network BLS keys, as AvalancheGo's validator manager does). The canonical set is built from them by src/warp/validators.ts.
 */
import {BlsKeyCache, canonicalValidatorSet, type CanonicalSet} from "../../warp/validators.js";
import {EMPTY_ID} from "../../util/cb58.js";
import {FifoMap} from "../../util/fifoMap.js";
import {Slots} from "../../util/slots.js";
import {unavailable} from "../server/errors.js";
import type {SqlClient} from "../store/sql.js";
import {
  l1ValidatorRows,
  pChainBlockTs,
  pChainHead,
  subnetIsL1,
  subnetOfBlockchain,
  subnetValidatorRowsAt,
} from "../queries/warp/validatorSets.js";

export interface ValidatorSetAt {
  set: CanonicalSet;
  /** The P-chain height the set is taken at. */
  height: bigint;
  /** An L1's set: its current one, whatever the height (it changes with the next P-chain block). */
  current?: boolean;
}

export class HeightError extends Error {}

/** The P-chain view has folded no block: the service's state, whatever height was asked. */
export class NoPChainStateError extends HeightError {}

const keyOf = (bls: {publicKey: string} | null | undefined): Uint8Array | null =>
  bls?.publicKey ? Uint8Array.from(Buffer.from(bls.publicKey, "hex")) : null;

export interface ValidatorSetCacheOptions {
  /** Sets kept, by subnet and height. */
  maxEntries: number;
  /** Sets built at once (each: three queries and, for keys not seen before, their decompression). */
  maxBuilds: number;
  /** Requests waiting for a build slot; past them a request is answered 503 at once. */
  maxWaiting: number;
}

export const defaultValidatorSetCacheOptions: ValidatorSetCacheOptions = {
  maxEntries: 1024,
  maxBuilds: 2,
  maxWaiting: 32,
};

/**
 * Canonical sets by subnet and P-chain height. A set at a height never changes, so it is kept across new P-chain
 * blocks; an L1's set is its current one, kept only while the P-chain head stays. A relayer asks for the same set
 * many times; a caller asking for fresh heights gets each built once, at most `maxBuilds` at a time (the rest wait,
 * past `maxWaiting` a 503), with every BLS key decoded once across sets (BlsKeyCache): the work an anonymous POST
 * can cause is bounded (issue 49).
 */
export class ValidatorSetCache {
  private readonly sets: FifoMap<string, {p: Promise<ValidatorSetAt>; head: bigint}>;
  private readonly keys: BlsKeyCache;
  private readonly slots: Slots;
  /** Sets built (cache misses), for tests. */
  built = 0;

  constructor(opts: ValidatorSetCacheOptions = defaultValidatorSetCacheOptions, keys: BlsKeyCache = new BlsKeyCache()) {
    this.sets = new FifoMap(opts.maxEntries);
    this.keys = keys;
    this.slots = new Slots({max: opts.maxBuilds, maxWaiting: opts.maxWaiting}, (busy, waiting) =>
      unavailable(`validator sets: ${busy} being built and ${waiting} waiting; retry shortly`),
    );
  }

  async get(sql: SqlClient, subnetId: string, height: bigint): Promise<ValidatorSetAt> {
    const head = await pHead(sql);
    const at = height === 0n ? head.height : height;
    if (at > head.height) throw new HeightError(`P-chain height ${at} is past the view's (${head.height})`);
    const key = `${subnetId}/${at}`;
    const held = this.sets.get(key);
    if (held) {
      const s = await held.p.catch(() => null);
      if (s && (!s.current || held.head === head.height)) return s;
    }
    const entry = {p: this.build(sql, subnetId, at, head), head: head.height};
    entry.p.catch(() => {
      if (this.sets.get(key) === entry) this.sets.delete(key); // errors are not kept
    });
    this.sets.set(key, entry);
    return entry.p;
  }

  private async build(
    sql: SqlClient,
    subnetId: string,
    at: bigint,
    head: {height: bigint; ts: bigint},
  ): Promise<ValidatorSetAt> {
    return this.slots.run(() => {
      this.built++;
      return validatorSetAt(sql, subnetId, at, head, this.keys);
    });
  }
}

async function pHead(sql: SqlClient): Promise<{height: bigint; ts: bigint}> {
  const head = await pChainHead(sql);
  if (!head) throw new NoPChainStateError("the P-chain view has no block yet");
  return head;
}

/**
 * The canonical set of `subnetId` at P-chain height `height` (0: the last folded one). A height past the view's
 * throws HeightError; an L1's set is its current one (the view keeps no L1 validator history).
 */
export async function validatorSetAt(
  sql: SqlClient,
  subnetId: string,
  height: bigint,
  knownHead?: {height: bigint; ts: bigint},
  keys?: BlsKeyCache,
): Promise<ValidatorSetAt> {
  const head = knownHead ?? (await pHead(sql));
  const at = height === 0n ? head.height : height;
  if (at > head.height) throw new HeightError(`P-chain height ${at} is past the view's (${head.height})`);
  const ts = (at === head.height ? head.ts : await pChainBlockTs(sql, at)) ?? head.ts;

  if (subnetId !== EMPTY_ID && (await subnetIsL1(sql, subnetId))) {
    // An inactive (unfunded or disabled) validator cannot sign, but its weight still counts in the total, as
    // AvalancheGo's validator set holds it under the empty NodeID with no key (vms/platformvm/state/state.go).
    const rows = await l1ValidatorRows(sql, subnetId);
    const inputs = rows.map((r) => ({
      nodeId: r.node_id,
      weight: BigInt(r.weight),
      blsPublicKey: r.active ? keyOf(r.bls) : null,
    }));
    return {set: canonicalValidatorSet(inputs, keys), height: at, current: true};
  }
  // Validators staking at that time, a subnet validator with its primary-network key (queries/warp/validatorSets.ts).
  const rows = await subnetValidatorRowsAt(sql, subnetId, EMPTY_ID, ts);
  return {
    set: canonicalValidatorSet(
      rows.map((r) => ({nodeId: r.node_id, weight: BigInt(r.weight), blsPublicKey: keyOf(r.bls)})),
      keys,
    ),
    height: at,
  };
}

/** The subnet that validates a blockchain: the primary network for P, X, C; else the chain's subnet; null if unknown. */
export async function subnetOfChain(
  sql: SqlClient,
  blockchainId: string,
  primaryChains: readonly string[],
): Promise<string | null> {
  if (blockchainId === EMPTY_ID || primaryChains.includes(blockchainId)) return EMPTY_ID;
  return subnetOfBlockchain(sql, blockchainId);
}

/** Where the routes take canonical sets and chains' subnets from: the P-chain view, or a P-chain node (--platform-rpc). */
export interface ValidatorSets {
  /** As validatorSetAt: HeightError for a height past the source's; other errors as the source fails. */
  setAt(subnetId: string, height: bigint): Promise<ValidatorSetAt>;
  /** As subnetOfChain: null when the chain is not known. */
  subnetOf(blockchainId: string): Promise<string | null>;
  /** Names the source in messages. */
  readonly name: string;
}

/** The P-chain view's sets (the store this process serves), cached while its P-chain head stays. */
export function viewValidatorSets(sql: SqlClient, primaryChains: readonly string[], keys?: BlsKeyCache): ValidatorSets {
  const cache = new ValidatorSetCache(defaultValidatorSetCacheOptions, keys);
  return {
    name: "the P-chain view",
    setAt: (subnetId, height) => cache.get(sql, subnetId, height),
    subnetOf: (blockchainId) => subnetOfChain(sql, blockchainId, primaryChains),
  };
}
