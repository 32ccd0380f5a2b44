/** A run's trace with the traces of its sub-agents' runs nested under the calls that started them, live ones included. */
import type { Client } from "@temporalio/client";
import type { TraceEvent } from "../core/types.js";
import { traceQuery } from "../workflows/definitions.js";

/**
 * The run's trace (a query). A finished sub-agent call's `subagent.finished` entry carries the
 * child's trace already; for a child still running, its `subagent.started` entry gets the child's
 * trace so far, read from the child the same way (so grandchildren nest too).
 */
export async function nestedTrace(client: Client, workflowId: string): Promise<TraceEvent[]> {
  const trace = await client.workflow.getHandle(workflowId).query(traceQuery);
  const finished = new Set(
    trace.filter((e) => e.type === "subagent.finished").map((e) => (e as { workflowId: string }).workflowId),
  );
  return Promise.all(
    trace.map(async (event) => {
      if (event.type !== "subagent.started" || finished.has(event.workflowId)) return event;
      return { ...event, trace: await nestedTrace(client, event.workflowId) };
    }),
  );
}
