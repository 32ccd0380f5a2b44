import { ACTIVITY } from "../contract/constants.js";
import { createBackstopRun } from "./backstop-run.js";
import { createContractEvaluate } from "./contract-evaluate.js";
import { createDescribeAgent } from "./describe-agent.js";
import { createModelCall } from "./model-call.js";
import { createToolExecute } from "./tool-execute.js";
import { keepAlive } from "./keep-alive.js";
import { runLoad } from "./run-load.js";
import { subAgentResult } from "./sub-agent-result.js";
import type { AgentRegistry, WorkerFeatures } from "./registry.js";

export { createRegistry, type AgentRegistry, type WorkerFeatures } from "./registry.js";
export type { ModelCallInput, ModelCallOutput } from "./model-call.js";
export type { HandoffRequest, SubAgentRequest, ToolExecuteInput } from "./tool-execute.js";

/** The activities a worker registers, under their stable type names; the non-local ones keep themselves alive with heartbeats. */
export function createActivities(registry: AgentRegistry, features: WorkerFeatures = {}) {
  return {
    [ACTIVITY.describe]: createDescribeAgent(registry, features),
    [ACTIVITY.modelCall]: keepAlive(createModelCall(registry)),
    [ACTIVITY.toolExecute]: keepAlive(createToolExecute(registry)),
    [ACTIVITY.contractEvaluate]: createContractEvaluate(registry),
    [ACTIVITY.backstopRun]: keepAlive(createBackstopRun(registry)),
    [ACTIVITY.runLoad]: keepAlive(runLoad),
    [ACTIVITY.subAgentResult]: keepAlive(subAgentResult),
  };
}
