/**
 * The staking fold against a real store: from Cortina (initially active on the local network) a delegator's fee
 * share accrues on its validator and is paid with the validator's reward, as AvalancheGo's RewardValidatorTx does;
 * reward UTXOs are numbered after the staking tx's outputs and stake. L1 validators pay the continuous fee
 * (ACP-77) block by block, are deactivated when it runs their balance out, and get their balance back as a UTXO
 * when disabled or removed. Before Durango a staker waits in the pending set until the chain time (a Banff block's,
 * or a committed AdvanceTimeTx's) reaches its start.
 */
import {afterEach, beforeEach, expect, it} from "vitest";
import {NETWORKS} from "../../../../../src/chains/index.js";
import type {SqlClient, SqlTx} from "../../../../../src/dataApi/store/sql.js";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {
  Owner,
  PrimaryContainer,
  PrimaryTx,
  Staker,
  TxOutput,
} from "../../../../../src/dataApi/views/primary/model.js";
import type {TxPlace} from "../../../../../src/dataApi/views/primary/rows.js";
import {networkConfigFor} from "../../../../../src/dataApi/views/primary/networkConfig.js";
import {calculatePrimaryNetworkReward} from "../../../../../src/dataApi/views/primary/reward.js";
import {StakingFold} from "../../../../../src/dataApi/views/primary/stakingFold.js";
import {idFromString, idToString} from "../../../../../src/util/cb58.js";
import {sha256} from "../../../../../src/util/sha256.js";
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
    outputIndex: index,
    utxoId: `${txId}-stake-${index}`,
    assetId: AVAX,
    amount,
    owner: owner(9),
    stakeableLocktime: 0n,
    staked: true,
    utxoType: "STAKE",
    exportedTo: null,
    groupId: 0,
    payload: new Uint8Array(0),
    utxoBytes: new Uint8Array([index]),
  };
}

function ptx(id: string, txType: string, details: PrimaryTx["details"], outputs: TxOutput[] = []): PrimaryTx {
  return {
    id,
    chain: "P",
    txType,
    bytes: new Uint8Array(10),
    memo: new Uint8Array(0),
    inputs: [],
    outputs,
    evmInputs: [],
    evmOutputs: [],
    sourceChain: null,
    destinationChain: null,
    details,
    unsignedHash: new Uint8Array(32),
  };
}

function block(blockType: string, height: number): PrimaryContainer {
  return {
    chain: "P",
    blockId: `blk${height}`,
    containerId: `blk${height}`,
    parentId: `blk${height - 1}`,
    parentIds: [],
    height: BigInt(height),
    blockType,
    timestamp: T0 + BigInt(height),
    txs: [],
    sizeBytes: 100,
    proposer: null,
  } as unknown as PrimaryContainer;
}

/** A P transaction's row as the view writes it (at seq = block height here). */
async function writeTx(tx: SqlTx, id: string, seq: number): Promise<void> {
  await tx.query(
    "INSERT INTO txs (chain, seq, tx_id, tx_type, block_id, block_height, ts, memo, details, size_bytes) VALUES ('P', $1, $2, 'AddValidatorTx', $3, $1, 0, ''::bytea, '{}', 1)",
    [seq, id, `blk${seq}`],
  );
}

/** A UTXO's creation as the view writes it: at its creating transaction's chain and seq (0 for genesis). */
async function writeUtxo(tx: SqlTx, o: TxOutput, id: string, chainId: string, seq: number): Promise<void> {
  await tx.query(
    `INSERT INTO utxos (utxo_id, tx_id, output_index, created_chain, created_seq, created_ts, amount, stakeable_locktime, staked, utxo_type)
     VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $8, $9)`,
    [
      o.utxoId,
      id,
      o.outputIndex,
      chainId,
      seq,
      o.amount.toString(),
      o.stakeableLocktime.toString(),
      o.staked,
      o.utxoType,
    ],
  );
}

describeBackends("staking fold", (backend) => {
  let sql: SqlClient;
  beforeEach(async () => {
    sql = await backend.open();
    await migrate(sql, MIGRATIONS, {logger: quietLogger()});
  });
  afterEach(async () => sql?.close());

  it("accrues a delegator's fee on its validator and pays it with the validator's reward (Cortina)", async () => {
    const fold = new StakingFold({network, avaxAssetId: AVAX});
    const validator: Staker & {startTime: bigint} = {
      kind: "validator",
      nodeId: NODE,
      subnetId: EMPTY_ID,
      startTime: T0,
      endTime: T0 + 365n * 86_400n,
      weight: 2_000n * 10n ** 9n,
      rewardOwner: owner(1),
      delegationRewardOwner: owner(2),
      delegationShares: 200_000,
      bls: null,
    };
    const place = (seq: number, height: number): TxPlace => ({
      chain: "P",
      chainId: network.chainIds.P,
      seq: BigInt(seq),
      blockId: `blk${height}`,
      height: BigInt(height),
      ts: T0 + BigInt(height),
    });
    const run = (fn: (tx: SqlTx) => Promise<void>): Promise<void> => sql.transaction(fn);
    const creates: TxOutput[] = [];
    await run(async (tx) => {
      await fold.genesis(
        tx,
        {
          networkId: network.id,
          timestamp: T0,
          avaxAssetId: AVAX,
          assets: [],
          utxos: [],
          chains: [],
          supply: 360_000_000n * 10n ** 9n,
          stakers: [{txId: VALIDATOR_TX, staker: validator, stake: [stakeOut(VALIDATOR_TX, 0, validator.weight)]}],
        },
        (_txId, o) => creates.push(o),
        network.chainIds.P,
      );
      // The stake UTXOs the view would write with the genesis (the reward numbering counts them).
      for (const o of creates) await writeUtxo(tx, o, VALIDATOR_TX, network.chainIds.P, 0);
    });
    const delegator: Staker = {
      kind: "delegator",
      nodeId: NODE,
      subnetId: EMPTY_ID,
      startTime: null,
      endTime: T0 + 86_400n,
      weight: 25n * 10n ** 9n,
      rewardOwner: owner(3),
      delegationRewardOwner: null,
      delegationShares: 0,
      bls: null,
    };
    // Its change and stake outputs are in the same batch as its reward (the view writes them at the batch's end):
    // the reward is numbered after them all the same.
    const delegatorOuts = [
      {...stakeOut(DELEGATOR_TX, 0, 1n), staked: false},
      stakeOut(DELEGATOR_TX, 1, delegator.weight),
    ];
    await run(
      async (tx) =>
        void (await fold.onTx(
          tx,
          ptx(DELEGATOR_TX, "AddPermissionlessDelegatorTx", {staker: delegator}, delegatorOuts),
          place(1, 1),
        )),
    );
    const [{potential_reward: delegatorReward}] = await sql.query<{potential_reward: string}>(
      "SELECT potential_reward FROM stakers WHERE tx_id = $1",
      [DELEGATOR_TX],
    );
    expect(BigInt(delegatorReward)).toBeGreaterThan(0n);
    // AvalancheGo's reward.Split: the delegator's part rounds down, the fee takes the rest.
    const share = (BigInt(delegatorReward) * 800_000n) / 1_000_000n;
    const fee = BigInt(delegatorReward) - share;

    // The delegator's reward transaction, then the Commit block that decides it.
    await run(
      async (tx) =>
        void (await fold.onTx(tx, ptx("rewardD", "RewardValidatorTx", {rewardedTxId: DELEGATOR_TX}), place(2, 2))),
    );
    await run(async (tx) => void (await fold.beforeBlock(tx, block("Commit", 3), T0 + 3n)));
    const rewards = async (txId: string): Promise<Array<{output_index: number; amount: string; reward_type: string}>> =>
      sql.query(
        "SELECT output_index, amount::text AS amount, reward_type FROM utxos WHERE tx_id = $1 AND reward_type IS NOT NULL ORDER BY output_index",
        [txId],
      );
    // The delegator is paid its share only, numbered after its change and stake outputs.
    expect(await rewards(DELEGATOR_TX)).toEqual([
      {output_index: 2, amount: share.toString(), reward_type: "DELEGATOR"},
    ]);
    const [{accrued}] = await sql.query<{accrued: string}>(
      "SELECT accrued_delegatee_reward::text AS accrued FROM stakers WHERE tx_id = $1",
      [VALIDATOR_TX],
    );
    expect(accrued).toBe(fee.toString());

    // The validator's own reward transaction and its Commit: its reward, then the accrued fees.
    await run(
      async (tx) =>
        void (await fold.onTx(tx, ptx("rewardV", "RewardValidatorTx", {rewardedTxId: VALIDATOR_TX}), place(3, 4))),
    );
    await run(async (tx) => void (await fold.beforeBlock(tx, block("Commit", 5), T0 + 5n)));
    const [{potential_reward: validatorReward}] = await sql.query<{potential_reward: string}>(
      "SELECT potential_reward FROM stakers WHERE tx_id = $1",
      [VALIDATOR_TX],
    );
    expect(await rewards(VALIDATOR_TX)).toEqual([
      {output_index: 1, amount: validatorReward, reward_type: "VALIDATOR"},
      {output_index: 2, amount: fee.toString(), reward_type: "VALIDATOR_FEE"},
    ]);
    // The AVAX supply's running sums count each reward paid, once.
    const [{amount: rewardsKept}] = await sql.query<{amount: string}>(
      "SELECT amount::text AS amount FROM supply_totals WHERE key = 'rewards'",
    );
    expect(BigInt(rewardsKept)).toBe(share + BigInt(validatorReward) + fee);
  });

  it("numbers the rewards of stakers folded before their output count was stored after their UTXOs in the store", async () => {
    const fold = new StakingFold({network, avaxAssetId: AVAX});
    const validator: Staker & {startTime: bigint} = {
      kind: "validator",
      nodeId: NODE,
      subnetId: EMPTY_ID,
      startTime: T0,
      endTime: T0 + 365n * 86_400n,
      weight: 2_000n * 10n ** 9n,
      rewardOwner: owner(1),
      delegationRewardOwner: owner(2),
      delegationShares: 200_000,
      bls: null,
    };
    const place = (seq: number): TxPlace => ({
      chain: "P",
      chainId: network.chainIds.P,
      seq: BigInt(seq),
      blockId: `blk${seq}`,
      height: BigInt(seq),
      ts: T0 + BigInt(seq),
    });
    const run = (fn: (tx: SqlTx) => Promise<void>): Promise<void> => sql.transaction(fn);
    await run(async (tx) => {
      const stake = [stakeOut(VALIDATOR_TX, 0, validator.weight)];
      await fold.genesis(
        tx,
        {
          networkId: network.id,
          timestamp: T0,
          avaxAssetId: AVAX,
          assets: [],
          utxos: [],
          chains: [],
          supply: 360_000_000n * 10n ** 9n,
          stakers: [{txId: VALIDATOR_TX, staker: validator, stake}],
        },
        () => {},
        network.chainIds.P,
      );
      for (const o of stake) await writeUtxo(tx, o, VALIDATOR_TX, network.chainIds.P, 0);
    });
    // A delegator whose transaction (two outputs and its stake) a previous batch wrote.
    const delegator: Staker = {
      kind: "delegator",
      nodeId: NODE,
      subnetId: EMPTY_ID,
      startTime: null,
      endTime: T0 + 86_400n,
      weight: 25n * 10n ** 9n,
      rewardOwner: owner(3),
      delegationRewardOwner: null,
      delegationShares: 0,
      bls: null,
    };
    const outs = [
      {...stakeOut(DELEGATOR_TX, 0, 1n), staked: false},
      {...stakeOut(DELEGATOR_TX, 1, 1n), staked: false},
      stakeOut(DELEGATOR_TX, 2, delegator.weight),
    ];
    await run(async (tx) => {
      await fold.onTx(tx, ptx(DELEGATOR_TX, "AddPermissionlessDelegatorTx", {staker: delegator}, outs), place(1));
      await writeTx(tx, DELEGATOR_TX, 1);
      for (const o of outs) await writeUtxo(tx, o, DELEGATOR_TX, network.chainIds.P, 1);
      // Both were folded before schema 7 stored the count.
      await tx.query("UPDATE stakers SET output_count = NULL");
    });
    await run(
      async (tx) =>
        void (await fold.onTx(tx, ptx("rewardD", "RewardValidatorTx", {rewardedTxId: DELEGATOR_TX}), place(2))),
    );
    await run(async (tx) => void (await fold.beforeBlock(tx, block("Commit", 3), T0 + 3n)));
    await run(
      async (tx) =>
        void (await fold.onTx(tx, ptx("rewardV", "RewardValidatorTx", {rewardedTxId: VALIDATOR_TX}), place(4))),
    );
    await run(async (tx) => void (await fold.beforeBlock(tx, block("Commit", 5), T0 + 5n)));
    const rewards = await sql.query<{tx_id: string; output_index: number; reward_type: string}>(
      "SELECT tx_id, output_index, reward_type FROM utxos WHERE reward_type IS NOT NULL ORDER BY tx_id, output_index",
    );
    expect(rewards.map((r) => [r.tx_id, r.output_index, r.reward_type])).toEqual(
      [
        [DELEGATOR_TX, 3, "DELEGATOR"],
        [VALIDATOR_TX, 1, "VALIDATOR"],
        [VALIDATOR_TX, 2, "VALIDATOR_FEE"],
      ].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    );
  });

  it("charges L1 validators the continuous fee block by block, deactivates the ones it runs out, returns balances", async () => {
    // The local network: Etna initially active, 1 nAVAX a second per validator below the target (10,000).
    const fold = new StakingFold({network, avaxAssetId: AVAX});
    const SUBNET = txId("subnet");
    const T = 1_800_000_000n;
    const at = (t: bigint, seq: number): TxPlace => ({
      chain: "P",
      chainId: network.chainIds.P,
      seq: BigInt(seq),
      blockId: `b${t}`,
      height: t - T + 10n,
      ts: t,
    });
    const run = <R>(fn: (tx: SqlTx) => Promise<R>): Promise<R> => sql.transaction(fn);
    const blockAt = (t: bigint) =>
      run(async (tx) => {
        await fold.beforeBlock(tx, block("Standard", Number(t - T + 10n)), t);
        return fold.afterBlock(tx);
      });
    const vA = {
      validationId: txId("vA"),
      nodeId: "NodeID-A",
      weight: 10n,
      balance: 100n,
      bls: null,
      remainingBalanceOwner: owner(5),
      deactivationOwner: owner(6),
    };
    const vB = {
      validationId: txId("vB"),
      nodeId: "NodeID-B",
      weight: 20n,
      balance: 1_000_000n,
      bls: null,
      remainingBalanceOwner: owner(7),
      deactivationOwner: owner(8),
    };
    const rows = async () =>
      Object.fromEntries(
        (
          await sql.query<{validation_id: string; active: boolean; end: string; weight: string}>(
            "SELECT validation_id, active, end_accumulated_fee::text AS end, weight::text AS weight FROM l1_validators",
          )
        ).map((r) => [
          r.validation_id === vA.validationId ? "A" : "B",
          {active: r.active, end: r.end, weight: r.weight},
        ]),
      );

    expect(await blockAt(T)).toEqual({fees: 0n, active: 0});
    const conversion = await run(async (tx) => {
      await fold.beforeBlock(tx, block("Standard", 11), T + 10n);
      const effects = await fold.onTx(
        tx,
        ptx(txId("convert"), "ConvertSubnetToL1Tx", {
          subnetId: SUBNET,
          conversion: {
            chainId: txId("chain"),
            managerAddress: new Uint8Array(20),
            validators: [vA, vB],
            conversionId: txId("conv"),
          },
        }),
        at(T + 10n, 1),
      );
      return {effects, after: await fold.afterBlock(tx)};
    });
    expect(conversion.after).toEqual({fees: 10n, active: 2}); // 10 s at the minimum price, 1 nAVAX a second
    expect(conversion.effects.l1.map((e) => [e.remainingBalance, e.balanceChange])).toEqual([
      [100n, 100n],
      [1_000_000n, 1_000_000n],
    ]);
    // Funded at accrued fees 10: each one's balance runs out when the accrued fees reach balance + 10.
    expect(await rows()).toEqual({
      A: {active: true, end: "110", weight: "10"},
      B: {active: true, end: "1000010", weight: "20"},
    });

    // 60 s later: two validators below the target pay the minimum price, 1 nAVAX a second each.
    expect(await blockAt(T + 70n)).toEqual({fees: 70n, active: 2});
    // 100 s more: A's 100 nAVAX ran out at accrued 110; the block deactivates it.
    expect(await blockAt(T + 170n)).toEqual({fees: 170n, active: 1});
    expect((await rows()).A).toEqual({active: false, end: "0", weight: "10"});
    const [listed] = await sql.query<{value: string}>(
      "SELECT value FROM data_api_meta WHERE key = 'view.l1.accruedFees'",
    );
    expect(listed).toBeUndefined(); // the view writes the fold's state with each batch
    expect(fold.state()).toEqual(
      expect.arrayContaining([
        ["view.l1.accruedFees", "170"],
        ["view.l1.time", String(T + 170n)],
      ]),
    );

    // A balance increase reactivates A from the accrued fees now.
    const increased = await run(async (tx) => {
      await fold.beforeBlock(tx, block("Standard", 190), T + 180n);
      const e = await fold.onTx(
        tx,
        ptx(txId("increase"), "IncreaseL1ValidatorBalanceTx", {
          l1Validator: {validationId: vA.validationId, balance: 1_000n},
        }),
        at(T + 180n, 2),
      );
      return {e, after: await fold.afterBlock(tx)};
    });
    expect(increased.after).toEqual({fees: 180n, active: 2});
    expect(increased.e.l1).toEqual([
      {
        validationId: vA.validationId,
        nodeId: "NodeID-A",
        subnetId: SUBNET,
        weight: 10n,
        remainingBalance: 1_000n,
        balanceChange: 1_000n,
      },
    ]);
    expect((await rows()).A).toEqual({active: true, end: "1180", weight: "10"});

    // 20 s later B is disabled and A removed (weight 0): both get their balance left back, as a UTXO numbered after
    // the transaction's outputs, to their remaining-balance owners.
    const change = {...stakeOut(txId("disable"), 0, 5n), staked: false};
    const ended = await run(async (tx) => {
      await fold.beforeBlock(tx, block("Standard", 210), T + 200n);
      const disable = await fold.onTx(
        tx,
        ptx(txId("disable"), "DisableL1ValidatorTx", {l1Validator: {validationId: vB.validationId}}, [change]),
        at(T + 200n, 3),
      );
      const remove = await fold.onTx(
        tx,
        ptx(txId("remove"), "SetL1ValidatorWeightTx", {
          l1Validator: {validationId: vA.validationId, nonce: 1n, weight: 0n},
        }),
        at(T + 200n, 4),
      );
      return {disable, remove, after: await fold.afterBlock(tx)};
    });
    expect(ended.after).toEqual({fees: 200n, active: 0});
    expect(ended.disable.l1.map((e) => [e.remainingBalance, e.balanceChange])).toEqual([[0n, -(1_000_010n - 200n)]]);
    expect(ended.disable.refunds.map((o) => [o.outputIndex, o.amount, o.owner.addresses])).toEqual([
      [1, 1_000_010n - 200n, vB.remainingBalanceOwner.addresses],
    ]);
    expect(ended.remove.l1).toEqual([
      {
        validationId: vA.validationId,
        nodeId: "NodeID-A",
        subnetId: SUBNET,
        weight: 0n,
        remainingBalance: 0n,
        balanceChange: -(1_180n - 200n),
      },
    ]);
    expect(ended.remove.refunds.map((o) => [o.outputIndex, o.amount])).toEqual([[0, 1_180n - 200n]]);
    // The refund's UTXO ID is AvalancheGo's: sha256(u64 index ‖ tx ID).
    const prefix = new Uint8Array(40);
    prefix.set(sha256(Buffer.from("remove")), 8);
    expect(ended.remove.refunds[0]!.utxoId).toBe(idToString(sha256(prefix)));
    expect(await rows()).toEqual({
      A: {active: false, end: "0", weight: "0"},
      B: {active: false, end: "0", weight: "20"},
    });

    // The accrued fees are the chain's running price (what one validator active all along would have paid): they
    // grow with time whoever is active.
    expect(await blockAt(T + 1_000n)).toEqual({fees: 1_000n, active: 0});
  });

  it("keeps pre-Durango stakers pending until the chain time reaches their start, then rewards them from the supply then", async () => {
    const mainnet = NETWORKS.mainnet;
    const cfg = networkConfigFor(mainnet.id);
    const fold = new StakingFold({network: mainnet, avaxAssetId: AVAX});
    const S = 420_000_000n * 10n ** 9n;
    fold.load(new Map([["view.supply", S.toString()]]));
    const T = 1_700_000_000n; // 2023-11-14: Banff, before Durango
    expect(T).toBeLessThan(cfg.durangoTime);
    const banff = (t: bigint, type = "Standard"): PrimaryContainer => ({
      ...block(type, Number(t - T)),
      timestamp: t,
      chainTime: t,
    });
    const apricot = (type: string, n: number): PrimaryContainer => ({
      ...block(type, n),
      timestamp: null,
      chainTime: null,
    });
    const at = (t: bigint, seq: number): TxPlace => ({
      chain: "P",
      chainId: mainnet.chainIds.P,
      seq: BigInt(seq),
      blockId: `b${seq}`,
      height: BigInt(seq),
      ts: t,
    });
    const run = <R>(fn: (tx: SqlTx) => Promise<R>): Promise<R> => sql.transaction(fn);
    const DAY = 86_400n;
    const v1 = txId("v1");
    const v2 = txId("v2");
    const validator = (start: bigint, weight: bigint): Staker => ({
      kind: "validator",
      nodeId: NODE,
      subnetId: EMPTY_ID,
      startTime: start,
      endTime: start + 30n * DAY,
      weight,
      rewardOwner: owner(1),
      delegationRewardOwner: owner(2),
      delegationShares: 20_000,
      bls: null,
    });
    const rows = async () =>
      sql.query<{tx_id: string; potential_reward: string; pending_priority: number | null}>(
        "SELECT tx_id, potential_reward::text AS potential_reward, pending_priority FROM stakers ORDER BY tx_id",
      );

    // Two validators added at T, both starting at T + 100: pending, no reward yet, the supply unchanged.
    await run(async (tx) => {
      await fold.beforeBlock(tx, banff(T), T);
      await fold.onTx(tx, ptx(v1, "AddValidatorTx", {staker: validator(T + 100n, 2_000n * 10n ** 9n)}), at(T, 1));
      await fold.onTx(tx, ptx(v2, "AddValidatorTx", {staker: validator(T + 100n, 5_000n * 10n ** 9n)}), at(T, 2));
    });
    expect((await rows()).map((r) => [r.potential_reward, r.pending_priority])).toEqual([
      ["0", 2],
      ["0", 2],
    ]);
    expect(fold.supply).toBe(S);
    // A block before their start changes nothing.
    await run(async (tx) => fold.beforeBlock(tx, banff(T + 99n), T + 99n));
    expect((await rows()).every((r) => r.pending_priority === 2)).toBe(true);

    // The chain time reaches their start: they enter in AvalancheGo's order (equal start and priority: by
    // transaction ID), each rewarded from the supply the one before left.
    await run(async (tx) => fold.beforeBlock(tx, banff(T + 150n), T + 150n));
    const order = [v1, v2].sort((a, b) => Buffer.compare(idFromString(a), idFromString(b)));
    const weightOf = (id: string): bigint => (id === v1 ? 2_000n : 5_000n) * 10n ** 9n;
    const first = calculatePrimaryNetworkReward(
      cfg.reward,
      cfg.heliconTime,
      T + 100n,
      30n * DAY,
      weightOf(order[0]!),
      S,
    );
    const second = calculatePrimaryNetworkReward(
      cfg.reward,
      cfg.heliconTime,
      T + 100n,
      30n * DAY,
      weightOf(order[1]!),
      S + first,
    );
    const byId = new Map((await rows()).map((r) => [r.tx_id, r]));
    expect(byId.get(order[0]!)).toMatchObject({potential_reward: first.toString(), pending_priority: null});
    expect(byId.get(order[1]!)).toMatchObject({potential_reward: second.toString(), pending_priority: null});
    expect(fold.supply).toBe(S + first + second);

    // Apricot blocks carry no time: the chain time moves with a committed AdvanceTimeTx, not an aborted one.
    const v3 = txId("v3");
    await run(async (tx) => {
      await fold.beforeBlock(tx, banff(T + 200n), T + 200n);
      await fold.onTx(
        tx,
        ptx(v3, "AddValidatorTx", {staker: validator(T + 1_000n, 2_000n * 10n ** 9n)}),
        at(T + 200n, 3),
      );
    });
    const propose = (n: number, time: bigint) =>
      run(async (tx) => {
        await fold.beforeBlock(tx, apricot("Proposal", n), T);
        await fold.onTx(tx, ptx(txId(`advance${n}`), "AdvanceTimeTx", {extra: {time: time.toString()}}), at(T, 10 + n));
      });
    const decide = (n: number, type: "Commit" | "Abort") =>
      run(async (tx) => fold.beforeBlock(tx, apricot(type, n), T));
    await propose(1, T + 2_000n);
    await decide(2, "Abort");
    expect((await rows()).find((r) => r.tx_id === v3)!.pending_priority).toBe(2);
    // A restart between the proposal and its decision keeps the proposed time (the view writes state() with each batch).
    await propose(3, T + 2_000n);
    const restarted = new StakingFold({network: mainnet, avaxAssetId: AVAX});
    restarted.load(new Map(fold.state()));
    await run(async (tx) => restarted.beforeBlock(tx, apricot("Commit", 4), T));
    const entered = (await rows()).find((r) => r.tx_id === v3)!;
    expect(entered.pending_priority).toBeNull();
    expect(entered.potential_reward).toBe(
      calculatePrimaryNetworkReward(
        cfg.reward,
        cfg.heliconTime,
        T + 1_000n,
        30n * DAY,
        2_000n * 10n ** 9n,
        S + first + second,
      ).toString(),
    );
  });
  it("undoes an Apricot proposal's staking transaction that an Abort block rejects, and keeps a committed one", async () => {
    const fold = new StakingFold({network: NETWORKS.mainnet, avaxAssetId: AVAX});
    const run = <R>(fn: (tx: SqlTx) => Promise<R>): Promise<R> => sql.transaction(fn);
    const place = (seq: number, height: number): TxPlace => ({
      chain: "P",
      chainId: network.chainIds.P,
      seq: BigInt(seq),
      blockId: `blk${height}`,
      height: BigInt(height),
      ts: T0,
    });
    const staker = (weight: bigint): Staker => ({
      kind: "validator",
      nodeId: NODE,
      subnetId: EMPTY_ID,
      startTime: T0 + 100n,
      endTime: T0 + 100n + 30n * 86_400n,
      weight,
      rewardOwner: owner(1),
      delegationRewardOwner: owner(2),
      delegationShares: 20_000,
      bls: null,
    });
    const stakers = async () =>
      (await sql.query<{tx_id: string}>("SELECT tx_id FROM stakers ORDER BY tx_id")).map((r) => r.tx_id);
    // A proposal block with an AddValidatorTx; the view writes its stake output (here at once, as a previous batch).
    const propose = async (id: string, height: number, fold_ = fold): Promise<void> => {
      await run(async (tx) => {
        expect(await fold_.beforeBlock(tx, block("Proposal", height), T0)).toBeNull();
        await fold_.onTx(
          tx,
          ptx(id, "AddValidatorTx", {staker: staker(2_000n * 10n ** 9n)}, [stakeOut(id, 0, 2_000n * 10n ** 9n)]),
          place(height, height),
        );
        await writeTx(tx, id, height);
        await writeUtxo(tx, stakeOut(id, 0, 1n), id, NETWORKS.mainnet.chainIds.P, height);
        // A stake output still under a stakeable lock.
        await writeUtxo(tx, {...stakeOut(id, 1, 1n), stakeableLocktime: 5n}, id, NETWORKS.mainnet.chainIds.P, height);
      });
    };
    const aborted = txId("aborted");
    await propose(aborted, 1);
    expect(await stakers()).toEqual([aborted]);
    // The Abort block: no staker, and the stake is a plain UTXO, spendable at once.
    expect(await run((tx) => fold.beforeBlock(tx, block("Abort", 2), T0))).toBe(aborted);
    expect(await stakers()).toEqual([]);
    expect(await sql.query("SELECT count(*)::int4 AS n FROM staker_addresses WHERE tx_id = $1", [aborted])).toEqual([
      {n: 0},
    ]);
    expect(
      await sql.query("SELECT staked, utxo_type FROM utxos WHERE tx_id = $1 ORDER BY output_index", [aborted]),
    ).toEqual([
      {staked: false, utxo_type: "TRANSFER"},
      {staked: false, utxo_type: "STAKEABLE_LOCK"},
    ]);

    // A committed one stays, its stake staked.
    const committed = txId("committed");
    await propose(committed, 3);
    expect(await run((tx) => fold.beforeBlock(tx, block("Commit", 4), T0))).toBeNull();
    expect(await stakers()).toEqual([committed]);
    expect(await sql.query("SELECT staked FROM utxos WHERE tx_id = $1", [committed])).toEqual([
      {staked: true},
      {staked: true},
    ]);
    // A later Abort (of an AdvanceTimeTx, say) does not touch it.
    expect(await run((tx) => fold.beforeBlock(tx, block("Abort", 5), T0))).toBeNull();
    expect(await stakers()).toEqual([committed]);

    // A restart between the proposal and its decision keeps the proposal pending (the view writes state() with each batch).
    const later = txId("later");
    await propose(later, 6);
    const restarted = new StakingFold({network: NETWORKS.mainnet, avaxAssetId: AVAX});
    restarted.load(new Map(fold.state()));
    expect(await run((tx) => restarted.beforeBlock(tx, block("Abort", 7), T0))).toBe(later);
    expect(await stakers()).toEqual([committed]);
    // A Banff standard block's staking transaction is never a proposal.
    const banffTx = txId("banff");
    await run(async (tx) => {
      await restarted.beforeBlock(tx, block("Standard", 8), T0 + 8n);
      await restarted.onTx(tx, ptx(banffTx, "AddValidatorTx", {staker: staker(2_000n * 10n ** 9n)}), place(8, 8));
    });
    expect(await run((tx) => restarted.beforeBlock(tx, block("Abort", 9), T0 + 9n))).toBeNull();
    expect((await stakers()).sort()).toEqual([committed, banffTx].sort());

    // A Banff proposal block (it carries its time) holds decision transactions before its RewardValidatorTx: a staker
    // among them is decided by its own block, and the reward proposal's Abort leaves it alone.
    const decision = txId("decision");
    await run(async (tx) => {
      await restarted.beforeBlock(tx, {...block("Proposal", 10), chainTime: T0 + 10n} as PrimaryContainer, T0 + 10n);
      await restarted.onTx(
        tx,
        ptx(decision, "AddPermissionlessValidatorTx", {staker: staker(2_000n * 10n ** 9n)}),
        place(10, 10),
      );
    });
    expect(await run((tx) => restarted.beforeBlock(tx, block("Abort", 11), T0 + 11n))).toBeNull();
    expect(await stakers()).toContain(decision);

    // The decision block did not decode (the next block folded is not the proposal's child): the proposal stays,
    // and a later Abort, of another proposal, does not undo it.
    const orphaned = txId("orphaned");
    await propose(orphaned, 12, restarted);
    expect(await run((tx) => restarted.beforeBlock(tx, block("Standard", 14), T0))).toBeNull();
    expect(await run((tx) => restarted.beforeBlock(tx, block("Abort", 15), T0))).toBeNull();
    expect(await stakers()).toContain(orphaned);
  });
});
