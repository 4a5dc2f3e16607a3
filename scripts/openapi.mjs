#!/usr/bin/env node
// Writes docs/api/openapi.json from the /v1 route table (src/dataApi/routes/defs, via dist/), the document
// GET /v1/openapi.json answers; `--check` fails when the file is not what the table gives (npm test runs it:
// test/unit/dataApi/server/openapi.test.ts).
import {mkdirSync, readFileSync, writeFileSync} from "node:fs";
import {v1OpenApiDocument} from "../dist/src/dataApi/routes/defs/index.js";

const file = new URL("../docs/api/openapi.json", import.meta.url);

export function openApiText() {
  return `${JSON.stringify(v1OpenApiDocument(), null, 2)}\n`;
}

const next = openApiText();
if (process.argv.includes("--check")) {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {}
  if (text !== next) {
    console.error("docs/api/openapi.json is out of date: run npm run build && node scripts/openapi.mjs");
    process.exit(1);
  }
} else {
  mkdirSync(new URL(".", file), {recursive: true});
  writeFileSync(file, next);
}
