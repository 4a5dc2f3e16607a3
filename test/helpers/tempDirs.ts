/**
 * Temp dirs for tests. test/setup/tempDirs.ts removes a test file's dirs once its tests and hooks are done. This
 * module imports nothing of avaext's, so the setup file does not load the code under test before a test file's
 * vi.mock calls apply.
 */
import {mkdtempSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";

const made: string[] = [];

export function tempDir(prefix = "avaext-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, {recursive: true, force: true});
}
