/**
 * A genesis config file read as AvalancheGo builds its genesis: the initial supply, the initial stakers' split of
 * the staked allocations and their P-chain genesis order, and the P-chain UTXOs; on a small file worked by hand
 * (AvalancheGo's own genesis files are not part of this repository).
 */
import {bech32} from "@scure/base";
import {describe, expect, it} from "vitest";
import {
  cChainGenesisAllocationWei,
  genesisInitialSupply,
  genesisValidators,
  parseGenesisConfig,
  pChainGenesisAllocations,
} from "../../../src/genesis/config.js";

const addr = (n: number): Uint8Array => new Uint8Array(20).fill(n);
const x = (n: number): string => `X-local${bech32.encode("local", bech32.toWords(addr(n)), 90).slice("local".length)}`;

// Staked: A (unlocks 30 @100, 55 @200) and B (35 @100): 120 over 3 stakers, 40 each. C is free, with amounts past 2^53.
const text = `{
  "networkID": 12345,
  "allocations": [
    {"ethAddr": "0x0000000000000000000000000000000000000000", "avaxAddr": "${x(1)}", "initialAmount": 7, "unlockSchedule": [{"amount": 30, "locktime": 100}, {"amount": 55, "locktime": 200}]},
    {"ethAddr": "0x0000000000000000000000000000000000000000", "avaxAddr": "${x(2)}", "initialAmount": 0, "unlockSchedule": [{"amount": 35, "locktime": 100}]},
    {"ethAddr": "0x0000000000000000000000000000000000000000", "avaxAddr": "${x(3)}", "initialAmount": 1152921504606846976, "unlockSchedule": [{"amount": 0, "locktime": 5}, {"amount": 9007199254740993, "locktime": 1500}]}
  ],
  "startTime": 1000,
  "initialStakeDuration": 900,
  "initialStakeDurationOffset": 100,
  "initialStakedFunds": ["${x(2)}", "${x(1)}"],
  "initialStakers": [
    {"nodeID": "NodeID-a", "rewardAddress": "${x(7)}", "delegationFee": 20000},
    {"nodeID": "NodeID-b", "rewardAddress": "${x(8)}", "delegationFee": 1000000},
    {"nodeID": "NodeID-c", "rewardAddress": "${x(9)}", "delegationFee": 0}
  ],
  "cChainGenesis": "{\\"config\\":{\\"chainId\\":43112},\\"gasLimit\\":\\"0x5f5e100\\"}",
  "message": "numbers in strings: 123, stay"
}`;

describe("genesis config", () => {
  const c = parseGenesisConfig(text);

  it("parses integers past 2^53 exactly and leaves numbers inside strings alone", () => {
    expect(c.allocations[2]!.initialAmount).toBe(1n << 60n);
    expect(c.allocations[2]!.unlockSchedule[1]!.amount).toBe(9_007_199_254_740_993n);
    expect(c.cChainGenesis).toBe('{"config":{"chainId":43112},"gasLimit":"0x5f5e100"}');
    expect(c.message).toBe("numbers in strings: 123, stay");
    expect(c.initialStakedFunds).toEqual([addr(2), addr(1)]);
  });

  it("sums every allocation's initial amount and unlocks into the initial supply", () => {
    expect(genesisInitialSupply(c)).toBe(7n + 30n + 55n + 35n + (1n << 60n) + 9_007_199_254_740_993n);
  });

  it("splits the staked unlocks 40/40/40 and orders the validators as the end-time heap holds them", () => {
    const v = genesisValidators(c);
    // Pushed with ends 1900, 1800, 1700: the heap array becomes [c, a, b].
    expect(v.map((s) => [s.nodeId, s.endTime, s.weight])).toEqual([
      ["NodeID-c", 1700n, 40n],
      ["NodeID-a", 1900n, 40n],
      ["NodeID-b", 1800n, 40n],
    ]);
    expect(v.every((s) => s.startTime === 1000n)).toBe(true);
    // a: A's 30 @100 and the first 10 of its 55 @200; b: the next 40 @200; c: the last 5 @200 and B's 35 @100, sorted by locktime.
    expect(v[1]!.staked).toEqual([
      {address: addr(1), amount: 30n, locktime: 100n},
      {address: addr(1), amount: 10n, locktime: 200n},
    ]);
    expect(v[2]!.staked).toEqual([{address: addr(1), amount: 40n, locktime: 200n}]);
    expect(v[0]!.staked).toEqual([
      {address: addr(2), amount: 35n, locktime: 100n},
      {address: addr(1), amount: 5n, locktime: 200n},
    ]);
    expect(v[0]!.rewardAddress).toEqual(addr(9));
    expect(v[2]!.delegationFee).toBe(1_000_000);
  });

  it("makes P-chain UTXOs of the free allocations' nonzero unlocks", () => {
    expect(pChainGenesisAllocations(c)).toEqual([
      {outputIndex: 0, address: addr(3), amount: 9_007_199_254_740_993n, locktime: 1500n},
    ]);
  });

  it("refuses amounts that are not uint64", () => {
    expect(() =>
      parseGenesisConfig(text.replace('"initialAmount": 7', '"initialAmount": 18446744073709551616')),
    ).toThrow(/uint64/);
    expect(() => parseGenesisConfig(text.replace('"initialAmount": 7', '"initialAmount": -7'))).toThrow(/unsigned/);
  });

  it("refuses a network ID or a delegation fee past uint32, as Go's decoder into AvalancheGo's uint32 fields does", () => {
    expect(() => parseGenesisConfig(text.replace('"networkID": 12345', '"networkID": 4294967296'))).toThrow(
      /networkID exceeds uint32/,
    );
    expect(() => parseGenesisConfig(text.replace('"delegationFee": 20000', '"delegationFee": 4294967296'))).toThrow(
      /initialStakers\[0\]\.delegationFee exceeds uint32/,
    );
    expect(
      parseGenesisConfig(text.replace('"delegationFee": 20000', '"delegationFee": 4294967295')).initialStakers[0]!
        .delegationFee,
    ).toBe(4_294_967_295);
  });

  it("reads hostile text in one pass: an unterminated string of 200,000 escaped quotes is refused at once", () => {
    const hostile = `{"message": "${'\\"'.repeat(200_000)}`;
    const started = performance.now();
    expect(() => parseGenesisConfig(hostile)).toThrow(/not JSON/);
    // Quadratic scanning of this text (one pass per quote) takes minutes; one pass takes milliseconds.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(() => parseGenesisConfig('{"networkID": -}')).toThrow(/not JSON/);
  });

  it("sums the C-chain genesis allocation in wei, hex or decimal, as local's 50M AVAX to 0x8db9...", () => {
    expect(cChainGenesisAllocationWei(c)).toBe(0n);
    // genesis/genesis_local.json's cChainGenesis alloc (AvalancheGo 1cf1fc3d), and a decimal balance beside it.
    const alloc = {
      "8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC": {balance: "0x295BE96E64066972000000"},
      "0000000000000000000000000000000000000001": {balance: "7"},
      "0000000000000000000000000000000000000002": {code: "0x00"},
    };
    const local = {...c, cChainGenesis: JSON.stringify({config: {chainId: 43112}, alloc})};
    expect(cChainGenesisAllocationWei(local)).toBe(50_000_000n * 10n ** 18n + 7n);
    expect(() => cChainGenesisAllocationWei({...c, cChainGenesis: '{"alloc":{"0x01":{"balance":"-1"}}}'})).toThrow(
      /balance is not a number/,
    );
    expect(() => cChainGenesisAllocationWei({...c, cChainGenesis: "{"})).toThrow(/cChainGenesis is not JSON/);
  });
});
