/**
 * Worker-side: what the `model.call` activity hands to a model client (the `openai` client's, or
 * an AI SDK model's), and what it gets back. The activity reads the conversation, the
 * instructions and the output schema, and owns the deltas, the failed attempts' usage and the
 * error table; a client only makes the request and reads the answer.
 */
import type { McpToolDefinition } from "../core/mcp-tools.js";
import type { Message } from "../core/types.js";
import type { Usage } from "../core/usage.js";
import type { ResolvedLimits } from "../limits.js";
import type { ModelSettings } from "../core/model-settings.js";
import type { OutputRequest } from "./structured-output.js";
import type { AssistantMessage } from "./validate-answer.js";

/** A function tool as a client offers it: an `ai.tool()` tool (its JSON schema) is one, whatever else it carries. */
export interface FunctionTool {
  /** The name the model calls it by. */
  readonly name: string;
  /** What it does, for the model. */
  readonly description: string | undefined;
  /** Its input's JSON schema. */
  readonly jsonSchema: Record<string, unknown>;
}

/** One model call, as a client makes it. */
export interface ModelCallRequest {
  /** The agent's instructions for this call (without the typed output's, which the client adds in the prompt mode). */
  instructions: string | undefined;
  messages: Message[];
  /** The agent's tools and the run's MCP tools. */
  tools: Array<FunctionTool | McpToolDefinition>;
  /** The typed output the call asks for, if any. */
  output: OutputRequest | undefined;
  /** The run's own model settings, over the model's. */
  runSettings: ModelSettings | undefined;
  /** The first trip of the run (a session: of the message): a forcing toolChoice applies. */
  firstTrip: boolean;
  /** Someone reads the answer's text as it arrives. */
  streamText: boolean;
  signal: AbortSignal;
  /** Each text delta, as it arrives. */
  onTextDelta?: (text: string) => void;
  /** Each reasoning delta, as it arrives (AI SDK models' reasoning parts; the `openai` client's path has none). */
  onReasoningDelta?: (text: string) => void;
  /** Usage, as soon as the server reports it (a failed attempt was still paid for). */
  onUsage: (usage: Usage) => void;
  limits: ResolvedLimits;
}

/** A client's answer: checked against the agent's limits, with its usage and the output mode it was asked in. */
export interface ModelCallAnswer {
  message: AssistantMessage;
  usage?: Usage;
  /** What `validateAnswer` adjusted (ids, names, oversized arguments). */
  adjustments: string[];
}
