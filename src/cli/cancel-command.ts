/** `durable-agent cancel <workflowId>`: cancels a run through its handle's `cancel`. */
import { WorkflowNotFoundError } from "@temporalio/client";
import { getRun } from "../client/run-handle.js";
import { EXIT, UsageError, type Command } from "./command.js";
import { noSuchRun } from "./no-such-run.js";
import { parseOptions } from "./parse-options.js";

const USAGE = `Usage: durable-agent cancel <workflowId> [options]

Cancels a run: its in-flight model and tool calls are cancelled (tools see ctx.signal abort), and
the run ends with stopReason "cancelled" and a trace entry saying where. \`durable-agent trace
<workflowId>\` shows it.

Options:
  -h, --help   show this help

Exit codes: 0 cancellation requested; 1 no such run, or it has already ended; 2 Temporal
unreachable; 64 bad arguments.`;

/** `durable-agent cancel`. */
export const cancelCommand: Command = {
  summary: 'cancel a run (it ends with stopReason "cancelled")',
  usage: USAGE,
  async run(argv, io, connection) {
    const { values, positionals } = parseOptions(argv, {});
    if (values.help) return (io.stdout(USAGE), EXIT.ok);
    if (positionals.length !== 1)
      throw new UsageError(`Name the run: durable-agent cancel <workflowId> (got ${positionals.length} argument(s)).`);
    const workflowId = positionals[0]!;
    const handle = await getRun(workflowId, { client: await connection.client() });
    let status: string;
    try {
      status = (await handle.workflow.describe()).status.name;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      io.stderr(noSuchRun(workflowId, connection));
      return EXIT.failed;
    }
    if (status !== "RUNNING") {
      io.stderr(`Run ${workflowId} has already ended (${status.toLowerCase()}): there is nothing to cancel.`);
      return EXIT.failed;
    }
    try {
      await handle.cancel();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error; // it ended since
      io.stderr(`Run ${workflowId} has already ended: there is nothing to cancel.`);
      return EXIT.failed;
    }
    io.stdout(`Cancellation of run ${workflowId} requested: it ends with stopReason "cancelled".`);
    return EXIT.ok;
  },
};
