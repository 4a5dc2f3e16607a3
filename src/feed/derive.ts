/**
 * What avaext learns from a container's bytes: its ID by the chain's rule when the source gives none, and, for
 * blocks, the facts the health checks and the metrics service need (height, timestamp, transaction count).
 * Containers that do not decode are indexed all the same (docs/api/index.md) and only left out of derived views.
 */
import type {ChainName} from "../chains/index.js";
import {containerIdOf, decodeContainer} from "../decode/index.js";
import type {ContainerKind} from "../containerIndex/endpoints.js";

export interface BlockFacts {
  height: bigint;
  /** Block timestamp, Unix seconds, when the format carries one. */
  timestamp: number | null;
  txCount: number;
}

/**
 * The ID by the chain's rule, and the `hex` checksum of the bytes (sha256(bytes)[28:32]) when deriving the ID
 * computed it anyway (null otherwise: the index computes it when it stores the container).
 */
export function deriveId(
  chain: ChainName,
  kind: ContainerKind,
  bytes: Uint8Array,
): {id: Uint8Array; checksum: Uint8Array | null} {
  const {id, hashOfBytes} = containerIdOf(chain, kind, bytes);
  return {id, checksum: hashOfBytes ? id.subarray(28) : null};
}

export function blockFacts(chain: ChainName, kind: ContainerKind, bytes: Uint8Array): BlockFacts | null {
  if (kind !== "block") return null;
  const d = decodeContainer(chain, kind, bytes);
  if (d === null) return null;
  return {height: d.height, timestamp: d.timestamp, txCount: d.txCount};
}
