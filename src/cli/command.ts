/** What a subcommand of the `durable-agent` CLI is. Add one by writing a `Command` and listing it in `index.ts`. */
import type { CliConnection } from "./connection-options.js";
import { namedErrorGuard } from "../core/error-guard.js";

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
  /**
   * Runs with the arguments after the subcommand's name (the connection options taken out);
   * resolves to the exit code. `connection` reaches Temporal as those options and the environment say.
   */
  run(args: string[], io: CommandIO, connection: CliConnection): Promise<number>;
  /** Why the connection options do not apply, for a command that connects to no Temporal server of the user's; giving one is then a usage error. */
  noConnection?: string;
}

/** Exit codes of the CLI; docs/cli.md has the same table (a test compares them). */
export const EXIT = {
  /** Done: the run ended (any stop reason), the eval passed, the decision was recorded. */
  ok: 0,
  /**
   * What was asked did not succeed: the run or fork failed, the eval did not pass its gate, no
   * such run, or an approval, rejection or cancellation the run refused (the typed error is printed).
   */
  failed: 1,
  /**
   * Infrastructure: Temporal unreachable or its TLS settings unusable, a namespace without the
   * search attributes a worker sets, the model API down, runs that did not complete.
   */
  infrastructure: 2,
  /** Bad arguments or a module that does not export what the command needs (sysexits' EX_USAGE). */
  usage: 64,
} as const;

/** Bad arguments: the CLI prints the message and the usage, and exits with `EXIT.usage`. */
export class UsageError extends Error {
  override name = "UsageError";
  /** True for a `UsageError`, by its literal name (kept by minifiers). */
  static isInstance = namedErrorGuard<UsageError>("UsageError");
}
