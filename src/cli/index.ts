/**
 * The `durable-agent` CLI: `durable-agent <command> [options]`. Commands are listed in
 * `COMMANDS`; each parses its own options with `node:util` `parseArgs`.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { TemporalConnectionError, TlsConfigError } from "../errors.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import { codecServerCommand } from "../codec/main.js";
import { deploymentCommand } from "./deployment-command.js";
import { datasetCommand } from "./dataset-command.js";
import { devCommand } from "./dev-command.js";
import { forkCommand } from "./fork-command.js";
import { evalCommand } from "./eval-command.js";
import { listCommand } from "./list-command.js";
import { runCommand } from "./run-command.js";
import { traceCommand } from "./trace-command.js";
import { workerCommand } from "./worker-command.js";

/** The subcommands, by name. */
export const COMMANDS: Record<string, Command> = {
  dev: devCommand,
  worker: workerCommand,
  run: runCommand,
  trace: traceCommand,
  list: listCommand,
  eval: evalCommand,
  dataset: datasetCommand,
  fork: forkCommand,
  "codec-server": codecServerCommand,
  deployment: deploymentCommand,
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "Usage: durable-agent <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    "",
    "Run `durable-agent <command> --help` for a command's options.",
  ].join("\n");
}

/** Runs the CLI with the arguments after the executable; resolves to the exit code. */
export async function main(argv: string[], io: CommandIO = { stdout: (line) => console.log(line), stderr: (line) => console.error(line), write: (text) => process.stdout.write(text) }): Promise<number> {
  const { tokens } = parseArgs({ args: argv, allowPositionals: true, strict: false, tokens: true });
  const first = tokens.find((token) => token.kind === "positional");
  const leading = tokens.filter((token) => token.kind === "option" && (!first || token.index < first.index));
  if (!first) {
    const asked = leading.some((token) => token.kind === "option" && (token.name === "help" || token.name === "h"));
    (asked ? io.stdout : io.stderr)(help());
    return asked ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[first.value];
  if (!command || leading.length > 0) {
    io.stderr(`${command ? `Options go after the command name` : `Unknown command "${first.value}"`}.\n\n${help()}`);
    return EXIT.usage;
  }
  try {
    return await command.run(argv.slice(first.index + 1), io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    if (TemporalConnectionError.isInstance(error) || TlsConfigError.isInstance(error)) {
      io.stderr(error.message);
      return EXIT.infrastructure;
    }
    throw error;
  }
}

function isEntryPoint(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(EXIT.infrastructure);
    },
  );
}
