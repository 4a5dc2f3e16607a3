/**
 * The checker the SDK conformance test relies on: it must accept an answer that fits the SDK's model and name every
 * way one does not (a missing field, a field the model lacks, a wrong type, a value outside an enum, a union none of
 * whose members fits).
 */
import {describe, expect, it} from "vitest";
import {GlacierModels} from "../../helpers/glacierModels.js";

const models = new GlacierModels();

const details = {
  validatorDetails: {
    validatorCount: 2,
    totalAmountStaked: "5",
    estimatedAnnualStakingReward: "1",
    stakingDistributionByVersion: [{version: "avalanchego/1.13.0", amountStaked: "5", validatorCount: 2}],
    stakingRatio: "0.1",
  },
  delegatorDetails: {delegatorCount: 0, totalAmountStaked: "0"},
};

describe("GlacierModels", () => {
  it("accepts an answer that fits the model", () => {
    expect(models.check("PrimaryNetworkService", "getNetworkDetails", details)).toEqual([]);
  });

  it("names a missing field, a field the model lacks and a value of the wrong type", () => {
    const bad = {
      validatorDetails: {...details.validatorDetails, validatorCount: "2", extra: 1},
      delegatorDetails: {delegatorCount: 0},
    };
    expect(models.check("PrimaryNetworkService", "getNetworkDetails", bad)).toEqual([
      '$.validatorDetails.validatorCount: "2" is not number',
      "$.validatorDetails.extra: not a field of ValidatorsDetails",
      "$.delegatorDetails.totalAmountStaked: missing",
    ]);
  });

  it("checks the items of arrays, enum members and unions whole", () => {
    const block = {
      blockNumber: "1",
      blockHash: "h",
      parentHash: "p",
      blockTimestamp: 1,
      blockType: "x",
      txCount: 0,
      transactions: [],
      blockSizeBytes: 1,
    };
    expect(
      models.check("PrimaryNetworkBlocksService", "listLatestPrimaryNetworkBlocks", {
        blocks: [block],
        chainInfo: {chainName: "p-chain", network: "mainnet"},
      }),
    ).toEqual([]);
    const errors = models.check("PrimaryNetworkBlocksService", "listLatestPrimaryNetworkBlocks", {
      blocks: [{...block, txCount: null}],
      chainInfo: {chainName: "y-chain", network: "mainnet"},
    });
    expect(errors).toContain("$.blocks[0].txCount: null is not number");
    expect(errors).toContain('$.chainInfo.chainName: "y-chain" is not one of "p-chain", "x-chain", "c-chain"');
    // getTxByHash answers one of five models: a P-chain transaction lacking a field fits none of them.
    const union = models.check("PrimaryNetworkTransactionsService", "getTxByHash", {txHash: "t"});
    expect(union[0]).toMatch(/^\$: fits none of PChainTransaction \| XChainNonLinearTransaction/);
  });

  it("accepts the extra values it is given for an enum, and only those", () => {
    const answer = (network: string) => ({blocks: [], chainInfo: {chainName: "p-chain", network}});
    expect(models.check("PrimaryNetworkBlocksService", "listLatestPrimaryNetworkBlocks", answer("local"))).toHaveLength(
      1,
    );
    const local = new GlacierModels({extraValues: {Network: ["local"]}});
    expect(local.check("PrimaryNetworkBlocksService", "listLatestPrimaryNetworkBlocks", answer("local"))).toEqual([]);
    expect(local.check("PrimaryNetworkBlocksService", "listLatestPrimaryNetworkBlocks", answer("devnet"))).toHaveLength(
      1,
    );
  });

  it("lets an answer leave out or add only the fields it is told, on the model it is told", () => {
    const withExtra = {...details, delegatorDetails: {delegatorCount: 0, more: 1}};
    expect(models.check("PrimaryNetworkService", "getNetworkDetails", withExtra)).toEqual([
      "$.delegatorDetails.totalAmountStaked: missing",
      "$.delegatorDetails.more: not a field of DelegatorsDetails",
    ]);
    const lenient = new GlacierModels({
      omitted: {DelegatorsDetails: ["totalAmountStaked"]},
      extraFields: {DelegatorsDetails: ["more"]},
    });
    expect(lenient.check("PrimaryNetworkService", "getNetworkDetails", withExtra)).toEqual([]);
    // Elsewhere the same names are still refused.
    const elsewhere = {
      ...details,
      validatorDetails: {...details.validatorDetails, more: 1, totalAmountStaked: undefined},
    };
    expect(lenient.check("PrimaryNetworkService", "getNetworkDetails", elsewhere)).toEqual([
      "$.validatorDetails.totalAmountStaked: missing",
      "$.validatorDetails.more: not a field of ValidatorsDetails",
    ]);
  });

  it("refuses a service or method the SDK does not have", () => {
    expect(() => models.check("PrimaryNetworkService", "noSuchMethod", {})).toThrow(/no method noSuchMethod/);
    expect(() => models.check("NoService", "x", {})).toThrow(/no class NoService/);
  });
});
