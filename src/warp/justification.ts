/**
 * Justifications the P-chain's signers ask for (AvalancheGo `vms/platformvm/network/warp.go`):
 * - SubnetToL1Conversion: the subnet ID's 32 bytes;
 * - L1ValidatorRegistration(registered = false): the protobuf `L1ValidatorRegistrationJustification`
 *   (`proto/platformvm/platformvm.proto`), a oneof of `SubnetIDIndex convert_subnet_to_l1_tx_data = 1`
 *   (`bytes subnet_id = 1; uint32 index = 2`: a validator of the conversion) and
 *   `bytes register_l1_validator_message = 2` (the RegisterL1Validator message's bytes);
 * - L1ValidatorRegistration(true) and L1ValidatorWeight: none.
 * Also the validation ID of a conversion's validator: sha256(subnetID ‖ u32 index), AvalancheGo's `ids.ID.Append`.
 */
import {sha256} from "../util/sha256.js";
import {ID_LEN, WarpError, parsePChainMessage, type RegisterL1Validator} from "./message.js";

export type RegistrationJustification =
  | {type: "convertSubnetToL1TxData"; subnetId: Uint8Array; index: number}
  | {type: "registerL1ValidatorMessage"; message: Uint8Array};

function varint(v: number): number[] {
  const out: number[] = [];
  let x = v >>> 0;
  while (x >= 0x80) {
    out.push((x & 0x7f) | 0x80);
    x >>>= 7;
  }
  out.push(x);
  return out;
}

function lenField(tag: number, b: Uint8Array): number[] {
  return [tag, ...varint(b.length), ...b];
}

/** The protobuf bytes, as Go's proto.Marshal writes them (default values omitted). */
export function encodeRegistrationJustification(j: RegistrationJustification): Uint8Array {
  if (j.type === "registerL1ValidatorMessage") return Uint8Array.from(lenField(0x12, j.message));
  if (!Number.isInteger(j.index) || j.index < 0 || j.index > 0xffffffff)
    throw new WarpError("index", `${j.index} is not a u32`);
  const inner = [
    ...(j.subnetId.length ? lenField(0x0a, j.subnetId) : []),
    ...(j.index ? [0x10, ...varint(j.index)] : []),
  ];
  return Uint8Array.from(lenField(0x0a, Uint8Array.from(inner)));
}

class Proto {
  off = 0;
  constructor(private readonly b: Uint8Array) {}
  get done(): boolean {
    return this.off >= this.b.length;
  }
  varint(): bigint {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.off >= this.b.length) throw new WarpError("justification", "truncated varint");
      const byte = this.b[this.off++]!;
      v |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return v;
    }
    throw new WarpError("justification", "varint too long");
  }
  bytes(): Uint8Array {
    const n = Number(this.varint());
    if (n > this.b.length - this.off) throw new WarpError("justification", "length past the end");
    const v = this.b.slice(this.off, this.off + n);
    this.off += n;
    return v;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.fixed(8);
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.fixed(4);
    else throw new WarpError("justification", `unsupported wire type ${wire}`);
  }
  private fixed(n: number): void {
    if (n > this.b.length - this.off) throw new WarpError("justification", "truncated field");
    this.off += n;
  }
}

/** Parses the protobuf justification (unknown fields skipped, the last oneof member wins, as Go's proto does). */
export function parseRegistrationJustification(b: Uint8Array): RegistrationJustification {
  const r = new Proto(b);
  let out: RegistrationJustification | null = null;
  while (!r.done) {
    const key = Number(r.varint());
    const field = key >>> 3;
    const wire = key & 7;
    if (field === 1 && wire === 2) {
      const inner = new Proto(r.bytes());
      let subnetId: Uint8Array = new Uint8Array(0);
      let index = 0;
      while (!inner.done) {
        const k = Number(inner.varint());
        if (k >>> 3 === 1 && (k & 7) === 2) subnetId = inner.bytes();
        else if (k >>> 3 === 2 && (k & 7) === 0) index = Number(inner.varint() & 0xffffffffn);
        else inner.skip(k & 7);
      }
      out = {type: "convertSubnetToL1TxData", subnetId, index};
    } else if (field === 2 && wire === 2) {
      out = {type: "registerL1ValidatorMessage", message: r.bytes()};
    } else {
      r.skip(wire);
    }
  }
  if (!out)
    throw new WarpError("justification", "no preimage (convert_subnet_to_l1_tx_data or register_l1_validator_message)");
  return out;
}

/** The RegisterL1Validator message a justification carries (parsed; its validation ID is sha256 of these bytes). */
export function justificationRegisterMessage(j: RegistrationJustification): RegisterL1Validator {
  if (j.type !== "registerL1ValidatorMessage")
    throw new WarpError("justification", "not a RegisterL1Validator message");
  const m = parsePChainMessage(j.message);
  if (m.type !== "RegisterL1Validator")
    throw new WarpError("justification", `carries a ${m.type}, not a RegisterL1Validator`);
  const {type: _type, ...rest} = m;
  return rest;
}

/** The validation ID of the conversion's `index`-th validator: sha256(subnetID ‖ big-endian u32 index). */
export function conversionValidationId(subnetId: Uint8Array, index: number): Uint8Array {
  if (subnetId.length !== ID_LEN) throw new WarpError("subnetID", `must be ${ID_LEN} bytes, got ${subnetId.length}`);
  const b = new Uint8Array(ID_LEN + 4);
  b.set(subnetId, 0);
  new DataView(b.buffer).setUint32(ID_LEN, index);
  return sha256(b);
}
