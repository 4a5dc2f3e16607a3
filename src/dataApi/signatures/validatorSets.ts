/**
 * Validator sets for warp signatures (contract data-api §8), from the P-chain view's store: the primary network's
 * validators at the time of a P-chain height (their stakes and BLS keys), a converted L1's validators
 * (`l1_validators`: the active ones sign, the inactive ones' weight counts), and a permissioned subnet's validators
 * (their subnet stakes, keyed by their primary-network BLS keys, as AvalancheGo's validator manager does). The canonical set is built from them by src/warp/validators.ts.
 */
import {canonicalValidatorSet, type CanonicalSet} from "../../warp/validators.js";
import {EMPTY_ID} from "../../util/cb58.js";
import type {SqlClient} from "../store/client.js";
import {l1ValidatorRows, pChainBlockTs, pChainHead, subnetIsL1, subnetOfBlockchain, subnetValidatorRowsAt} from "../queries/warp/validatorSets.js";

export interface ValidatorSetAt {
  set: CanonicalSet;
  /** The P-chain height the set is taken at. */
  height: bigint;
}

export class HeightError extends Error {}

/** The P-chain view has folded no block: the service's state, whatever height was asked. */
export class NoPChainStateError extends HeightError {}

const keyOf = (bls: {publicKey: string} | null | undefined): Uint8Array | null => (bls?.publicKey ? Uint8Array.from(Buffer.from(bls.publicKey, "hex")) : null);

/**
 * Canonical sets by subnet and P-chain height, kept while the view's P-chain head stays where it was: a set at a
 * height never changes (an L1's is its current one, which changes only with a new P-chain block). Building one
 * costs three queries and a BLS key decompression per validator; a relayer asks for the same set many times.
 */
export class ValidatorSetCache {
  private readonly sets = new Map<string, Promise<ValidatorSetAt>>();
  private head: bigint | null = null;

  constructor(private readonly opts: {maxEntries: number} = {maxEntries: 256}) {}

  async get(sql: SqlClient, subnetId: string, height: bigint): Promise<ValidatorSetAt> {
    const head = await pHead(sql);
    if (head.height !== this.head) {
      this.sets.clear();
      this.head = head.height;
    }
    const key = `${subnetId}/${height}`;
    let set = this.sets.get(key);
    if (!set) {
      set = validatorSetAt(sql, subnetId, height, head);
      const p = set;
      p.catch(() => {
        if (this.sets.get(key) === p) this.sets.delete(key); // errors are not kept
      });
      if (this.sets.size >= this.opts.maxEntries) this.sets.delete(this.sets.keys().next().value!);
      this.sets.set(key, set);
    }
    return set;
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
export async function validatorSetAt(sql: SqlClient, subnetId: string, height: bigint, knownHead?: {height: bigint; ts: bigint}): Promise<ValidatorSetAt> {
  const head = knownHead ?? (await pHead(sql));
  const at = height === 0n ? head.height : height;
  if (at > head.height) throw new HeightError(`P-chain height ${at} is past the view's (${head.height})`);
  const ts = (at === head.height ? head.ts : await pChainBlockTs(sql, at)) ?? head.ts;

  if (subnetId !== EMPTY_ID && (await subnetIsL1(sql, subnetId))) {
    // An inactive (unfunded or disabled) validator cannot sign, but its weight still counts in the total, as
    // AvalancheGo's validator set holds it under the empty NodeID with no key (vms/platformvm/state/state.go).
    const rows = await l1ValidatorRows(sql, subnetId);
    const inputs = rows.map((r) => ({nodeId: r.node_id, weight: BigInt(r.weight), blsPublicKey: r.active ? keyOf(r.bls) : null}));
    return {set: canonicalValidatorSet(inputs), height: at};
  }
  // Validators staking at that time, a subnet validator with its primary-network key (queries/warp/validatorSets.ts).
  const rows = await subnetValidatorRowsAt(sql, subnetId, EMPTY_ID, ts);
  return {set: canonicalValidatorSet(rows.map((r) => ({nodeId: r.node_id, weight: BigInt(r.weight), blsPublicKey: keyOf(r.bls)}))), height: at};
}

/** The subnet that validates a blockchain: the primary network for P, X, C; else the chain's subnet; null if unknown. */
export async function subnetOfChain(sql: SqlClient, blockchainId: string, primaryChains: readonly string[]): Promise<string | null> {
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
export function viewValidatorSets(sql: SqlClient, primaryChains: readonly string[]): ValidatorSets {
  const cache = new ValidatorSetCache();
  return {
    name: "the P-chain view",
    setAt: (subnetId, height) => cache.get(sql, subnetId, height),
    subnetOf: (blockchainId) => subnetOfChain(sql, blockchainId, primaryChains),
  };
}
