/**
 * The pieces the P, X and C transaction codecs share: vms/secp256k1fx, vms/nftfx, vms/propertyfx and
 * vms/components/avax (TransferableOutput, TransferableInput, BaseTx). Where a Go field is an interface (an output, an
 * input), each chain's codec says which registered types it takes there: the `out` and `in` unions passed in.
 */
import {array, bytes, type Codec, fixed, spanned, struct, u32, u64} from "./codec.js";

export const id = fixed(32);
export const shortId = fixed(20);
/** A recoverable secp256k1 signature: r ‖ s ‖ v. */
export const signature = fixed(65);

// secp256k1fx (output_owners.go, transfer_output.go, transfer_input.go, input.go, credential.go, mint_operation.go).
export const outputOwners = struct({locktime: u64, threshold: u32, addresses: array(shortId)});
/** `Amt ‖ OutputOwners` (embedded). */
export const transferOutput = struct({amount: u64, owners: outputOwners});
export const input = struct({sigIndices: array(u32)});
/** `Amt ‖ Input` (embedded). */
export const transferInput = struct({amount: u64, sigIndices: array(u32)});
export const credential = struct({signatures: array(signature)});
export const secpMintOperation = struct({input, mintOutput: outputOwners, transferOutput});

// nftfx (mint_output.go, transfer_output.go, mint_operation.go, transfer_operation.go).
export const nftMintOutput = struct({groupId: u32, owners: outputOwners});
export const nftTransferOutput = struct({groupId: u32, payload: bytes, owners: outputOwners});
export const nftMintOperation = struct({input, groupId: u32, payload: bytes, outputs: array(outputOwners)});
export const nftTransferOperation = struct({input, output: nftTransferOutput});

// propertyfx (mint_operation.go, burn_operation.go; its outputs are OutputOwners).
export const propertyMintOperation = struct({input, mintOutput: outputOwners, ownedOutput: outputOwners});
export const propertyBurnOperation = struct({input});

/** avax.TransferableOutput: asset ‖ typed output, kept with its bytes (`typeID ‖ output`, a UTXO's `Out`). */
export function transferableOutput<O>(out: Codec<O>) {
  return struct({assetId: id, out: spanned(out)});
}

/** avax.TransferableInput: UTXO ID (tx ID ‖ output index) ‖ asset ‖ typed input. */
export function transferableInput<I>(input: Codec<I>) {
  return struct({txId: id, outputIndex: u32, assetId: id, in: input});
}

/** avax.BaseTx: network ID, blockchain ID, outputs, inputs, memo. */
export function baseTx<O, I>(out: Codec<O>, input: Codec<I>) {
  return struct({
    networkId: u32,
    blockchainId: id,
    outs: array(transferableOutput(out)),
    ins: array(transferableInput(input)),
    memo: bytes,
  });
}
