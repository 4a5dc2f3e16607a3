/**
 * Shared pieces of the X- and P-chain transaction codecs (avalanchego vms/components/avax, secp256k1fx, nftfx,
 * propertyfx, platformvm stakeable). Only enough is read to walk every field and know where a transaction ends;
 * type IDs are the linear codec's registration order, which both chains share for the secp256k1 fx (5-11).
 */
import {DecodeError, type Reader} from "./reader.js";

const SHORT_ID = 20;
const SIG = 65;

function outputOwners(r: Reader): void {
  r.u64(); // locktime
  r.u32(); // threshold
  r.skipList(SHORT_ID);
}

/** An output by type ID (TransferableOutput.Out, and fx outputs inside operations and initial states). */
export function output(r: Reader, typeId: number): bigint {
  switch (typeId) {
    case 7: {
      // secp256k1fx.TransferOutput
      const amount = r.u64();
      outputOwners(r);
      return amount;
    }
    case 6: // secp256k1fx.MintOutput
    case 11: // secp256k1fx.OutputOwners (P) / nftfx.TransferOutput handled by the avm variant below
      outputOwners(r);
      return 0n;
    case 22: {
      // platformvm stakeable.LockOut
      r.u64();
      return output(r, r.u32());
    }
    default:
      throw new DecodeError(`unknown output type ${typeId}`);
  }
}

/** X-chain outputs: the nft and property fx register 10-19. */
export function avmOutput(r: Reader, typeId: number): void {
  switch (typeId) {
    case 10: // nftfx.MintOutput
      r.u32();
      outputOwners(r);
      return;
    case 11: // nftfx.TransferOutput
      r.u32();
      r.bytesU32();
      outputOwners(r);
      return;
    case 15: // propertyfx.MintOutput
    case 16: // propertyfx.OwnedOutput
      outputOwners(r);
      return;
    default:
      output(r, typeId);
  }
}

export function input(r: Reader, typeId: number): void {
  switch (typeId) {
    case 5: // secp256k1fx.TransferInput
      r.u64();
      r.skipList(4);
      return;
    case 10: // secp256k1fx.Input (P-chain subnet auth)
      r.skipList(4);
      return;
    case 21: // platformvm stakeable.LockIn
      r.u64();
      input(r, r.u32());
      return;
    default:
      throw new DecodeError(`unknown input type ${typeId}`);
  }
}

export function credential(r: Reader, typeId: number): void {
  if (typeId !== 9 && typeId !== 14 && typeId !== 19) throw new DecodeError(`unknown credential type ${typeId}`);
  r.skipList(SIG);
}

export function transferableOutputs(r: Reader, avm: boolean): void {
  r.list((r) => {
    r.fixed(32); // asset
    const t = r.u32();
    if (avm) avmOutput(r, t);
    else output(r, t);
  });
}

export function transferableInputs(r: Reader): void {
  r.list((r) => {
    r.fixed(32); // tx ID
    r.u32(); // output index
    r.fixed(32); // asset
    input(r, r.u32());
  });
}

/** avax.BaseTx: network ID, blockchain ID, outputs, inputs, memo. */
export function baseTx(r: Reader, avm: boolean): {networkId: number; blockchainId: Uint8Array} {
  const networkId = r.u32();
  const blockchainId = r.fixed(32);
  transferableOutputs(r, avm);
  transferableInputs(r);
  r.bytesU32(); // memo
  return {networkId, blockchainId};
}

export function credentials(r: Reader): void {
  r.list((r) => credential(r, r.u32()));
}
