import { Context } from "@temporalio/activity";
import type { Activities } from "../core/activity-types.js";
import { ACTIVITY } from "../core/constants.js";
import { createBackstopRun } from "./backstop-run.js";
import { createContractEvaluate } from "./contract-evaluate.js";
import { createDescribeAgent } from "./describe-agent.js";
import { createModelCall } from "./model-call.js";
import { createToolExecute } from "./tool-execute.js";
import { keepAlive } from "./keep-alive.js";

import { runLoad } from "./run-load.js";
import { createMcpList } from "./mcp-list.js";
import { subAgentResult } from "./sub-agent-result.js";
import type { AgentRegistry, WorkerFeatures } from "./registry.js";
import { ConversationCache } from "./conversation-cache.js";
import { runRefOf } from "../run-reads/index.js";
import { createCanDecide } from "../approvals/can-decide-activity.js";
import { createMemoryActivities } from "./memory-activities.js";

/**
 * The longest a model call goes without a heartbeat, while the model is silent (a heartbeat each;
 * Temporal Cloud bills them), as while it streams: under its 2.5 s heartbeat timeout, a live
 * attempt survives a worker whose event loop stalls for 2.25 s.
 */
const MODEL_CALL_KEEP_ALIVE_MS = 250;

export { createRegistry, type AgentRegistry, type WorkerFeatures } from "./registry.js";

/**
 * The activities a worker registers, under their stable type names, as the workflow's `Activities`
 * (in the core) describes them; the non-local ones keep themselves alive with heartbeats.
 */
export function createActivities(registry: AgentRegistry, features: WorkerFeatures = {}) {
  const conversations = new ConversationCache(features.conversationCacheBytes);
  const memory = createMemoryActivities(registry);
  return {
    [ACTIVITY.describe]: createDescribeAgent(registry, features),
    // A quarter of a second apart at most: a session's stop (cancel-message) waits for the call, which learns of it from a heartbeat's answer.
    [ACTIVITY.modelCall]: keepAlive(
      createModelCall(registry, conversations, features.deltas, features.answerStream),
      MODEL_CALL_KEEP_ALIVE_MS,
    ),
    [ACTIVITY.toolExecute]: keepAlive(heldResults(createToolExecute(registry), conversations)),
    [ACTIVITY.contractEvaluate]: createContractEvaluate(registry),
    [ACTIVITY.backstopRun]: keepAlive(createBackstopRun(registry)),
    [ACTIVITY.runLoad]: keepAlive(runLoad),
    [ACTIVITY.mcpList]: keepAlive(createMcpList(registry)),
    [ACTIVITY.subAgentResult]: keepAlive(subAgentResult),
    [ACTIVITY.approvalCanDecide]: createCanDecide(features.approvals),
    [ACTIVITY.memoryRecall]: keepAlive(memory.recall),
    [ACTIVITY.memoryRemember]: keepAlive(memory.remember),
  } satisfies Activities;
}

/** Keeps each finished tool call's result in the worker's conversation cache, for the next model call. */
function heldResults(
  toolExecute: ReturnType<typeof createToolExecute>,
  conversations: ConversationCache,
): ReturnType<typeof createToolExecute> {
  return async (input) => {
    const result = await toolExecute(input);
    // Sub-agent calls and handoffs are finished by the workflow: their records are not this worker's to hold.
    if (result.kind === "result")
      conversations.toolFinished({ runId: runRefOf(Context.current()).runId, view: input.view }, input.call, result);
    return result;
  };
}
