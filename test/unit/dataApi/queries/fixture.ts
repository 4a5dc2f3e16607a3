import {PGlite} from "@electric-sql/pglite";
import pg from "pg";
import {pgliteTemplate} from "../../../helpers/pglite.js";
import {createTestDatabase} from "../../../helpers/sql.js";
import type {NetworkCtx, SqlClientLike} from "../../../../src/dataApi/queries/primary/common.js";
import {MIGRATIONS} from "../../../../src/dataApi/store/schema.js";

/** Runs one statement on a backend: PGlite in memory, or a pg pool on a PostgreSQL server. */
interface Backend {
  run<T>(sql: string, params: unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

// A PGlite database with the schema applied, made once per test file (from the run's empty cluster, not an initdb:
// test/helpers/pglite.ts) and loaded by each TestDb: the same fresh database for a fraction of the cost.
let migrated: Promise<Blob> | null = null;

async function migratedPglite(): Promise<PGlite> {
  migrated ??= (async () => {
    const template = await pgliteTemplate();
    const db = await PGlite.create(template ? {loadDataDir: template} : {});
    try {
      for (const m of MIGRATIONS) await db.exec(m.sql);
      return await db.dumpDataDir("none");
    } finally {
      await db.close();
    }
  })();
  return PGlite.create({loadDataDir: await migrated});
}

async function pgliteBackend(): Promise<Backend> {
  const db = await migratedPglite();
  return {
    run: async <T>(sql: string, params: unknown[]): Promise<T[]> => (await db.query<T>(sql, params)).rows,
    exec: async (sql: string): Promise<void> => {
      await db.exec(sql);
    },
    close: () => db.close(),
  };
}

/** A fresh database on the run's real PostgreSQL server (test/setup/postgres.ts). */
async function postgresBackend(): Promise<Backend> {
  const pool = new pg.Pool({connectionString: await createTestDatabase(), max: 1});
  // An idle connection the server drops (shutdown at the end of the run) must not be an unhandled error.
  pool.on("error", () => undefined);
  // One connection, so a SET applies to the EXPLAIN that follows it.
  const client = await pool.connect();
  client.on("error", () => undefined);
  return {
    run: async <T>(sql: string, params: unknown[]): Promise<T[]> => (await client.query(sql, params)).rows as T[],
    exec: async (sql: string): Promise<void> => {
      await client.query(sql);
    },
    close: async (): Promise<void> => {
      client.release();
      await pool.end();
    },
  };
}

export type BackendKind = "pglite" | "postgres";

/** A database behind the queries' client interface, with the schema applied. */
export class TestDb implements SqlClientLike {
  private backend: Backend | null = null;

  constructor(private readonly kind: BackendKind = "pglite") {}

  async init(): Promise<this> {
    if (this.kind === "pglite") {
      this.backend = await pgliteBackend();
    } else {
      this.backend = await postgresBackend();
      for (const m of MIGRATIONS) await this.backend.exec(m.sql);
    }
    return this;
  }

  private get b(): Backend {
    if (this.backend === null) throw new Error("TestDb not initialised");
    return this.backend;
  }

  query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.b.run<T>(sql, params);
  }

  /**
   * Inserts one row; jsonb values are passed as objects and serialised here. A `utxos` row may carry its spend's
   * columns, which go to `utxo_spends` as the view writes them (and only there when the creation is not folded).
   */
  async insert(table: string, row: Record<string, unknown>): Promise<void> {
    if (table === "utxos") {
      const spend: Record<string, unknown> = {utxo_id: row.utxo_id, tx_id: row.tx_id, output_index: row.output_index};
      const creation: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(row)) {
        if (SPEND_ONLY.has(k)) spend[k] = v;
        else creation[k] = v;
      }
      if (spend.consuming_tx !== undefined) await this.insert("utxo_spends", spend);
      if (creation.created_seq === undefined && creation.created_ts === undefined) return;
      row = creation;
    }
    const cols = Object.keys(row);
    const vals = cols.map((c) => {
      const v = row[c];
      return v !== null && typeof v === "object" && !(v instanceof Uint8Array) ? JSON.stringify(v) : v;
    });
    await this.b.run(
      `INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`,
      vals,
    );
    // unspent_owned's rows of a new UTXO, as the view writes them (views/primary/batchSql.ts unspentOwnedSql). A spend
    // written here leaves them, as one the view did not write would: the reads check utxo_spends.
    if (table === "utxos") {
      await this.b.run(
        `INSERT INTO unspent_owned (address, utxo_id)
         SELECT DISTINCT decode(a.hex, 'hex'), u.utxo_id
         FROM utxos u CROSS JOIN LATERAL jsonb_array_elements_text(u.addresses) AS a(hex)
         WHERE u.utxo_id = $1 AND u.created_chain IS NOT NULL AND jsonb_typeof(u.addresses) = 'array'
         ON CONFLICT DO NOTHING`,
        [row.utxo_id],
      );
    }
  }

  /** The plan of a query with sequential scans disabled: proves an index can serve it. */
  async explain(sql: string, params: unknown[]): Promise<string> {
    await this.b.exec("SET enable_seqscan = off");
    try {
      const rows = await this.b.run<{"QUERY PLAN": string}>(`EXPLAIN ${sql}`, params);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    } finally {
      await this.b.exec("SET enable_seqscan = on");
    }
  }

  async close(): Promise<void> {
    await this.backend?.close();
    this.backend = null;
  }
}

const SPEND_ONLY = new Set([
  "consumed_chain",
  "consuming_tx",
  "consuming_block",
  "consuming_height",
  "consuming_ts",
  "credentials",
]);

/** A client that records every statement, to EXPLAIN what a function ran. */
export class RecordingClient implements SqlClientLike {
  readonly statements: Array<{sql: string; params: unknown[]}> = [];
  constructor(private readonly inner: SqlClientLike) {}
  query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    this.statements.push({sql, params});
    return this.inner.query<T>(sql, params);
  }
}

export const P_ID = "11111111111111111111111111111111LpoYY";
export const X_ID = "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed";
export const C_ID = "2CA6j5zYzasynPsFeNoqWkmTCt3VScMvXUZHbfDJ8k3oGzAPtU";
export const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";

export const NET: NetworkCtx = {
  networkName: "local",
  hrp: "local",
  chainIds: {P: P_ID, X: X_ID, C: C_ID},
  avaxAssetId: AVAX,
};

/** ewoq's short ID: its local address is well known. */
export const EWOQ_HEX = "3cb7d3842e8cee6a0ebd09f1fe884f6861e1b29c";
export const EWOQ = "local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u";
export const BOB_HEX = "00000000000000000000000000000000000000b0";

export function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** A UTXO row with the defaults of a P-chain transfer output. */
export function utxo(over: Record<string, unknown>): Record<string, unknown> {
  return {
    created_chain: P_ID,
    asset_id: AVAX,
    threshold: 1,
    locktime: 0,
    stakeable_locktime: 0,
    staked: false,
    utxo_type: "TRANSFER",
    group_id: 0,
    payload: new Uint8Array(),
    utxo_bytes: new Uint8Array([0]),
    ...over,
  };
}

/** Fills the store with a small P/X/C history: see the comments for what each transaction does. */
export async function seedPrimary(db: TestDb): Promise<void> {
  await db.insert("assets", {
    asset_id: AVAX,
    name: "Avalanche",
    symbol: "AVAX",
    denomination: 9,
    asset_type: "secp256k1",
    created_ts: 0,
  });
  for (let h = 0; h <= 5; h++) {
    await db.insert("blocks", {
      chain: "P",
      height: h,
      block_id: `pblk${h}`,
      container_id: h === 1 ? "pwrap1" : `pblk${h}`,
      parent_id: h === 0 ? "11111111111111111111111111111111LpoYY" : `pblk${h - 1}`,
      block_type: "Standard",
      ts: 1000 + h * 10,
      tx_count: h >= 1 && h <= 4 ? 1 : 0,
      size_bytes: 100 + h,
      tx_ids: h >= 1 && h <= 4 ? [`ptx${h}`] : [],
      proposer:
        h === 1
          ? {
              proposerId: "pwrap1",
              proposerParentId: "pwrap0",
              proposerNodeId: "NodeID-A",
              proposerPChainHeight: 0,
              proposerTimestamp: 1010,
            }
          : null,
      current_supply: `${1000 + h}000000000000000`,
      l1_accrued_fees: h === 5 ? 7 : null,
      active_l1_validators: h === 5 ? 2 : null,
    });
  }
  await db.insert("blocks", {
    chain: "C",
    height: 1,
    block_id: "0x" + "ab".repeat(32),
    container_id: "cwrap1",
    parent_id: "0x" + "cd".repeat(32),
    block_type: "",
    ts: 1036,
    tx_count: 0,
    size_bytes: 900,
    tx_ids: [],
    proposer: null,
  });
  const ewoq = hexBytes(EWOQ_HEX);
  const bob = hexBytes(BOB_HEX);
  const tx = (seq: number, type: string, over: Record<string, unknown> = {}): Record<string, unknown> => ({
    chain: "P",
    seq,
    tx_id: `ptx${seq}`,
    tx_type: type,
    block_id: `pblk${seq}`,
    block_height: seq,
    ts: 1000 + seq * 10,
    memo: new Uint8Array(),
    details: {},
    size_bytes: 200,
    ...over,
  });
  const addr = async (seq: number, ...as: Uint8Array[]): Promise<void> => {
    for (const a of as) await db.insert("tx_addresses", {chain: "P", address: a, seq});
  };
  const owns = async (utxoId: string, ...as: Uint8Array[]): Promise<void> => {
    const [{created_ts}] = await db.query<{created_ts: bigint}>("SELECT created_ts FROM utxos WHERE utxo_id = $1", [
      utxoId,
    ]);
    for (const a of as) await db.insert("utxo_addresses", {address: a, created_ts, utxo_id: utxoId});
  };
  const spent = (seq: number): Record<string, unknown> => ({
    consumed_chain: P_ID,
    consuming_tx: `ptx${seq}`,
    consuming_block: `pblk${seq}`,
    consuming_height: seq,
    consuming_ts: 1000 + seq * 10,
    credentials: [{signature: "c2ln", publicKey: "cGs="}],
  });
  const made = (seq: number): Record<string, unknown> => ({
    tx_id: `ptx${seq}`,
    created_seq: seq,
    created_block: `pblk${seq}`,
    created_height: seq,
    created_ts: 1000 + seq * 10,
  });

  // Genesis UTXO of ewoq, spent by ptx1.
  await db.insert(
    "utxos",
    utxo({
      utxo_id: "g0",
      tx_id: "genesisP",
      output_index: 0,
      created_height: 0,
      created_ts: 1000,
      amount: "1000",
      addresses: [EWOQ_HEX],
      ...spent(1),
    }),
  );
  await owns("g0", ewoq);
  // ptx1 BaseTx: 1000 → 600 bob + 399 ewoq (1 burned).
  await db.insert("txs", tx(1, "BaseTx", {memo: new Uint8Array([0x68, 0x69])}));
  await addr(1, ewoq, bob);
  await db.insert(
    "utxos",
    utxo({utxo_id: "u1a", output_index: 0, amount: "600", addresses: [BOB_HEX], ...made(1), ...spent(3)}),
  );
  await db.insert(
    "utxos",
    utxo({utxo_id: "u1b", output_index: 1, amount: "399", addresses: [EWOQ_HEX], ...made(1), ...spent(2)}),
  );
  await owns("u1a", bob);
  await owns("u1b", ewoq);
  // ptx2 AddPermissionlessValidatorTx: 399 → 300 staked + 98 change.
  const owner = {locktime: "0", threshold: 1, addresses: [EWOQ_HEX]};
  await db.insert(
    "txs",
    tx(2, "AddPermissionlessValidatorTx", {
      details: {
        staker: {
          kind: "validator",
          nodeId: "NodeID-A",
          subnetId: "11111111111111111111111111111111LpoYY",
          startTime: null,
          endTime: "5000",
          weight: "300",
          rewardOwner: owner,
          delegationRewardOwner: owner,
          delegationShares: 20000,
          bls: {publicKey: "aa", proofOfPossession: "bb"},
        },
      },
    }),
  );
  await addr(2, ewoq);
  await db.insert("utxos", utxo({utxo_id: "u2", output_index: 0, amount: "98", addresses: [EWOQ_HEX], ...made(2)}));
  await db.insert(
    "utxos",
    utxo({
      utxo_id: "s2",
      output_index: 1,
      amount: "300",
      addresses: [EWOQ_HEX],
      staked: true,
      utxo_type: "STAKE",
      staking_end: 5000,
      ...made(2),
    }),
  );
  await owns("u2", ewoq);
  await owns("s2", ewoq);
  await db.insert("stakers", {
    tx_id: "ptx2",
    kind: "validator",
    node_id: "NodeID-A",
    subnet_id: "11111111111111111111111111111111LpoYY",
    start_ts: 1020,
    end_ts: 5000,
    weight: "300",
    potential_reward: "12",
    delegation_shares: 20000,
    reward_owner: owner,
    delegation_reward_owner: owner,
    bls: {publicKey: "aa", proofOfPossession: "bb"},
    status: "current",
  });
  // ptx3 ExportTx to X: bob's 600 → 599 exported (consumed on X by xImport at 1035).
  await db.insert("txs", tx(3, "ExportTx", {destination_chain: X_ID}));
  await addr(3, bob);
  await db.insert(
    "utxos",
    utxo({
      utxo_id: "e3",
      output_index: 0,
      amount: "599",
      addresses: [BOB_HEX],
      exported_to: X_ID,
      ...made(3),
      consumed_chain: X_ID,
      consuming_tx: "xImport",
      consuming_block: "xblk7",
      consuming_height: 7,
      consuming_ts: 1035,
    }),
  );
  await owns("e3", bob);
  // ptx4 ImportTx from X: bob's 200 exported by X → 199 on P.
  await db.insert("txs", tx(4, "ImportTx", {source_chain: X_ID}));
  await addr(4, bob);
  await db.insert(
    "utxos",
    utxo({
      utxo_id: "x5",
      tx_id: "xExport",
      output_index: 0,
      created_chain: X_ID,
      created_height: 6,
      created_ts: 1005,
      amount: "200",
      addresses: [BOB_HEX],
      exported_to: P_ID,
      ...spent(4),
    }),
  );
  await db.insert("utxos", utxo({utxo_id: "u4", output_index: 0, amount: "199", addresses: [BOB_HEX], ...made(4)}));
  await owns("x5", bob);
  await owns("u4", bob);
}

export const TOK = "xCreate";
export const EWOQ_EVM = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC";

/** X and C history on top of seedPrimary's: an asset creation in a vertex, the import of P's export, a C export. */
export async function seedXC(db: TestDb): Promise<void> {
  const ewoq = hexBytes(EWOQ_HEX);
  const bob = hexBytes(BOB_HEX);
  for (const [id, height, seq, ts, txIds] of [
    ["vtx1", 3, 1, 1003, ["xCreate"]],
    ["vtx2", 3, 2, 1004, []],
    ["vtx3", 4, 3, 1005, []],
  ] as const) {
    await db.insert("vertices", {
      vertex_id: id,
      height,
      seq,
      parent_ids: ["vtx0"],
      ts,
      tx_count: txIds.length,
      size_bytes: 50 + seq,
      tx_ids: [...txIds],
    });
  }
  await db.insert("blocks", {
    chain: "X",
    height: 7,
    block_id: "xblk7",
    container_id: "xblk7",
    parent_id: "xblk6",
    block_type: "",
    ts: 1035,
    tx_count: 1,
    size_bytes: 300,
    tx_ids: ["xImport"],
    proposer: null,
  });
  await db.insert("assets", {
    asset_id: TOK,
    name: "Token",
    symbol: "TOK",
    denomination: 2,
    asset_type: "secp256k1",
    created_tx: TOK,
    created_ts: 1003,
  });
  const xtx = (
    seq: number,
    id: string,
    type: string,
    block: string,
    height: number,
    ts: number,
    over: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    chain: "X",
    seq,
    tx_id: id,
    tx_type: type,
    block_id: block,
    block_height: height,
    ts,
    memo: new Uint8Array(),
    details: {},
    size_bytes: 200,
    ...over,
  });
  await db.insert(
    "txs",
    xtx(1, TOK, "CreateAssetTx", "vtx1", 3, 1003, {details: {asset: {name: "Token", symbol: "TOK", denomination: 2}}}),
  );
  await db.insert("txs", xtx(2, "xImport", "ImportTx", "xblk7", 7, 1035, {source_chain: P_ID}));
  await db.insert("tx_addresses", {chain: "X", address: ewoq, seq: 1});
  await db.insert("tx_addresses", {chain: "X", address: bob, seq: 2});
  await db.insert("asset_txs", {asset_id: TOK, seq: 1});
  await db.insert("asset_txs", {asset_id: AVAX, seq: 2});
  await db.insert(
    "utxos",
    utxo({
      utxo_id: "xc0",
      tx_id: TOK,
      output_index: 0,
      created_chain: X_ID,
      created_seq: 1,
      created_block: "vtx1",
      created_height: 3,
      created_ts: 1003,
      asset_id: TOK,
      amount: "1000",
      addresses: [EWOQ_HEX],
    }),
  );
  await db.insert(
    "utxos",
    utxo({
      utxo_id: "xi0",
      tx_id: "xImport",
      output_index: 0,
      created_chain: X_ID,
      created_seq: 2,
      created_block: "xblk7",
      created_height: 7,
      created_ts: 1035,
      amount: "598",
      addresses: [BOB_HEX],
      locktime: 2000,
    }),
  );
  await db.insert("utxo_addresses", {address: ewoq, created_ts: 1003, utxo_id: "xc0"});
  await db.insert("utxo_addresses", {address: bob, created_ts: 1035, utxo_id: "xi0"});
  // C export of 50 from ewoq's EVM address: 49 exported to P (not yet imported there), 1 burned.
  await db.insert("txs", {
    chain: "C",
    seq: 1,
    tx_id: "cExport",
    tx_type: "ExportTx",
    block_id: "0x" + "ab".repeat(32),
    block_height: 1,
    ts: 1036,
    memo: new Uint8Array(),
    destination_chain: P_ID,
    details: {},
    size_bytes: 250,
    evm: {inputs: [{address: EWOQ_EVM.toLowerCase(), assetId: AVAX, amount: "50", nonce: "0"}], outputs: []},
  });
  await db.insert("tx_addresses", {chain: "C", address: hexBytes(EWOQ_EVM.slice(2).toLowerCase()), seq: 1});
  await db.insert("tx_addresses", {chain: "C", address: ewoq, seq: 1});
  await db.insert(
    "utxos",
    utxo({
      utxo_id: "ce0",
      tx_id: "cExport",
      output_index: 0,
      created_chain: C_ID,
      created_seq: 1,
      created_height: 1,
      created_ts: 1036,
      amount: "49",
      addresses: [EWOQ_HEX],
      exported_to: P_ID,
    }),
  );
  await db.insert("utxo_addresses", {address: ewoq, created_ts: 1036, utxo_id: "ce0"});
}

export const CAROL_HEX = "00000000000000000000000000000000000000c0";

/** Stakers on top of seedPrimary's validator ptx2: a delegator to it and a completed validator with its reward. */
export async function seedStakers(db: TestDb): Promise<void> {
  const own = (hex: string): Record<string, unknown> => ({locktime: "0", threshold: 1, addresses: [hex]});
  const base = {subnet_id: P_ID, delegation_shares: 0, status: "current"};
  await db.insert("stakers", {
    ...base,
    tx_id: "pdel",
    kind: "delegator",
    node_id: "NodeID-A",
    start_ts: 1100,
    end_ts: 4000,
    weight: "100",
    potential_reward: "1000",
    reward_owner: own(BOB_HEX),
    validator_tx_id: "ptx2",
  });
  await db.insert("stakers", {
    ...base,
    tx_id: "pold",
    kind: "validator",
    node_id: "NodeID-B",
    start_ts: 500,
    end_ts: 900,
    weight: "200",
    potential_reward: "7",
    delegation_shares: 30000,
    reward_owner: own(CAROL_HEX),
    delegation_reward_owner: own(CAROL_HEX),
    status: "rewarded",
    reward_tx_id: "prew",
  });
  for (const [a, tx, role] of [
    [EWOQ_HEX, "ptx2", "VALIDATOR"],
    [BOB_HEX, "pdel", "DELEGATOR"],
    [EWOQ_HEX, "pdel", "VALIDATOR_FEE"],
    [CAROL_HEX, "pold", "VALIDATOR"],
  ] as const) {
    await db.insert("staker_addresses", {address: hexBytes(a), tx_id: tx, role});
  }
  await db.insert(
    "utxos",
    utxo({
      utxo_id: "r0",
      tx_id: "pold",
      output_index: 1,
      created_height: 0,
      created_ts: 900,
      amount: "7",
      addresses: [CAROL_HEX],
      reward_type: "VALIDATOR",
    }),
  );
  await db.insert("utxo_addresses", {address: hexBytes(CAROL_HEX), created_ts: 900, utxo_id: "r0"});
}

/** Two subnets (one converted to an L1 with an EVM chain) and two L1 validators (one removed). */
export async function seedSubnets(db: TestDb, inactiveValidationId: string): Promise<void> {
  const own = {locktime: "0", threshold: 1, addresses: [EWOQ_HEX]};
  await db.insert("subnets", {
    subnet_id: "subA",
    created_tx: "ptx1",
    created_ts: 1010,
    owner: own,
    is_l1: true,
    l1_chain_id: "chainL1",
    l1_manager: "0x0200000000000000000000000000000000000005",
    l1_conversion_id: "conv",
    l1_converted_ts: 1040,
  });
  await db.insert("subnets", {subnet_id: "subB", created_tx: "ptx4", created_ts: 1040, owner: own});
  await db.insert("blockchains", {
    blockchain_id: "chainL1",
    subnet_id: "subA",
    name: "L1",
    vm_id: "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy",
    genesis_data: new TextEncoder().encode('{"config":{"chainId":99999},"gasLimit":"0x7a1200"}'),
    created_ts: 1020,
    created_height: 2,
  });
  await db.insert("blockchains", {
    blockchain_id: "chainX",
    subnet_id: "subA",
    name: "other",
    vm_id: "vm",
    genesis_data: new Uint8Array([1, 2]),
    created_ts: 1030,
    created_height: 3,
  });
  await db.insert("l1_validators", {
    validation_id: P_ID,
    subnet_id: "subA",
    node_id: "NodeID-L",
    weight: "20",
    balance: "1000250",
    bls: {publicKey: "aa", proofOfPossession: "bb"},
    remaining_balance_owner: own,
    deactivation_owner: own,
    created_tx: "ptx4",
    created_ts: 1040,
    // Funded with 1,000,250 nAVAX when the chain's accrued fees were 0; they are 250 now: 1,000,000 left.
    end_accumulated_fee: "1000250",
  });
  await db.insert("data_api_meta", {key: "view.l1.accruedFees", value: "250"});
  await db.insert("l1_validators", {
    validation_id: inactiveValidationId,
    subnet_id: "subA",
    node_id: "NodeID-M",
    weight: "10",
    balance: "0",
    created_tx: "ptx4",
    created_ts: 1041,
    active: false,
  });
}

/** ptx4 (the import) is related to the L1 validation P_ID, for the l1ValidationId filter. */
export async function seedL1ValidationTxs(db: TestDb): Promise<void> {
  await db.insert("l1_validation_txs", {validation_id: P_ID, seq: 4});
}
