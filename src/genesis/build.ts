/**
 * A network's genesis built from its config as AvalancheGo's `genesis.FromConfig` (genesis/genesis.go) builds it,
 * byte for byte, and the genesis state the primary-network views fold from it:
 *
 * - the X-chain genesis (vms/avm/genesis.go `NewGenesis`, `Genesis.Bytes`): one `GenesisAsset` "AVAX", a
 *   CreateAssetTx whose memo is the ETH addresses of the allocations with an initial amount and whose one initial
 *   state holds their TransferOutputs, sorted by their bytes; the AVAX asset ID is that CreateAssetTx's tx ID
 *   (genesis.go `AVAXAssetID`), and its outputs are the X-chain's genesis UTXOs;
 * - the P-chain genesis (vms/platformvm/genesis/genesis.go `New`, codec `txs.GenesisCodec`): a UTXO per unlock of
 *   the allocations not initially staked (tx ID empty, numbered in order; a `stakeable.LockOut` when it unlocks
 *   after the start time), the initial validators (an AddValidatorTx, or an AddPermissionlessValidatorTx when the
 *   staker has a BLS signer) in the order of txheap.ByEndTime's array, and the CreateChainTxs of the X-chain and
 *   the C-chain, whose tx IDs are those chains' IDs.
 *
 * Codec type IDs are the registration orders of vms/avm/txs/parser.go (CreateAssetTx 1, secp256k1fx
 * TransferOutput 7) and vms/platformvm/txs/codec.go (TransferOutput 7, Input 10, OutputOwners 11,
 * AddValidatorTx 12, CreateChainTx 15, stakeable.LockOut 22, AddPermissionlessValidatorTx 25,
 * ProofOfPossession 28). Each genesis transaction is then read back by the views' own decoder, so its outputs and
 * staker are exactly what a transaction of the same bytes in a block would give.
 */
import {Writer} from "../decode/reader.js";
import {EMPTY_ID, cb58Decode, cb58Encode} from "../util/cb58.js";
import {sha256} from "../util/sha256.js";
import {decodeSignedTx} from "../dataApi/views/primary/txCodec.js";
import type {GenesisState, PrimaryTx, Staker, TxOutput} from "../dataApi/views/primary/model.js";
import {
  cChainGenesisAllocationWei,
  genesisInitialSupply,
  genesisValidators,
  type GenesisConfig,
  type GenesisValidatorPlan,
} from "./config.js";

/** `ids.ID{'a','v','m'}` and friends (utils/constants/vm_ids.go, the fx factories): ASCII, zero-padded to 32. */
function asciiId(s: string): Uint8Array {
  const id = new Uint8Array(32);
  id.set(new TextEncoder().encode(s));
  return id;
}

export const AVM_ID = asciiId("avm");
export const EVM_ID = asciiId("evm");
const SECP256K1FX_ID = asciiId("secp256k1fx");
const NFTFX_ID = asciiId("nftfx");
const PROPERTYFX_ID = asciiId("propertyfx");
const ZERO_ID = new Uint8Array(32);

/** Everything a network's genesis fixes. */
export interface NetworkGenesis {
  networkId: number;
  /** The P-chain's ID is always the empty ID; X and C are the IDs of their genesis CreateChainTxs. */
  chainIds: {P: string; X: string; C: string};
  avaxAssetId: string;
  /** `avm.Genesis.Bytes()`: the X-chain's genesis data. */
  avmGenesis: Uint8Array;
  /** `platformvm/genesis.Genesis.Bytes()`: what `genesis.FromConfig` returns. */
  platformGenesis: Uint8Array;
  /** What the primary-network views fold before the first container. */
  state: GenesisState;
}

function str16(w: Writer, s: string | Uint8Array): Writer {
  const b = typeof s === "string" ? new TextEncoder().encode(s) : s;
  if (b.length > 0xffff) throw new Error(`genesis: a string of ${b.length} bytes does not fit the codec's u16 length`);
  return w.u16(b.length).fixed(b);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** secp256k1fx.TransferOutput (type 7): amount, locktime 0, threshold 1, one address. */
function transferOut(w: Writer, amount: bigint, address: Uint8Array): Writer {
  return w.u32(7).u64(amount).u64(0n).u32(1).u32(1).fixed(address);
}

/** A P-chain output: a TransferOutput, wrapped in a stakeable.LockOut (22) when it unlocks after `startTime`. */
function pOut(w: Writer, amount: bigint, address: Uint8Array, locktime: bigint, startTime: bigint): Writer {
  if (locktime > startTime) w.u32(22).u64(locktime);
  return transferOut(w, amount, address);
}

/** An avax.BaseTx with no inputs or outputs: network, blockchain (empty), memo. */
function emptyBase(w: Writer, networkId: number, memo: Uint8Array = new Uint8Array(0)): Writer {
  return w.u32(networkId).fixed(ZERO_ID).u32(0).u32(0).bytesU32(memo);
}

/** The X-chain's AVAX CreateAssetTx fields (no type ID) and its allocations' order. */
function avaxCreateAsset(config: GenesisConfig): Uint8Array {
  // genesis.Allocation.Compare (genesis/config.go): initial amount, then the AVAX address. A stable sort, which
  // Go's slices.SortFunc is not beyond 12 elements: equal keys with different ETH addresses could order their memo
  // differently (none of AvalancheGo's three files has such a pair).
  const x = config.allocations
    .filter((a) => a.initialAmount > 0n)
    .sort((a, b) =>
      a.initialAmount !== b.initialAmount
        ? a.initialAmount < b.initialAmount
          ? -1
          : 1
        : compareBytes(a.avaxAddr, b.avaxAddr),
    );
  const memo = new Uint8Array(20 * x.length);
  x.forEach((a, i) => memo.set(a.ethAddr, 20 * i));
  const w = emptyBase(new Writer(), config.networkId, memo);
  str16(w, "Avalanche");
  str16(w, "AVAX");
  w.fixed(Uint8Array.of(9));
  if (x.length === 0) return w.u32(0).finish();
  // One initial state (fx index 0) whose outputs are sorted by their codec bytes (txs.InitialState.Sort): type,
  // then amount, then address, the allocations' order already.
  w.u32(1).u32(0).u32(x.length);
  for (const a of x) transferOut(w, a.initialAmount, a.avaxAddr);
  return w.finish();
}

/** `txs.Tx{Unsigned}` marshalled with codec version 0 and no credentials: the bytes whose sha256 is the tx ID. */
function signedTx(typeId: number, unsigned: Uint8Array): Uint8Array {
  return new Writer().u16(0).u32(typeId).fixed(unsigned).u32(0).finish();
}

function nodeIdBytes(nodeId: string): Uint8Array {
  if (!nodeId.startsWith("NodeID-"))
    throw new Error(`genesis config: initial staker ${JSON.stringify(nodeId)} is not a NodeID-...`);
  let b: Uint8Array;
  try {
    b = cb58Decode(nodeId.slice("NodeID-".length));
  } catch (e) {
    throw new Error(`genesis config: initial staker ${nodeId}: ${(e as Error).message}`);
  }
  if (b.length !== 20) throw new Error(`genesis config: initial staker ${nodeId} is ${b.length} bytes, expected 20`);
  return b;
}

/** vms/platformvm/genesis/genesis.go `New`: one initial validator's signed (credential-less) tx. */
function validatorTx(config: GenesisConfig, v: GenesisValidatorPlan, avax: Uint8Array): Uint8Array {
  const w = emptyBase(new Writer(), config.networkId);
  w.fixed(nodeIdBytes(v.nodeId)).u64(config.startTime).u64(v.endTime).u64(v.weight);
  if (v.signer) {
    w.fixed(ZERO_ID); // the primary network
    w.u32(28).fixed(Buffer.from(v.signer.publicKey, "hex")).fixed(Buffer.from(v.signer.proofOfPossession, "hex"));
  }
  w.u32(v.staked.length);
  for (const s of v.staked) pOut(w.fixed(avax), s.amount, s.address, s.locktime, config.startTime);
  // The reward owner: threshold 1, the staker's reward address (one address, so utils.Sort changes nothing).
  const owner = (): Writer => w.u32(11).u64(0n).u32(1).u32(1).fixed(v.rewardAddress);
  owner();
  if (v.signer) owner(); // the delegator rewards owner is the same
  w.u32(v.delegationFee);
  return signedTx(v.signer ? 25 : 12, w.finish());
}

interface GenesisChain {
  name: string;
  vmId: Uint8Array;
  fxIds: Uint8Array[];
  genesisData: Uint8Array;
}

function createChainTx(networkId: number, c: GenesisChain): Uint8Array {
  const w = emptyBase(new Writer(), networkId).fixed(ZERO_ID);
  str16(w, c.name);
  w.fixed(c.vmId).u32(c.fxIds.length);
  for (const f of c.fxIds) w.fixed(f);
  w.bytesU32(c.genesisData);
  w.u32(10).u32(0); // SubnetAuth: an empty secp256k1fx.Input
  return signedTx(15, w.finish());
}

interface PUtxoPlan {
  address: Uint8Array;
  amount: bigint;
  locktime: bigint;
  message: Uint8Array;
}

/** The P-chain genesis UTXOs: every unlock (amount > 0) of the allocations not initially staked, in order. */
function* pUtxos(config: GenesisConfig): Generator<PUtxoPlan> {
  const staked = new Set(config.initialStakedFunds.map((a) => Buffer.from(a).toString("hex")));
  for (const a of config.allocations) {
    if (staked.has(Buffer.from(a.avaxAddr).toString("hex"))) continue;
    for (const u of a.unlockSchedule)
      if (u.amount > 0n) yield {address: a.avaxAddr, amount: u.amount, locktime: u.locktime, message: a.ethAddr};
  }
}

/** An iterable that runs `items` again on each pass: what it yields is built as it is read, and none of it kept. */
function replayable<T>(items: () => Iterator<T>): Iterable<T> {
  return {[Symbol.iterator]: items};
}

/** The X-chain genesis, the AVAX asset, the genesis chains: what fixes a network's IDs. */
function chainsOf(config: GenesisConfig): {
  createAsset: Uint8Array;
  avmGenesis: Uint8Array;
  avax: Uint8Array;
  chains: GenesisChain[];
  chainTxs: Uint8Array[];
} {
  const createAsset = avaxCreateAsset(config);
  const avmGenesis = str16(new Writer().u16(0).u32(1), "AVAX").fixed(createAsset).finish();
  const avax = sha256(signedTx(1, createAsset));
  const chains: GenesisChain[] = [
    {name: "X-Chain", vmId: AVM_ID, fxIds: [SECP256K1FX_ID, NFTFX_ID, PROPERTYFX_ID], genesisData: avmGenesis},
    {name: "C-Chain", vmId: EVM_ID, fxIds: [], genesisData: new TextEncoder().encode(config.cChainGenesis)},
  ];
  return {createAsset, avmGenesis, avax, chains, chainTxs: chains.map((c) => createChainTx(config.networkId, c))};
}

/** A network's chain IDs and AVAX asset ID from its config, without building the rest of its genesis. */
export function genesisIds(config: GenesisConfig): {chainIds: NetworkGenesis["chainIds"]; avaxAssetId: string} {
  const {avax, chainTxs} = chainsOf(config);
  return {
    chainIds: {P: EMPTY_ID, X: cb58Encode(sha256(chainTxs[0]!)), C: cb58Encode(sha256(chainTxs[1]!))},
    avaxAssetId: cb58Encode(avax),
  };
}

/**
 * Builds a network's genesis from its config (validated by the caller: config.ts `validateGenesisConfig`). Throws
 * on what AvalancheGo's `FromConfig` refuses (a validator without weight or already ended, a malformed node ID).
 */
export function buildGenesis(config: GenesisConfig): NetworkGenesis {
  const networkId = config.networkId;
  const {createAsset, avmGenesis, avax, chains, chainTxs} = chainsOf(config);
  const assetTxBytes = signedTx(1, createAsset);
  const avaxAssetId = cb58Encode(avax);
  const supply = genesisInitialSupply(config);

  const plans = genesisValidators(config);
  const validatorTxs = plans.map((v) => {
    if (v.weight === 0n) throw new Error(`genesis config: initial staker ${v.nodeId} has no weight`);
    if (v.endTime <= config.startTime)
      throw new Error(`genesis config: initial staker ${v.nodeId} would have already unstaked`);
    return validatorTx(config, v, avax);
  });

  // The P-chain genesis (platformvm/genesis.Genesis): UTXOs (each with its message), validators, chains, time,
  // supply, message. Inside it the txs go without their codec version.
  let utxoCount = 0;
  for (const _ of pUtxos(config)) utxoCount++;
  const g = new Writer().u16(0).u32(utxoCount);
  let i = 0;
  for (const u of pUtxos(config)) {
    pOut(g.fixed(ZERO_ID).u32(i++).fixed(avax), u.amount, u.address, u.locktime, config.startTime);
    g.bytesU32(u.message);
  }
  g.u32(validatorTxs.length);
  for (const t of validatorTxs) g.fixed(t.subarray(2));
  g.u32(chainTxs.length);
  for (const t of chainTxs) g.fixed(t.subarray(2));
  const message = new TextEncoder().encode(config.message);
  g.u64(config.startTime).u64(supply);
  str16(g, message);
  const platformGenesis = g.finish();

  const decode = (chain: "P" | "X", bytes: Uint8Array): PrimaryTx =>
    decodeSignedTx(chain, bytes, {recoverPublicKeys: false});
  // (The chain txs carry a subnet authorisation and no credential: no block holds one, so no decoder reads them.)
  const [xChain, cChain] = chainTxs.map((t) => cb58Encode(sha256(t)));
  const state: GenesisState = {
    networkId,
    timestamp: config.startTime,
    avaxAssetId,
    assets: [{assetId: avaxAssetId, name: "Avalanche", symbol: "AVAX", denomination: 9}],
    // The UTXOs and stakers are built as the fold reads them (mainnet's are some 43,000 outputs): held at once,
    // with the fold's own batches beside them, they were most of the genesis fold's heap.
    utxos: replayable(function* () {
      for (const output of decode("X", assetTxBytes).outputs) yield {chain: "X" as const, txId: avaxAssetId, output};
      let index = 0;
      for (const u of pUtxos(config))
        yield {
          chain: "P" as const,
          txId: EMPTY_ID,
          output: pUtxoOutput(index++, u, avax, avaxAssetId, config.startTime),
        };
    }),
    stakers: replayable(function* () {
      for (const bytes of validatorTxs) {
        const t = decode("P", bytes);
        const staker = t.details.staker as Staker;
        // AvalancheGo's syncGenesis adds them as current stakers from the genesis time.
        yield {txId: t.id, staker: {...staker, startTime: config.startTime}, stake: t.outputs.filter((o) => o.staked)};
      }
    }),
    chains: chains.map((c, i) => ({
      chainId: [xChain!, cChain!][i]!,
      subnetId: EMPTY_ID,
      name: c.name,
      vmId: cb58Encode(c.vmId),
      fxIds: c.fxIds.map((f) => cb58Encode(f)),
      genesisData: c.genesisData,
    })),
    supply,
    // The C-chain's genesis balances are EVM state, not UTXOs: the supply counts their sum (queries/primary/supply.ts).
    cChainAllocationWei: cChainGenesisAllocationWei(config),
  };
  return {networkId, chainIds: {P: EMPTY_ID, X: xChain!, C: cChain!}, avaxAssetId, avmGenesis, platformGenesis, state};
}

/** A P-chain genesis UTXO as the views hold UTXOs (its `utxoBytes`: avax.UTXO, without the genesis message). */
function pUtxoOutput(index: number, u: PUtxoPlan, avax: Uint8Array, avaxAssetId: string, startTime: bigint): TxOutput {
  const txId = ZERO_ID;
  const locked = u.locktime > startTime;
  return {
    outputIndex: index,
    utxoId: cb58Encode(sha256(new Writer().u64(BigInt(index)).fixed(txId).finish())),
    assetId: avaxAssetId,
    amount: u.amount,
    owner: {locktime: 0n, threshold: 1, addresses: [u.address]},
    stakeableLocktime: locked ? u.locktime : 0n,
    staked: false,
    utxoType: locked ? "STAKEABLE_LOCK" : "TRANSFER",
    exportedTo: null,
    groupId: 0,
    payload: new Uint8Array(0),
    utxoBytes: pOut(
      new Writer().u16(0).fixed(txId).u32(index).fixed(avax),
      u.amount,
      u.address,
      u.locktime,
      startTime,
    ).finish(),
  };
}
