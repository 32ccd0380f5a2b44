/** Names and types shared by the workflow and its clients. Workflow-safe. */
import type { QueryDefinition, SignalDefinition, UpdateDefinition } from "@temporalio/common";
import type { WorkflowStreamState } from "@temporalio/workflow-streams/workflow";
import type { ContractState } from "../core/contract-state.js";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import type { RunPage, RunPart } from "../core/paging.js";
import type { ForkArgs, RunOverrides } from "../core/fork-args.js";
import type { PlaybackArgs } from "../core/playback.js";
import type {
  ContentPart,
  ForkedFrom,
  Message,
  PendingApproval,
  RunResult,
  StopReason,
  TraceEvent,
} from "../core/types.js";
import type { Budget, RunUsage, Usage } from "../core/usage.js";
import type { ModelSettings } from "../core/model-settings.js";

// The definitions as `defineQuery`, `defineSignal` and `defineUpdate` of @temporalio/workflow make
// them (`{ type, name }`), built here because the client imports them too: importing the workflow
// API there would load it (and @temporalio/common's whole index) with the root entry.
/* eslint-disable @typescript-eslint/no-explicit-any -- the SDK's own constraint on argument lists */
const defineQuery = <Ret, Args extends any[] = []>(name: string) =>
  ({ type: "query", name }) as QueryDefinition<Ret, Args>;
const defineSignal = <Args extends any[] = []>(name: string) => ({ type: "signal", name }) as SignalDefinition<Args>;
const defineUpdate = <Ret, Args extends any[] = []>(name: string) =>
  ({ type: "update", name }) as UpdateDefinition<Ret, Args>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The argument of the `agentRun` workflow. */
export interface AgentRunArgs {
  /** The agent's name: the worker looks its definition up by it. */
  agent: string;
  /** The conversation so far, ending in the user's turn. */
  messages: Message[];
  /** Stream answer text as the model produces it: the model call heartbeats it (no history events); subscribers read it with `describe()`. */
  streamText?: boolean;
  /** End the run with stopReason "timed-out" after this long (across continue-as-new). */
  timeoutMs?: number;
  /** This run's budget, over the agent's. */
  budget?: Budget;
  /** This run's bound on model calls, over the agent's `maxTrips` (`runAgent(agent, input, { maxTrips })`). */
  maxTrips?: number;
  /** Set when the run is a sub-agent's (a child workflow started by `agent.asTool()`'s call). */
  subAgent?: SubAgentArgs;
  /** This run's output schema (JSON schema, from the zod schema given to `run`), over the agent's `output`. */
  output?: Record<string, unknown>;
  /** The run's context: recorded here once; activities read it with the `run-context` query. */
  context?: unknown;
  /** This run's model settings, over the model's. */
  modelSettings?: ModelSettings;
  /** This run's instructions or model id, over its agent's (an edited fork's). */
  overrides?: RunOverrides;
  /** Set when the run continues as new: where to load its state from. */
  resume?: ResumeState;
  /** Set for a playback (`agent.eval({ tools: "recorded" })`): tool calls are answered from the recording. The field keeps its recorded name. */
  replay?: PlaybackArgs;
  /** Set for a fork (`ai.fork`): `messages` is the recorded prefix, and this what it had used. */
  fork?: ForkArgs;
  /** Whose memory the run is (`run(input, { user })`): with an agent's `memory`, it recalls and remembers. */
  user?: string;
}

/** What a sub-agent's run learns from the run that called it. */
export interface SubAgentArgs {
  /** The agent path of the calling run, root first (e.g. ["triage"]); the child's own path adds its agent. */
  agents: string[];
  /** What is left of the calling run's budget: the child's budget is the tighter of it and its own. */
  budget?: Budget;
}

/**
 * What a run carries across continue-as-new. The conversation, tool calls and trace travel
 * gzipped in the workflow's second argument when they fit a payload; otherwise the new run loads
 * them in pages from `fromRunId` with the `run.load` activity.
 */
export interface ResumeState extends CarriedRun {
  /** The user's request, for intents and backstops. */
  input: string;
  contract: ContractState;
  /** The agent whose turn it is, when a handoff changed it. */
  agent?: string;
  /** A fork's origin, kept across continue-as-new. */
  forkedFrom?: ForkedFrom;
}

/** What every workflow continued as new carries: where its state came from, and its stream. */
export interface CarriedRun {
  fromRunId: string;
  counts: Record<RunPart, number>;
  trips: number;
  stream: WorkflowStreamState;
  /** The MCP tools the run listed at its start, kept for the whole run. */
  mcpTools?: McpToolDefinition[];
  /** Tokens used so far (absent in runs carried by versions without usage). */
  usage?: RunUsage;
  usageByAgent?: Record<string, RunUsage>;
  /** The version of the agent definition that served the run before it continued as new. */
  agentVersion?: string;
}

export type { AgentRunResult } from "../core/paging.js";

/** A page of the run's messages, tool calls or trace: activities read the conversation with it. */
export const runPageQuery = defineQuery<RunPage, [part: RunPart, from: number, maxBytes?: number]>("run-page");

/** Run-stream items from an offset, in the Workflow Streams wire format (base64 `Payload` protos). */
export interface StreamTail {
  items: Array<{ offset: number; data: string }>;
}

/**
 * The stream's items from an offset: subscribers read the durable events with it (when the run's
 * history grew), and from a closed run (answered by a worker replaying it).
 */
export const streamTailQuery = defineQuery<StreamTail, [number]>("run-events-tail");

/** Who approves, and their note (`handle.approve(callId, { by, note })`). */
export interface ApproveDetails {
  by?: string;
  note?: string;
}
/** Who rejects (`handle.reject(callId, { by, reason })`; the reason is the Update's second argument). */
export interface RejectDetails {
  by?: string;
}
/** Approves a tool call waiting for approval (tools with `needsApproval`). Histories before approvers have the call id alone. */
export const approveUpdate = defineUpdate<void, [callId: string, details?: ApproveDetails]>("approve");
/** Rejects a tool call waiting for approval; the reason reaches the model as a refusal. */
export const rejectUpdate = defineUpdate<void, [callId: string, reason: string, details?: RejectDetails]>("reject");

/**
 * A decision sent as a signal, for the Temporal UI's "Send a Signal" (signal name `decide`, a
 * JSON body): `{ "callId": "call_1", "decision": "approve", "by": "alice", "note": "ok" }` or
 * `{ "callId": "call_1", "decision": "reject", "by": "alice", "reason": "too risky" }`. Gated by
 * the worker's `canDecide` like the Updates; a refused or stale decision changes nothing (the
 * worker logs why).
 */
export interface SignalledDecision {
  callId: string;
  decision: "approve" | "reject";
  by?: string;
  note?: string;
  reason?: string;
}
/** The `decide` signal: a person's decision with a JSON body (see `SignalledDecision`), for the Temporal UI. */
export const decideSignal = defineSignal<[SignalledDecision]>("decide");

/** Tool calls waiting for approval in the run and in its sub-agents' runs, at any depth. */
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>("pending-approvals");

/** A person's decision on a call, as a run's approve/reject Update forwards it to the sub-agent run that waits. */
export type ApprovalDecision = ({ approved: true; note?: string } | { approved: false; reason: string }) & {
  /** Who decided, when they said. */
  by?: string;
  /** When (ISO 8601, the deciding run's clock); absent in decisions made before approvers were recorded. */
  decidedAt?: string;
};
export const approvalDecisionSignal = defineSignal<[callId: string, decision: ApprovalDecision]>("approval.decide");

/** A sub-agent run tells its parent (which tells its own) that a call started or stopped waiting for approval. */
export interface SubAgentApprovalNotice {
  waiting: boolean;
  approval: PendingApproval;
  /** When it stopped waiting: how it ended ("approved by alice", "timed out after 60000 ms", ...). */
  ended?: ApprovalEnd;
}

/** How a call stopped waiting, for a decision that comes too late. */
export interface ApprovalEnd {
  state: "approved" | "rejected" | "timed-out" | "cancelled";
  /** A phrase saying it, e.g. "was approved by alice at 2026-12-01T10:00:00.000Z". */
  detail: string;
}
export const subAgentApprovalSignal = defineSignal<[SubAgentApprovalNotice]>("subagent.approval");

/** The argument of the `agentSession` workflow. */
export interface AgentSessionArgs {
  agent: string;
  /** The session's context, for every message. */
  context?: unknown;
  /** Publish answer text token by token. */
  streamText?: boolean;
  /** Who owns the session (a chat's user): only sends `by` the owner are taken. Absent: anyone may send. */
  owner?: string;
  /** Whose memory the session is (`agent.session(id, { user })`): with an agent's `memory`, each message recalls and remembers. */
  user?: string;
  /** Set when the session continues as new. */
  resume?: SessionResumeState;
}

/** What a session carries across continue-as-new: a run's state, and its messages so far. */
export interface SessionResumeState extends CarriedRun {
  /** The session's messages so far (absent in sessions carried by versions before turns). */
  turns?: SessionTurn[];
}

/** Where a session message is: queued behind another, being answered, waiting for a person, or ended (answered, failed, cancelled). */
export type SessionTurnStatus = "queued" | "answering" | "waiting-for-approval" | "answered" | "failed" | "cancelled";

/** One message of a session, as the `session-turns` query gives it. */
export interface SessionTurn {
  /** The message's number in the session, from 0, across continue-as-new. */
  index: number;
  status: SessionTurnStatus;
  /** The id of the `send` Update that brought it. */
  updateId: string;
  /** Where its events start in the session's stream (the offset of its first event); set once it is answered. */
  fromOffset?: number;
  /** Where its messages start in the conversation (its user message); set once it is answered. */
  messagesFrom?: number;
  /** Where its messages end (exclusive) in the conversation, once it has ended. */
  messagesTo?: number;
  /** How its answer ended, once it has (`answered`, `max-trips`, `cancelled`, ...). */
  stopReason?: StopReason;
  /** The typed error a failed message ended with. */
  error?: { name: string; message: string };
  /** Set when it answers an earlier message again (a chat's regenerate): that message's index. */
  regenerates?: number;
}

/** The `session-turns` query's answer: every message of the session, and the stream's next offset. */
export interface SessionTurns {
  turns: SessionTurn[];
  /** The offset the session's next event will have. */
  nextOffset: number;
}

/** What comes with a message sent to a session. Sends recorded before it carry the message alone. */
export interface SendDetails {
  /** Who sends it: must be the session's owner when it has one (`SessionOwnerError` otherwise). */
  by?: string;
  /** Refuse the message (`SessionBusyError`) when another is queued or being answered, instead of queueing it. */
  ifIdle?: boolean;
  /** The message answers message `regenerates` again (a chat's regenerate): a chat's history shows this answer in its place. */
  regenerates?: number;
  /**
   * Whether this message's answer streams its text as it is written, whatever the session's own
   * `streamText` (a caller that only waits for the answer saves the heartbeats' cost with `false`).
   */
  streamText?: boolean;
}

/** A session message: text, or content parts (text, images, files) as a user message takes them. */
export type SessionInput = string | ContentPart[];

/** Sends a message to a session: runs the trip loop for it and returns its result. Queued in order. */
export const sendUpdate = defineUpdate<RunResult, [message: SessionInput, details?: SendDetails]>("send");
/** Ends a session once the messages already sent are answered. */
export const endUpdate = defineUpdate<void, []>("end");
/** Every message of a session: its status and where its events and conversation start. Adds no history event. */
export const sessionTurnsQuery = defineQuery<SessionTurns>("session-turns");
/**
 * Stops the message being answered (its model and tool calls are cancelled; it ends with stopReason
 * "cancelled"), or, with an index (null: whichever), that message only if it is the one being answered. The session
 * takes the next message. Resolves to the stopped message's index, or null when none was being answered.
 */
export const cancelMessageUpdate = defineUpdate<number | null, [index: number | null]>("cancel-message");

/** A model call attempt that failed after the server reported usage: the tokens were paid for. Sent by the `model.call` activity before it fails. */
export interface FailedAttemptUsage {
  trip: number;
  attempt: number;
  usage: Usage;
}
export const failedAttemptSignal = defineSignal<[FailedAttemptUsage]>("usage.failed-attempt");

/** The run's context (`run(input, { context })`), for activities that pass it to user code. */
export const contextQuery = defineQuery<unknown>("run-context");

/** The run's trace so far, readable while the run is live. */
export const traceQuery = defineQuery<TraceEvent[]>("trace");

/** The MCP tools the run listed at its start: model and tool activities read them with it. */
export const mcpToolsQuery = defineQuery<McpToolDefinition[]>("mcp-tools");
