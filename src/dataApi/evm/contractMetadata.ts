/**
 * `--contract-metadata-file`: curated contract fields (name, description, officialSite, email, color,
 * resourceLinks, tags, logoAsset, bannerAsset, ...) an operator supplies for the contract answers, as JSON keyed
 * by 0x address. A self-hosted node cannot know them; the hosted API curates them by hand.
 */
import {readFileSync} from "node:fs";

/** Curated fields an operator supplies per contract (`--contract-metadata-file`). */
export type CuratedMetadata = Record<string, unknown>;

/** Fields the file may not set: they come from the chain. */
const CHAIN_FIELDS = new Set(["address", "ercType", "deploymentDetails", "decimals"]);

export function loadContractMetadata(path: string): Map<string, CuratedMetadata> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`--contract-metadata-file ${path}: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error(`--contract-metadata-file ${path}: expected a JSON object keyed by 0x address`);
  const out = new Map<string, CuratedMetadata>();
  for (const [address, fields] of Object.entries(parsed as Record<string, unknown>)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address))
      throw new Error(`--contract-metadata-file ${path}: ${JSON.stringify(address)} is not a 0x address`);
    if (fields === null || typeof fields !== "object" || Array.isArray(fields))
      throw new Error(`--contract-metadata-file ${path}: the entry of ${address} is not an object`);
    const bad = Object.keys(fields).find((k) => CHAIN_FIELDS.has(k));
    if (bad)
      throw new Error(`--contract-metadata-file ${path}: ${address}.${bad} comes from the chain and cannot be curated`);
    out.set(address.toLowerCase(), fields as CuratedMetadata);
  }
  return out;
}
