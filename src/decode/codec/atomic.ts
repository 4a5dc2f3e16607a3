/**
 * The C-chain's atomic txs (coreth plugin/evm/atomic/codec.go): ImportTx 0, ExportTx 1, then secp256k1fx from 5
 * (TransferInput 5, TransferOutput 7, Credential 9 are the ones an atomic tx holds). A block's extData is one signed
 * tx before Apricot Phase 5 and a batch (codec version ‖ count ‖ txs) after.
 */
import {array, entry, spanned, struct, u32, u64, union, versioned, type ValueOf} from "./codec.js";
import * as fx from "./fx.js";

const {id, shortId} = fx;

export const cOutput = union("C-chain output type", {7: entry("TransferOutput", fx.transferOutput)});
export const cInput = union("C-chain input type", {5: entry("TransferInput", fx.transferInput)});
export const cCredential = union("C-chain credential type", {9: entry("Credential", fx.credential)});
export const evmOutput = struct({address: shortId, amount: u64, assetId: id});
export const evmInput = struct({address: shortId, amount: u64, assetId: id, nonce: u64});

export const ATOMIC_TXS = {
  0: entry(
    "ImportTx",
    struct({
      networkId: u32,
      blockchainId: id,
      sourceChain: id,
      importedInputs: array(fx.transferableInput(cInput)),
      outs: array(evmOutput),
    }),
  ),
  1: entry(
    "ExportTx",
    struct({
      networkId: u32,
      blockchainId: id,
      destinationChain: id,
      ins: array(evmInput),
      exportedOutputs: array(fx.transferableOutput(cOutput)),
    }),
  ),
};

export const cUnsignedTx = union("atomic tx type", ATOMIC_TXS);
export type CUnsignedTx = ValueOf<typeof cUnsignedTx>;
export const cSignedTx = struct({unsigned: spanned(cUnsignedTx), credentials: array(cCredential)});
export type CSignedTx = ValueOf<typeof cSignedTx>;
/** Apricot Phase 5's extData: codec version ‖ count ‖ signed txs (each without a version of its own). */
export const atomicBatch = versioned("atomic tx batch", array(spanned(cSignedTx)));
