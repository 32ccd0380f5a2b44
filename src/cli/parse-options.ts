/** `node:util` `parseArgs` for the CLI's commands: strict, with `--help`, and errors as `UsageError`. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./command.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Config<O extends Options> = { args: string[]; options: O & { help: { type: "boolean"; short: "h" } }; allowPositionals: true; strict: true };

/** Parses a command's arguments; an unknown option or a missing value is a `UsageError`. */
export function parseOptions<O extends Options>(args: string[], options: O): ReturnType<typeof parseArgs<Config<O>>> {
  try {
    return parseArgs<Config<O>>({ args, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A positive integer option, or undefined when absent. */
export function positiveInteger(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(value) || value < 1) throw new UsageError(`--${flag} must be a positive integer (got "${text}").`);
  return value;
}

/** A TCP port option, or undefined when absent. */
export function port(flag: string, text: string | undefined): number | undefined {
  const value = positiveInteger(flag, text);
  if (value !== undefined && value > 65535) throw new UsageError(`--${flag} must be a port from 1 to 65535 (got "${text}").`);
  return value;
}
