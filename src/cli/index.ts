/**
 * The `durable-agent` CLI: `durable-agent [connection options] <command> [options]`. Commands are
 * listed in `COMMANDS`; each parses its own options with `node:util` `parseArgs`. The connection
 * options, `--help` and `--version` are taken out first (`splitArguments`), wherever they stand.
 */
import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SearchAttributesNotRegisteredError, TemporalConnectionError, TlsConfigError } from "../errors.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import { codecServerCommand } from "./codec-server-command.js";
import { approveCommand, rejectCommand } from "./approval-commands.js";
import { cancelCommand } from "./cancel-command.js";
import { CliConnection, connectionHelp, connectionProblem } from "./connection-options.js";
import { deploymentCommand } from "./deployment-command.js";
import { datasetCommand } from "./dataset-command.js";
import { devCommand } from "./dev-command.js";
import { forkCommand } from "./fork-command.js";
import { evalCommand } from "./eval-command.js";
import { listCommand } from "./list-command.js";
import { memoryCommand } from "./memory-command.js";
import { splitArguments } from "./parse-options.js";
import { runCommand } from "./run-command.js";
import { scheduleCommand } from "./schedule-command.js";
import { studioCommand } from "./studio-command.js";
import { traceCommand } from "./trace-command.js";
import { workerCommand } from "./worker-command.js";

/** The subcommands, by name. */
export const COMMANDS: Record<string, Command> = {
  dev: devCommand,
  worker: workerCommand,
  run: runCommand,
  trace: traceCommand,
  list: listCommand,
  approve: approveCommand,
  reject: rejectCommand,
  cancel: cancelCommand,
  eval: evalCommand,
  dataset: datasetCommand,
  fork: forkCommand,
  "codec-server": codecServerCommand,
  deployment: deploymentCommand,
  studio: studioCommand,
  schedule: scheduleCommand,
  memory: memoryCommand,
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "Usage: durable-agent [connection options] <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    "",
    "Connection options (before or after the command; each wins over its environment variable):",
    ...connectionHelp(),
    "",
    "  -h, --help     this help; `durable-agent <command> --help` for a command's options",
    "  --version      the version of durable-agent",
    "",
    "Exit codes: 0 done; 1 what was asked did not succeed (a failed run, an eval below its gate, no such",
    "run, a decision the run refused); 2 Temporal or the model API unreachable; 64 bad arguments.",
  ].join("\n");
}

/** The version in the package's package.json (two folders up from src/cli and from dist/cli). */
function packageVersion(): string {
  const file = fileURLToPath(new URL("../../package.json", import.meta.url));
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

const CONSOLE: CommandIO = {
  stdout: (line) => console.log(line),
  stderr: (line) => console.error(line),
  write: (text) => process.stdout.write(text),
};

/** Runs the CLI with the arguments after the executable; resolves to the exit code. */
export async function main(argv: string[], io: CommandIO = CONSOLE): Promise<number> {
  let split;
  try {
    split = splitArguments(argv);
  } catch (error) {
    if (!UsageError.isInstance(error)) throw error;
    io.stderr(`${error.message}\n\n${help()}`);
    return EXIT.usage;
  }
  if (split.version) return (io.stdout(packageVersion()), EXIT.ok);
  if (split.command === undefined) {
    (split.help ? io.stdout : io.stderr)(help());
    return split.help ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[split.command];
  if (!command) {
    io.stderr(`Unknown command "${split.command}".\n\n${help()}`);
    return EXIT.usage;
  }
  if (split.help) split.args.unshift("--help");
  const connection = new CliConnection(split.connection);
  try {
    const given = connection.given;
    if (command.noConnection && given.length > 0)
      throw new UsageError(
        `${given.join(", ")} ${given.length > 1 ? "do" : "does"} not apply: ${command.noConnection}.`,
      );
    return await command.run(split.args, io, connection);
  } catch (error) {
    if (UsageError.isInstance(error)) {
      io.stderr(`${error.message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    if (TemporalConnectionError.isInstance(error) || TlsConfigError.isInstance(error)) {
      io.stderr(connectionProblem(error));
      return EXIT.infrastructure;
    }
    if (SearchAttributesNotRegisteredError.isInstance(error)) {
      io.stderr(error.message); // the commands that register them
      return EXIT.infrastructure;
    }
    throw error;
  } finally {
    await connection.close();
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
