/**
 * `node:util` `parseArgs` for the CLI: the top level's split of the connection options, `--help`
 * and `--version` from the command's arguments, and each command's own strict parse, with
 * `--help` and errors as `UsageError`.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { durationMs } from "../duration.js";
import { UsageError } from "./command.js";
import { CONNECTION_PARSE_OPTIONS, type ConnectionValues } from "./connection-options.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Config<O extends Options> = {
  args: string[];
  options: O & { help: { type: "boolean"; short: "h" } };
  allowPositionals: true;
  strict: true;
};

/** `durable-agent [options] <command> [arguments]`, the top level's options taken out. */
export interface SplitArguments {
  /** The first argument that is not an option; undefined when there is none. */
  command: string | undefined;
  /** The command's arguments, in order, without the top level's options. */
  args: string[];
  /** The connection options, by name (`address`, `tls`, ...), from anywhere before `--`. */
  connection: ConnectionValues;
  /** `--help` or `-h` before the command's name (after it, the command's own). */
  help: boolean;
  /** `--version`, anywhere before `--`. */
  version: boolean;
}

const TOP_LEVEL = {
  ...CONNECTION_PARSE_OPTIONS,
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const satisfies Options;

/**
 * Takes the connection options, `--help` and `--version` out of the arguments: the connection
 * options and `--version` may stand before or after the command's name; the command's own options
 * go after it. A command's option before its name, or a connection option without its value, is a `UsageError`.
 */
export function splitArguments(argv: string[]): SplitArguments {
  const { tokens } = parseArgs({ args: argv, options: TOP_LEVEL, strict: false, allowPositionals: true, tokens: true });
  const split: SplitArguments = { command: undefined, args: [], connection: {}, help: false, version: false };
  const taken = new Set<number>();
  let commandIndex: number | undefined;
  let ended = false; // after `--`, every argument is the command's
  for (const token of tokens) {
    if (token.kind === "option-terminator") {
      ended = true;
      if (commandIndex === undefined) taken.add(token.index);
      continue;
    }
    if (token.kind === "positional") {
      if (commandIndex === undefined) {
        commandIndex = token.index;
        split.command = token.value;
        taken.add(token.index);
      }
      continue;
    }
    if (ended) continue;
    const beforeCommand = commandIndex === undefined;
    if (token.name === "help" && beforeCommand) split.help = true;
    else if (token.name === "version") split.version = true;
    else if (token.name in CONNECTION_PARSE_OPTIONS)
      split.connection[token.name] = optionValue(token.name, token.rawName, token.value, token.inlineValue);
    else if (beforeCommand)
      throw new UsageError(
        `${token.rawName} goes after the command's name: only the connection options, --help and --version go before it.`,
      );
    else continue;
    taken.add(token.index);
    if (token.value !== undefined && !token.inlineValue) taken.add(token.index + 1);
  }
  split.args = argv.filter((_, index) => !taken.has(index));
  return split;
}

/** A connection option's value: a string option needs one, `--tls` takes none. */
function optionValue(
  name: string,
  rawName: string,
  value: string | undefined,
  inline: boolean | undefined,
): string | boolean {
  if (CONNECTION_PARSE_OPTIONS[name]!.type === "boolean") {
    if (value !== undefined) throw new UsageError(`${rawName} takes no value (got "${value}").`);
    return true;
  }
  if (value === undefined || (!inline && value.startsWith("-")))
    throw new UsageError(
      `${rawName} needs a value, e.g. ${rawName} ${name === "address" ? "localhost:7233" : "<value>"} (or ${rawName}=<value>).`,
    );
  return value;
}

/** Parses a command's arguments; an unknown option or a missing value is a `UsageError`. */
export function parseOptions<O extends Options>(args: string[], options: O): ReturnType<typeof parseArgs<Config<O>>> {
  try {
    return parseArgs<Config<O>>({
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A positive integer option, or undefined when absent. */
export function positiveInteger(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(value) || value < 1)
    throw new UsageError(`--${flag} must be a positive integer (got "${text}").`);
  return value;
}

/** A duration option in milliseconds (\`--timeout 10m\`, \`90s\`, \`"1 hour"\`: Temporal's Duration format), or undefined when absent. */
export function duration(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = durationMs(text.trim(), true);
  if (ms === undefined)
    throw new UsageError(`--${flag} must be a positive duration such as 90s, 10m or "1 hour" (got "${text}").`);
  return ms;
}

/** A TCP port option, or undefined when absent. */
export function port(flag: string, text: string | undefined): number | undefined {
  const value = positiveInteger(flag, text);
  if (value !== undefined && value > 65535)
    throw new UsageError(`--${flag} must be a port from 1 to 65535 (got "${text}").`);
  return value;
}
