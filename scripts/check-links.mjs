#!/usr/bin/env node
// Checks every relative link of README.md, CHANGELOG.md and docs/**/*.md: the file it names exists, and its
// #anchor is a heading of that file (GitHub's heading slugs). Links in code are not links. Exits 1 naming each
// broken link; prints nothing when all resolve.
import {existsSync, readdirSync, readFileSync, statSync} from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/**
 * Files another generator writes that may not exist yet in a checkout (the /v1 OpenAPI document, generated from the
 * route table): a link to one passes while it is absent, and is checked like any other once it exists.
 */
const GENERATED = new Set(["docs/api/openapi.json"]);

function markdownFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? markdownFiles(p) : name.endsWith(".md") ? [p] : [];
  });
}

/** The text outside fenced blocks and inline code, line by line (a link's line number stays right). */
function prose(text) {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line.replace(/`[^`]*`/g, "");
  });
}

/** GitHub's anchor for each heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(file) {
  const seen = new Map();
  const out = new Set();
  let fenced = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const base = m[1]
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const files = ["README.md", "CHANGELOG.md"].map((f) => path.join(root, f));
files.push(...markdownFiles(path.join(root, "docs")));
const broken = [];
for (const file of files) {
  prose(readFileSync(file, "utf8")).forEach((line, i) => {
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [rel, anchor] = target.split("#", 2);
      const dest = rel === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(rel));
      const where = `${path.relative(root, file)}:${i + 1}: ${target}`;
      if (!existsSync(dest)) {
        if (!GENERATED.has(path.relative(root, dest))) broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor !== undefined && dest.endsWith(".md") && !anchors(dest).has(anchor)) {
        broken.push(`${where} (no such heading)`);
      }
    }
  });
}
if (broken.length > 0) {
  console.error(`broken links:\n${broken.join("\n")}`);
  process.exit(1);
}
