/** `--data-api-keys-file`: `{"<key>": {"name": "...", "rateLimit": <requests a minute>}}`, checked when loaded. */
import {readFileSync} from "node:fs";

export interface ApiKey {
  name: string;
  /** Requests a minute; 0 = no limit. */
  rateLimit: number;
}

export function parseApiKeys(text: string, source: string): Map<string, ApiKey> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${source}: not JSON: ${(e as Error).message}`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json))
    throw new Error(`${source}: must be an object of keys`);
  const out = new Map<string, ApiKey>();
  for (const [key, v] of Object.entries(json as Record<string, unknown>)) {
    const e = v as {name?: unknown; rateLimit?: unknown};
    if (key.length === 0) throw new Error(`${source}: an API key is empty`);
    if (v === null || typeof v !== "object")
      throw new Error(`${source}: key ${JSON.stringify(key.slice(0, 4) + "…")}: must be an object`);
    if (typeof e.name !== "string")
      throw new Error(`${source}: key ${JSON.stringify(key.slice(0, 4) + "…")}: name must be a string`);
    if (typeof e.rateLimit !== "number" || !Number.isInteger(e.rateLimit) || e.rateLimit < 0) {
      throw new Error(`${source}: key ${JSON.stringify(e.name)}: rateLimit must be an integer >= 0`);
    }
    out.set(key, {name: e.name, rateLimit: e.rateLimit});
  }
  return out;
}

export function loadApiKeys(file: string): Map<string, ApiKey> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`--data-api-keys-file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseApiKeys(text, `--data-api-keys-file ${file}`);
}
