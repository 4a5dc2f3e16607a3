/**
 * Named loggers with AvalancheGo's level names, whose levels can be read and changed at run time
 * (admin.getLoggerLevel / admin.setLoggerLevel).
 *
 * Each named logger ("main", "P", "X", "C", ...) has two thresholds, as in AvalancheGo: `logLevel` for its file
 * `<log-dir>/<name>.log` and `displayLevel` for stdout. pino children keep the level they were spawned with, so
 * changing a level must go through this registry rather than a root logger.
 */
import {mkdirSync} from "node:fs";
import path from "node:path";
import {isatty} from "node:tty";
import pino from "pino";
import {formatLine, resolveLineFormat, type LineFormat, type LogFormat} from "./format.js";

export {LOG_FORMATS, parseLogFormat, type LogFormat} from "./format.js";

/** AvalancheGo's levels in ascending severity (utils/logging/level.go). */
export const LOG_LEVELS = ["VERBO", "DEBUG", "TRACE", "INFO", "WARN", "ERROR", "FATAL", "OFF"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** pino level values; TRACE sits between DEBUG and INFO as in AvalancheGo. OFF = never written. */
const LEVEL_VALUES: Record<LogLevel, number> = {
  VERBO: 5,
  DEBUG: 20,
  TRACE: 25,
  INFO: 30,
  WARN: 40,
  ERROR: 50,
  FATAL: 60,
  OFF: Infinity,
};
const CUSTOM_LEVELS = {verbo: 5, debug: 20, trace: 25, info: 30, warn: 40, error: 50, fatal: 60};

/** The logger type every module receives. */
export type Logger = pino.Logger<"verbo">;

/** Parses a level name case-insensitively; throws AvalancheGo's text for an unknown one. */
export function parseLogLevel(s: string): LogLevel {
  const up = s.toUpperCase();
  if ((LOG_LEVELS as readonly string[]).includes(up)) return up as LogLevel;
  throw new Error(`unknown log level: ${JSON.stringify(s)}`);
}

export interface LoggerLevels {
  logLevel: LogLevel;
  displayLevel: LogLevel;
}

export interface LoggerRegistryOptions extends LoggerLevels {
  /** Directory of the per-logger files; null = no files. */
  logDir: string | null;
  /** Where display output goes; default stdout. */
  displayStream?: NodeJS.WritableStream;
  /** `--log-format`; default auto (text on a terminal, JSON elsewhere). */
  format?: LogFormat;
}

/** Minimal writable that pino can hand a line to. */
interface LineSink {
  write(line: string): unknown;
}

/**
 * A pino destination that sends each line to the file and/or the display by that line's level. pino tells a
 * stream marked with `Symbol.for("pino.metadata")` the level of the line it is about to write (as multistream does).
 */
const PINO_METADATA: unique symbol = Symbol.for("pino.metadata") as typeof PINO_METADATA;

class SplitStream {
  readonly [PINO_METADATA] = true;
  lastLevel = 0;
  constructor(
    readonly file: LineSink | null,
    readonly display: LineSink | null,
    public fileLevel: number,
    public displayLevel: number,
    readonly formats: {file: LineFormat; display: LineFormat},
  ) {}
  write(line: string): void {
    const toFile = this.file !== null && this.lastLevel >= this.fileLevel;
    const toDisplay = this.display !== null && this.lastLevel >= this.displayLevel;
    // JSON destinations take pino's line as it is; a text one converts only the lines it writes, once for both.
    let text: string | null = null;
    if (toFile) {
      const f = this.formats.file;
      this.file!.write(f === "json" ? line : (text = formatLine(line, false)));
    }
    if (toDisplay) {
      const f = this.formats.display;
      this.display!.write(
        f === "json" ? line : f === "plain" ? (text ?? formatLine(line, false)) : formatLine(line, true),
      );
    }
  }
}

interface Entry {
  logger: Logger;
  stream: SplitStream;
  levels: LoggerLevels;
  file: ReturnType<typeof pino.destination> | null;
  fileFailed?: boolean;
}

/** How long close() waits for log files to close. */
const FILE_CLOSE_TIMEOUT_MS = 2000;

export class LoggerRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly display: LineSink;
  private readonly ownDisplay: ReturnType<typeof pino.destination> | null;
  private readonly formats: {file: LineFormat; display: LineFormat};

  constructor(private readonly opts: LoggerRegistryOptions) {
    if (opts.logDir !== null) mkdirSync(opts.logDir, {recursive: true});
    let terminal: boolean;
    if (opts.displayStream) {
      this.display = opts.displayStream;
      this.ownDisplay = null;
      terminal = (opts.displayStream as {isTTY?: boolean}).isTTY === true;
    } else {
      this.ownDisplay = pino.destination({dest: 1, sync: false});
      this.display = this.ownDisplay;
      terminal = isatty(1);
    }
    const format = opts.format ?? "auto";
    const noColor = (process.env.NO_COLOR ?? "") !== "";
    this.formats = {
      file: resolveLineFormat(format, false, noColor),
      display: resolveLineFormat(format, terminal, noColor),
    };
  }

  /** What the files and the display are written in, `--log-format` resolved. */
  lineFormats(): {file: LineFormat; display: LineFormat} {
    return {...this.formats};
  }

  /** The named logger, created on first use with the registry's default levels. */
  get(name: string): Logger {
    let entry = this.entries.get(name);
    if (!entry) {
      const levels = {logLevel: this.opts.logLevel, displayLevel: this.opts.displayLevel};
      const file =
        this.opts.logDir !== null
          ? pino.destination({dest: path.join(this.opts.logDir, `${name}.log`), sync: false, mkdir: true})
          : null;
      // A log file that fails (directory removed, disk full) must not take the process down: say so once on stderr.
      file?.on("error", (err: NodeJS.ErrnoException) => {
        if (!entry?.fileFailed) process.stderr.write(`log file ${name}.log failed: ${err.code ?? err.message}\n`);
        if (entry) entry.fileFailed = true;
      });
      const stream = new SplitStream(
        file,
        this.display,
        LEVEL_VALUES[levels.logLevel],
        LEVEL_VALUES[levels.displayLevel],
        this.formats,
      );
      const logger = pino(
        {
          name,
          customLevels: CUSTOM_LEVELS,
          useOnlyCustomLevels: true,
          level: pinoLevel(levels),
          base: undefined,
          timestamp: pino.stdTimeFunctions.isoTime,
          formatters: {level: (label) => ({level: label})},
        },
        stream,
      ) as Logger;
      entry = {logger, stream, levels, file};
      this.entries.set(name, entry);
    }
    return entry.logger;
  }

  /** Names of the loggers in creation order. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  /** Levels of one logger, or of all when name is empty/undefined. Throws AvalancheGo's not-found text. */
  getLevels(name?: string): Record<string, LoggerLevels> {
    const out: Record<string, LoggerLevels> = {};
    for (const n of this.select(name)) out[n] = {...this.entries.get(n)!.levels};
    return out;
  }

  /** Changes levels of one logger, or of all when name is empty/undefined; returns the affected loggers' levels. */
  setLevels(name: string | undefined, change: Partial<LoggerLevels>): Record<string, LoggerLevels> {
    if (change.logLevel === undefined && change.displayLevel === undefined) {
      throw new Error("need to specify either displayLevel or logLevel");
    }
    const names = this.select(name);
    for (const n of names) {
      const e = this.entries.get(n)!;
      if (change.logLevel !== undefined) e.levels.logLevel = change.logLevel;
      if (change.displayLevel !== undefined) e.levels.displayLevel = change.displayLevel;
      e.stream.fileLevel = LEVEL_VALUES[e.levels.logLevel];
      e.stream.displayLevel = LEVEL_VALUES[e.levels.displayLevel];
      e.logger.level = pinoLevel(e.levels);
    }
    return this.getLevels(name);
  }

  /**
   * Flushes and closes every file; further logging goes nowhere. Resolves once the files are closed, so a caller
   * may remove the log directory afterwards (a file still being opened would otherwise fail later, unhandled).
   */
  async close(): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const e of this.entries.values()) {
      e.logger.level = "silent";
      if (e.file) {
        const file = e.file;
        closing.push(
          new Promise<void>((resolve) => {
            file.once("close", () => resolve());
            file.once("error", () => resolve());
          }),
        );
        try {
          file.flushSync();
        } catch {
          // a file that is not open yet cannot be flushed; end() waits for it to open
        }
        file.end();
      }
    }
    try {
      this.ownDisplay?.flushSync();
    } catch {
      // stdout not ready yet: nothing buffered
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, FILE_CLOSE_TIMEOUT_MS)));
    await Promise.race([Promise.all(closing), timeout]);
    clearTimeout(timer);
  }

  private select(name: string | undefined): string[] {
    if (name === undefined || name === "") return this.names();
    if (!this.entries.has(name)) throw new Error(`logger with name ${JSON.stringify(name)} not found`);
    return [name];
  }
}

/** The pino level is the lower of the two thresholds, so pino skips work that neither sink wants. */
function pinoLevel(l: LoggerLevels): string {
  const v = Math.min(LEVEL_VALUES[l.logLevel], LEVEL_VALUES[l.displayLevel]);
  if (v === Infinity) return "silent";
  return Object.entries(CUSTOM_LEVELS).find(([, n]) => n === v)![0];
}
