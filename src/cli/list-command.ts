/** `durable-agent list`: recent runs, from Temporal's visibility store. */
import type { WorkflowExecutionInfo } from "@temporalio/client";
import { WORKFLOW_NAME } from "../core/constants.js";
import { SEARCH_ATTRIBUTES } from "../core/search-attributes.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { parseOptions, positiveInteger } from "./parse-options.js";
import { textTable } from "./text-table.js";

const STATUSES = {
  running: "Running",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Canceled",
  terminated: "Terminated",
  "timed-out": "TimedOut",
  "continued-as-new": "ContinuedAsNew",
} as const;

const USAGE = `Usage: durable-agent list [options]

Lists recent runs (newest first) from Temporal's visibility store: workflow id, status, start
time, and the agent, stop reason and trips from durable-agent's search attributes (set by workers
created with \`searchAttributes: true\`).

Options:
  --agent <name>       only this agent's runs (the DurableAgentName search attribute)
  --status <status>    only runs in this state: ${Object.keys(STATUSES).join(", ")}
  --query <query>      a visibility query of your own instead, e.g. "DurableAgentTrips > 3"
  --limit <n>          at most n runs (default 20)
  --json               a JSON object per line instead of a table
  -h, --help           show this help

Exit codes: 0 listed (even none); 2 Temporal unreachable; 64 bad arguments, or a query the server rejects.`;

/** gRPC's status for a query the server cannot parse (or a search attribute it does not know). */
const INVALID_ARGUMENT = 3;

const quoted = (value: string) => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/** The visibility query for the options. */
export function listQuery(options: { agent?: string; status?: string; query?: string }): string {
  if (options.query !== undefined) {
    if (options.agent !== undefined || options.status !== undefined)
      throw new UsageError("--query replaces --agent and --status: add those conditions to the query instead.");
    return options.query;
  }
  const conditions = [`WorkflowType = ${quoted(WORKFLOW_NAME)}`];
  if (options.agent !== undefined) conditions.push(`${SEARCH_ATTRIBUTES.agent.name} = ${quoted(options.agent)}`);
  if (options.status !== undefined) {
    const status = STATUSES[options.status as keyof typeof STATUSES];
    if (!status)
      throw new UsageError(`--status must be one of ${Object.keys(STATUSES).join(", ")} (got "${options.status}").`);
    conditions.push(`ExecutionStatus = ${quoted(status)}`);
  }
  return conditions.join(" AND ");
}

interface Row {
  workflowId: string;
  status: string;
  startTime: string;
  agent: string | undefined;
  stopReason: string | undefined;
  trips: number | undefined;
  /** agent.version of the definition serving the run (DurableAgentVersion). */
  agentVersion: string | undefined;
}

function rowOf(info: WorkflowExecutionInfo): Row {
  const attributes = info.typedSearchAttributes;
  return {
    workflowId: info.workflowId,
    status: info.status.name,
    startTime: info.startTime.toISOString(),
    agent: attributes.get(SEARCH_ATTRIBUTES.agent),
    stopReason: attributes.get(SEARCH_ATTRIBUTES.stopReason),
    trips: attributes.get(SEARCH_ATTRIBUTES.trips),
    agentVersion: attributes.get(SEARCH_ATTRIBUTES.version),
  };
}

function table(rows: Row[]): string[] {
  const header = ["WORKFLOW ID", "STATUS", "STARTED", "AGENT", "STOP REASON", "TRIPS"];
  const cells = rows.map((row) => [
    row.workflowId,
    row.status,
    row.startTime,
    row.agent ?? "-",
    row.stopReason ?? "-",
    row.trips === undefined ? "-" : String(row.trips),
  ]);
  return textTable(header, cells);
}

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    agent: { type: "string" },
    status: { type: "string" },
    query: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length > 0)
    throw new UsageError(
      `list takes no arguments (got ${positionals.join(" ")}); filter with --agent, --status or --query.`,
    );
  const limit = positiveInteger("limit", values.limit) ?? 20;
  const query = listQuery(values);
  const client = await connection.client();
  const rows: Row[] = [];
  try {
    for await (const info of client.workflow.list({ query, pageSize: Math.min(limit, 100) })) {
      rows.push(rowOf(info));
      if (rows.length >= limit) break;
    }
  } catch (error) {
    const invalid =
      (error as { code?: number; cause?: { code?: number } }).cause?.code === INVALID_ARGUMENT ||
      (error as { code?: number }).code === INVALID_ARGUMENT;
    if (!invalid) throw error;
    io.stderr(`The server rejected the visibility query ${JSON.stringify(query)}: ${(error as Error).message}`);
    return EXIT.usage;
  }
  if (values.json) for (const row of rows) io.stdout(JSON.stringify(row));
  else if (rows.length === 0) io.stdout(`No runs match ${query}.`);
  else for (const line of table(rows)) io.stdout(line);
  return EXIT.ok;
}

/** `durable-agent list`. */
export const listCommand: Command = {
  summary: "list recent runs from visibility (by agent, status or query)",
  usage: USAGE,
  run,
};
