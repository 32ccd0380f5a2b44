import { Context } from "@temporalio/activity";
import type { SubAgentResultInput } from "../core/activity-types.js";
import type { AgentRunResult } from "../core/paging.js";

/**
 * The `subagent.result` activity: waits for a sub-agent run that already exists under the call's
 * workflow id (e.g. after the calling run was reset) and returns its result, so the call
 * re-attaches to it instead of starting a second run.
 */
export async function subAgentResult({ workflowId }: SubAgentResultInput): Promise<AgentRunResult> {
  return (await Context.current().client.workflow.getHandle(workflowId).result()) as AgentRunResult;
}
