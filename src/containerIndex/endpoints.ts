/** The index endpoints (AvalancheGo indexer; docs/api/index.md): one per primary-network chain and container kind. */
import type {ChainName} from "../chains/index.js";

export type ContainerKind = "block" | "tx" | "vtx";
export const CONTAINER_KINDS: readonly ContainerKind[] = ["block", "tx", "vtx"];

export interface Endpoint {
  chain: ChainName;
  kind: ContainerKind;
  /** Fixed one-byte ID used in database keys; never reused. */
  id: number;
  /** `P/block`, the metrics label and log name. */
  name: string;
}

export const ENDPOINTS: readonly Endpoint[] = [
  {chain: "P", kind: "block", id: 1, name: "P/block"},
  {chain: "C", kind: "block", id: 2, name: "C/block"},
  {chain: "X", kind: "block", id: 3, name: "X/block"},
  {chain: "X", kind: "tx", id: 4, name: "X/tx"},
  // Not populated since Cortina, still served for history (docs/api/index.md).
  {chain: "X", kind: "vtx", id: 5, name: "X/vtx"},
];

export function findEndpoint(chain: ChainName, kind: string): Endpoint | null {
  return ENDPOINTS.find((e) => e.chain === chain && e.kind === kind) ?? null;
}
