/** `durable-agent trace <workflowId>`: a run's status and trace, live or finished. */
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import { getRun } from "../client/run-handle.js";
import type { RunResult, TraceEvent } from "../core/types.js";
import { DurableAgentError } from "../errors.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { formatOutcome, formatTrace } from "./format-run.js";
import { noSuchRun } from "./no-such-run.js";
import { parseOptions } from "./parse-options.js";

const USAGE = `Usage: durable-agent trace <workflowId> [options]

Prints a run's status and its trace: what the model answered on each trip, the tool calls and
their statuses, the re-prompts and backstops. A finished run's trace comes from its result; a
live run's from the \`trace\` query (answered by a worker). A call that waits for approval shows
as "approval <tool> (<callId>): requested", the call id \`durable-agent approve\` takes.

Options:
  --json       print the trace as a JSON array instead
  -h, --help   show this help

Exit codes: 0 printed; 1 no such run, or its trace cannot be read; 2 Temporal unreachable; 64 bad arguments.`;

/** How long to wait for a worker to answer the trace query of a run that did not complete. */
const QUERY_DEADLINE_MS = 10_000;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, { json: { type: "boolean" } });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? "Name the run: durable-agent trace <workflowId> (`durable-agent list` shows recent runs)."
        : `Expected one workflow id, got ${positionals.length}.`,
    );
  const workflowId = positionals[0]!;
  const client = await connection.client();
  const handle = await getRun(workflowId, { client });
  let status: string;
  let summary: string | undefined;
  try {
    const description = await handle.workflow.describe();
    status = description.status.name;
    summary = await description.staticSummary().catch(() => undefined);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    io.stderr(noSuchRun(workflowId, connection));
    return EXIT.failed;
  }
  let trace: TraceEvent[];
  let outcome: string;
  try {
    ({ trace, outcome } = await readTrace(client, workflowId, status));
  } catch (error) {
    io.stderr(
      `Run ${workflowId}: ${DurableAgentError.isInstance(error) ? `${error.name}: ${error.message}` : (error as Error).message}`,
    );
    return EXIT.failed;
  }
  if (values.json) {
    io.stdout(JSON.stringify(trace, null, 2));
    return EXIT.ok;
  }
  io.stdout(`Run ${workflowId}${summary ? ` (${summary})` : ""}: ${outcome}`);
  io.stdout("Trace:");
  for (const line of formatTrace(trace)) io.stdout(`  ${line}`);
  return EXIT.ok;
}

async function readTrace(
  client: Client,
  workflowId: string,
  status: string,
): Promise<{ trace: TraceEvent[]; outcome: string }> {
  const handle = await getRun(workflowId, { client });
  if (status === "COMPLETED") {
    const result: RunResult = await handle.result();
    return { trace: result.trace, outcome: formatOutcome(result) };
  }
  // Running, or ended without a result: the query (a worker answers it, replaying a closed run).
  const failure =
    status === "RUNNING"
      ? ""
      : await handle.result().then(
          () => "",
          (error: Error) => `: ${error.message}`,
        );
  try {
    const trace = await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.trace());
    return { trace, outcome: `${status.toLowerCase()}${failure}` };
  } catch (error) {
    throw new Error(
      `${status.toLowerCase()}${failure}; the trace query got no answer (${(error as Error).message}): a worker serving the agent answers it`,
      { cause: error },
    );
  }
}

/** `durable-agent trace`. */
export const traceCommand: Command = {
  summary: "print a run's status and trace (live or finished)",
  usage: USAGE,
  run,
};
