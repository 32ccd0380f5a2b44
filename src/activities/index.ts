import { ACTIVITY } from "../contract/constants.js";
import { createBackstopRun } from "./backstop-run.js";
import { createContractEvaluate } from "./contract-evaluate.js";
import { createDescribeAgent } from "./describe-agent.js";
import { createModelCall } from "./model-call.js";
import { createToolExecute } from "./tool-execute.js";
import { runLoad } from "./run-load.js";
import type { AgentRegistry } from "./registry.js";

export { createRegistry, type AgentRegistry } from "./registry.js";
export type { ModelCallInput, ModelCallOutput } from "./model-call.js";
export type { ToolExecuteInput } from "./tool-execute.js";

/** The activities a worker registers, under their stable type names. */
export function createActivities(registry: AgentRegistry) {
  return {
    [ACTIVITY.describe]: createDescribeAgent(registry),
    [ACTIVITY.modelCall]: createModelCall(registry),
    [ACTIVITY.toolExecute]: createToolExecute(registry),
    [ACTIVITY.contractEvaluate]: createContractEvaluate(registry),
    [ACTIVITY.backstopRun]: createBackstopRun(registry),
    [ACTIVITY.runLoad]: runLoad,
  };
}
