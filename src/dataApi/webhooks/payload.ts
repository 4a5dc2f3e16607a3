/**
 * A delivery's body: the hosted API's WebhookAddressActivityResponse `{webhookId, eventType, messageId, event}`,
 * whose event is a TransactionEvent (node_modules/@avalanche-sdk/chainkit's models, which `validateWebhook` parses
 * with): the transaction, its ERC-20/721/1155 transfers, its internal transactions (includeInternalTxs) and its
 * logs (includeLogs), read from the store. A reversal (a rolled-back block, docs/api/webhooks.md) repeats the
 * message it reverses with every log `removed: true` and names it in `reverses`. An icm_activity message (avaext's)
 * carries the interchain message as the ICM endpoints serve it.
 */
import {checksumAddress} from "../../evm/hex.js";
import {canonicalJson} from "../../util/canonicalJson.js";
import type {SqlTx} from "../store/sql.js";
import * as q from "../queries/webhookOutbox.js";
import type {NetworkCtx} from "../queries/primary/common.js";
import {primaryBody} from "./primaryPayload.js";

const hex = (b: Uint8Array): string => "0x" + Buffer.from(b).toString("hex");
const addr = (b: Uint8Array | null): string => (b ? checksumAddress(hex(b)) : "");
const ERC_NAMES: Record<number, string> = {20: "ERC20", 721: "ERC721", 1155: "ERC1155"};

/** Decimal `value` with `decimals` places, as the SDK's valueWithDecimals. */
export function withDecimals(value: string, decimals: number): string {
  if (decimals <= 0) return value;
  const neg = value.startsWith("-");
  const digits = (neg ? value.slice(1) : value).padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}${frac ? "." + frac : ""}`;
}

export interface NetworkToken {
  name: string;
  symbol: string;
  decimals: number;
}

/**
 * The bodies of messages (canonical JSON) by ID, read from the store in a few statements for all of them; null for
 * one whose transaction is no longer in the store or whose webhook's event signatures match none of its logs (it
 * is not delivered). A message with a frozen body keeps it.
 */
export async function buildBodies(
  sql: SqlTx,
  messages: readonly q.DueMessage[],
  token: (chainId: string) => NetworkToken,
  icm: (sql: SqlTx, messageId: string) => Promise<Record<string, unknown> | null>,
  primary: NetworkCtx | null = null,
): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const fresh = messages.filter(
    (m) => m.body === null && m.reverses === null && m.icm_message_id === null && m.event === null,
  );
  const keys = fresh.map((m) => ({chainId: m.chain_id, block: m.block_number, txIndex: m.tx_index}));
  const txs = await q.txsOfMessages(sql, keys);
  const transfers = await q.transfersOfMessages(sql, keys);
  const internals = await q.internalsOfMessages(
    sql,
    keys.filter((_, i) => fresh[i]!.include_internal_txs),
  );
  for (const m of messages) {
    if (m.body !== null) out.set(m.message_id, m.body);
    else if (m.reverses !== null) out.set(m.message_id, await reversal(sql, m));
    else if (m.icm_message_id !== null) out.set(m.message_id, await icmBody(sql, m, icm));
    // A primary-network or validator message (views/primary/webhookEvents.ts); not delivered without the network.
    else if (m.event !== null) out.set(m.message_id, primary ? await primaryBody(sql, m, primary) : null);
    else {
      const k = q.txKey(m.chain_id, m.block_number, m.tx_index);
      out.set(m.message_id, body(m, txs.get(k) ?? null, transfers.get(k) ?? [], internals.get(k) ?? [], token));
    }
  }
  return out;
}

/**
 * An icm_activity message (avaext's fourth event type): the sub-event, where it happened, and the interchain message
 * as `GET /v1/icm/messages/{messageId}` serves it when the body is made (its first attempt).
 */
async function icmBody(
  sql: SqlTx,
  m: q.DueMessage,
  icm: (sql: SqlTx, messageId: string) => Promise<Record<string, unknown> | null>,
): Promise<string | null> {
  const message = await icm(sql, m.icm_message_id!);
  if (message === null) return null;
  const event = {
    subEvent: m.icm_sub_event,
    chainId: m.chain_id,
    blockNumber: m.block_number.toString(),
    transactionIndex: m.tx_index,
    ...(m.tx_hash ? {txHash: hex(m.tx_hash)} : {}),
    icmMessage: message,
  };
  return canonicalJson({webhookId: m.webhook_id, eventType: "icm_activity", messageId: m.message_id, event});
}

async function reversal(sql: SqlTx, m: q.DueMessage): Promise<string | null> {
  const original = await q.messageBody(sql, m.reverses!);
  if (original === null) return null;
  const o = JSON.parse(original) as {event: {logs?: Array<Record<string, unknown>>}};
  const event = {...o.event, ...(o.event.logs ? {logs: o.event.logs.map((l) => ({...l, removed: true}))} : {})};
  return canonicalJson({...o, messageId: m.message_id, reverses: m.reverses, event});
}

function body(
  m: q.DueMessage,
  t: q.TxOfMessage | null,
  transfers: q.TransferOfMessage[],
  internals: q.InternalOfMessage[],
  token: (chainId: string) => NetworkToken,
): string | null {
  if (!t) return null;
  const logs = (m.logs ?? []) as Array<Record<string, unknown>>;
  const signatures = m.metadata.eventSignatures as string[] | undefined;
  if (signatures && signatures.length > 0 && !logs.some((l) => signatures.includes(String(l.topic0).toLowerCase())))
    return null;
  const txHash = hex(t.hash);
  const timestamp = Number(t.timestamp);
  const ercTransfers = (erc: number) =>
    transfers
      .filter((x) => x.erc === erc)
      .map((x) => {
        const decimals = x.decimals ?? 0;
        const tokenInfo = {
          address: addr(x.token),
          name: x.name ?? "",
          symbol: x.symbol ?? "",
          decimals,
          valueWithDecimals: withDecimals(x.value, decimals),
        };
        return {
          transactionHash: txHash,
          type: ERC_NAMES[erc]!,
          from: addr(x.from_addr),
          to: addr(x.to_addr),
          value: x.value,
          ...(x.token_id !== null ? {tokenId: x.token_id} : {}),
          blockTimestamp: timestamp,
          logIndex: x.log_index,
          [`erc${erc}Token`]: tokenInfo,
        };
      });
  const nt = token(m.chain_id);
  const transaction: Record<string, unknown> = {
    blockHash: hex(t.block_hash),
    blockNumber: m.block_number.toString(),
    from: addr(t.from_addr),
    gas: t.gas_limit,
    gasPrice: t.gas_price,
    maxFeePerGas: t.max_fee ?? t.gas_price,
    maxPriorityFeePerGas: t.max_priority_fee ?? t.gas_price,
    txHash,
    txStatus: String(t.status),
    input: hex(t.input),
    nonce: t.nonce.toString(),
    to: addr(t.to_addr),
    transactionIndex: m.tx_index,
    value: t.value,
    type: t.tx_type,
    chainId: m.chain_id,
    receiptCumulativeGasUsed: t.cumulative_gas,
    receiptGasUsed: t.gas_used,
    receiptEffectiveGasPrice: t.gas_price,
    receiptRoot: "",
    blockTimestamp: timestamp,
    ...(t.created ? {contractAddress: addr(t.created)} : {}),
    erc20Transfers: ercTransfers(20),
    erc721Transfers: ercTransfers(721),
    erc1155Transfers: ercTransfers(1155),
    networkToken: {
      tokenName: nt.name,
      tokenSymbol: nt.symbol,
      tokenDecimals: nt.decimals,
      valueWithDecimals: withDecimals(t.value, nt.decimals),
    },
  };
  if (m.include_internal_txs) {
    transaction.internalTransactions = internals.map((i) => ({
      from: addr(i.from_addr),
      to: addr(i.to_addr),
      internalTxType: i.call_type,
      value: i.value,
      gasUsed: i.gas_used,
      gasLimit: i.gas_limit,
      transactionHash: txHash,
    }));
  }
  const event: Record<string, unknown> = {transaction};
  if (m.include_logs) event.logs = logs;
  return canonicalJson({webhookId: m.webhook_id, eventType: "address_activity", messageId: m.message_id, event});
}
