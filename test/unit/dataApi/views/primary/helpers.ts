/**
 * Test helpers for the primary decoder: a known secp256k1 key and BLS key, avalanchejs constructors for the
 * pieces every transaction shares, signing, and the framing of P/X/C blocks around signed transactions.
 */
import {
  Address,
  avaxSerial,
  BigIntPr,
  Bytes,
  Credential,
  Id,
  Input,
  Int,
  OutputOwners,
  Signature,
  TransferableInput,
  TransferableOutput,
  TransferInput,
  TransferOutput,
  utils,
} from "@avalabs/avalanchejs";
import {bls12_381} from "@noble/curves/bls12-381.js";
import {secp256k1} from "@noble/curves/secp256k1.js";
import {ripemd160} from "@noble/hashes/legacy.js";
import {sha256} from "@noble/hashes/sha2.js";
import {AVM_STANDARD_BLOCK} from "../../../../../src/decode/avm.js";
import {buildProposerBlock} from "../../../../../src/decode/proposervm.js";
import {Writer} from "../../../../../src/decode/reader.js";
import {cb58Encode} from "../../../../../src/util/cb58.js";

export const NETWORK_ID = 5;
export const PRIVATE_KEY = Buffer.from("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027", "hex");
export const PUBLIC_KEY = secp256k1.getPublicKey(PRIVATE_KEY, true);
export const ADDRESS = ripemd160(sha256(PUBLIC_KEY));
export const OTHER_ADDRESS = ripemd160(sha256(new TextEncoder().encode("other")));

export function seeded(label: string): Uint8Array {
  return sha256(new TextEncoder().encode(label));
}

export const P_CHAIN = new Uint8Array(32);
export const X_CHAIN = seeded("x-chain");
export const C_CHAIN = seeded("c-chain");
export const AVAX = seeded("avax");

/** A BLS key with its compressed public key and proof of possession (AvalancheGo's PoP domain). */
export function blsKey(seed: number): {publicKey: Uint8Array; pop: Uint8Array; sign: (msg: Uint8Array) => Uint8Array} {
  const ls = bls12_381.longSignatures;
  const sk = new Uint8Array(32).fill(seed);
  const publicKey = ls.getPublicKey(sk).toBytes(true);
  const pop = ls.sign(ls.hash(publicKey, "BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"), sk).toBytes(true);
  const sign = (msg: Uint8Array): Uint8Array =>
    ls.sign(ls.hash(msg, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"), sk).toBytes(true);
  return {publicKey, pop, sign};
}

export function owners(addresses: Uint8Array[], locktime = 0n, threshold = 1): OutputOwners {
  return new OutputOwners(
    new BigIntPr(locktime),
    new Int(threshold),
    addresses.map((a) => new Address(a)),
  );
}

export function transferOut(
  asset: Uint8Array,
  amount: bigint,
  addresses: Uint8Array[] = [ADDRESS],
  locktime = 0n,
): TransferableOutput {
  return new TransferableOutput(new Id(asset), new TransferOutput(new BigIntPr(amount), owners(addresses, locktime)));
}

export function transferIn(
  txId: Uint8Array,
  index: number,
  asset: Uint8Array,
  amount: bigint,
  sigIndices: number[] = [0],
): TransferableInput {
  return new TransferableInput(
    new avaxSerial.UTXOID(new Id(txId), new Int(index)),
    new Id(asset),
    new TransferInput(new BigIntPr(amount), new Input(sigIndices.map((i) => new Int(i)))),
  );
}

export function avaxBase(
  chain: Uint8Array,
  outs: TransferableOutput[],
  ins: TransferableInput[],
  memo = "memo",
): avaxSerial.BaseTx {
  return new avaxSerial.BaseTx(
    new Int(NETWORK_ID),
    new Id(chain),
    outs,
    ins,
    new Bytes(new TextEncoder().encode(memo)),
  );
}

export function subnetAuth(indices: number[] = [0]): Input {
  return new Input(indices.map((i) => new Int(i)));
}

/** A 65-byte [r ‖ s ‖ v] secp256k1 signature of sha256(bytes) with the known key. */
export function signBytes(bytes: Uint8Array): Uint8Array {
  const rec = secp256k1.sign(sha256(bytes), PRIVATE_KEY, {prehash: false, format: "recovered"});
  const out = new Uint8Array(65);
  out.set(rec.subarray(1), 0);
  out[64] = rec[0]!;
  return out;
}

export interface SignedFixture {
  signed: Uint8Array;
  unsigned: Uint8Array;
  signature: Uint8Array;
  txId: Uint8Array;
  txIdString: string;
}

type AvaCodec = ReturnType<ReturnType<typeof utils.getManagerForVM>["getDefaultCodec"]>;
export type AvaSerializable = Parameters<AvaCodec["PackPrefix"]>[0];

/**
 * Signs an avalanchejs transaction with `credentials` credentials of one signature each: codec v0 ‖ typed tx ‖
 * typed credentials, as AvalancheGo's Tx.Sign lays them out.
 */
export function sign(
  tx: AvaSerializable,
  credentials: number,
  vm: "PVM" | "AVM" | "EVM" = (tx as {vm?: "PVM" | "AVM" | "EVM"}).vm ?? "AVM",
): SignedFixture {
  const codec = utils.getManagerForVM(vm).getDefaultCodec();
  const unsigned = new Uint8Array([0, 0, ...codec.PackPrefix(tx)]);
  const signature = signBytes(unsigned);
  const creds = Array.from({length: credentials}, () => new Credential([new Signature(signature)]));
  const signed = new Uint8Array([...unsigned, ...codec.PackPrefixList(creds)]);
  const txId = sha256(signed);
  return {signed, unsigned, signature, txId, txIdString: cb58Encode(txId)};
}

/** sha256(u64be(index) ‖ txID), computed here independently of the decoder. */
export function expectedUtxoId(txId: Uint8Array, index: number): string {
  const b = new Uint8Array(40);
  new DataView(b.buffer).setBigUint64(0, BigInt(index));
  b.set(txId, 8);
  return cb58Encode(sha256(b));
}

/** Inline bytes of a signed tx (without its codec version), as blocks carry them. */
export function inline(signed: Uint8Array): Uint8Array {
  return signed.subarray(2);
}

export const PARENT = seeded("parent");
export const BLOCK_TIME = 1_700_000_000;

/** A Banff standard block (type 32) of `txs`. */
export function banffStandard(txs: Uint8Array[], height = 10n): Uint8Array {
  const w = new Writer().u16(0).u32(32).u64(BigInt(BLOCK_TIME)).fixed(PARENT).u64(height).u32(txs.length);
  for (const t of txs) w.fixed(inline(t));
  return w.finish();
}

/** A Banff proposal block (type 29): time ‖ decision txs ‖ parent ‖ height ‖ the proposal tx (AvalancheGo's field order). */
export function banffProposal(tx: Uint8Array, decisionTxs: Uint8Array[] = []): Uint8Array {
  const w = new Writer().u16(0).u32(29).u64(BigInt(BLOCK_TIME)).u32(decisionTxs.length);
  for (const t of decisionTxs) w.fixed(inline(t));
  return w.fixed(PARENT).u64(11n).fixed(inline(tx)).finish();
}

/** Apricot blocks carrying one tx: proposal (0) or atomic (4). */
export function apricotOneTx(typeId: 0 | 4, tx: Uint8Array): Uint8Array {
  return new Writer().u16(0).u32(typeId).fixed(PARENT).u64(12n).fixed(inline(tx)).finish();
}

/** Apricot standard (3) of txs. */
export function apricotStandard(txs: Uint8Array[]): Uint8Array {
  const w = new Writer().u16(0).u32(3).fixed(PARENT).u64(13n).u32(txs.length);
  for (const t of txs) w.fixed(inline(t));
  return w.finish();
}

/** Commit/abort blocks: Apricot 1 (abort), 2 (commit); Banff 30 (abort), 31 (commit). */
export function decisionBlock(typeId: 1 | 2 | 30 | 31): Uint8Array {
  const w = new Writer().u16(0).u32(typeId);
  if (typeId >= 30) w.u64(BigInt(BLOCK_TIME));
  return w.fixed(PARENT).u64(14n).finish();
}

/** An avm standard block (type 20) of txs. */
export function avmBlock(txs: Uint8Array[]): Uint8Array {
  const w = new Writer()
    .u16(0)
    .u32(AVM_STANDARD_BLOCK)
    .fixed(PARENT)
    .u64(20n)
    .u64(BigInt(BLOCK_TIME))
    .fixed(seeded("root"))
    .u32(txs.length);
  for (const t of txs) w.fixed(inline(t));
  return w.finish();
}

/** A vertex (codec v0) with parents and txs. */
export function vertex(parents: Uint8Array[], txs: Uint8Array[]): Uint8Array {
  const w = new Writer().u16(0).fixed(X_CHAIN).u64(30n).u32(0).u32(parents.length);
  for (const p of parents) w.fixed(p);
  w.u32(txs.length);
  for (const t of txs) w.bytesU32(t);
  return w.finish();
}

export const WRAPPER_PARENT = seeded("wrapper-parent");
export const WRAPPER_TIME = 1_700_000_100;

/** An unsigned proposervm block around `inner`. */
export function wrap(inner: Uint8Array): Uint8Array {
  return buildProposerBlock(WRAPPER_PARENT, WRAPPER_TIME, 77n, inner);
}

/** A signed proposervm block: a certificate and a signature, as a staking node builds it. */
export function wrapSigned(inner: Uint8Array, certificate: Uint8Array): Uint8Array {
  return new Writer()
    .u16(0)
    .u32(0)
    .fixed(WRAPPER_PARENT)
    .u64(BigInt(WRAPPER_TIME))
    .u64(78n)
    .bytesU32(certificate)
    .bytesU32(inner)
    .bytesU32(seeded("sig"))
    .finish();
}

/** A Granite proposervm block (type 2): the signed form with the P-chain epoch before the signature. */
export function wrapGranite(inner: Uint8Array, certificate: Uint8Array): Uint8Array {
  return new Writer()
    .u16(0)
    .u32(2)
    .fixed(WRAPPER_PARENT)
    .u64(BigInt(WRAPPER_TIME))
    .u64(79n)
    .bytesU32(certificate)
    .bytesU32(inner)
    .u64(70n)
    .u64(3n)
    .u64(BigInt(WRAPPER_TIME - 50))
    .bytesU32(seeded("sig"))
    .finish();
}

/** A proposervm option block (type 1) around `inner`. */
export function wrapOption(inner: Uint8Array): Uint8Array {
  return new Writer().u16(0).u32(1).fixed(WRAPPER_PARENT).bytesU32(inner).finish();
}
