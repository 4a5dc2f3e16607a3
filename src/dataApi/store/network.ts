/**
 * The network a store holds. A store's rows name chains by the network's chain IDs and addresses by bytes that
 * answers render with the network's HRP, so a process started with another `--network-id` would answer from it
 * wrongly and quietly (a transaction page finds no UTXOs, addresses carry another prefix). The writer records the
 * network in `data_api_meta` ('network'); every process checks it at start and refuses a store of another network.
 *
 * A store written before the record existed is checked by its content: the greatest chain ID its UTXOs were
 * created on (one read of `utxos_by_creation`) is the X- or C-chain of the network that folded it. P's ID is the
 * same on every network and sorts first, so the greatest is never P's unless the store holds P UTXOs only.
 */
import {NETWORKS, type NetworkInfo} from "../../chains/index.js";
import type {SqlClient} from "./sql.js";

/** The record: what decides how the store's rows read. */
interface StoredNetwork {
  id: number;
  name: string;
  X: string;
  C: string;
}

/** Thrown when a store holds another network's data; the message names both and the flag. */
export class StoreNetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreNetworkError";
  }
}

/**
 * Refuses (StoreNetworkError) a store of a network other than `network`. `record`: the writer writes the record
 * when the store has none (a serve process writes nothing: it may run on a read-only replica). A writer checks
 * before it migrates or drops anything, and records after.
 */
export async function checkStoreNetwork(sql: SqlClient, network: NetworkInfo, opts: {record: boolean}): Promise<void> {
  const mine: StoredNetwork = {id: network.id, name: network.name, X: network.chainIds.X, C: network.chainIds.C};
  // A store not made yet (checked before its first migration) holds no network.
  const [made] = await sql.query<{made: boolean}>("SELECT to_regclass('data_api_meta') IS NOT NULL AS made");
  if (!made?.made) return;
  let stored = await readRecord(sql);
  if (stored === null) {
    await checkContent(sql, network);
    if (!opts.record) return;
    await sql.query("INSERT INTO data_api_meta (key, value) VALUES ('network', $1) ON CONFLICT DO NOTHING", [
      JSON.stringify(mine),
    ]);
    stored = (await readRecord(sql))!;
  }
  if (stored.id !== mine.id || stored.X !== mine.X || stored.C !== mine.C) {
    throw new StoreNetworkError(
      `the data API store holds network ${describe(stored)}, and this process runs ${describe(mine)}: ` +
        `start it with --network-id=${flagValue(stored)}, or give it another store (--data-api-db, --data-dir)`,
    );
  }
}

async function readRecord(sql: SqlClient): Promise<StoredNetwork | null> {
  const [row] = await sql.query<{value: string}>("SELECT value FROM data_api_meta WHERE key = 'network'");
  if (!row) return null;
  let v: Partial<StoredNetwork> | null = null;
  try {
    v = JSON.parse(row.value) as Partial<StoredNetwork> | null;
  } catch {
    // Reported below with the value.
  }
  if (typeof v?.id !== "number" || typeof v.name !== "string" || typeof v.X !== "string" || typeof v.C !== "string") {
    throw new StoreNetworkError(
      `the data API store's network record is not one this build reads: ${row.value.slice(0, 200)}`,
    );
  }
  return v as StoredNetwork;
}

async function checkContent(sql: SqlClient, network: NetworkInfo): Promise<void> {
  const [row] = await sql.query<{chain: string | null}>("SELECT max(created_chain) AS chain FROM utxos");
  const chain = row?.chain ?? null;
  if (chain === null || Object.values(network.chainIds).includes(chain)) return;
  // The named networks' chains are known: name the one the store was folded for.
  const owner = Object.values(NETWORKS).find((n) => Object.values(n.chainIds).includes(chain));
  const flag = owner ? `--network-id=${owner.name}` : "the --network-id the store was folded for";
  throw new StoreNetworkError(
    `the data API store holds UTXOs of chain ${chain}${owner ? ` of ${describe(owner)}` : ""}, which is not a primary-network chain of ${describe(network)}: ` +
      `start this process with ${flag}, or give it another store (--data-api-db, --data-dir)`,
  );
}

function describe(n: {id: number; name: string}): string {
  return n.name === `network-${n.id}` ? `ID ${n.id}` : `${n.name} (ID ${n.id})`;
}

/** The `--network-id` value that selects `n`: its name for the named networks, else its number. */
function flagValue(n: StoredNetwork): string {
  return Object.hasOwn(NETWORKS, n.name) ? n.name : String(n.id);
}
