import {describe, expect, it} from "vitest";
import {knownMethodName, methodOf} from "../../../../src/dataApi/evm/methods.js";

const TO = "0x000000000000000000000000000000000000dEaD";

describe("methodOf", () => {
  it.each([
    ["0xa9059cbb", "transfer(address,uint256)"],
    ["0x095ea7b3", "approve(address,uint256)"],
    ["0x23b872dd", "transferFrom(address,address,uint256)"],
    ["0xf242432a", "safeTransferFrom(address,address,uint256,uint256,bytes)"],
    ["0x42842e0e", "safeTransferFrom(address,address,uint256)"],
    ["0xb88d4fde", "safeTransferFrom(address,address,uint256,bytes)"],
    ["0x2eb2c2d6", "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)"],
    ["0xa22cb465", "setApprovalForAll(address,bool)"],
    ["0xd505accf", "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)"],
    ["0xd0e30db0", "deposit()"],
    ["0x2e1a7d4d", "withdraw(uint256)"],
    ["0x38ed1739", "swapExactTokensForTokens(uint256,uint256,address[],address,uint256)"],
    ["0x7ff36ab5", "swapExactETHForTokens(uint256,address[],address,uint256)"],
    ["0xa2a1623d", "swapExactAVAXForTokens(uint256,address[],address,uint256)"],
    ["0x414bf389", "exactInputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))"],
    ["0x04e45aaf", "exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))"],
    ["0xac9650d8", "multicall(bytes[])"],
    ["0x5ae401dc", "multicall(uint256,bytes[])"],
    ["0x252dba42", "aggregate((address,bytes)[])"],
    ["0x82ad56cb", "aggregate3((address,bool,bytes)[])"],
    ["0xccb5f809", "receiveCrossChainMessage(uint32,address)"],
    [
      "0xfc2d6197",
      "retryMessageExecution(bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))",
    ],
  ])("names selector %s", (hash, name) => {
    expect(methodOf({to: TO, input: hash + "00".repeat(64)})).toEqual({
      callType: "CONTRACT_CALL",
      methodHash: hash,
      methodName: name,
    });
  });

  it("gives the hash but no name for an unknown selector, and is case-insensitive", () => {
    expect(methodOf({to: TO, input: "0xDEADBEEF0000"})).toEqual({callType: "CONTRACT_CALL", methodHash: "0xdeadbeef"});
    expect(knownMethodName("0xA9059CBB")).toBe("transfer(address,uint256)");
  });

  it("calls empty input a native transfer and a missing `to` a creation (the SDK's fixed names)", () => {
    expect(methodOf({to: TO, input: "0x"})).toEqual({
      callType: "NATIVE_TRANSFER",
      methodHash: "",
      methodName: "Native Transfer",
    });
    expect(methodOf({to: TO, input: ""})).toMatchObject({callType: "NATIVE_TRANSFER", methodHash: ""});
    expect(methodOf({to: null, input: "0x6080604052"})).toEqual({
      callType: "CONTRACT_CREATION",
      methodHash: "",
      methodName: "Contract Created",
    });
  });

  it("takes calldata shorter than a selector as its hash", () => {
    expect(methodOf({to: TO, input: "0x01"})).toEqual({callType: "CONTRACT_CALL", methodHash: "0x01"});
  });
});
