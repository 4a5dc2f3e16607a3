/**
 * What the dev network's validators sign (docs/api/signatures.md): only what AvalancheGo would. A message from an EVM
 * chain is signed when that chain sent it (a SendWarpMessage log of an accepted block, in `warp_messages`); a
 * P-chain message (source chain all zeros, an AddressedCall with an empty source address) under the rules of
 * AvalancheGo's `vms/platformvm/network/warp.go`, checked against the P-chain view: a conversion ID the subnet was
 * converted with (justification: the subnet ID), a validation ID that is (or is not) registered, a weight and nonce
 * that are the validator's current ones. Anything else is refused with the reason.
 */
import {cb58Encode} from "../util/cb58.js";
import {messageId, parseAddressedCall, parsePChainMessage, parseUnsignedMessage, WarpError} from "../warp/message.js";
import type {SqlClient} from "../dataApi/store/sql.js";
import type {SignatureSource} from "../warp/aggregator.js";
import {devSigners} from "./signers.js";
import {l1ValidatorState, subnetConversionId, warpMessageSent} from "../dataApi/queries/warp/signingRules.js";

export async function devSigningRefusal(
  sql: SqlClient,
  unsigned: Uint8Array,
  justification: Uint8Array | undefined,
): Promise<string | null> {
  let msg;
  try {
    msg = parseUnsignedMessage(unsigned);
  } catch (e) {
    return `not a warp message: ${(e as Error).message}`;
  }
  if (msg.sourceChainId.some((b) => b !== 0)) {
    return (await warpMessageSent(sql, messageId(unsigned))) ? null : "message not seen: no followed chain sent it";
  }
  try {
    const call = parseAddressedCall(msg.payload);
    if (call.sourceAddress.length !== 0) return "a P-chain message has an empty source address";
    const m = parsePChainMessage(call.payload);
    switch (m.type) {
      case "SubnetToL1Conversion": {
        if (justification?.length !== 32) return "a conversion's justification is its subnet ID (32 bytes)";
        const conversionId = await subnetConversionId(sql, cb58Encode(justification));
        if (!conversionId) return `subnet ${cb58Encode(justification)} was not converted to an L1`;
        return conversionId === cb58Encode(m.conversionId) ? null : "the conversion ID is not the subnet's";
      }
      case "L1ValidatorRegistration": {
        const v = await l1ValidatorState(sql, cb58Encode(m.validationId));
        const registered = v !== null && v.weight > 0n;
        if (m.registered) return registered ? null : "the validation ID is not registered";
        return registered ? "the validation ID is still registered" : null;
      }
      case "L1ValidatorWeight": {
        const v = await l1ValidatorState(sql, cb58Encode(m.validationId));
        if (!v) return "the validation ID is not registered";
        return v.nonce === m.nonce && v.weight === m.weight
          ? null
          : `not the validator's current weight and nonce (nonce ${v.nonce}, weight ${v.weight})`;
      }
      default:
        return `the P-chain does not sign ${m.type} messages`;
    }
  } catch (e) {
    return e instanceof WarpError
      ? `not a P-chain message: ${e.message}`
      : `cannot check the message: ${(e as Error).message}`;
  }
}

/**
 * The local network's validators as a signature source: AvalancheGo's local keys are public, so they sign here, by
 * the rules above. The rules do not depend on which validator signs: one check per message (keyed by its bytes).
 */
export function localValidatorSigners(sql: SqlClient): SignatureSource {
  const checked = new WeakMap<Uint8Array, Promise<string | null>>();
  return devSigners((unsigned, justification) => {
    let answer = checked.get(unsigned);
    if (!answer) checked.set(unsigned, (answer = devSigningRefusal(sql, unsigned, justification)));
    return answer;
  });
}
