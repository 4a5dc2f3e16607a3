#!/usr/bin/env node
// Refreshes the example answers in the docs from a running avaext, so every answer shown is one a real run gave.
//
//   node scripts/docs-examples.mjs http://127.0.0.1:PORT [files...]   (default: README.md and docs/api/*.md)
//
// Start the dev network first (`npm start`, or `node bin/avaext.js --config-file config/default.json --http-port=0
// --data-dir=$(mktemp -d)` and read the URL from its first log lines). In a page, a ```sh block after an
// `<!-- example -->` line is run with bash (localhost:9650 pointed at the given URL) and the block after it is
// replaced with what it printed, each line cut at 600 characters with "…" (`<!-- example cut=N -->`: at N). A
// ```sh block after `<!-- example-setup -->` is run before each later example of its page (shell functions,
// variables); it shows no answer. The dev network's IDs change from run to run, so examples that need one read it
// from a list first. Run it on a fresh dev network: some examples change what they ask about (admin aliases).
import {execFileSync} from "node:child_process";
import {readdirSync, readFileSync, writeFileSync} from "node:fs";

const MAX_LINE = 600;
const [base, ...args] = process.argv.slice(2);
if (base === undefined || !/^https?:\/\/[^/]+\/?$/.test(base)) {
  console.error("usage: node scripts/docs-examples.mjs http://127.0.0.1:PORT [files...]");
  process.exit(2);
}
const host = base.replace(/^https?:\/\//, "").replace(/\/$/, "");
const root = new URL("..", import.meta.url);
const apiPages = readdirSync(new URL("docs/api/", root)).filter((f) => f.endsWith(".md"));
const files = args.length > 0 ? args : ["README.md", ...apiPages.map((f) => `docs/api/${f}`)];

/** Every curl's answer ends its own line, as the pages show them. */
const PRELUDE = `set -o pipefail\ncurl() { command curl "$@"; local rc=$?; echo; return $rc; }\n`;

function run(script, maxLine = MAX_LINE) {
  const text = PRELUDE + script.replaceAll("localhost:9650", host);
  let out;
  try {
    out = execFileSync("bash", ["-c", text], {encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"]});
  } catch (e) {
    throw new Error(`example failed:\n${script}\n${e.stderr ?? e.message}`);
  }
  return out
    .replaceAll(host, "localhost:9650")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => ([...l].length > maxLine ? `${[...l].slice(0, maxLine).join("")}…` : l))
    .join("\n")
    .trimEnd();
}

function fenceLang(out) {
  const lines = out.split("\n").filter((l) => l !== "");
  return lines.length > 0 && lines.every((l) => /^[[{]/.test(l)) ? "json" : "text";
}

for (const file of files) {
  const path = new URL(file, root);
  const lines = readFileSync(path, "utf8").split("\n");
  const out = [];
  const setup = [];
  let changed = 0;
  for (let i = 0; i < lines.length; i++) {
    const m = /^<!-- (example|example-setup)(?: cut=(\d+))? -->$/.exec(lines[i].trim());
    if (m === null || lines[i + 1] !== "```sh") {
      out.push(lines[i]);
      continue;
    }
    const end = lines.indexOf("```", i + 2);
    const script = lines.slice(i + 2, end).join("\n");
    out.push(...lines.slice(i, end + 1));
    i = end;
    if (m[1] === "example-setup") {
      setup.push(script);
      run(script);
      continue;
    }
    const answer = run([...setup, script].join("\n"), m[2] === undefined ? MAX_LINE : Number(m[2]));
    // Replace the answer block that follows (a fence right after, or after one blank line), else insert one.
    let j = i + 1;
    if (lines[j] === "" && /^```/.test(lines[j + 1] ?? "")) j++;
    if (/^```(json|text)?$/.test(lines[j] ?? "") && lines[j] !== "```sh") {
      const close = lines.indexOf("```", j + 1);
      i = close;
    }
    out.push(`\`\`\`${fenceLang(answer)}`, answer, "```");
    changed++;
  }
  writeFileSync(path, out.join("\n"));
  console.log(`${file}: ${changed} example${changed === 1 ? "" : "s"}`);
}
