/**
 * MCP tasks over runs: a task's id is its run's workflow id, so `tasks/get`, `tasks/result`,
 * `tasks/cancel` and `tasks/list` read Temporal alone and work from any connection and after a
 * server restart. Its status is the run's: running ("working", or "input_required" while a call
 * waits for approval), completed, failed, cancelled.
 */
import type { Client, WorkflowExecutionDescription } from "@temporalio/client";
import type { Task } from "@modelcontextprotocol/sdk/types.js";
import type { AgentRunResult } from "../core/paging.js";
import { defined } from "../core/defined.js";
import { pendingApprovalsQuery } from "../workflows/definitions.js";

/** How often a client is asked to poll a task, in milliseconds. */
export const TASK_POLL_MS = 1_000;

/** How long a worker has to say whether a running run's calls wait for approval (a query needs a worker). */
const APPROVALS_DEADLINE_MS = 5_000;
/** A running run's status message when no worker said in time whether its calls wait for approval. */
const NO_WORKER_ANSWERED = "running; no worker said in time whether a call waits for approval";

/** A task of a run: its id, status and times. */
export function taskOf(
  taskId: string,
  status: Task["status"],
  createdAt: Date,
  updatedAt: Date,
  statusMessage?: string,
): Task {
  return {
    taskId,
    status,
    ttl: null,
    createdAt: createdAt.toISOString(),
    lastUpdatedAt: updatedAt.toISOString(),
    pollInterval: TASK_POLL_MS,
    ...defined({ statusMessage }),
  };
}

/**
 * The status of the run a task is, from its description (and, while it runs, its calls waiting for
 * approval: "working" when no worker answers in time, so a busy or absent worker fails no read).
 */
async function statusOf(
  client: Client,
  description: WorkflowExecutionDescription,
): Promise<{ status: Task["status"]; message?: string }> {
  const handle = client.workflow.getHandle(description.workflowId);
  switch (description.status.name) {
    case "RUNNING": {
      const waiting = await client
        .withDeadline(Date.now() + APPROVALS_DEADLINE_MS, () => handle.query(pendingApprovalsQuery))
        .catch(() => undefined);
      if (waiting === undefined) return { status: "working", message: NO_WORKER_ANSWERED };
      if (waiting.length === 0) return { status: "working" };
      const names = waiting.map((w) => `"${w.tool}" (call ${w.callId})`).join(", ");
      return { status: "input_required", message: `waiting for approval of ${names}: tasks/result asks for it` };
    }
    case "COMPLETED": {
      const result = (await handle.result()) as AgentRunResult;
      return result.stopReason === "cancelled" ? { status: "cancelled" } : { status: "completed" };
    }
    case "CANCELLED":
      return { status: "cancelled" };
    default:
      return { status: "failed", message: `the run ${description.status.name.toLowerCase().replace(/_/g, " ")}` };
  }
}

/** The task a run is, by its workflow id; undefined when no such run exists, or it is a sub-agent's (part of a call, not a call). */
export async function readTask(client: Client, workflowId: string): Promise<Task | undefined> {
  let description: WorkflowExecutionDescription;
  try {
    description = await client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if ((error as Error).name === "WorkflowNotFoundError") return undefined;
    throw error;
  }
  if (description.parentExecution) return undefined;
  const { status, message } = await statusOf(client, description);
  return taskOf(workflowId, status, description.startTime, description.closeTime ?? new Date(), message);
}
