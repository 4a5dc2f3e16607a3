/**
 * The body of a primary_network_address_activity or validator_activity message (the fold wrote its facts:
 * views/primary/webhookEvents.ts), made at its first attempt and frozen: `{webhookId, eventType, messageId, event}`
 * as address_activity's, whose event is the sub-event, where it happened, the fold's facts (addresses as bech32 with
 * their chain's prefix) and the transaction as `GET /v1/networks/{network}/blockchains/{p-chain|x-chain}/
 * transactions/{txHash}` serves it (the hosted SDKs leave these payloads open: docs/api/webhooks.md).
 *
 * A balance_threshold message is written by the fold only when the transaction moved the address's balance of the
 * filter's kind across the threshold, with the balances before and after it (views/primary/webhookThresholds.ts):
 * its body is made from those facts, with no read of the address's history. One written by schema 22's fold, a
 * candidate without them, is skipped.
 */
import {canonicalJson} from "../../util/canonicalJson.js";
import {formatAddress} from "../server/names.js";
import type {SqlTx} from "../store/sql.js";
import type {NetworkCtx} from "../queries/primary/common.js";
import {getPChainTransaction, getXChainTransaction} from "../queries/primary/transactions.js";
import type {DueMessage} from "../queries/webhookOutbox.js";

type Json = Record<string, unknown>;

/** The body of a primary message (canonical JSON), or null when it is not to be delivered (skipped). */
export async function primaryBody(sql: SqlTx, m: DueMessage, net: NetworkCtx): Promise<string | null> {
  const facts = {...(m.event as Json)};
  const chain = m.chain_id === net.chainIds.P ? "P" : m.chain_id === net.chainIds.X ? "X" : null;
  if (chain === null) return null;
  const bech = (hex: string): string => `${chain}-${formatAddress(Buffer.from(hex, "hex"), net.hrp)}`;
  let transaction: Json | null = null;
  if (m.primary_tx_id !== null) {
    transaction = (
      chain === "P"
        ? await getPChainTransaction(sql, net, m.primary_tx_id)
        : await getXChainTransaction(sql, net, m.primary_tx_id)
    ) as Json | null;
    // Not in the store (a store rebuilt short of it): nothing to say about it.
    if (transaction === null) return null;
  }
  const hexes = Array.isArray(facts.addresses) ? (facts.addresses as string[]) : [];
  if (Array.isArray(facts.addresses)) facts.addresses = hexes.map(bech);
  if (Array.isArray(facts.rewards)) {
    facts.rewards = (facts.rewards as Array<Json & {addresses: string[]}>).map((r) => ({
      ...r,
      addresses: r.addresses.map(bech),
    }));
  }
  if (facts.subEvent === "balance_threshold") {
    if (typeof facts.address !== "string" || typeof facts.previousBalance !== "string") return null;
    facts.address = bech(facts.address);
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
