/**
 * The data API's schema: one ordered list of migrations, the same SQL (PostgreSQL's dialect) for PGlite and for a
 * PostgreSQL server. Everything here is derived from the container index and the EVM RPCs, so a schema change may
 * also be handled by a rebuild (`avaext data-api rebuild`).
 *
 * Conventions: IDs are stored as the API returns them (CB58, or `0x` hex on the C-chain's EVM side); 20-byte
 * addresses as bytea (the network's HRP is added when answering); amounts as numeric (they exceed int8 when
 * summed); times as int8 Unix seconds; `seq` is a per-chain ordinal in index order: the keyset cursor of every
 * "latest" list, since a chain's timestamps never decrease along its index.
 *
 * Column contents (what the queries may rely on):
 * - `blocks.tx_ids`, `vertices.tx_ids`, `vertices.parent_ids`: JSON arrays of ID strings.
 * - `blocks.proposer`: JSON {proposerId, proposerParentId, proposerNodeId, proposerPChainHeight, proposerTimestamp}
 *   (numbers as JSON numbers), null for a block without a proposervm wrapper.
 * - `blocks.current_supply`: the P-chain's supply after the block (P only).
 * - `txs.details`: model.ts `TxDetails` made JSON-safe (bigints as decimal strings, bytes as 0x hex, owners as
 *   {locktime, threshold, addresses: [40-hex short IDs]}); `txs.evm`: C atomic txs {inputs: [{address (0x hex),
 *   assetId, amount, nonce}], outputs: [{address, assetId, amount}]}, else null.
 * - `utxos.addresses`: JSON array of 40-hex short IDs (bech32 with the HRP when answering); `credentials`: JSON
 *   [{signature, publicKey}] base64, as the hosted API shows them; `tx_id` is the creating transaction (a genesis
 *   or reward transaction included); `created_chain` / `consumed_chain` the chain IDs (CB58) where the UTXO is
 *   created / consumed (they differ for exported UTXOs); `reward_type` set on reward UTXOs; `staking_end` on
 *   staked outputs (their end time: the principal unlocks then).
 */
/** One step of the schema (the runner records the versions applied). */
export interface SchemaMigration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: SchemaMigration[] = [
  {
    version: 1,
    name: "primary network",
    sql: `
CREATE TABLE data_api_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);

-- Per index endpoint (P/block, X/tx, ...): the index of the next container the primary view folds.
CREATE TABLE view_positions (
  endpoint text PRIMARY KEY,
  next_index int8 NOT NULL
);

CREATE TABLE blocks (
  chain text NOT NULL,
  height int8 NOT NULL,
  block_id text NOT NULL,
  container_id text NOT NULL,
  parent_id text NOT NULL,
  block_type text NOT NULL,
  ts int8 NOT NULL,
  tx_count int4 NOT NULL,
  size_bytes int4 NOT NULL,
  tx_ids jsonb NOT NULL,
  proposer jsonb,
  current_supply numeric,
  l1_accrued_fees int8,
  active_l1_validators int4,
  PRIMARY KEY (chain, height)
);
CREATE UNIQUE INDEX blocks_by_id ON blocks (chain, block_id);
CREATE INDEX blocks_by_ts ON blocks (chain, ts, height);

CREATE TABLE vertices (
  vertex_id text PRIMARY KEY,
  height int8 NOT NULL,
  seq int8 NOT NULL,
  parent_ids jsonb NOT NULL,
  ts int8 NOT NULL,
  tx_count int4 NOT NULL,
  size_bytes int4 NOT NULL,
  tx_ids jsonb NOT NULL
);
CREATE INDEX vertices_by_height ON vertices (height, seq);

CREATE TABLE txs (
  chain text NOT NULL,
  seq int8 NOT NULL,
  tx_id text NOT NULL,
  tx_type text NOT NULL,
  block_id text NOT NULL,
  block_height int8 NOT NULL,
  ts int8 NOT NULL,
  memo bytea NOT NULL,
  source_chain text,
  destination_chain text,
  details jsonb NOT NULL,
  evm jsonb,
  size_bytes int4 NOT NULL,
  PRIMARY KEY (chain, seq)
);
CREATE UNIQUE INDEX txs_by_id ON txs (chain, tx_id);
CREATE INDEX txs_by_ts ON txs (chain, ts, seq);

-- The addresses a transaction touches (owners of what it consumes and emits, owners it sets, EVM addresses of a
-- C atomic transaction): endpoint 5's addresses filter.
CREATE TABLE tx_addresses (
  chain text NOT NULL,
  address bytea NOT NULL,
  seq int8 NOT NULL,
  PRIMARY KEY (chain, address, seq)
);

-- X-chain transactions that create, consume or emit an asset: endpoint 4.
CREATE TABLE asset_txs (
  asset_id text NOT NULL,
  seq int8 NOT NULL,
  PRIMARY KEY (asset_id, seq)
);

-- The UTXO set folded from history. A row is written by whichever comes first, the creation or the consumption
-- (an import may be folded before the export that created its UTXO), and completed by the other.
CREATE TABLE utxos (
  utxo_id text PRIMARY KEY,
  tx_id text NOT NULL,
  output_index int4 NOT NULL,
  created_chain text,
  created_seq int8,
  created_block text,
  created_height int8,
  created_ts int8,
  asset_id text,
  amount numeric,
  addresses jsonb,
  threshold int4,
  locktime int8,
  stakeable_locktime int8,
  staked bool,
  utxo_type text,
  group_id int4,
  payload bytea,
  utxo_bytes bytea,
  exported_to text,
  consumed_chain text,
  consuming_tx text,
  consuming_block text,
  consuming_height int8,
  consuming_ts int8,
  credentials jsonb,
  reward_type text,
  staking_end int8
);

CREATE INDEX utxos_by_tx ON utxos (tx_id);
CREATE INDEX utxos_by_consuming_tx ON utxos (consuming_tx) WHERE consuming_tx IS NOT NULL;

CREATE TABLE utxo_addresses (
  address bytea NOT NULL,
  utxo_id text NOT NULL,
  PRIMARY KEY (address, utxo_id)
);

CREATE TABLE assets (
  asset_id text PRIMARY KEY,
  name text NOT NULL,
  symbol text NOT NULL,
  denomination int4 NOT NULL,
  asset_type text NOT NULL,
  created_tx text,
  created_ts int8 NOT NULL,
  cap numeric
);

-- Primary-network and subnet stakers, current and past.
CREATE TABLE stakers (
  tx_id text PRIMARY KEY,
  kind text NOT NULL,
  node_id text NOT NULL,
  subnet_id text NOT NULL,
  start_ts int8 NOT NULL,
  end_ts int8 NOT NULL,
  weight numeric NOT NULL,
  potential_reward numeric NOT NULL,
  delegation_shares int4 NOT NULL,
  reward_owner jsonb,
  delegation_reward_owner jsonb,
  bls jsonb,
  status text NOT NULL,
  reward_tx_id text,
  validator_tx_id text
);
CREATE INDEX stakers_by_node ON stakers (node_id, status, end_ts);
CREATE INDEX stakers_by_status ON stakers (status, end_ts, tx_id);
-- A validator's delegators (counts, delegated stake, fees) and a reward transaction's staker (historical rewards).
CREATE INDEX stakers_by_validator ON stakers (validator_tx_id) WHERE validator_tx_id IS NOT NULL;
CREATE INDEX stakers_by_reward_tx ON stakers (reward_tx_id) WHERE reward_tx_id IS NOT NULL;

CREATE TABLE staker_addresses (
  address bytea NOT NULL,
  tx_id text NOT NULL,
  role text NOT NULL,
  PRIMARY KEY (address, tx_id, role)
);

CREATE TABLE subnets (
  subnet_id text PRIMARY KEY,
  created_tx text NOT NULL,
  created_ts int8 NOT NULL,
  owner jsonb,
  is_l1 bool NOT NULL DEFAULT false,
  l1_chain_id text,
  l1_manager text,
  l1_conversion_id text,
  l1_converted_ts int8
);
CREATE INDEX subnets_by_ts ON subnets (created_ts, subnet_id);

CREATE TABLE blockchains (
  blockchain_id text PRIMARY KEY,
  subnet_id text NOT NULL,
  name text NOT NULL,
  vm_id text NOT NULL,
  genesis_data bytea NOT NULL,
  created_ts int8 NOT NULL,
  created_height int8 NOT NULL
);
CREATE INDEX blockchains_by_height ON blockchains (created_height, blockchain_id);
CREATE INDEX blockchains_by_subnet ON blockchains (subnet_id);

CREATE TABLE l1_validators (
  validation_id text PRIMARY KEY,
  subnet_id text NOT NULL,
  node_id text NOT NULL,
  weight numeric NOT NULL,
  balance numeric NOT NULL,
  bls jsonb,
  remaining_balance_owner jsonb,
  deactivation_owner jsonb,
  created_tx text NOT NULL,
  created_ts int8 NOT NULL,
  nonce int8 NOT NULL DEFAULT 0,
  active bool NOT NULL DEFAULT true
);
CREATE INDEX l1_validators_by_subnet ON l1_validators (subnet_id, created_ts, validation_id);
CREATE INDEX l1_validators_by_ts ON l1_validators (created_ts, validation_id);

-- P-chain transactions related to an L1 validation ID (endpoint 5's l1ValidationId filter).
CREATE TABLE l1_validation_txs (
  validation_id text NOT NULL,
  seq int8 NOT NULL,
  PRIMARY KEY (validation_id, seq)
);
`,
  },
];
