/**
 * A migrated store of a backend beside a real LevelDB index holding X-chain block containers: what the primary
 * view's tests fold.
 */
import {rmSync} from "node:fs";
import type {Database} from "../../../../../src/db/controller.js";
import {openIndexDatabase} from "../../../../../src/containerIndex/database.js";
import {findEndpoint} from "../../../../../src/containerIndex/endpoints.js";
import {IndexStore} from "../../../../../src/containerIndex/store.js";
import {migrate} from "../../../../../src/dataApi/store/migrations.js";
import {MIGRATIONS} from "../../../../../src/dataApi/store/schema.js";
import type {SqlClient} from "../../../../../src/dataApi/store/sql.js";
import {insertWebhook} from "../../../../../src/dataApi/queries/webhooks.js";
import {formatAddress} from "../../../../../src/dataApi/server/names.js";
import {NETWORKS} from "../../../../../src/chains/index.js";
import {quietLogger, type Backend} from "../../../../helpers/sql.js";
import {tempDir} from "../../../../helpers/node.js";

const X_BLOCK = findEndpoint("X", "block")!;

export interface XIndex {
  db: Database;
  store: IndexStore;
  dir: string;
}

export type Container = {id: Uint8Array; bytes: Uint8Array; timestampNs: bigint};

/** A new index in a temporary directory, holding `containers` as X-chain blocks in their order. */
export async function indexWith(containers: readonly Container[]): Promise<XIndex> {
  const dir = tempDir();
  const db = await openIndexDatabase(dir);
  const store = await IndexStore.open(db);
  await store.accept(
    containers.map((c) => ({endpoint: X_BLOCK, id: c.id, bytes: c.bytes, timestampNs: c.timestampNs})),
    null,
  );
  return {db, store, dir};
}

/** A migrated store of `backend` and an index of `containers`; `close` closes both and removes the index. */
export async function storeAndIndex(
  backend: Backend,
  containers: readonly Container[],
): Promise<{sql: SqlClient; idx: XIndex; close: () => Promise<void>}> {
  const sql = await backend.open();
  await migrate(sql, MIGRATIONS, {logger: quietLogger()});
  const idx = await indexWith(containers);
  const close = async (): Promise<void> => {
    await sql.close();
    await idx.db.close();
    rmSync(idx.dir, {recursive: true, force: true});
  };
  return {sql, idx, close};
}

/** Makes a primary_network_address_activity webhook (owner "o") of one local X-chain address, with those sub-events. */
export function xAddressHook(
  sql: SqlClient,
  id: string,
  address: Uint8Array,
  subs: string[],
  filter?: {balanceType: string; balanceThreshold: string},
): Promise<void> {
  return sql.transaction((tx) =>
    insertWebhook(tx, {
      id,
      owner: "o",
      eventType: "primary_network_address_activity",
      url: "http://x/",
      name: "",
      description: "",
      chainId: NETWORKS.local.chainIds.X,
      network: "local",
      metadata: {
        keyType: "addresses",
        subEvents: {addressActivitySubEvents: subs},
        ...(filter ? {balanceThresholdFilter: filter} : {}),
      },
      keys: [["key", `X-${formatAddress(address, "local")}`]],
      includeInternalTxs: false,
      includeLogs: false,
      secret: null,
      createdAt: 0,
      addresses: [address],
      primaryChain: "X",
    }),
  );
}
