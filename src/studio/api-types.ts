/**
 * The studio's JSON API: the shapes the server (src/studio/server) sends and the page
 * (src/studio/page) reads. Plain types only, so both sides import them with `import type`.
 */
import type { ReportComparison } from "../eval/compare-reports.js";

/** An agent the studio knows, from the agents module or the runs it has seen. */
export interface StudioAgent {
  /** The agent's name. */
  name: string;
  /** `agent.version`, when the module's definition has one. */
  version?: string;
}

/** `GET /api/meta`: what this studio can do. */
export interface MetaResponse {
  /** The agents of the module (empty without one). */
  agents: StudioAgent[];
  /** The name approvals are decided as (`--as`), when set. */
  as?: string;
  /** True when an agents module was given (forking needs the agent's definition). */
  canFork: boolean;
  /** True when an agents module was given (evals run the agent). */
  canEval: boolean;
  /** True when an agents module was given (the chat panel talks to its agents, on the studio's worker). */
  canChat?: boolean;
  /** The Temporal UI's base URL, when known, for run links. */
  temporalUiBase?: string;
}

/** A run's status, as the visibility API reports it (lowercase). */
export type RunStatus = "running" | "completed" | "failed" | "cancelled" | "terminated" | "continued" | "timed-out";

/** Which of the tool-use contract's steps fired in a run. */
export interface FiredFlags {
  /** `actWhenAsked` sent a re-prompt (DurableAgentReprompts > 0). */
  reprompted: boolean;
  /** A refused tool call was retried (DurableAgentRefusals > 0). */
  refusalRetried: boolean;
  /** A backstop ran (DurableAgentBackstopRan, set when the run's first backstop runs). */
  backstopRan: boolean;
}

/** The "contract fired" filter's values for `GET /api/runs?fired=`. */
export type FiredFilter = keyof FiredFlags;

/** One row of the runs list. */
export interface RunRow {
  /** The run's workflow id. */
  workflowId: string;
  /** The Temporal run id. */
  runId: string;
  /** The agent's name (or the workflow type when the run is not an agent run). */
  agent: string;
  /** `agent.version` serving the run. */
  version?: string;
  /** The run's status. */
  status: RunStatus;
  /** Why the run stopped, once it has. */
  stopReason?: string;
  /** ISO 8601 start time. */
  startTime: string;
  /** ISO 8601 close time, once closed. */
  closeTime?: string;
  /** Model calls made so far. */
  trips?: number;
  /** Tokens used so far. */
  tokens?: number;
  /** Cost in US dollars so far (DurableAgentCostUsd, updated after each model call), when the model has pricing. */
  cost?: number;
  /** Which contract steps fired. */
  fired: FiredFlags;
  /** True for a session (many messages, one conversation). */
  session?: boolean;
  /** True when the run's payloads are encrypted and this studio has no codec for them. */
  encrypted?: boolean;
  /** The first words of the user's message that started the run (absent for a session, or an encrypted run). */
  firstWords?: string;
  /** How many tool calls wait for a person's approval (running runs only; absent when none, or no worker answered). */
  awaitingApproval?: number;
  /** True for a run an eval started (hidden from the list unless `evals=show`). */
  eval?: boolean;
}

/** `GET /api/runs`: the query string's filters (all optional). */
export interface RunsQuery {
  /** Agent name. */
  agent?: string;
  /** Agent version. */
  version?: string;
  /** The id of the schedule that started the runs (Temporal's `TemporalScheduledById`). */
  schedule?: string;
  /** Run status. */
  status?: RunStatus;
  /** Stop reason. */
  stopReason?: string;
  /** Which contract step fired. */
  fired?: FiredFilter;
  /** ISO 8601: started at or after. */
  from?: string;
  /** ISO 8601: started before. */
  to?: string;
  /** A free visibility query, ANDed with the other filters. */
  query?: string;
  /** `approval`: only running runs with a tool call waiting for approval. */
  awaiting?: "approval";
  /** `show`: list the runs evals started too (hidden by default). */
  evals?: "show";
  /** Rows per page (default 50, at most 1000). */
  pageSize?: number;
  /** The previous page's `nextPageToken`. */
  pageToken?: string;
}

/** `GET /api/runs`: one page of runs, newest first. */
export interface RunsResponse {
  /** The page's rows. */
  runs: RunRow[];
  /** Pass as `pageToken` for the next page; absent on the last page. */
  nextPageToken?: string;
}

/** A tool call's status in a conversation. */
export type ToolCallStatus = "ok" | "failed" | "refused" | "waiting" | "denied";

/** The user's message (or a session message's input). */
export interface UserItem {
  /** Tag. */
  type: "user";
  /** The message text. */
  text: string;
}

/** The assistant's text on a trip. */
export interface AssistantItem {
  /** Tag. */
  type: "assistant";
  /** The text. */
  text: string;
  /** The trip (model call, from 1) that produced it. */
  trip: number;
}

/** Reasoning the model gave on a trip. */
export interface ReasoningItem {
  /** Tag. */
  type: "reasoning";
  /** The reasoning text. */
  text: string;
  /** The trip that produced it. */
  trip: number;
}

/** A tool call with its input, output and status. */
export interface ToolCallItem {
  /** Tag. */
  type: "tool-call";
  /** The model's call id. */
  callId: string;
  /** The tool's name. */
  tool: string;
  /** The call's input. */
  input: unknown;
  /** The tool's output (or error), once it has one. */
  output?: unknown;
  /** Its status. */
  status: ToolCallStatus;
  /** Why the call was refused (the contract's reason or the tool's refusal). */
  refusalReason?: string;
  /** The trip whose model call asked for it. */
  trip: number;
  /** How long the tool took, in milliseconds. */
  latencyMs?: number;
  /**
   * Where the call ran when not on the run's workers: a remote tool's (`ai.activityTool`, `ai.workflowTool`),
   * e.g. "activity lookup_order on task queue order-tools"; a provider tool's, "the model's provider".
   */
  runsOn?: string;
}

/** An approval asked for a tool call, with its decision once made. */
export interface ApprovalItem {
  /** Tag. */
  type: "approval";
  /** The tool call's id (the id to approve or reject). */
  callId: string;
  /** The tool's name. */
  tool: string;
  /** The decision; absent while waiting. */
  decision?: "approved" | "rejected" | "timedOut";
  /** Who decided. */
  by?: string;
  /** ISO 8601 time of the decision. */
  at?: string;
  /** The reason given with a rejection. */
  reason?: string;
}

/** What memory gave the model before a turn: the working memory as the model saw it, and the messages recalled. */
export interface MemoryItem {
  /** Tag. */
  type: "memory";
  /** The working memory (markdown, or an object as JSON), when the agent keeps one. */
  workingMemory?: string;
  /** The recalled messages, oldest session first. */
  recalled: Array<{ role: string; text: string; createdAt: string }>;
}

/** A re-prompt the contract (`actWhenAsked`) sent, on its trip. */
export interface RepromptItem {
  /** Tag. */
  type: "reprompt";
  /** The trip the re-prompt followed. */
  trip: number;
  /** Why it was sent. */
  reason: string;
  /** The text sent to the model. */
  text: string;
}

/** A backstop that ran on a trip. */
export interface BackstopItem {
  /** Tag. */
  type: "backstop";
  /** The trip it ran on (for a before-phase backstop: the trip its prompt goes to). */
  trip: number;
  /** The backstop's name. */
  name: string;
  /** `before` (on the user's message, before a model call) or `after` (on an answer that would end the run). */
  phase?: "before" | "after";
  /** Why it ran, or what it decided. */
  reason?: string;
  /** The prompt it sent the model, when it sent one. */
  prompt?: string;
}

/** A sub-agent's run, nested under the tool that started it. */
export interface SubagentItem {
  /** Tag. */
  type: "subagent";
  /** The tool (the sub-agent's tool name). */
  tool: string;
  /** The child run's workflow id. */
  workflowId: string;
  /** The child's conversation. */
  items: ConversationItem[];
}

/** A handoff to another agent's run. */
export interface HandoffItem {
  /** Tag. */
  type: "handoff";
  /** The agent handed off to. */
  to: string;
  /** The run that took over. */
  workflowId: string;
}

/** A session message's boundary (items after it belong to that message). */
export interface SessionMessageItem {
  /** Tag. */
  type: "session-message";
  /** The message's index in the session, from 0. */
  index: number;
  /** The message's status. */
  status: string;
}

/** One entry of a run's conversation. */
export type ConversationItem =
  | MemoryItem
  | UserItem
  | AssistantItem
  | ReasoningItem
  | ToolCallItem
  | ApprovalItem
  | RepromptItem
  | BackstopItem
  | SubagentItem
  | HandoffItem
  | SessionMessageItem;

/** One trip's figures. */
export interface TripView {
  /** The trip number, from 1. */
  trip: number;
  /** The model call's latency in milliseconds. */
  modelLatencyMs?: number;
  /** Each tool call's latency on this trip, by call id. */
  toolLatenciesMs: Record<string, number>;
  /** Tokens this trip used. */
  tokens?: number;
  /** This trip's cost in US dollars, when the model has pricing. */
  cost?: number;
}

/** Why a run failed: the failure that ended its workflow. */
export interface RunError {
  /** The error's type: the library's typed error's name (`ModelApiError`, `ToolError`, ...), else the failure's type or class. */
  type: string;
  /** The failure's message. */
  message: string;
}

/** What a step of a run's timeline is. */
export type TimelineStepKind =
  "model" | "tool" | "approval" | "retry" | "reprompt" | "backstop" | "subagent" | "activity";

/** One step of a run's timeline: a model call, a tool call, a wait for approval, failed attempts, a re-prompt or backstop. */
export interface TimelineStep {
  /** What it is. */
  kind: TimelineStepKind;
  /** What it says ("model gpt-4o · trip 2", "tool update_plan", "approval delete_plan"). */
  label: string;
  /** The trip it belongs to, when it has one. */
  trip?: number;
  /** When it started, in ms from the run's start. */
  startMs: number;
  /** How long it took (0 for a mark: a re-prompt, a backstop's decision); while it runs, so far. */
  durationMs: number;
  /** How it ended, as a person reads it ("completed", "failed: ...", "approved by alice", "waiting"). */
  outcome: string;
  /** Its state, for its colour: done, failed, still going, or a mark in time. */
  state: "ok" | "failed" | "running" | "mark";
}

/** A run's steps in time order, from its history and trace. */
export interface RunTimeline {
  /** ISO 8601 start of the run (the first run of a session's chain). */
  startedAt: string;
  /** From the run's start to its end (or to now, while it runs). */
  durationMs: number;
  /** The steps, by start. */
  steps: TimelineStep[];
}

/** What "edit and fork" changed for the fork, over the recorded run's. */
export interface ForkChanges {
  /** The agent the fork went on with, when it is not the recorded run's. */
  agent?: string;
  /** The instructions (system prompt) the fork's model calls got instead of the agent's. */
  instructions?: string;
  /** The model id the fork's model calls used instead of the agent's model's. */
  model?: string;
  /** Model settings over the recorded run's (`temperature`, `maxTokens`, ...). */
  modelSettings?: Record<string, unknown>;
}

/** Where a fork came from, and what it changed. */
export interface ForkOrigin {
  /** The recorded run it was forked from. */
  workflowId: string;
  /** That run's Temporal run id. */
  runId?: string;
  /** The trip made again. */
  atTrip: number;
  /** What the person changed (none: the same agent, instructions, model and settings). */
  changes: ForkChanges;
}

/** A run's totals: every trip's tokens and cost, sub-agents and failed attempts included. */
export interface RunTotals {
  /** Model calls made (the session's, for a session). */
  trips: number;
  /** Tokens used. */
  tokens?: number;
  /** Cost in US dollars, when the model has pricing. */
  cost?: number;
}

/** `GET /api/runs/:workflowId`: a run as a conversation. */
export interface RunView {
  /** The run's workflow id. */
  workflowId: string;
  /** The Temporal run id shown (the latest, for a session across continue-as-new). */
  runId: string;
  /** The agent's name. */
  agent: string;
  /** `agent.version` serving the run. */
  version?: string;
  /** The run's status. */
  status: RunStatus;
  /** Why the run stopped, once it has. */
  stopReason?: string;
  /** The run in the Temporal UI. */
  temporalUiUrl: string;
  /** True when the run's payloads are encrypted and this studio has no codec: no content is shown. */
  encrypted: boolean;
  /** For a session: its run ids across continue-as-new, oldest first. */
  session?: { runs: string[] };
  /** Why the run failed (failed, terminated and timed-out runs). */
  error?: RunError;
  /** The run's totals (a session's: across its messages and runs). */
  totals: RunTotals;
  /** The conversation. */
  items: ConversationItem[];
  /** Per trip figures. */
  trips: TripView[];
  /** The run's steps on one time axis (a session's: across its runs). */
  timeline: RunTimeline;
  /** Set on a fork: the run it came from, and what was changed. */
  forkedFrom?: ForkOrigin;
}

/** A tool call waiting for approval, in the queue across runs. */
export interface QueuedApproval {
  /** The run that waits (decide on it: `POST /api/runs/:workflowId/approvals/:callId`). */
  workflowId: string;
  /** Its Temporal run id. */
  runId: string;
  /** The run's agent. */
  agent: string;
  /** The first words of the run's user message. */
  firstWords?: string;
  /** ISO 8601 start time of the run. */
  startTime: string;
  /** The call's id. */
  callId: string;
  /** The tool. */
  tool: string;
  /** The agent path whose call it is, root first (a sub-agent's call names the sub-agent last). */
  agents: string[];
  /** The call's input. */
  input: unknown;
  /** The trip that asked for it. */
  trip: number;
}

/** `GET /api/approvals`: every call waiting for approval, across the running runs, oldest run first. */
export interface ApprovalsResponse {
  /** The waiting calls. */
  approvals: QueuedApproval[];
  /** True when there were more running runs than one request reads (the newest 1,000 were asked). */
  truncated: boolean;
}

/** `POST /api/runs/:workflowId/approvals/:callId`'s body. */
export interface ApprovalRequest {
  /** Approve or reject. */
  decision: "approve" | "reject";
  /** A reason, recorded with the decision. */
  reason?: string;
}

/** `POST /api/runs/:workflowId/fork`'s body. */
export interface ForkRequest {
  /** The trip to fork before (from 1). */
  atTrip: number;
  /** The module's agent to go on with. */
  agent: string;
  /** Instructions (the system prompt) for the fork's model calls, instead of the agent's. */
  instructions?: string;
  /** A model id for the fork's model calls, instead of the agent's (its model must be an `ai.openai()` one). */
  model?: string;
  /** Model settings for the fork, over the recorded run's (`{ temperature: 0.2 }`). */
  modelSettings?: Record<string, unknown>;
}

/** `POST /api/runs/:workflowId/fork`'s answer. */
export interface ForkResponse {
  /** The fork's workflow id. */
  workflowId: string;
}

/** `POST /api/datasets`'s body: by ids, or every run matching a filter. */
export interface DatasetRequest {
  /** The dataset's name (a file name, letters, digits, `-`, `_`, `.`). */
  name: string;
  /** Replace a dataset of that name (without it, an existing name is a 409). */
  overwrite?: boolean;
  /** The runs to save. */
  workflowIds?: string[];
  /** Or: every run matching these filters. */
  filter?: Omit<RunsQuery, "pageSize" | "pageToken">;
}

/** A saved dataset. */
export interface DatasetInfo {
  /** Its name. */
  name: string;
  /** Its JSON Lines case file's path. */
  path: string;
  /** How many cases it holds. */
  cases: number;
}

/** `POST /api/datasets`'s answer. */
export interface DatasetResponse {
  /** The case file's path. */
  path: string;
  /** How many cases were written. */
  cases: number;
}

/** `GET /api/datasets`. */
export interface DatasetsResponse {
  /** The saved datasets. */
  datasets: DatasetInfo[];
}

/** `POST /api/evals`'s body. */
export interface EvalRequest {
  /** The dataset's name. */
  dataset: string;
  /** The module's agent to evaluate. */
  agent: string;
  /** Replay the recorded tool results instead of calling tools (default true). */
  recordedTools?: boolean;
}

/** `POST /api/evals`'s answer. */
export interface EvalStarted {
  /** The eval's id. */
  id: string;
}

/** `GET /api/evals/:id`: an eval's progress. */
export interface EvalProgress {
  /** The eval's id. */
  id: string;
  /** True once finished (or failed). */
  done: boolean;
  /** Cases in all. */
  total: number;
  /** Cases finished. */
  finished: number;
  /** `/api/reports/:id`, once done. */
  reportUrl?: string;
  /** The failure's message, when the eval failed. */
  error?: string;
}

/** What an eval ran: its dataset, agent and start, to head it by. */
export interface EvalHeading {
  /** The eval's id. */
  id: string;
  /** The dataset's name (absent for a report saved before the studio recorded it). */
  dataset?: string;
  /** The agent evaluated. */
  agent: string;
  /** `agent.version` evaluated, when it has one. */
  agentVersion?: string;
  /** ISO 8601 time the eval started. */
  startedAt: string;
}

/** `GET /api/evals`: the evals this studio has run. */
export interface EvalsResponse {
  /** The evals, newest first. */
  evals: (EvalProgress & { dataset: string; agent: string; startedAt: string })[];
}

/** Any API error's body. */
export interface ErrorResponse {
  /** What went wrong and what to do. */
  error: string;
}

/** `GET /api/compare?a=<id>&b=<id>`: eval `a` (the baseline) against eval `b`, as `compareReports` finds it. */
export type CompareResponse = ReportComparison & {
  /** The baseline eval's id. */
  a: string;
  /** The current eval's id. */
  b: string;
  /** What each eval ran: `a`'s and `b`'s dataset, agent and date. */
  headings: { a: EvalHeading; b: EvalHeading };
};

/** An agent schedule, as `GET /api/schedules` lists it. */
export interface ScheduleRow {
  /** The schedule's id (its runs carry it as `TemporalScheduledById`). */
  id: string;
  /** The agent its runs run. */
  agent: string;
  /** Paused schedules start no runs. */
  paused: boolean;
  /** The note of its last pause, unpause or creation. */
  note?: string;
  /** ISO 8601: when its next runs are due (none while paused). */
  nextRuns: string[];
  /** Its last runs, oldest first: workflow id and ISO 8601 start. */
  recentRuns: Array<{ workflowId: string; startedAt: string }>;
}

/** `GET /api/schedules`. */
export interface SchedulesResponse {
  /** The namespace's agent schedules, by id. */
  schedules: ScheduleRow[];
}
