/**
 * Plain-data types shared by the workflow, the activities and the public API.
 * Nothing here touches I/O, so the workflow may import it.
 */
import type { ErrorData } from "../errors.js";
import type { Budget, RunUsage, Usage } from "./usage.js";
import type { RecalledMemoryMessage } from "./memory.js";

/**
 * What a provider attached to a part of an answer and needs back with it on the next request,
 * keyed by provider (as the AI SDK's `providerMetadata`): an Anthropic thinking block's
 * `signature` or a redacted block's `redactedData`, an OpenAI Responses item's `itemId` and
 * `reasoningEncryptedContent`, a Gemini part's `thoughtSignature`. Plain JSON, kept as it came.
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** A tool call the model asked for, as it arrived (arguments are the raw JSON text). */
export interface RequestedToolCall {
  id: string;
  name: string;
  arguments: string;
  /** What the provider attached to the call (e.g. Gemini's `thoughtSignature`, a Responses item id); sent back with it. */
  providerMetadata?: ProviderMetadata;
}

/**
 * A tool call the provider ran itself while answering (a provider-defined tool, e.g. Anthropic's
 * web search): what it was asked and what it returned, as the provider reported them. Not run by a
 * worker and never asked for approval; sent back with the answer, as the provider needs it.
 */
export interface ProviderToolCall {
  id: string;
  /** The tool's name as the agent's tools record names it. */
  name: string;
  /** The input the model gave it. */
  input: unknown;
  /** What the provider's tool returned (its error, when `isError`); absent when the provider sent no result. */
  output?: unknown;
  /** The provider reported the call as failed. */
  isError?: true;
  /** What the provider attached to the call, sent back with it. */
  providerMetadata?: ProviderMetadata;
}

/**
 * Reasoning the model did before its answer, as the provider reported it: the text (a summary,
 * or empty when the provider keeps it hidden or redacted) and what the provider needs back to
 * continue from it (`providerMetadata`).
 */
export interface ReasoningPart {
  text: string;
  providerMetadata?: ProviderMetadata;
}

/**
 * A part of a user message, in the Chat Completions shape: text, an image by URL (an https URL,
 * or a `data:` URL), or a file (a `data:` URL, e.g. a PDF) with its name.
 */
export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  | { type: "file"; file: { file_data: string; filename?: string } };

/**
 * One message of a conversation. Its shape is the Chat Completions API's (camel-cased), which
 * every recorded run has; an answer also carries, when the provider gave them, its reasoning
 * parts and each part's provider metadata (`reasoning`, `textMetadata`, a tool call's
 * `providerMetadata`). An answer's parts go back to a provider in the order reasoning, text, tool
 * calls, the order every provider answers in. A tool message's `content` is the JSON of the
 * tool's output; images in it (an MCP tool's `image` parts) reach the model as images where the
 * provider takes them in tool results, and are sent after the tool results elsewhere.
 */
export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ContentPart[] }
  | {
      role: "assistant";
      /** The answer's text (its text parts joined), or null when it only called tools. */
      content: string | null;
      toolCalls?: RequestedToolCall[];
      /** The reasoning before the answer, in the order it came, when the provider reported any. */
      reasoning?: ReasoningPart[];
      /** What the provider attached to the answer's text (e.g. a Responses message item id, a Gemini thought signature). */
      textMetadata?: ProviderMetadata;
      /** The tool calls the provider ran itself while answering (provider-defined tools), in the order it ran them. */
      providerToolCalls?: ProviderToolCall[];
    }
  | { role: "tool"; toolCallId: string; name: string; content: string };

/** What a tool call came to: `ok`, `failed` (threw) or `refused` (bad input, unknown tool, or a refusal result). */
export type ToolCallStatus = "ok" | "failed" | "refused";

/** The record of one tool call of a run. */
export interface ToolCallRecord {
  /** The id the model gave the call. */
  id: string;
  /** The tool's name as the model called it. */
  name: string;
  /** The parsed input (the raw text when it was not valid JSON). */
  input: unknown;
  /** What `execute` returned, when it returned. */
  output?: unknown;
  /** The error message, when the call failed. */
  error?: string;
  /** Why the call was refused, when it was. */
  reason?: string;
  status: ToolCallStatus;
  /** The trip (1-based model call) whose answer asked for this call. */
  trip: number;
  /** Where the tool came from when not from `ai.tool()`: `"mcp:<server>"` for an MCP server's tool. */
  source?: string;
  /** For a sub-agent tool (`agent.asTool()`): the sub-agent's name and its child workflow's id. */
  subAgent?: string;
  childWorkflowId?: string;
  /** Set in a replay with recorded tools: the call was answered from the recording, not executed. */
  replayed?: true;
  /** The provider ran the call while answering (a provider-defined tool): no worker executed it, no approval applied. */
  provider?: true;
}

/** Where a forked run came from: the recorded run and the trip whose model call it made again. */
export interface ForkedFrom {
  workflowId: string;
  runId: string;
  atTrip: number;
}

/** Why a run ended. */
export type StopReason = "answered" | "max-trips" | "budget" | "invalid-output" | "cancelled" | "timed-out";

/** Which contract option sent a re-prompt. */
export type RepromptKind = "backstop" | "refusal-retry" | "output-repair" | "act-when-asked";

/** One entry of the agent trace: what happened, on which trip. */
export type TraceEvent =
  | {
      trip: number;
      type: "model.answered";
      text: string | null;
      toolCalls: string[];
      usage?: Usage;
      /**
       * The answer's reasoning text (its parts joined), when the provider reported any: what a
       * subscriber that did not see it stream live gets before the text. Absent in runs recorded before it was kept here.
       */
      reasoning?: string;
      /**
       * The `agent.version` of the definition that gave this answer, as the worker that made the
       * model call reported it; absent in runs of workers before versions.
       */
      agentVersion?: string;
      /**
       * The model call's attempt that gave this answer, when it was retried (its `trip.retry` is on
       * the run's stream); absent for a first attempt.
       */
      attempt?: number;
    }
  | {
      trip: number;
      type: "tool.finished";
      tool: string;
      callId: string;
      status: ToolCallStatus;
      reason?: string;
      error?: string;
      /** The provider ran the call while answering (a provider-defined tool); recorded with its trip's `model.answered`. */
      provider?: true;
    }
  | { trip: number; type: "reprompt"; kind: RepromptKind; text: string; source?: string }
  | { trip: number; type: "reprompt.withheld"; kind: RepromptKind; detail: string }
  | {
      trip: number;
      type: "backstop";
      name: string;
      phase: "before" | "after";
      outcome: "detected" | "ran" | "prompted" | "error" | "skipped";
      detail?: string;
      /** In a replay: `run` was not called; the recorded prompt was used (or the backstop skipped, not having run in the recording). */
      replayed?: true;
    }
  | { trip: number; type: "fork"; from: ForkedFrom; agent: string }
  | { trip: number; type: "callback.error"; source: string; error: string }
  | {
      trip: number;
      type: "approval";
      tool: string;
      callId: string;
      outcome: "requested" | "approved" | "rejected" | "timed-out";
      input?: unknown;
      reason?: string;
      /** Who decided (`approve(callId, { by })`), when they said. */
      by?: string;
      /** The approver's note (`approve(callId, { note })`). */
      note?: string;
      /** When the decision was made (ISO 8601, the workflow's clock), for approved and rejected calls. */
      decidedAt?: string;
    }
  | { trip: number; type: "budget.used-up"; used: string; budget: Budget; usage?: RunUsage }
  | { trip: number; type: "run.stopped"; stopReason: StopReason; detail: string }
  | {
      trip: number;
      type: "subagent.started";
      tool: string;
      callId: string;
      agent: string;
      workflowId: string;
      trace?: TraceEvent[];
    }
  | {
      trip: number;
      type: "subagent.finished";
      tool: string;
      callId: string;
      agent: string;
      workflowId: string;
      /** How the child run ended ("failed" when its workflow failed). */
      stopReason: StopReason | "failed";
      detail?: string;
      usage?: RunUsage;
      /** The child run's own trace: its re-prompts, tool calls and sub-agents, nested. */
      trace?: TraceEvent[];
      /** When the child run failed with a typed error: that error as data (`fromFailure(error)` gives it back as its class). */
      error?: ErrorData;
    }
  | { trip: number; type: "handoff"; from: string; to: string; callId: string }
  /** A remote tool's call (`ai.activityTool`, `ai.workflowTool`) was scheduled: it waits for a worker of `taskQueue`. */
  | {
      trip: number;
      type: "remote.started";
      tool: string;
      callId: string;
      target: "activity" | "workflow";
      /** The activity's or workflow's type name. */
      name: string;
      taskQueue: string;
    }
  /** The definition serving the run changed between two of its trips (a worker restarted on new code): `from` and `to` are `agent.version`s. */
  | { trip: number; type: "agent.changed"; agent: string; from: string; to: string }
  /**
   * Memory given to the model before the turn's first trip (an agent's `memory`, a run with a `user`):
   * the working memory as the model saw it, and the recalled messages.
   */
  | { trip: number; type: "memory.recalled"; user: string; workingMemory?: unknown; recalled: RecalledMemoryMessage[] };

/** What `agent.run()` resolves to, and the result of the `agentRun` workflow. `Output` is the type of `output`. */
export interface RunResult<Output = unknown> {
  workflowId: string;
  runId: string;
  /** The text of the model's last answer ("" when the run stopped without one). */
  reply: string;
  stopReason: StopReason;
  /** The whole conversation: the input, every answer, every tool result, every re-prompt. */
  messages: Message[];
  toolCalls: ToolCallRecord[];
  /** Model calls made. */
  trips: number;
  trace: TraceEvent[];
  /** Tokens (and cost, with pricing) the run used, failed attempts and sub-agents included; undefined when the server reported none. */
  usage?: RunUsage;
  /** The agent that gave the final answer (the run's own agent, or the last one handed off to). */
  agent?: string;
  /** `usage` by agent name: the run's agents (handoffs) and its sub-agents, at any depth. */
  usageByAgent?: Record<string, RunUsage>;
  /** With an `output` schema: the final answer parsed and validated (`reply` keeps its text). Absent when the run stopped without a valid final answer. */
  output?: Output;
  /** The `agent.version` of the run's agent that served it last (see `agent.changed` in the trace for changes); absent in runs of workers before versions. */
  agentVersion?: string;
  /** Set on a fork (`ai.fork`): the recorded run and trip it went on from. */
  forkedFrom?: ForkedFrom;
}

/** A message's text: its content, or its text parts joined by newlines (what intents and backstops see). */
export function textOf(content: string | ContentPart[] | null): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

/** A tool call waiting for a person's approval, in a run or in one of its sub-agents' runs. */
export interface PendingApproval {
  callId: string;
  tool: string;
  /** The agent whose call waits. */
  agent: string;
  /** Its agent path, root first (e.g. ["triage", "billing"]). */
  agents: string[];
  /** The workflow of the run that waits (the parent's own, or a child's). */
  workflowId: string;
  input: unknown;
  trip: number;
}
