import {afterAll, beforeAll, describe, expect, it} from "vitest";
import solc from "solc";
import {Anvil} from "../../../../src/dev/evm/anvil.js";
import {
  decodeTextResult,
  readTokenMetadata,
  readTokenUri,
  type EthCall,
} from "../../../../src/dataApi/evm/tokenMetadata.js";
import {encodeAbi} from "../../../../src/evm/abi.js";
import {quietLogger} from "../../../helpers/sql.js";

const DEPLOYER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

// Tiny contracts, one per behaviour the reader must survive.
const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Erc20 {
  function name() external pure returns (string memory) { return "Test Token \\u00e9"; }
  function symbol() external pure returns (string memory) { return "TT"; }
  function decimals() external pure returns (uint8) { return 6; }
  function totalSupply() external pure returns (uint256) { return 1000; }
}
contract Legacy {
  function name() external pure returns (bytes32) { return "Maker"; }
  function symbol() external pure returns (bytes32) { return "MKR"; }
  function decimals() external pure returns (uint256) { return 18; }
  function totalSupply() external pure returns (uint256) { return 1; }
}
contract Nft721 {
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0x01ffc9a7 || id == 0x80ac58cd || id == 0x5b5e139f; }
  function name() external pure returns (string memory) { return "Kitties"; }
  function symbol() external pure returns (string memory) { return "KIT"; }
  function tokenURI(uint256 id) external pure returns (string memory) { require(id < 10, "no such token"); return "ipfs://QmX/1.json"; }
}
contract Multi1155 {
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0x01ffc9a7 || id == 0xd9b67a26; }
  function uri(uint256) external pure returns (string memory) { return "https://x/{id}.json"; }
}
contract Reverter {
  fallback() external { revert("nope"); }
}
contract Garbage {
  fallback(bytes calldata) external returns (bytes memory) { return hex"deadbe"; }
}
contract YesToAll {
  // Answers true to any supportsInterface, 0xffffffff included: not really ERC-165.
  fallback(bytes calldata) external returns (bytes memory) { return abi.encode(uint256(1)); }
}
contract Huge {
  function name() external pure returns (string memory) { return string(new bytes(10000)); }
  function symbol() external pure returns (string memory s) {
    bytes memory b = new bytes(5000);
    for (uint i = 0; i < b.length; i++) b[i] = "a";
    s = string(b);
  }
  function decimals() external pure returns (uint8) { return 18; }
  function totalSupply() external pure returns (uint256) { return 1; }
}
contract BadUtf8 {
  function name() external pure returns (bytes32) { return hex"fffe41"; }
  function symbol() external pure returns (string memory) { bytes memory b = hex"c328"; return string(b); }
  function decimals() external pure returns (uint256) { return 300; }
  function totalSupply() external pure returns (uint256) { return 1; }
}
`;

function compile(): Record<string, string> {
  const input = {
    language: "Solidity",
    sources: {"T.sol": {content: SOURCE}},
    settings: {evmVersion: "cancun", outputSelection: {"*": {"*": ["evm.bytecode.object"]}}},
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: {severity: string; formattedMessage: string}[];
    contracts: Record<string, Record<string, {evm: {bytecode: {object: string}}}>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  return Object.fromEntries(Object.entries(out.contracts["T.sol"]!).map(([k, v]) => [k, "0x" + v.evm.bytecode.object]));
}

describe("readTokenMetadata on anvil", () => {
  let anvil: Anvil;
  let call: EthCall;
  const at: Record<string, string> = {};

  type Receipt = {contractAddress: string; status: string};
  // Auto-mining answers the send before the block is in: poll for the receipt.
  const receiptOf = async (hash: string): Promise<Receipt> => {
    for (let i = 0; i < 100; i++) {
      const r = (await anvil.rawCall("eth_getTransactionReceipt", [hash])) as Receipt | null;
      if (r !== null) return r;
      await new Promise((res) => setTimeout(res, 20));
    }
    throw new Error(`no receipt for ${hash}`);
  };

  beforeAll(async () => {
    const bytecode = compile();
    anvil = await Anvil.start({chainId: 43112, genesisTimestamp: 1700000000, mining: "auto"}, {logger: quietLogger()});
    call = async (to, data, block) => (await anvil.rawCall("eth_call", [{to, data}, block ?? "latest"])) as string;
    for (const [name, code] of Object.entries(bytecode)) {
      const hash = (await anvil.rawCall("eth_sendTransaction", [
        {from: DEPLOYER, data: code, gas: "0x1000000"},
      ])) as string;
      const receipt = await receiptOf(hash);
      expect(receipt.status, name).toBe("0x1");
      at[name] = receipt.contractAddress;
    }
  }, 180_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  it("reads a string-returning ERC-20", async () => {
    expect(await readTokenMetadata(call, at.Erc20!)).toEqual({
      ercType: "ERC-20",
      name: "Test Token é",
      symbol: "TT",
      decimals: 6,
    });
  });

  it("reads a bytes32-returning legacy token, right-trimmed", async () => {
    expect(await readTokenMetadata(call, at.Legacy!)).toEqual({
      ercType: "ERC-20",
      name: "Maker",
      symbol: "MKR",
      decimals: 18,
    });
  });

  it("detects ERC-721 and ERC-1155 by ERC-165, with decimals 0", async () => {
    expect(await readTokenMetadata(call, at.Nft721!)).toEqual({
      ercType: "ERC-721",
      name: "Kitties",
      symbol: "KIT",
      decimals: 0,
    });
    expect(await readTokenMetadata(call, at.Multi1155!)).toEqual({ercType: "ERC-1155", decimals: 0});
  });

  it("reads token URIs, substituting ERC-1155's {id}", async () => {
    expect(await readTokenUri(call, at.Nft721!, "ERC-721", 3n)).toBe("ipfs://QmX/1.json");
    expect(await readTokenUri(call, at.Nft721!, "ERC-721", 11n)).toBeUndefined();
    expect(await readTokenUri(call, at.Multi1155!, "ERC-1155", 255n)).toBe(`https://x/${"0".repeat(62)}ff.json`);
    expect(await readTokenUri(call, at.Garbage!, "ERC-721", 1n)).toBeUndefined();
    expect(await readTokenUri(call, at.Reverter!, "ERC-1155", 1n)).toBeUndefined();
  });

  it("calls a contract that reverts everything, or answers garbage, UNKNOWN", async () => {
    expect(await readTokenMetadata(call, at.Reverter!)).toEqual({ercType: "UNKNOWN"});
    expect(await readTokenMetadata(call, at.Garbage!)).toEqual({ercType: "UNKNOWN"});
    // An address with no code at all answers empty data to everything.
    expect(await readTokenMetadata(call, "0x000000000000000000000000000000000000dEaD")).toEqual({ercType: "UNKNOWN"});
  });

  it("does not take a contract answering true to every interface for an NFT", async () => {
    const m = await readTokenMetadata(call, at.YesToAll!);
    expect(m.ercType).not.toBe("ERC-721");
    expect(m.ercType).not.toBe("ERC-1155");
  });

  it("caps huge strings and drops NUL-filled ones", async () => {
    const m = await readTokenMetadata(call, at.Huge!);
    expect(m).toEqual({ercType: "ERC-20", symbol: "a".repeat(256), decimals: 18});
  });

  it("drops invalid UTF-8 and out-of-range decimals", async () => {
    // decimals 300 is no uint8, so it is not an ERC-20 either.
    expect(await readTokenMetadata(call, at.BadUtf8!)).toEqual({ercType: "UNKNOWN"});
  });

  it("never throws when the call itself fails (transport)", async () => {
    const failing: EthCall = async () => {
      throw new Error("connection refused");
    };
    expect(await readTokenMetadata(failing, at.Erc20!)).toEqual({ercType: "UNKNOWN"});
    const notHex: EthCall = async () => "0xzz";
    expect(await readTokenMetadata(notHex, at.Erc20!)).toEqual({ercType: "UNKNOWN"});
  });
});

describe("decodeTextResult", () => {
  it("reads string, then bytes32, and refuses the rest", () => {
    expect(decodeTextResult(encodeAbi(["string"], ["MKR"]))).toBe("MKR");
    const b32 = new Uint8Array(32);
    b32.set(new TextEncoder().encode("SAI"));
    expect(decodeTextResult(b32)).toBe("SAI");
    expect(decodeTextResult(new Uint8Array(32))).toBeUndefined();
    expect(decodeTextResult(new Uint8Array(31).fill(0x41))).toBeUndefined();
    // A string whose length word points far past the data.
    const bad = encodeAbi(["uint256", "uint256"], [32n, 1n << 200n]);
    expect(decodeTextResult(bad)).toBeUndefined();
    // A surrogate pair at the cap is kept whole.
    expect(Array.from(decodeTextResult(encodeAbi(["string"], ["😀".repeat(300)]))!)).toHaveLength(256);
  });
});
