import type { Duration } from "@temporalio/common";
import type { z } from "zod";
import type { BackstopTurn } from "../core/backstop-turn.js";
import type { AgentModel } from "../models/agent-model.js";
import type { McpToolset } from "../mcp/mcp-toolset.js";
import type { Budget } from "../core/usage.js";
import type { Execution, Tool } from "./define-tool.js";
import type { KnownKeys } from "../options/known-keys.js";
import type { AgentLimits } from "../limits.js";
import type { Handoff } from "./handoff-tools.js";
import type { Memory } from "../memory/define-memory.js";

export type { AgentLimits } from "../limits.js";
export type { BackstopTurn } from "../core/backstop-turn.js";

/** A test that makes a run an action request: a case-insensitive substring, a RegExp, or a predicate on the input. */
export type Intent = string | RegExp | ((input: string) => boolean);

/** What a `hint` function of `actWhenAsked` receives. */
export interface ActWhenAskedHintArgs {
  input: string;
  reply: string;
  requiredTools: string[];
  tripIndex: number;
  /** The run's context (`run(input, { context })`). */
  context: unknown;
}

/** When the user asks for a change and the model answers without calling a required tool, re-prompt it once more. */
export interface ActWhenAskedOptions {
  /** Any match makes the run an action request. */
  intents: Intent[];
  /** Tools that count as acting. A call that failed or was refused does not count. */
  requiredTools: string[];
  /** `"any"` (default) or `"all"` of `requiredTools` must have succeeded. */
  require?: "any" | "all";
  /** The re-prompt text, or a function of the answer. Default: ask the model to call the tool now. */
  hint?: string | ((args: ActWhenAskedHintArgs) => string);
  /** Re-prompts per run. Default 1. */
  maxReprompts?: number;
}
/** The keys of `ActWhenAskedOptions`: add a new one here too (the typecheck insists). */
export const ACT_WHEN_ASKED_KEYS = {
  intents: true,
  requiredTools: true,
  require: true,
  hint: true,
  maxReprompts: true,
} as const satisfies Record<keyof ActWhenAskedOptions, true> & KnownKeys;

/** A tool call as `isRefusal` sees it. */
export interface RefusalCandidate {
  tool: string;
  input: unknown;
  output: unknown;
  /** The run's context. */
  context: unknown;
}

/** What to do after a tool refuses a call. `"off"` (or absent) only feeds the refusal back to the model. */
export type OnToolRefusal =
  | "off"
  | "retry-once-with-hint"
  | {
      /** Retry prompts per run. Default 1. */
      retries?: number;
      /** The retry prompt; default quotes the tool and its reason. */
      hint?: (args: { tool: string; reason: string; context: unknown }) => string;
      /** Marks more results as refusals: return the reason, or false. */
      isRefusal?: (call: RefusalCandidate) => string | false | null | undefined;
    };
/** The keys of the object form of `onToolRefusal`. */
export const ON_TOOL_REFUSAL_KEYS = { retries: true, hint: true, isRefusal: true } as const satisfies Record<
  keyof Exclude<OnToolRefusal, string>,
  true
> &
  KnownKeys;

/** What a backstop's `run` receives. */
export interface BackstopContext extends BackstopTurn {
  /** The agent's name. */
  agent: string;
  /** JSON state shared by the run's backstops; it lives in the workflow and survives crashes. */
  state: Record<string, unknown>;
  /** Stable for (run, backstop): use it to make the side effect exactly-once across worker crashes. */
  idempotencyKey: string;
}

/** A deterministic server-side check around the model turn. */
export interface Backstop {
  /** Unique within the agent; names the backstop in logs and the trace. */
  name: string;
  /** `"before"` runs once before the first model call; `"after"` (default) after each answer that would end the run. */
  phase?: "before" | "after";
  /** Whether the backstop applies to this turn. */
  detect: (turn: BackstopTurn) => boolean | Promise<boolean>;
  /** The side effect, run at most once per run as an activity. A returned prompt is sent to the model as a user message. */
  run: (context: BackstopContext) => Promise<{ prompt?: string } | void> | { prompt?: string } | void;
}
/** The keys of a `Backstop`. */
export const BACKSTOP_KEYS = { name: true, phase: true, detect: true, run: true } as const satisfies Record<
  keyof Backstop,
  true
> &
  KnownKeys;

/** What an `onInvalidOutput.hint` function receives. */
export interface OutputHintArgs {
  /** The validation error, e.g. `✖ Invalid input: expected number → at count`. */
  issues: string;
  /** The answer's text. */
  text: string;
  /** The run's context. */
  context: unknown;
}

/** What happens when the final answer does not match the `output` schema. */
export interface OnInvalidOutput {
  /** Repair re-prompts per run, each quoting the validation error. Default 1. */
  retries?: number;
  /** The repair prompt, or a function of the error and the text. Default: quote the error and ask for matching JSON. */
  hint?: string | ((args: OutputHintArgs) => string | Promise<string>);
  /** Still invalid: `"error"` (default) fails the run with `OutputValidationError`; `"result"` ends it with stopReason "invalid-output". */
  onFailure?: "error" | "result";
}

/** What an `instructions` function receives, on the worker, before each model call. */
export interface InstructionsArgs {
  /** The user's request (a session: the current message). */
  input: string;
  /** The run's context (`run(input, { context })`). */
  context: unknown;
  /** The trip about to start (1-based). */
  trip: number;
  /** The agent's name. */
  agent: string;
}

/** The system prompt: text, or a function called before each model call. */
export type Instructions = string | ((args: InstructionsArgs) => string | Promise<string>);

/** Activity timeouts of an agent. */
export interface AgentTimeouts {
  /** Start-to-close timeout of one model call attempt. Default 2 minutes. */
  model?: Duration;
  /** Start-to-close timeout of one tool call attempt. Default 1 minute. */
  tool?: Duration;
  /**
   * How soon a crashed worker's activity is retried elsewhere: the worker heartbeats every
   * activity while it runs (a third of this apart at most; a model call every 250 ms), and
   * Temporal retries an attempt that missed this. Default 5 seconds for tool calls and 2.5
   * seconds for model calls (set, it applies to both): a SIGKILLed worker's answer goes on on
   * another worker about 4 s later (2.5 s, the retry's 200 ms back-off, the sticky queue's 1 s).
   * A worker that stalls for longer (a blocked event loop on a loaded machine) loses its
   * attempt, which is retried: a model request more.
   */
  heartbeat?: Duration;
}
/** The keys of `AgentTimeouts`. */
export const AGENT_TIMEOUT_KEYS = { model: true, tool: true, heartbeat: true } as const satisfies Record<
  keyof AgentTimeouts,
  true
> &
  KnownKeys;

/** The keys of `AgentLimits`. */
export const AGENT_LIMIT_KEYS = {
  toolCallsPerAnswer: true,
  toolInputBytes: true,
  toolOutputBytes: true,
} as const satisfies Record<keyof AgentLimits, true> & KnownKeys;

/** Options of `ai.agent()`. */
export interface AgentOptions {
  /** How workers find the agent; keep it stable across deploys. Default `"agent"`. */
  name?: string;
  /**
   * What the agent does, in a sentence, for those who choose it: other agents' `asTool()`, MCP
   * clients (its tool's description), A2A callers (its card) and the studio. At most 1,024 characters.
   */
  description?: string;
  /**
   * The model: `ai.openai(...)` (the Chat Completions API), `ai.model(languageModel, settings)`,
   * or an AI SDK language model as a provider package makes it (`anthropic("claude-sonnet-4-5")`).
   */
  model: AgentModel;
  /**
   * The system prompt: a string, or `({ input, context, trip, agent }) => string` called on the
   * worker before each model call (an error in it fails that call attempt, retried by Temporal).
   */
  instructions?: Instructions;
  /** A zod schema for the run's `context`, checked on the client before the run starts. Default: any JSON value. */
  contextSchema?: z.ZodType;
  /**
   * Tools the model may call: `ai.tool()` values, MCP servers' tools (`ai.mcp()`), and
   * `otherAgent.asTool()` sub-agents (each call its own child workflow). Or a record `{ name: tool }`,
   * which may also hold the AI SDK's `tool({ inputSchema, execute })` (run as an activity) and
   * provider-defined tools such as `anthropic.tools.webSearch_20250305()` (run at the provider).
   */
  tools?: Array<Tool | McpToolset> | Record<string, Tool | McpToolset | object>;
  /**
   * Agents this one may hand the run to: one `transfer_to_<name>` tool each. When the model calls
   * it, the run continues with that agent (its instructions, tools, model and contract options)
   * and the conversation so far; `maxTrips` and `budget` count across the whole run. Default none.
   */
  handoffs?: Handoff[];
  /** Model calls per run, re-prompts included. Default 10. */
  maxTrips?: number;
  /** Activity timeouts. */
  timeouts?: AgentTimeouts;
  /** Re-prompt when the user asked for a change and the model did not make it. Off by default. */
  actWhenAsked?: ActWhenAskedOptions;
  /** Retry with a hint after a tool refused a call. Off by default. */
  onToolRefusal?: OnToolRefusal;
  /** Deterministic checks around the model turn. None by default. */
  backstops?: Backstop[];
  /** Tool calls per answer, tool input and output size. See `AgentLimits` for the defaults. */
  limits?: AgentLimits;
  /**
   * What a run may spend: `{ maxTokens?, maxCostUsd? }` (cost needs `pricing` on the model). A trip
   * does not start once it is used up, and the run ends with stopReason "budget". Overridable per
   * run (`run(input, { budget })`); per message in sessions. Default: no limit.
   */
  budget?: Budget;
  /**
   * A zod schema for the final answer: the model is asked for JSON matching it, the answer is
   * parsed and validated on the worker, and `result.output` is the typed value (`reply` keeps the
   * text). Overridable per run (`run(input, { output })`). Default: none (plain text).
   */
  output?: z.ZodType;
  /**
   * How the model is asked for the output: `"json-schema"` (default) sends `response_format: {
   * type: "json_schema", strict }`; `"prompt"` puts the schema in the instructions instead, for
   * servers without structured outputs.
   */
  outputMode?: "json-schema" | "prompt";
  /** `strict` of the `json_schema` response format (OpenAI's structured outputs need every property required). Default true. */
  outputStrict?: boolean;
  /** An answer that does not match `output`: one repair re-prompt by default, then an error. */
  onInvalidOutput?: OnInvalidOutput;
  /**
   * `"activity"` (default): each model call is an activity. `"local"`: a local activity (no task
   * queue round trip; a worker crash repeats the call; no token streaming: `streamText` is refused).
   */
  modelExecution?: Execution;
  /**
   * The agent's version, recorded on every run (`result.agentVersion`, the trace, the
   * `DurableAgentVersion` search attribute). Default: `agent.version`'s fingerprint of the
   * definition. Set it to name releases yourself (e.g. `"coach@2026-12-01"`).
   */
  version?: string;
  /**
   * What a run does when the definition serving it changes between two of its trips (a worker
   * restarted on new code): `"continue"` (default) records `agent.changed` in the trace and goes
   * on; `"fail"` records it and fails the run with `AgentDefinitionChangedError`.
   */
  onDefinitionChange?: "continue" | "fail";
  /**
   * The agent's memory of its users (`ai.memory({ store, embedder, workingMemory?, recall? })`): a run
   * with a `user` recalls their past messages and working memory before its first model call and
   * stores its messages after each turn. A run without a user has no memory. Default: none.
   */
  memory?: Memory;
}

/**
 * The keys of `AgentOptions`, checked by `ai.agent()`: an unknown key is an `AgentOptionsError`
 * naming the closest of these. A new option goes here too (the typecheck insists).
 */
export const AGENT_OPTION_KEYS = {
  name: true,
  description: true,
  model: true,
  instructions: true,
  tools: true,
  maxTrips: true,
  timeouts: true,
  actWhenAsked: true,
  onToolRefusal: true,
  backstops: true,
  limits: true,
  contextSchema: true,
  budget: true,
  output: true,
  outputMode: true,
  outputStrict: true,
  onInvalidOutput: true,
  modelExecution: true,
  handoffs: true,
  version: true,
  onDefinitionChange: true,
  memory: true,
} as const satisfies Record<keyof AgentOptions, true> & KnownKeys;
