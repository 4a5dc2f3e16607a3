/**
 * The X-chain's codec (vms/avm/txs/codec.go, parser.go; vms/avm/block/parser.go): txs 0-4, then each fx's types in
 * registration order, secp256k1fx 5-9, nftfx 10-14, propertyfx 15-19, then the StandardBlock 20. And the DAG's
 * vertices before Cortina (snow/engine/avalanche/vertex/stateless_vertex.go).
 */
import {
  array,
  bytes,
  type Codec,
  entry,
  spanned,
  str,
  struct,
  u16,
  u32,
  u64,
  u8,
  union,
  type ValueOf,
} from "./codec.js";
import * as fx from "./fx.js";

const {id} = fx;

/** The outputs an X tx holds (transferable outputs, initial states) and operations create: every fx's states. */
export const xOutput = union("X-chain output type", {
  6: entry("secp256k1fx.MintOutput", fx.outputOwners),
  7: entry("secp256k1fx.TransferOutput", fx.transferOutput),
  10: entry("nftfx.MintOutput", fx.nftMintOutput),
  11: entry("nftfx.TransferOutput", fx.nftTransferOutput),
  15: entry("propertyfx.MintOutput", fx.outputOwners),
  16: entry("propertyfx.OwnedOutput", fx.outputOwners),
});
export const xInput = union("X-chain input type", {5: entry("secp256k1fx.TransferInput", fx.transferInput)});
export const xCredential = union("X-chain credential type", {
  9: entry("secp256k1fx.Credential", fx.credential),
  14: entry("nftfx.Credential", fx.credential),
  19: entry("propertyfx.Credential", fx.credential),
});
/** fxs.FxOperation; the outputs inside an operation are its fx's concrete types, untyped. */
export const fxOperation = union("avm operation type", {
  8: entry("secp256k1fx.MintOperation", fx.secpMintOperation),
  12: entry("nftfx.MintOperation", fx.nftMintOperation),
  13: entry("nftfx.TransferOperation", fx.nftTransferOperation),
  17: entry("propertyfx.MintOperation", fx.propertyMintOperation),
  18: entry("propertyfx.BurnOperation", fx.propertyBurnOperation),
});
/** txs.Operation: asset ‖ the UTXOs it consumes ‖ the fx operation. */
export const operation = struct({assetId: id, utxoIds: array(struct({txId: id, outputIndex: u32})), op: fxOperation});
/** txs.InitialState: fx index ‖ outputs (kept with their bytes, `typeID ‖ output`: they become UTXOs). */
export const initialState = struct({fxIndex: u32, outs: array(spanned(xOutput))});

export const xTransferableOutput = fx.transferableOutput(xOutput);
export const xTransferableInput = fx.transferableInput(xInput);
const base = fx.baseTx(xOutput, xInput);

export const X_TXS = {
  0: entry("BaseTx", struct({base})),
  1: entry("CreateAssetTx", struct({base, name: str, symbol: str, denomination: u8, states: array(initialState)})),
  2: entry("OperationTx", struct({base, ops: array(operation)})),
  3: entry("ImportTx", struct({base, sourceChain: id, importedInputs: array(xTransferableInput)})),
  4: entry("ExportTx", struct({base, destinationChain: id, exportedOutputs: array(xTransferableOutput)})),
};

export const xUnsignedTx = union("avm tx type", X_TXS);
export type XUnsignedTx = ValueOf<typeof xUnsignedTx>;
/** txs.Tx: the unsigned tx (kept with its bytes) ‖ credentials. */
export const xSignedTx = struct({unsigned: spanned(xUnsignedTx), credentials: array(xCredential)});
export type XSignedTx = ValueOf<typeof xSignedTx>;

/** block.StandardBlock (post-Cortina): parent, height, time, merkle root, txs (`xSignedTx` to read, `raw(…)` to frame). */
export function xBlock<T>(tx: Codec<T>) {
  return union("avm block type", {
    20: entry("StandardBlock", struct({parentId: id, height: u64, time: u64, root: id, txs: array(tx)})),
  });
}

/**
 * A vertex, by codec version: v0 is chain ID, height, epoch, parents, txs (each `u32 len ‖ signed tx`); v1 is the one
 * stop vertex of the linearisation (chain ID, height, parents; no epoch, no txs).
 */
export const vertex = union(
  "vertex codec version",
  {
    0: entry("Vertex", struct({chainId: id, height: u64, epoch: u32, parentIds: array(id), txs: array(bytes)})),
    1: entry("StopVertex", struct({chainId: id, height: u64, parentIds: array(id)})),
  },
  u16,
);
