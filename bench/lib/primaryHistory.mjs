// A realistic primary-network history for the data API benchmarks: X-chain blocks (post-Cortina avm standard
// blocks inside proposervm wrappers) of signed BaseTxs with 2 inputs and 2 outputs each. Keys, addresses and
// signatures are real (libsecp256k1), so nothing compresses and every credential recovers to its owner's key.
// Each transaction spends two UTXOs picked at random from the unspent set (random access into the store), from
// two different owners; the first transactions spend UTXOs of a synthetic genesis.
import {createHash, randomBytes} from "node:crypto";
import secp from "secp256k1";
import {Writer} from "../../dist/src/decode/reader.js";
import {buildProposerBlock} from "../../dist/src/decode/proposervm.js";
import {AVM_STANDARD_BLOCK} from "../../dist/src/decode/avm.js";

const sha = (b) => createHash("sha256").update(b).digest();
const ripemd = (b) => createHash("ripemd160").update(b).digest();

export function makeKeys(n) {
  const keys = [];
  for (let i = 0; i < n; i++) {
    let sk;
    do sk = randomBytes(32);
    while (!secp.privateKeyVerify(sk));
    const pk = secp.publicKeyCreate(sk, true);
    keys.push({sk, address: ripemd(sha(pk))});
  }
  return keys;
}

/**
 * Yields {bytes, id, timestampNs} X/block containers, `txsPerBlock` transactions each, until `txs` transactions.
 * `assetId` (32 bytes), `chainId` (32 bytes), `networkId`.
 */
export function* xHistory({txs, txsPerBlock = 20, keys, networkId, chainId, assetId, startSeconds}) {
  // The unspent set: [txId, index, amount, keyIndex]; seeded with 2 UTXOs per key from a genesis.
  const utxos = [];
  for (let k = 0; k < keys.length; k++) for (let j = 0; j < 2; j++) utxos.push([sha(Buffer.from(`genesis/${k}/${j}`)), j, 1_000_000_000_000n, k]);
  let made = 0;
  let height = 0n;
  let parent = Buffer.alloc(32);
  let wrapperParent = Buffer.alloc(32);
  while (made < txs) {
    const n = Math.min(txsPerBlock, txs - made);
    const ts = BigInt(startSeconds) + height * 2n;
    const body = new Writer().u16(0).u32(AVM_STANDARD_BLOCK).fixed(parent).u64(height + 1n).u64(ts).fixed(randomBytes(32)).u32(n);
    const created = [];
    for (let i = 0; i < n; i++) {
      const ins = [];
      while (ins.length < 2) {
        const at = Math.floor(Math.random() * utxos.length);
        const u = utxos[at];
        if (ins.length === 1 && ins[0][3] === u[3]) continue; // two different owners
        utxos[at] = utxos[utxos.length - 1];
        utxos.pop();
        ins.push(u);
      }
      ins.sort((a, b) => Buffer.compare(a[0], b[0]) || a[1] - b[1]);
      const total = ins[0][2] + ins[1][2];
      const fee = 1_000_000n;
      const a = (total - fee) / 3n;
      const outs = [
        [a, Math.floor(Math.random() * keys.length)],
        [total - fee - a, Math.floor(Math.random() * keys.length)],
      ];
      const unsigned = new Writer().u16(0).u32(0).u32(networkId).fixed(chainId).u32(2);
      for (const [amount, k] of outs) unsigned.fixed(assetId).u32(7).u64(amount).u64(0n).u32(1).u32(1).fixed(keys[k].address);
      unsigned.u32(2);
      for (const u of ins) unsigned.fixed(u[0]).u32(u[1]).fixed(assetId).u32(5).u64(u[2]).u32(1).u32(0);
      unsigned.u32(0); // memo
      const ub = unsigned.finish();
      const digest = sha(ub);
      const signed = new Writer().fixed(ub.subarray(2)).u32(2);
      for (const u of ins) {
        const {signature, recid} = secp.ecdsaSign(digest, keys[u[3]].sk);
        signed.u32(9).u32(1).fixed(signature).fixed(Uint8Array.of(recid));
      }
      const inline = signed.finish();
      const txId = sha(Buffer.concat([Buffer.from([0, 0]), inline]));
      body.fixed(inline);
      outs.forEach(([amount, k], index) => created.push([txId, index, amount, k]));
    }
    // Outputs become spendable from the next block on.
    utxos.push(...created);
    made += n;
    height++;
    const inner = body.finish();
    const innerId = sha(inner);
    const bytes = buildProposerBlock(wrapperParent, Number(ts), height, inner);
    const id = proposerId(bytes);
    parent = innerId;
    wrapperParent = id;
    yield {bytes, id, timestampNs: ts * 1_000_000_000n, txs: n};
  }
}

/** A proposervm block's ID: sha256 of the unsigned part (all but the trailing empty signature's u32 length). */
function proposerId(bytes) {
  return sha(bytes.subarray(0, bytes.length - 4));
}
