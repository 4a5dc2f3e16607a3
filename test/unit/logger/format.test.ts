/** `--log-format`: AvalancheGo's values, text lines from pino's JSON, and which destination gets which format. */
import {readFileSync} from "node:fs";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {formatLine, parseLogFormat, resolveLineFormat} from "../../../src/logger/format.js";
import {LoggerRegistry} from "../../../src/logger/index.js";
import {tempDir} from "../../helpers/node.js";

/** A display sink that keeps what it is given, optionally claiming to be a terminal. */
function sink(isTTY: boolean): {lines: string[]; isTTY: boolean; write: (l: string) => boolean} {
  const lines: string[] = [];
  return {lines, isTTY, write: (l: string) => lines.push(l) > 0};
}

const ESC = "\x1b[";

describe("parseLogFormat", () => {
  it("takes AvalancheGo's four values case-insensitively and refuses others", () => {
    expect(parseLogFormat("auto")).toBe("auto");
    expect(parseLogFormat("PLAIN")).toBe("plain");
    expect(parseLogFormat("Colors")).toBe("colors");
    expect(parseLogFormat("json")).toBe("json");
    expect(() => parseLogFormat("pretty")).toThrow(
      'unknown log format "pretty"; expected one of auto, plain, colors, json',
    );
  });
});

describe("resolveLineFormat", () => {
  it("auto: colored text on a terminal (plain with NO_COLOR), JSON anywhere else", () => {
    expect(resolveLineFormat("auto", true, false)).toBe("colors");
    expect(resolveLineFormat("auto", true, true)).toBe("plain");
    expect(resolveLineFormat("auto", false, false)).toBe("json");
  });
  it("explicit formats apply everywhere; colors only reach a terminal", () => {
    for (const t of [true, false]) {
      expect(resolveLineFormat("plain", t, false)).toBe("plain");
      expect(resolveLineFormat("json", t, false)).toBe("json");
    }
    expect(resolveLineFormat("colors", true, false)).toBe("colors");
    expect(resolveLineFormat("colors", false, false)).toBe("plain");
  });
});

describe("formatLine", () => {
  it("writes AvalancheGo's console layout: [MM-DD|HH:MM:SS.mmm] LEVEL <logger> message {fields}", () => {
    const line =
      '{"level":"info","time":"2026-11-24T17:20:26.897Z","name":"main","url":"http://x","n":3,"msg":"listening"}\n';
    expect(formatLine(line, false)).toBe('[11-24|17:20:26.897] INFO <main> listening {"url":"http://x","n":3}\n');
    expect(formatLine(line, true)).toBe(
      `[11-24|17:20:26.897] ${ESC}32mINFO${ESC}0m <main> listening {"url":"http://x","n":3}\n`,
    );
  });

  it("leaves out empty fields, writes AvalancheGo's level names, and an error's message then its stack", () => {
    expect(formatLine('{"level":"verbo","time":"2026-01-02T03:04:05.006Z","name":"P","msg":"v"}\n', false)).toBe(
      "[01-02|03:04:05.006] VERBO <P> v\n",
    );
    const err =
      '{"level":"warn","time":"2026-01-02T03:04:05.006Z","name":"main","err":{"type":"Error","message":"boom","stack":"Error: boom\\n    at f (x.js:1:1)"},"msg":"failed"}\n';
    expect(formatLine(err, false)).toBe(
      '[01-02|03:04:05.006] WARN <main> failed {"err":"boom"}\n    Error: boom\n        at f (x.js:1:1)\n',
    );
    expect(formatLine('{"level":"error","time":"2026-01-02T03:04:05.006Z","name":"main","err":"text"}\n', false)).toBe(
      '[01-02|03:04:05.006] ERROR <main> {"err":"text"}\n',
    );
  });

  it("passes a line that is not a JSON object through unchanged", () => {
    expect(formatLine("not json\n", false)).toBe("not json\n");
    expect(formatLine("[1,2]\n", false)).toBe("[1,2]\n");
  });
});

describe("LoggerRegistry formats", () => {
  const TEXT = /^\[\d\d-\d\d\|\d\d:\d\d:\d\d\.\d{3}\] INFO <main> hello \{"k":1\}\n$/;

  it("auto: JSON to a display that is not a terminal and to the files", async () => {
    const dir = tempDir();
    const display = sink(false);
    const r = new LoggerRegistry({
      logLevel: "INFO",
      displayLevel: "INFO",
      logDir: dir,
      displayStream: display as unknown as NodeJS.WritableStream,
    });
    expect(r.lineFormats()).toEqual({file: "json", display: "json"});
    r.get("main").info({k: 1}, "hello");
    await r.close();
    expect(JSON.parse(display.lines[0]!)).toMatchObject({level: "info", name: "main", k: 1, msg: "hello"});
    expect(JSON.parse(readFileSync(path.join(dir, "main.log"), "utf8"))).toMatchObject({msg: "hello"});
  });

  it("auto: colored text to a terminal, JSON still to the files", async () => {
    const dir = tempDir();
    const display = sink(true);
    const prev = process.env.NO_COLOR;
    delete process.env.NO_COLOR;
    const r = new LoggerRegistry({
      logLevel: "INFO",
      displayLevel: "INFO",
      logDir: dir,
      displayStream: display as unknown as NodeJS.WritableStream,
    });
    if (prev !== undefined) process.env.NO_COLOR = prev;
    r.get("main").info({k: 1}, "hello");
    await r.close();
    expect(display.lines[0]!.replace(`${ESC}32m`, "").replace(`${ESC}0m`, "")).toMatch(TEXT);
    expect(display.lines[0]).toContain(`${ESC}32mINFO${ESC}0m`);
    expect(JSON.parse(readFileSync(path.join(dir, "main.log"), "utf8"))).toMatchObject({msg: "hello"});
  });

  it("plain: text to both, each level threshold still applied per destination", async () => {
    const dir = tempDir();
    const display = sink(false);
    const r = new LoggerRegistry({
      logLevel: "INFO",
      displayLevel: "WARN",
      logDir: dir,
      displayStream: display as unknown as NodeJS.WritableStream,
      format: "plain",
    });
    const l = r.get("main");
    l.info({k: 1}, "hello");
    l.warn("careful");
    await r.close();
    expect(display.lines).toHaveLength(1);
    expect(display.lines[0]).toMatch(/^\[[^\]]+\] WARN <main> careful\n$/);
    const file = readFileSync(path.join(dir, "main.log"), "utf8").split(/(?<=\n)/);
    expect(file[0]).toMatch(TEXT);
    expect(file[1]).toMatch(/ WARN <main> careful\n$/);
  });

  it("json: JSON even to a terminal", async () => {
    const display = sink(true);
    const r = new LoggerRegistry({
      logLevel: "INFO",
      displayLevel: "INFO",
      logDir: null,
      displayStream: display as unknown as NodeJS.WritableStream,
      format: "json",
    });
    r.get("main").info("x");
    await r.close();
    expect(JSON.parse(display.lines[0]!)).toMatchObject({msg: "x"});
  });
});
