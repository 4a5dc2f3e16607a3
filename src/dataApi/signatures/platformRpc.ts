/**
 * Canonical validator sets from a P-chain node's JSON-RPC (`--platform-rpc`, AvalancheGo's `/ext/bc/P`), for a
 * store that did not fold the P-chain from genesis: `platform.getHeight`, `platform.getValidatorsAt` (a map of node
 * ID to `{publicKey, weight}`, or to a weight string on older nodes) and `platform.validatedBy` for a chain the view
 * does not know. A set at a given height never changes, nor a chain's subnet: the last few are kept. A failing node is a 502 naming it.
 */
import {BlsKeyCache, canonicalValidatorSet, type ValidatorInput} from "../../warp/validators.js";
import {Slots} from "../../util/slots.js";
import {PUBLIC_KEY_LEN} from "../../warp/message.js";
import {EMPTY_ID} from "../../util/cb58.js";
import {type DataApiError, badGateway, unavailable} from "../server/errors.js";
import {HeightError, type ValidatorSetAt, type ValidatorSets} from "./validatorSets.js";
import {jsonRpc, joinUrl, parseHex} from "./upstream.js";

export interface PlatformRpcOptions {
  /** The node's base URL (`http://127.0.0.1:9650`): calls go to `<url>/ext/bc/P`. */
  url: string;
  timeoutMs: number;
  /** Sets kept, by (subnet, height). */
  cacheSize: number;
}

export const defaultPlatformRpcOptions = {timeoutMs: 10_000, cacheSize: 32} as const;

/** Sets fetched from the node at once, and requests that may wait for one (past them: 503). */
const FETCHES = {max: 2, maxWaiting: 32};

export interface PlatformRpcModules {
  /** Asked first which subnet validates a chain (the view, when it knows); the node only when it does not. */
  fallback: ValidatorSets | null;
  /** Decoded BLS keys, shared with the view's sets (each key decoded once). */
  keys?: BlsKeyCache;
}

export class PlatformRpcValidatorSets implements ValidatorSets {
  readonly name: string;
  private readonly endpoint: string;
  /** Sets by subnet and height, fetched once: concurrent requests share one fetch (errors are not kept). */
  private readonly sets = new Map<string, Promise<ValidatorSetAt>>();
  /** A chain's subnet never changes: the node's answers, kept. */
  private readonly subnets = new Map<string, string>();
  private readonly keys: BlsKeyCache;
  /** The node does the work of a set for an anonymous caller: a few at a time. */
  private readonly fetches = new Slots(FETCHES, (busy, waiting) =>
    unavailable(`${this.name}: ${busy} validator sets being fetched and ${waiting} waiting; retry shortly`),
  );

  constructor(
    private readonly opts: PlatformRpcOptions,
    private readonly modules: PlatformRpcModules,
  ) {
    // Named by its flag, not its URL (API clients see it; a provider's key can sit in the path).
    this.name = "the P-chain RPC (--platform-rpc)";
    this.endpoint = joinUrl(opts.url, "/ext/bc/P");
    this.keys = modules.keys ?? new BlsKeyCache();
  }

  private async call(method: string, params: unknown): Promise<unknown> {
    try {
      return await jsonRpc(this.endpoint, method, params, {timeoutMs: this.opts.timeoutMs});
    } catch (e) {
      throw badGateway(`${this.name}: ${method}: ${(e as Error).message}`);
    }
  }

  private fail(method: string, reason: string): DataApiError {
    return badGateway(`${this.name}: ${method}: ${reason}`);
  }

  async setAt(subnetId: string, height: bigint): Promise<ValidatorSetAt> {
    const r = (await this.call("platform.getHeight", {})) as {height?: unknown} | null;
    const head = toBigInt(r?.height);
    if (head === null) throw this.fail("platform.getHeight", `no height in ${JSON.stringify(r)}`);
    const at = height === 0n ? head : height;
    if (at > head)
      throw new HeightError(`P-chain height ${at} is past the P-chain RPC's (--platform-rpc) height (${head})`);
    const cacheKey = `${subnetId}@${at}`;
    let set = this.sets.get(cacheKey);
    if (!set) {
      const p = this.fetches.run(() => this.fetchSet(subnetId, at));
      set = p;
      p.catch(() => {
        if (this.sets.get(cacheKey) === p) this.sets.delete(cacheKey);
      });
      if (this.sets.size >= this.opts.cacheSize) this.sets.delete(this.sets.keys().next().value!);
      this.sets.set(cacheKey, p);
    }
    return set;
  }

  private async fetchSet(subnetId: string, at: bigint): Promise<ValidatorSetAt> {
    const v = (await this.call("platform.getValidatorsAt", {height: at.toString(), subnetID: subnetId})) as {
      validators?: unknown;
    } | null;
    const map = v?.validators;
    if (map === null || typeof map !== "object" || Array.isArray(map))
      throw this.fail("platform.getValidatorsAt", "no validators map in the answer");
    const inputs: ValidatorInput[] = [];
    for (const [nodeId, entry] of Object.entries(map as Record<string, unknown>)) {
      // Newer nodes: {publicKey, weight}; older ones: the weight alone.
      const e =
        entry !== null && typeof entry === "object"
          ? (entry as {publicKey?: unknown; weight?: unknown})
          : {weight: entry, publicKey: null};
      const weight = toBigInt(e.weight);
      if (weight === null)
        throw this.fail(
          "platform.getValidatorsAt",
          `validator ${nodeId}: weight ${JSON.stringify(e.weight)} is not an integer`,
        );
      let blsPublicKey: Uint8Array | null = null;
      if (e.publicKey !== null && e.publicKey !== undefined && e.publicKey !== "") {
        blsPublicKey = parseHex(e.publicKey);
        if (!blsPublicKey || blsPublicKey.length !== PUBLIC_KEY_LEN)
          throw this.fail(
            "platform.getValidatorsAt",
            `validator ${nodeId}: publicKey ${JSON.stringify(e.publicKey)} is not 48 bytes of hex`,
          );
      }
      inputs.push({nodeId, weight, blsPublicKey});
    }
    let set;
    try {
      set = canonicalValidatorSet(inputs, this.keys);
    } catch (e) {
      throw this.fail("platform.getValidatorsAt", (e as Error).message);
    }
    return {set, height: at};
  }

  async subnetOf(blockchainId: string): Promise<string | null> {
    if (blockchainId === EMPTY_ID) return EMPTY_ID;
    const known = (await this.modules.fallback?.subnetOf(blockchainId)) ?? this.subnets.get(blockchainId);
    if (known) return known;
    let r: {subnetID?: unknown} | null;
    try {
      r = (await jsonRpc(
        this.endpoint,
        "platform.validatedBy",
        {blockchainID: blockchainId},
        {timeoutMs: this.opts.timeoutMs},
      )) as {subnetID?: unknown} | null;
    } catch (e) {
      // AvalancheGo answers an unknown chain with a "not found" JSON-RPC error: the chain is not known there either.
      // Any other error (rate limit, method disabled) is the upstream's failure.
      if ((e as {kind?: string}).kind === "rpc" && /not found|not exist|unknown/i.test((e as Error).message))
        return null;
      throw badGateway(`${this.name}: platform.validatedBy: ${(e as Error).message}`);
    }
    if (typeof r?.subnetID !== "string") throw this.fail("platform.validatedBy", `no subnetID in ${JSON.stringify(r)}`);
    if (this.subnets.size >= 1024) this.subnets.delete(this.subnets.keys().next().value!);
    this.subnets.set(blockchainId, r.subnetID);
    return r.subnetID;
  }
}

function toBigInt(v: unknown): bigint | null {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^[0-9]{1,20}$/.test(v)) return BigInt(v);
  return null;
}
