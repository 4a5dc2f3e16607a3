import {createHash} from "node:crypto";
import {pvmSerial} from "@avalabs/avalanchejs";
import {describe, expect, it} from "vitest";
import {
  WarpError,
  decodeBitSet,
  encodeAddressedCall,
  encodeBitSet,
  encodeHashPayload,
  encodePChainMessage,
  messageId,
  parseAddressedCall,
  parsePayload,
  parsePChainMessage,
  parseSignedMessage,
  parseUnsignedMessage,
  pChainUnsignedMessage,
  serializeSignedMessage,
  serializeUnsignedMessage,
  subnetToL1ConversionId,
  validationIdOf,
  type PChainMessage,
} from "../../../src/warp/message.js";
import {publicKeyOf} from "../../../src/warp/index.js";
import {localSecretKey} from "../../../src/dev/signers.js";
import {hex, unhex, VECTOR_SIGNATURE, VECTOR_SIGNED, VECTOR_UNSIGNED} from "./vectors.js";

const w = pvmSerial.warp;
const mgr = w.getWarpManager();
const ac = w.AddressedCallPayloads;
/** avalanchejs's bytes with the codec version its manager adds. */
const packed = (o: {toBytes(c: typeof w.codec): Uint8Array}): string => "0000" + hex(o.toBytes(w.codec));

function warpError(f: () => unknown, field: string): void {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(WarpError);
    expect((e as WarpError).field).toBe(field);
    return;
  }
  throw new Error(`expected a WarpError on ${field}`);
}

describe("unsigned warp messages", () => {
  it("issue 20's vector parses and serializes byte for byte", () => {
    const m = parseUnsignedMessage(unhex(VECTOR_UNSIGNED));
    expect(m.networkId).toBe(12345);
    expect(hex(m.sourceChainId)).toBe("82900e9ff184b708895a39e5ba12491de180ca649e67c6393e64f4e18751cfcd");
    const call = parseAddressedCall(m.payload);
    expect(hex(call.sourceAddress)).toBe("253b2784c75e510dd0ff1da844684a1ac0aa5fcf");
    expect(Buffer.from(call.payload).toString()).toBe("hello warp");
    const again = serializeUnsignedMessage({
      networkId: 12345,
      sourceChainId: m.sourceChainId,
      payload: encodeAddressedCall(call),
    });
    expect(hex(again)).toBe(VECTOR_UNSIGNED);
  });

  it("agrees with avalanchejs's codec", () => {
    const bytes = unhex(VECTOR_UNSIGNED);
    const theirs = mgr.unpack(bytes, w.WarpUnsignedMessage);
    expect(theirs.networkId.value()).toBe(12345);
    expect(packed(theirs)).toBe(VECTOR_UNSIGNED);
    const payload = mgr.unpack(parseUnsignedMessage(bytes).payload, ac.AddressedCall);
    expect(payload.getPayload()).toBe("68656c6c6f2077617270");
  });

  it("message ID is sha256 of the unsigned bytes", () => {
    const bytes = unhex(VECTOR_UNSIGNED);
    const id = messageId(bytes);
    expect(id).toHaveLength(32);
    expect(hex(messageId(parseUnsignedMessage(bytes)))).toBe(hex(id));
  });

  it("round trips", () => {
    for (const payload of [new Uint8Array(0), unhex("00"), new Uint8Array(5000).fill(0xab)]) {
      const m = {networkId: 0xffffffff, sourceChainId: new Uint8Array(32).fill(3), payload};
      const b = serializeUnsignedMessage(m);
      expect(parseUnsignedMessage(b)).toEqual(m);
    }
  });

  it("names what is wrong", () => {
    const b = unhex(VECTOR_UNSIGNED);
    warpError(() => parseUnsignedMessage(new Uint8Array(0)), "codecVersion");
    warpError(() => parseUnsignedMessage(Uint8Array.of(0, 1, ...b.subarray(2))), "codecVersion");
    warpError(() => parseUnsignedMessage(b.subarray(0, 4)), "networkID");
    warpError(() => parseUnsignedMessage(b.subarray(0, 20)), "sourceChainID");
    warpError(() => parseUnsignedMessage(b.subarray(0, 38)), "payload");
    warpError(() => parseUnsignedMessage(b.subarray(0, b.length - 1)), "payload");
    warpError(() => parseUnsignedMessage(Uint8Array.of(...b, 0)), "unsigned message");
    warpError(
      () => serializeUnsignedMessage({networkId: -1, sourceChainId: new Uint8Array(32), payload: new Uint8Array(0)}),
      "networkID",
    );
    warpError(
      () => serializeUnsignedMessage({networkId: 1, sourceChainId: new Uint8Array(31), payload: new Uint8Array(0)}),
      "sourceChainID",
    );
    expect(() => parseUnsignedMessage(b.subarray(0, 38))).toThrow(/payload: unsigned message ends/);
  });
});

describe("signed warp messages", () => {
  it("issue 20's signed vector parses and serializes byte for byte", () => {
    const s = parseSignedMessage(unhex(VECTOR_SIGNED));
    expect(hex(s.unsignedBytes)).toBe(VECTOR_UNSIGNED);
    expect(s.signerIndices).toEqual([0, 1, 2]);
    expect(hex(s.signers)).toBe("07");
    expect(hex(s.signature)).toBe(VECTOR_SIGNATURE);
    expect(hex(serializeSignedMessage(unhex(VECTOR_UNSIGNED), [0, 1, 2], s.signature))).toBe(VECTOR_SIGNED);
    const theirs = mgr.unpack(unhex(VECTOR_SIGNED), w.WarpMessage);
    expect(theirs.signature.numOfSigners()).toBe(3);
    expect(packed(theirs)).toBe(VECTOR_SIGNED);
  });

  it("bit sets are AvalancheGo's set.Bits bytes", () => {
    expect(hex(encodeBitSet([]))).toBe("");
    expect(hex(encodeBitSet([0]))).toBe("01");
    expect(hex(encodeBitSet([7]))).toBe("80");
    expect(hex(encodeBitSet([8]))).toBe("0100");
    expect(hex(encodeBitSet([0, 9, 17]))).toBe("020201");
    expect(decodeBitSet(unhex("020201"))).toEqual([0, 9, 17]);
    const many = [0, 3, 64, 999];
    expect(decodeBitSet(encodeBitSet(many))).toEqual(many);
    warpError(() => decodeBitSet(unhex("0007")), "signers");
  });

  it("names what is wrong", () => {
    const b = unhex(VECTOR_SIGNED);
    const u = unhex(VECTOR_UNSIGNED).length;
    warpError(() => parseSignedMessage(unhex(VECTOR_UNSIGNED)), "signatureType");
    const wrongType = Uint8Array.from(b);
    wrongType[u + 3] = 1;
    warpError(() => parseSignedMessage(wrongType), "signatureType");
    const padded = Uint8Array.from([...b.subarray(0, u + 4), 0, 0, 0, 2, 0, 7, ...b.subarray(u + 9)]);
    warpError(() => parseSignedMessage(padded), "signers");
    warpError(() => parseSignedMessage(b.subarray(0, b.length - 1)), "signature");
    warpError(() => parseSignedMessage(Uint8Array.of(...b, 1)), "signed message");
    warpError(() => serializeSignedMessage(unhex(VECTOR_UNSIGNED), [0], new Uint8Array(95)), "signature");
  });
});

describe("payloads", () => {
  it("AddressedCall and Hash round trip; the P-chain's has an empty source address", () => {
    const a = {sourceAddress: new Uint8Array(0), payload: unhex("c0ffee")};
    expect(parseAddressedCall(encodeAddressedCall(a))).toEqual(a);
    expect(hex(encodeAddressedCall(a))).toBe("00000000000100000000" + "00000003c0ffee");
    const h = new Uint8Array(32).fill(9);
    expect(parsePayload(encodeHashPayload(h))).toEqual({type: "Hash", hash: h});
    warpError(() => parseAddressedCall(encodeHashPayload(h)), "payloadType");
    warpError(() => parsePayload(unhex("0000000000020000")), "payloadType");
    warpError(
      () => encodeAddressedCall({sourceAddress: new Uint8Array(0), payload: new Uint8Array(24 * 1024)}),
      "payload",
    );
  });

  const id = (n: number): Uint8Array => new Uint8Array(32).fill(n);
  const register: PChainMessage = {
    type: "RegisterL1Validator",
    subnetId: id(1),
    nodeId: new Uint8Array(20).fill(2),
    blsPublicKey: publicKeyOf(localSecretKey(1)),
    expiry: 1_700_000_000n,
    remainingBalanceOwner: {threshold: 1, addresses: [new Uint8Array(20).fill(4)]},
    disableOwner: {threshold: 0, addresses: []},
    weight: 12345n,
  };
  const messages: PChainMessage[] = [
    {type: "SubnetToL1Conversion", conversionId: id(5)},
    register,
    {type: "L1ValidatorRegistration", validationId: id(6), registered: true},
    {type: "L1ValidatorRegistration", validationId: id(6), registered: false},
    {type: "L1ValidatorWeight", validationId: id(7), nonce: 2n ** 64n - 1n, weight: 0n},
  ];

  it("P-chain messages round trip", () => {
    for (const m of messages) expect(parsePChainMessage(encodePChainMessage(m))).toEqual(m);
  });

  it("P-chain messages agree with avalanchejs", () => {
    const [conv, reg, yes, , weight] = messages.map(encodePChainMessage);
    const c = mgr.unpack(conv!, ac.SubnetToL1ConversionMessage);
    expect(packed(c)).toBe(hex(conv!));
    const r = mgr.unpack(reg!, ac.RegisterL1ValidatorMessage);
    expect(r.getWeight()).toBe(12345n);
    expect(r.getExpiry()).toBe(1_700_000_000n);
    expect(packed(r)).toBe(hex(reg!));
    const y = mgr.unpack(yes!, ac.L1ValidatorRegistrationMessage);
    expect(y.getRegistered()).toBe(true);
    expect(packed(y)).toBe(hex(yes!));
    const wt = mgr.unpack(weight!, ac.L1ValidatorWeightMessage);
    expect(wt.getNonce()).toBe(2n ** 64n - 1n);
    expect(packed(wt)).toBe(hex(weight!));
  });

  it("P-chain message errors name the field", () => {
    warpError(() => parsePChainMessage(unhex("0000" + "00000009")), "messageType");
    const yes = encodePChainMessage(messages[2]!);
    const bad = Uint8Array.from(yes);
    bad[bad.length - 1] = 2;
    warpError(() => parsePChainMessage(bad), "registered");
    warpError(() => parsePChainMessage(yes.subarray(0, 20)), "validationID");
    warpError(() => parsePChainMessage(Uint8Array.of(...yes, 0)), "P-chain message");
    warpError(
      () => encodePChainMessage({type: "L1ValidatorWeight", validationId: id(1), nonce: -1n, weight: 0n}),
      "nonce",
    );
  });

  it("IDs: validationID, conversionID, the P-chain's unsigned message", () => {
    expect(validationIdOf(register as never)).toEqual(validationIdOf(encodePChainMessage(register)));
    const data = {
      subnetId: id(1),
      managerChainId: id(2),
      managerAddress: unhex("aa"),
      validators: [{nodeId: new Uint8Array(20), blsPublicKey: new Uint8Array(48), weight: 1n}],
    };
    // codec 0 ‖ subnetID ‖ managerChainID ‖ managerAddress (u32 length) ‖ validators (u32 count; nodeID u32-length, key, weight)
    const layout =
      "0000" +
      hex(id(1)) +
      hex(id(2)) +
      "00000001aa" +
      "00000001" +
      "00000014" +
      "00".repeat(20) +
      "00".repeat(48) +
      "0000000000000001";
    expect(hex(subnetToL1ConversionId(data))).toBe(createHash("sha256").update(unhex(layout)).digest("hex"));
    const u = parseUnsignedMessage(pChainUnsignedMessage(1, messages[0]!));
    expect(u.sourceChainId).toEqual(new Uint8Array(32));
    expect(parsePChainMessage(parseAddressedCall(u.payload).payload)).toEqual(messages[0]);
    expect(parseAddressedCall(u.payload).sourceAddress).toHaveLength(0);
  });
});
