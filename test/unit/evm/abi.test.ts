/**
 * The small ABI codec: round trips of every supported type, known vectors (the Solidity docs, ERC-20 calldata, the
 * Transfer topic), and decoding untrusted data: offsets and lengths past the data, dirty high bytes, bools above 1,
 * all refused with AbiError and without reading past the bytes given (a subarray of a larger buffer), then a fuzz of
 * random and mutated inputs that must never raise anything but AbiError.
 */
import {describe, expect, it} from "vitest";
import {
  AbiError,
  decodeAbi,
  encodeAbi,
  encodeCall,
  eventTopic,
  selector,
  type AbiType,
  type AbiValue,
} from "../../../src/evm/abi.js";
import {bytesToHex, hexToBytes} from "../../../src/evm/hex.js";
import {mulberry32 as prng} from "../../../src/util/prng.js";

const w = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, "0");
const hex = (b: Uint8Array): string => bytesToHex(b);
const ALICE = "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65";
const BOB = "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc";

describe("selectors and topics", () => {
  it("match the well-known values", () => {
    expect(selector("transfer(address,uint256)")).toBe("0xa9059cbb");
    expect(selector("balanceOf(address)")).toBe("0x70a08231");
    expect(selector("supportsInterface(bytes4)")).toBe("0x01ffc9a7");
    expect(selector("sam(bytes,bool,uint256[])")).toBe("0xa5643bf2");
    expect(eventTopic("Transfer(address,address,uint256)")).toBe(
      "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
    );
    expect(eventTopic("TransferSingle(address,address,address,uint256,uint256)")).toBe(
      "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62",
    );
    expect(eventTopic("TransferBatch(address,address,address,uint256[],uint256[])")).toBe(
      "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb",
    );
  });
});

describe("known vectors", () => {
  it("ERC-20 transfer(address,uint256) calldata", () => {
    // As in any USDC/USDT transfer: selector ‖ address left-padded ‖ amount.
    const data = encodeCall("transfer(address,uint256)", ["address", "uint256"], [BOB, 1_000_000n]);
    expect(data).toBe("0xa9059cbb" + "000000000000000000000000" + BOB.slice(2) + w(1_000_000n));
    expect(decodeAbi(["address", "uint256"], hexToBytes(data.slice(10)))).toEqual([BOB, 1_000_000n]);
  });

  it('the Solidity docs\' sam(bytes,bool,uint256[]) with ("dave", true, [1,2,3])', () => {
    const want =
      "0xa5643bf2" +
      "0000000000000000000000000000000000000000000000000000000000000060" +
      "0000000000000000000000000000000000000000000000000000000000000001" +
      "00000000000000000000000000000000000000000000000000000000000000a0" +
      "0000000000000000000000000000000000000000000000000000000000000004" +
      "6461766500000000000000000000000000000000000000000000000000000000" +
      "0000000000000000000000000000000000000000000000000000000000000003" +
      "0000000000000000000000000000000000000000000000000000000000000001" +
      "0000000000000000000000000000000000000000000000000000000000000002" +
      "0000000000000000000000000000000000000000000000000000000000000003";
    expect(
      encodeCall(
        "sam(bytes,bool,uint256[])",
        ["bytes", "bool", "uint256[]"],
        [new TextEncoder().encode("dave"), true, [1n, 2n, 3n]],
      ),
    ).toBe(want);
    const [b, flag, arr] = decodeAbi(["bytes", "bool", "uint256[]"], hexToBytes(want.slice(10)));
    expect(new TextDecoder().decode(b as Uint8Array)).toBe("dave");
    expect(flag).toBe(true);
    expect(arr).toEqual([1n, 2n, 3n]);
  });

  it("an ERC-20 name() answer (string) as a token returns it", () => {
    const answer = w(32) + w(10) + bytesToHex(new TextEncoder().encode("Test Token")).padEnd(64, "0");
    expect(decodeAbi(["string"], hexToBytes(answer))).toEqual(["Test Token"]);
  });
});

describe("round trips", () => {
  const cases: Array<[string, AbiType[], AbiValue[]]> = [
    ["uint256 zero and max", ["uint256", "uint256"], [0n, (1n << 256n) - 1n]],
    ["uint8 edges", ["uint8", "uint8"], [0, 255]],
    ["address", ["address", "address"], [ALICE, "0x0000000000000000000000000000000000000000"]],
    ["bool", ["bool", "bool"], [true, false]],
    ["bytes32", ["bytes32"], [hexToBytes("ab".repeat(32))]],
    ["empty string", ["string"], [""]],
    ["short string", ["string"], ["TT"]],
    ["exactly 32 bytes", ["string"], ["x".repeat(32)]],
    ["long multi-byte string", ["string"], ["Ünïcødé 🚀 ".repeat(20)]],
    ["empty bytes", ["bytes"], [new Uint8Array()]],
    ["33 bytes", ["bytes"], [Uint8Array.from({length: 33}, (_, i) => i + 1)]],
    ["empty arrays", ["uint256[]", "address[]"], [[], []]],
    [
      "long arrays",
      ["uint256[]", "address[]"],
      [Array.from({length: 100}, (_, i) => BigInt(i) << 200n), Array.from({length: 50}, () => BOB)],
    ],
    [
      "mixed heads and tails",
      ["string", "uint256", "bytes", "address", "uint256[]", "bool", "string"],
      ["first", 7n, hexToBytes("deadbeef"), ALICE, [1n, 2n], true, "y".repeat(100)],
    ],
    ["no values", [], []],
  ];
  it.each(cases)("%s", (_name, types, values) => {
    const enc = encodeAbi(types, values);
    expect(enc.length % 32).toBe(0);
    const dec = decodeAbi(types, enc);
    expect(dec.map((v) => (v instanceof Uint8Array ? hex(v) : v))).toEqual(
      values.map((v) => (v instanceof Uint8Array ? hex(v) : v)),
    );
  });

  it("bytes given as hex encode as the same bytes", () => {
    expect(hex(encodeAbi(["bytes"], ["0xdeadbeef"]))).toBe(hex(encodeAbi(["bytes"], [hexToBytes("deadbeef")])));
    expect(hex(encodeAbi(["bytes32"], ["0x" + "11".repeat(32)]))).toBe("11".repeat(32));
  });

  it("string data is padded to whole words with zeros", () => {
    expect(hex(encodeAbi(["string"], ["abc"]))).toBe(w(32) + w(3) + "616263".padEnd(64, "0"));
    expect(hex(encodeAbi(["string"], [""]))).toBe(w(32) + w(0));
  });
});

describe("encoding refuses what it cannot encode", () => {
  it.each<[string, AbiType[], AbiValue[]]>([
    ["a negative uint", ["uint256"], [-1n]],
    ["a uint of 257 bits", ["uint256"], [1n << 256n]],
    ["a uint8 above 255", ["uint8"], [256]],
    ["a short address", ["address"], ["0x1234"]],
    ["an address that is not hex", ["address"], ["0x" + "zz".repeat(20)]],
    ["a bytes32 of 31 bytes", ["bytes32"], [new Uint8Array(31)]],
    ["types and values of different lengths", ["uint256", "uint256"], [1n]],
  ])("%s", (_name, types, values) => {
    expect(() => encodeAbi(types, values)).toThrow(AbiError);
  });
});

describe("decoding refuses bad data", () => {
  const refuse = (types: AbiType[], data: string | Uint8Array, message?: RegExp): void => {
    const bytes = typeof data === "string" ? hexToBytes(data) : data;
    let err: unknown;
    try {
      decodeAbi(types, bytes);
    } catch (e) {
      err = e;
    }
    expect(err, `decoding ${types.join(",")} should fail`).toBeInstanceOf(AbiError);
    if (message) expect((err as Error).message).toMatch(message);
  };

  it("short data", () => {
    refuse(["uint256"], "");
    refuse(["uint256"], "00".repeat(31));
    refuse(["uint256", "uint256"], w(1));
  });
  it("an offset past the data", () => {
    refuse(["string"], w(64) + w(0), /past/);
    refuse(["bytes"], w(1n << 200n), /offset/);
    refuse(["uint256[]"], w(33) + w(0));
    refuse(["string"], w((1n << 256n) - 1n) + w(0), /offset/);
  });
  it("a length past the data", () => {
    refuse(["string"], w(32) + w(33) + "61".repeat(32), /length/);
    refuse(["bytes"], w(32) + w((1n << 256n) - 1n), /length/);
    refuse(["uint256[]"], w(32) + w(3) + w(1) + w(2), /length/);
    refuse(["address[]"], w(32) + w(1n << 250n), /length/);
  });
  it("an address with dirty high bytes", () => {
    refuse(["address"], "01" + "00".repeat(11) + ALICE.slice(2), /dirty/);
    refuse(["address[]"], w(32) + w(1) + "ff".repeat(12) + ALICE.slice(2), /dirty/);
  });
  it("a bool above 1", () => {
    refuse(["bool"], w(2), /bool/);
    refuse(["bool"], "80" + "00".repeat(30) + "01", /bool/);
  });
  it("a uint8 above 255", () => {
    refuse(["uint8"], w(256), /uint8/);
  });

  it("never reads past the given bytes of a larger buffer", () => {
    // The encoding of "hello" sits in a larger buffer; the view handed over stops before its data.
    const full = encodeAbi(["string", "uint256[]"], ["hello".repeat(10), [1n, 2n, 3n]]);
    const backing = new Uint8Array(full.length + 256).fill(0xff);
    backing.set(full);
    for (let cut = 0; cut < full.length; cut++) {
      const view = backing.subarray(0, cut);
      expect(() => decodeAbi(["string", "uint256[]"], view), `cut at ${cut}`).toThrow(AbiError);
    }
    expect(decodeAbi(["string", "uint256[]"], backing.subarray(0, full.length))).toEqual([
      "hello".repeat(10),
      [1n, 2n, 3n],
    ]);
  });

  it("a string that is not UTF-8 decodes with replacement characters, not an exception", () => {
    expect(decodeAbi(["string"], hexToBytes(w(32) + w(2) + "fffe".padEnd(64, "0")))).toEqual(["\uFFFD\uFFFD"]);
  });
});

describe("fuzz: decoding untrusted data raises nothing but AbiError", () => {
  const TYPES: AbiType[] = [
    "uint256",
    "uint8",
    "address",
    "bool",
    "bytes32",
    "bytes",
    "string",
    "uint256[]",
    "address[]",
  ];

  const check = (types: AbiType[], data: Uint8Array): "ok" | "refused" => {
    try {
      const out = decodeAbi(types, data);
      expect(out).toHaveLength(types.length);
      return "ok";
    } catch (e) {
      if (!(e instanceof AbiError))
        throw new Error(`decoding ${types.join(",")} from 0x${hex(data)} threw ${String(e)}`);
      return "refused";
    }
  };

  it("2,000 random byte strings", () => {
    const rnd = prng(20260101);
    const seen = {ok: 0, refused: 0};
    for (let i = 0; i < 2000; i++) {
      const types = Array.from({length: 1 + Math.floor(rnd() * 4)}, () => TYPES[Math.floor(rnd() * TYPES.length)]!);
      // Words of small numbers are likelier to be plausible offsets and lengths than uniform bytes.
      const words = Math.floor(rnd() * 12);
      const data = new Uint8Array(words * 32 + (rnd() < 0.2 ? Math.floor(rnd() * 32) : 0));
      for (let k = 0; k < data.length; k++) data[k] = rnd() < 0.5 ? 0 : Math.floor(rnd() * 256);
      for (let k = 0; k < words; k++)
        if (rnd() < 0.5) data.set(hexToBytes(w(Math.floor(rnd() * (data.length + 64)))), k * 32);
      seen[check(types, data)]++;
    }
    expect(seen.ok + seen.refused).toBe(2000);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it("2,000 mutations of valid encodings", () => {
    const rnd = prng(7);
    const values: Record<AbiType, () => AbiValue> = {
      uint256: () => BigInt(Math.floor(rnd() * 1e9)),
      uint8: () => Math.floor(rnd() * 256),
      address: () => ALICE,
      bool: () => rnd() < 0.5,
      bytes32: () => new Uint8Array(32).fill(7),
      bytes: () => new Uint8Array(Math.floor(rnd() * 70)).fill(9),
      string: () => "s".repeat(Math.floor(rnd() * 70)),
      "uint256[]": () => Array.from({length: Math.floor(rnd() * 5)}, (_, i) => BigInt(i)),
      "address[]": () => Array.from({length: Math.floor(rnd() * 5)}, () => BOB),
    };
    const seen = {ok: 0, refused: 0};
    for (let i = 0; i < 2000; i++) {
      const types = Array.from({length: 1 + Math.floor(rnd() * 4)}, () => TYPES[Math.floor(rnd() * TYPES.length)]!);
      const data = encodeAbi(
        types,
        types.map((t) => values[t]()),
      );
      const mutated = data.slice(0, rnd() < 0.3 ? Math.floor(rnd() * (data.length + 1)) : data.length);
      for (let m = 0; m < 1 + Math.floor(rnd() * 3); m++) {
        if (mutated.length === 0) break;
        const at = Math.floor(rnd() * mutated.length);
        mutated[at] = rnd() < 0.5 ? Math.floor(rnd() * 256) : mutated[at]! ^ (1 << Math.floor(rnd() * 8));
      }
      seen[check(types, mutated)]++;
    }
    expect(seen.ok).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });
});
