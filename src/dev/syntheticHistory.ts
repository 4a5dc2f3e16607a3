/**
 * A realistic X-chain history for benchmarks and tests of the data API: post-Cortina avm standard blocks inside
 * proposervm wrappers, of signed BaseTxs with 2 inputs and 2 outputs each. Keys, addresses and signatures are real
 * (libsecp256k1), so nothing compresses and every credential recovers to its owner's key. Each transaction spends
 * two UTXOs of two different owners picked at random from the unspent set (random access into the store); the
 * first ones spend UTXOs of a synthetic genesis that the history does not contain.
 */
import {createHash, randomBytes} from "node:crypto";
import {createRequire} from "node:module";
import {AVM_STANDARD_BLOCK} from "../decode/avm.js";
import {buildProposerBlock} from "../decode/proposervm.js";
import {Writer} from "../decode/reader.js";
import {sha256} from "../util/sha256.js";

interface Secp {
  privateKeyVerify(sk: Uint8Array): boolean;
  publicKeyCreate(sk: Uint8Array, compressed?: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, sk: Uint8Array): {signature: Uint8Array; recid: number};
}
const secp = createRequire(import.meta.url)("secp256k1") as Secp;

const ripemd = (b: Uint8Array): Buffer => createHash("ripemd160").update(b).digest();

export interface HistoryKey {
  sk: Uint8Array;
  publicKey: Uint8Array;
  /** 20-byte short ID. */
  address: Uint8Array;
}

export function makeKeys(n: number, seed?: string): HistoryKey[] {
  const keys: HistoryKey[] = [];
  for (let i = 0; keys.length < n; i++) {
    const sk = seed === undefined ? randomBytes(32) : sha256(Buffer.from(`${seed}/${i}`));
    if (!secp.privateKeyVerify(sk)) continue;
    const publicKey = secp.publicKeyCreate(sk, true);
    keys.push({sk, publicKey, address: ripemd(sha256(publicKey))});
  }
  return keys;
}

export interface HistoryOptions {
  txs: number;
  txsPerBlock?: number;
  keys: HistoryKey[];
  networkId: number;
  chainId: Uint8Array;
  assetId: Uint8Array;
  startSeconds: number;
  /** Height of the block before the first (default 0). */
  startHeight?: bigint;
  /** Deterministic choices (tests); default Math.random. */
  random?: () => number;
}

export interface HistoryBlock {
  bytes: Uint8Array;
  /** The proposervm wrapper's ID (the index ID). */
  id: Uint8Array;
  innerId: Uint8Array;
  timestampNs: bigint;
  txIds: Uint8Array[];
}

/** Yields X/block containers of `txsPerBlock` transactions each, until `txs` transactions. */
export function* xHistory(o: HistoryOptions): Generator<HistoryBlock> {
  const random = o.random ?? Math.random;
  const perBlock = o.txsPerBlock ?? 20;
  // The unspent set: [txId, index, amount, key]; two genesis UTXOs per key.
  const utxos: Array<[Uint8Array, number, bigint, number]> = [];
  for (let k = 0; k < o.keys.length; k++)
    for (let j = 0; j < 2; j++) utxos.push([sha256(Buffer.from(`genesis/${k}/${j}`)), j, 1_000_000_000_000n, k]);
  let made = 0;
  let height = o.startHeight ?? 0n;
  const firstHeight = height;
  let parent: Uint8Array = new Uint8Array(32);
  let wrapperParent: Uint8Array = new Uint8Array(32);
  while (made < o.txs) {
    const n = Math.min(perBlock, o.txs - made);
    const ts = BigInt(o.startSeconds) + (height - firstHeight) * 2n;
    const body = new Writer()
      .u16(0)
      .u32(AVM_STANDARD_BLOCK)
      .fixed(parent)
      .u64(height + 1n)
      .u64(ts)
      .fixed(sha256(Buffer.from(`root/${height}`)))
      .u32(n);
    const created: typeof utxos = [];
    const txIds: Uint8Array[] = [];
    for (let i = 0; i < n; i++) {
      const ins: typeof utxos = [];
      while (ins.length < 2) {
        const at = Math.floor(random() * utxos.length);
        const u = utxos[at]!;
        if (ins.length === 1 && ins[0]![3] === u[3]) continue; // two different owners
        utxos[at] = utxos[utxos.length - 1]!;
        utxos.pop();
        ins.push(u);
      }
      ins.sort((a, b) => Buffer.compare(a[0], b[0]) || a[1] - b[1]);
      const total = ins[0]![2] + ins[1]![2];
      const fee = 1_000_000n;
      const first = (total - fee) / 3n;
      const outs: Array<[bigint, number]> = [
        [first, Math.floor(random() * o.keys.length)],
        [total - fee - first, Math.floor(random() * o.keys.length)],
      ];
      const unsigned = new Writer().u16(0).u32(0).u32(o.networkId).fixed(o.chainId).u32(2);
      for (const [amount, k] of outs)
        unsigned.fixed(o.assetId).u32(7).u64(amount).u64(0n).u32(1).u32(1).fixed(o.keys[k]!.address);
      unsigned.u32(2);
      for (const u of ins) unsigned.fixed(u[0]).u32(u[1]).fixed(o.assetId).u32(5).u64(u[2]).u32(1).u32(0);
      unsigned.u32(0); // memo
      const ub = unsigned.finish();
      const digest = sha256(ub);
      const signed = new Writer().fixed(ub.subarray(2)).u32(2);
      for (const u of ins) {
        const {signature, recid} = secp.ecdsaSign(digest, o.keys[u[3]]!.sk);
        signed.u32(9).u32(1).fixed(signature).fixed(Uint8Array.of(recid));
      }
      const inline = signed.finish();
      const txId = sha256(Buffer.concat([Buffer.from([0, 0]), inline]));
      txIds.push(txId);
      body.fixed(inline);
      outs.forEach(([amount, k], index) => created.push([txId, index, amount, k]));
    }
    // Outputs are spendable from the next block on.
    utxos.push(...created);
    made += n;
    height++;
    const inner = body.finish();
    const bytes = buildProposerBlock(wrapperParent, Number(ts), height, inner);
    // An unsigned proposervm block's ID: sha256 of all but the trailing (empty) signature's u32 length.
    const id = sha256(bytes.subarray(0, bytes.length - 4));
    const innerId = sha256(inner);
    yield {bytes, id, innerId, timestampNs: ts * 1_000_000_000n, txIds};
    parent = innerId;
    wrapperParent = id;
  }
}
