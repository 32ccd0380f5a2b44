/**
 * A call's run: started under the call's workflow id, or, when a retried request names a run that
 * exists (running or closed), that run (REJECT_DUPLICATE, USE_EXISTING): never a second one.
 */
import type { Client } from "@temporalio/client";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { RunHandle } from "../client/run-handle.js";
import { prepareRunStart, type RunOptions } from "../client/start-run.js";
import { WORKFLOW_NAME } from "../core/constants.js";
import { loadTemporalClient } from "../run-reads/index.js";

/** Starts the agent's run for a call, or attaches to the run a retry of the call names. */
export async function startCall(
  client: Client,
  agent: AgentDefinition,
  message: string,
  options: RunOptions & { workflowId: string },
): Promise<RunHandle> {
  const start = prepareRunStart(agent, message, options);
  try {
    const workflow = await client.workflow.start(WORKFLOW_NAME, {
      args: [start.args],
      taskQueue: start.taskQueue,
      workflowId: start.workflowId,
      staticSummary: start.staticSummary,
      workflowIdConflictPolicy: "USE_EXISTING",
      workflowIdReusePolicy: "REJECT_DUPLICATE",
    });
    return new RunHandle(workflow, client);
  } catch (error) {
    const { WorkflowExecutionAlreadyStartedError } = await loadTemporalClient();
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return new RunHandle(client.workflow.getHandle(start.workflowId), client);
  }
}
