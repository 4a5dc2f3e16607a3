/** `--contract-metadata-file`: curated fields by address; a malformed file stops the start with a reason. */
import {writeFileSync} from "node:fs";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {loadContractMetadata} from "../../../../src/dataApi/evm/contractMetadata.js";
import {redactUrl} from "../../../../src/util/url.js";
import {tempDir} from "../../../helpers/node.js";

const file = (content: string): string => {
  const p = path.join(tempDir(), "contracts.json");
  writeFileSync(p, content);
  return p;
};

describe("contract metadata file", () => {
  it("keys the curated fields by lowercase address", () => {
    const m = loadContractMetadata(
      file(JSON.stringify({"0xAbCd000000000000000000000000000000000001": {name: "Curated", tags: ["a"]}})),
    );
    expect(m.get("0xabcd000000000000000000000000000000000001")).toEqual({name: "Curated", tags: ["a"]});
  });

  it.each([
    ["not JSON", "{", /contracts.json: /],
    ["an array", "[]", /expected a JSON object keyed by 0x address/],
    ["a bad address", JSON.stringify({"0x12": {}}), /"0x12" is not a 0x address/],
    ["a non-object entry", JSON.stringify({["0x" + "1".repeat(40)]: "x"}), /is not an object/],
    ["a chain field", JSON.stringify({["0x" + "1".repeat(40)]: {decimals: 3}}), /decimals comes from the chain/],
  ])("refuses %s", (_name, content, message) => {
    expect(() => loadContractMetadata(file(content))).toThrow(message);
  });
});

describe("the RPC URL /v1/chains shows", () => {
  it.each([
    ["http://127.0.0.1:9650/ext/bc/C/rpc", "http://127.0.0.1:9650/ext/bc/C/rpc"],
    [
      "https://user:secret@node.example:443/ext/bc/2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5/rpc?token=abc",
      "https://node.example/ext/bc/2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5/rpc",
    ],
    ["https://avax-mainnet.example.io/v3/0123456789abcdef", "https://avax-mainnet.example.io/…"],
    ["http://127.0.0.1:8545", "http://127.0.0.1:8545"],
    ["http://127.0.0.1:8545/", "http://127.0.0.1:8545"],
    ["https://node.example/ext/bc/C/rpc/", "https://node.example/ext/bc/C/rpc"],
    ["https://relay.example/aggregate-signatures", "https://relay.example/aggregate-signatures"],
    ["https://node.example/ext/bc/C/rpc#key", "https://node.example/ext/bc/C/rpc"],
    ["https://node.example/ext/bc/C/rpc;key=1", "https://node.example/…"],
    ["not a url", "<invalid URL>"],
    // A key after an AvalancheGo path (a provider's form), and the exact shapes kept.
    [
      "https://avalanche-mainnet.core.chainstack.com/ext/bc/C/rpc/6e2ea2c0aa7a4e9e",
      "https://avalanche-mainnet.core.chainstack.com/…",
    ],
    ["https://node.example/ext/bc/P", "https://node.example/ext/bc/P"],
    ["https://node.example/ext/info", "https://node.example/ext/info"],
    ["https://node.example/ext/KEY123", "https://node.example/…"],
    ["HTTPS://U:P@node.example/ext/bc/C/ws", "https://node.example/ext/bc/C/ws"],
  ])("%s is shown as %s", (raw, shown) => {
    expect(redactUrl(raw)).toBe(shown);
  });
});
