/**
 * admin.loadVMs: discovers VM plugins in `--plugin-dir` (docs/api/admin.md; AvalancheGo vms/registry).
 *
 * A plugin is a regular file named by its VM ID (CB58) or by an alias that `--vm-aliases-file` gives that VM
 * (`{"<vmID>": ["alias", ...]}`); an extension is ignored (`<vmID>.exe`), as AvalancheGo does. avaext runs no VMs:
 * "loading" registers the plugin (ID, aliases, file) in this process's registry, so a second call reports nothing
 * new. A file that cannot be loaded is reported in `failedVMs` with the reason, keyed by its VM ID, or by its file
 * name when the name is neither an ID nor an alias; it is retried on the next call.
 */
import {constants} from "node:fs";
import {access, readFile, readdir, stat} from "node:fs/promises";
import path from "node:path";
import {appError} from "../api/errors.js";
import {idFromString} from "../util/cb58.js";
import {Mutex} from "./mutex.js";

export interface PluginOptions {
  /** `--plugin-dir`. A missing directory means no plugins. */
  dir: string;
  /** `--vm-aliases-file`, read at every call so aliases can be added without a restart; null = none. */
  aliasesFile: string | null;
}

export interface LoadVMsResult {
  newVMs: Record<string, string[]>;
  /** Present only when something failed (AvalancheGo's `omitempty`). */
  failedVMs?: Record<string, string>;
}

export interface LoadedVM {
  id: string;
  aliases: string[];
  file: string;
}

export class VMRegistry {
  private readonly mutex = new Mutex();
  private readonly vms = new Map<string, LoadedVM>();

  constructor(private readonly opts: PluginOptions) {}

  /** The VMs loaded so far. */
  list(): LoadedVM[] {
    return [...this.vms.values()];
  }

  /** Scans the plugin directory and registers every new loadable plugin. Calls are serialised. */
  load(): Promise<LoadVMsResult> {
    return this.mutex.run(() => this.loadLocked());
  }

  private async loadLocked(): Promise<LoadVMsResult> {
    const aliases = await this.readAliases();
    const aliasToId = new Map<string, string>();
    for (const [id, list] of aliases) for (const a of list) aliasToId.set(a, id);

    let names: string[];
    try {
      names = (await readdir(this.opts.dir)).sort();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return {newVMs: {}};
      throw appError(
        `couldn't read the plugin directory: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }

    const newVMs: Record<string, string[]> = {};
    const failedVMs: Record<string, string> = {};
    const seen = new Map<string, string>();
    for (const name of names) {
      const file = path.join(this.opts.dir, name);
      let st;
      try {
        st = await stat(file);
      } catch (e) {
        failedVMs[name] = `couldn't read plugin ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
        continue;
      }
      if (st.isDirectory()) continue; // as AvalancheGo: directories in the plugin dir are not plugins
      const stem = name.slice(0, name.length - path.extname(name).length);
      const id = aliasToId.get(stem) ?? (isVmId(stem) ? stem : null);
      if (id === null) {
        failedVMs[name] =
          `invalid vmID: ${JSON.stringify(stem)}: the file name is neither a CB58 VM ID nor an alias in --vm-aliases-file`;
        continue;
      }
      if (this.vms.has(id)) continue;
      const other = seen.get(id);
      if (other !== undefined) {
        failedVMs[id] = `plugin ${name} names the same VM as ${other}`;
        continue;
      }
      seen.set(id, name);
      if (!st.isFile()) {
        failedVMs[id] = `plugin ${name} is not a regular file`;
        continue;
      }
      try {
        await access(file, constants.X_OK);
      } catch {
        failedVMs[id] = `plugin ${name} is not executable`;
        continue;
      }
      const vmAliases = (aliases.get(id) ?? []).filter((a) => a !== id);
      this.vms.set(id, {id, aliases: vmAliases, file});
      newVMs[id] = vmAliases;
    }
    return Object.keys(failedVMs).length === 0 ? {newVMs} : {newVMs, failedVMs};
  }

  /** Reads `--vm-aliases-file`: VM ID (CB58) → aliases; an alias may name one VM only. */
  private async readAliases(): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (this.opts.aliasesFile === null) return out;
    const bad = (reason: string): Error => appError(`invalid --vm-aliases-file: ${reason}`);
    let json: unknown;
    try {
      json = JSON.parse(await readFile(this.opts.aliasesFile, "utf8"));
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw bad(err.code !== undefined ? `couldn't read it: ${err.code}` : `not JSON: ${err.message}`);
    }
    if (typeof json !== "object" || json === null || Array.isArray(json))
      throw bad('expected {"<vmID>": ["alias", ...]}');
    const owner = new Map<string, string>();
    for (const [id, list] of Object.entries(json)) {
      if (!isVmId(id)) throw bad(`${JSON.stringify(id)} is not a CB58 VM ID`);
      if (!Array.isArray(list) || !list.every((a): a is string => typeof a === "string")) {
        throw bad(`the aliases of ${id} must be an array of strings`);
      }
      for (const a of list) {
        const prev = owner.get(a);
        if (prev !== undefined && prev !== id) throw bad(`alias ${JSON.stringify(a)} names both ${prev} and ${id}`);
        owner.set(a, id);
      }
      out.set(id, [...new Set(list)]);
    }
    return out;
  }
}

function isVmId(s: string): boolean {
  try {
    idFromString(s);
    return true;
  } catch {
    return false;
  }
}
