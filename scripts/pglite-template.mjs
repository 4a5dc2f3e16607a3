#!/usr/bin/env node
// Writes the empty PGlite cluster a new store starts from (src/dataApi/store/pgliteTemplate.ts): an initdb here, at
// build time, instead of in the running process. Run by `npm run build`, after tsc.
import {existsSync, mkdtempSync, rmSync, writeFileSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {PGlite} from "@electric-sql/pglite";
import {pgliteTemplateFile} from "../dist/src/dataApi/store/pgliteTemplate.js";

const file = pgliteTemplateFile();
// One per PGlite version: made once, kept across builds.
if (existsSync(file)) process.exit(0);
const dir = mkdtempSync(path.join(os.tmpdir(), "avaext-pglite-template-"));
try {
  const db = await PGlite.create(dir);
  const dump = await db.dumpDataDir("gzip");
  await db.close();
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  console.log(`wrote ${path.relative(process.cwd(), file)} (${dump.size} bytes)`);
} finally {
  rmSync(dir, {recursive: true, force: true});
}
