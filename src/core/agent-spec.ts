import type { ContractSpec } from "./contract-state.js";
import type { MemorySpec } from "./memory.js";
import type { Budget } from "./usage.js";

/** The plain-data view of an agent that the workflow needs. Workflow-safe. */
export interface AgentSpec {
  name: string;
  /** The model id, for activity summaries and the trace. */
  modelId: string;
  maxTrips: number;
  /** Start-to-close timeouts of model and tool call attempts, and the heartbeat timeout, in Temporal's duration format. */
  timeouts: { model: string | number; tool: string | number; heartbeat: string | number };
  /**
   * Model calls' own heartbeat timeout, and how soon an attempt lost with its worker is retried.
   * Absent in specs recorded before them: model calls then took `timeouts.heartbeat` and a 1 s retry.
   */
  modelCall?: { heartbeat: string | number; lostAttemptRetry: string | number };
  /** Set the durable-agent search attributes (they must be registered on the server). */
  searchAttributes: boolean;
  /** Names of the agent's MCP toolsets (`ai.mcp()`), when it has any: their tools are listed once per run. */
  mcpServers?: string[];
  /** The contract options (actWhenAsked, onToolRefusal, backstops) as data. */
  contract: ContractSpec;
  /** The agent's budget; a run's own budget overrides its fields. */
  budget?: Budget;
  /** `instructions` is a function: model calls need the request's input for it. */
  dynamicInstructions?: boolean;
  /** Model calls run as local activities (`modelExecution: "local"`). Absent in specs recorded before the option. */
  localModel?: true;
  /** Tools whose calls run as local activities (`execution: "local"`). */
  localTools?: string[];
  /** `agent.version` on the worker that described it. Absent in specs recorded before versions. */
  version?: string;
  /** `onDefinitionChange: "fail"`: a run fails when the definition serving it changes. */
  failOnDefinitionChange?: true;
  /** The agent's `memory`, as data; absent without one (and in specs recorded before memory). */
  memory?: MemorySpec;
}
