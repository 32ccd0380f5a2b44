import { contractSpecOf } from "../agent/contract-options.js";
import { DEFAULT_MODEL_HEARTBEAT, DEFAULT_TIMEOUTS, MODEL_RETRY } from "../core/constants.js";
import type { AgentSpec } from "../core/agent-spec.js";
import { lookupAgent, type AgentRegistry, type WorkerFeatures } from "./registry.js";
import { defined } from "../core/defined.js";

/** The `agent.describe` local activity: the plain-data view of an agent the workflow needs. */
export function createDescribeAgent(registry: AgentRegistry, options: WorkerFeatures) {
  return async function describeAgent(name: string): Promise<AgentSpec> {
    const agent = lookupAgent(registry, name);
    const localTools = agent.tools.filter((tool) => tool.execution === "local").map((tool) => tool.name);
    return {
      name: agent.name,
      modelId: agent.options.model.modelId,
      maxTrips: agent.maxTrips,
      timeouts: {
        model: agent.options.timeouts?.model ?? DEFAULT_TIMEOUTS.model,
        tool: agent.options.timeouts?.tool ?? DEFAULT_TIMEOUTS.tool,
        heartbeat: agent.options.timeouts?.heartbeat ?? DEFAULT_TIMEOUTS.heartbeat,
      },
      modelCall: {
        heartbeat: agent.options.timeouts?.heartbeat ?? DEFAULT_MODEL_HEARTBEAT,
        lostAttemptRetry: MODEL_RETRY.lostAttempt,
      },
      contract: contractSpecOf(agent.options),
      ...(agent.mcpToolsets.length ? { mcpServers: agent.mcpToolsets.map((toolset) => toolset.name) } : {}),
      ...defined({ budget: agent.options.budget }),
      ...(typeof agent.options.instructions === "function" ? { dynamicInstructions: true } : {}),
      searchAttributes: options.searchAttributes === true,
      ...(agent.options.modelExecution === "local" ? { localModel: true as const } : {}),
      ...(localTools.length ? { localTools } : {}),
      version: agent.version,
      ...(agent.options.onDefinitionChange === "fail" ? { failOnDefinitionChange: true as const } : {}),
      ...(agent.options.memory ? { memory: agent.options.memory.spec } : {}),
    };
  };
}
