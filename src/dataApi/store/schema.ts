/**
 * The data API's schema: one ordered list of migrations, the same SQL (PostgreSQL's dialect) for PGlite and for a
 * PostgreSQL server. Everything here is derived from the container index and the EVM RPCs, so a schema change may
 * also be handled by a rebuild (`avaext data-api rebuild`).
 *
 * Conventions: IDs are stored as the API returns them (CB58, or `0x` hex on the C-chain's EVM side), and the primary
 * network's text columns compare as bytes (COLLATE "C", migration 8), whatever the database's collation; 20-byte
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
import {METRICS_BACKFILL_SQL} from "./metricsRollups.js";

export interface SchemaMigration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Schema 23's move of primary webhooks' keys and filters out of their metadata into webhook_keys. Idempotent (a row
 * moved already has none left in its metadata), so `data-api rebuild` runs it again on the webhooks it copies back
 * from a store older than 23 (rebuild.ts restore), whose migrations ran on tables emptied for the refold.
 */
export const MOVE_WEBHOOK_KEYS: readonly string[] = [
  `INSERT INTO webhook_keys (webhook_id, kind, key)
  SELECT h.id, f.kind, k.k FROM webhooks h
  CROSS JOIN (VALUES ('key', 'keys'), ('nodeId', 'nodeIds'), ('subnetId', 'subnetIds')) AS f(kind, field)
  CROSS JOIN LATERAL jsonb_array_elements_text(COALESCE(h.metadata -> f.field, '[]'::jsonb)) AS k(k)
  WHERE h.event_type IN ('primary_network_address_activity', 'validator_activity')
  ON CONFLICT DO NOTHING`,
  `UPDATE webhooks SET metadata = (metadata - 'keys' - 'nodeIds' - 'subnetIds')
    || CASE WHEN jsonb_exists(metadata, 'nodeIds') THEN '{"nodeIds": []}'::jsonb ELSE '{}'::jsonb END
    || CASE WHEN jsonb_exists(metadata, 'subnetIds') THEN '{"subnetIds": []}'::jsonb ELSE '{}'::jsonb END
  WHERE event_type IN ('primary_network_address_activity', 'validator_activity')`,
];

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
  {
    version: 2,
    name: "EVM chains",
    sql: `
-- One row per followed EVM chain (docs/operations/evm-chains.md): its identity, its head (the last block folded, and
-- its hash for the next block's parent check), and whether its RPC serves call traces. chain_id: the EVM chain ID,
-- decimal.
CREATE TABLE evm_chains (
  chain_id text PRIMARY KEY,
  blockchain_id text,
  head_number int8,
  head_hash bytea,
  traces boolean NOT NULL DEFAULT true,
  updated_at int8 NOT NULL
);

CREATE TABLE evm_blocks (
  chain_id text NOT NULL,
  number int8 NOT NULL,
  hash bytea NOT NULL,
  parent_hash bytea NOT NULL,
  timestamp int8 NOT NULL,
  tx_count int4 NOT NULL,
  base_fee numeric NOT NULL,
  gas_used numeric NOT NULL,
  gas_limit numeric NOT NULL,
  fees_spent numeric NOT NULL,
  cumulative_txs int8 NOT NULL,
  PRIMARY KEY (chain_id, number)
);
CREATE INDEX evm_blocks_hash ON evm_blocks (hash);

-- Transactions keyed by position; (block_number, tx_index) is every list's keyset cursor.
CREATE TABLE evm_txs (
  chain_id text NOT NULL,
  block_number int8 NOT NULL,
  tx_index int4 NOT NULL,
  hash bytea NOT NULL,
  from_addr bytea NOT NULL,
  to_addr bytea,
  created bytea,
  value numeric NOT NULL,
  nonce int8 NOT NULL,
  gas_limit numeric NOT NULL,
  gas_used numeric NOT NULL,
  gas_price numeric NOT NULL,
  max_fee numeric,
  max_priority_fee numeric,
  tx_type int4 NOT NULL,
  status int4 NOT NULL,
  input bytea NOT NULL,
  PRIMARY KEY (chain_id, block_number, tx_index)
);
CREATE INDEX evm_txs_hash ON evm_txs (hash);
CREATE INDEX evm_txs_status ON evm_txs (chain_id, status, block_number, tx_index);

-- What each address took part in, one row per (address, transaction): kinds is a bit set (1 from/to of the
-- transaction, 2 ERC-20, 4 ERC-721, 8 ERC-1155, 16 internal transaction). Serves endpoint 3 and :listNative.
CREATE TABLE evm_address_txs (
  chain_id text NOT NULL,
  address bytea NOT NULL,
  block_number int8 NOT NULL,
  tx_index int4 NOT NULL,
  kinds int4 NOT NULL,
  PRIMARY KEY (chain_id, address, block_number, tx_index)
);

-- ERC-20/721/1155 transfers, one row per item (a TransferBatch gives one per id): ercType 20, 721 or 1155.
CREATE TABLE evm_transfers (
  chain_id text NOT NULL,
  block_number int8 NOT NULL,
  tx_index int4 NOT NULL,
  log_index int4 NOT NULL,
  item int4 NOT NULL,
  erc int4 NOT NULL,
  token bytea NOT NULL,
  from_addr bytea NOT NULL,
  to_addr bytea NOT NULL,
  token_id numeric,
  value numeric NOT NULL,
  PRIMARY KEY (chain_id, block_number, log_index, item)
);
CREATE INDEX evm_transfers_token ON evm_transfers (chain_id, token, block_number, log_index, item);

-- The transfers of each address (one row per side; one when from = to), by kind: the :listErc* endpoints.
CREATE TABLE evm_address_transfers (
  chain_id text NOT NULL,
  address bytea NOT NULL,
  erc int4 NOT NULL,
  block_number int8 NOT NULL,
  log_index int4 NOT NULL,
  item int4 NOT NULL,
  PRIMARY KEY (chain_id, address, erc, block_number, log_index, item)
);

-- Internal transactions (frames below a call tree's root that the hosted API lists: CALL/CALLCODE with value,
-- CREATE, CREATE2, CREATE3), from the trace lane; idx is the frame's depth-first order in its transaction.
CREATE TABLE evm_internal_txs (
  chain_id text NOT NULL,
  block_number int8 NOT NULL,
  tx_index int4 NOT NULL,
  idx int4 NOT NULL,
  call_type text NOT NULL,
  from_addr bytea NOT NULL,
  to_addr bytea,
  value numeric NOT NULL,
  gas_limit numeric NOT NULL,
  gas_used numeric NOT NULL,
  reverted boolean NOT NULL,
  PRIMARY KEY (chain_id, block_number, tx_index, idx)
);

CREATE TABLE evm_address_internals (
  chain_id text NOT NULL,
  address bytea NOT NULL,
  block_number int8 NOT NULL,
  tx_index int4 NOT NULL,
  idx int4 NOT NULL,
  PRIMARY KEY (chain_id, address, block_number, tx_index, idx)
);

-- Contracts: deployed by a transaction (to = null) or by a contract (a CREATE/CREATE2 frame). deployer is the
-- transaction's sender; deployer_contract the creating contract when it was one.
CREATE TABLE evm_contracts (
  chain_id text NOT NULL,
  address bytea NOT NULL,
  block_number int8 NOT NULL,
  tx_index int4 NOT NULL,
  deployer bytea NOT NULL,
  deployer_contract bytea,
  PRIMARY KEY (chain_id, address)
);
CREATE INDEX evm_contracts_deployer ON evm_contracts (chain_id, deployer, block_number, address);
CREATE INDEX evm_contracts_deployer_contract ON evm_contracts (chain_id, deployer_contract, block_number, address) WHERE deployer_contract IS NOT NULL;

-- Token metadata read by eth_call, once per contract (erc: 20, 721, 1155, 0 unknown).
CREATE TABLE evm_tokens (
  chain_id text NOT NULL,
  address bytea NOT NULL,
  erc int4 NOT NULL,
  name text,
  symbol text,
  decimals int4,
  PRIMARY KEY (chain_id, address)
);

-- Balances folded from transfers: ERC-20 (token_id 0), ERC-721 (balance 1 for the current owner), ERC-1155.
CREATE TABLE evm_balances (
  chain_id text NOT NULL,
  owner bytea NOT NULL,
  erc int4 NOT NULL,
  token bytea NOT NULL,
  token_id numeric NOT NULL,
  balance numeric NOT NULL,
  PRIMARY KEY (chain_id, owner, erc, token, token_id)
);

-- NFTs seen in transfers: the current owner (ERC-721), the token URI and its metadata once fetched.
CREATE TABLE evm_nfts (
  chain_id text NOT NULL,
  token bytea NOT NULL,
  token_id numeric NOT NULL,
  erc int4 NOT NULL,
  owner bytea,
  first_block int8 NOT NULL,
  token_uri text,
  metadata jsonb,
  index_status text NOT NULL DEFAULT 'UNINDEXED',
  updated_at int8,
  PRIMARY KEY (chain_id, token, token_id)
);
CREATE INDEX evm_nfts_pending ON evm_nfts (chain_id, first_block) WHERE index_status = 'UNINDEXED';
`,
  },
  {
    version: 3,
    name: "interchain messages",
    sql: `
-- TeleporterMessenger events of the followed EVM chains (docs/api/icm.md), as they come: the truth each message record
-- is folded from. event: the decoded event (JSON, bigints as decimal strings) with its transaction's hash, time and
-- gas used, and the chain's blockchain ID.
CREATE TABLE icm_events (
  chain_id text NOT NULL,
  block_number int8 NOT NULL,
  log_index int4 NOT NULL,
  tx_index int4 NOT NULL,
  message_id text NOT NULL,
  kind text NOT NULL,
  event jsonb NOT NULL,
  PRIMARY KEY (chain_id, block_number, log_index)
);
CREATE INDEX icm_events_message ON icm_events (message_id);
CREATE INDEX icm_events_tx ON icm_events (chain_id, block_number, tx_index);

-- One record per message, folded from all of its events on both chains. sort_ts: the source transaction's time,
-- else the destination's (the lists' order); record: the answer but the EVM chain IDs and the fee token's metadata.
CREATE TABLE icm_messages (
  message_id text PRIMARY KEY,
  messenger bytea NOT NULL,
  source_blockchain_id text NOT NULL,
  destination_blockchain_id text NOT NULL,
  from_addr bytea NOT NULL,
  to_addr bytea NOT NULL,
  status text NOT NULL,
  sort_ts int8 NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX icm_messages_ts ON icm_messages (sort_ts, message_id);
CREATE INDEX icm_messages_from ON icm_messages (from_addr, sort_ts, message_id);
CREATE INDEX icm_messages_to ON icm_messages (to_addr, sort_ts, message_id);
CREATE INDEX icm_messages_source ON icm_messages (source_blockchain_id, sort_ts, message_id);
CREATE INDEX icm_messages_destination ON icm_messages (destination_blockchain_id, sort_ts, message_id);
`,
  },
  {
    version: 4,
    name: "warp messages",
    sql: `
-- Warp messages the followed EVM chains sent (the warp precompile's SendWarpMessage logs of accepted blocks): what
-- the dev network's validators sign for an EVM source chain, as AvalancheGo's VM signs only messages it sent.
CREATE TABLE warp_messages (
  message_id bytea PRIMARY KEY,
  chain_id text NOT NULL,
  block_number int8 NOT NULL,
  unsigned bytea NOT NULL
);
CREATE INDEX warp_messages_block ON warp_messages (chain_id, block_number);
`,
  },
  {
    version: 5,
    name: "utxo spends",
    sql: `
-- A UTXO's consumption in a table of its own, written once: as columns of utxos, every spend rewrote the whole
-- UTXO row (an upsert, a new tuple version and an entry in each index) and left a dead one behind. A spend may be
-- folded before the UTXO's creation (an import folded before its export): the queries join the two.
CREATE TABLE utxo_spends (
  utxo_id text PRIMARY KEY,
  tx_id text NOT NULL,
  output_index int4 NOT NULL,
  consumed_chain text NOT NULL,
  consuming_tx text NOT NULL,
  consuming_block text,
  consuming_height int8,
  consuming_ts int8,
  credentials jsonb
);
INSERT INTO utxo_spends
  SELECT utxo_id, tx_id, output_index, consumed_chain, consuming_tx, consuming_block, consuming_height, consuming_ts, credentials
  FROM utxos WHERE consuming_tx IS NOT NULL;
CREATE INDEX utxo_spends_by_consuming_tx ON utxo_spends (consuming_tx);
DELETE FROM utxos WHERE created_chain IS NULL;
ALTER TABLE utxos DROP COLUMN consumed_chain, DROP COLUMN consuming_tx, DROP COLUMN consuming_block,
  DROP COLUMN consuming_height, DROP COLUMN consuming_ts, DROP COLUMN credentials;
`,
  },
  {
    version: 6,
    name: "accrued delegatee rewards",
    sql: `
-- From Cortina a delegator's fee share is not paid with its reward: it accrues on its validator and is paid with
-- the validator's own reward (AvalancheGo's state.Staker.AccruedDelegateeReward).
ALTER TABLE stakers ADD COLUMN accrued_delegatee_reward numeric NOT NULL DEFAULT 0;
`,
  },
  {
    version: 7,
    name: "L1 validator fees",
    sql: `
-- The continuous fee of L1 validators (ACP-77), as AvalancheGo keeps it: an active validator's balance + the chain's
-- accrued fees when it was funded (0 while inactive); its remaining balance is that minus the accrued fees now
-- (data_api_meta 'view.l1.accruedFees'). A store folded before this version charged no fee: its active validators
-- start from their balance as folded (run \`avaext data-api rebuild\` for the exact history).
ALTER TABLE l1_validators ADD COLUMN end_accumulated_fee numeric NOT NULL DEFAULT 0;
UPDATE l1_validators SET end_accumulated_fee = balance WHERE active AND balance > 0;
-- A staking transaction's own outputs, stake included: its reward UTXOs are numbered after them. Counting its
-- UTXOs in the store missed them when the reward came in the same batch as the staking transaction.
ALTER TABLE stakers ADD COLUMN output_count int4;
-- Before Durango a staker waits in the pending set until the chain time reaches its start, and enters the current
-- set then, with its potential reward computed from the supply at that moment; stakers that enter together are
-- taken in the order of their pending priority (stakers.ts). NULL once it has entered (or when it never waited).
ALTER TABLE stakers ADD COLUMN pending_priority int2;
CREATE INDEX stakers_pending ON stakers (start_ts) WHERE pending_priority IS NOT NULL;
`,
  },
  {
    version: 8,
    name: "IDs compared as bytes",
    sql: `
-- The primary network's text columns (CB58 IDs, hex, names) compare byte by byte: a database whose collation is not
-- "C" (en_US.UTF-8, or C.UTF-8 under libc) compares text through strcoll and without abbreviated keys, and every
-- index insert of a random ID pays for it (15 % slower inserts of random CB58 keys, measured on PostgreSQL 18 with
-- C.UTF-8). Under a linguistic collation (en_US.UTF-8) IDs that differ in case sorted case-insensitively first: there
-- the ID tie-break of a list changes order with this version. On PGlite, whose collation is already C, nothing
-- changes. One ALTER a table, so its indexes are rebuilt once (the tables are locked meanwhile).
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT table_name, string_agg(format('ALTER COLUMN %I TYPE text COLLATE "C"', column_name), ', ') AS changes
    FROM information_schema.columns
    WHERE table_schema = current_schema() AND data_type = 'text' AND table_name IN (
      'blocks', 'vertices', 'txs', 'tx_addresses', 'asset_txs', 'utxos', 'utxo_spends', 'utxo_addresses', 'assets',
      'stakers', 'staker_addresses', 'subnets', 'blockchains', 'l1_validators', 'l1_validation_txs')
    GROUP BY table_name
  LOOP
    EXECUTE format('ALTER TABLE %I %s', r.table_name, r.changes);
  END LOOP;
END $$;
`,
  },
  {
    version: 9,
    name: "hash indexes for the UTXOs of a transaction",
    sql: `
-- The UTXOs a transaction emits and those it consumes are only ever looked up by equality (a transaction page): a
-- hash index keeps 4 bytes of hash an entry where a B-tree kept the whole 50-character CB58 ID, so it stays cached
-- as the store grows, and each insert touches one bucket page. Folding 1,000,000 X transactions into PostgreSQL
-- with these and migration 8: 234 s, against 296 s before both (same server settings; docs/performance.md has the current figures).
DROP INDEX utxos_by_tx;
CREATE INDEX utxos_by_tx ON utxos USING hash (tx_id);
DROP INDEX utxo_spends_by_consuming_tx;
CREATE INDEX utxo_spends_by_consuming_tx ON utxo_spends USING hash (consuming_tx);
`,
  },
  {
    version: 10,
    name: "an address's UTXOs in time order",
    sql: `
-- An address's UTXOs keyed by creation time: the UTXO list (newest or oldest first) walks an address's entries in
-- order and stops at the page, where it read every UTXO the address ever had to sort them (hundreds for a busy
-- address, at page 1 as at the last). The time is the UTXO's, copied: it never changes.
-- A new table rather than an UPDATE of every row, which would leave a dead copy of each behind (PGlite runs no
-- vacuum); its key is built once, over the rows in place. Every entry was written with its UTXO's creation: one
-- without is an orphan no list could show, and is not copied.
CREATE TABLE utxo_addresses_by_time (
  address bytea NOT NULL,
  created_ts int8 NOT NULL,
  utxo_id text COLLATE "C" NOT NULL
);
INSERT INTO utxo_addresses_by_time
  SELECT ua.address, u.created_ts, ua.utxo_id FROM utxo_addresses ua JOIN utxos u ON u.utxo_id = ua.utxo_id WHERE u.created_ts IS NOT NULL;
DROP TABLE utxo_addresses;
ALTER TABLE utxo_addresses_by_time RENAME TO utxo_addresses;
ALTER TABLE utxo_addresses ADD PRIMARY KEY (address, created_ts, utxo_id);
`,
  },
  {
    version: 11,
    name: "hash indexes for a UTXO by ID",
    sql: `
-- A UTXO and its spend are looked up by ID only by equality (a transaction's inputs, an address's UTXOs and their
-- spends), and their IDs are random: each insert into a B-tree on them lands on a random leaf, and the two B-trees
-- (about 64 bytes an entry) outgrew the cache first as the store grew. A hash index keeps 4 bytes of hash an entry.
-- Folding 1,000,000 X transactions into PGlite (default cache): 2,599 tx/s, against 2,287 with the B-trees, same
-- day. A hash index cannot be unique: a real chain never repeats a UTXO, and the view skips the IDs the store holds
-- when it writes a batch again after a repeated transaction (bulk.ts absentKey).
ALTER TABLE utxos DROP CONSTRAINT utxos_pkey;
CREATE INDEX utxos_by_id ON utxos USING hash (utxo_id);
ALTER TABLE utxo_spends DROP CONSTRAINT utxo_spends_pkey;
CREATE INDEX utxo_spends_by_id ON utxo_spends USING hash (utxo_id);
`,
  },
  {
    version: 12,
    name: "a transaction's UTXOs by its place in the chain",
    sql: `
-- A transaction page finds the UTXOs each transaction emits and consumes. By transaction ID that took two hash
-- indexes of random keys, a bucket page anywhere in each for every UTXO and spend folded: with the two UTXO-ID
-- indexes they were most of what outgrew PGlite's cache. The page knows where each transaction is (chain, seq,
-- block height), and so do the rows: a UTXO's creation is at its transaction's seq, a spend at its block's height.
-- Keyed by those, each insert lands next to the previous one of its chain, which stays cached (at the end of its
-- range; X blocks count heights from 0 again after the DAG's vertices, so there at a point moving through it).
-- Folding 1,000,000 X transactions into PGlite (default cache): 2,875-3,138 tx/s (median 3,067), against
-- 2,479-2,599 on schema 11, same day.
-- A reward UTXO is the exception: AvalancheGo names it after its staking transaction, and the page lists it there,
-- but it is created by the reward transaction; the few there are keep an index by transaction ID of their own.
-- The new indexes are built before the old ones go: CREATE INDEX only blocks writes, where DROP INDEX takes the
-- table's exclusive lock, which would stall the reads of serve processes for the whole build.
CREATE INDEX utxos_by_creation ON utxos (created_chain, created_seq);
CREATE INDEX utxos_rewards_by_tx ON utxos (tx_id) WHERE reward_type IS NOT NULL;
CREATE INDEX utxo_spends_by_block ON utxo_spends (consumed_chain, consuming_height);
DROP INDEX utxos_by_tx;
DROP INDEX utxo_spends_by_consuming_tx;
`,
  },
  {
    version: 13,
    name: "blocks by proposer, vertices newest first, EVM blocks across chains",
    sql: `
-- The blocks a node proposed (listPrimaryNetworkBlocksByNodeId): a block's proposer NodeID is in its proposervm
-- details; an entry a block (not a transaction), so the fold barely notices it.
CREATE INDEX blocks_by_proposer ON blocks (chain, (proposer->>'proposerNodeId'), height) WHERE proposer IS NOT NULL;
-- The X-chain's latest vertices (listLatestXChainVertices), in index order.
CREATE INDEX vertices_by_seq ON vertices (seq);
-- The latest blocks and transactions of all followed EVM chains together (listLatestBlocksAllChains,
-- listLatestTransactionsAllChains): blocks in time order across chains; an entry an EVM block.
CREATE INDEX evm_blocks_by_time ON evm_blocks (timestamp, chain_id, number);
`,
  },
  {
    version: 14,
    name: "the transaction that removed a permissioned subnet validator, apart from its reward",
    sql: `
-- A RemoveSubnetValidatorTx ends a permissioned validator with no reward: it is kept in a column of its own, so a
-- transaction answer's rewardTxHash names only a reward transaction. Rows folded before this version move over.
ALTER TABLE stakers ADD COLUMN remove_tx_id text;
UPDATE stakers SET remove_tx_id = reward_tx_id, reward_tx_id = NULL WHERE status = 'removed';
`,
  },
  {
    version: 15,
    name: "the AVAX supply's running sums",
    sql: `
-- What genesis, rewards and each chain created and consumed of AVAX, kept as the primary view folds
-- (views/primary/supplyTotals.ts): the supply reads these rows, not every UTXO. A store folded before this version
-- has them computed once when its view next loads (it needs the network's AVAX asset ID, which this script lacks).
CREATE TABLE supply_totals (
  key text PRIMARY KEY,
  amount numeric NOT NULL
);
-- Each followed EVM chain's fees, wei, kept with its blocks (added as they fold, taken back with a reorg's).
ALTER TABLE evm_chains ADD COLUMN fees_total numeric NOT NULL DEFAULT 0;
UPDATE evm_chains c SET fees_total = (SELECT coalesce(sum(b.fees_spent), 0) FROM evm_blocks b WHERE b.chain_id = c.chain_id);
-- The time-locked UTXOs (the supply's locked part): a few among many on a real network.
CREATE INDEX utxos_time_locked ON utxos (utxo_id) WHERE locktime > 0 OR stakeable_locktime > 0;
`,
  },
  {
    version: 16,
    name: "EVM lanes behind the head: token metadata and call traces",
    sql: `
-- Token metadata (eth_call) and internal transactions (debug_trace*) are folded by lanes of their own behind the
-- chain's head (src/dataApi/views/evm/lanes.ts), so a slow contract or trace never holds a block back. Each lane's
-- position is the last block it covered (-1: none), written in the transaction of what it wrote; reorgs counts the
-- rollbacks, so a lane whose blocks were rolled back while it worked finds its write refused. A chain folded before
-- this version read both inline with its blocks: both lanes are at its head.
ALTER TABLE evm_chains ADD COLUMN token_lane int8 NOT NULL DEFAULT -1;
ALTER TABLE evm_chains ADD COLUMN trace_lane int8 NOT NULL DEFAULT -1;
ALTER TABLE evm_chains ADD COLUMN reorgs int8 NOT NULL DEFAULT 0;
UPDATE evm_chains SET token_lane = COALESCE(head_number, -1), trace_lane = COALESCE(head_number, -1);
`,
  },
  {
    version: 17,
    name: "webhooks: their addresses, shared secrets, the outbox and its delivery log",
    sql: `
-- A webhook (the hosted API's WebhooksService), owned by the API key that made it: owner is the key's SHA-256 (hex),
-- so the store holds no key. metadata is as the API shows it, but for address_activity's addresses (rows of
-- webhook_addresses, matched by the fold). secret: the webhook's own (avaext's extension), else the owner's shared
-- one. deactivated_reason says why delivery stopped (a deactivation, or failures past the retry schedule).
CREATE TABLE webhooks (
  id text PRIMARY KEY,
  owner text NOT NULL,
  event_type text NOT NULL,
  url text NOT NULL,
  name text NOT NULL,
  description text NOT NULL,
  chain_id text NOT NULL,
  network text,
  status text NOT NULL,
  metadata jsonb NOT NULL,
  include_internal_txs bool NOT NULL DEFAULT false,
  include_logs bool NOT NULL DEFAULT false,
  secret text,
  created_at int8 NOT NULL,
  deactivated_reason text
);
CREATE INDEX webhooks_by_owner ON webhooks (owner, created_at DESC, id DESC);
CREATE TABLE webhook_addresses (
  webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  address bytea NOT NULL,
  PRIMARY KEY (webhook_id, address)
);
-- The fold's match: a batch's addresses against every active webhook's.
CREATE INDEX webhook_addresses_by_address ON webhook_addresses (address);
CREATE TABLE webhook_secrets (
  owner text PRIMARY KEY,
  secret text NOT NULL
);
-- The outbox: one message a webhook and transaction, written by the fold in the transaction of its block (so a
-- crash neither loses nor invents one). message_id is derived from the webhook, chain, block hash and transaction,
-- so a block folded again gives the same IDs. logs: the transaction's receipt logs (no table holds them). An
-- icm_activity message names its interchain message and sub-event instead (one a messenger log). body is
-- frozen at the first attempt: every retry sends the same bytes.
-- state: pending, paused (pending while its webhook is inactive), delivered, failed (past the schedule), skipped (its
-- event signatures matched no log), dropped (its block was rolled back after an attempt; a
-- reversal message, reverses = its ID, follows). attempt_base: the attempts made before the last replay (the retry
-- schedule starts again from it). created_at and the times are Unix ms.
CREATE TABLE webhook_outbox (
  message_id text PRIMARY KEY,
  webhook_id text NOT NULL,
  chain_id text NOT NULL,
  block_number int8 NOT NULL,
  tx_index int4 NOT NULL,
  tx_hash bytea,
  logs jsonb,
  icm_message_id text,
  icm_sub_event text,
  reverses text,
  created_at int8 NOT NULL,
  state text NOT NULL DEFAULT 'pending',
  attempts int4 NOT NULL DEFAULT 0,
  attempt_base int4 NOT NULL DEFAULT 0,
  next_attempt_at int8 NOT NULL DEFAULT 0,
  body text,
  delivered_at int8
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at, created_at) WHERE state = 'pending';
CREATE INDEX webhook_outbox_by_webhook ON webhook_outbox (webhook_id, created_at DESC, message_id DESC);
CREATE INDEX webhook_outbox_by_block ON webhook_outbox (chain_id, block_number);
-- The delivery log: each attempt's answer (status 0: none, error says why) and latency.
CREATE TABLE webhook_attempts (
  message_id text NOT NULL,
  attempt int4 NOT NULL,
  at int8 NOT NULL,
  status_code int4 NOT NULL,
  latency_ms int4 NOT NULL,
  error text,
  PRIMARY KEY (message_id, attempt)
);
`,
  },
  {
    version: 18,
    name: "the metrics service's rollups of the EVM chains",
    sql: `
-- The chain metrics of /v2/chains/{chainId}/metrics (src/metricsService/v2), kept as EVM blocks fold and in the same
-- transaction (src/dataApi/views/evm/metricsFold.ts); a reorg takes them back. Hours are of block time (UTC).
-- Sums and maxima per hour: a day, week or month is the sum (or maximum) of its hours. max_tps / max_gps: the most
-- transactions / gas in one second of block time within the hour; gas_price_sum: of the transactions' effective
-- gas prices; contracts: contracts the hour's transactions deployed.
CREATE TABLE metrics_hours (
  chain_id text NOT NULL,
  hour int8 NOT NULL,
  txs int8 NOT NULL,
  gas_used numeric NOT NULL,
  fees numeric NOT NULL,
  gas_price_sum numeric NOT NULL,
  max_gas_price numeric NOT NULL,
  max_tps int8 NOT NULL,
  max_gps numeric NOT NULL,
  contracts int8 NOT NULL,
  PRIMARY KEY (chain_id, hour)
);
-- Distinct counts: one row an address (the zero address aside), with the last bucket of each grain it was active in,
-- as any party (a_*), as a sender (s_*) and as a deployer (d_*); null: never. An address seen in a block is new in
-- that block's bucket when the bucket is after its last one there, and metrics_distinct counts it; the first time
-- ever (a_hour was null) counts in grain 4 by hour. A reorg recounts the addresses of the dropped blocks from the
-- kept rows (metricsFold.ts). No index but the key: the fold rewrites these rows (HOT updates), reads are by key.
CREATE TABLE metrics_addr (
  chain_id text NOT NULL,
  address bytea NOT NULL,
  a_hour int8, a_day int8, a_week int8, a_month int8,
  s_hour int8, s_day int8, s_week int8, s_month int8,
  d_hour int8, d_day int8, d_week int8, d_month int8,
  PRIMARY KEY (chain_id, address)
) WITH (fillfactor = 80);
-- The distinct counts: addresses of a kind (0 active, 1 sender, 2 deployer) new in a bucket of a grain (0 hour ...
-- 3 month), and (grain 4) new ever, by hour.
CREATE TABLE metrics_distinct (
  chain_id text NOT NULL,
  kind int2 NOT NULL,
  grain int2 NOT NULL,
  bucket int8 NOT NULL,
  n int8 NOT NULL,
  PRIMARY KEY (chain_id, kind, grain, bucket)
);
-- A store folded before this version gets its rollups from the rows it holds (store/metricsRollups.ts).
${METRICS_BACKFILL_SQL}
`,
  },
  {
    version: 19,
    name: "webhooks: the first block each one gets",
    sql: `
-- A webhook gets the blocks from from_block on (its chain's head + 1 when it was made): a refold from genesis after
-- \`data-api rebuild\`, which keeps the webhooks, does not send them the history before them (views/evm/
-- webhookOutbox.ts). A block number, not a time: a dev chain's block times need not be the wall clock's.
ALTER TABLE webhooks ADD COLUMN from_block int8 NOT NULL DEFAULT 0;
UPDATE webhooks SET from_block = COALESCE((SELECT c.head_number + 1 FROM evm_chains c WHERE c.chain_id = webhooks.chain_id), 0);
`,
  },
  {
    version: 20,
    name: "webhooks: each webhook's due messages, for delivery's per-webhook cap",
    sql: `
-- Delivery takes at most a few due messages of each active webhook (queries/webhookOutbox.ts dueMessages), so one
-- whose receiver never answers holds a few slots, not all: it reads each webhook's oldest due ones here.
CREATE INDEX webhook_outbox_due_by_webhook ON webhook_outbox (webhook_id, next_attempt_at, created_at) WHERE state = 'pending';
`,
  },
  {
    version: 21,
    name: "webhooks: finished messages by age, for their retention; paused messages by webhook",
    sql: `
-- Delivery deletes the messages that are done (delivered, failed, dropped, skipped) past --webhooks-retention,
-- oldest first (queries/webhookOutbox.ts pruneFinished); a webhook made active again finds its paused messages
-- here instead of walking every message it ever had (queries/webhooks.ts pauseMessages).
CREATE INDEX webhook_outbox_finished ON webhook_outbox (created_at) WHERE state IN ('delivered', 'failed', 'dropped', 'skipped');
CREATE INDEX webhook_outbox_paused ON webhook_outbox (webhook_id) WHERE state = 'paused';
`,
  },
  {
    version: 22,
    name: "webhooks: primary-network and validator events",
    sql: `
-- primary_network_address_activity and validator_activity messages, written by the primary-network view in the
-- transaction of its batch (views/primary/webhookEvents.ts): primary_tx_id names the P- or X-chain transaction the
-- message is about (null for an event of a block, such as an L1 validator's balance falling under a threshold),
-- event the facts the fold knew (the sub-event, the addresses matched, the validator, the rewards); the body is
-- built from them and the store at the first attempt (webhooks/primaryPayload.ts). block_number is the block's
-- height; tx_index the transaction's place in it.
ALTER TABLE webhook_outbox ADD COLUMN primary_tx_id text;
ALTER TABLE webhook_outbox ADD COLUMN event jsonb;
-- A primary webhook's first event (from_block): the P-chain's next block height, or the X-chain's next transaction
-- in the view's order (its vertices' heights are not monotonic). Webhooks made before this version took 0.
UPDATE webhooks SET from_block = CASE
    WHEN chain_id = (SELECT value::jsonb ->> 'X' FROM data_api_meta WHERE key = 'network') THEN COALESCE((SELECT value::int8 + 1 FROM data_api_meta WHERE key = 'view.seq.X'), 0)
    ELSE COALESCE((SELECT max(height) + 1 FROM blocks WHERE chain = 'P'), 0) END
  WHERE event_type IN ('validator_activity', 'primary_network_address_activity');
`,
  },
  {
    version: 23,
    name: "webhooks: primary webhooks' keys as rows; running balances for balance_threshold",
    sql: `
-- A primary_network_address_activity or validator_activity webhook's keys (up to --webhooks-max-addresses, 50,000),
-- and a validator webhook's nodeIds and subnetIds filters, were arrays in webhooks.metadata: every fold that matched
-- a row and every due message read the whole jsonb (some 2.5 MB). They are rows here, matched by index
-- (views/primary/webhookEvents.ts); kind is key, nodeId or subnetId; key is as given. metadata keeps the small
-- fields (keyType, sub-events, filters' thresholds; an empty nodeIds or subnetIds where one was given), and the
-- answers inline the first keys (routes/webhooks.ts). A P/X address webhook is still matched by webhook_addresses.
CREATE TABLE webhook_keys (
  webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  kind text NOT NULL,
  key text NOT NULL,
  PRIMARY KEY (webhook_id, kind, key)
);
CREATE INDEX webhook_keys_by_key ON webhook_keys (key);
${MOVE_WEBHOOK_KEYS.join(";\n")};
-- The AVAX of each P/X address a balance_threshold webhook watches (views/primary/webhookThresholds.ts), kept by the
-- fold in its batch's transaction: the chain's own unspent UTXOs of the address (not its atomic memory), summed by
-- what decides their kind at a time (models/primary/balances.ts; 0 for none), so a transaction's crossing is
-- computed from its own UTXOs and these few rows, never from the address's history. An address is in
-- webhook_balance_addresses once its sums were computed from the store (at the first batch that touches it after a
-- webhook watches it); an address with no UTXO has no webhook_balances row. Derived: a rebuild starts them afresh.
CREATE TABLE webhook_balance_addresses (
  chain text NOT NULL,
  address bytea NOT NULL,
  PRIMARY KEY (chain, address)
);
CREATE TABLE webhook_balances (
  chain text NOT NULL,
  address bytea NOT NULL,
  staked bool NOT NULL,
  staking_end int8 NOT NULL,
  start_ts int8 NOT NULL,
  locktime int8 NOT NULL,
  stakeable_locktime int8 NOT NULL,
  amount numeric NOT NULL,
  PRIMARY KEY (chain, address, staked, staking_end, start_ts, locktime, stakeable_locktime)
);
`,
  },
  {
    version: 24,
    name: "unspent UTXOs by owner and the chain they count for, kept by triggers, for the balances",
    sql: `
-- The balances (queries/primary/utxos.ts balanceGroups) read an address's unspent UTXOs here: through
-- utxo_addresses they walked every UTXO the address ever owned, one random read each for the UTXO and its spend
-- (15,392 reads for 166 unspent UTXOs of 64 busy addresses). chain: where the UTXO counts, its exported_to (atomic
-- memory) or else its created_chain. Triggers keep it whatever writes the UTXOs (the view's batches, rewards,
-- genesis) and in either order of a creation and its spend: a creation whose spend is folded already is never
-- added, and a spend removes its UTXO. Statement triggers with transition tables: one set-based statement a batch.
CREATE TABLE unspent_owned (
  address bytea NOT NULL,
  chain text NOT NULL,
  utxo_id text NOT NULL,
  PRIMARY KEY (address, chain, utxo_id)
);
CREATE INDEX unspent_owned_by_utxo ON unspent_owned (utxo_id);

CREATE OR REPLACE FUNCTION unspent_owned_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO unspent_owned (address, chain, utxo_id)
  SELECT DISTINCT decode(a.hex, 'hex'), coalesce(n.exported_to, n.created_chain), n.utxo_id
  FROM created n CROSS JOIN LATERAL jsonb_array_elements_text(n.addresses) AS a(hex)
  WHERE n.created_chain IS NOT NULL AND jsonb_typeof(n.addresses) = 'array'
    AND NOT EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = n.utxo_id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION unspent_owned_spent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM unspent_owned o USING spent s WHERE o.utxo_id = s.utxo_id;
  RETURN NULL;
END $$;
CREATE TRIGGER unspent_owned_created AFTER INSERT ON utxos REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION unspent_owned_created();
CREATE TRIGGER unspent_owned_spent AFTER INSERT ON utxo_spends REFERENCING NEW TABLE AS spent FOR EACH STATEMENT EXECUTE FUNCTION unspent_owned_spent();

INSERT INTO unspent_owned (address, chain, utxo_id)
SELECT DISTINCT decode(a.hex, 'hex'), coalesce(u.exported_to, u.created_chain), u.utxo_id
FROM utxos u CROSS JOIN LATERAL jsonb_array_elements_text(u.addresses) AS a(hex)
WHERE u.created_chain IS NOT NULL AND jsonb_typeof(u.addresses) = 'array'
  AND NOT EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.utxo_id)
ON CONFLICT DO NOTHING;
`,
  },
  {
    version: 25,
    name: "unspent_owned narrower, its new rows written by the view",
    sql: `
-- Schema 24's table and triggers cost the fold of 1,000,000 X transactions into PGlite 28 % of its rate (3,080 tx/s
-- against 4,390 without them, one run). Each statement's transition table held a copy of every UTXO row it wrote,
-- each owner was parsed out of the row's JSON again, and every row went into two indexes with the chain's 50-byte
-- ID in one. Now a row is an owner and the UTXO, in one index: the balances take the chain from the UTXO they
-- read anyway. The primary view writes a new UTXO's rows in its batch's own statement (views/primary/view.ts
-- unspentOwnedSql, stakingFold.ts for rewards): a UTXO made and spent in one batch never enters, and only an
-- exported UTXO (an import folded ahead of its export may have spent it) is looked up among the spends. A spend
-- removes its UTXO's rows by the trigger on utxo_spends: it runs after the batch's statement, with a snapshot that
-- sees a batch written just ahead (pipelined on a server), which the statement's own does not.
DROP TRIGGER IF EXISTS unspent_owned_created ON utxos;
DROP TRIGGER IF EXISTS unspent_owned_spent ON utxo_spends;
DROP FUNCTION IF EXISTS unspent_owned_created();
DROP FUNCTION IF EXISTS unspent_owned_spent();
DROP TABLE unspent_owned;
-- utxo_id compares as bytes, as utxos' own (migration 8): in another collation than utxos.utxo_id the spend trigger's
-- join could not use the key's second column, and would read every unspent row of the spent UTXO's owners.
CREATE TABLE unspent_owned (
  address bytea NOT NULL,
  utxo_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (address, utxo_id)
);
CREATE OR REPLACE FUNCTION unspent_owned_spent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM unspent_owned o
  USING spent s JOIN utxos u ON u.utxo_id = s.utxo_id CROSS JOIN LATERAL jsonb_array_elements_text(u.addresses) AS a(hex)
  WHERE jsonb_typeof(u.addresses) = 'array' AND o.address = decode(a.hex, 'hex') AND o.utxo_id = s.utxo_id;
  RETURN NULL;
END $$;
CREATE TRIGGER unspent_owned_spent AFTER INSERT ON utxo_spends REFERENCING NEW TABLE AS spent FOR EACH STATEMENT EXECUTE FUNCTION unspent_owned_spent();
INSERT INTO unspent_owned (address, utxo_id)
SELECT DISTINCT decode(a.hex, 'hex'), u.utxo_id
FROM utxos u CROSS JOIN LATERAL jsonb_array_elements_text(u.addresses) AS a(hex)
WHERE u.created_chain IS NOT NULL AND jsonb_typeof(u.addresses) = 'array'
  AND NOT EXISTS (SELECT 1 FROM utxo_spends sp WHERE sp.utxo_id = u.utxo_id)
ON CONFLICT DO NOTHING;
`,
  },
  {
    version: 26,
    name: "a count of primary webhook changes on each view position",
    sql: `
-- A primary webhook's first event is the position after what is folded when it is made (queries/webhooks.ts
-- from_block), but a batch being built then read the webhooks before it existed, and would commit without its
-- events. Making (or reactivating) one adds 1 here first, which waits for a batch statement holding the row; a batch
-- is written only if the count is still the one it read with the webhooks (views/primary/view.ts writeBuilt), else
-- it is built again.
ALTER TABLE view_positions ADD COLUMN webhooks int8 NOT NULL DEFAULT 0;
`,
  },
  {
    version: 27,
    name: "unspent_owned rows removed by the view's statements",
    sql: `
-- The spend trigger read each spent UTXO's row and parsed its owners again, and was planned as a hash of the whole
-- table per batch: a fifth of the fold's rate (1,000,000 X transactions into PGlite, 2,833 tx/s against 3,533
-- without it, one run each). The view knows every spent UTXO's owners, and removes the rows by key in the batch's
-- statement, or, for a UTXO of a batch that had not committed when the statement was made, in a later one
-- (views/primary/view.ts spentStatements). A row may outlive its UTXO's spend (a kill -9 in between, a spend that
-- something else writes): every read of the table checks utxo_spends.
DROP TRIGGER IF EXISTS unspent_owned_spent ON utxo_spends;
DROP FUNCTION IF EXISTS unspent_owned_spent();
`,
  },
  {
    version: 28,
    name: "webhooks: the outbox's due index dropped",
    sql: `
-- Delivery reads each active webhook's oldest due messages (queries/webhookOutbox.ts dueMessages), through
-- webhook_outbox_due_by_webhook (schema 20); nothing reads all due messages by time. The index was one of the five
-- each message the fold writes updates, and each of its attempts.
DROP INDEX IF EXISTS webhook_outbox_due;
`,
  },
  {
    version: 29,
    name: "webhooks: the outbox's logs kept as json",
    sql: `
-- A message's logs are written by the fold and read back whole by delivery (webhooks/payload.ts), never queried
-- inside: json keeps the text as the fold sent it, where jsonb parsed it into its binary form at every insert
-- (docs/performance.md, Webhooks).
ALTER TABLE webhook_outbox ALTER COLUMN logs TYPE json USING logs::json;
`,
  },
  {
    version: 30,
    name: "webhooks: a folded block's address_activity messages in one row",
    sql: `
-- The EVM fold writes a block's address_activity messages as one row (views/evm/webhookOutbox.ts
-- enqueueAddressActivity): the block's hash (hex), the chain's rollback count at the fold (the messages' IDs mix it
-- in), how many messages it holds, the fold's time, and its matched transactions as JSON, [{i: tx index, h: tx hash
-- hex, l: [Log] | null, w: [webhook IDs]}]. Delivery makes them webhook_outbox rows and deletes the block's row in
-- one statement (expandOutboxBlocks). The transactions are read once, whole: kept as sent, not compressed.
CREATE TABLE webhook_outbox_blocks (
  chain_id text NOT NULL,
  block_number int8 NOT NULL,
  block_hash text NOT NULL,
  reorgs int4 NOT NULL,
  messages int4 NOT NULL,
  created_at int8 NOT NULL,
  txs json NOT NULL,
  PRIMARY KEY (chain_id, block_number)
);
ALTER TABLE webhook_outbox_blocks ALTER COLUMN txs SET STORAGE EXTERNAL;
-- Delivery takes the oldest first, across chains.
CREATE INDEX webhook_outbox_blocks_oldest ON webhook_outbox_blocks (created_at, chain_id, block_number);
`,
  },
  {
    version: 31,
    name: "webhooks: a folded block's row holds its transactions' JSON as bytes",
    sql: `
-- The fold sends its blocks' documents as one binary parameter, each row its slice (enqueueAddressActivity): as
-- json, the text was copied into the statement and parsed at every insert, about 5 % of the fold's rate where nearly
-- every transaction is an event (docs/performance.md, Webhooks). Delivery parses them once, when it makes the
-- messages (expandOutboxBlocks). Still read once, whole: not compressed.
ALTER TABLE webhook_outbox_blocks ALTER COLUMN txs TYPE bytea USING convert_to(txs::text, 'UTF8');
ALTER TABLE webhook_outbox_blocks ALTER COLUMN txs SET STORAGE EXTERNAL;
`,
  },
];
