/**
 * Avalanche warp messages on the wire, as AvalancheGo's `vms/platformvm/warp` codec writes them (linear codec,
 * version 0, big-endian integers, byte slices u32-length-prefixed, interfaces as a u32 type ID):
 *
 * - unsigned: codec version (u16 0) ‖ network ID (u32) ‖ source chain ID (32 bytes) ‖ payload (u32 length ‖ bytes);
 *   its ID is sha256 of those bytes;
 * - signed: the unsigned bytes ‖ u32 type 0 (BitSetSignature) ‖ signers (u32 length ‖ big-endian bit set, bit i =
 *   the i-th validator of the canonical set, no leading zero byte) ‖ the 96-byte BLS aggregate;
 * - payloads (`warp/payload`, codec 0): Hash (type 0, 32 bytes), AddressedCall (type 1: source address, payload);
 * - the P-chain's messages (`warp/message`, codec 0): SubnetToL1Conversion (0), RegisterL1Validator (1),
 *   L1ValidatorRegistration (2), L1ValidatorWeight (3).
 *
 * Every parser reads the whole input: trailing bytes are an error, as in AvalancheGo's codec. Errors are `WarpError`s
 * naming the field that is wrong.
 */
import {sha256} from "../util/sha256.js";

export const CODEC_VERSION = 0;
export const ID_LEN = 32;
export const SIGNATURE_LEN = 96;
export const PUBLIC_KEY_LEN = 48;
export const BIT_SET_SIGNATURE_TYPE = 0;
/** AvalancheGo's payload codec refuses anything larger (payload.MaxMessageSize, 24 KiB). */
export const MAX_PAYLOAD_MESSAGE_SIZE = 24 * 1024;

/** A malformed warp message or payload; `field` names what is wrong (e.g. `networkID`, `signers`). */
export class WarpError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "WarpError";
  }
}

// ---------------------------------------------------------------------------------------------------------------
// A strict reader and a writer.

class In {
  private off = 0;
  private readonly view: DataView;
  constructor(
    private readonly b: Uint8Array,
    private readonly what: string,
  ) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  private need(n: number, field: string): void {
    if (this.b.length - this.off < n) {
      throw new WarpError(
        field,
        `${this.what} ends after ${this.b.length} bytes, ${n} more needed at offset ${this.off}`,
      );
    }
  }
  u16(field: string): number {
    this.need(2, field);
    const v = this.view.getUint16(this.off);
    this.off += 2;
    return v;
  }
  u32(field: string): number {
    this.need(4, field);
    const v = this.view.getUint32(this.off);
    this.off += 4;
    return v;
  }
  u64(field: string): bigint {
    this.need(8, field);
    const v = this.view.getBigUint64(this.off);
    this.off += 8;
    return v;
  }
  bool(field: string): boolean {
    this.need(1, field);
    const v = this.b[this.off++]!;
    if (v > 1) throw new WarpError(field, `invalid bool byte ${v}`);
    return v === 1;
  }
  fixed(n: number, field: string): Uint8Array {
    this.need(n, field);
    const v = this.b.slice(this.off, this.off + n);
    this.off += n;
    return v;
  }
  bytes(field: string): Uint8Array {
    const n = this.u32(field);
    if (n > this.b.length - this.off) {
      throw new WarpError(field, `length ${n} exceeds the ${this.b.length - this.off} bytes left in the ${this.what}`);
    }
    return this.fixed(n, field);
  }
  codec(field = "codecVersion"): void {
    const v = this.u16(field);
    if (v !== CODEC_VERSION) throw new WarpError(field, `unknown codec version ${v} (expected ${CODEC_VERSION})`);
  }
  end(): void {
    if (this.off !== this.b.length) {
      throw new WarpError(this.what, `${this.b.length - this.off} trailing bytes after the ${this.what}`);
    }
  }
  get offset(): number {
    return this.off;
  }
}

class Out {
  private parts: Uint8Array[] = [];
  private len = 0;
  private push(b: Uint8Array): this {
    this.parts.push(b);
    this.len += b.length;
    return this;
  }
  u16(v: number): this {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setUint16(0, v);
    return this.push(b);
  }
  u32(v: number, field: string): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new WarpError(field, `${v} is not a u32`);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v);
    return this.push(b);
  }
  u64(v: bigint, field: string): this {
    if (v < 0n || v > 0xffffffffffffffffn) throw new WarpError(field, `${v} is not a u64`);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, v);
    return this.push(b);
  }
  bool(v: boolean): this {
    return this.push(Uint8Array.of(v ? 1 : 0));
  }
  fixed(b: Uint8Array, n: number, field: string): this {
    if (b.length !== n) throw new WarpError(field, `must be ${n} bytes, got ${b.length}`);
    return this.push(b);
  }
  bytes(b: Uint8Array, field: string): this {
    return this.u32(b.length, field).push(b);
  }
  done(): Uint8Array {
    const out = new Uint8Array(this.len);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Unsigned and signed messages.

export interface UnsignedMessage {
  networkId: number;
  /** 32 bytes; the P-chain's is all zeros. */
  sourceChainId: Uint8Array;
  payload: Uint8Array;
}

export function serializeUnsignedMessage(m: UnsignedMessage): Uint8Array {
  return new Out()
    .u16(CODEC_VERSION)
    .u32(m.networkId, "networkID")
    .fixed(m.sourceChainId, ID_LEN, "sourceChainID")
    .bytes(m.payload, "payload")
    .done();
}

function readUnsigned(r: In): UnsignedMessage {
  r.codec();
  const networkId = r.u32("networkID");
  const sourceChainId = r.fixed(ID_LEN, "sourceChainID");
  const payload = r.bytes("payload");
  return {networkId, sourceChainId, payload};
}

export function parseUnsignedMessage(b: Uint8Array): UnsignedMessage {
  const r = new In(b, "unsigned message");
  const m = readUnsigned(r);
  r.end();
  return m;
}

/** The message's ID: sha256 of its unsigned bytes. */
export function messageId(unsigned: Uint8Array | UnsignedMessage): Uint8Array {
  return sha256(unsigned instanceof Uint8Array ? unsigned : serializeUnsignedMessage(unsigned));
}

export interface SignedMessage {
  unsigned: UnsignedMessage;
  /** The unsigned message's bytes (what was signed). */
  unsignedBytes: Uint8Array;
  /** The bit set's bytes as on the wire (big-endian, minimal). */
  signers: Uint8Array;
  /** The indices set in `signers`, ascending: positions in the canonical validator set. */
  signerIndices: number[];
  /** The 96-byte compressed BLS aggregate signature. */
  signature: Uint8Array;
}

/**
 * A set of indices as AvalancheGo's `set.Bits.Bytes()`: the big-endian bytes of the integer with bit i set for
 * each index i, without leading zero bytes (the empty set is zero bytes).
 */
export function encodeBitSet(indices: Iterable<number>): Uint8Array {
  let max = -1;
  const list: number[] = [];
  for (const i of indices) {
    if (!Number.isInteger(i) || i < 0) throw new WarpError("signers", `bad index ${i}`);
    list.push(i);
    if (i > max) max = i;
  }
  if (max < 0) return new Uint8Array(0);
  const n = (max >> 3) + 1;
  const out = new Uint8Array(n);
  for (const i of list) out[n - 1 - (i >> 3)]! |= 1 << (i & 7);
  return out;
}

/** The indices of a bit set's bytes, ascending; a leading zero byte (a non-minimal encoding) is an error, as in AvalancheGo. */
export function decodeBitSet(b: Uint8Array): number[] {
  if (b.length > 0 && b[0] === 0)
    throw new WarpError("signers", "bit set has a leading zero byte (non-minimal encoding)");
  const out: number[] = [];
  for (let k = b.length - 1, base = 0; k >= 0; k--, base += 8) {
    const byte = b[k]!;
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) out.push(base + bit);
  }
  return out;
}

export function serializeSignedMessage(
  unsigned: Uint8Array | UnsignedMessage,
  signers: Uint8Array | Iterable<number>,
  signature: Uint8Array,
): Uint8Array {
  const u = unsigned instanceof Uint8Array ? unsigned : serializeUnsignedMessage(unsigned);
  if (unsigned instanceof Uint8Array) parseUnsignedMessage(u); // refuse to wrap garbage
  const bits = signers instanceof Uint8Array ? signers : encodeBitSet(signers);
  if (signers instanceof Uint8Array) decodeBitSet(bits);
  const tail = new Out()
    .u32(BIT_SET_SIGNATURE_TYPE, "signatureType")
    .bytes(bits, "signers")
    .fixed(signature, SIGNATURE_LEN, "signature")
    .done();
  const out = new Uint8Array(u.length + tail.length);
  out.set(u, 0);
  out.set(tail, u.length);
  return out;
}

export function parseSignedMessage(b: Uint8Array): SignedMessage {
  const r = new In(b, "signed message");
  const unsigned = readUnsigned(r);
  const unsignedBytes = b.slice(0, r.offset);
  const type = r.u32("signatureType");
  if (type !== BIT_SET_SIGNATURE_TYPE)
    throw new WarpError(
      "signatureType",
      `unknown signature type ${type} (only ${BIT_SET_SIGNATURE_TYPE}, BitSetSignature)`,
    );
  const signers = r.bytes("signers");
  const signature = r.fixed(SIGNATURE_LEN, "signature");
  r.end();
  return {unsigned, unsignedBytes, signers, signerIndices: decodeBitSet(signers), signature};
}

// ---------------------------------------------------------------------------------------------------------------
// Payloads (`warp/payload`).

export const PAYLOAD_HASH_TYPE = 0;
export const PAYLOAD_ADDRESSED_CALL_TYPE = 1;

export interface AddressedCall {
  /** The sender: an EVM address (20 bytes) for an EVM chain, empty for the P-chain. */
  sourceAddress: Uint8Array;
  payload: Uint8Array;
}

export type WarpPayload = ({type: "AddressedCall"} & AddressedCall) | {type: "Hash"; hash: Uint8Array};

export function encodeAddressedCall(a: AddressedCall): Uint8Array {
  const out = new Out()
    .u16(CODEC_VERSION)
    .u32(PAYLOAD_ADDRESSED_CALL_TYPE, "payloadType")
    .bytes(a.sourceAddress, "sourceAddress")
    .bytes(a.payload, "payload")
    .done();
  if (out.length > MAX_PAYLOAD_MESSAGE_SIZE)
    throw new WarpError("payload", `AddressedCall of ${out.length} bytes exceeds ${MAX_PAYLOAD_MESSAGE_SIZE}`);
  return out;
}

export function encodeHashPayload(hash: Uint8Array): Uint8Array {
  return new Out().u16(CODEC_VERSION).u32(PAYLOAD_HASH_TYPE, "payloadType").fixed(hash, ID_LEN, "hash").done();
}

/** A warp message's payload (Hash or AddressedCall). */
export function parsePayload(b: Uint8Array): WarpPayload {
  if (b.length > MAX_PAYLOAD_MESSAGE_SIZE)
    throw new WarpError("payload", `${b.length} bytes exceeds ${MAX_PAYLOAD_MESSAGE_SIZE}`);
  const r = new In(b, "payload");
  r.codec("payload.codecVersion");
  const type = r.u32("payloadType");
  let p: WarpPayload;
  if (type === PAYLOAD_ADDRESSED_CALL_TYPE) {
    const sourceAddress = r.bytes("sourceAddress");
    const payload = r.bytes("payload");
    p = {type: "AddressedCall", sourceAddress, payload};
  } else if (type === PAYLOAD_HASH_TYPE) {
    p = {type: "Hash", hash: r.fixed(ID_LEN, "hash")};
  } else {
    throw new WarpError("payloadType", `unknown payload type ${type} (0 Hash, 1 AddressedCall)`);
  }
  r.end();
  return p;
}

export function parseAddressedCall(b: Uint8Array): AddressedCall {
  const p = parsePayload(b);
  if (p.type !== "AddressedCall") throw new WarpError("payloadType", `expected an AddressedCall, got ${p.type}`);
  return {sourceAddress: p.sourceAddress, payload: p.payload};
}

// ---------------------------------------------------------------------------------------------------------------
// The P-chain's messages (`warp/message`), carried as an AddressedCall's payload with an empty source address.

export interface PChainOwner {
  threshold: number;
  /** 20-byte short IDs. */
  addresses: Uint8Array[];
}

export interface RegisterL1Validator {
  subnetId: Uint8Array;
  /** The node ID's bytes (20 for a NodeID). */
  nodeId: Uint8Array;
  /** 48-byte compressed BLS public key. */
  blsPublicKey: Uint8Array;
  expiry: bigint;
  remainingBalanceOwner: PChainOwner;
  disableOwner: PChainOwner;
  weight: bigint;
}

export type PChainMessage =
  | {type: "SubnetToL1Conversion"; conversionId: Uint8Array}
  | ({type: "RegisterL1Validator"} & RegisterL1Validator)
  | {type: "L1ValidatorRegistration"; validationId: Uint8Array; registered: boolean}
  | {type: "L1ValidatorWeight"; validationId: Uint8Array; nonce: bigint; weight: bigint};

export const PCHAIN_MESSAGE_TYPES = [
  "SubnetToL1Conversion",
  "RegisterL1Validator",
  "L1ValidatorRegistration",
  "L1ValidatorWeight",
] as const;

function writeOwner(w: Out, o: PChainOwner, field: string): void {
  w.u32(o.threshold, `${field}.threshold`).u32(o.addresses.length, `${field}.addresses`);
  o.addresses.forEach((a, i) => w.fixed(a, 20, `${field}.addresses[${i}]`));
}

function readOwner(r: In, field: string): PChainOwner {
  const threshold = r.u32(`${field}.threshold`);
  const n = r.u32(`${field}.addresses`);
  const addresses: Uint8Array[] = [];
  for (let i = 0; i < n; i++) addresses.push(r.fixed(20, `${field}.addresses[${i}]`));
  return {threshold, addresses};
}

export function encodePChainMessage(m: PChainMessage): Uint8Array {
  const w = new Out().u16(CODEC_VERSION).u32(PCHAIN_MESSAGE_TYPES.indexOf(m.type), "messageType");
  switch (m.type) {
    case "SubnetToL1Conversion":
      w.fixed(m.conversionId, ID_LEN, "conversionID");
      break;
    case "RegisterL1Validator":
      w.fixed(m.subnetId, ID_LEN, "subnetID")
        .bytes(m.nodeId, "nodeID")
        .fixed(m.blsPublicKey, PUBLIC_KEY_LEN, "blsPublicKey")
        .u64(m.expiry, "expiry");
      writeOwner(w, m.remainingBalanceOwner, "remainingBalanceOwner");
      writeOwner(w, m.disableOwner, "disableOwner");
      w.u64(m.weight, "weight");
      break;
    case "L1ValidatorRegistration":
      w.fixed(m.validationId, ID_LEN, "validationID").bool(m.registered);
      break;
    case "L1ValidatorWeight":
      w.fixed(m.validationId, ID_LEN, "validationID").u64(m.nonce, "nonce").u64(m.weight, "weight");
      break;
  }
  return w.done();
}

export function parsePChainMessage(b: Uint8Array): PChainMessage {
  const r = new In(b, "P-chain message");
  r.codec("message.codecVersion");
  const t = r.u32("messageType");
  let m: PChainMessage;
  switch (PCHAIN_MESSAGE_TYPES[t]) {
    case "SubnetToL1Conversion":
      m = {type: "SubnetToL1Conversion", conversionId: r.fixed(ID_LEN, "conversionID")};
      break;
    case "RegisterL1Validator": {
      const subnetId = r.fixed(ID_LEN, "subnetID");
      const nodeId = r.bytes("nodeID");
      const blsPublicKey = r.fixed(PUBLIC_KEY_LEN, "blsPublicKey");
      const expiry = r.u64("expiry");
      const remainingBalanceOwner = readOwner(r, "remainingBalanceOwner");
      const disableOwner = readOwner(r, "disableOwner");
      const weight = r.u64("weight");
      m = {
        type: "RegisterL1Validator",
        subnetId,
        nodeId,
        blsPublicKey,
        expiry,
        remainingBalanceOwner,
        disableOwner,
        weight,
      };
      break;
    }
    case "L1ValidatorRegistration":
      m = {
        type: "L1ValidatorRegistration",
        validationId: r.fixed(ID_LEN, "validationID"),
        registered: r.bool("registered"),
      };
      break;
    case "L1ValidatorWeight":
      m = {
        type: "L1ValidatorWeight",
        validationId: r.fixed(ID_LEN, "validationID"),
        nonce: r.u64("nonce"),
        weight: r.u64("weight"),
      };
      break;
    default:
      throw new WarpError("messageType", `unknown P-chain message type ${t} (0..${PCHAIN_MESSAGE_TYPES.length - 1})`);
  }
  r.end();
  return m;
}

/** A RegisterL1Validator's validation ID: sha256 of its bytes. */
export function validationIdOf(m: RegisterL1Validator | Uint8Array): Uint8Array {
  return sha256(m instanceof Uint8Array ? m : encodePChainMessage({type: "RegisterL1Validator", ...m}));
}

export interface SubnetToL1ConversionData {
  subnetId: Uint8Array;
  managerChainId: Uint8Array;
  managerAddress: Uint8Array;
  validators: Array<{nodeId: Uint8Array; blsPublicKey: Uint8Array; weight: bigint}>;
}

/** `SubnetToL1ConversionID`: sha256 of the conversion data in codec 0 (a struct, so no type ID). */
export function subnetToL1ConversionId(d: SubnetToL1ConversionData): Uint8Array {
  const w = new Out()
    .u16(CODEC_VERSION)
    .fixed(d.subnetId, ID_LEN, "subnetID")
    .fixed(d.managerChainId, ID_LEN, "managerChainID")
    .bytes(d.managerAddress, "managerAddress");
  w.u32(d.validators.length, "validators");
  d.validators.forEach((v, i) =>
    w
      .bytes(v.nodeId, `validators[${i}].nodeID`)
      .fixed(v.blsPublicKey, PUBLIC_KEY_LEN, `validators[${i}].blsPublicKey`)
      .u64(v.weight, `validators[${i}].weight`),
  );
  return sha256(w.done());
}

/** The P-chain's unsigned message for a P-chain payload: source chain the P-chain, an AddressedCall with an empty source address. */
export function pChainUnsignedMessage(networkId: number, m: PChainMessage): Uint8Array {
  return serializeUnsignedMessage({
    networkId,
    sourceChainId: new Uint8Array(ID_LEN),
    payload: encodeAddressedCall({sourceAddress: new Uint8Array(0), payload: encodePChainMessage(m)}),
  });
}
