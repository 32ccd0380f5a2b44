/** The public API: `import { ai } from "durable-agent"`. */
import { defineAgent } from "./agent/define-agent.js";
import { defineTool } from "./agent/define-tool.js";
import { getRun } from "./client/run-handle.js";
import { connectClient } from "./client/connection.js";
import { openai } from "./models/openai-model.js";
import { defineMcp } from "./mcp/index.js";
import { createAgentWorker } from "./worker.js";
import { requiredToolCalled } from "./eval/scorers/required-tool-called.js";
import { changeClaimedWithoutToolCall } from "./eval/scorers/change-claimed-without-tool-call.js";

/** The library's namespace, as in the specification's examples. */
export const ai = {
  /** Defines an agent. */
  agent: defineAgent,
  /** Defines a tool with a zod input schema. */
  tool: defineTool,
  /** An MCP server's tools (stdio `command` or Streamable HTTP `url`), for an agent's `tools`. */
  mcp: defineMcp,
  /** A model reference for an OpenAI-compatible Chat Completions API. */
  openai,
  /** Creates a worker that runs the given agents' durable runs. */
  worker: createAgentWorker,
  /** Re-attaches to a run by workflow id, from any process. */
  getRun,
  /** Connects a Temporal client (default from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE). */
  connect: connectClient,
  /** The specification's eval checks, as scorers for `agent.eval({ cases, scorers })`. */
  eval: { requiredToolCalled, changeClaimedWithoutToolCall },
};

export { Agent } from "./agent/define-agent.js";
export type { Tool, ToolContext, ToolOptions } from "./agent/define-tool.js";
export type * from "./agent/options.js";
export { McpToolset, MCP_IDEMPOTENCY_KEY, type McpOptions, type McpStdioOptions, type McpHttpOptions, type McpCommonOptions, type McpListedTool, type McpApprovalCandidate, type McpToolOutput, type McpContentPart, type McpToolDefinition } from "./mcp/index.js";
export type { AsToolOptions, Handoff, HandoffOptions } from "./subagents/index.js";
export type { ModelReference, ModelSettings, OpenAIModelSettings } from "./models/openai-model.js";
export type { Budget, ModelPricing, RunUsage, Usage } from "./contract/usage.js";
export type { RunOptions } from "./client/start-run.js";
export type { RunInput } from "./client/normalize-input.js";
export { RunHandle } from "./client/run-handle.js";
export { AgentSession, type SessionOptions } from "./client/session.js";
export { RunEventStream, type StreamOptions } from "./client/run-event-stream.js";
export type { RunEvent, StreamedRunEvent } from "./contract/run-events.js";
export type { ConnectOptions, TemporalSecurity, TemporalSettings } from "./client/connection.js";
export { temporalSecurityFromEnv } from "./client/connection.js";
export * from "./codec/index.js";
export * from "./telemetry/index.js";
export { DEFAULT_LIMITS, type ResolvedLimits } from "./limits.js";
export type { AgentWorkerOptions } from "./worker.js";
export { bundleAgentWorkflows } from "./worker.js";
export type * from "./contract/types.js";
export * from "./errors.js";
export * from "./eval/index.js";
