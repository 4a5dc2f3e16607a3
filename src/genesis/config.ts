/**
 * A network's genesis config as AvalancheGo reads it (genesis/genesis_mainnet.json's format, `UnparsedConfig` of
 * genesis/unparsed_config.go), and the parts of genesis/genesis.go `FromConfig` that plan the P-chain genesis.
 * Pure: the caller reads the file and passes its text (build.ts turns the plan into AvalancheGo's bytes and IDs).
 *
 * - `genesisInitialSupply`: genesis/config.go `InitialSupply` (every allocation's initial amount and unlocks).
 * - `genesisValidators`: genesis/genesis.go `FromConfig`: the initially staked allocations split over the initial
 *   stakers (`splitAllocations`), end times decreasing by the offset from genesis + the stake duration, each
 *   validator's stake sorted (`utils.Sort(vdr.Staked)`), in the order of the P-chain genesis (the array of a
 *   binary min-heap on end time, vms/platformvm/txs/txheap, that the validators were pushed into), the order
 *   `syncGenesis` computes their rewards in (stakers.ts `genesisStakers`).
 * - `pChainGenesisAllocations`: the P-chain's genesis UTXOs (transaction ID empty, output index in order).
 */
import {bech32} from "@scure/base";
import {bytesToHex} from "../util/hex.js";

export interface GenesisUnlock {
  amount: bigint;
  locktime: bigint;
}

export interface GenesisAllocation {
  /** 20 bytes (`ETHAddr ids.ShortID`): the X-chain AVAX memo and the P-chain UTXOs' messages carry them. */
  ethAddr: Uint8Array;
  /** 20-byte short ID of `avaxAddr`. */
  avaxAddr: Uint8Array;
  initialAmount: bigint;
  unlockSchedule: GenesisUnlock[];
}

export interface GenesisStakerConfig {
  nodeId: string;
  rewardAddress: Uint8Array;
  /** Millionths. */
  delegationFee: number;
  /** BLS key and proof of possession, hex without 0x (48 and 96 bytes). */
  signer: {publicKey: string; proofOfPossession: string} | null;
}

export interface GenesisConfig {
  networkId: number;
  allocations: GenesisAllocation[];
  startTime: bigint;
  initialStakeDuration: bigint;
  initialStakeDurationOffset: bigint;
  initialStakedFunds: Uint8Array[];
  initialStakers: GenesisStakerConfig[];
  cChainGenesis: string;
  message: string;
}

export interface GenesisStake {
  address: Uint8Array;
  amount: bigint;
  locktime: bigint;
}

export interface GenesisValidatorPlan {
  nodeId: string;
  startTime: bigint;
  endTime: bigint;
  weight: bigint;
  rewardAddress: Uint8Array;
  delegationFee: number;
  signer: GenesisStakerConfig["signer"];
  /** Sorted by locktime, amount, address bytes (genesis.Allocation.Compare). */
  staked: GenesisStake[];
}

/** JSON text with every bare number token turned into a string, so integers above 2^53 keep every digit. */
function quoteNumbers(text: string): string {
  // One pass: strings (escapes included) are copied whole; any other run of number characters is quoted. A scanner,
  // not a regular expression, so that an unterminated string of escaped quotes costs one pass and not one per quote.
  const out: string[] = [];
  let i = 0;
  let from = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      i++;
    } else if (isDigit(c) || (c === 0x2d && isDigit(text.charCodeAt(i + 1)))) {
      const start = i;
      for (i++; i < text.length && isNumberChar(text.charCodeAt(i)); i++);
      out.push(text.slice(from, start), '"', text.slice(start, i), '"');
      from = i;
    } else {
      i++;
    }
  }
  out.push(text.slice(from));
  return out.join("");
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** The characters of a JSON number after its first: digits, `.`, `e`, `E`, `+`, `-`. */
const isNumberChar = (c: number): boolean =>
  isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;

/** A JSON integer as Go's encoding/json reads it into a uint of `bits` bits (`uint64` amounts, `uint32` IDs and fees). */
function uint(v: unknown, what: string, bits: 32 | 64 = 64): bigint {
  if (typeof v !== "string" || !/^\d+$/.test(v)) throw new Error(`genesis config: ${what} is not an unsigned integer`);
  const n = BigInt(v);
  if (n >= 1n << BigInt(bits)) throw new Error(`genesis config: ${what} exceeds uint${bits}`);
  return n;
}

function ethAddr(v: unknown, what: string): Uint8Array {
  // genesis/unparsed_config.go: the text after its first two characters, hex, exactly 20 bytes.
  if (typeof v !== "string" || v.length < 2 || !/^[0-9a-fA-F]*$/.test(v.slice(2)) || v.length % 2 !== 0) {
    throw new Error(`genesis config: ${what} is not a hex address`);
  }
  const bytes = Uint8Array.from(Buffer.from(v.slice(2), "hex"));
  if (bytes.length !== 20) throw new Error(`genesis config: ${what} is ${bytes.length} bytes, expected 20`);
  return bytes;
}

/** `0x`-prefixed hex of exactly `len` bytes, returned lower-case without the prefix. */
function fixedHex(v: unknown, len: number, what: string): string {
  const bare = typeof v === "string" ? v.replace(/^0x/, "") : "";
  if (!/^[0-9a-fA-F]*$/.test(bare) || bare.length !== 2 * len)
    throw new Error(`genesis config: ${what} is not ${len} bytes of hex`);
  return bare.toLowerCase();
}

function shortId(v: unknown, what: string): Uint8Array {
  if (typeof v !== "string") throw new Error(`genesis config: ${what} is not an address`);
  const bare = /^[PXC]-/.test(v) ? v.slice(2) : v;
  let bytes: Uint8Array;
  try {
    bytes = bech32.fromWords(bech32.decode(bare as `${string}1${string}`, 90).words);
  } catch (e) {
    throw new Error(`genesis config: ${what} ${JSON.stringify(v)} is not a bech32 address (${(e as Error).message})`);
  }
  if (bytes.length !== 20) throw new Error(`genesis config: ${what} is ${bytes.length} bytes, expected 20`);
  return bytes;
}

type Json = Record<string, unknown>;

/** Parses a genesis config file's text (numbers kept exact). */
export function parseGenesisConfig(text: string): GenesisConfig {
  let j: Json;
  try {
    j = JSON.parse(quoteNumbers(text)) as Json;
  } catch (e) {
    throw new Error(`genesis config: not JSON (${(e as Error).message})`);
  }
  if (j === null || typeof j !== "object" || Array.isArray(j)) throw new Error("genesis config: not a JSON object");
  const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
  return {
    networkId: Number(uint(j.networkID, "networkID", 32)),
    allocations: list(j.allocations).map((a, i) => ({
      ethAddr: ethAddr(a.ethAddr, `allocations[${i}].ethAddr`),
      avaxAddr: shortId(a.avaxAddr, `allocations[${i}].avaxAddr`),
      initialAmount: uint(a.initialAmount ?? "0", `allocations[${i}].initialAmount`),
      unlockSchedule: list(a.unlockSchedule).map((u, k) => ({
        amount: uint(u.amount ?? "0", `allocations[${i}].unlockSchedule[${k}].amount`),
        locktime: uint(u.locktime ?? "0", `allocations[${i}].unlockSchedule[${k}].locktime`),
      })),
    })),
    startTime: uint(j.startTime, "startTime"),
    initialStakeDuration: uint(j.initialStakeDuration, "initialStakeDuration"),
    initialStakeDurationOffset: uint(j.initialStakeDurationOffset ?? "0", "initialStakeDurationOffset"),
    initialStakedFunds: (Array.isArray(j.initialStakedFunds) ? (j.initialStakedFunds as unknown[]) : []).map((a, i) =>
      shortId(a, `initialStakedFunds[${i}]`),
    ),
    initialStakers: list(j.initialStakers).map((s, i) => {
      const signer = s.signer as Json | undefined;
      return {
        nodeId: String(s.nodeID),
        rewardAddress: shortId(s.rewardAddress, `initialStakers[${i}].rewardAddress`),
        delegationFee: Number(uint(s.delegationFee ?? "0", `initialStakers[${i}].delegationFee`, 32)),
        signer: signer
          ? {
              publicKey: fixedHex(signer.publicKey, 48, `initialStakers[${i}].signer.publicKey`),
              proofOfPossession: fixedHex(
                signer.proofOfPossession,
                96,
                `initialStakers[${i}].signer.proofOfPossession`,
              ),
            }
          : null,
      };
    }),
    cChainGenesis: String(j.cChainGenesis ?? ""),
    message: String(j.message ?? ""),
  };
}

/**
 * genesis/genesis.go `validateConfig`, less its two checks against the node's own settings (the staking config's
 * maximum stake duration, and a start time in the future by the node's clock): a config AvalancheGo would refuse is
 * refused here, with its reason.
 */
export function validateGenesisConfig(config: GenesisConfig): void {
  const fail = (why: string): never => {
    throw new Error(`genesis config: ${why}`);
  };
  if (genesisInitialSupply(config) === 0n) fail("initial supply must be > 0");
  if (config.initialStakeDuration === 0n) fail("initial stake duration must be > 0");
  if (config.initialStakers.length === 0) fail("initial stakers must be > 0");
  if (config.initialStakeDurationOffset * BigInt(config.initialStakers.length - 1) > config.initialStakeDuration) {
    fail(
      `initial stake duration is too low: must be at least ${config.initialStakeDurationOffset * BigInt(config.initialStakers.length - 1)}`,
    );
  }
  if (config.initialStakedFunds.length === 0) fail("initial staked funds cannot be empty");
  const allocated = new Set(config.allocations.map((a) => bytesToHex(a.avaxAddr)));
  const seen = new Set<string>();
  for (const f of config.initialStakedFunds) {
    if (seen.has(bytesToHex(f))) fail(`duplicate initially staked address ${bytesToHex(f)}`);
    seen.add(bytesToHex(f));
    if (!allocated.has(bytesToHex(f))) fail(`initially staked address ${bytesToHex(f)} has no allocation`);
  }
  let locked = 0n;
  for (const a of config.allocations) for (const u of a.unlockSchedule) locked += u.amount;
  if (locked < BigInt(config.initialStakers.length)) fail("total allocations locked amount is too low");
  if (config.cChainGenesis === "") fail("C-Chain genesis cannot be empty");
}

/** genesis/config.go `InitialSupply`: the sum of every allocation's initial amount and unlock amounts. */
export function genesisInitialSupply(config: GenesisConfig): bigint {
  let supply = 0n;
  for (const a of config.allocations) {
    supply += a.initialAmount;
    for (const u of a.unlockSchedule) supply += u.amount;
  }
  if (supply >= 1n << 64n) throw new Error("genesis config: initial supply overflows uint64");
  return supply;
}

/**
 * The C-chain genesis allocation, wei: the sum of the `alloc` balances of `cChainGenesis` (coreth's `core.Genesis`,
 * each balance a `math.HexOrDecimal256`: "0x..." hex or decimal). Genesis EVM balance never becomes a UTXO, so the
 * supply adds it (queries/primary/supply.ts); local's is 50M AVAX to 0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC.
 */
export function cChainGenesisAllocationWei(config: GenesisConfig): bigint {
  if (config.cChainGenesis === "") return 0n;
  let g: unknown;
  try {
    g = JSON.parse(config.cChainGenesis);
  } catch {
    throw new Error("genesis config: cChainGenesis is not JSON");
  }
  const alloc = (g as {alloc?: unknown} | null)?.alloc ?? {};
  if (alloc === null || typeof alloc !== "object")
    throw new Error("genesis config: cChainGenesis.alloc is not an object");
  let sum = 0n;
  for (const [address, account] of Object.entries(alloc as Record<string, {balance?: unknown}>)) {
    const b = account?.balance ?? "0";
    if (typeof b !== "string" || !/^(0x[0-9a-fA-F]+|\d+)$/.test(b)) {
      throw new Error(`genesis config: cChainGenesis.alloc[${address}].balance is not a number`);
    }
    sum += BigInt(b);
  }
  return sum;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** genesis/genesis.go `splitAllocations`: the staked allocations' unlocks cut into `n` nodes' shares, in order. */
function splitAllocations(allocations: readonly GenesisAllocation[], n: number): GenesisStake[][] {
  let total = 0n;
  for (const a of allocations) for (const u of a.unlockSchedule) total += u.amount;
  const nodeWeight = total / BigInt(n);
  const nodes: GenesisStake[][] = [];
  let current: GenesisStake[] = [];
  let currentAmount = 0n;
  for (const a of allocations) {
    for (const unlock of a.unlockSchedule) {
      let amount = unlock.amount;
      while (currentAmount + amount > nodeWeight && nodes.length < n - 1) {
        const add = nodeWeight - currentAmount;
        current.push({address: a.avaxAddr, amount: add, locktime: unlock.locktime});
        amount -= add;
        nodes.push(current);
        current = [];
        currentAmount = 0n;
      }
      if (amount === 0n) continue;
      current.push({address: a.avaxAddr, amount, locktime: unlock.locktime});
      currentAmount += amount;
    }
  }
  nodes.push(current);
  return nodes;
}

/** The initial stakers as the P-chain genesis holds them, in its order (see the file's comment). */
export function genesisValidators(config: GenesisConfig): GenesisValidatorPlan[] {
  const staked = new Set(config.initialStakedFunds.map(bytesToHex));
  const skipped = config.allocations.filter((a) => staked.has(bytesToHex(a.avaxAddr)));
  const n = config.initialStakers.length;
  if (n === 0) return [];
  const shares = splitAllocations(skipped, n);
  const end = config.startTime + config.initialStakeDuration;
  const heap: GenesisValidatorPlan[] = [];
  config.initialStakers.forEach((s, i) => {
    const stake = [...(shares[i] ?? [])].sort((a, b) =>
      a.locktime !== b.locktime
        ? a.locktime < b.locktime
          ? -1
          : 1
        : a.amount !== b.amount
          ? a.amount < b.amount
            ? -1
            : 1
          : compareBytes(a.address, b.address),
    );
    const weight = stake.reduce((w, x) => w + x.amount, 0n);
    heap.push({
      nodeId: s.nodeId,
      startTime: config.startTime,
      endTime: end - BigInt(i) * config.initialStakeDurationOffset,
      weight,
      rewardAddress: s.rewardAddress,
      delegationFee: s.delegationFee,
      signer: s.signer,
      staked: stake,
    });
    // container/heap's up(): swap with the parent while strictly earlier.
    let j = heap.length - 1;
    while (j > 0) {
      const p = (j - 1) >> 1;
      if (!(heap[j]!.endTime < heap[p]!.endTime)) break;
      [heap[j], heap[p]] = [heap[p]!, heap[j]!];
      j = p;
    }
  });
  return heap;
}

/** The P-chain genesis UTXOs: every unlock (amount > 0) of the allocations not initially staked, numbered in order. */
export function pChainGenesisAllocations(
  config: GenesisConfig,
): Array<{outputIndex: number; address: Uint8Array; amount: bigint; locktime: bigint}> {
  const staked = new Set(config.initialStakedFunds.map(bytesToHex));
  const out: Array<{outputIndex: number; address: Uint8Array; amount: bigint; locktime: bigint}> = [];
  for (const a of config.allocations) {
    if (staked.has(bytesToHex(a.avaxAddr))) continue;
    for (const u of a.unlockSchedule) {
      if (u.amount > 0n)
        out.push({outputIndex: out.length, address: a.avaxAddr, amount: u.amount, locktime: u.locktime});
    }
  }
  return out;
}
