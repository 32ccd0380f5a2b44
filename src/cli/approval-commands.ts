/**
 * `durable-agent approve <workflowId> <callId>` and `durable-agent reject <workflowId> <callId>`:
 * decide a tool call that waits for approval, through the run handle's `approve` and `reject`.
 */
import { WorkflowNotFoundError } from "@temporalio/client";
import { getRun, type RunHandle } from "../client/run-handle.js";
import { DurableAgentError } from "../errors.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { noSuchRun } from "./no-such-run.js";
import { parseOptions } from "./parse-options.js";
import { defined } from "../core/defined.js";

const EXIT_CODES = `Exit codes: 0 recorded; 1 no such run, or the run refused the decision (no such call waits, it no
longer waits, or the worker's canDecide refused the approver: the error is printed); 2 Temporal
unreachable; 64 bad arguments.`;

const APPROVE_USAGE = `Usage: durable-agent approve <workflowId> <callId> [options]

Approves a tool call that waits for approval (a tool with needsApproval), in the run or in one of
its sub-agents' runs; the call then runs. \`run\` prints each call's id (→ tool update_plan (call_1)),
and \`trace\` the calls that wait.

Options:
  --by <name>     who approves: recorded with the decision, and what the worker's canDecide is asked
  --note <text>   a note recorded with the approval
  -h, --help      show this help

${EXIT_CODES}`;

const REJECT_USAGE = `Usage: durable-agent reject <workflowId> <callId> [options]

Rejects a tool call that waits for approval: the call does not run, and the model is told it was
refused, with the reason.

Options:
  --reason <text>   why: it reaches the model as the call's refusal (default "no reason given")
  --by <name>       who rejects
  -h, --help        show this help

${EXIT_CODES}`;

/** The run and the call the command names, from its two arguments. */
function target(what: "approve" | "reject", positionals: string[]): [string, string] {
  if (positionals.length !== 2)
    throw new UsageError(
      `Name the run and the call: durable-agent ${what} <workflowId> <callId> (got ${positionals.length} argument(s)).`,
    );
  return positionals as [string, string];
}

/** Sends the decision; a refusal or a missing run is printed and exits 1. */
async function decide(
  workflowId: string,
  connection: CliConnection,
  io: CommandIO,
  send: (handle: RunHandle) => Promise<void>,
): Promise<number> {
  const handle = await getRun(workflowId, { client: await connection.client() });
  try {
    await send(handle);
    return EXIT.ok;
  } catch (error) {
    if (DurableAgentError.isInstance(error))
      io.stderr(`${error.name}: ${error.message}`); // ApprovalError and its kin: the run refused the decision
    else if (error instanceof WorkflowNotFoundError) io.stderr(noSuchRun(workflowId, connection));
    else throw error;
    return EXIT.failed;
  }
}

/** `durable-agent approve`. */
export const approveCommand: Command = {
  summary: "approve a tool call that waits for approval",
  usage: APPROVE_USAGE,
  async run(argv, io, connection) {
    const { values, positionals } = parseOptions(argv, { by: { type: "string" }, note: { type: "string" } });
    if (values.help) return (io.stdout(APPROVE_USAGE), EXIT.ok);
    const [workflowId, callId] = target("approve", positionals);
    const code = await decide(workflowId, connection, io, (handle) =>
      handle.approve(callId, { ...defined({ by: values.by, note: values.note }) }),
    );
    if (code === EXIT.ok)
      io.stdout(
        `Approved tool call ${callId} of run ${workflowId}${values.by !== undefined ? ` (by ${values.by})` : ""}.`,
      );
    return code;
  },
};

/** `durable-agent reject`. */
export const rejectCommand: Command = {
  summary: "reject a tool call that waits for approval (the model is told why)",
  usage: REJECT_USAGE,
  async run(argv, io, connection) {
    const { values, positionals } = parseOptions(argv, { by: { type: "string" }, reason: { type: "string" } });
    if (values.help) return (io.stdout(REJECT_USAGE), EXIT.ok);
    const [workflowId, callId] = target("reject", positionals);
    const reason = values.reason ?? "no reason given";
    if (reason.trim() === "") throw new UsageError("--reason is empty: say why, or leave it out.");
    const code = await decide(workflowId, connection, io, (handle) =>
      handle.reject(callId, { reason, ...defined({ by: values.by }) }),
    );
    if (code === EXIT.ok)
      io.stdout(
        `Rejected tool call ${callId} of run ${workflowId}${values.by !== undefined ? ` (by ${values.by})` : ""}: ${reason}`,
      );
    return code;
  },
};
