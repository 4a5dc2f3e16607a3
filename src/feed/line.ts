/**
 * One feed line (docs/api/index.md): `{"chain":"X","kind":"tx","bytes":"0x00ab...","timestamp":"...","id":"..."}`.
 * A bad line yields a reason naming the field; the caller logs it with its line number and skips it.
 */
import type {ChainRegistry} from "../chains/index.js";
import {findEndpoint, type ContainerKind} from "../containerIndex/endpoints.js";
import {idFromString} from "../util/cb58.js";
import {hexToBytes} from "../util/hex.js";
import {MAX_TIMESTAMP_NS, nowNs, parseRfc3339Nano} from "../util/time.js";
import {deriveId} from "./derive.js";
import type {FeedItem} from "./types.js";

export type LineResult = {ok: true; item: FeedItem} | {ok: false; reason: string};

export function parseFeedLine(text: string, chains: ChainRegistry, now: () => bigint = nowNs): LineResult {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return {ok: false, reason: `not JSON: ${(e as Error).message}`};
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return {ok: false, reason: "not a JSON object"};
  const o = v as Record<string, unknown>;
  if (typeof o.chain !== "string") return {ok: false, reason: "chain: expected a chain alias or ID"};
  const chain = chains.resolveChain(o.chain);
  if (chain === null) return {ok: false, reason: `chain: unknown chain ${JSON.stringify(o.chain)}`};
  if (typeof o.kind !== "string") return {ok: false, reason: "kind: expected block, tx or vtx"};
  const endpoint = findEndpoint(chain, o.kind);
  if (endpoint === null) return {ok: false, reason: `kind: chain ${chain} has no ${JSON.stringify(o.kind)} index`};
  if (typeof o.bytes !== "string") return {ok: false, reason: "bytes: expected 0x-prefixed hex"};
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(o.bytes);
  } catch (e) {
    return {ok: false, reason: `bytes: ${(e as Error).message}`};
  }
  if (bytes.length === 0) return {ok: false, reason: "bytes: empty container"};
  let timestampNs: bigint;
  if (o.timestamp === undefined || o.timestamp === null) {
    timestampNs = now();
  } else {
    const ts = typeof o.timestamp === "string" ? parseRfc3339Nano(o.timestamp) : null;
    if (ts === null || ts < 0n)
      return {ok: false, reason: `timestamp: expected RFC 3339, got ${JSON.stringify(o.timestamp)}`};
    if (ts > MAX_TIMESTAMP_NS)
      return {
        ok: false,
        reason: `timestamp: ${o.timestamp} is past 2262-04-11T23:47:16.854775807Z, the last time in ns a uint63 holds`,
      };
    timestampNs = ts;
  }
  const kind = endpoint.kind as ContainerKind;
  let id: Uint8Array;
  let checksum: Uint8Array | null = null;
  if (o.id === undefined || o.id === null) {
    ({id, checksum} = deriveId(chain, kind, bytes));
  } else {
    if (typeof o.id !== "string") return {ok: false, reason: "id: expected a CB58 ID"};
    try {
      id = idFromString(o.id);
    } catch (e) {
      return {ok: false, reason: `id: ${(e as Error).message}`};
    }
  }
  return {ok: true, item: {chain, kind, endpoint, id, bytes, timestampNs, checksum}};
}
