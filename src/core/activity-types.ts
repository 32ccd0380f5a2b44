/**
 * The activities as the workflow sees them: each one's input and output, and `Activities`, keyed by
 * the stable type names of `ACTIVITY`. The worker's `createActivities` is checked against it and the
 * workflow's proxies are typed by it, so neither side imports the other. Plain data; workflow-safe.
 */
import type { AgentSpec } from "./agent-spec.js";
import type { BackstopTurn } from "./backstop-turn.js";
import type { ACTIVITY } from "./constants.js";
import type { PendingRefusal } from "./contract-state.js";
import type { McpToolDefinition } from "./mcp-tools.js";
import type {
  MemoryRecallInput,
  MemoryRecallOutput,
  MemoryRememberInput,
  MemoryRememberOutput,
  SeenWorkingMemory,
} from "./memory.js";
import type { ModelSettings } from "./model-settings.js";
import type { RunOverrides } from "./fork-args.js";
import type { AgentRunResult, RunPage, RunPart } from "./paging.js";
import type { PlaybackAnswer } from "./playback.js";
import type { RecordedToolOutcome } from "./tool-outcome.js";
import type { Message, RequestedToolCall } from "./types.js";
import type { Usage } from "./usage.js";

/** Input of the `model.call` activity. */
export interface ModelCallInput {
  agent: string;
  /** How many of the run's messages to send; the activity reads them from the run, not from this input. */
  conversationLength: number;
  /** The digest of those messages (`DigestChain`): when it matches what the worker holds, nothing is read. */
  conversationDigest?: string;
  /** The last messages the workflow added itself (the input, a re-prompt), when small: no worker produced them. */
  conversationTail?: Message[];
  trip: number;
  /** Heartbeat the answer's text as it arrives, for subscribers (see `answer-heartbeat.ts`). */
  streamText?: boolean;
  /** Bumped when a handoff's inputFilter replaced the conversation: cached messages of an earlier view are stale. */
  view?: number;
  /** The run's own output schema (JSON schema), over the agent's `output`. */
  output?: Record<string, unknown>;
  /** The run has a context: read it (by query) for an instructions function. */
  hasContext?: boolean;
  /** The user's request, for an instructions function. */
  input?: string;
  /** The run's own model settings, over the model's. */
  modelSettings?: ModelSettings;
  /** The run's own instructions or model id, over its agent's (an edited fork's). */
  overrides?: RunOverrides;
  /** The first trip of the run (a session: of the message): a forcing toolChoice applies. */
  firstTrip?: boolean;
}

/** The outcome of checking a final answer against the output schema (done on the worker). */
export type OutputCheck = { ok: true; value: unknown } | { ok: false; issues: string };

/** Output of the `model.call` activity: the model's answer. */
export interface ModelCallOutput {
  message: Extract<Message, { role: "assistant" }>;
  /** What the answer reported; absent when the server reported none. */
  usage?: Usage;
  /** With an output schema, for an answer without tool calls: its text parsed and validated. */
  output?: OutputCheck;
  /** Set when the worker had to read part of the conversation from the run (it did not hold all of it). */
  conversationRead?: true;
  /** `agent.version` of the definition that answered, on this worker. */
  agentVersion?: string;
  /** The activity attempt that answered, when it was not the first (the run's stream has its `trip.retry`). */
  attempt?: number;
}

/**
 * What a `model.call` stopped on request (a session's `cancel-message`) had streamed: the details
 * of its cancellation, which the session keeps as the message's answer.
 */
export interface StoppedAnswer {
  role: "assistant";
  /** The text streamed before the stop. */
  content: string;
}

/** Input of the `tool.execute` activity. */
export interface ToolExecuteInput {
  agent: string;
  call: RequestedToolCall;
  trip: number;
  /** A person approved this call (for tools with `needsApproval`). */
  approved?: boolean;
  /**
   * Messages before the answer that asked for the call (what a handoff's `inputFilter` reads); only
   * older histories send it, the activity finds the answer itself.
   */
  conversationLength?: number;
  /** The run has a context: read it (by query) for the tool and `isRefusal`. */
  hasContext?: boolean;
  /** In a playback (recorded tools): the recorded outcome, or why the call is refused; the tool does not run. */
  replay?: PlaybackAnswer;
  /** The conversation's view, as the model call that asked for the call had it: the worker holds the result with that conversation. */
  view?: number;
  /** The run's user (`run(input, { user })`), for the tool's `ctx.user`; sent only when the run has one. */
  user?: string;
  /** For `update_working_memory`: the working memory the model saw, which a concurrent update is merged against. */
  workingMemorySeen?: SeenWorkingMemory;
}

/** Input of the `contract.evaluate` local activity: which user callbacks to evaluate on this turn. */
export interface ContractEvaluateInput {
  agent: string;
  turn: BackstopTurn;
  /** Evaluate `actWhenAsked.intents` on the input. */
  intents?: boolean;
  /** Backstops whose `detect` to call. */
  detect: string[];
  /** The refusal whose retry hint to build. */
  refusal?: PendingRefusal;
  /** Build the actWhenAsked hint. */
  actWhenAsked?: boolean;
  /** Build the output repair hint for this validation error. */
  outputRepair?: { issues: string };
}

/** A user callback that threw: `source` names it; `backstop` is set for a backstop's `detect`. */
export interface CallbackError {
  source: string;
  error: string;
  backstop?: string;
}

/** What the user callbacks said. A callback that threw is reported in `errors` and counts as no. */
export interface ContractEvaluateOutput {
  actionRequest?: boolean;
  detected: string[];
  refusalHint?: string;
  actHint?: string;
  outputHint?: string;
  errors: CallbackError[];
}

/** Input of the `backstop.run` activity. */
export interface BackstopRunInput {
  agent: string;
  name: string;
  /** The turn without its messages and tool calls: the activity reads those from the run. */
  turn: Omit<BackstopTurn, "messages" | "toolCalls" | "context">;
  counts: { messages: number; toolCalls: number };
  state: Record<string, unknown>;
  /** The run has a context: read it (by query) for `run`. */
  hasContext?: boolean;
}

/** What a backstop's `run` came to: its prompt, the shared state after it, or the error it threw. */
export interface BackstopRunOutput {
  prompt?: string;
  state: Record<string, unknown>;
  error?: string;
}

/** Input of the `run.load` activity: the next page of a part of the run this one continued from. */
export interface RunLoadInput {
  fromRunId: string;
  part: RunPart;
  from: number;
}

/** Input of the `mcp.list` activity. */
export interface McpListInput {
  agent: string;
}

/** Input of the `subagent.result` activity: the workflow id of the sub-agent run to wait for. */
export interface SubAgentResultInput {
  workflowId: string;
}

/** What `canDecide` is asked about: who wants to decide on which waiting call. */
export interface ApprovalCandidate {
  /** Who asked to decide (`approve(callId, { by })`); undefined when they did not say. */
  by: string | undefined;
  /** The tool whose call waits. */
  tool: string;
  /** The call's input, as the model sent it (validated). */
  input: unknown;
  /** The agent whose call waits (a sub-agent's name for a call that waits in a sub-agent run). */
  agent: string;
  /** Whether they approve (true) or reject (false). */
  approve: boolean;
}

/** The answer the `approval.can-decide` activity records: allowed, or why not. */
export type CanDecideAnswer = { allowed: true } | { allowed: false; why: string };

/** The activity functions a worker registers, by their stable type names (`ACTIVITY`). */
export interface Activities {
  /** The plain-data view of an agent (local). */
  [ACTIVITY.describe]: (agent: string) => Promise<AgentSpec>;
  /** One model call, streamed, returning the whole answer. */
  [ACTIVITY.modelCall]: (input: ModelCallInput) => Promise<ModelCallOutput>;
  /** One tool call; histories recorded before the `kind` tag hold it untagged (read it with `toolOutcomeOf`). */
  [ACTIVITY.toolExecute]: (input: ToolExecuteInput) => Promise<RecordedToolOutcome>;
  /** The contract's deciding callbacks (local). */
  [ACTIVITY.contractEvaluate]: (input: ContractEvaluateInput) => Promise<ContractEvaluateOutput>;
  /** A backstop's side effect. */
  [ACTIVITY.backstopRun]: (input: BackstopRunInput) => Promise<BackstopRunOutput>;
  /** A page of the run this one continued from. */
  [ACTIVITY.runLoad]: (input: RunLoadInput) => Promise<RunPage>;
  /** The MCP tools of the agent's toolsets, once per run. */
  [ACTIVITY.mcpList]: (input: McpListInput) => Promise<McpToolDefinition[]>;
  /** The result of a sub-agent run that already exists. */
  [ACTIVITY.subAgentResult]: (input: SubAgentResultInput) => Promise<AgentRunResult>;
  /** Whether a person may decide on a waiting call (local). */
  [ACTIVITY.approvalCanDecide]: (candidate: ApprovalCandidate) => Promise<CanDecideAnswer>;
  /** The user's working memory and the messages recalled for a turn's input (agents with `memory`). */
  [ACTIVITY.memoryRecall]: (input: MemoryRecallInput) => Promise<MemoryRecallOutput>;
  /** A turn's messages, embedded and stored once each (agents with `memory`). */
  [ACTIVITY.memoryRemember]: (input: MemoryRememberInput) => Promise<MemoryRememberOutput>;
}
