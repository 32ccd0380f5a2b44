/** What a subcommand of the `durable-agent` CLI is. Add one by writing a `Command` and listing it in `index.ts`. */

/** Where a command writes. */
export interface CommandIO {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Text without a line break (answer text as it streams); default: written as a line. */
  write?: (text: string) => void;
}

/** A subcommand: `durable-agent <name> ...args`. */
export interface Command {
  /** One line for `durable-agent --help`. */
  summary: string;
  /** `durable-agent <name> --help`. */
  usage: string;
  /** Runs with the arguments after the subcommand's name; resolves to the exit code. */
  run(args: string[], io: CommandIO): Promise<number>;
}

/** Exit codes of the CLI. */
export const EXIT = {
  ok: 0,
  /** The eval ran and did not pass its gate. */
  failed: 1,
  /** Infrastructure: Temporal unreachable, the model API down, runs that did not complete. */
  infrastructure: 2,
  /** Bad arguments or a module that does not export what the command needs (sysexits' EX_USAGE). */
  usage: 64,
} as const;

/** Bad arguments: the CLI prints the message and the usage, and exits with `EXIT.usage`. */
export class UsageError extends Error {
  override name = "UsageError";
}
