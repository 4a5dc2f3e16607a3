/**
 * The command line: commander parses the flags of ./flags.ts; the layering of flag > env > file > default is
 * ours (./config.ts). Bad input prints one line naming the flag and exits 2; a fatal refusal at start-up exits 1;
 * SIGINT/SIGTERM shut down gracefully and exit 0.
 */
import {Command, CommanderError, Option} from "commander";
import {AvaextNode} from "../node.js";
import {packageInfo} from "../util/packageInfo.js";
import {ConfigError, resolveConfig} from "./config.js";
import {FLAGS, envName, type AvaextConfig} from "./flags.js";
import {tuneV8, type V8Tuning} from "./v8.js";
import {rebuildFromConfig} from "./rebuildDataApi.js";

export const EXIT_BAD_INPUT = 2;
export const EXIT_FATAL = 1;

export function buildProgram(): Command {
  const program = new Command("avaext")
    .description("AvalancheGo-compatible admin, health, index and metrics APIs beside an Avalanche node")
    .version(packageInfo().version, "--version")
    .helpOption("-h, --help", "show this help")
    .allowExcessArguments(false)
    .showSuggestionAfterError(true)
    .addHelpText(
      "after",
      `\nEvery flag can also be set as an environment variable, e.g. ${envName("api-admin-enabled")}=true.`,
    );
  for (const f of FLAGS) {
    const spec = f.kind === "bool" ? `--${f.name} [bool]` : `--${f.name} <value>`;
    program.addOption(new Option(spec, `${f.description} (default: ${f.defaultText})`));
  }
  return program;
}

/** Parses argv into the effective configuration; throws ConfigError or CommanderError. */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv): AvaextConfig {
  const program = buildProgram().exitOverride();
  program.configureOutput({writeErr: () => {}, writeOut: (s) => process.stdout.write(s)});
  program.parse(argv, {from: "user"});
  const opts = program.opts<Record<string, unknown>>();
  const cli: Record<string, unknown> = {};
  for (const f of FLAGS) {
    const key = camel(f.name);
    if (opts[key] !== undefined) cli[f.name] = opts[key];
  }
  return resolveConfig({cli, env});
}

/** Runs the process: parse, build, start, wait for a signal. Returns only on errors (via process.exit). */
export async function run(argv: string[]): Promise<void> {
  if (argv[0] === "data-api") return runDataApiCommand(argv.slice(1));
  const config = configOrExit(argv);

  tuneV8(v8Tuning(config));
  let node: AvaextNode;
  try {
    node = await AvaextNode.create(config);
  } catch (e) {
    process.stderr.write(`avaext: ${(e as Error).message}\n`);
    process.exit(e instanceof ConfigError ? EXIT_BAD_INPUT : EXIT_FATAL);
  }
  try {
    await node.start();
  } catch (e) {
    // Closed before exiting (e.g. the port is taken): the database is released and the log files are open and
    // flushed, so the exit prints one line rather than a logger's "not ready" stack.
    process.stderr.write(`avaext: ${(e as Error).message}\n`);
    await node.close().catch(() => {});
    process.exit(EXIT_FATAL);
  }

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    node.logger.info({signal}, "received signal");
    node.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`avaext: error during shutdown: ${(err as Error).message}\n`);
        process.exit(EXIT_FATAL);
      },
    );
  };
  // A part that failed for good (the data API's store lost): closed as on a signal, then exit non-zero.
  node.onFatal((err) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`avaext: ${err.message}\n`);
    node.close().then(
      () => process.exit(EXIT_FATAL),
      () => process.exit(EXIT_FATAL),
    );
  });
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

/** Parses the flags, exiting 2 with one line naming the problem. */
function configOrExit(argv: string[]): AvaextConfig {
  try {
    return parseArgs(argv, process.env);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.exitCode === 0) process.exit(0);
      process.stderr.write(`avaext: ${e.message.replace(/^error: /, "").replace(/\s*\n\s*/g, " ")} (see --help)\n`);
      process.exit(EXIT_BAD_INPUT);
    }
    if (e instanceof ConfigError) {
      process.stderr.write(`avaext: ${e.message}\n`);
      process.exit(EXIT_BAD_INPUT);
    }
    throw e;
  }
}

/** `avaext data-api rebuild [flags]`: drops the data API's store and folds it again from the container index. */
async function runDataApiCommand(argv: string[]): Promise<void> {
  const sub = argv[0];
  if (sub !== "rebuild") {
    process.stderr.write(`avaext: unknown data-api command ${JSON.stringify(sub ?? "")} (known: rebuild)\n`);
    process.exit(EXIT_BAD_INPUT);
  }
  const config = configOrExit(argv.slice(1));
  tuneV8(v8Tuning(config));
  try {
    const r = await rebuildFromConfig(config);
    process.stdout.write(`data API rebuilt: ${r.containers} containers folded in ${r.seconds.toFixed(1)} s\n`);
    process.exit(0);
  } catch (e) {
    process.stderr.write(`avaext: data-api rebuild: ${(e as Error).message}\n`);
    process.exit(EXIT_FATAL);
  }
}

/** The V8 settings the flags ask for (tuneV8 applies them). */
export function v8Tuning(config: AvaextConfig): V8Tuning {
  return {pretenuring: config["v8-pretenuring"], heapGrowingPercent: config["v8-heap-growing-percent"]};
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
}
