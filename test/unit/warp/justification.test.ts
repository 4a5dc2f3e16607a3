import {createHash} from "node:crypto";
import {describe, expect, it} from "vitest";
import {
  conversionValidationId,
  encodePChainMessage,
  encodeRegistrationJustification,
  justificationRegisterMessage,
  parseRegistrationJustification,
  validationIdOf,
  WarpError,
  type PChainMessage,
} from "../../../src/warp/index.js";
import {hex, unhex} from "./vectors.js";

const subnet = new Uint8Array(32).fill(0xab);

describe("L1ValidatorRegistration justifications (protobuf)", () => {
  it("SubnetIDIndex: field 1 holding subnet_id (1) and index (2), defaults omitted", () => {
    const j = encodeRegistrationJustification({type: "convertSubnetToL1TxData", subnetId: subnet, index: 300});
    expect(hex(j)).toBe("0a25" + "0a20" + "ab".repeat(32) + "10ac02");
    expect(parseRegistrationJustification(j)).toEqual({type: "convertSubnetToL1TxData", subnetId: subnet, index: 300});
    const zero = encodeRegistrationJustification({type: "convertSubnetToL1TxData", subnetId: subnet, index: 0});
    expect(hex(zero)).toBe("0a22" + "0a20" + "ab".repeat(32));
    expect(parseRegistrationJustification(zero)).toMatchObject({index: 0});
  });

  it("register_l1_validator_message: field 2; its RegisterL1Validator and validation ID", () => {
    const reg: PChainMessage = {
      type: "RegisterL1Validator",
      subnetId: subnet,
      nodeId: new Uint8Array(20).fill(1),
      blsPublicKey: unhex(
        "8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15",
      ),
      expiry: 5n,
      remainingBalanceOwner: {threshold: 1, addresses: [new Uint8Array(20).fill(2)]},
      disableOwner: {threshold: 1, addresses: [new Uint8Array(20).fill(3)]},
      weight: 20n,
    };
    const bytes = encodePChainMessage(reg);
    const j = encodeRegistrationJustification({type: "registerL1ValidatorMessage", message: bytes});
    expect(hex(j.subarray(0, 3))).toBe("12" + hex(Uint8Array.of((bytes.length & 0x7f) | 0x80, bytes.length >> 7)));
    const parsed = parseRegistrationJustification(j);
    expect(parsed).toEqual({type: "registerL1ValidatorMessage", message: bytes});
    const m = justificationRegisterMessage(parsed);
    expect(m.weight).toBe(20n);
    expect(hex(validationIdOf(m))).toBe(createHash("sha256").update(bytes).digest("hex"));
  });

  it("skips unknown fields, refuses garbage, names the justification", () => {
    const j = encodeRegistrationJustification({type: "convertSubnetToL1TxData", subnetId: subnet, index: 1});
    expect(parseRegistrationJustification(Uint8Array.of(0x18, 0x05, ...j))).toMatchObject({index: 1}); // field 3 varint
    expect(() => parseRegistrationJustification(new Uint8Array(0))).toThrow(/no preimage/);
    expect(() => parseRegistrationJustification(unhex("12ff"))).toThrow(WarpError);
    expect(() => parseRegistrationJustification(unhex("0a05"))).toThrow(/past the end/);
    expect(() =>
      justificationRegisterMessage({
        type: "registerL1ValidatorMessage",
        message: encodePChainMessage({type: "SubnetToL1Conversion", conversionId: subnet}),
      }),
    ).toThrow(/not a RegisterL1Validator/);
  });

  it("a conversion validator's validation ID is sha256(subnetID ‖ u32 index)", () => {
    expect(hex(conversionValidationId(subnet, 2))).toBe(
      createHash("sha256")
        .update(unhex("ab".repeat(32) + "00000002"))
        .digest("hex"),
    );
  });
});
