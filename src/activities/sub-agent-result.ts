import { Context } from "@temporalio/activity";
import type { SubAgentResultInput } from "../core/activity-types.js";
import type { AgentRunResult } from "../core/paging.js";
import { fromFailure, toFailure } from "../core/typed-failures.js";

/**
 * The `subagent.result` activity: waits for a sub-agent run that already exists under the call's
 * workflow id (e.g. after the calling run was reset) and returns its result, so the call
 * re-attaches to it instead of starting a second run. A run that failed with a typed error fails
 * the activity at once with that error, as a failed child workflow would.
 */
export async function subAgentResult({ workflowId }: SubAgentResultInput): Promise<AgentRunResult> {
  try {
    return (await Context.current().client.workflow.getHandle(workflowId).result()) as AgentRunResult;
  } catch (error) {
    const typed = fromFailure(error);
    throw typed ? toFailure(typed) : error;
  }
}
