#!/usr/bin/env node
// The data API's layering rule that dependency-cruiser cannot see (config/dependency-cruiser.cjs checks imports):
// only the store (src/dataApi/store/), the queries (src/dataApi/queries/) and the views' writers
// (src/dataApi/views/) spell SQL. A route, a service or the CLI calls one of their functions instead, so every
// statement a table sees can be found in those three folders (docs/design/data-api.md, "Layers").
//
//   node scripts/check-sql-layers.mjs [src-dir]     exit 1 naming each statement found elsewhere
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, "..", "src"));
const ALLOWED = ["dataApi/store/", "dataApi/queries/", "dataApi/views/"].map((p) => path.join(root, p));
// The statements' opening words as this codebase writes them (upper case); a line that is a comment is skipped.
const STATEMENT =
  /\b(SELECT\s+(\*|[a-z_0-9(]|\$\d|DISTINCT|count|COALESCE)|INSERT\s+INTO|UPDATE\s+[a-z_]+(\s+[a-z]+)?\s+SET|DELETE\s+FROM|(CREATE|DROP|ALTER)\s+(TABLE|INDEX)|TRUNCATE\s+[a-z_]+|VACUUM|ANALYZE\s+[a-z_]+)/;
const COMMENT = /^\s*(\/\/|\*|\/\*)/;

function* files(dir) {
  for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

const found = [];
for (const file of files(root)) {
  if (ALLOWED.some((a) => file.startsWith(a))) continue;
  fs.readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!COMMENT.test(line) && STATEMENT.test(line))
        found.push(`${path.relative(process.cwd(), file)}:${i + 1}: ${line.trim()}`);
    });
}
if (found.length > 0) {
  console.error(
    `SQL outside src/dataApi/{store,queries,views}/ (call a function of theirs instead):\n${found.join("\n")}`,
  );
  process.exit(1);
}
console.log("check-sql-layers: SQL only in the store, the queries and the views' writers");
