/**
 * The body of a primary_network_address_activity or validator_activity message (the fold wrote its facts:
 * views/primary/webhookEvents.ts), made at its first attempt and frozen: `{webhookId, eventType, messageId, event}`
 * as address_activity's, whose event is the sub-event, where it happened, the fold's facts (addresses as bech32 with
 * their chain's prefix) and the transaction as `GET /v1/networks/{network}/blockchains/{p-chain|x-chain}/
 * transactions/{txHash}` serves it (the hosted SDKs leave these payloads open: docs/api/webhooks.md).
 *
 * A balance_threshold message is a candidate the fold wrote for each watched address a transaction touched: it is
 * delivered only when the address's balance of the filter's kind crossed the threshold with that transaction (from
 * under it to at or over it, or back), else skipped. P and X history does not change (accepted blocks are final),
 * so the answer is the same whenever it is made.
 */
import {canonicalJson} from "../../util/canonicalJson.js";
import {formatAddress} from "../server/names.js";
import type {SqlTx} from "../store/client.js";
import type {NetworkCtx} from "../queries/primary/common.js";
import {balanceKindsAt} from "../queries/primary/utxos.js";
import {getPChainTransaction, getXChainTransaction} from "../queries/primary/transactions.js";
import type {DueMessage} from "../queries/webhookOutbox.js";

type Json = Record<string, unknown>;

/** The P-chain kinds `unlocked` and `locked` sum (models/primary/balances.ts pChainBalance). */
const P_SUMS: Record<string, readonly string[]> = {
  unlocked: ["unlockedUnstaked", "unlockedStaked"],
  locked: ["lockedPlatform", "lockedStakeable", "lockedStaked", "pendingStaked"],
};

/** The body of a primary message (canonical JSON), or null when it is not to be delivered (skipped). */
export async function primaryBody(sql: SqlTx, m: DueMessage, net: NetworkCtx): Promise<string | null> {
  const facts = {...(m.event as Json)};
  const chain = m.chain_id === net.chainIds.P ? "P" : m.chain_id === net.chainIds.X ? "X" : null;
  if (chain === null) return null;
  const bech = (hex: string): string => `${chain}-${formatAddress(Buffer.from(hex, "hex"), net.hrp)}`;
  let transaction: Json | null = null;
  if (m.primary_tx_id !== null) {
    transaction = (chain === "P" ? await getPChainTransaction(sql, net, m.primary_tx_id) : await getXChainTransaction(sql, net, m.primary_tx_id)) as Json | null;
    // Not in the store (a store rebuilt short of it): nothing to say about it.
    if (transaction === null) return null;
  }
  const hexes = Array.isArray(facts.addresses) ? (facts.addresses as string[]) : [];
  if (Array.isArray(facts.addresses)) facts.addresses = hexes.map(bech);
  if (Array.isArray(facts.rewards)) {
    facts.rewards = (facts.rewards as Array<Json & {addresses: string[]}>).map((r) => ({...r, addresses: r.addresses.map(bech)}));
  }
  if (facts.subEvent === "balance_threshold") {
    if (hexes.length !== 1) return null;
    const crossing = await thresholdCrossing(sql, net, m, chain, Buffer.from(hexes[0]!, "hex"));
    if (crossing === null) return null;
    Object.assign(facts, crossing);
  }
  const event: Json = {
    ...facts,
    network: net.networkName,
    chainId: m.chain_id,
    blockNumber: m.block_number.toString(),
    ...(m.primary_tx_id !== null ? {txHash: m.primary_tx_id, transactionIndex: m.tx_index, transaction} : {}),
  };
  return canonicalJson({webhookId: m.webhook_id, eventType: m.event_type, messageId: m.message_id, event});
}

/**
 * Whether the message's transaction moved its address's balance of the filter's kind across the threshold: the
 * balances right before and right after it, at its time; null when it did not.
 */
async function thresholdCrossing(sql: SqlTx, net: NetworkCtx, m: DueMessage, chain: "P" | "X", a: Uint8Array): Promise<Json | null> {
  const filter = m.metadata.balanceThresholdFilter as {balanceType: string; balanceThreshold: string} | undefined;
  if (!filter) return null;
  const [t] = await sql.query<{seq: bigint | string; ts: bigint | string}>("SELECT seq, ts FROM txs WHERE chain = $1 AND tx_id = $2", [chain, m.primary_tx_id]);
  if (!t) return null;
  const seq = BigInt(t.seq);
  const now = Number(t.ts);
  const kind = (k: Record<string, bigint>): bigint => {
    // On P, `unlocked` and `locked` sum its kinds (X has them as its own).
    const parts = chain === "P" ? P_SUMS[filter.balanceType] : undefined;
    return parts ? parts.reduce((sum, p) => sum + (k[p] ?? 0n), 0n) : (k[filter.balanceType] ?? 0n);
  };
  const before = kind(await balanceKindsAt(sql, net, {chain, address: a, seq: seq - 1n, now}));
  const after = kind(await balanceKindsAt(sql, net, {chain, address: a, seq, now}));
  const threshold = BigInt(filter.balanceThreshold);
  if (before < threshold === after < threshold) return null;
  return {
    address: `${chain}-${formatAddress(a, net.hrp)}`,
    balanceType: filter.balanceType,
    balanceThreshold: filter.balanceThreshold,
    previousBalance: before.toString(),
    balance: after.toString(),
    direction: after >= threshold ? "above" : "below",
  };
}
