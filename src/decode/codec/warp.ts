/**
 * Warp messages as the P-chain's Etna txs carry them (vms/platformvm/warp): Message = UnsignedMessage (network ‖ source
 * chain ‖ payload bytes) ‖ typed Signature; the payload an AddressedCall (vms/platformvm/warp/payload) whose payload is
 * a warp/message (vms/platformvm/warp/message). Each is its own codec, version 0.
 */
import {array, bool, bytes, entry, fixed, struct, u32, u64, union, versioned} from "./codec.js";
import {id} from "./fx.js";
import {pChainOwner} from "./platformvm.js";

export const warpMessage = versioned(
  "warp message",
  struct({
    networkId: u32,
    sourceChainId: id,
    payload: bytes,
    signature: union("warp signature type", {
      0: entry("BitSetSignature", struct({signers: bytes, signature: fixed(96)})),
    }),
  }),
);

export const warpPayload = versioned(
  "warp payload",
  union("warp payload type", {
    0: entry("Hash", struct({hash: id})),
    1: entry("AddressedCall", struct({sourceAddress: bytes, payload: bytes})),
  }),
);

export const registerL1Validator = struct({
  subnetId: id,
  nodeId: bytes,
  blsPublicKey: fixed(48),
  expiry: u64,
  remainingBalanceOwner: pChainOwner,
  disableOwner: pChainOwner,
  weight: u64,
});

export const l1Message = versioned(
  "warp message payload",
  union("warp message type", {
    0: entry("SubnetToL1Conversion", struct({id})),
    1: entry("RegisterL1Validator", registerL1Validator),
    2: entry("L1ValidatorRegistration", struct({validationId: id, registered: bool})),
    3: entry("L1ValidatorWeight", struct({validationId: id, nonce: u64, weight: u64})),
  }),
);

/** message.SubnetToL1ConversionData: its hash is the conversion ID a ConvertSubnetToL1Tx yields. */
export const subnetToL1ConversionData = versioned(
  "subnet to L1 conversion data",
  struct({
    subnetId: id,
    managerChainId: id,
    managerAddress: bytes,
    validators: array(struct({nodeId: bytes, blsPublicKey: fixed(48), weight: u64})),
  }),
);
