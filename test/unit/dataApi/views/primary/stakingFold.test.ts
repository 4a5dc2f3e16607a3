/**
 * The staking fold's reward settlement against a real store: from Cortina (initially active on the local network)
 * a delegator's fee share accrues on its validator and is paid with the validator's reward, as AvalancheGo's
 * RewardValidatorTx does; reward UTXOs are numbered after the staking tx's outputs and stake.
 */
import {afterEach, beforeEach, expect, it} from "vitest";
import {NETWORKS} from "../../../../../src/chains/index.js";
import type {SqlClient, SqlTx} from "../../../../../src/dataApi/store/client.js";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {Owner, PrimaryContainer, PrimaryTx, Staker, TxOutput} from "../../../../../src/dataApi/views/primary/model.js";
import type {TxPlace} from "../../../../../src/dataApi/views/primary/rows.js";
import {StakingFold} from "../../../../../src/dataApi/views/primary/stakingFold.js";
import {idToString, sha256} from "../../../../../src/util/cb58.js";
import {describeBackends, quietLogger} from "../../../../helpers/sql.js";

const network = NETWORKS.local;
const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";
const EMPTY_ID = "11111111111111111111111111111111LpoYY";
const NODE = "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg";
const T0 = 1_700_000_000n;
const owner = (byte: number): Owner => ({locktime: 0n, threshold: 1, addresses: [new Uint8Array(20).fill(byte)]});
const txId = (name: string): string => idToString(sha256(Buffer.from(name)));
const VALIDATOR_TX = txId("validator");
const DELEGATOR_TX = txId("delegator");

function stakeOut(txId: string, index: number, amount: bigint): TxOutput {
  return {
    outputIndex: index, utxoId: `${txId}-stake-${index}`, assetId: AVAX, amount, owner: owner(9), stakeableLocktime: 0n, staked: true,
    utxoType: "STAKE", exportedTo: null, groupId: 0, payload: new Uint8Array(0), utxoBytes: new Uint8Array([index]),
  };
}

function ptx(id: string, txType: string, details: PrimaryTx["details"]): PrimaryTx {
  return {id, chain: "P", txType, bytes: new Uint8Array(10), memo: new Uint8Array(0), inputs: [], outputs: [], evmInputs: [], evmOutputs: [], sourceChain: null, destinationChain: null, details, unsignedHash: new Uint8Array(32)};
}

function block(blockType: string, height: number): PrimaryContainer {
  return {chain: "P", blockId: `blk${height}`, containerId: `blk${height}`, parentId: `blk${height - 1}`, parentIds: [], height: BigInt(height), blockType, timestamp: T0 + BigInt(height), txs: [], sizeBytes: 100, proposer: null} as unknown as PrimaryContainer;
}

describeBackends("staking fold: reward settlement", (backend) => {
  let sql: SqlClient;
  beforeEach(async () => {
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
  });
  afterEach(async () => sql?.close());

  it("accrues a delegator's fee on its validator and pays it with the validator's reward (Cortina)", async () => {
    const fold = new StakingFold({network, avaxAssetId: AVAX});
    const validator: Staker & {startTime: bigint} = {
      kind: "validator", nodeId: NODE, subnetId: EMPTY_ID, startTime: T0, endTime: T0 + 365n * 86_400n, weight: 2_000n * 10n ** 9n,
      rewardOwner: owner(1), delegationRewardOwner: owner(2), delegationShares: 200_000, bls: null,
    };
    const place = (seq: number, height: number): TxPlace => ({chain: "P", chainId: network.chainIds.P, seq: BigInt(seq), blockId: `blk${height}`, height: BigInt(height), ts: T0 + BigInt(height)});
    const run = (fn: (tx: SqlTx) => Promise<void>): Promise<void> => sql.transaction(fn);
    const creates: TxOutput[] = [];
    await run(async (tx) => {
      await fold.genesis(tx, {networkId: network.id, timestamp: T0, avaxAssetId: AVAX, assets: [], utxos: [], supply: 360_000_000n * 10n ** 9n,
        stakers: [{txId: VALIDATOR_TX, staker: validator, stake: [stakeOut(VALIDATOR_TX, 0, validator.weight)]}]}, (_txId, o) => creates.push(o), network.chainIds.P);
      // The stake UTXOs the view would write with the genesis (the reward numbering counts them).
      for (const o of creates) await tx.query("INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_ts, amount, staked) VALUES ($1, $2, $3, 'P', 0, $4, true)", [o.utxoId, VALIDATOR_TX, o.outputIndex, o.amount.toString()]);
    });
    const delegator: Staker = {kind: "delegator", nodeId: NODE, subnetId: EMPTY_ID, startTime: null, endTime: T0 + 86_400n, weight: 25n * 10n ** 9n, rewardOwner: owner(3), delegationRewardOwner: null, delegationShares: 0, bls: null};
    await run(async (tx) => {
      await fold.onTx(tx, ptx(DELEGATOR_TX, "AddPermissionlessDelegatorTx", {staker: delegator}), place(1, 1));
      await tx.query("INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_ts, amount, staked) VALUES ('d-change', $1, 0, 'P', 0, 1, false), ('d-stake', $1, 1, 'P', 0, $2, true)", [DELEGATOR_TX, delegator.weight.toString()]);
    });
    const [{potential_reward: delegatorReward}] = await sql.query<{potential_reward: string}>("SELECT potential_reward FROM stakers WHERE tx_id = $1", [DELEGATOR_TX]);
    expect(BigInt(delegatorReward)).toBeGreaterThan(0n);
    // AvalancheGo's reward.Split: the delegator's part rounds down, the fee takes the rest.
    const share = (BigInt(delegatorReward) * 800_000n) / 1_000_000n;
    const fee = BigInt(delegatorReward) - share;

    // The delegator's reward transaction, then the Commit block that decides it.
    await run(async (tx) => fold.onTx(tx, ptx("rewardD", "RewardValidatorTx", {rewardedTxId: DELEGATOR_TX}), place(2, 2)));
    await run(async (tx) => void (await fold.beforeBlock(tx, block("Commit", 3), T0 + 3n)));
    const rewards = async (txId: string): Promise<Array<{output_index: number; amount: string; reward_type: string}>> =>
      sql.query("SELECT output_index, amount::text AS amount, reward_type FROM utxos WHERE tx_id = $1 AND reward_type IS NOT NULL ORDER BY output_index", [txId]);
    // The delegator is paid its share only, numbered after its change and stake outputs.
    expect(await rewards(DELEGATOR_TX)).toEqual([{output_index: 2, amount: share.toString(), reward_type: "DELEGATOR"}]);
    const [{accrued}] = await sql.query<{accrued: string}>("SELECT accrued_delegatee_reward::text AS accrued FROM stakers WHERE tx_id = $1", [VALIDATOR_TX]);
    expect(accrued).toBe(fee.toString());

    // The validator's own reward transaction and its Commit: its reward, then the accrued fees.
    await run(async (tx) => fold.onTx(tx, ptx("rewardV", "RewardValidatorTx", {rewardedTxId: VALIDATOR_TX}), place(3, 4)));
    await run(async (tx) => void (await fold.beforeBlock(tx, block("Commit", 5), T0 + 5n)));
    const [{potential_reward: validatorReward}] = await sql.query<{potential_reward: string}>("SELECT potential_reward FROM stakers WHERE tx_id = $1", [VALIDATOR_TX]);
    expect(await rewards(VALIDATOR_TX)).toEqual([
      {output_index: 1, amount: validatorReward, reward_type: "VALIDATOR"},
      {output_index: 2, amount: fee.toString(), reward_type: "VALIDATOR_FEE"},
    ]);
  });
});
