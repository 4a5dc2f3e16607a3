/**
 * The AVAX supply (Glacier `AvaxSupplyResponse`): amounts in AVAX, as decimal strings (the hosted API's form,
 * "454257251.7149865026656081965"), exact: nAVAX over 10^9, and the C-chain's EVM fees in wei over 10^18.
 *
 * - `genesisUnlock`: the AVAX of the genesis (every UTXO and stake the genesis creates on P, X and C, and the
 *   C-chain genesis's `alloc` balances, which are EVM balance from the start).
 * - `totalRewards`: staking rewards paid (the reward UTXOs of RewardValidatorTx, fees to validators included).
 * - `totalPBurned`: on the P-chain, the AVAX its transactions consumed less what they created (rewards aside),
 *   less what is still in active L1 validators' balances: the transaction fees and the L1 validator fees.
 * - `l1ValidatorFees`: AVAX paid into L1 validators' balances, less what was returned, less what is left in them.
 * - `totalXBurned`: on the X-chain, consumed less created.
 * - `totalCBurned`: the C-chain's atomic transactions (UTXOs and EVM balances in, less out) and its EVM
 *   transactions' fees (zero when the C-chain is not followed: then they are not known here).
 * - `totalSupply`: genesis + rewards − every chain's burn: the AVAX that exists.
 * - `totalStaked`: the stake of the primary network's current validators and delegators (pending ones too: their
 *   stake is locked from their transaction on).
 * - `totalLocked`: unspent AVAX UTXOs, not staked, whose locktime or stakeable locktime is after now.
 * - `circulatingSupply`: total less locked (staked AVAX is its owners', and counted as circulating).
 * - `lastUpdated`: when these sums were read from the store.
 *
 * The chains fold independently, so an import can be folded before the export it consumes: the UTXO it spends is
 * then not in the store yet, and its chain's consumed-less-created is below zero for a while. A burn is never
 * negative: each chain's is reported as 0 until its counterpart is folded (and the total, genesis + rewards − the
 * burns reported, is then over by that import until the export is folded).
 */

export interface AvaxSupply {
  circulatingSupply: string;
  totalSupply: string;
  totalPBurned: string;
  totalCBurned: string;
  totalXBurned: string;
  totalStaked: string;
  totalLocked: string;
  totalRewards: string;
  lastUpdated: string;
  genesisUnlock: string;
  l1ValidatorFees: string;
}

/** The sums the supply is computed from, in nAVAX (EVM fees in wei). */
export interface SupplySums {
  genesis: bigint;
  /** The C-chain genesis allocation, wei. */
  cGenesisWei: bigint;
  rewards: bigint;
  p: {in: bigint; out: bigint};
  x: {in: bigint; out: bigint};
  c: {in: bigint; out: bigint};
  evmFeesWei: bigint;
  l1Deposits: bigint;
  l1Outstanding: bigint;
  staked: bigint;
  locked: bigint;
}

const WEI_PER_NAVAX = 1_000_000_000n;

export function avaxSupplyFromSums(s: SupplySums, at: Date): AvaxSupply {
  const pBurned = atLeastZero(s.p.in - s.p.out - s.l1Outstanding);
  const xBurned = atLeastZero(s.x.in - s.x.out);
  // In wei, so that sub-nAVAX EVM fees and allocations are kept exact.
  const cBurnedWei = atLeastZero((s.c.in - s.c.out) * WEI_PER_NAVAX + s.evmFeesWei);
  const genesisWei = s.genesis * WEI_PER_NAVAX + s.cGenesisWei;
  const totalWei = genesisWei + (s.rewards - pBurned - xBurned) * WEI_PER_NAVAX - cBurnedWei;
  return {
    circulatingSupply: decimal(totalWei - s.locked * WEI_PER_NAVAX, 18),
    totalSupply: decimal(totalWei, 18),
    totalPBurned: decimal(pBurned, 9),
    totalCBurned: decimal(cBurnedWei, 18),
    totalXBurned: decimal(xBurned, 9),
    totalStaked: decimal(s.staked, 9),
    totalLocked: decimal(s.locked, 9),
    totalRewards: decimal(s.rewards, 9),
    lastUpdated: at.toISOString(),
    genesisUnlock: decimal(genesisWei, 18),
    l1ValidatorFees: decimal(atLeastZero(s.l1Deposits - s.l1Outstanding), 9),
  };
}

function atLeastZero(v: bigint): bigint {
  return v < 0n ? 0n : v;
}

/** `v / 10^decimals` written exactly, without trailing zeros ("1.5", "360000000", "-0.25"). */
export function decimal(v: bigint, decimals: number): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(decimals + 1, "0");
  const int = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${neg ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
}
