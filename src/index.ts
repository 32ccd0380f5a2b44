/**
 * The public API: `import { ai } from "durable-agent"`.
 * @packageDocumentation
 * @mergeModuleWith <project>
 */
import { defineAgent } from "./facade/define-agent.js";
import { defineTool } from "./agent/define-tool.js";
import { getRun } from "./client/run-handle.js";
import { connectClient } from "./client/connection.js";
import { openai } from "./models/openai-model.js";
import { model } from "./models/ai-sdk-model.js";
import { defineMcp } from "./mcp/index.js";
import { createAgentWorker } from "./lazy-worker.js";
import { requiredToolCalled } from "./eval/scorers/required-tool-called.js";
import { changeClaimedWithoutToolCall } from "./eval/scorers/change-claimed-without-tool-call.js";
import { describeDeployment, setCurrentBuild } from "./deployments/deployment-client.js";
import { casesFromRuns } from "./datasets/index.js";
import { forkRun } from "./fork/index.js";
import { heartbeatDeltas, redisDeltas } from "./deltas/index.js";
import { startStudio } from "./lazy-studio.js";
import { getSchedule, listSchedules } from "./schedules/index.js";
import { defineActivityTool, defineWorkflowTool } from "./remote-tools/index.js";
import { defineMemory, memoryStores } from "./memory/index.js";

/**
 * The library's namespace, as in the specification's examples.
 * @namespace
 */
export const ai = {
  /** Defines an agent. */
  agent: defineAgent,
  /** Defines a tool with a zod input schema. */
  tool: defineTool,
  /** An MCP server's tools (stdio `command` or Streamable HTTP `url`), for an agent's `tools`. */
  mcp: defineMcp,
  /** A tool whose call runs an activity of any worker (any SDK language) by name on its task queue. */
  activityTool: defineActivityTool,
  /** A tool whose call runs a workflow of any worker by name on its task queue, as a child workflow of the run. */
  workflowTool: defineWorkflowTool,
  /** A model reference for an OpenAI-compatible Chat Completions API. */
  openai,
  /** An AI SDK language model (any provider package's: Anthropic, Gemini, OpenAI Responses, Bedrock, OpenAI-compatible) with settings. */
  model,
  /** Creates a worker that runs the given agents' durable runs (the worker code loads on the first call). */
  worker: createAgentWorker,
  /** Re-attaches to a run by workflow id, from any process. */
  getRun,
  /** Connects a Temporal client (default from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE). */
  connect: connectClient,
  /** The specification's eval checks, as scorers for `agent.eval({ cases, scorers })`. */
  eval: {
    /** Fails a run asked for a change that made no successful call of a required tool. */
    requiredToolCalled,
    /** Fails a reply that claims a change no tool call made. */
    changeClaimedWithoutToolCall,
    /** Reads finished runs (by id or by a visibility query) as eval cases, one per run or session message. */
    casesFromRuns,
  },
  /** Worker Deployments: make a build current (`setCurrent`), or list builds with their open runs (`describe`). */
  deployment: {
    /** Makes a build the deployment's current one: new runs (and auto-upgrade runs) go to it. */
    setCurrent: setCurrentBuild,
    /** The deployment's builds, which one is current, and how many open runs each still has. */
    describe: describeDeployment,
  },
  /** Starts a new run from a finished one's conversation before trip `atTrip`, going on live with the agent as the worker now defines it. */
  fork: forkRun,
  /** How the text of an answer in flight reaches watchers, for `ai.worker({ deltas })` and `ai.connect({ deltas })`. */
  deltas: {
    /** Through Redis (the optional `redis` package): published once by the worker, read by every watcher with no read of Temporal. */
    redis: redisDeltas,
    /** The default: the model call's heartbeats, read with `describe()` (no extra server). */
    heartbeats: heartbeatDeltas,
  },
  /** Serves the studio, a local web app over Temporal: runs as conversations, approvals, forks, datasets and evals (the server loads on the call). */
  studio: startStudio,
  /**
   * An agent's memory of its users, for `ai.agent({ memory })`: `ai.memory({ store, embedder,
   * workingMemory?, recall? })`, with its stores `ai.memory.pglite({ dataDir })` (embedded) and
   * `ai.memory.postgres({ url })`. A run's `user` says whose memory it is.
   */
  memory: Object.assign(defineMemory, {
    /** PGlite with pgvector, in-process: nothing to run (the optional `@electric-sql/pglite` packages). */
    pglite: memoryStores.pglite,
    /** Any PostgreSQL (the optional `pg` package): pgvector when the database has it, else exact search in SQL. */
    postgres: memoryStores.postgres,
  }),
  /** The agents' Temporal Schedules (create one with `agent.schedule(id, { cron | every, input })`). */
  schedules: {
    /** The namespace's agent schedules, with their next runs. */
    list: listSchedules,
    /** One schedule by id: `describe()`, `pause()`, `unpause()`, `trigger()`, `backfill()`, `update()`, `delete()`. */
    get: getSchedule,
  },
};

export { Agent, type OutputOf, type ContextOf } from "./facade/define-agent.js";
export type {
  Tool,
  ToolContext,
  ToolOptions,
  Execution,
  SubAgentLink,
  HandoffLink,
  ProviderToolLink,
} from "./agent/define-tool.js";
export type * from "./agent/options.js";
export type {
  ActivityToolOptions,
  ActivityToolTimeouts,
  RemoteToolOptions,
  WorkflowToolOptions,
  WorkflowToolTimeouts,
} from "./remote-tools/index.js";
export type { RemoteToolTarget, RemoteActivityTarget, RemoteWorkflowTarget } from "./core/remote-tool.js";
export {
  McpToolset,
  MCP_IDEMPOTENCY_KEY,
  type McpOptions,
  type McpStdioOptions,
  type McpHttpOptions,
  type McpCommonOptions,
  type McpListedTool,
  type McpApprovalCandidate,
  type McpToolOutput,
  type McpContentPart,
  type McpToolDefinition,
} from "./mcp/index.js";
export type { AsToolOptions, Handoff, HandoffOptions } from "./subagents/index.js";
export type { ModelReference, OpenAIModelSettings } from "./models/openai-model.js";
export type { ModelSettings } from "./core/model-settings.js";
export type {
  AiSdkModelReference,
  AiSdkModelSettings,
  LanguageModel,
  LanguageModelSpecification,
  ProviderOptions,
} from "./models/ai-sdk-model.js";
export { LANGUAGE_MODEL_SPECIFICATIONS } from "./models/ai-sdk-model.js";
export type { AgentModel } from "./models/agent-model.js";
export type { Budget, ModelPricing, RunUsage, Usage } from "./core/usage.js";
export type { RunOptions } from "./client/start-run.js";
export type { RunLogger } from "./client/no-worker-warning.js";
export type { RunInput } from "./client/normalize-input.js";
export { RunHandle, type ApproveOptions, type RejectOptions } from "./client/run-handle.js";
export type { ApprovalCandidate, ApprovalOptions } from "./approvals/index.js";
export {
  AgentSession,
  SessionMessage,
  SESSION_OWNER_MEMO,
  type SessionOptions,
  type SendOptions,
  type SessionDescription,
} from "./client/session.js";
export type {
  SendDetails,
  SessionInput,
  SessionTurn,
  SessionTurns,
  SessionTurnStatus,
} from "./workflows/definitions.js";
export { RunEventStream, type StreamOptions } from "./streaming/client/index.js";
export {
  createChatHandler,
  type ChatAgent,
  type ChatCaller,
  type ChatHandler,
  type ChatHandlerOptions,
  type ChatSummary,
  uiMessageStream,
  uiMessageStreamResponse,
  type UIMessageStreamOptions,
  type DurableAgentUIDataTypes,
  type SubAgentData,
  type SubAgentPart,
} from "./chat/index.js";
export { createMcpHandler, type McpCaller, type McpHandler, type McpHandlerOptions } from "./mcp-server/index.js";
export {
  createA2AHandler,
  type A2AAgent,
  type A2ACaller,
  type A2ADecision,
  type A2AHandler,
  type A2AHandlerOptions,
} from "./a2a/index.js";
export type { PartialAnswer, RunEvent, StreamedRunEvent } from "./core/run-events.js";
export type { ConnectOptions, TemporalSecurity, TemporalSettings } from "./client/connection.js";
export { temporalSecurityFromEnv } from "./client/connection.js";
export * from "./codec/index.js";
export * from "./telemetry/index.js";
export { DEFAULT_LIMITS, type ResolvedLimits } from "./limits.js";
export type { AgentWorkerOptions } from "./worker.js";
export type {
  WorkerDeployment,
  DeploymentBuild,
  DeploymentCallOptions,
  DeploymentDescription,
} from "./deployments/index.js";
export { bundleAgentWorkflows, bundleTelemetryWorkflows } from "./lazy-worker.js";
export type * from "./core/types.js";
export * from "./errors.js";
export { fromFailure, rebuildError } from "./core/typed-failures.js";
export * from "./eval/index.js";
export * from "./datasets/index.js";
export type { ForkOptions } from "./fork/index.js";
export {
  heartbeatDeltas,
  redisDeltas,
  type DeltaTransport,
  type RedisDeltasOptions,
  type DeltaLogger,
  type AnswerOf,
  type AnswerPublisher,
  type AnswerWatch,
  type PublishContext,
} from "./deltas/index.js";
export type { StudioOptions, StudioServer } from "./studio/options.js";
export { StudioOptionsError, StudioAssetsMissingError } from "./studio/errors.js";
export { MemoryStoreMissingError, MemoryStoreUnavailableError, MemoryWriteError } from "./memory/errors.js";
export {
  Memory,
  type MemoryOptions,
  type RecallOptions,
  type WorkingMemoryOptions,
  type MemoryStore,
  type MemoryMessage,
  type MemoryMessageWrite,
  type RecallQuery,
  type RecalledMessage,
  type WorkingMemoryDocument,
  type WorkingMemoryWrite,
  type PGliteMemoryOptions,
  type PostgresMemoryOptions,
} from "./memory/index.js";
export type { MemorySpec, SeenWorkingMemory, RecalledMemoryMessage } from "./core/memory.js";
export {
  AgentSchedule,
  ScheduleOptionsError,
  ScheduleExistsError,
  UnknownScheduleError,
  type AgentScheduleDescription,
  type AgentScheduleOptions,
  type AgentScheduleSummary,
  type ScheduleChanges,
  type ScheduleClientOptions,
  type ScheduleOverlap,
  type ScheduleTiming,
  type ScheduledRun,
} from "./schedules/index.js";
export {
  createWebhookHandler,
  hmacSha256Verifier,
  hmacSha256Signature,
  WebhookOptionsError,
  WebhookRequestError,
  type HmacVerifierOptions,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookReader,
  type WebhookLogger,
} from "./webhooks/index.js";
export type { ForkArgs, ForkChanges } from "./core/fork-args.js";
export type { RecordedBackstop, RecordedToolCall, UnmatchedToolCalls } from "./core/playback.js";
