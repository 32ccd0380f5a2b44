/**
 * `durable-agent/workflow`: agents as steps of your own Temporal workflows. Safe in any workflow
 * sandbox: it imports only `@temporalio/workflow` and the library's plain data, never an agent's
 * module or worker code; the agent runs on the agents' worker as a child workflow.
 * @packageDocumentation
 */
export { agentRef, type AgentRef, type AgentLike, type OutputOfAgent, type ContextOfAgent } from "./agent-ref.js";
export {
  runAgent,
  startAgent,
  type AgentInput,
  type AgentResult,
  type AgentRunHandle,
  type RunAgentOptions,
} from "./run-agent.js";
export type { PendingApproval, StopReason, ToolCallRecord, Message } from "../core/types.js";
export type { RunUsage } from "../core/usage.js";
export type { ModelSettings } from "../core/model-settings.js";
