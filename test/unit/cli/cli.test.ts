/** CLI: flag parsing, layering (flag > env > file > default), Go durations, and every kind of bad input. */
import {spawnSync} from "node:child_process";
import {readFileSync, rmSync, writeFileSync} from "node:fs";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {formatDuration, parseDuration} from "../../../src/util/duration.js";
import {parseArgs} from "../../../src/cli/index.js";
import {tempDir} from "../../helpers/node.js";
import {startChild} from "../../helpers/child.js";

const BIN = path.resolve(__dirname, "../../../bin/avaext.js");

describe("flag values", () => {
  it("has AvalancheGo's defaults", () => {
    const c = parseArgs([], {});
    expect(c["http-host"]).toBe("127.0.0.1");
    expect(c["http-port"]).toBe(9650);
    expect(c["http-allowed-hosts"]).toEqual(["localhost"]);
    expect(c["http-allowed-origins"]).toEqual(["*"]);
    expect(c["api-admin-enabled"]).toBe(false);
    expect(c["api-health-enabled"]).toBe(true);
    expect(c["index-enabled"]).toBe(false);
    expect(c["health-check-frequency"]).toBe(30_000);
    expect(c["log-level"]).toBe("INFO");
    expect(c["log-display-level"]).toBe("INFO");
    expect(c.feed).toBeNull();
    expect(c["db-dir"]).toBe(path.join(c["data-dir"], "db"));
  });

  it("accepts AvalancheGo-style booleans", () => {
    expect(parseArgs(["--api-admin-enabled"], {})["api-admin-enabled"]).toBe(true);
    expect(parseArgs(["--api-admin-enabled=true"], {})["api-admin-enabled"]).toBe(true);
    expect(parseArgs(["--api-admin-enabled=false"], {})["api-admin-enabled"]).toBe(false);
    expect(parseArgs(["--api-admin-enabled", "false"], {})["api-admin-enabled"]).toBe(false);
    expect(parseArgs(["--api-admin-enabled", "true", "--index-enabled"], {})["index-enabled"]).toBe(true);
    expect(parseArgs(["--api-health-enabled=false"], {})["api-health-enabled"]).toBe(false);
  });

  it("layers flag > env > file > default, and derives dirs from data-dir", () => {
    const dir = tempDir();
    const file = path.join(dir, "c.json");
    writeFileSync(
      file,
      JSON.stringify({"http-port": 1111, "index-enabled": true, "log-level": "debug", "data-dir": "/d"}),
    );
    const fromFile = parseArgs(["--config-file", file], {});
    expect(fromFile["http-port"]).toBe(1111);
    expect(fromFile["index-enabled"]).toBe(true);
    expect(fromFile["log-level"]).toBe("DEBUG");
    expect(fromFile["log-display-level"]).toBe("DEBUG");
    expect(fromFile["db-dir"]).toBe(path.join("/d", "db"));
    const fromEnv = parseArgs(["--config-file", file], {AVAEXT_HTTP_PORT: "2222", AVAEXT_INDEX_ENABLED: "false"});
    expect(fromEnv["http-port"]).toBe(2222);
    expect(fromEnv["index-enabled"]).toBe(false);
    const fromFlag = parseArgs(["--config-file", file, "--http-port=3333"], {AVAEXT_HTTP_PORT: "2222"});
    expect(fromFlag["http-port"]).toBe(3333);
    expect(parseArgs([], {AVAEXT_CONFIG_FILE: file})["http-port"]).toBe(1111);
  });

  it("parses Go durations", () => {
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("2s")).toBe(2000);
    expect(parseDuration("1m30s")).toBe(90_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("0")).toBe(0);
    expect(parseDuration("100us")).toBeCloseTo(0.1);
    for (const bad of ["", "5", "s", "1x", "1.2.3s", "--1s"]) expect(() => parseDuration(bad), bad).toThrow();
    expect(formatDuration(90_000)).toBe("1m30s");
    expect(formatDuration(0.5)).toBe("500µs");
    expect(formatDuration(1234)).toBe("1.234s");
    expect(formatDuration(0)).toBe("0s");
  });
});

describe("bad input exits 2 with one line naming the flag", () => {
  const run = (args: string[], env: Record<string, string> = {}): {status: number | null; stderr: string} => {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      encoding: "utf8",
      env: {...process.env, ...env},
      timeout: 10_000,
    });
    return {status: r.status, stderr: r.stderr};
  };
  const dir = tempDir();
  const badJson = path.join(dir, "bad.json");
  writeFileSync(badJson, "{not json");
  const unknownKey = path.join(dir, "unknown.json");
  writeFileSync(unknownKey, JSON.stringify({"http-prot": 1}));
  const badValue = path.join(dir, "badvalue.json");
  writeFileSync(badValue, JSON.stringify({"index-enabled": "maybe"}));

  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ["unknown flag", ["--http-prot", "1"], {}, /unknown option '--http-prot'/],
    ["bad port", ["--http-port", "70000"], {}, /--http-port: expected a port number 0-65535, got "70000"/],
    ["bad bool", ["--index-enabled=maybe"], {}, /--index-enabled: expected true or false, got "maybe"/],
    ["bad duration", ["--health-check-frequency", "5"], {}, /--health-check-frequency: invalid duration "5"/],
    ["zero frequency", ["--health-check-frequency", "0s"], {}, /--health-check-frequency: must be greater than 0/],
    [
      "backfill before the epoch",
      ["--dev-backfill", "500000h"],
      {},
      /--dev-backfill: must be at most 87600h \(ten years\)/,
    ],
    ["bad level", ["--log-level", "loud"], {}, /--log-level: unknown log level "loud"/],
    [
      "bad log format",
      ["--log-format", "pretty"],
      {},
      /--log-format: unknown log format "pretty"; expected one of auto, plain, colors, json/,
    ],
    ["bad feed", ["--feed", "ftp://x"], {}, /--feed: expected dev, file:PATH or http:\/\/HOST:PORT/],
    // No feed is assumed (a node beside mainnet must not start a dev network because the flag was left out).
    [
      "no feed",
      ["--data-dir", path.join(dir, "nofeed")],
      {},
      /--feed is required: dev .*, file:PATH or http:\/\/HOST:PORT/,
    ],
    [
      "no feed for an index",
      ["--data-dir", path.join(dir, "nofeed"), "--data-api-enabled", "--data-api-role=serve", "--index-enabled"],
      {},
      /--feed is required: .*only a --data-api-role serve replica without --index-enabled/,
    ],
    ["bad network", ["--network-id", "moon"], {}, /--network-id: unknown network "moon"/],
    [
      "PGlite cache too large",
      ["--data-api-pglite-shared-buffers", "2048"],
      {},
      /--data-api-pglite-shared-buffers: must be 16-1024 \(MiB\), got 2048/,
    ],
    [
      "PGlite cache too small",
      ["--data-api-pglite-shared-buffers", "8"],
      {},
      /--data-api-pglite-shared-buffers: must be 16-1024 \(MiB\), got 8/,
    ],
    ["bad env", [], {AVAEXT_HTTP_PORT: "abc"}, /--http-port: expected a port number/],
    ["missing config file", ["--config-file", path.join(dir, "none.json")], {}, /--config-file: cannot read .*ENOENT/],
    ["config not JSON", ["--config-file", badJson], {}, /--config-file: .* is not valid JSON/],
    ["config unknown key", ["--config-file", unknownKey], {}, /--config-file: .*unknown flag "http-prot"/],
    ["config bad value", ["--config-file", badValue], {}, /--index-enabled: expected true or false, got "maybe"/],
    ["positional argument", ["extra"], {}, /too many arguments/],
  ];
  for (const [name, args, env, re] of cases) {
    it(name, () => {
      const r = run(args, env);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(re);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/^avaext: /);
    });
  }

  it("--help exits 0 and lists every flag with its default", () => {
    const r = spawnSync(process.execPath, [BIN, "--help"], {encoding: "utf8"});
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--api-admin-enabled \[bool\]/);
    expect(r.stdout.replace(/\s+/g, " ")).toMatch(/\(default: 9650\)/);
  });
});

describe("docs/reference/cli.md", () => {
  it("lists every flag with its default (regenerate with node scripts/cli-docs.mjs)", () => {
    const r = spawnSync(process.execPath, [path.resolve(__dirname, "../../../scripts/cli-docs.mjs"), "--check"], {
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});

describe("--log-format through the command", () => {
  const TEXT_LINE = /^\[\d\d-\d\d\|\d\d:\d\d:\d\d\.\d{3}\] INFO <main> .*\{.*"url":"http:\/\/127\.0\.0\.1:\d+\/?"/m;

  /** Starts avaext with the flags, stops it once it listens; returns its stdout and its main.log. */
  async function firstLines(flags: string[]): Promise<{out: string; file: string}> {
    const dir = tempDir();
    try {
      const child = await startChild([`--data-dir=${dir}`, "--dev-backfill=0", ...flags]);
      child.proc.kill("SIGTERM");
      await child.exited;
      return {out: child.output(), file: readFileSync(path.join(dir, "logs", "main.log"), "utf8")};
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  }

  it("auto (the default) writes JSON lines to a pipe and to the files", async () => {
    expect(parseArgs([], {})["log-format"]).toBe("auto");
    const {out, file} = await firstLines([]);
    for (const text of [out, file]) {
      const first = text.split("\n")[0]!;
      expect(JSON.parse(first)).toMatchObject({level: expect.any(String), time: expect.any(String), name: "main"});
    }
  });

  it("plain writes AvalancheGo's text lines to stdout and the files, and stops with exit code 0", async () => {
    const {out, file} = await firstLines(["--log-format=PLAIN"]);
    expect(out).toMatch(TEXT_LINE);
    expect(out).toMatch(/INFO <main> received signal \{"signal":"SIGTERM"\}/);
    expect(out).not.toMatch(/^\{/m);
    expect(file).toMatch(TEXT_LINE);
  });

  it("auto on a terminal (script(1) gives the command a pseudo-terminal): colored text on stdout, JSON in the files", () => {
    const dir = tempDir();
    try {
      // The command stops itself: a shell sends SIGTERM once the server's URL is in the log (waited for, not slept on:
      // a busy machine takes longer than any fixed pause to start it).
      const log = path.join(dir, "logs", "main.log");
      const wait = `for i in $(seq 1 900); do grep -q '"url":"http' ${log} 2>/dev/null && break; sleep 0.1; done`;
      const cmd = `${process.execPath} ${BIN} --data-dir=${dir} --feed=dev --dev-backfill=0 --http-host=127.0.0.1 --http-port=0 & pid=$!; ${wait}; kill -TERM $pid; wait $pid`;
      const r = spawnSync("script", ["-qec", cmd, "/dev/null"], {
        encoding: "utf8",
        env: {...process.env, NO_COLOR: "", TERM: "xterm"},
        timeout: 110_000,
      });
      expect(r.status).toBe(0);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI colour codes are what is tested.
      expect(r.stdout).toMatch(/\] \x1b\[32mINFO\x1b\[0m <main> /);
      expect(r.stdout).not.toMatch(/\{"level"/);
      const first = readFileSync(path.join(dir, "logs", "main.log"), "utf8").split("\n")[0]!;
      expect(JSON.parse(first)).toMatchObject({level: expect.any(String), time: expect.any(String), name: "main"});
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  });
});

describe("a network's genesis at start: exit 1 with one line naming --genesis-file", () => {
  const run = (args: string[]): {status: number | null; stderr: string} => {
    const dir = tempDir();
    const feed = path.join(dir, "empty.ndjson");
    writeFileSync(feed, "");
    const r = spawnSync(
      process.execPath,
      [BIN, `--data-dir=${dir}`, "--http-port=0", `--feed=file:${feed}`, "--log-display-level=OFF", ...args],
      {encoding: "utf8", timeout: 60_000},
    );
    rmSync(dir, {recursive: true, force: true});
    return {status: r.status, stderr: r.stderr};
  };
  const genesis = (networkId: number): string => {
    const f = path.join(tempDir(), `genesis-${networkId}.json`);
    const local = readFileSync(path.resolve(__dirname, "../../../config/genesis/genesis_local.json"), "utf8");
    writeFileSync(f, local.replace(/"networkID":\s*12345/, `"networkID": ${networkId}`));
    return f;
  };

  it("refuses a data API on a network with no genesis", () => {
    const r = run(["--network-id=1337", "--index-enabled", "--data-api-enabled"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^avaext: network 1337 has no built-in genesis .*--genesis-file PATH/);
  });

  it("refuses a genesis file of another network, naming both", () => {
    const r = run(["--network-id=1337", `--genesis-file=${genesis(4242)}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is the genesis of network 4242, but --network-id is 1337/);
  });

  it("refuses a genesis file for mainnet, as AvalancheGo does", () => {
    const r = run(["--network-id=mainnet", `--genesis-file=${genesis(1)}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--genesis-file is not accepted for network 1/);
  });
});
