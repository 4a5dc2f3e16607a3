/** Writing admin output files with AvalancheGo's permissions (utils/perms: directories 0750, files 0640). */
import {chmod, mkdir, rename, writeFile} from "node:fs/promises";
import path from "node:path";

export const DIR_MODE = 0o750;
export const FILE_MODE = 0o640;

/** Creates `dir` (and parents) if missing; a directory this call creates gets exactly 0750 whatever the umask. */
export async function ensureDir(dir: string): Promise<void> {
  const created = await mkdir(dir, {recursive: true, mode: DIR_MODE});
  if (created !== undefined) await chmod(dir, DIR_MODE);
}

/**
 * Writes `data` to `<dir>/<name>` with mode 0640 through a temporary file and a rename, so a reader never sees a
 * half-written profile. Returns the file's path.
 */
export async function writeOutput(dir: string, name: string, data: string | Uint8Array): Promise<string> {
  await ensureDir(dir);
  const file = path.join(dir, name);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, {mode: FILE_MODE});
  await chmod(tmp, FILE_MODE);
  await rename(tmp, file);
  return file;
}
