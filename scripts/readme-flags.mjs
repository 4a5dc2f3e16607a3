#!/usr/bin/env node
// Regenerates the flags table in README.md from src/cli/flags.ts (via dist/), so the docs cannot drift.
import {readFileSync, writeFileSync} from "node:fs";
import {FLAGS} from "../dist/src/cli/flags.js";

export function flagsTable() {
  const rows = FLAGS.map((f) => `| \`--${f.name}\` | \`${f.defaultText}\` | ${f.description.replace(/\|/g, "\\|")} |`);
  return ["| flag | default | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

const readme = new URL("../README.md", import.meta.url);
const text = readFileSync(readme, "utf8");
const next = text.replace(/<!-- flags-table:start -->[\s\S]*<!-- flags-table:end -->/, `<!-- flags-table:start -->\n${flagsTable()}\n<!-- flags-table:end -->`);
if (process.argv.includes("--check")) {
  if (next !== text) {
    console.error("README.md flags table is out of date: run node scripts/readme-flags.mjs");
    process.exit(1);
  }
} else {
  writeFileSync(readme, next);
}
