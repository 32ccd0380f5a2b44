/** Prints a run's events as they happen, then its trace: what `durable-agent run` and `fork` show. */
import type { RunHandle } from "../client/run-handle.js";
import type { RunResult } from "../core/types.js";
import { DurableAgentError } from "../errors.js";
import { EXIT, type CommandIO } from "./command.js";
import { formatTrace, RunEventRenderer } from "./format-run.js";

/** Follows the run live to its end and prints its trace; `what` names it in a failure ("run", "fork"). Returns the exit code. */
export async function followRun(handle: RunHandle, io: CommandIO, what: string): Promise<number> {
  const renderer = new RunEventRenderer({ line: io.stdout, write: io.write ?? io.stdout });
  let result: RunResult | undefined;
  try {
    for await (const event of handle.stream()) {
      renderer.render(event);
      if (event.type === "run.finished") result = event.result;
    }
  } catch (error) {
    renderer.endLine();
    io.stderr(
      `The ${what} failed: ${DurableAgentError.isInstance(error) ? `${error.name}: ${error.message}` : (error as Error).message}`,
    );
    return EXIT.failed;
  }
  result ??= await handle.result();
  io.stdout("");
  io.stdout("Trace:");
  for (const line of formatTrace(result.trace)) io.stdout(`  ${line}`);
  return EXIT.ok;
}
