/**
 * Hex as EVM JSON-RPC speaks it: `0x`-prefixed data and quantities, EIP-55 addresses. Built on @noble/hashes's
 * hex codec; `0x` is optional on input (users and RPCs differ), never on JSON-RPC output.
 */
import {keccak_256} from "@noble/hashes/sha3.js";
import {bytesToHex as nobleToHex, hexToBytes as nobleFromHex} from "@noble/hashes/utils.js";

/** Lowercase hex without `0x` (the one codec of util/hex.ts). */
export {bytesToHex} from "../util/hex.js";

/** Bytes of hex with or without `0x`; throws on odd length or a non-hex digit. */
export function hexToBytes(s: string): Uint8Array {
  return nobleFromHex(s.startsWith("0x") || s.startsWith("0X") ? s.slice(2) : s);
}

/** `0x`-prefixed lowercase hex. */
export function toHex(b: Uint8Array): string {
  return "0x" + nobleToHex(b);
}

/** A JSON-RPC quantity (`0x1a`) as a bigint; throws on anything else. */
export function quantity(s: unknown): bigint {
  if (typeof s !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(s))
    throw new Error(`not a JSON-RPC quantity: ${JSON.stringify(s)}`);
  return BigInt(s);
}

/** A JSON-RPC quantity from a number or bigint. */
export function toQuantity(n: bigint | number): string {
  return "0x" + n.toString(16);
}

/** EIP-55 checksummed `0x` address of 20 bytes or of its hex (any case, `0x` optional). */
export function checksumAddress(address: Uint8Array | string): string {
  const hex = typeof address === "string" ? address.replace(/^0x/i, "").toLowerCase() : nobleToHex(address);
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = "0x";
  for (let i = 0; i < hex.length; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i];
  }
  return out;
}
