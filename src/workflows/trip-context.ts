/** What the trips of a request work with, shared by the trip loop, sub-agent calls and handoffs. Workflow-safe. */
import type { AgentSpec } from "../core/agent-spec.js";
import type { RunState } from "../core/run-state.js";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import type { ToolCallRecord } from "../core/types.js";
import type { Budget } from "../core/usage.js";
import type { ModelSettings } from "../core/model-settings.js";
import type { RunOverrides } from "../core/fork-args.js";
import type { HandoffRequest } from "../core/tool-outcome.js";
import type { ActivityProxies } from "./activity-proxies.js";
import type { Approvals } from "./approval-waits.js";
import type { DefinitionVersions } from "./definition-versions.js";
import type { ContractContext } from "./contract-steps.js";
import type { RunEventPublisher } from "./run-event-publisher.js";
import type { RunProgress } from "./run-progress.js";
import type { SeenWorkingMemory } from "../core/memory.js";

/** Everything the trips work with. A handoff swaps `spec`, `model`, `tools` and `localTools` for the next agent's. */
export interface TripLoop {
  spec: AgentSpec;
  run: RunState;
  ctx: ContractContext;
  events: RunEventPublisher;
  progress: RunProgress;
  approvals: Approvals;
  /** The agent versions the run has seen: each model call reports the one that answered. */
  versions: DefinitionVersions;
  model: ActivityProxies;
  tools: ActivityProxies;
  /** For the tools in `spec.localTools`: local activities (or `tools` when there are none). */
  localTools: ActivityProxies;
  /** The MCP tools the run listed at its start (for activity summaries and records). */
  mcpTools: McpToolDefinition[];
  /** Publish answer text token by token. */
  streamText: boolean;
  /** The request's budget (the run's over the agent's); a trip does not start once it is used up. */
  budget?: Budget;
  /** The run's agent path, root first: its callers' agents, then the agent whose turn it is. */
  agents: () => string[];
  /** The run's own output schema, sent to each model call. */
  output?: Record<string, unknown>;
  /** The run's own model settings, sent to each model call. */
  modelSettings?: ModelSettings;
  /** The run's own instructions or model id, sent to each model call. */
  overrides?: RunOverrides;
  /** The request's first trip (a forcing toolChoice applies to it only): 1 for a run, per message in a session. */
  firstTrip: number;
  /**
   * A session's: a model call stopped mid-answer (`cancel-message`) leaves the text it had as the trip's answer.
   * "decided": the session took it at its start (its patches' marker is there), so no patch is asked per call.
   */
  keepStoppedAnswers?: boolean | "decided";
  /** Bumped when a handoff's inputFilter replaced the conversation (workers cache conversations per view). */
  view?: number;
  /** The run's memory: its user, with an agent's `memory` (absent: the run has none). */
  memory?: RunMemory;
}

/** A finished tool call: its record, and the handoff it asks for when it is a handoff tool's. */
export interface FinishedCall {
  record: ToolCallRecord;
  handoff?: PendingHandoff;
}

/** A handoff asked for by a call of the current answer. */
export interface PendingHandoff {
  callId: string;
  request: HandoffRequest;
}

/** A run's memory: whose it is, and the working memory the model saw this turn. */
export interface RunMemory {
  user: string;
  /** The agent whose memory it is: the run's (or session's) own, whichever agent a handoff passed the turn to. */
  spec: AgentSpec;
  /** The working memory as recalled this turn: `update_working_memory` merges a concurrent update against it. */
  seen?: SeenWorkingMemory;
}
