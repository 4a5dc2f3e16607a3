/** Hex helpers with AvalancheGo's `formatting` semantics (utils/formatting/encoding.go). */

const HEX_RE = /^[0-9a-fA-F]*$/;

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** The bytes as a latin1 string, one character a byte: a compact map key or a copy that holds no buffer. */
export function bytesToLatin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

/** The bytes in base64, read in place (Buffer.from(bytes) would copy them first). */
export function bytesToBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Parses `0x`-prefixed hex without checksum; throws with Go's error texts. */
export function hexToBytes(s: string): Uint8Array {
  if (!s.startsWith("0x") && !s.startsWith("0X")) throw new Error("missing 0x prefix to hex encoding");
  const h = s.slice(2);
  // Buffer.from stops at the first non-hex pair; a short result means bad input, then we find the culprit.
  const buf = Buffer.from(h, "hex");
  if (buf.length * 2 === h.length) return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  if (!HEX_RE.test(h)) {
    const bad = [...h].find((c) => !/[0-9a-fA-F]/.test(c))!;
    const cp = bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    throw new Error(`encoding/hex: invalid byte: U+${cp} '${bad}'`);
  }
  throw new Error("encoding/hex: odd length hex string");
}

/** Each byte's two hex digits as a little-endian uint16 (low byte = first digit). */
const HEX_PAIRS = new Uint16Array(256);
for (let i = 0; i < 256; i++)
  HEX_PAIRS[i] = "0123456789abcdef".charCodeAt(i >> 4) | ("0123456789abcdef".charCodeAt(i & 15) << 8);

/**
 * Writes the lowercase hex of `bytes` into `out` at `off`; returns the offset past it. Used where a 1 KiB
 * container goes straight into a response buffer: toString("hex") would build a 2 KiB string only to copy it.
 */
export function writeHex(bytes: Uint8Array, out: Uint8Array, off: number): number {
  for (let i = 0; i < bytes.length; i++) {
    const pair = HEX_PAIRS[bytes[i]!]!;
    out[off++] = pair & 0xff;
    out[off++] = pair >>> 8;
  }
  return off;
}
