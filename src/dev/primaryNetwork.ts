/**
 * The dev network's primary-network activity: a deterministic state machine with a small wallet per chain that,
 * tick after tick, issues real transactions signed with its keys (libsecp256k1): X-chain transfers, X→P exports
 * and their P-chain imports, P-chain transfers, delegations to the genesis validators, validators of its own nodes
 * added by AddPermissionlessValidatorTx (with BLS keys) and delegations to them, every staking period ending with a
 * RewardValidatorTx (a proposal block, then its commit), and a subnet with a chain, converted to an L1 that then
 * registers a validator and changes its weight through warp messages from its validator manager. Every input spends
 * a UTXO that exists and is unspent; amounts balance less a fixed fee. The same ticks always give the same bytes, so
 * a restart rebuilds the wallet by replaying the schedule.
 */
import {createHash} from "node:crypto";
import {createRequire} from "node:module";
import type {NetworkInfo} from "../chains/index.js";
import {Writer} from "../decode/reader.js";
import {EMPTY_ID, cb58Decode, idFromString} from "../util/cb58.js";
import {sha256} from "../util/sha256.js";
import type {BlsCredentials, GenesisState} from "../dataApi/views/primary/model.js";
import type {NetworkGenesis} from "../genesis/build.js";
import {devGenesis} from "./genesis.js";
import {bls12_381} from "@noble/curves/bls12-381.js";
import {keccak_256} from "@noble/hashes/sha3.js";
import {aggregateSignatures, sign as blsSign} from "../warp/bls.js";
import {DEV_STAKER_NODES, devStakerSecretKey, localSecretKey} from "./signers.js";
import {
  encodeAddressedCall,
  encodePChainMessage,
  serializeSignedMessage,
  serializeUnsignedMessage,
  validationIdOf,
  type PChainMessage,
  type RegisterL1Validator,
} from "../warp/message.js";
import {canonicalValidatorSet, hasQuorum, type ValidatorInput} from "../warp/validators.js";
import {stakingCertificate} from "./stakingCert.js";
import {DevStakingSchedule, type PlannedDelegation, type PlannedValidation} from "./staking.js";

interface Secp {
  publicKeyCreate(sk: Uint8Array, compressed?: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, sk: Uint8Array): {signature: Uint8Array; recid: number};
}
const secp = createRequire(import.meta.url)("secp256k1") as Secp;

const ripemd = (b: Uint8Array): Uint8Array => new Uint8Array(createHash("ripemd160").update(b).digest());

const NANO = 1_000_000_000n;
const FEE = 1_000_000n;
const DAY = 86_400n;

export interface DevKey {
  sk: Uint8Array;
  publicKey: Uint8Array;
  address: Uint8Array;
  /** The key's EVM address: keccak256(uncompressed public key)[12:]. */
  evmAddress: Uint8Array;
}

/** The local network's well-known funded key (`PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN`). */
const EWOQ = Uint8Array.from(Buffer.from("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027", "hex"));

function key(sk: Uint8Array): DevKey {
  const publicKey = secp.publicKeyCreate(sk, true);
  const evmAddress = keccak_256(secp.publicKeyCreate(sk, false).subarray(1)).subarray(12);
  return {sk, publicKey, address: ripemd(sha256(publicKey)), evmAddress};
}

/** ewoq, then deterministic keys. */
export function devKeys(): DevKey[] {
  return [
    key(EWOQ),
    ...Array.from({length: 7}, (_, i) => key(sha256(new TextEncoder().encode(`avaext dev key ${i + 1}`)))),
  ];
}

/** AvalancheGo's five local-network validators (`staking/local/staker{1..5}`). */
export const LOCAL_VALIDATORS = [
  "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg",
  "NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ",
  "NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN",
  "NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu",
  "NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5",
];

/** The proof-of-possession DST of AvalancheGo's BLS signer (min-pk, signatures in G2). */
const POP_DST = "BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";

/**
 * The BLS key of AvalancheGo's local validator `signer{n}` (n = 1..5): its secret key is the 32 ASCII bytes
 * `AvalancheLocalNetworkValidator0n`, so anyone can check what the dev network's validators sign.
 */
export function localSigner(n: number): {secretKey: Uint8Array; credentials: BlsCredentials} {
  return blsSigner(localSecretKey(n));
}

/** A BLS secret key's public key and proof of possession (AvalancheGo `signer.NewProofOfPossession`). */
function blsSigner(secretKey: Uint8Array): {secretKey: Uint8Array; credentials: BlsCredentials} {
  const bls = bls12_381.longSignatures;
  const publicKey = bls.getPublicKey(secretKey).toBytes(true);
  const pop = bls.sign(bls.hash(publicKey, POP_DST), secretKey).toBytes(true);
  return {
    secretKey,
    credentials: {
      publicKey: Buffer.from(publicKey).toString("hex"),
      proofOfPossession: Buffer.from(pop).toString("hex"),
    },
  };
}

/** One of the dev network's own nodes, which stake by transaction (beyond the genesis validators). */
export interface DevStaker {
  nodeId: string;
  nodeIdBytes: Uint8Array;
  /** Its staking certificate (DER): the NodeID is ripemd160(sha256(it)), as AvalancheGo derives it. */
  certificate: Uint8Array;
  /** Its BLS key (`devStakerSecretKey`), public key and proof of possession. */
  bls: {secretKey: Uint8Array; credentials: BlsCredentials};
}

/**
 * The dev network's own nodes 1-4: a staking certificate each whose key is sha256(`avaext dev staker n tls key`)
 * (src/dev/stakingCert.ts), and a BLS key each (src/dev/signers.ts `devStakerSecretKey`).
 */
export function devStakers(): DevStaker[] {
  return Array.from({length: DEV_STAKER_NODES}, (_, i) => {
    const cert = stakingCertificate(`avaext dev staker ${i + 1} tls key`, i + 1);
    const bls = blsSigner(devStakerSecretKey(i + 1));
    return {nodeId: cert.nodeId, nodeIdBytes: cert.nodeIdBytes, certificate: cert.der, bls};
  });
}

/** The dev L1's validator manager: a contract on its EVM (src/dev/evm/validatorManager.ts), named by the conversion. */
export const DEV_L1_MANAGER = "0x0feedc0de0000000000000000000000000000000";

/** What the dev L1's validator manager is asked at a tick (it sends the P-chain message as a warp message). */
export type L1ManagerCall =
  | {kind: "register"; message: RegisterL1Validator}
  | {kind: "weight"; validationId: Uint8Array; nonce: bigint; weight: bigint};

interface Utxo {
  txId: Uint8Array;
  index: number;
  amount: bigint;
  owner: number;
}

interface PendingStaker {
  txId: Uint8Array;
  end: bigint;
  /** AvalancheGo's removal order at equal end times: delegators (0) before validators (1) (`txs/priorities.go`). */
  priority: 0 | 1;
  /** Called when it is rewarded. */
  onReward?: () => void;
}

/** A validator of the dev L1, as the P-chain has it. */
interface L1Member {
  /** The local signer (1-5) whose node and key it is. */
  signer: number;
  validationId: Uint8Array;
  weight: bigint;
  active: boolean;
  /** The nonce of the manager's last weight message for it. */
  nonce: bigint;
}

/** One tick's containers' inner contents. */
export interface DevTick {
  /** Inner P blocks: each a list of signed txs, and the block kind. */
  pBlocks: Array<{kind: "standard" | "proposal" | "commit"; txs: Uint8Array[]; time: bigint}>;
  /** Signed X txs (codec version included) of the tick: in vertices before Cortina, its X block after (src/dev/feed.ts). */
  xTxs: Uint8Array[];
  /** A signed C atomic tx for the tick's C block's extData, or null. */
  cAtomic: Uint8Array | null;
  /** What the dev L1's validator manager sends this tick (on the L1's EVM), for the P-chain at a later tick. */
  l1Manager: L1ManagerCall[];
}

/**
 * The ticks at which the dev network creates its subnet, the subnet's chain, converts it to an L1, adds to an L1
 * validator's balance, registers an L1 validator (its manager sends the message a tick before), changes its weight
 * (likewise) and disables an L1 validator; and the tick of Cortina, when its X-chain's DAG is linearised into blocks
 * (src/dev/feed.ts: earlier when the backfill is shorter than twice it).
 */
export const DEV_SCHEDULE = {
  subnet: 20,
  chain: 21,
  conversion: 30,
  l1Balance: 40,
  l1Register: 42,
  l1Weight: 46,
  l1Disable: 50,
  cortina: 300,
} as const;
/** The EVM chain ID in the dev L1 chain's (Subnet-EVM) genesis. */
export const DEV_L1_EVM_CHAIN_ID = 99999;

/**
 * Each genesis validator's stake (its weight): genesis_local.json stakes 10,000,000 AVAX over its five stakers
 * (src/dev/genesis.ts; test/unit/dev/primaryNetwork.test.ts checks it against the built genesis).
 */
export const GENESIS_STAKE = 2_000_000n * NANO;

export class DevPrimaryNetwork {
  /** Local signers' keys and proofs of possession, derived once each: the relayer asks for them every L1 message. */
  private readonly localSigners = new Map<number, ReturnType<typeof localSigner>>();
  private localSigner(n: number): ReturnType<typeof localSigner> {
    let s = this.localSigners.get(n);
    if (!s) this.localSigners.set(n, (s = localSigner(n)));
    return s;
  }

  readonly keys = devKeys();
  /** The dev network's genesis, built from its genesis file as the views build it. */
  private readonly built: NetworkGenesis;
  private readonly avax: Uint8Array;
  private readonly pChain: Uint8Array;
  private readonly xChain: Uint8Array;
  private readonly x: Utxo[] = [];
  private readonly p: Utxo[] = [];
  /** Exported to P, not yet imported. */
  private readonly exported: Utxo[] = [];
  private readonly pending: PendingStaker[] = [];
  private subnet: Uint8Array | null = null;
  /** The subnet's chain (the L1's chain once converted) and its validators' validation IDs. */
  private l1Chain: Uint8Array | null = null;
  private readonly validations: Uint8Array[] = [];
  /** The L1's validators (signers 1-3 from the conversion, 4 registered later). */
  private readonly l1: L1Member[] = [];
  /** The manager's messages sent, awaiting their P-chain transaction (unsigned payloads of the P-chain messages). */
  private registration: RegisterL1Validator | null = null;
  private weightChange: {validationId: Uint8Array; nonce: bigint; weight: bigint} | null = null;
  /** The dev network's own nodes, when they stake, and their current validations with their weights. */
  readonly stakers = devStakers();
  private readonly staking: DevStakingSchedule;
  private readonly validating = new Map<PlannedValidation, bigint>();
  /** The dev network's own X-chain asset (created at tick 3) and its UTXOs. */
  private asset: Uint8Array | null = null;
  private readonly assetUtxos: Utxo[] = [];
  private readonly cChain: Uint8Array;
  /** Exported from X to C, and from C to X, not yet imported. */
  private readonly toC: Utxo[] = [];
  private readonly toX: Utxo[] = [];
  /** AVAX (nAVAX) held on the C-chain per key, and its EVM nonces. */
  private readonly evm = new Map<number, {balance: bigint; nonce: bigint}>();

  constructor(
    private readonly network: NetworkInfo,
    readonly genesisTime: bigint,
    /** Where the built genesis is kept across instances (the feed's); none: built here. */
    genesisCache?: Map<string, NetworkGenesis>,
  ) {
    this.pChain = idFromString(network.chainIds.P);
    this.xChain = idFromString(network.chainIds.X);
    this.cChain = idFromString(network.chainIds.C);
    this.staking = new DevStakingSchedule(genesisTime);
    this.built = devGenesis(network.id, genesisTime, genesisCache);
    this.avax = idFromString(this.built.avaxAssetId);
    // The wallet starts with the genesis UTXOs its keys own (ewoq's X and P allocations), unlocked ones only.
    const owners = new Map(this.keys.map((k, i) => [Buffer.from(k.address).toString("hex"), i]));
    for (const u of this.built.state.utxos) {
      const o = u.output;
      const owner =
        o.owner.addresses.length === 1 ? owners.get(Buffer.from(o.owner.addresses[0]!).toString("hex")) : undefined;
      if (owner === undefined || o.stakeableLocktime > genesisTime) continue;
      (u.chain === "X" ? this.x : this.p).push({
        txId: idFromString(u.txId),
        index: o.outputIndex,
        amount: o.amount,
        owner,
      });
    }
  }

  /** The dev network's AVAX asset ID (CB58): its genesis's. */
  get avaxAssetId(): string {
    return this.built.avaxAssetId;
  }

  /** The subnet's chain (the dev L1's EVM) once created, else null. */
  l1ChainId(): Uint8Array | null {
    return this.l1Chain;
  }

  /** The subnet's ID once created, else null. */
  subnetId(): Uint8Array | null {
    return this.subnet;
  }

  /**
   * The L1's validator set as the P-chain has it now (none before the conversion): active validators with their
   * local signer's key; an inactive one's weight still counts, keyless, as AvalancheGo counts it
   * (`vms/platformvm/state/state.go`, the inactive weight under the empty NodeID).
   */
  l1Validators(): ValidatorInput[] {
    return this.l1.map((v) => ({
      nodeId: LOCAL_VALIDATORS[v.signer - 1]!,
      weight: v.weight,
      blsPublicKey: v.active ? Buffer.from(this.localSigner(v.signer).credentials.publicKey, "hex") : null,
    }));
  }

  /** The dev network's own validators staking now, each with its stake plus its current delegations' (its weight). */
  ownValidators(): ValidatorInput[] {
    return [...this.validating].map(([v, weight]) => ({
      nodeId: this.stakers[v.node]!.nodeId,
      weight,
      blsPublicKey: Buffer.from(this.stakers[v.node]!.bls.credentials.publicKey, "hex"),
    }));
  }

  /** The genesis the views fold before the first block: the one built from the dev network's genesis file. */
  genesis(): GenesisState {
    return this.built.state;
  }

  /** The transactions of tick `t` at `time` (seconds), in acceptance order; advances the wallets. */
  tick(t: number, time: bigint): DevTick {
    const pBlocks: DevTick["pBlocks"] = [];
    // Stakers whose period has ended are rewarded first, each by a proposal block and its commit, in AvalancheGo's
    // order: the current staker set's head (end time, then priority, then tx ID; `state/staker.go` Less).
    const ended = this.pending.filter((x) => x.end <= time);
    ended.sort((a, b) => {
      if (a.end !== b.end) return a.end < b.end ? -1 : 1;
      return a.priority - b.priority || Buffer.compare(a.txId, b.txId);
    });
    for (const s of ended) {
      this.pending.splice(this.pending.indexOf(s), 1);
      s.onReward?.();
      const reward = new Writer().u16(0).u32(20).fixed(s.txId).u32(0).finish();
      pBlocks.push({kind: "proposal", txs: [reward], time: s.end});
      pBlocks.push({kind: "commit", txs: [], time: s.end});
    }
    const pTxs: Uint8Array[] = [];
    const xTxs: Uint8Array[] = [this.xTransfer(t)];
    if (t % 12 === 0) xTxs.push(this.xExport(t));
    if (t === 3) xTxs.push(this.xCreateAsset());
    if (t > 3 && t % 6 === 4 && this.asset) xTxs.push(this.xAssetTransfer(t));
    if (t % 12 === 1 && this.exported.length > 0) pTxs.push(this.pImport());
    pTxs.push(this.pTransfer(t));
    if (t % 48 === 5) {
      const genesisValidator = idFromNodeId(LOCAL_VALIDATORS[t % LOCAL_VALIDATORS.length]!);
      pTxs.push(this.pDelegate(genesisValidator, time, time + DAY, 25n * NANO));
    }
    // The dev network's own validators and their delegators (src/dev/staking.ts).
    const staking = this.staking.at(t, time);
    if (staking.validation) pTxs.push(this.pValidate(staking.validation));
    for (const d of staking.delegations) pTxs.push(this.pDelegateToOwn(d));
    if (t === DEV_SCHEDULE.subnet) pTxs.push(this.pCreateSubnet());
    if (t === DEV_SCHEDULE.chain && this.subnet) pTxs.push(this.pCreateChain());
    if (t === DEV_SCHEDULE.conversion && this.l1Chain) pTxs.push(this.pConvertToL1());
    if (t === DEV_SCHEDULE.l1Balance && this.validations.length > 0) pTxs.push(this.pIncreaseL1Balance());
    // The L1's validator manager sends its message a tick before the P-chain transaction that carries it.
    const l1Manager: L1ManagerCall[] = [];
    if (t === DEV_SCHEDULE.l1Register - 1 && this.validations.length > 0) {
      l1Manager.push(this.l1RequestRegistration(time));
    }
    if (t === DEV_SCHEDULE.l1Register && this.registration) pTxs.push(this.pRegisterL1Validator());
    if (t === DEV_SCHEDULE.l1Weight - 1 && this.l1.length > 3) l1Manager.push(this.l1RequestWeight());
    if (t === DEV_SCHEDULE.l1Weight && this.weightChange) pTxs.push(this.pSetL1ValidatorWeight());
    if (t === DEV_SCHEDULE.l1Disable && this.validations.length > 0) pTxs.push(this.pDisableL1Validator());
    pBlocks.push({kind: "standard", txs: pTxs, time});
    // The C-chain's atomic side: X→C every 12 ticks, imported on C at the next; C→X three ticks later, imported on X.
    let cAtomic: Uint8Array | null = null;
    if (t % 12 === 6) xTxs.push(this.xExportToC());
    if (t % 12 === 7 && this.toC.length > 0) cAtomic = this.cImport();
    if (t % 12 === 9 && (this.evm.get(5)?.balance ?? 0n) > 100n * NANO) cAtomic = this.cExport();
    if (t % 12 === 10 && this.toX.length > 0) xTxs.push(this.xImport());
    return {pBlocks, xTxs, cAtomic, l1Manager};
  }

  /** X: a transfer from one key to another, with change. */
  private xTransfer(t: number): Uint8Array {
    const from = this.richest(this.x);
    const to = (from.owner + 1 + (t % (this.keys.length - 1))) % this.keys.length;
    const amount = (BigInt(t % 97) + 1n) * NANO;
    return this.transfer("X", 0, this.xChain, from, [[amount, to]], [], null);
  }

  /** X: an export of 1,000 AVAX to the P-chain, owned there by key 1. */
  private xExport(_t: number): Uint8Array {
    const from = this.richest(this.x);
    return this.transfer("X", 4, this.xChain, from, [], [[1_000n * NANO, 1]], this.pChain);
  }

  /** X: a fixed-cap asset of 6 decimals, 1,000,000 units minted to key 0. */
  private xCreateAsset(): Uint8Array {
    const from = this.richest(this.x);
    const change = from.amount - FEE;
    const w = baseBody(
      1,
      this.network.id,
      this.xChain,
      this.avax,
      [[change, this.keys[from.owner]!.address]],
      [from],
      new Uint8Array(0),
    );
    const name = new TextEncoder().encode("Dev Coin");
    const symbol = new TextEncoder().encode("DEVC");
    w.u16(name.length).fixed(name).u16(symbol.length).fixed(symbol).fixed(Uint8Array.of(6));
    // One initial state: the secp256k1 fx (index 0) with one TransferOutput, numbered after the regular outputs.
    w.u32(1).u32(0).u32(1).u32(7).u64(1_000_000_000_000n);
    writeOwners(w, 0n, 1, [this.keys[0]!.address]);
    this.remove(this.x, from);
    return this.finish(w, [from.owner], [], (txId) => {
      this.x.push({txId, index: 0, amount: change, owner: from.owner});
      this.asset = txId;
      this.assetUtxos.push({txId, index: 1, amount: 1_000_000_000_000n, owner: 0});
    });
  }

  /** X: sends some of the dev asset on, its fee paid in AVAX: two assets, two inputs, three outputs. */
  private xAssetTransfer(t: number): Uint8Array {
    const a = this.assetUtxos.reduce((x, y) => (y.amount > x.amount ? y : x));
    const fee =
      this.x
        .filter((u) => u.owner === a.owner)
        .reduce<Utxo | null>((x, y) => (x === null || y.amount > x.amount ? y : x), null) ?? this.richest(this.x);
    const to = (a.owner + 1 + (t % 5)) % this.keys.length;
    const amount = BigInt(1 + (t % 50)) * 1_000_000n;
    const asset = this.asset!;
    const outs: Array<[Uint8Array, bigint, number]> = [
      [asset, amount, to],
      [asset, a.amount - amount, a.owner],
      [this.avax, fee.amount - FEE, fee.owner],
    ];
    const w = new Writer().u16(0).u32(0).u32(this.network.id).fixed(this.xChain).u32(outs.length);
    for (const [id, amt, o] of outs) writeTransferOut(w, id, amt, this.keys[o]!.address);
    const ins: Array<[Uint8Array, Utxo]> = [
      [asset, a],
      [this.avax, fee],
    ];
    ins.sort(([, x], [, y]) => Buffer.compare(x.txId, y.txId) || x.index - y.index);
    w.u32(ins.length);
    for (const [id, u] of ins) w.fixed(u.txId).u32(u.index).fixed(id).u32(5).u64(u.amount).u32(1).u32(0);
    w.bytesU32(new Uint8Array(0));
    this.remove(this.assetUtxos, a);
    this.remove(this.x, fee);
    return this.finish(
      w,
      ins.map(([, u]) => u.owner),
      [],
      (txId) => {
        this.assetUtxos.push(
          {txId, index: 0, amount, owner: to},
          {txId, index: 1, amount: a.amount - amount, owner: a.owner},
        );
        this.x.push({txId, index: 2, amount: fee.amount - FEE, owner: fee.owner});
      },
    );
  }

  /** X: 500 AVAX exported to the C-chain, for key 5. */
  private xExportToC(): Uint8Array {
    const from = this.richest(this.x);
    const tx = this.transfer("X", 4, this.xChain, from, [], [[500n * NANO, 5]], this.cChain);
    // transfer() recorded the exported output for P; it goes to C.
    this.toC.push(...this.exported.splice(this.exported.length - 1, 1));
    return tx;
  }

  /** C: imports what X exported into key 5's EVM balance (an atomic ImportTx in the block's extData). */
  private cImport(): Uint8Array {
    const ins = this.toC.splice(0);
    const total = ins.reduce((a, u) => a + u.amount, 0n);
    const owner = ins[0]!.owner;
    const w = new Writer().u16(0).u32(0).u32(this.network.id).fixed(this.cChain).fixed(this.xChain);
    writeInputs(w, this.avax, ins);
    w.u32(1)
      .fixed(this.keys[owner]!.evmAddress)
      .u64(total - FEE)
      .fixed(this.avax);
    return this.finish(
      w,
      ins.map((u) => u.owner),
      [],
      () => {
        const e = this.evm.get(owner) ?? {balance: 0n, nonce: 0n};
        e.balance += total - FEE;
        this.evm.set(owner, e);
      },
    );
  }

  /** C: key 5 exports 100 AVAX of its EVM balance to the X-chain, for key 6. */
  private cExport(): Uint8Array {
    const e = this.evm.get(5)!;
    const amount = 100n * NANO;
    const w = new Writer().u16(0).u32(1).u32(this.network.id).fixed(this.cChain).fixed(this.xChain);
    w.u32(1)
      .fixed(this.keys[5]!.evmAddress)
      .u64(amount + FEE)
      .fixed(this.avax)
      .u64(e.nonce);
    w.u32(1);
    writeTransferOut(w, this.avax, amount, this.keys[6]!.address);
    return this.finish(w, [5], [], (txId) => {
      e.balance -= amount + FEE;
      e.nonce++;
      this.toX.push({txId, index: 0, amount, owner: 6});
    });
  }

  /** X: imports what C exported. */
  private xImport(): Uint8Array {
    const ins = this.toX.splice(0);
    const total = ins.reduce((a, u) => a + u.amount, 0n);
    const owner = ins[0]!.owner;
    const outs: Array<[bigint, number]> = [[total - FEE, owner]];
    const w = baseBody(
      3,
      this.network.id,
      this.xChain,
      this.avax,
      outs.map(([a, o]) => [a, this.keys[o]!.address]),
      [],
      new Uint8Array(0),
    );
    w.fixed(this.cChain);
    writeInputs(w, this.avax, ins);
    return this.finish(
      w,
      ins.map((u) => u.owner),
      [],
      (txId) => outs.forEach(([amount, o], index) => this.x.push({txId, index, amount, owner: o})),
    );
  }

  /** P: imports what X exported. */
  private pImport(): Uint8Array {
    const ins = this.exported.splice(0);
    const total = ins.reduce((a, u) => a + u.amount, 0n);
    const owner = ins[0]!.owner;
    const outs: Array<[bigint, number]> = [[total - FEE, owner]];
    const w = baseBody(
      17,
      this.network.id,
      this.pChain,
      this.avax,
      outs.map(([a, o]) => [a, this.keys[o]!.address]),
      [],
      new Uint8Array(0),
    );
    w.fixed(this.xChain);
    writeInputs(w, this.avax, ins);
    return this.finish(
      w,
      ins.map((u) => u.owner),
      [],
      (txId) => outs.forEach(([amount, o], index) => this.p.push({txId, index, amount, owner: o})),
    );
  }

  private pTransfer(t: number): Uint8Array {
    const from = this.richest(this.p);
    const to = [1, 4, 5][t % 3]!;
    return this.transfer("P", 34, this.pChain, from, [[(BigInt(t % 13) + 1n) * NANO, to]], [], null);
  }

  /**
   * P: a validation of the dev network's own node (src/dev/staking.ts): an AddPermissionlessValidatorTx with the
   * node's BLS key and proof of possession, its rewards to key 6 and its delegation fees to key 7.
   */
  private pValidate(v: PlannedValidation): Uint8Array {
    const {stake, end, start: time} = v;
    const staker = this.stakers[v.node]!;
    const from = this.richest(this.p);
    const change = from.amount - stake - FEE;
    if (change < 0n) {
      throw new Error(`dev wallet: key ${from.owner} holds ${from.amount} on P, a validator needs ${stake + FEE}`);
    }
    const changeOut: Array<[bigint, Uint8Array]> = [[change, this.keys[from.owner]!.address]];
    const w = baseBody(25, this.network.id, this.pChain, this.avax, changeOut, [from], new Uint8Array(0));
    // After Durango the start is the accepting block's time; wallets still fill the field: with that time.
    w.fixed(staker.nodeIdBytes).u64(time).u64(end).u64(stake);
    w.fixed(idFromString(EMPTY_ID));
    const {publicKey, proofOfPossession} = staker.bls.credentials;
    w.u32(28).fixed(Buffer.from(publicKey, "hex")).fixed(Buffer.from(proofOfPossession, "hex"));
    w.u32(1);
    writeTransferOut(w, this.avax, stake, this.keys[from.owner]!.address);
    w.u32(11);
    writeOwners(w, 0n, 1, [this.keys[6]!.address]);
    w.u32(11);
    writeOwners(w, 0n, 1, [this.keys[7]!.address]);
    w.u32(v.shares);
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [], (txId) => {
      this.p.push({txId, index: 0, amount: change, owner: from.owner});
      this.validating.set(v, stake);
      this.pending.push({txId, end, priority: 1, onReward: () => this.validating.delete(v)});
    });
  }

  /** P: a delegation to an own validator (its weight counts it until it is rewarded). */
  private pDelegateToOwn(d: PlannedDelegation): Uint8Array {
    const v = d.validation;
    const weigh = (delta: bigint): void => {
      const w = this.validating.get(v);
      if (w !== undefined) this.validating.set(v, w + delta);
    };
    const nodeId = this.stakers[v.node]!.nodeIdBytes;
    return this.pDelegate(
      nodeId,
      d.start,
      d.end,
      d.stake,
      () => weigh(d.stake),
      () => weigh(-d.stake),
    );
  }

  /** P: a delegation of `stake` to `nodeId` from `time` to `end`, rewarded to key 2. */
  private pDelegate(
    nodeId: Uint8Array,
    time: bigint,
    end: bigint,
    stake: bigint,
    added?: () => void,
    onReward?: () => void,
  ): Uint8Array {
    const from = this.richest(this.p);
    const change = from.amount - stake - FEE;
    const w = baseBody(
      26,
      this.network.id,
      this.pChain,
      this.avax,
      [[change, this.keys[from.owner]!.address]],
      [from],
      new Uint8Array(0),
    );
    w.fixed(nodeId).u64(time).u64(end).u64(stake);
    w.fixed(idFromString(EMPTY_ID));
    w.u32(1);
    writeTransferOut(w, this.avax, stake, this.keys[from.owner]!.address);
    w.u32(11);
    writeOwners(w, 0n, 1, [this.keys[2]!.address]);
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [], (txId) => {
      this.p.push({txId, index: 0, amount: change, owner: from.owner});
      this.pending.push({txId, end, priority: 0, onReward});
      added?.();
    });
  }

  private pCreateSubnet(): Uint8Array {
    const from = this.richest(this.p);
    const change = from.amount - FEE;
    const w = baseBody(
      16,
      this.network.id,
      this.pChain,
      this.avax,
      [[change, this.keys[from.owner]!.address]],
      [from],
      new Uint8Array(0),
    );
    w.u32(11);
    writeOwners(w, 0n, 1, [this.keys[3]!.address]);
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [], (txId) => {
      this.p.push({txId, index: 0, amount: change, owner: from.owner});
      this.subnet = txId;
    });
  }

  private pCreateChain(): Uint8Array {
    const from = this.richest(this.p);
    const change = from.amount - FEE;
    const w = baseBody(
      15,
      this.network.id,
      this.pChain,
      this.avax,
      [[change, this.keys[from.owner]!.address]],
      [from],
      new Uint8Array(0),
    );
    const name = new TextEncoder().encode("devl1");
    w.fixed(this.subnet!).u16(name.length).fixed(name);
    // Subnet-EVM's VM ID, and a Subnet-EVM-style genesis.
    w.fixed(idFromString("srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"));
    w.u32(0);
    const genesis = new TextEncoder().encode(
      JSON.stringify({
        config: {chainId: DEV_L1_EVM_CHAIN_ID, feeConfig: {gasLimit: 8_000_000, targetBlockRate: 2}},
        alloc: {},
        gasLimit: "0x7a1200",
        timestamp: "0x0",
      }),
    );
    w.bytesU32(genesis);
    w.u32(10).u32(1).u32(0); // subnet authorisation: signature 0 of the subnet's owner
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [3], (txId) => {
      this.p.push({txId, index: 0, amount: change, owner: from.owner});
      this.l1Chain = txId;
    });
  }

  /**
   * P: converts the subnet to an L1 whose validators are local nodes 1-3 (their signer BLS keys), weight 100 and a
   * 10 AVAX balance each, owned by key 3; the manager is the validator manager contract on the L1's chain.
   */
  private pConvertToL1(): Uint8Array {
    const from = this.richest(this.p);
    const balance = 10n * NANO;
    const change = from.amount - FEE - 3n * balance;
    const w = baseBody(
      35,
      this.network.id,
      this.pChain,
      this.avax,
      [[change, this.keys[from.owner]!.address]],
      [from],
      new Uint8Array(0),
    );
    w.fixed(this.subnet!).fixed(this.l1Chain!);
    w.bytesU32(MANAGER_ADDRESS);
    w.u32(3);
    for (let i = 0; i < 3; i++) {
      const signer = this.localSigner(i + 1).credentials;
      w.bytesU32(idFromNodeId(LOCAL_VALIDATORS[i]!)).u64(100n).u64(balance);
      w.fixed(Buffer.from(signer.publicKey, "hex")).fixed(Buffer.from(signer.proofOfPossession, "hex"));
      for (let owner = 0; owner < 2; owner++) w.u32(1).u32(1).fixed(this.keys[3]!.address); // remaining balance, deactivation
    }
    w.u32(10).u32(1).u32(0); // subnet authorisation by its owner, key 3
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [3], (txId) => {
      this.p.push({txId, index: 0, amount: change, owner: from.owner});
      for (let i = 0; i < 3; i++) {
        const validationId = sha256(new Writer().fixed(this.subnet!).u32(i).finish());
        this.validations.push(validationId);
        this.l1.push({signer: i + 1, validationId, weight: 100n, active: true, nonce: 0n});
      }
    });
  }

  /** P: 5 AVAX more for the first L1 validator's balance. */
  private pIncreaseL1Balance(): Uint8Array {
    const from = this.richest(this.p);
    const amount = 5n * NANO;
    const change = from.amount - FEE - amount;
    const w = baseBody(
      38,
      this.network.id,
      this.pChain,
      this.avax,
      [[change, this.keys[from.owner]!.address]],
      [from],
      new Uint8Array(0),
    );
    w.fixed(this.validations[0]!).u64(amount);
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [], (txId) => this.p.push({txId, index: 0, amount: change, owner: from.owner}));
  }

  /** P: the third L1 validator disabled by its deactivation owner, key 3. */
  private pDisableL1Validator(): Uint8Array {
    const from = this.richest(this.p);
    const change = from.amount - FEE;
    const w = baseBody(
      39,
      this.network.id,
      this.pChain,
      this.avax,
      [[change, this.keys[from.owner]!.address]],
      [from],
      new Uint8Array(0),
    );
    w.fixed(this.validations[2]!).u32(10).u32(1).u32(0);
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [3], (txId) => {
      this.p.push({txId, index: 0, amount: change, owner: from.owner});
      this.l1[2]!.active = false;
    });
  }

  /**
   * L1: the manager asks to register local node 4 (signer 4's key), weight 100, its balance and disable owner key
   * 3, the message valid for an hour (AvalancheGo takes it up to 24 h before its expiry).
   */
  private l1RequestRegistration(time: bigint): L1ManagerCall {
    const owner = {threshold: 1, addresses: [this.keys[3]!.address]};
    const message: RegisterL1Validator = {
      subnetId: this.subnet!,
      nodeId: idFromNodeId(LOCAL_VALIDATORS[3]!),
      blsPublicKey: Buffer.from(this.localSigner(4).credentials.publicKey, "hex"),
      expiry: time + 3_600n,
      remainingBalanceOwner: owner,
      disableOwner: owner,
      weight: 100n,
    };
    this.registration = message;
    return {kind: "register", message};
  }

  /** L1: the manager asks to double the registered validator's weight (its first weight message: nonce 1). */
  private l1RequestWeight(): L1ManagerCall {
    const v = this.l1[3]!;
    const change = {validationId: v.validationId, nonce: v.nonce + 1n, weight: v.weight * 2n};
    this.weightChange = change;
    return {kind: "weight", ...change};
  }

  /** P: RegisterL1ValidatorTx with a 10 AVAX balance, carrying the manager's message signed by the L1's validators. */
  private pRegisterL1Validator(): Uint8Array {
    const m = this.registration!;
    this.registration = null;
    const signed = this.signedByL1({type: "RegisterL1Validator", ...m});
    const from = this.richest(this.p);
    const balance = 10n * NANO;
    const change = from.amount - FEE - balance;
    const changeOut: Array<[bigint, Uint8Array]> = [[change, this.keys[from.owner]!.address]];
    const w = baseBody(36, this.network.id, this.pChain, this.avax, changeOut, [from], new Uint8Array(0));
    w.u64(balance)
      .fixed(Buffer.from(this.localSigner(4).credentials.proofOfPossession, "hex"))
      .bytesU32(signed);
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [], (txId) => {
      this.p.push({txId, index: 0, amount: change, owner: from.owner});
      this.l1.push({signer: 4, validationId: validationIdOf(m), weight: m.weight, active: true, nonce: 0n});
    });
  }

  /** P: SetL1ValidatorWeightTx carrying the manager's weight message signed by the L1's validators. */
  private pSetL1ValidatorWeight(): Uint8Array {
    const c = this.weightChange!;
    this.weightChange = null;
    const signed = this.signedByL1({type: "L1ValidatorWeight", ...c});
    const from = this.richest(this.p);
    const change = from.amount - FEE;
    const changeOut: Array<[bigint, Uint8Array]> = [[change, this.keys[from.owner]!.address]];
    const w = baseBody(37, this.network.id, this.pChain, this.avax, changeOut, [from], new Uint8Array(0));
    w.bytesU32(signed);
    this.remove(this.p, from);
    return this.finish(w, [from.owner], [], (txId) => {
      this.p.push({txId, index: 0, amount: change, owner: from.owner});
      const v = this.l1.find((x) => Buffer.compare(x.validationId, c.validationId) === 0)!;
      v.weight = c.weight;
      v.nonce = c.nonce;
    });
  }

  /**
   * The manager's message as AvalancheGo's P-chain verifies it (`vms/platformvm/warp`): source chain the L1's,
   * an AddressedCall from the manager's address, signed by every active validator of the L1's canonical set (bit
   * i = entry i), their BLS signatures aggregated. The set must hold the 67 % quorum the P-chain requires.
   */
  private signedByL1(m: PChainMessage): Uint8Array {
    const unsigned = serializeUnsignedMessage({
      networkId: this.network.id,
      sourceChainId: this.l1Chain!,
      payload: encodeAddressedCall({sourceAddress: MANAGER_ADDRESS, payload: encodePChainMessage(m)}),
    });
    const set = canonicalValidatorSet(this.l1Validators());
    const signedWeight = set.validators.reduce((a, v) => a + v.weight, 0n);
    if (!hasQuorum(signedWeight, set.totalWeight, 67)) {
      throw new Error("dev L1: its active validators hold less than 67% of its weight");
    }
    const secret = (pk: Uint8Array): Uint8Array => {
      const key = Buffer.from(pk).toString("hex");
      return localSecretKey(this.l1.find((v) => this.localSigner(v.signer).credentials.publicKey === key)!.signer);
    };
    const signatures = set.validators.map((v) => blsSign(secret(v.publicKey), unsigned));
    return serializeSignedMessage(
      unsigned,
      set.validators.map((_, i) => i),
      aggregateSignatures(signatures),
    );
  }

  /** A BaseTx (or an ExportTx with `exports`) spending `from`, paying `pays`, change back to its owner. */
  private transfer(
    chain: "X" | "P",
    typeId: number,
    chainId: Uint8Array,
    from: Utxo,
    pays: Array<[bigint, number]>,
    exports: Array<[bigint, number]>,
    destination: Uint8Array | null,
  ): Uint8Array {
    const spent = [...pays, ...exports].reduce((a, [x]) => a + x, 0n) + FEE;
    if (from.amount < spent)
      throw new Error(`dev wallet: key ${from.owner} holds ${from.amount} on ${chain}, needs ${spent}`);
    const outs: Array<[bigint, number]> = [...pays, [from.amount - spent, from.owner]];
    const w = baseBody(
      typeId,
      this.network.id,
      chainId,
      this.avax,
      outs.map(([a, o]) => [a, this.keys[o]!.address]),
      [from],
      new Uint8Array(0),
    );
    if (destination) {
      w.fixed(destination).u32(exports.length);
      for (const [a, o] of exports) writeTransferOut(w, this.avax, a, this.keys[o]!.address);
    }
    const set = chain === "X" ? this.x : this.p;
    this.remove(set, from);
    return this.finish(w, [from.owner], [], (txId) => {
      outs.forEach(([amount, owner], index) => set.push({txId, index, amount, owner}));
      exports.forEach(([amount, owner], i) => this.exported.push({txId, index: outs.length + i, amount, owner}));
    });
  }

  /** Signs the unsigned tx in `w` (one credential per input, then the authorisations) and records its outputs. */
  private finish(
    w: Writer,
    inputOwners: number[],
    authOwners: number[],
    record: (txId: Uint8Array) => void,
  ): Uint8Array {
    const unsigned = w.finish();
    const digest = sha256(unsigned);
    const signed = new Writer().fixed(unsigned).u32(inputOwners.length + authOwners.length);
    for (const o of [...inputOwners, ...authOwners]) {
      const {signature, recid} = secp.ecdsaSign(digest, this.keys[o]!.sk);
      signed.u32(9).u32(1).fixed(signature).fixed(Uint8Array.of(recid));
    }
    const bytes = signed.finish();
    record(sha256(bytes));
    return bytes;
  }

  private richest(set: Utxo[]): Utxo {
    return set.reduce((a, b) => (b.amount > a.amount ? b : a));
  }

  private remove(set: Utxo[], u: Utxo): void {
    set.splice(set.indexOf(u), 1);
  }
}

const MANAGER_ADDRESS = Uint8Array.from(Buffer.from(DEV_L1_MANAGER.slice(2), "hex"));

function idFromNodeId(nodeId: string): Uint8Array {
  return cb58Decode(nodeId.slice("NodeID-".length));
}

function writeOwners(w: Writer, locktime: bigint, threshold: number, addresses: Uint8Array[]): void {
  w.u64(locktime).u32(threshold).u32(addresses.length);
  for (const a of addresses) w.fixed(a);
}

function writeTransferOut(w: Writer, asset: Uint8Array, amount: bigint, address: Uint8Array): void {
  w.fixed(asset).u32(7).u64(amount);
  writeOwners(w, 0n, 1, [address]);
}

function writeInputs(w: Writer, asset: Uint8Array, ins: Utxo[]): void {
  const sorted = [...ins].sort((a, b) => Buffer.compare(a.txId, b.txId) || a.index - b.index);
  w.u32(sorted.length);
  for (const u of sorted) w.fixed(u.txId).u32(u.index).fixed(asset).u32(5).u64(u.amount).u32(1).u32(0);
}

/** codec version ‖ type ‖ network ‖ chain ‖ outputs ‖ inputs ‖ memo: the common head of every tx body. */
function baseBody(
  typeId: number,
  networkId: number,
  chainId: Uint8Array,
  asset: Uint8Array,
  outs: Array<[bigint, Uint8Array]>,
  ins: Utxo[],
  memo: Uint8Array,
): Writer {
  const w = new Writer().u16(0).u32(typeId).u32(networkId).fixed(chainId).u32(outs.length);
  for (const [amount, address] of outs) writeTransferOut(w, asset, amount, address);
  writeInputs(w, asset, ins);
  return w.bytesU32(memo);
}
