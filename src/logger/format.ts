/**
 * `--log-format` (AvalancheGo's flag and values): how log lines are written. pino always produces one JSON line
 * per entry; a destination that wants text turns that line into AvalancheGo's console layout
 *
 *     [11-24|17:20:26.897] INFO <main> listening {"url":"http://127.0.0.1:9650"}
 *
 * (time in UTC, as the JSON lines' `time`; an error's stack on the lines after). Only lines a text destination
 * actually writes are converted, so the JSON format costs nothing extra.
 */

/** The flag's values, as AvalancheGo spells them (compared case-insensitively). */
export const LOG_FORMATS = ["auto", "plain", "colors", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What one destination writes: JSON lines, text, or text with the level colored. */
export type LineFormat = "json" | "plain" | "colors";

/** Parses a format name case-insensitively; throws a short reason naming the values. */
export function parseLogFormat(s: string): LogFormat {
  const low = s.toLowerCase();
  if ((LOG_FORMATS as readonly string[]).includes(low)) return low as LogFormat;
  throw new Error(`unknown log format ${JSON.stringify(s)}; expected one of ${LOG_FORMATS.join(", ")}`);
}

/**
 * The format of one destination. `auto` gives text to a terminal (colored unless NO_COLOR is set) and JSON to
 * anything else: a pipe, a file, a log collector. An explicit `plain` or `json` applies to every destination;
 * `colors` colors the terminal only (a file never gets escape codes), as in AvalancheGo.
 */
export function resolveLineFormat(format: LogFormat, isTerminal: boolean, noColor: boolean): LineFormat {
  switch (format) {
    case "json":
      return "json";
    case "plain":
      return "plain";
    case "colors":
      return isTerminal ? "colors" : "plain";
    case "auto":
      return isTerminal ? (noColor ? "plain" : "colors") : "json";
  }
}

// ANSI colors by pino level label; AvalancheGo's levels upper-cased.
const LEVEL_TEXT: Record<string, string> = {
  verbo: "VERBO",
  debug: "DEBUG",
  trace: "TRACE",
  info: "INFO",
  warn: "WARN",
  error: "ERROR",
  fatal: "FATAL",
};
const LEVEL_COLOR: Record<string, string> = {
  verbo: "\x1b[90m",
  debug: "\x1b[90m",
  trace: "\x1b[36m",
  info: "\x1b[32m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
  fatal: "\x1b[1;31m",
};
const RESET = "\x1b[0m";

/** An entry as pino writes it (the registry's options: `level` label, ISO `time`, `name`, `msg`). */
interface Entry {
  level?: unknown;
  time?: unknown;
  name?: unknown;
  msg?: unknown;
  err?: unknown;
  [field: string]: unknown;
}

/**
 * One pino JSON line (ending in a newline) as a text line. A line that is not a JSON object is returned as is
 * (nothing is lost when a caller writes something else to the stream).
 */
export function formatLine(line: string, colors: boolean): string {
  let e: Entry;
  try {
    e = JSON.parse(line) as Entry;
  } catch {
    return line;
  }
  if (e === null || typeof e !== "object" || Array.isArray(e)) return line;
  const {level, time, name, msg, err, ...fields} = e;
  let out = "";
  if (typeof time === "string" && time.length >= 23) out += `[${time.slice(5, 10)}|${time.slice(11, 23)}] `;
  const label = typeof level === "string" ? level : "";
  const text = LEVEL_TEXT[label] ?? label.toUpperCase();
  out += colors && LEVEL_COLOR[label] !== undefined ? LEVEL_COLOR[label] + text + RESET : text;
  if (typeof name === "string") out += ` <${name}>`;
  if (msg !== undefined) out += ` ${typeof msg === "string" ? msg : JSON.stringify(msg)}`;
  let stack: string | null = null;
  if (err !== undefined) {
    if (err !== null && typeof err === "object" && typeof (err as {message?: unknown}).message === "string") {
      const {message, stack: s} = err as {message: string; stack?: unknown};
      fields.err = message;
      if (typeof s === "string") stack = s;
    } else {
      fields.err = err;
    }
  }
  for (const _ in fields) {
    out += ` ${JSON.stringify(fields)}`;
    break;
  }
  if (stack !== null) out += `\n${stack.replace(/^/gm, "    ")}`;
  return out + "\n";
}
