/** Byte encoders that read a view in place: only the view's bytes, never the rest of its buffer. */
import {expect, it} from "vitest";
import {bytesToBase64, bytesToHex, bytesToLatin1} from "../../../src/util/hex.js";

it("encodes only a view's bytes, at its offset, in hex, latin1 and base64", () => {
  const whole = Uint8Array.from({length: 64}, (_, i) => (i * 37) & 0xff);
  const view = whole.subarray(7, 7 + 33);
  const copy = Uint8Array.from(view);
  expect(bytesToHex(view)).toBe(Buffer.from(copy).toString("hex"));
  expect(bytesToLatin1(view)).toBe(Buffer.from(copy).toString("latin1"));
  expect(bytesToBase64(view)).toBe(Buffer.from(copy).toString("base64"));
  expect(bytesToBase64(new Uint8Array(0))).toBe("");
  expect(bytesToBase64(Uint8Array.of(0xfb, 0xff))).toBe("+/8=");
});
