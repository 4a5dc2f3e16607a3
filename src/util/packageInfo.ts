/** avaext's own package.json, found by walking up from this file (works from src/ under vitest and from dist/). */
import {existsSync, readFileSync} from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";

export interface PackageInfo {
  name: string;
  version: string;
  /** The package's root directory. */
  root: string;
}

let cached: PackageInfo | null = null;

export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const p = path.join(dir, "package.json");
    if (existsSync(p)) {
      const json = JSON.parse(readFileSync(p, "utf8")) as {name?: string; version?: string};
      if (json.name === "avaext") return (cached = {name: json.name, version: json.version ?? "0.0.0", root: dir});
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error("avaext package.json not found");
    dir = up;
  }
}
