/**
 * The dev network's EVM traffic: per tick, a deterministic list of `eth_sendTransaction` requests for anvil's
 * unlocked default accounts. Ticks 0-2 deploy the dev contracts; later ticks mix native transfers, ERC-20, ERC-721
 * and ERC-1155 transfers, internal value calls, CREATE/CREATE2 (nested) deployments, a caught inner revert and,
 * every 10th tick, a reverted transaction, so the indexer sees every shape it must handle.
 *
 * Determinism: nonces, gas limits and fees are explicit (no estimation, no pool-assigned nonce), the choices come
 * from a seeded PRNG and from state the generator tracks itself (nonces, token owners and balances), and contract
 * addresses are computed, not read back. Two generators fed the same ticks in order produce the same requests, and
 * two fresh anvils mining them at the same timestamps produce the same block hashes. Ticks must be asked for in
 * order (0, 1, 2, ...), since each builds on the state the previous ones left.
 *
 * Addresses here are lowercase 0x-hex (what anvil's JSON-RPC returns, so they compare as strings).
 */
import {RLP} from "@ethereumjs/rlp";
import {keccak_256} from "@noble/hashes/sha3.js";
import {encodeAbi, encodeCall} from "../../evm/abi.js";
import {bytesToHex, hexToBytes, toQuantity} from "../../evm/hex.js";
import {DevChild, DevFactory, DevMulti, DevNFT, DevToken, LegacyToken} from "./artifacts.js";
import {mulberry32 as prng} from "../../util/prng.js";

/** The first 10 accounts of anvil's default mnemonic ("test test ... junk"), unlocked for eth_sendTransaction. */
export const ANVIL_ACCOUNTS: readonly string[] = [
  "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
  "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
  "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65",
  "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc",
  "0x976ea74026e726554db657fa54763abd0c3a0aa9",
  "0x14dc79964da2c08b23698b3d3cc7ca32193d9955",
  "0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f",
  "0xa0ee7a142d267c1f36714e4a8f75612f20a79720",
];

/** `eth_sendTransaction` params; every number a JSON-RPC quantity. No `to`: a contract creation. */
export interface EthTxRequest {
  from: string;
  to?: string;
  data?: string;
  value?: string;
  nonce: string;
  gas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
}

/** The dev contracts' addresses, and the DevChild/DevGrandchild pairs DevFactory has been asked to create so far. */
export interface DevEvmAddresses {
  devToken: string;
  legacyToken: string;
  devNft: string;
  devMulti: string;
  devFactory: string;
  children: Array<{child: string; grandchild: string; create2: boolean}>;
}

/** What a tick's transaction does (see lastTick(), for tests and logs). */
export type TxKind =
  | "deploy"
  | "native"
  | "erc20"
  | "legacy20"
  | "nftMint"
  | "nftTransfer"
  | "multiMint"
  | "multiSingle"
  | "multiBatch"
  | "fanout"
  | "create2"
  | "create"
  | "ping"
  | "tryInner"
  | "boom";

/** The CREATE address: keccak256(rlp([sender, nonce]))[12:]. */
export function contractAddress(sender: string, nonce: number | bigint): string {
  return "0x" + bytesToHex(keccak_256(RLP.encode([hexToBytes(sender), BigInt(nonce)])).subarray(12));
}

/** The CREATE2 address: keccak256(0xff ‖ deployer ‖ salt ‖ keccak256(initCode))[12:]. */
export function create2Address(deployer: string, salt: string, initCode: string): string {
  const buf = new Uint8Array(85);
  buf[0] = 0xff;
  buf.set(hexToBytes(deployer), 1);
  buf.set(hexToBytes(salt), 21);
  buf.set(keccak_256(hexToBytes(initCode)), 53);
  return "0x" + bytesToHex(keccak_256(buf).subarray(12));
}

const GWEI = 10n ** 9n;
const ETHER = 10n ** 18n;
// Far above anvil's base fee (1 gwei at genesis, moving ≤12.5% a block), so no transaction is ever left in the pool.
const MAX_FEE = toQuantity(100n * GWEI);
const PRIORITY_FEE = toQuantity(GWEI);
// Generous but explicit gas limits: estimation would make the requests depend on chain state and timing.
const GAS: Record<TxKind, number> = {
  deploy: 5_000_000,
  native: 21_000,
  erc20: 100_000,
  legacy20: 100_000,
  nftMint: 150_000,
  nftTransfer: 150_000,
  multiMint: 150_000,
  multiSingle: 150_000,
  multiBatch: 250_000,
  fanout: 300_000,
  create2: 1_000_000,
  create: 1_000_000,
  ping: 100_000,
  tryInner: 150_000,
  boom: 100_000,
};
const DEV_SUPPLY = 1_000_000n * ETHER;
const LEGACY_SUPPLY = 1_000_000n * GWEI; // 9 decimals
const MULTI_IDS = [1n, 2n, 3n, 4n, 5n];
// Every later tick's first transaction cycles through these, so each shape shows up at least every 12 ticks;
// the rest of the tick is drawn at random from the same list (weighted towards plain transfers).
const ROTATION: readonly TxKind[] = [
  "fanout",
  "nftMint",
  "create2",
  "erc20",
  "multiSingle",
  "create",
  "legacy20",
  "multiBatch",
  "tryInner",
  "nftTransfer",
  "ping",
  "native",
];
const WEIGHTED: readonly TxKind[] = [
  ...ROTATION,
  "native",
  "native",
  "erc20",
  "erc20",
  "legacy20",
  "nftMint",
  "nftTransfer",
  "nftTransfer",
  "multiMint",
  "multiSingle",
];

export class DevEvmTraffic {
  private readonly accounts: string[];
  private readonly nonces = new Map<string, number>();
  private readonly rand: () => number;
  private nextTick = 0;
  private deployed: DevEvmAddresses | null = null;
  // Tracked token state, so every transfer is one the contract accepts (a surprise revert would shift nonces).
  private readonly erc20 = new Map<string, bigint>();
  private readonly legacy20 = new Map<string, bigint>();
  private readonly nftOwner = new Map<bigint, string>();
  private nextNftId = 1n;
  private readonly multi = new Map<string, bigint>(); // `${id}:${holder}` → balance
  private factoryNonce = 1; // a contract's nonce starts at 1 (EIP-161) and counts its CREATE and CREATE2
  private saltCounter = 0n;
  private last: {t: number; txs: EthTxRequest[]; kinds: TxKind[]} | null = null;

  constructor(opts: {accounts: string[]; seed?: number}) {
    if (opts.accounts.length < 3) throw new Error("DevEvmTraffic needs at least 3 accounts");
    this.accounts = opts.accounts.map((a) => a.toLowerCase());
    this.rand = prng(opts.seed ?? 43112);
  }

  /** The dev contracts' addresses once tick 2 (the last deployment tick) has been generated; null before. */
  addresses(): DevEvmAddresses | null {
    return this.deployed && this.nextTick > 2 ? {...this.deployed, children: [...this.deployed.children]} : null;
  }

  /** The last generated tick: its requests and what each does, in order (runTick returns only the block hash). */
  lastTick(): {t: number; txs: readonly EthTxRequest[]; kinds: readonly TxKind[]} | null {
    return this.last;
  }

  /** The transactions of tick `t`; ticks must be generated in order, each exactly once. */
  txsForTick(t: number): EthTxRequest[] {
    if (t !== this.nextTick) throw new Error(`DevEvmTraffic: tick ${t} asked for, expected ${this.nextTick}`);
    this.nextTick++;
    const out: EthTxRequest[] = [];
    const kinds: TxKind[] = [];
    const push = (kind: TxKind, from: string, fields: {to?: string; data?: string; value?: bigint}): void => {
      kinds.push(kind);
      out.push(this.tx(kind, from, fields));
    };
    if (t <= 2) {
      this.deployTick(t, push);
    } else {
      const n = 3 + Math.floor(this.rand() * 6); // 3..8
      for (let i = 0; i < n; i++) {
        // Every 10th tick one transaction reverts (mined with status 0: its gas is explicit, so nothing estimates it).
        if (i === n - 1 && t % 10 === 9) {
          push("boom", this.pick(), {to: this.deployed!.devFactory, data: encodeCall("boom()", [], [])});
          continue;
        }
        const kind =
          i === 0 ? ROTATION[(t - 3) % ROTATION.length]! : WEIGHTED[Math.floor(this.rand() * WEIGHTED.length)]!;
        this.emit(kind, push);
      }
    }
    this.last = {t, txs: out, kinds};
    return out;
  }

  private deployTick(t: number, push: (k: TxKind, from: string, f: {data?: string; to?: string}) => void): void {
    const deployer = this.accounts[0]!;
    const create = (bytecode: string, args: string): string => {
      const address = contractAddress(deployer, this.nonce(deployer));
      push("deploy", deployer, {data: bytecode + args});
      return address;
    };
    if (t === 0) {
      const devToken = create(
        DevToken.bytecode,
        bytesToHex(encodeAbi(["string", "string", "uint256"], ["Dev Token", "DEV", DEV_SUPPLY])),
      );
      const legacyToken = create(LegacyToken.bytecode, bytesToHex(encodeAbi(["uint256"], [LEGACY_SUPPLY])));
      this.deployed = {devToken, legacyToken, devNft: "", devMulti: "", devFactory: "", children: []};
      this.erc20.set(deployer, DEV_SUPPLY);
      this.legacy20.set(deployer, LEGACY_SUPPLY);
    } else if (t === 1) {
      this.deployed!.devNft = create(DevNFT.bytecode, "");
      this.deployed!.devMulti = create(DevMulti.bytecode, "");
    } else {
      this.deployed!.devFactory = create(DevFactory.bytecode, "");
    }
  }

  /** Appends one transaction of `kind`, or a fallback when the tracked state does not allow it yet. */
  private emit(
    kind: TxKind,
    push: (k: TxKind, from: string, f: {to?: string; data?: string; value?: bigint}) => void,
  ): void {
    const d = this.deployed!;
    switch (kind) {
      case "native": {
        const from = this.pick();
        push(kind, from, {to: this.pick(from), value: BigInt(1 + Math.floor(this.rand() * 1000)) * 10n ** 15n});
        return;
      }
      case "erc20":
      case "legacy20": {
        const book = kind === "erc20" ? this.erc20 : this.legacy20;
        const holders = [...book].filter(([, b]) => b > 0n).map(([a]) => a);
        const from = holders[Math.floor(this.rand() * holders.length)]!;
        const to = this.pick(from);
        // Up to a quarter of the sender's balance, so tokens spread out over the accounts.
        const value = book.get(from)! / BigInt(4 + Math.floor(this.rand() * 20));
        book.set(from, book.get(from)! - value);
        book.set(to, (book.get(to) ?? 0n) + value);
        push(kind, from, {
          to: kind === "erc20" ? d.devToken : d.legacyToken,
          data: encodeCall("transfer(address,uint256)", ["address", "uint256"], [to, value]),
        });
        return;
      }
      case "nftMint": {
        const to = this.pick();
        this.nftOwner.set(this.nextNftId++, to);
        push(kind, this.pick(), {to: d.devNft, data: encodeCall("mint(address)", ["address"], [to])});
        return;
      }
      case "nftTransfer": {
        if (this.nftOwner.size === 0) return this.emit("nftMint", push);
        const ids = [...this.nftOwner.keys()];
        const id = ids[Math.floor(this.rand() * ids.length)]!;
        const from = this.nftOwner.get(id)!;
        const to = this.pick(from);
        this.nftOwner.set(id, to);
        // Both entry points, so the indexer sees Transfer from either.
        const data =
          this.rand() < 0.5
            ? encodeCall("transferFrom(address,address,uint256)", ["address", "address", "uint256"], [from, to, id])
            : encodeCall(
                "safeTransferFrom(address,address,uint256)",
                ["address", "address", "uint256"],
                [from, to, id],
              );
        push(kind, from, {to: d.devNft, data});
        return;
      }
      case "multiMint": {
        const to = this.pick();
        const id = MULTI_IDS[Math.floor(this.rand() * MULTI_IDS.length)]!;
        const value = BigInt(10 + Math.floor(this.rand() * 90));
        this.addMulti(id, to, value);
        push(kind, this.pick(), {
          to: d.devMulti,
          data: encodeCall("mint(address,uint256,uint256)", ["address", "uint256", "uint256"], [to, id, value]),
        });
        return;
      }
      case "multiSingle": {
        const held = [...this.multi].filter(([, b]) => b > 0n).map(([k]) => k);
        if (held.length === 0) return this.emit("multiMint", push);
        const [idText, from] = held[Math.floor(this.rand() * held.length)]!.split(":") as [string, string];
        const id = BigInt(idText);
        const to = this.pick(from);
        const value = 1n + BigInt(Math.floor(this.rand() * Number(this.multi.get(`${id}:${from}`)!)));
        this.addMulti(id, from, -value);
        this.addMulti(id, to, value);
        push(kind, from, {
          to: d.devMulti,
          data: encodeCall(
            "safeTransferFrom(address,address,uint256,uint256,bytes)",
            ["address", "address", "uint256", "uint256", "bytes"],
            [from, to, id, value, new Uint8Array()],
          ),
        });
        return;
      }
      case "multiBatch": {
        // A holder of at least two ids; until there is one, mint towards it.
        const from = this.accounts.find(
          (a) => MULTI_IDS.filter((id) => (this.multi.get(`${id}:${a}`) ?? 0n) > 0n).length >= 2,
        );
        if (!from) return this.emit("multiMint", push);
        const ids = MULTI_IDS.filter((id) => (this.multi.get(`${id}:${from}`) ?? 0n) > 0n);
        const values = ids.map((id) => (this.multi.get(`${id}:${from}`)! + 1n) / 2n);
        const to = this.pick(from);
        ids.forEach((id, i) => {
          this.addMulti(id, from, -values[i]!);
          this.addMulti(id, to, values[i]!);
        });
        push(kind, from, {
          to: d.devMulti,
          data: encodeCall(
            "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
            ["address", "address", "uint256[]", "uint256[]", "bytes"],
            [from, to, ids, values, new Uint8Array()],
          ),
        });
        return;
      }
      case "fanout": {
        const from = this.pick();
        const count = 2 + Math.floor(this.rand() * 3);
        const to = Array.from({length: count}, () => this.pick(from));
        push(kind, from, {
          to: d.devFactory,
          value: BigInt(count) * 10n ** 16n,
          data: encodeCall("fanout(address[])", ["address[]"], [to]),
        });
        return;
      }
      case "create2": {
        const salt = "0x" + (++this.saltCounter).toString(16).padStart(64, "0");
        const child = create2Address(d.devFactory, salt, DevChild.bytecode);
        this.factoryNonce++;
        d.children.push({child, grandchild: contractAddress(child, 1), create2: true});
        push(kind, this.pick(), {to: d.devFactory, data: encodeCall("deploy(bytes32)", ["bytes32"], [salt])});
        return;
      }
      case "create": {
        const child = contractAddress(d.devFactory, this.factoryNonce++);
        d.children.push({child, grandchild: contractAddress(child, 1), create2: false});
        push(kind, this.pick(), {to: d.devFactory, data: encodeCall("deployCreate()", [], [])});
        return;
      }
      case "ping": {
        if (d.children.length === 0) return this.emit("create", push);
        const {child} = d.children[Math.floor(this.rand() * d.children.length)]!;
        push(kind, this.pick(), {to: child, value: 10n ** 15n, data: encodeCall("ping()", [], [])});
        return;
      }
      case "tryInner":
        push(kind, this.pick(), {to: d.devFactory, data: encodeCall("tryInner()", [], [])});
        return;
      case "deploy":
      case "boom":
        throw new Error(`DevEvmTraffic: ${kind} is not drawn at random`);
    }
  }

  private addMulti(id: bigint, holder: string, delta: bigint): void {
    const k = `${id}:${holder}`;
    this.multi.set(k, (this.multi.get(k) ?? 0n) + delta);
  }

  /** A random account, other than `not` when given. */
  private pick(not?: string): string {
    const pool = not === undefined ? this.accounts : this.accounts.filter((a) => a !== not);
    return pool[Math.floor(this.rand() * pool.length)]!;
  }

  private nonce(from: string): number {
    return this.nonces.get(from) ?? 0;
  }

  private tx(kind: TxKind, from: string, f: {to?: string; data?: string; value?: bigint}): EthTxRequest {
    const nonce = this.nonce(from);
    this.nonces.set(from, nonce + 1);
    return {
      from,
      ...(f.to !== undefined ? {to: f.to} : {}),
      ...(f.data !== undefined ? {data: f.data} : {}),
      ...(f.value !== undefined ? {value: toQuantity(f.value)} : {}),
      nonce: toQuantity(nonce),
      gas: toQuantity(GAS[kind]),
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: PRIORITY_FEE,
    };
  }
}

/** Anything that speaks JSON-RPC like Anvil.rawCall. */
export interface RawRpc {
  rawCall(method: string, params: unknown[]): Promise<unknown>;
}

/**
 * Sends tick `t`'s transactions (in order, one call each: a failed submission names its transaction), mines one
 * block at `timestamp` (Unix seconds) with `evm_mine`, and returns that block's hash.
 */
export async function runTick(anvil: RawRpc, traffic: DevEvmTraffic, t: number, timestamp: number): Promise<string> {
  for (const tx of traffic.txsForTick(t)) {
    await anvil.rawCall("eth_sendTransaction", [tx]).catch((e: Error) => {
      throw new Error(`tick ${t}: eth_sendTransaction from ${tx.from} nonce ${tx.nonce}: ${e.message}`);
    });
  }
  await anvil.rawCall("evm_mine", [{timestamp}]);
  const block = (await anvil.rawCall("eth_getBlockByNumber", ["latest", false])) as {hash: string} | null;
  if (!block) throw new Error(`tick ${t}: no latest block after evm_mine`);
  return block.hash;
}
